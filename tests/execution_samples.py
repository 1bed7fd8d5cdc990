"""Small sample deposits and local wheels for the execution-tier tests.

Everything is written by the tests: the wheels are built here (a wheel is a zip file
with a dist-info folder), so ``pip install --no-index --find-links`` installs them
without any network. The deposits mirror the paper's failure modes (Table 5): one that
installs and runs, an install conflict, an undeclared module, a missing data file, a
code error, plus a nondeterministic one, one that opens a network connection and one
that runs forever.
"""

from __future__ import annotations

import base64
import hashlib
import json
import zipfile
from pathlib import Path


def build_wheel(folder: Path, name: str, version: str, modules: dict[str, str], requires: tuple[str, ...] = ()) -> Path:
    """A pure-Python wheel ``name-version-py3-none-any.whl`` holding ``modules``."""
    dist = name.replace("-", "_")
    path = folder / f"{dist}-{version}-py3-none-any.whl"
    info = f"{dist}-{version}.dist-info"
    files = dict(modules)
    files[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        + "".join(f"Requires-Dist: {r}\n" for r in requires)
    )
    files[f"{info}/WHEEL"] = "Wheel-Version: 1.0\nGenerator: reproscore-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = []
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in files.items():
            data = text.encode()
            archive.writestr(member, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{member},sha256={digest},{len(data)}")
        record.append(f"{info}/RECORD,,")
        archive.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return path


def build_wheels(folder: Path) -> Path:
    """rs-gamma 1.0; rs-alpha 1.0; rs-beta 1.0, which needs rs-alpha >= 2 (not there)."""
    folder.mkdir(parents=True, exist_ok=True)
    build_wheel(folder, "rs-gamma", "1.0", {"rs_gamma/__init__.py": "VALUE = 42\n\ndef double(x):\n    return 2 * x\n"})
    build_wheel(folder, "rs-alpha", "1.0", {"rs_alpha/__init__.py": "VALUE = 1\n"})
    build_wheel(folder, "rs-beta", "1.0", {"rs_beta/__init__.py": "VALUE = 2\n"}, ("rs-alpha>=2",))
    return folder


def _notebook(cells: list[tuple[str, str]]) -> str:
    return json.dumps({
        "nbformat": 4, "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "cells": [
            {"cell_type": kind, "id": f"c{i}", "metadata": {}, "source": text,
             **({"outputs": [], "execution_count": None} if kind == "code" else {})}
            for i, (kind, text) in enumerate(cells)
        ],
    }, indent=1)


WELL_DOCUMENTED_README = """# Sample analysis

A small analysis that summarises the input table and writes `results/summary.txt`.

## Installation

```sh
pip install -r requirements.txt
```

## Usage

```sh
python main.py
```

## Data

The input table `data/input.csv` is part of the deposit: one number per line, the
measurements of the experiment described in the paper. It is archived at
https://doi.org/10.5281/zenodo.1234567 as well.

## Expected output

`results/summary.txt` holds the sum of the input values.
"""

_DOCUMENTED_EXTRAS = {
    "LICENSE": "MIT License\n\nPermission is hereby granted, free of charge, to any person...\n",
    "CITATION.cff": "cff-version: 1.2.0\ntitle: Sample analysis\nmessage: Cite it.\nauthors:\n  - family-names: Doe\n    given-names: Jane\n",
    "Dockerfile": "FROM python:3.11-slim\nCOPY . /app\nWORKDIR /app\nRUN pip install -r requirements.txt\nCMD [\"python\", \"main.py\"]\n",
    "data/input.csv": "1\n2\n3\n",
}

_SUMMARY_MAIN = '''"""Sum the input table and write the summary."""
import os
import random

{imports}

random.seed(0)


def summarise(path):
    """The sum of the numbers in ``path``, one per line."""
    with open(path) as handle:
        return sum(float(line) for line in handle if line.strip())


if __name__ == "__main__":
    os.makedirs("results", exist_ok=True)
    total = summarise("data/input.csv")
    with open("results/summary.txt", "w") as out:
        out.write(f"sum {{total}} scaled {{{scaled}}}\\n")
    print("summary written", total)
'''


