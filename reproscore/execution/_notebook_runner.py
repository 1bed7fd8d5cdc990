"""Helper of the N probe: executes one notebook top to bottom with nbclient.

``python _notebook_runner.py NOTEBOOK OUT TIMEOUT KERNEL``, run inside the sandbox by
the interpreter that runs reproscore (where nbclient, nbformat and ipykernel are
installed: ``reproscore[execute]``). The kernel is the deposit's own interpreter (the
kernel spec KERNEL, found through ``$JUPYTER_PATH``), started in the notebook's folder.
Writes one JSON object to OUT: ``ok``, ``error`` (the exception name of the failing
cell, or ``timeout``/``dead_kernel``), ``message``, the failing ``cell``, and per code
cell the text of its outputs (for the determinism probe). The executed notebook is not
written back.
"""

import hashlib
import json
import os
import sys


def _cell_text(cell):
    parts = []
    for output in cell.get("outputs", []):
        kind = output.get("output_type")
        if kind == "stream":
            parts.append(output.get("text", ""))
        elif kind in ("execute_result", "display_data"):
            data = output.get("data", {})
            if "text/plain" in data:
                parts.append(data["text/plain"] if isinstance(data["text/plain"], str) else "".join(data["text/plain"]))
            for mime in sorted(data):
                if mime != "text/plain":
                    value = data[mime] if isinstance(data[mime], str) else json.dumps(data[mime], sort_keys=True)
                    parts.append(f"<{mime} sha256:{hashlib.sha256(value.encode()).hexdigest()}>")
        elif kind == "error":
            parts.append(f"{output.get('ename')}: {output.get('evalue')}")
    return "".join(parts)


def main(argv):
    notebook, out_path, timeout, kernel = argv[0], argv[1], float(argv[2]), argv[3]
    result = {"ok": False, "error": None, "message": "", "cell": None, "outputs": []}
    try:
        import nbformat
        from nbclient import NotebookClient
        from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
    except ImportError as exc:
        result.update(error="runner_unavailable", message=f"nbclient/nbformat cannot be imported: {exc}")
        _write(out_path, result)
        return 2
    try:
        nb = nbformat.read(notebook, as_version=4)
    except Exception as exc:  # noqa: BLE001 - an unreadable notebook is a failed notebook
        result.update(error="unreadable", message=f"{type(exc).__name__}: {exc}"[:1000])
        _write(out_path, result)
        return 1
    client = NotebookClient(
        nb, timeout=timeout, kernel_name=kernel, allow_errors=False, interrupt_on_timeout=False,
        resources={"metadata": {"path": os.path.dirname(os.path.abspath(notebook))}},
        record_timing=False,
    )
    try:
        client.execute()
        result["ok"] = True
    except CellTimeoutError as exc:
        result.update(error="timeout", message=str(exc)[-1000:])
    except DeadKernelError as exc:
        result.update(error="dead_kernel", message=str(exc)[-1000:])
    except CellExecutionError as exc:
        result.update(error=exc.ename or "CellExecutionError", message=f"{exc.ename}: {exc.evalue}"[:1000])
    except Exception as exc:  # noqa: BLE001 - the kernel could not start, …
        result.update(error=type(exc).__name__, message=str(exc)[-1000:])
    code_cells = [c for c in nb.cells if c.get("cell_type") == "code"]
    for index, cell in enumerate(code_cells):
        if result["cell"] is None and any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
            result["cell"] = index + 1
        result["outputs"].append(_cell_text(cell))
    _write(out_path, result)
    return 0 if result["ok"] else 1


def _write(path, result):
    with open(path, "w", encoding="utf-8") as out:
        json.dump(result, out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
