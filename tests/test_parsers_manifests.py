"""Tests for scoring.parsers.manifests (METRICS.md E1, E4, C2, S7 and §0.1 items 16, 28, 33)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.parsers.manifests import (
    CUDA_TAG_RE,
    Dependency,
    InterpreterDecl,
    Manifest,
    classify_pep508,
    conda_r_packages,
    counts,
    has_cuda_tag,
    interpreter_from_version_file,
    interpreters_from_version_file,
    is_explicit_conda_spec,
    is_runtime_manifest_name,
    normalize_name,
    parse_conanfile_py,
    parse_conanfile_txt,
    parse_conda_env,
    parse_description,
    parse_fpm_toml,
    parse_install_command,
    parse_julia_project,
    parse_matlab_project,
    parse_packrat_lock,
    parse_pipfile,
    parse_pixi_toml,
    parse_pluto_environment,
    parse_pyproject,
    parse_requirements,
    parse_rscript_installs,
    parse_setup_cfg,
    parse_setup_py,
    parse_spack_yaml,
    parse_vcpkg_json,
    resolve_requirements,
    score_manifest,
)

SHA = "0123456789abcdef0123456789abcdef01234567"


def pins(manifest: Manifest) -> dict[str, str]:
    return {d.normalized: d.pin for d in manifest.dependencies}


def manifest_of(*pin_classes: str) -> Manifest:
    deps = [
        Dependency(f"p{i}", f"p{i}", "", pin, i + 1, "pypi", "requirements", f"p{i}")
        for i, pin in enumerate(pin_classes)
    ]
    return Manifest(path="requirements.txt", kind="requirements", dependencies=deps)


# --------------------------------------------------------------------------- names and PEP 508


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("NumPy", "numpy"),
        ("scikit_learn", "scikit-learn"),
        ("zope.interface", "zope-interface"),
        ("a-_.b", "a-b"),
        ("Python__Dateutil", "python-dateutil"),
    ],
)
def test_normalize_name(name, expected):
    assert normalize_name(name) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("numpy==1.24.3", ("numpy", "==1.24.3", "exact", "")),
        ("numpy===1.0", ("numpy", "===1.0", "exact", "")),
        ("numpy == 1.24.3", ("numpy", "== 1.24.3", "exact", "")),
        ("numpy==1.*", ("numpy", "==1.*", "bounded", "")),
        ("numpy~=1.2", ("numpy", "~=1.2", "bounded", "")),
        ("numpy>=1.0", ("numpy", ">=1.0", "bounded", "")),
        ("numpy>=1.0,<2", ("numpy", ">=1.0,<2", "bounded", "")),
        ("numpy==1.0,==1.0.0", ("numpy", "==1.0,==1.0.0", "bounded", "")),
        ("numpy!=1.0", ("numpy", "!=1.0", "bounded", "")),
        ("numpy (>=1.0)", ("numpy", ">=1.0", "bounded", "")),
        ("numpy", ("numpy", "", "unpinned", "")),
        ("pandas[excel]==2", ("pandas", "==2", "exact", "[excel]")),
        (
            "scipy>=1 ; python_version > '3.8'",
            ("scipy", ">=1", "bounded", 'python_version > "3.8"'),
        ),
        (
            "pandas[b,a]==2; sys_platform == 'linux'",
            ("pandas", "==2", "exact", '[a,b]; sys_platform == "linux"'),
        ),
    ],
)
def test_classify_pep508_specifiers(text, expected):
    assert classify_pep508(text) == expected


@pytest.mark.parametrize(
    ("text", "name", "pin"),
    [
        (f"pkg @ git+https://github.com/o/r.git@{SHA}", "pkg", "exact"),
        (f"git+https://github.com/o/r.git@{SHA}#egg=pkg", "pkg", "exact"),
        ("git+https://github.com/o/r.git@v1.2.0#egg=pkg", "pkg", "bounded"),
        ("pkg @ git+https://github.com/o/r.git@v1.2.0", "pkg", "bounded"),
        ("git+https://github.com/o/r.git@main#egg=pkg", "pkg", "unpinned"),
        ("git+https://github.com/o/r.git#egg=pkg", "pkg", "unpinned"),
        ("git+ssh://git@github.com/o/repo.git", "repo", "unpinned"),
        (f"git+ssh://git@github.com/o/repo.git@{SHA}", "repo", "exact"),
        (f"git+git@github.com:o/repo.git@{SHA}#egg=repo", "repo", "exact"),
        (
            "https://download.pytorch.org/whl/cu118/torch-2.0.1%2Bcu118-cp310-cp310-linux_x86_64.whl",
            "torch",
            "exact",
        ),
        ("pkg @ https://example.org/pkg-1.2.3-py3-none-any.whl", "pkg", "exact"),
        ("pkg @ https://example.org/pkg.tar.gz", "pkg", "unpinned"),
        (f"https://github.com/o/r/archive/{SHA}.zip#egg=r", "r", "exact"),
    ],
)
def test_classify_pep508_urls(text, name, pin):
    parsed = classify_pep508(text)
    assert parsed is not None
    assert parsed[0] == name
    assert parsed[2] == pin


@pytest.mark.parametrize(
    "text", ["", "   ", "numpy=1.2", "garbage ===", "!!!", "https://example.org/x.zip", "[section]"]
)
def test_classify_pep508_unparseable(text):
    assert classify_pep508(text) is None


# --------------------------------------------------------------------------- requirements.txt


def test_requirements_case_2_all_exact():
    manifest = parse_requirements("numpy==1.24.3\npandas==2.0.1\n", "requirements.txt")
    assert pins(manifest) == {"numpy": "exact", "pandas": "exact"}
    assert score_manifest(manifest) == (80, "all_exact")
    assert manifest.problems == []


def test_requirements_case_3_half_even_58():
    text = "numpy==1.24.3\npandas\nscipy>=1.0\nmatplotlib\n"
    manifest = parse_requirements(text, "requirements.txt")
    assert counts(manifest) == {"n_entries": 4, "n_exact": 1, "n_bounded": 1, "n_unpinned": 2}
    assert score_manifest(manifest) == (58, "partial")


def test_requirements_case_3_variant_one_exact_of_eight_52():
    text = "numpy==1.24.3\n" + "".join(f"pkg{i}\n" for i in range(7))
    manifest = parse_requirements(text, "requirements.txt")
    assert counts(manifest)["n_entries"] == 8
    assert score_manifest(manifest) == (52, "partial")


def test_requirements_lines_comments_continuations_and_options():
    text = (
        "# header comment\n"
        "\n"
        "--index-url https://pypi.example.org/simple\n"
        "--extra-index-url https://download.pytorch.org/whl/cu118\n"
        "-f https://example.org/wheels\n"
        "numpy==1.24.3  # pinned for reproducibility\n"
        "pandas \\\n"
        "    >=2.0\n"
        "torch==2.0.1+cu118 \\\n"
        "    --hash=sha256:abcdef\n"
        "url#fragment-is-not-a-comment==1.0\n"
        "-e .\n"
        "./local/package\n"
    )
    manifest = parse_requirements(text, "requirements.txt")
    deps = {d.normalized: d for d in manifest.dependencies}
    assert list(deps) == ["numpy", "pandas", "torch"]
    assert deps["numpy"].line == 6
    assert deps["numpy"].raw == "numpy==1.24.3"
    assert deps["pandas"].line == 7
    assert deps["pandas"].spec == ">=2.0"
    assert deps["pandas"].pin == "bounded"
    assert deps["torch"].spec == "==2.0.1+cu118"
    assert deps["torch"].pin == "exact"
    assert all(d.ecosystem == "pypi" and d.source == "requirements" for d in deps.values())
    assert all(d.file == "requirements.txt" for d in deps.values())
    # `url#fragment…` has no whitespace before '#', so it is not a comment and fails PEP 508.
    assert len(manifest.problems) == 1


def test_requirements_includes_and_constraints_are_resolved_relative_to_the_file():
    text = "-r base.txt\n--requirement=../common.txt\n-c constraints.txt\n--constraint ../pins.txt\n-rextra.txt\n"
    manifest = parse_requirements(text, "requirements/dev.txt")
    assert manifest.includes == ["requirements/base.txt", "common.txt", "requirements/extra.txt"]
    assert manifest.constraint_files == ["requirements/constraints.txt", "pins.txt"]
    assert manifest.dependencies == []


def test_requirements_include_outside_repository_is_a_problem():
    manifest = parse_requirements("-r ../../elsewhere.txt\n-r /etc/passwd\n", "requirements.txt")
    assert manifest.includes == []
    assert len(manifest.problems) == 2


def test_requirements_editable_vcs():
    text = f"-e git+https://github.com/o/r.git@{SHA}#egg=rr\n--editable git+https://github.com/o/s.git#egg=ss\n"
    manifest = parse_requirements(text, "requirements.txt")
    assert pins(manifest) == {"rr": "exact", "ss": "unpinned"}
    assert manifest.dependencies[0].raw.startswith("-e git+")


def test_requirements_garbage_lines_recorded_as_problems():
    manifest = parse_requirements("numpy==1.0\nthis is not a requirement\nnumpy=1.2\n", "requirements.txt")
    assert pins(manifest) == {"numpy": "exact"}
    assert manifest.problems == [
        "requirements.txt:2: unparseable requirement 'this is not a requirement'",
        "requirements.txt:3: unparseable requirement 'numpy=1.2'",
    ]


@pytest.mark.parametrize(
    ("path", "runtime"),
    [
        ("requirements.txt", True),
        ("binder/requirements.txt", True),
        ("requirements/base.txt", True),
        ("requirements-gpu.txt", True),
        ("requirements-dev.txt", False),
        ("requirements_test.txt", False),
        ("dev-requirements.txt", False),
        ("requirements/docs.txt", False),
        ("requirements-tests.in", False),
        ("docs/requirements.txt", False),
        ("environment-dev.yml", False),
    ],
)
def test_runtime_manifest_names(path, runtime):
    assert is_runtime_manifest_name(path) is runtime
    if path.endswith((".txt", ".in")):
        assert parse_requirements("numpy\n", path).runtime is runtime


def test_empty_requirements():
    manifest = parse_requirements("", "requirements.txt")
    assert manifest.dependencies == [] and manifest.problems == []
    assert score_manifest(manifest) == (20, "unpinned")


# --------------------------------------------------------------------------- resolve_requirements


def reader(files: dict[str, str]):
    return files.get


def test_resolve_follows_includes_recursively_with_cycle_guard():
    files = {
        "requirements.txt": "-r requirements/base.txt\nflask==2.0\n",
        "requirements/base.txt": "numpy==1.0\n-r extra.txt\n",
        "requirements/extra.txt": "scipy>=1\n-r base.txt\n-r ../requirements.txt\n",
    }
    manifest = resolve_requirements("requirements.txt", reader(files))
    assert [d.normalized for d in manifest.dependencies] == ["flask", "numpy", "scipy"]
    by_name = {d.normalized: d for d in manifest.dependencies}
    assert by_name["numpy"].file == "requirements/base.txt"
    assert by_name["numpy"].line == 1
    assert by_name["scipy"].file == "requirements/extra.txt"
    assert manifest.includes == ["requirements/base.txt", "requirements/extra.txt"]
    assert sum("cycle" in p for p in manifest.problems) == 2


def test_resolve_missing_include_is_a_problem():
    manifest = resolve_requirements("requirements.txt", reader({"requirements.txt": "-r nope.txt\nx==1\n"}))
    assert pins(manifest) == {"x": "exact"}
    assert manifest.includes == []
    assert manifest.problems == ["requirements.txt: missing include nope.txt"]


def test_resolve_missing_root():
    manifest = resolve_requirements("requirements.txt", reader({}))
    assert manifest.dependencies == []
    assert manifest.problems == ["requirements.txt: file not found"]


def test_resolve_applies_constraints():
    files = {
        "requirements.txt": "-c constraints.txt\nnumpy\nscipy>=1.0\npandas\nflask==2.0\n",
        "constraints.txt": "numpy==1.24.3\nScipy==1.10.1\npandas<3\nflask==1.0\n",
    }
    manifest = resolve_requirements("requirements.txt", reader(files))
    by_name = {d.normalized: d for d in manifest.dependencies}
    assert by_name["numpy"].pin == "exact"
    assert by_name["numpy"].spec == "==1.24.3"
    assert by_name["scipy"].pin == "exact"
    assert by_name["scipy"].spec == ">=1.0,==1.10.1"
    assert by_name["pandas"].pin == "bounded"
    assert by_name["flask"].spec == "==2.0"  # already exact: left alone
    assert manifest.constraint_files == ["constraints.txt"]
    assert score_manifest(manifest) == (68, "partial")  # 67.5 rounds half-to-even


def test_resolve_constraints_declared_in_an_include_and_missing_constraints():
    files = {
        "requirements.txt": "-r base.txt\nnumpy\n",
        "base.txt": "-c pins.txt\n-c gone.txt\n",
        "pins.txt": "numpy==1.0\n",
    }
    manifest = resolve_requirements("requirements.txt", reader(files))
    assert pins(manifest) == {"numpy": "exact"}
    assert manifest.constraint_files == ["pins.txt", "gone.txt"]
    assert "gone.txt: constraints file not found" in manifest.problems


def test_resolve_tolerates_a_failing_reader():
    def explode(path):
        raise OSError("boom")

    manifest = resolve_requirements("requirements.txt", explode)
    assert manifest.problems == ["requirements.txt: file not found"]


# --------------------------------------------------------------------------- pyproject.toml

PEP621 = """\
[build-system]
requires = ["setuptools>=61", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "demo"
version = "0.1"
requires-python = ">=3.9"
dependencies = [
    "numpy==1.24.3",
    "pandas==2.0.1",
]

[project.optional-dependencies]
test = ["pytest"]
"""


def test_pyproject_case_6_pep621():
    manifest = parse_pyproject(PEP621, "pyproject.toml")
    assert manifest.kind == "pyproject"
    assert [(d.name, d.pin, d.line, d.source) for d in manifest.dependencies] == [
        ("numpy", "exact", 10, "project.dependencies"),
        ("pandas", "exact", 11, "project.dependencies"),
    ]
    assert score_manifest(manifest) == (80, "all_exact")
    assert manifest.interpreters == [InterpreterDecl("python", ">=3.9", 8, "requires-python")]
    assert [(d.name, d.pin, d.source, d.line) for d in manifest.build_requires] == [
        ("setuptools", "bounded", "build-system", 2),
        ("wheel", "unpinned", "build-system", 2),
    ]
    assert manifest.problems == []


POETRY = f"""\
[tool.poetry]
name = "demo"

[tool.poetry.dependencies]
python = "^3.9"
numpy = "1.24.3"
pandas = "^2.0"
scipy = "~1.10"
requests = "*"
flask = ">=2.0,<3"
click = {{version = "8.1.3", extras = ["x"]}}
mylib = {{git = "https://github.com/o/mylib.git", rev = "{SHA}"}}
other = {{git = "https://github.com/o/other.git", branch = "main"}}
tagged = {{git = "https://github.com/o/tagged.git", tag = "v1.0"}}
local = {{path = "../local"}}
wildcard = "1.2.*"
multi = [{{version = "1.2.3", python = "<3.8"}}, {{version = "1.3.0", python = ">=3.8"}}]

[tool.poetry.group.main.dependencies]
attrs = "23.1.0"

[tool.poetry.group.dev.dependencies]
pytest = "^7"

[tool.poetry.dev-dependencies]
black = "*"
"""


def test_pyproject_poetry():
    manifest = parse_pyproject(POETRY, "pyproject.toml")
    assert pins(manifest) == {
        "numpy": "exact",
        "pandas": "bounded",
        "scipy": "bounded",
        "requests": "unpinned",
        "flask": "bounded",
        "click": "exact",
        "mylib": "exact",
        "other": "unpinned",
        "tagged": "bounded",
        "local": "unpinned",
        "wildcard": "bounded",
        "multi": "exact",
        "attrs": "exact",
    }
    assert manifest.interpreters == [InterpreterDecl("python", "^3.9", 5, "poetry")]
    by_name = {d.normalized: d for d in manifest.dependencies}
    assert by_name["numpy"].line == 6
    assert by_name["numpy"].raw == 'numpy = "1.24.3"'
    assert by_name["numpy"].source == "poetry"
    assert by_name["click"].marker == "[x]"
    assert by_name["attrs"].line == 20
    assert manifest.problems == []


def test_pyproject_invalid_toml():
    manifest = parse_pyproject("[project\ndependencies = [", "pyproject.toml")
    assert manifest.dependencies == []
    assert len(manifest.problems) == 1
    assert manifest.problems[0].startswith("pyproject.toml: invalid TOML:")


def test_pyproject_bad_shapes_are_problems():
    text = '[project]\ndependencies = "numpy"\n[build-system]\nrequires = [1, "not a req !"]\n'
    manifest = parse_pyproject(text, "pyproject.toml")
    assert manifest.dependencies == [] and manifest.build_requires == []
    assert len(manifest.problems) == 3


def test_pyproject_without_dependencies():
    manifest = parse_pyproject('[tool.black]\nline-length = 100\n', "pyproject.toml")
    assert manifest.dependencies == [] and manifest.problems == []
    assert score_manifest(manifest) == (20, "unpinned")


# --------------------------------------------------------------------------- setup.cfg / setup.py

SETUP_CFG = """\
[metadata]
name = demo

[options]
python_requires = >=3.8
install_requires =
    numpy==1.24.3
    # a comment line
    pandas>=2.0  # trailing comment
    scipy ; python_version > "3.8"
"""


def test_setup_cfg():
    manifest = parse_setup_cfg(SETUP_CFG, "setup.cfg")
    assert [(d.name, d.pin, d.line) for d in manifest.dependencies] == [
        ("numpy", "exact", 7),
        ("pandas", "bounded", 9),
        ("scipy", "unpinned", 10),
    ]
    assert manifest.dependencies[2].marker == 'python_version > "3.8"'
    assert manifest.interpreters == [InterpreterDecl("python", ">=3.8", 5, "python_requires")]
    assert manifest.problems == []


def test_setup_cfg_quoted_python_requires_and_file_directive():
    text = "[options]\npython_requires = '>=3.9'\ninstall_requires = file: requirements.txt\n"
    manifest = parse_setup_cfg(text, "pkg/setup.cfg")
    assert manifest.interpreters[0].spec == ">=3.9"
    assert manifest.includes == ["pkg/requirements.txt"]


def test_setup_cfg_comma_separated_line():
    manifest = parse_setup_cfg("[options]\ninstall_requires = numpy, scipy>=1\n", "setup.cfg")
    assert pins(manifest) == {"numpy": "unpinned", "scipy": "bounded"}
    assert len(manifest.problems) == 1


def test_setup_cfg_invalid():
    manifest = parse_setup_cfg("install_requires = numpy\n", "setup.cfg")
    assert manifest.dependencies == []
    assert manifest.problems[0].startswith("setup.cfg: invalid INI:")


SETUP_PY = """\
from setuptools import setup

REQUIREMENTS = [
    "numpy==1.24.3",
    "scipy>=1.0",
]

setup(
    name="demo",
    python_requires=">=3.8",
    install_requires=REQUIREMENTS + ["pandas"],
)
"""


def test_setup_py_literal_via_module_name():
    manifest = parse_setup_py(SETUP_PY, "setup.py")
    assert [(d.name, d.pin, d.line, d.raw) for d in manifest.dependencies] == [
        ("numpy", "exact", 4, '"numpy==1.24.3",'),
        ("scipy", "bounded", 5, '"scipy>=1.0",'),
        ("pandas", "unpinned", 11, 'install_requires=REQUIREMENTS + ["pandas"],'),
    ]
    assert manifest.interpreters == [InterpreterDecl("python", ">=3.8", 10, "python_requires")]
    assert not manifest.unknown and manifest.problems == []


def test_setup_py_attribute_call():
    text = 'import setuptools\nsetuptools.setup(install_requires=("numpy==1.0",))\n'
    manifest = parse_setup_py(text, "setup.py")
    assert pins(manifest) == {"numpy": "exact"}


def test_setup_py_non_literal_is_unknown():
    text = "from setuptools import setup\nsetup(install_requires=open('requirements.txt').read().split())\n"
    manifest = parse_setup_py(text, "setup.py")
    assert manifest.unknown is True
    assert manifest.dependencies == []
    assert manifest.problems == ["setup.py:2: install_requires is not a literal"]
    assert score_manifest(manifest) == (20, "unpinned")


def test_setup_py_kwargs_is_unknown():
    manifest = parse_setup_py("from setuptools import setup\nsetup(**CONFIG)\n", "setup.py")
    assert manifest.unknown is True
    assert len(manifest.problems) == 1


@pytest.mark.parametrize("text", ["def setup(:\n", "setup(install_requires=[\n", "x = 1\x00\n"])
def test_setup_py_syntax_error(text):
    manifest = parse_setup_py(text, "setup.py")
    assert manifest.dependencies == []
    assert len(manifest.problems) == 1
    assert "syntax error" in manifest.problems[0]


def test_setup_py_without_setup_call():
    manifest = parse_setup_py("print('hello')\n", "setup.py")
    assert manifest.problems == ["setup.py: no setup() call found"]
    assert not manifest.unknown


def test_setup_py_non_literal_python_requires():
    text = "from setuptools import setup\nsetup(python_requires=get(), install_requires=[])\n"
    manifest = parse_setup_py(text, "setup.py")
    assert manifest.interpreters == []
    assert manifest.problems == ["setup.py:2: python_requires is not a literal string"]


# --------------------------------------------------------------------------- Pipfile

PIPFILE = f"""\
[[source]]
url = "https://pypi.org/simple"

[packages]
requests = "*"
numpy = "==1.24.3"
pandas = ">=2.0"
scipy = {{version = "==1.10.1", extras = ["x"]}}
mylib = {{git = "https://github.com/o/mylib.git", ref = "{SHA}"}}
branchy = {{git = "https://github.com/o/b.git", ref = "main"}}
bare = "1.2"

[dev-packages]
pytest = "*"

[requires]
python_version = "3.10"
"""


def test_pipfile():
    manifest = parse_pipfile(PIPFILE, "Pipfile")
    assert pins(manifest) == {
        "requests": "unpinned",
        "numpy": "exact",
        "pandas": "bounded",
        "scipy": "exact",
        "mylib": "exact",
        "branchy": "unpinned",
        "bare": "exact",
    }
    by_name = {d.normalized: d for d in manifest.dependencies}
    assert by_name["requests"].spec == ""
    assert by_name["numpy"].line == 6
    assert by_name["scipy"].marker == "[x]"
    assert manifest.interpreters == [InterpreterDecl("python", "3.10", 17, "pipfile")]


def test_pipfile_dev_packages_are_an_optional_set_and_dotted_names_are_joined():
    manifest = parse_pipfile(PIPFILE + '\n[dev-packages]\n', "Pipfile")   # a repeated header: invalid TOML
    assert manifest.problems
    text = '[packages]\n\n[dev-packages]\nruamel.yaml = ">=0.17"\nSphinx = "*"\nzope.interface = {version = "==5.0"}\n'
    manifest = parse_pipfile(text, "Pipfile")
    assert manifest.dependencies == []
    assert [(d.name, d.normalized, d.pin, d.line) for d in manifest.optional] == [
        ("ruamel.yaml", "ruamel-yaml", "bounded", 4),
        ("Sphinx", "sphinx", "unpinned", 5),
        ("zope.interface", "zope-interface", "exact", 6),
    ]
    assert [d.normalized for d in parse_pipfile(PIPFILE, "Pipfile").optional] == ["pytest"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("r-data.table", ("data.table",)),
        ("r-stringr", ("stringr",)),
        ("bioconductor-deseq2", ("deseq2",)),
        ("Bioconductor-biomaRt", ("biomart",)),
        ("r-base", ()),
        ("r-essentials", ()),
        ("pandas", ()),
        ("r-", ()),
    ],
)
def test_conda_r_packages(name, expected):
    assert conda_r_packages(name) == expected


def test_conda_r_tidyverse_declares_its_members():
    members = conda_r_packages("r-tidyverse")
    assert {"dplyr", "readr", "tidyr", "ggplot2", "purrr", "tibble", "stringr", "forcats", "cli", "rlang",
            "tidyverse"} <= set(members)


def test_pipfile_full_version_and_invalid():
    manifest = parse_pipfile('[requires]\npython_full_version = "3.10.4"\n', "Pipfile")
    assert manifest.interpreters == [InterpreterDecl("python", "3.10.4", 2, "pipfile")]
    broken = parse_pipfile("[packages\n", "Pipfile")
    assert broken.problems and broken.problems[0].startswith("Pipfile: invalid TOML")


# --------------------------------------------------------------------------- conda


def test_conda_case_4():
    text = "name: demo\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.10\n  - numpy=1.24.3\n"
    manifest = parse_conda_env(text, "environment.yml")
    assert manifest.kind == "conda"
    assert [(d.name, d.pin, d.line, d.ecosystem, d.source) for d in manifest.dependencies] == [
        ("numpy", "exact", 6, "conda", "conda")
    ]
    assert manifest.interpreters == [InterpreterDecl("python", "=3.10", 5, "conda")]
    assert score_manifest(manifest) == (80, "all_exact")


CONDA = """\
name: demo
channels:
  - conda-forge
dependencies:
  - python>=3.9
  - pip
  - numpy==1.24.3
  - scipy=1.10
  - pandas=2.0.1
  - conda-forge::xarray=2023.1=pyhd8ed1ab_0
  - matplotlib>=3.5,<4
  - scikit-learn 1.3.0
  - "seaborn"
  - dask=2023.*
  - r-base=4.2
  - pip:
      - requests==2.31.0
      - "flask>=2"
      - -r requirements-extra.txt
      - --extra-index-url https://example.org
      - git+https://github.com/o/r.git@main#egg=rr
"""


def test_conda_match_specs_and_pip_section():
    manifest = parse_conda_env(CONDA, "environment.yml")
    assert not manifest.conda_export
    assert pins(manifest) == {
        "numpy": "exact",
        "scipy": "bounded",
        "pandas": "exact",
        "xarray": "exact",
        "matplotlib": "bounded",
        "scikit-learn": "exact",
        "seaborn": "unpinned",
        "dask": "bounded",
        "r-base": "bounded",
        "requests": "exact",
        "flask": "bounded",
        "rr": "unpinned",
    }
    lines = {d.normalized: d.line for d in manifest.dependencies}
    assert lines["numpy"] == 7
    assert lines["seaborn"] == 13
    assert lines["requests"] == 17
    assert lines["flask"] == 18
    sources = {d.normalized: (d.ecosystem, d.source) for d in manifest.dependencies}
    assert sources["xarray"] == ("conda", "conda")
    assert sources["requests"] == ("pypi", "conda-pip")
    assert manifest.includes == ["requirements-extra.txt"]
    assert manifest.interpreters == [
        InterpreterDecl("python", ">=3.9", 5, "conda"),
        InterpreterDecl("r", "=4.2", 15, "conda"),
    ]
    assert manifest.problems == []


def test_conda_bare_python_is_not_a_declaration():
    manifest = parse_conda_env("dependencies:\n  - python\n  - numpy\n", "environment.yml")
    assert manifest.interpreters == []
    assert pins(manifest) == {"numpy": "unpinned"}
    assert score_manifest(manifest) == (20, "unpinned")


def test_conda_export_with_prefix_makes_short_pins_exact():
    text = "name: x\ndependencies:\n  - numpy=1.24\n  - scipy>=1\nprefix: /opt/conda/envs/x\n"
    manifest = parse_conda_env(text, "environment.yml")
    assert manifest.conda_export
    assert pins(manifest) == {"numpy": "exact", "scipy": "bounded"}


def test_conda_export_when_every_dependency_uses_equals():
    text = "dependencies:\n  - python=3.10.12=h955ad1f_0\n  - numpy=1.24\n  - scipy==1.10\n"
    manifest = parse_conda_env(text, "environment.yml")
    assert manifest.conda_export
    assert pins(manifest) == {"numpy": "exact", "scipy": "exact"}


def test_conda_space_separated_and_bracket_specs():
    text = "dependencies:\n  - numpy 1.24.3\n  - scipy >=1.0\n  - pandas[version='>=2.0']\n  - six[version='1.16.0']\n"
    manifest = parse_conda_env(text, "environment.yml")
    assert pins(manifest) == {"numpy": "exact", "scipy": "bounded", "pandas": "bounded", "six": "exact"}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("dependencies: [\n", "invalid YAML"),
        ("", "empty environment file"),
        ("- just\n- a list\n", "not a mapping"),
        ("dependencies: numpy\n", "dependencies is not a list"),
    ],
)
def test_conda_bad_documents(text, problem):
    manifest = parse_conda_env(text, "environment.yml")
    assert manifest.dependencies == []
    assert len(manifest.problems) == 1 and problem in manifest.problems[0]


def test_conda_bad_entries_are_problems():
    text = "dependencies:\n  - 3.10\n  - numpy@1\n  - {foo: bar}\n  - ok=1.2.3\n"
    manifest = parse_conda_env(text, "environment.yml")
    assert pins(manifest) == {"ok": "exact"}
    assert len(manifest.problems) == 3


def test_explicit_conda_spec():
    assert is_explicit_conda_spec("# platform: linux-64\n\n@EXPLICIT\nhttps://x/numpy.conda\n")
    assert not is_explicit_conda_spec("numpy==1.0\n@EXPLICIT\n")
    assert not is_explicit_conda_spec("")


# --------------------------------------------------------------------------- R and Julia

DESCRIPTION = """\
Package: demo
Version: 0.1.0
Depends: R (>= 4.0), methods
Imports:
    dplyr (>= 1.0.0),
    ggplot2,
    tibble (== 3.2.1)
LinkingTo: Rcpp
Suggests: testthat
"""


def test_description():
    manifest = parse_description(DESCRIPTION, "DESCRIPTION")
    assert [(d.name, d.spec, d.pin, d.line, d.marker) for d in manifest.dependencies] == [
        ("methods", "", "unpinned", 3, "Depends"),
        ("dplyr", ">= 1.0.0", "bounded", 5, "Imports"),
        ("ggplot2", "", "unpinned", 6, "Imports"),
        ("tibble", "== 3.2.1", "exact", 7, "Imports"),
        ("Rcpp", "", "unpinned", 8, "LinkingTo"),
    ]
    assert {d.ecosystem for d in manifest.dependencies} == {"cran"}
    assert manifest.interpreters == [InterpreterDecl("r", ">= 4.0", 3, "description")]
    assert manifest.problems == []


def test_description_garbage():
    manifest = parse_description("not dcf\n  continuation\nImports: ok, (bad\n", "DESCRIPTION")
    assert [d.name for d in manifest.dependencies] == ["ok"]
    assert manifest.problems == [
        "DESCRIPTION:1: malformed line 'not dcf'",
        "DESCRIPTION:2: continuation line outside a field",
        "DESCRIPTION:3: unparseable Imports entry '(bad'",
    ]


PROJECT_TOML = """\
name = "Demo"
uuid = "00000000-0000-0000-0000-000000000000"

[deps]
DataFrames = "a93c6f00-e57d-5684-b7b6-d8193f3e46c0"
CSV = "336ed68f-0bac-5ca0-87d4-7b16caf5d00b"
LinearAlgebra = "37e2e46d-f89d-539d-b4ee-838fcccc9c8e"

[compat]
DataFrames = "1.5"
CSV = "=0.10.11"
julia = "1.9"
"""


def test_julia_project():
    manifest = parse_julia_project(PROJECT_TOML, "Project.toml")
    assert [(d.name, d.spec, d.pin, d.line) for d in manifest.dependencies] == [
        ("DataFrames", "1.5", "bounded", 5),
        ("CSV", "=0.10.11", "exact", 6),
        ("LinearAlgebra", "", "unpinned", 7),
    ]
    assert {(d.ecosystem, d.source) for d in manifest.dependencies} == {("julia", "julia-project")}
    assert manifest.interpreters == [InterpreterDecl("julia", "1.9", 12, "julia-compat")]


def test_julia_project_invalid():
    manifest = parse_julia_project("[deps\n", "Project.toml")
    assert manifest.dependencies == [] and manifest.problems


# --------------------------------------------------------------------------- interpreter files


@pytest.mark.parametrize(
    ("text", "path", "kind", "expected"),
    [
        ("3.11\n", ".python-version", ".python-version", InterpreterDecl("python", "3.11", 1, "python-version-file")),
        ("# pyenv\n3.10.4\n", ".python-version", "python-version", InterpreterDecl("python", "3.10.4", 2, "python-version-file")),
        ("python-3.10.4\n", "runtime.txt", "runtime.txt", InterpreterDecl("python", "3.10.4", 1, "runtime.txt")),
        ("r-4.1-2021-10-01\n", "runtime.txt", "runtime.txt", InterpreterDecl("r", "4.1", 1, "runtime.txt")),
        ("nodejs 18.0.0\npython 3.11.4 3.10.0\n", ".tool-versions", None, InterpreterDecl("python", "3.11.4", 2, "tool-versions")),
        ("julia 1.9.3\n", ".tool-versions", ".tool-versions", InterpreterDecl("julia", "1.9.3", 1, "tool-versions")),
        ('[tools]\nnode = "20"\npython = "3.11"\n', "mise.toml", "mise.toml", InterpreterDecl("python", "3.11", 3, "mise")),
        ('[tools]\npython = ["3.12", "3.11"]\n', ".mise.toml", None, InterpreterDecl("python", "3.12", 2, "mise")),
        ('version = 1\nrequires-python = ">=3.10"\n', "uv.lock", "uv.lock", InterpreterDecl("python", ">=3.10", 2, "uv.lock")),
        ('# generated\njulia_version = "1.9.3"\n', "Manifest.toml", "Manifest.toml", InterpreterDecl("julia", "1.9.3", 2, "manifest-julia_version")),
        ('{\n  "R": {\n    "Version": "4.2.1"\n  }\n}\n', "renv.lock", "renv.lock", InterpreterDecl("r", "4.2.1", 3, "renv.lock")),
    ],
)
def test_interpreter_from_version_file(text, path, kind, expected):
    assert interpreter_from_version_file(text, path, kind) == expected


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("", ".python-version"),
        ("system\n", ".python-version"),
        ("\x00\xff garbage", "runtime.txt"),
        ("python latest\n", ".tool-versions"),
        ("[tools\n", "mise.toml"),
        ("not json", "renv.lock"),
        ('{"R": {}}', "renv.lock"),
        ("[[package]]\nname = 'x'\n", "uv.lock"),
        ("3.11\n", "unknown.file"),
    ],
)
def test_interpreter_from_version_file_without_version(text, path):
    assert interpreter_from_version_file(text, path, None) is None


def test_tool_versions_lists_every_language():
    decls = interpreters_from_version_file("R 4.3.1\npython 3.11.4\n", ".tool-versions")
    assert [(d.language, d.spec) for d in decls] == [("r", "4.3.1"), ("python", "3.11.4")]
    assert interpreter_from_version_file("R 4.3.1\npython 3.11.4\n", ".tool-versions", None).language == "python"


# --------------------------------------------------------------------------- inline installs


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('%pip install numpy==1.2 "pandas>=2" -q', [("numpy", "exact", "pypi"), ("pandas", "bounded", "pypi")]),
        ("!pip install -r requirements.txt torch --index-url https://x/cu118", [("torch", "unpinned", "pypi")]),
        (
            "python -m pip install -U scikit-learn && conda install -c conda-forge -y xarray=2023.1",
            [("scikit-learn", "unpinned", "pypi"), ("xarray", "bounded", "conda")],
        ),
        ("%conda install numpy=1.24.3", [("numpy", "exact", "conda")]),
        ("sudo pip3 install . -e ./src", []),
        ("pip list", []),
        ("echo pip install x", []),
        ('pip install "unterminated', []),
    ],
)
def test_parse_install_command(command, expected):
    deps = parse_install_command(command, "nb.ipynb", 7)
    assert [(d.name, d.pin, d.ecosystem) for d in deps] == expected
    assert all(d.source == "inline-install" and d.line == 7 and d.file == "nb.ipynb" for d in deps)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("Rscript -e \"devtools::install_github('gersteinlab/siglasso@9c5e6b0')\"", ["siglasso"]),
        ("R --vanilla -e 'install.packages(c(\"dplyr\", \"data.table\")); BiocManager::install(\"DESeq2\")'",
         ["dplyr", "data.table", "DESeq2"]),
        ("Rscript -e \"remotes::install_git('https://git.example.org/lab/tool.git')\" && echo ok", ["tool"]),
        ("Rscript install_deps.R", []),
        ("echo \"install.packages('x1')\"", []),
    ],
)
def test_parse_rscript_installs(command, expected):
    deps = parse_rscript_installs(command, "envs/x.post-deploy.sh", 4)
    assert [d.name for d in deps] == expected
    assert all((d.ecosystem, d.source, d.line, d.file) == ("cran", "inline-install", 4, "envs/x.post-deploy.sh")
               for d in deps)


# --------------------------------------------------------------------------- scoring


@pytest.mark.parametrize(
    ("pin_classes", "expected"),
    [
        ((), (20, "unpinned")),
        (("exact",), (80, "all_exact")),
        (("exact", "exact", "exact"), (80, "all_exact")),
        (("unpinned", "unpinned"), (20, "unpinned")),
        (("bounded",), (60, "partial")),
        (("exact", "unpinned"), (60, "partial")),
        (("exact", "bounded", "unpinned", "unpinned"), (58, "partial")),
        (("exact",) + ("unpinned",) * 7, (52, "partial")),
        (("exact",) * 39 + ("unpinned",), (70, "partial")),
    ],
)
def test_score_manifest(pin_classes, expected):
    manifest = manifest_of(*pin_classes)
    assert score_manifest(manifest) == expected
    tally = counts(manifest)
    assert tally["n_entries"] == len(pin_classes)
    assert tally["n_exact"] + tally["n_bounded"] + tally["n_unpinned"] == len(pin_classes)


# --------------------------------------------------------------------------- S7 CUDA tags


@pytest.mark.parametrize(
    "text",
    [
        "torch==2.0.1+cu118",
        "cudatoolkit=11.3",
        "pytorch-cuda=11.8",
        "cupy-cuda11x",
        "cuda-version=12.0",
        "jax[cuda12_pip]==0.4.13",
        "tensorflow[and-cuda]",
        "nvidia-cudnn-cu12==8.9.2.26",
    ],
)
def test_cuda_tags(text):
    assert has_cuda_tag(text)
    assert CUDA_TAG_RE.search(text)


@pytest.mark.parametrize("text", ["torch==2.0.1", "barracuda-tools", "tensorflow-gpu==2.4", "torchvision", "", "cuda"])
def test_not_cuda_tags(text):
    assert not has_cuda_tag(text)


def test_cuda_tag_on_dependency():
    manifest = parse_requirements("torch==2.0.1+cu118\nnumpy==1.0\n", "requirements.txt")
    assert [has_cuda_tag(d) for d in manifest.dependencies] == [True, False]
    conda = parse_conda_env("dependencies:\n  - cudatoolkit=11.3\n", "environment.yml")
    assert has_cuda_tag(conda.dependencies[0])


# --------------------------------------------------------------------------- robustness

PARSERS = [
    parse_requirements,
    parse_pyproject,
    parse_setup_cfg,
    parse_setup_py,
    parse_pipfile,
    parse_conda_env,
    parse_description,
    parse_julia_project,
]
GARBAGE = [
    "",
    "\x00\x01\x02\xff\xfe binary \x00 garbage",
    "\ufeff[[[[",
    "{{{{ }}}} ::: ---",
    "a" * 5000,
    "\n" * 100,
    "- - - :\n\t\t- [\n",
    "🙂 ünïcode ☃\n",
]


@pytest.mark.parametrize("parse", PARSERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("text", GARBAGE, ids=range(len(GARBAGE)))
def test_parsers_never_raise_on_garbage(parse, text):
    manifest = parse(text, "some/file")
    assert isinstance(manifest, Manifest)
    assert len(manifest.problems) <= 51


@pytest.mark.parametrize("parse", PARSERS, ids=lambda f: f.__name__)
def test_binary_garbage_records_a_problem(parse):
    manifest = parse("\x00\x01\x02\xff garbage ((( ]]] ===\n", "f")
    assert manifest.problems


def test_problem_list_is_capped():
    manifest = parse_requirements("bad line !\n" * 500, "requirements.txt")
    assert len(manifest.problems) == 51
    assert manifest.problems[-1] == "requirements.txt: 450 more problems not listed"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_parse_requirements_never_raises(text):
    manifest = parse_requirements(text, "requirements.txt")
    assert all(d.pin in ("exact", "bounded", "unpinned") for d in manifest.dependencies)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(PARSERS), st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_every_parser_never_raises(parse, text):
    assert isinstance(parse(text, "f"), Manifest)


# ------------------------------------------------- every declared set (METRICS.md §0.2.20)

OPTIONAL_PYPROJECT = """\
[project]
name = "demo"
dependencies = ["numpy>=1.20"]

[project.optional-dependencies]
test = ["pytest>=7", "hypothesis"]
plot = ["matplotlib"]

[dependency-groups]
dev = ["ruff", {include-group = "docs"}]
docs = ["sphinx"]

[tool.poetry.group.lint.dependencies]
black = "^24.0"
"""


def test_pyproject_extras_and_groups_are_optional_sets_not_runtime():
    manifest = parse_pyproject(OPTIONAL_PYPROJECT, "pyproject.toml")
    assert [d.name for d in manifest.dependencies] == ["numpy"]
    assert [(d.name, d.source, d.line) for d in manifest.optional] == [
        ("pytest", "project.optional-dependencies.test", 6),
        ("hypothesis", "project.optional-dependencies.test", 6),
        ("matplotlib", "project.optional-dependencies.plot", 7),
        ("ruff", "dependency-groups.dev", 10),
        ("sphinx", "dependency-groups.docs", 11),
        ("black", "poetry", 14),
    ]
    assert manifest.problems == []


def test_setup_cfg_and_setup_py_extras_require_are_optional():
    cfg = parse_setup_cfg(
        "[options]\ninstall_requires = numpy\n\n[options.extras_require]\ntest =\n    pytest\n    coverage>=7\n",
        "setup.cfg")
    assert [d.name for d in cfg.dependencies] == ["numpy"]
    assert [(d.name, d.line) for d in cfg.optional] == [("pytest", 6), ("coverage", 7)]
    py = parse_setup_py(
        "from setuptools import setup\n"
        "EXTRAS = {'test': ['pytest'], 'all': ['tqdm>=4']}\n"
        "setup(name='x', install_requires=['numpy'], extras_require=EXTRAS)\n",
        "setup.py")
    assert [d.name for d in py.dependencies] == ["numpy"]
    assert sorted(d.name for d in py.optional) == ["pytest", "tqdm"]


def test_description_suggests_and_enhances_are_optional():
    manifest = parse_description(DESCRIPTION + "Enhances: parallel\n", "DESCRIPTION")
    assert "testthat" not in [d.name for d in manifest.dependencies]
    assert [(d.name, d.line, d.marker) for d in manifest.optional] == [
        ("testthat", 9, "Suggests"), ("parallel", 10, "Enhances")]


def test_julia_extras_and_weakdeps_are_optional():
    text = ('name = "Demo"\n[deps]\nLinearAlgebra = "37e2e46d-f89d-539d-b4ee-838fcccc9c8e"\n'
            '[weakdeps]\nMakie = "ee78f7c6-11fb-53f2-987a-cfe4a2b5a57a"\n'
            '[extras]\nTest = "8dfed614-e22c-5e08-85e1-65c5234f0b40"\n'
            '[targets]\ntest = ["Test"]\n')
    manifest = parse_julia_project(text, "Project.toml")
    assert [d.name for d in manifest.dependencies] == ["LinearAlgebra"]
    assert [(d.name, d.line, d.source) for d in manifest.optional] == [
        ("Test", 7, "julia-project.extras"), ("Makie", 5, "julia-project.weakdeps")]


# --------------------------------------------------------------------------- C2 manifests beyond the environment locations


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("environment.yml", True),
        ("docs-environment.yaml", True),
        ("conda_env.yml", True),
        ("Conda.YAML", True),
        ("config.yaml", False),
        ("conda_env.txt", False),
    ],
)
def test_is_conda_environment_name(name, expected):
    from scoring.manifests_index import is_conda_environment_name

    assert is_conda_environment_name(name) is expected


def test_manifest_at_and_collect_manifests_in(make_tree):
    from scoring.manifests_index import collect_manifests_in, manifest_at
    from scoring.tree import TreeIndex

    root = make_tree({
        "docs/rtd.txt": "sphinx>=7\n",
        "bin/conda_env.yml": "dependencies:\n  - pandas\n  - pip:\n    - requests\n",
        "docs/Project.toml": '[deps]\nDocumenter = "e30172f5-a6a5-5a46-863b-614d45cd2de4"\n',
        "docs/make.jl": "using Documenter\n",
    })
    tree = TreeIndex.from_path(root)
    assert [d.normalized for d in manifest_at(tree, "docs/rtd.txt").dependencies] == ["sphinx"]
    assert [d.normalized for d in manifest_at(tree, "bin/conda_env.yml").dependencies] == ["pandas", "requests"]
    assert manifest_at(tree, "docs/make.jl") is None
    found = collect_manifests_in(tree, ["docs"])
    assert [(m.path, m.kind) for m in found] == [("docs/Project.toml", "julia-project")]
    assert tree.manifests() == []   # the environment locations only: E1 does not see them


# --------------------------------------------------------------------------- where dependencies are declared


def test_declared_description_fields_from_their_name_lines():
    text = (
        "Package: toypkg\n"          # 1
        "Depends:\n"                  # 2
        "    R (>= 4.1),\n"           # 3
        "    zoo\n"                   # 4
        "Suggests: testthat\n"        # 5
        "Imports: vctrs (>= 0.6),\n"  # 6
        "    rlang\n"                 # 7
    )
    manifest = parse_description(text, "DESCRIPTION")
    assert manifest.declared == [(2, 4), (6, 7)]


def test_declared_setup_py_list_literals_not_the_keyword():
    text = (
        "from setuptools import setup\n"   # 1
        "\n"                               # 2
        "BASE = [\n"                        # 3
        "    'numpy>=1.22',\n"             # 4
        "]\n"                              # 5
        "setup(\n"                         # 6
        "    name='toy',\n"                # 7
        "    install_requires=BASE + ['scipy'],\n"  # 8
        ")\n"
    )
    manifest = parse_setup_py(text, "setup.py")
    assert manifest.declared == [(3, 5), (8, 8)]


def test_declared_setup_py_computed_requirements_at_the_keyword_value():
    text = "from setuptools import setup\nsetup(\n    install_requires=read_requirements(),\n)\n"
    manifest = parse_setup_py(text, "setup.py")
    assert manifest.unknown and manifest.declared == [(3, 3)]


def test_declared_pyproject_empty_dependencies_key():
    text = '[project]\nname = "toy"\nversion = "1.0"\ndependencies = []\n\n[tool.ruff]\nline-length = 100\n'
    manifest = parse_pyproject(text, "pyproject.toml")
    assert manifest.dependencies == [] and manifest.declared == [(4, 4)]


def test_declared_pyproject_poetry_table_to_its_last_entry():
    text = ('[tool.poetry]\nname = "toy"\n\n[tool.poetry.dependencies]\npython = "^3.10"\n'
            'pandas = "2.1.4"\nattrs = ">=23"\n\n[tool.black]\n')
    manifest = parse_pyproject(text, "pyproject.toml")
    assert manifest.declared == [(4, 7)]


def test_declared_setup_cfg_install_requires_key():
    text = "[metadata]\nname = toy\n\n[options]\ninstall_requires =\n    numpy==1.26.4\n    pandas\n"
    manifest = parse_setup_cfg(text, "setup.cfg")
    assert manifest.declared == [(5, 7)]


def test_declared_conda_dependencies_and_the_export_prefix():
    text = (
        "name: toy\n"                       # 1
        "channels:\n"                        # 2
        "  - conda-forge\n"                  # 3
        "dependencies:\n"                    # 4
        "  - numpy=1.26.4=py311h64a7726_0\n"  # 5
        "  - pip:\n"                         # 6
        "    - requests==2.31.0\n"           # 7
        "prefix: /opt/conda/envs/toy\n"      # 8
    )
    manifest = parse_conda_env(text, "environment.yml")
    assert manifest.declared == [(4, 7)]
    assert manifest.conda_export and manifest.export_line == 8


def test_declared_julia_deps_and_compat_tables():
    text = (
        'name = "Toy"\n'                                       # 1
        "\n"                                                   # 2
        "[deps]\n"                                             # 3
        'CSV = "336ed68f-0bac-5ca0-87d4-7b16caf5d00b"\n'        # 4
        "\n"                                                   # 5
        "[compat]\n"                                           # 6
        'CSV = "0.10"\n'                                       # 7
        'julia = "1.9"\n'                                      # 8
        "\n"
    )
    manifest = parse_julia_project(text, "Project.toml")
    assert manifest.declared == [(3, 4), (6, 8)]


def test_declared_pipfile_packages_table():
    text = '[[source]]\nurl = "https://pypi.org/simple"\n\n[packages]\nrequests = "==2.31.0"\nrich = "*"\n\n[dev-packages]\npytest = "*"\n'
    manifest = parse_pipfile(text, "Pipfile")
    assert manifest.declared == [(4, 6)]


def test_declared_conda_list_runs_to_an_interpreter_entry():
    manifest = parse_conda_env("dependencies:\n  - numpy=1.26.4\n  - python=3.11\n", "environment.yml")
    assert manifest.declared == [(1, 3)]
    assert [(d.language, d.line) for d in manifest.interpreters] == [("python", 3)]


# --------------------------------------------------------------------------- §0.2.20: requirements a setup script reads


@pytest.mark.parametrize(("text", "files"), [
    ('from setuptools import setup\nsetup(name="x", install_requires=open("reqs/base.txt").read().splitlines())\n',
     [("pkg/reqs/base.txt", 2)]),
    # the with-block binding, a path joined from literals
    ('import os\nfrom setuptools import setup\nhere = os.path.dirname(__file__)\n'
     'with open(os.path.join(here, "requirements", "base.txt")) as f:\n    requirements = f.read().splitlines()\n'
     'setup(name="x", install_requires=requirements)\n', [("pkg/requirements/base.txt", 4)]),
    # a helper function's default argument, a pathlib expression
    ('from setuptools import setup\ndef read_reqs(name="requirements.txt"):\n    with open(name) as f:\n'
     '        return [l for l in f]\nsetup(name="x", install_requires=read_reqs())\n', [("pkg/requirements.txt", 2)]),
    ('from pathlib import Path\nfrom setuptools import setup\n'
     'setup(name="x", install_requires=(Path(__file__).parent / "requirements.txt").read_text().split())\n',
     [("pkg/requirements.txt", 3)]),
    # a literal list reads no file
    ('from setuptools import setup\nsetup(name="x", install_requires=["numpy"])\n', []),
])
def test_setup_py_requirement_files(text, files):
    assert parse_setup_py(text, "pkg/setup.py").requirement_files == files


def test_setup_py_helper_joining_a_folder_gives_every_candidate():
    text = ('from pathlib import Path\nfrom setuptools import setup\n\ndef requirements(name):\n'
            '    return (Path(__file__).parent / "reqs" / name).read_text().splitlines()\n\n'
            'setup(name="x", install_requires=requirements("base.txt"))\n')
    assert parse_setup_py(text, "setup.py").requirement_files == [("base.txt", 7), ("reqs/base.txt", 7)]


def test_pyproject_dynamic_dependencies_file():
    text = ('[project]\nname = "x"\ndynamic = ["dependencies", "version"]\n\n'
            '[tool.setuptools.dynamic]\ndependencies = {file = ["requirements.txt"]}\n')
    manifest = parse_pyproject(text, "pyproject.toml")
    assert manifest.requirement_files == [("requirements.txt", 6)]
    assert manifest.declares_dependencies


# --------------------------------------------------------------------------- pixi.toml (§0.2.20)


def test_pixi_toml_conda_and_pypi_tables():
    text = """[workspace]
name = "x"
channels = ["conda-forge"]
platforms = ["linux-64"]

[dependencies]
python = "3.11.*"
numpy = ">=1.26,<2"
scipy = "1.11.4"
pandas = "*"
xarray = { version = "2023.12.0", channel = "conda-forge" }

[pypi-dependencies]
mypkg = { path = ".", editable = true }
rich = "==13.7.0"
typer = "*"

[target.linux-64.dependencies]
cuda-version = "12.2"

[feature.test.dependencies]
pytest = "*"
"""
    manifest = parse_pixi_toml(text, "pixi.toml")
    assert [(d.name, d.pin, d.line, d.ecosystem) for d in manifest.dependencies] == [
        ("numpy", "bounded", 8, "conda"), ("scipy", "exact", 9, "conda"), ("pandas", "unpinned", 10, "conda"),
        ("xarray", "exact", 11, "conda"), ("rich", "exact", 15, "pypi"), ("typer", "unpinned", 16, "pypi"),
        ("cuda-version", "exact", 19, "conda")]   # a bare version is a space-separated conda pin
    assert [(d.name, d.source) for d in manifest.optional] == [("pytest", "pixi.feature.test.dependencies")]
    assert manifest.interpreters == [InterpreterDecl("python", "3.11.*", 7, "pixi")]
    assert manifest.declared == [(6, 11), (13, 16), (18, 19)]


# --------------------------------------------------------------------------- native package managers (§0.3)


def test_conanfile_txt_and_py():
    txt = parse_conanfile_txt("[requires]\nzlib/1.2.13\nboost/[>=1.80 <1.84]\nfmt/10.1.1#5a1b0d\n\n"
                              "[tool_requires]\ncmake/3.27.7\n\n[generators]\nCMakeDeps\n", "conanfile.txt")
    assert [(d.name, d.spec, d.pin, d.line) for d in txt.dependencies] == [
        ("zlib", "1.2.13", "exact", 2), ("boost", "[>=1.80 <1.84]", "bounded", 3), ("fmt", "10.1.1#5a1b0d", "exact", 4)]
    assert [(d.name, d.line) for d in txt.build_requires] == [("cmake", 7)]
    assert txt.declared == [(1, 4)]
    py = parse_conanfile_py('from conan import ConanFile\n\nclass App(ConanFile):\n'
                            '    requires = "zlib/1.2.13", "eigen/3.4.0"\n\n    def requirements(self):\n'
                            '        self.requires("hdf5/[>=1.14]")\n        self.tool_requires("cmake/3.27.7")\n',
                            "conanfile.py")
    assert [(d.name, d.pin, d.line) for d in py.dependencies] == [
        ("zlib", "exact", 4), ("eigen", "exact", 4), ("hdf5", "bounded", 7)]
    assert [d.name for d in py.build_requires] == ["cmake"]


def test_vcpkg_json_baseline_is_a_lock():
    text = """{
  "name": "sim",
  "dependencies": [
    "fmt",
    { "name": "eigen3", "version>=": "3.4.0" },
    "hdf5"
  ],
  "overrides": [ { "name": "hdf5", "version": "1.14.2" } ],
  "builtin-baseline": "3426db05b996481ca31e95fff3734cf23e0f51bc"
}
"""
    manifest = parse_vcpkg_json(text, "vcpkg.json")
    assert [(d.name, d.pin, d.line) for d in manifest.dependencies] == [
        ("fmt", "unpinned", 4), ("eigen3", "bounded", 5), ("hdf5", "exact", 6)]
    assert manifest.lock_line == 9
    assert parse_vcpkg_json('{"dependencies": ["fmt"], "builtin-baseline": "main"}', "vcpkg.json").lock_line is None


def test_spack_yaml_specs():
    manifest = parse_spack_yaml("spack:\n  specs:\n  - hdf5@1.14.1 +mpi\n  - openmpi@=4.1.5\n  - fftw@3.3\n"
                                "  - py-numpy@1.24:1.26\n  - cmake\n  view: true\n", "spack.yaml")
    assert [(d.name, d.pin, d.line) for d in manifest.dependencies] == [
        ("hdf5", "exact", 3), ("openmpi", "exact", 4), ("fftw", "bounded", 5), ("py-numpy", "bounded", 6),
        ("cmake", "unpinned", 7)]
    assert not parse_spack_yaml("spack:\n  view: true\n", "spack.yaml").declares_dependencies


def test_fpm_toml_dependencies():
    text = """name = "solver"

[dependencies]
stdlib = "*"
toml-f = { git = "https://github.com/toml-f/toml-f", tag = "v0.4.1" }
jonquil.git = "https://github.com/toml-f/jonquil"
mctc-lib = { git = "https://github.com/grimme-lab/mctc-lib", rev = "3c9d8e8" }
local = { path = "../local" }
openmp = "*"

[dev-dependencies]
test-drive = { git = "https://github.com/fortran-lang/test-drive", tag = "v0.4.0" }
"""
    manifest = parse_fpm_toml(text, "fpm.toml")
    assert [(d.name, d.pin, d.line) for d in manifest.dependencies] == [
        ("stdlib", "unpinned", 4), ("toml-f", "bounded", 5), ("jonquil", "unpinned", 6), ("mctc-lib", "exact", 7)]
    assert [d.name for d in manifest.optional] == ["test-drive"]
    assert not parse_fpm_toml('name = "lib"\n\n[library]\nsource-dir = "src"\n', "fpm.toml").declares_dependencies


# --------------------------------------------------------------------------- R packrat.lock, MATLAB *.prj, Pluto (§0.3)


def test_packrat_lock():
    text = ("PackratFormat: 1.4\nPackratVersion: 0.4.8.1\nRVersion: 3.3.2\nRepos: CRAN=https://cran.rstudio.com/\n\n"
            "Package: BH\nSource: CRAN\nVersion: 1.62.0-1\nHash: 14df\n\nPackage: dplyr\nSource: CRAN\nVersion: 0.5.0\n")
    manifest = parse_packrat_lock(text, "packrat/packrat.lock")
    assert [(d.name, d.spec, d.pin, d.line, d.ecosystem) for d in manifest.dependencies] == [
        ("BH", "== 1.62.0-1", "exact", 6, "cran"), ("dplyr", "== 0.5.0", "exact", 11, "cran")]
    assert manifest.interpreters == [InterpreterDecl("r", "3.3.2", 3, "packrat.lock")]
    assert manifest.lock_line == 1
    assert parse_packrat_lock("Package: x\nVersion: 1\n", "packrat.lock").lock_line is None


def test_matlab_project_release():
    text = ('<?xml version="1.0" encoding="UTF-8"?>\n<deployment-project plugin="plugin.toolbox">\n'
            '  <configuration name="x">\n    <param.release.start>r2019b</param.release.start>\n'
            '    <param.release.end>latest</param.release.end>\n  </configuration>\n</deployment-project>\n')
    manifest = parse_matlab_project(text, "Tool.prj")
    assert [(d.name, d.spec, d.pin, d.line) for d in manifest.dependencies] == [("MATLAB", "R2019b or newer", "bounded", 4)]
    assert manifest.interpreters == [InterpreterDecl("matlab", "MATLAB R2019b", 4, "matlab-project")]
    # a deployment project packaged with a MATLAB installation names it in <matlab><root>
    root = parse_matlab_project('<deployment-project plugin="plugin.ezdeploy">\n<matlab>\n'
                                '<root>C:\\Program Files\\MATLAB\\R2021a</root>\n</matlab>\n</deployment-project>\n',
                                "App.prj")
    assert [(d.spec, d.line) for d in root.dependencies] == [("R2021a", 3)]
    # a shapefile's projection and a MATLAB Project's metadata are not toolbox projects
    assert parse_matlab_project('GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984"]]', "countries.prj") is None
    assert parse_matlab_project('<MATLABProject xmlns="http://www.mathworks.com/MATLABProjectFile"/>', "p.prj") is None


def test_pluto_environment_lines_and_pins():
    project = '\n[deps]\nDataFrames = "a93c"\nLinearAlgebra = "37e2"\nPlots = "91a5"\n\n[compat]\nDataFrames = "~1.6.1"\n'
    manifest_text = ('\njulia_version = "1.10.2"\nmanifest_format = "2.0"\n\n[[deps.DataFrames]]\nversion = "1.6.1"\n\n'
                     '[[deps.LinearAlgebra]]\nuuid = "37e2"\n')
    manifest = parse_pluto_environment(project, 20, manifest_text, 40, "nb.jl")
    assert [(d.name, d.pin, d.line) for d in manifest.dependencies] == [
        ("DataFrames", "exact", 22), ("LinearAlgebra", "exact", 23), ("Plots", "unpinned", 24)]
    assert manifest.interpreters == [InterpreterDecl("julia", "1.10.2", 41, "pluto-manifest")]
    # without an embedded Manifest, [compat] pins as in a Project.toml
    alone = parse_pluto_environment(project, 1, None, None, "nb.jl")
    assert [d.pin for d in alone.dependencies] == ["bounded", "unpinned", "unpinned"]
