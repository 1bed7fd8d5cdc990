"""What detectors of several categories share (scoring/detectors/_shared.py)."""

from __future__ import annotations

import pytest

from scoring.detectors._shared import own_project_names
from scoring.tree import TreeIndex


@pytest.mark.parametrize(("files", "names"), [
    ({"pyproject.toml": "[project]\nname = \"Fit_Kit\"\n"}, {"fit-kit"}),
    ({"pyproject.toml": "[tool.poetry]\nname = \"poetic\"\n"}, {"poetic"}),
    ({"setup.cfg": "[metadata]\nname = cfgpkg\n"}, {"cfgpkg"}),
    ({"setup.py": "from setuptools import setup, Extension\nNAME = \"emcee\"\n"
                  "setup(name=NAME, ext_modules=[Extension(name='fast', sources=[])])\n"}, {"emcee"}),
    ({"CMakeLists.txt": "project(raxml-ng CXX)\n"}, {"raxml-ng"}),
    ({"fpm.toml": "name = \"json-fortran\"\n"}, {"json-fortran"}),
    ({"DESCRIPTION": "Package: broom.mixed\nVersion: 1\n"}, {"broom-mixed"}),
    ({"Project.toml": "name = \"ChaosTools\"\n"}, {"chaostools"}),
    ({"lakesurvey.Rproj": "Version: 1.0\n"}, {"lakesurvey"}),
    ({"src/x.py": "import os\n"}, set()),
])
def test_own_project_names(make_tree, files, names):
    assert own_project_names(TreeIndex.from_path(make_tree(files))) == names
