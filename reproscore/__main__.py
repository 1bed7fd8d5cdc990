from reproscore.cli import main

main()
