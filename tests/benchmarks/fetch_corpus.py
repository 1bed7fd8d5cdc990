"""Check out the real repositories of ``real_repositories.txt`` at their commits.

    python tests/benchmarks/fetch_corpus.py DIR            # DIR/<kind>/<folder>/
    python tests/benchmarks/fetch_corpus.py DIR --kind julia
    python tests/benchmarks/fetch_corpus.py DIR --list tests/calibration/checked/repositories.txt

Each tree is fetched shallowly at its commit (``git fetch --depth 1 <url> <commit>``,
which GitHub serves for any reachable commit) and checked out without history; a folder
already at the right commit is left alone. This needs the network and ``git``; the
benchmarks and the calibration run read the result and never fetch. Nothing fetched
belongs in the project's repository.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIST = HERE / "real_repositories.txt"


def read_list(path: Path = LIST) -> list[tuple[str, str, str, str]]:
    """(kind, folder, repository URL, commit) for every line of the list."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 4 or len(parts[3]) != 40:
            raise SystemExit(f"{path}:{number}: expected 'kind folder url commit', got {line!r}")
        rows.append((parts[0], parts[1], parts[2], parts[3]))
    return rows


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def checkout(target: Path, url: str, commit: str) -> str:
    if (target / ".git").is_dir():
        try:
            if _git(target, "rev-parse", "HEAD") == commit:
                return "present"
        except subprocess.CalledProcessError:
            pass
    target.mkdir(parents=True, exist_ok=True)
    if not (target / ".git").is_dir():
        _git(target, "init", "-q")
    _git(target, "fetch", "-q", "--depth", "1", url, commit)
    _git(target, "checkout", "-q", "--force", "FETCH_HEAD")
    return "fetched"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path, help="where the trees go: DIR/<kind>/<folder>/")
    parser.add_argument("--kind", help="only the repositories of this kind")
    parser.add_argument("--list", type=Path, default=LIST,
                        help="the list of repositories (default: real_repositories.txt, the calibration set)")
    args = parser.parse_args()
    failed = 0
    for kind, folder, url, commit in read_list(args.list):
        if args.kind and kind != args.kind:
            continue
        try:
            state = checkout(args.directory / kind / folder, url, commit)
        except subprocess.CalledProcessError as exc:
            failed += 1
            state = f"FAILED: {exc.stderr.strip() or exc}"
        print(f"{kind}/{folder} {commit[:12]} {state}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