def _files_success() -> dict[str, str]:
    files = {
        "README.md": WELL_DOCUMENTED_README,
        "requirements.txt": "rs-gamma==1.0\n",
        "main.py": _SUMMARY_MAIN.format(imports="import rs_gamma", scaled="rs_gamma.double(total)"),
        "analysis.ipynb": _notebook([
            ("markdown", "# Analysis\nThe summary of the input table, step by step."),
            ("code", "import rs_gamma\nfrom main import summarise\ntotal = summarise('data/input.csv')\nprint(total)"),
            ("code", "rs_gamma.double(total)"),
        ]),
        "tests/__init__.py": "",
        "tests/test_main.py": (
            "import unittest\n\nimport rs_gamma\nfrom main import summarise\n\n\n"
            "class TestSummary(unittest.TestCase):\n"
            "    def test_sum(self):\n        self.assertEqual(summarise('data/input.csv'), 6.0)\n\n"
            "    def test_double(self):\n        self.assertEqual(rs_gamma.double(2), 4)\n"
        ),
        ".python-version": "3.11\n",
    }
    files.update(_DOCUMENTED_EXTRAS)
    return files


SHORT_README = """# Sample analysis

Sums the input table.

## Installation

```sh
pip install -r requirements.txt
```

## Usage

```sh
python main.py
```
"""


def _files_install_conflict() -> dict[str, str]:
    # The second-best-documented deposit (the paper's install_dep: well specified, yet
    # it cannot install): pinned requirements, a Python version, instructions, a
    # licence and a citation; but rs-beta 1.0 needs rs-alpha >= 2.
    files = {
        "README.md": SHORT_README,
        "requirements.txt": "rs-alpha==1.0\nrs-beta==1.0\n",
        "main.py": _SUMMARY_MAIN.format(imports="import rs_alpha\nimport rs_beta",
                                        scaled="rs_alpha.VALUE * rs_beta.VALUE * total"),
        ".python-version": "3.11\n",
    }
    files.update({k: v for k, v in _DOCUMENTED_EXTRAS.items() if k != "Dockerfile"})
    return files


def _minimal(main: str, **extra: str) -> dict[str, str]:
    return {"requirements.txt": "rs-gamma==1.0\n", "main.py": main, **extra}


def sample_files(network_port: int = 9) -> dict[str, dict[str, str]]:
    """Every sample deposit as {name: {path: text}}."""
    return {
        "success": _files_success(),
        "install_conflict": _files_install_conflict(),
        "missing_module": _minimal("import rs_gamma\nimport rs_undeclared\n\nprint(rs_undeclared.run(rs_gamma.VALUE))\n"),
        "missing_data": _minimal("import rs_gamma\n\nwith open('data/measurements.csv') as f:\n    print(len(f.read()), rs_gamma.VALUE)\n"),
        "code_error": _minimal("import rs_gamma\n\nlabel = 'value: ' + rs_gamma.VALUE\nprint(label)\n"),
        "nondeterministic": _minimal(
            "import os\nimport random\n\nimport rs_gamma\n\n"
            "os.makedirs('results', exist_ok=True)\n"
            "with open('results/fixed.txt', 'w') as out:\n    out.write(f'value {rs_gamma.VALUE}\\n')\n"
            "print('draw', random.random())\n"
        ),
        "network": _minimal(
            "import socket\n\nimport rs_gamma\n\n"
            "port = int(open('port.txt').read())\n"
            "connection = socket.create_connection(('127.0.0.1', port), timeout=5)\n"
            "connection.sendall(b'hello from the deposit')\nconnection.close()\nprint('connected', rs_gamma.VALUE)\n",
            **{"port.txt": f"{network_port}\n"},
        ),
        "forever": _minimal(
            "import subprocess\n\nimport rs_gamma\n\n"
            "# A child process that would outlive a naive kill of the main process.\n"
            "subprocess.Popen(['sleep', '4242.123'])\n"
            "while True:\n    rs_gamma.double(1)\n"
        ),
    }


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def write_samples(folder: Path, network_port: int = 9) -> dict[str, Path]:
    return {name: write_tree(folder / name, files) for name, files in sample_files(network_port).items()}
