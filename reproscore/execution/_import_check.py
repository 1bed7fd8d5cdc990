"""Helper of the E′ probe, run by the deposit's own interpreter inside the sandbox.

``python _import_check.py OUT MODULE...``: imports each module in turn and appends one
JSON line per module to OUT (written as it goes, so a hang still leaves the modules
already tried): ``{"module", "ok", "error", "message"}``. ``ok`` is false only for an
ImportError (ModuleNotFoundError included), as the paper defines E′; any other
exception raised while importing is recorded but the module counts as imported.
Standard library only: it runs in whatever environment the deposit declared.
"""

import importlib
import json
import sys


def main(argv):
    out_path, modules = argv[0], argv[1:]
    with open(out_path, "a", encoding="utf-8") as out:
        for module in modules:
            record = {"module": module, "ok": True, "error": None, "message": ""}
            try:
                importlib.import_module(module)
            except ImportError as exc:
                record.update(ok=False, error=type(exc).__name__, message=str(exc)[:500])
            except BaseException as exc:  # noqa: BLE001 - SystemExit too: the module imported
                record.update(error=type(exc).__name__, message=str(exc)[:500])
            out.write(json.dumps(record) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
