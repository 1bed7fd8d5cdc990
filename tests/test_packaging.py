"""What a user installs: every third-party package the code imports is declared in
pyproject.toml, and the licence ships in the distributions."""

from __future__ import annotations

import ast
import importlib.metadata
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("harvester", "scoring", "exporters", "rubrics", "reproscore")
# The demo replays recorded servers that live with the tests (it runs from a checkout).
TEST_HELPERS = {"replay_server", "swh_fakes"}


def _imported_top_level_modules() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top in sys.stdlib_module_names or top in PACKAGES or top in TEST_HELPERS:
                        continue
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def _declared_distributions() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        requirements.extend(extra)
    return {canonicalize_name(Requirement(text).name) for text in requirements}


def test_every_imported_package_is_declared_in_pyproject():
    distributions = importlib.metadata.packages_distributions()
    declared = _declared_distributions()
    undeclared = {}
    for module, users in _imported_top_level_modules().items():
        owners = {canonicalize_name(name) for name in distributions.get(module, [module])}
        if not owners & declared:
            undeclared[module] = sorted(users)
    assert undeclared == {}


def test_lxml_is_a_runtime_dependency():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = {canonicalize_name(Requirement(text).name) for text in project["dependencies"]}
    assert "lxml" in runtime


def test_the_licence_is_apache_2_and_ships_with_the_distributions():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text


def test_the_system_package_step_names_what_is_missing_when_it_may_not_install():
    """As a user who is not root and has no sudo, `make test` stops at its first step with
    one line naming the packages to install (here: none of them is present)."""
    import os
    import shutil
    import subprocess
    import tempfile

    # Under /tmp itself, not pytest's per-user folder: the unprivileged user must reach it.
    tmp_path = Path(tempfile.mkdtemp(prefix="reproscore-syspkg-"))
    os.chmod(tmp_path, 0o755)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(shutil.which("id"), bin_dir / "id")
    environment = {
        "PATH": str(bin_dir),
        "REPROSCORE_CHROMIUM": str(tmp_path / "no-chromium"),
        "REPROSCORE_FONT_DIR": str(tmp_path / "no-fonts"),
    }
    command = ["/bin/sh", str(ROOT / "tests" / "system-packages.sh")]
    if os.getuid() == 0:
        command = [shutil.which("setpriv"), "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    try:
        completed = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=30)
    finally:
        shutil.rmtree(tmp_path)
    assert completed.returncode == 1
    assert completed.stdout == ""
    assert completed.stderr.splitlines() == [
        "make test needs the Debian packages: bubblewrap chromium fonts-dejavu-core "
        "(install them as root: apt-get install -y --no-install-recommends "
        "bubblewrap chromium fonts-dejavu-core)"
    ]


def test_the_system_package_step_is_silent_when_everything_is_there(tmp_path):
    import subprocess

    completed = subprocess.run(
        ["/bin/sh", str(ROOT / "tests" / "system-packages.sh")], capture_output=True, text=True, timeout=60
    )
    assert (completed.returncode, completed.stdout, completed.stderr) == (0, "", "")
