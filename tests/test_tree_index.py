"""The tree index: one sorted walk, exclusions, links, limits, read-once caching."""

from __future__ import annotations

import json
import os

import pytest

from scoring.measurement import measure
from scoring.tree import Limits, TreeIndex
from scoring.trees.sources import LocalDirectory, TreeSourceError


def test_walk_is_sorted_and_applies_exclusions_to_relative_paths(make_tree):
    root = make_tree(
        {
            "b.py": "x = 1\n",
            "a/z.py": "",
            "a.b": "",
            ".git/config": "",
            "node_modules/m/index.js": "",
            "pkg.egg-info/PKG-INFO": "",
            "venv/pyvenv.cfg": "home = /usr\n",
            "venv/lib/python3.11/site-packages/x.py": "",
            "env/conda-meta/history": "",
            "env2/requirements.txt": "numpy\n",
            "build/lib/pkg/mod.py": "",
            "build/notes.txt": "",
            "dist/pkg.tar.gz": b"\x1f\x8b",
            "src/lib/python_helpers/util.py": "",
            "lib/python3.10/os.py": "",
        }
    )
    tree = TreeIndex.from_path(root)
    # Code-point order of the POSIX path: "a.b" (0x2E) sorts before "a/z.py" (0x2F).
    assert tree.files == ["a.b", "a/z.py", "b.py", "env2/requirements.txt", "src/lib/python_helpers/util.py"]
    inventory = tree.inventory()
    assert inventory.excluded_dirs == [".git", "build", "dist", "env", "lib/python3.10", "node_modules", "pkg.egg-info", "venv"]


def test_a_folder_named_env_or_venv_without_markers_is_scanned(make_tree):
    root = make_tree({"venv/analysis.py": "print(1)\n", "env/run.py": "print(2)\n", "build/make_figs.py": ""})
    tree = TreeIndex.from_path(root)
    assert tree.files == ["build/make_figs.py", "env/run.py", "venv/analysis.py"]


def test_exclusion_never_looks_above_the_root(tmp_path):
    # The reference implementation hid every file of a clone made under a "build" folder.
    root = tmp_path / "build" / "env" / "repo"
    root.mkdir(parents=True)
    (root / "main.py").write_text("print(1)\n")
    assert TreeIndex.from_path(root).files == ["main.py"]


def test_links_inside_are_aliases_and_outside_dangling_loops_are_recorded(tmp_path):
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "README.md").write_text("# Title\n")
    os.symlink("docs/README.md", root / "README.md")
    os.symlink("/etc/hostname", root / "outside.txt")
    os.symlink("missing.py", root / "dangling.py")
    os.symlink("loop_b", root / "loop_a")
    os.symlink("loop_a", root / "loop_b")
    os.symlink("docs", root / "docs_link")
    tree = TreeIndex.from_path(root)
    assert tree.files == ["README.md", "docs/README.md"]
    assert tree.info("README.md").alias_of == "docs/README.md"
    assert tree.readme == "README.md"
    assert tree.text("README.md") == "# Title\n"
    skipped = {s["path"]: s["reason"] for s in tree.inventory().skipped}
    assert skipped == {
        "dangling.py": "dangling symbolic link",
        "docs_link": "symbolic link to a directory inside the tree (not followed)",
        "loop_a": "symbolic link loop",
        "loop_b": "symbolic link loop",
        "outside.txt": "symbolic link pointing outside the tree",
    }
    # A linked file is counted once.
    assert tree.inventory().files == 1


def test_binary_non_utf8_and_empty_files(make_tree):
    root = make_tree({"bin.py": b"\x00\x01\x02import os", "latin.py": "s = 'caf\xe9'\n".encode("latin-1"), "empty.py": ""})
    tree = TreeIndex.from_path(root)
    assert tree.text("bin.py") is None
    assert tree.text("latin.py") == "s = 'caf\ufffd'\n"
    assert tree.text("empty.py") == ""
    inventory = tree.inventory()
    assert {"path": "bin.py", "reason": "binary content"} in inventory.skipped
    assert {"path": "latin.py", "reason": "not valid UTF-8; decoded with replacement characters"} in inventory.problems


def test_non_utf8_file_names_are_indexed(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / os.fsdecode(b"caf\xe9.py")).write_text("x = 1\n")
    tree = TreeIndex.from_path(root)
    assert tree.files == ["caf\udce9.py"]
    assert tree.text("caf\udce9.py") == "x = 1\n"
    assert tree.undecodable_names


def test_names_are_keyed_on_their_bytes_so_none_is_lost(tmp_path):
    """Three names that all show as ``a\ufffd.py``: three files, each read for itself;
    what measure returns shows them with U+FFFD (text, for JSON and the store)."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / os.fsdecode(b"a\xfe.py")).write_text("x = 1\n")
    (root / os.fsdecode(b"a\xff.py")).write_text("y = 2\n")
    (root / "a\ufffd.py").write_text("z = 3\n")
    (root / os.fsdecode(b"d\xff")).mkdir()
    (root / os.fsdecode(b"d\xff") / "big.bin").write_bytes(b"\0" * 100)
    tree = TreeIndex.from_path(root, Limits(max_file_bytes=50))
    assert tree.files == ["a\udcfe.py", "a\udcff.py", "a\ufffd.py", "d\udcff/big.bin"]
    assert [tree.text(p) for p in tree.files[:3]] == ["x = 1\n", "y = 2\n", "z = 3\n"]
    assert tree.inventory().files == 4
    assert tree.inventory().skipped == [
        {"path": "d\udcff/big.bin", "reason": "larger than the per-file limit (100 > 50 bytes)"}
    ]
    measured = measure(root, limits=Limits(max_file_bytes=50))
    assert measured.inventory.files == 4
    assert measured.inventory.by_type == {"other": 1, "python": 3}
    assert measured.inventory.skipped == [
        {"path": "d\ufffd/big.bin", "reason": "larger than the per-file limit (100 > 50 bytes)"}
    ]
    json.dumps(measured.to_dict(), ensure_ascii=False).encode("utf-8")  # text throughout


def test_names_that_are_utf8_are_not_rewritten(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "caf\u00e9.py").write_text("x = 1\n")  # NFC
    (root / "cafe\u0301.py").write_text("x = 2\n")  # NFD: another name on Linux
    tree = TreeIndex.from_path(root)
    assert tree.files == ["cafe\u0301.py", "caf\u00e9.py"]
    assert not tree.undecodable_names


def test_limits_are_applied_in_sorted_order_and_recorded(make_tree):
    root = make_tree({f"f{i}.py": "x = 1\n" for i in range(5)} | {"big.py": "#" * 100})
    tree = TreeIndex.from_path(root, Limits(max_file_bytes=50, max_files=4))
    assert tree.text("big.py") is None
    assert tree.text("f0.py") == "x = 1\n"
    assert tree.text("f3.py") is None  # the 5th file in sorted order: big.py, f0, f1, f2, f3
    inventory = tree.inventory()
    assert inventory.truncated is True
    skipped = {s["path"]: s["reason"] for s in inventory.skipped}
    assert skipped["big.py"] == "larger than the per-file limit (100 > 50 bytes)"
    assert skipped["f3.py"] == "beyond the file limit (4 files)"
    assert skipped["f4.py"] == "beyond the file limit (4 files)"


class CountingSource(LocalDirectory):
    """A real directory whose reads are counted (and can fail for chosen paths)."""

    def __init__(self, root, fail=()):
        super().__init__(root)
        self.reads: list[str] = []
        self.fail = set(fail)

    def read(self, path, limit):
        self.reads.append(path)
        if path in self.fail:
            raise PermissionError(13, "Permission denied")
        return super().read(path, limit)


def test_each_file_is_read_once_and_parsed_once(make_tree):
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": "import numpy"}]}
    root = make_tree({"a.py": "import os\n", "n.ipynb": json.dumps(nb), "README.md": "# T\n", "pyproject.toml": "[project]\nname='x'\n"})
    source = CountingSource(root)
    tree = TreeIndex(source)
    for _ in range(3):
        tree.python_units()
        tree.readme_document()
        tree.toml("pyproject.toml")
        tree.notebook("n.ipynb")
        tree.text("a.py")
    assert sorted(source.reads) == ["README.md", "a.py", "n.ipynb", "pyproject.toml"]
    assert tree.python_unit("a.py") is tree.python_unit("a.py")


def test_unreadable_file_is_recorded_not_raised(make_tree):
    root = make_tree({"secret.py": "x = 1\n", "ok.py": "y = 2\n"})
    tree = TreeIndex(CountingSource(root, fail={"secret.py"}))
    assert tree.text("secret.py") is None
    assert tree.text("ok.py") == "y = 2\n"
    assert {"path": "secret.py", "reason": "unreadable: Permission denied"} in tree.inventory().skipped


@pytest.mark.parametrize(
    ("path_kind", "message"),
    [("missing", "no such file or directory"), ("file", "not a directory")],
)
def test_a_root_that_is_not_a_directory_is_refused(tmp_path, path_kind, message):
    target = tmp_path / "x"
    if path_kind == "file":
        target.write_text("")
    with pytest.raises(TreeSourceError, match=message):
        TreeIndex.from_path(target)


def test_notebook_cells_magics_and_nbformat3(make_tree):
    v4 = {
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Title\n", "Some text here."]},
            {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [],
             "source": ["%pip install numpy\n", "import numpy as np\n", "files = !ls data\n", "if True:\n", "    !wget https://x.org/d.csv\n", "np.mean?\n"]},
            {"cell_type": "code", "execution_count": 3, "metadata": {}, "outputs": [], "source": "%%bash\nwget https://x.org/e.csv\n"},
        ],
    }
    v3 = {"nbformat": 3, "worksheets": [{"cells": [
        {"cell_type": "heading", "level": 1, "source": "Old"},
        {"cell_type": "code", "prompt_number": 1, "input": "x = 1", "outputs": []},
    ]}]}
    root = make_tree({"a.ipynb": json.dumps(v4), "old.ipynb": json.dumps(v3), "bad.ipynb": "{not json", "empty.ipynb": json.dumps({"nbformat": 4, "cells": []})})
    tree = TreeIndex.from_path(root)
    nb = tree.notebook("a.ipynb")
    code = nb.code_cells[0]
    assert code.execution_count == 2
    assert [m.kind for m in code.magics] == ["line", "shell", "shell", "help"]
    assert [m.shell_command for m in code.magics] == ["pip install numpy", "ls data", "wget https://x.org/d.csv", None]
    assert code.python_source.splitlines() == ["pass", "import numpy as np", "pass", "if True:", "    pass", "pass"]
    assert nb.code_cells[1].language == "shell"
    old = tree.notebook("old.ipynb")
    assert [(c.cell_type, c.execution_count) for c in old.cells] == [("markdown", None), ("code", 1)]
    assert tree.notebook("bad.ipynb") is None
    assert tree.notebook("empty.ipynb").cells == []
    units = tree.python_units()
    assert [(u.path, u.cell) for u in units] == [("a.ipynb", 2), ("a.ipynb", 3), ("old.ipynb", 2)]
    assert units[0].tree is not None
    assert {"path": "bad.ipynb", "reason": "invalid notebook: invalid JSON: Expecting property name enclosed in double quotes at line 1"} in tree.inventory().problems


def test_readme_priority_and_markdown_structure(make_tree):
    root = make_tree(
        {
            "readme.rst": "Title\n=====\n",
            "README.md": "# Tool\n\n[![b](https://img.shields.io/x.svg)](https://ci.org)\n\nRun it:\n\n```bash\n# run the analysis\npython main.py\n```\n\n- see [docs](#installation)\n\nSetext\n------\n\nInline `make all` here.\n",
        }
    )
    tree = TreeIndex.from_path(root)
    assert tree.readme == "README.md"
    doc = tree.readme_document()
    # The comment inside the fence and the anchor link are not headings.
    assert [(h.level, h.text, h.line) for h in doc.headings] == [(1, "Tool", 1), (2, "Setext", 14)]
    assert [(b.info, b.line_start, b.text) for b in doc.code_blocks] == [("bash", 8, "# run the analysis\npython main.py")]
    assert [(c.text, c.line) for c in doc.inline_code] == [("make all", 17)]
    badge = [link for link in doc.links if link.is_image]
    assert badge and badge[0].url == "https://img.shields.io/x.svg" and badge[0].in_badge


def test_markdown_link_lines_count_breaks_inside_image_alt_text(make_tree):
    text = (
        "# Tool\n"                                                          # 1
        "\n"                                                                # 2
        "[![Build\n"                                                        # 3
        "Status](https://ci.example.org/b.svg)](https://ci.example.org/t)\n"  # 4
        "[![Launch\n"                                                       # 5
        "Binder](https://mybinder.org/badge.svg)](https://mybinder.org/v2/gh/o/r/main)\n"  # 6
        "See [the\n"                                                        # 7
        "docs](https://docs.example.org) and https://example.org/raw.\n"    # 8
    )
    doc = TreeIndex.from_path(make_tree({"README.md": text})).readme_document()
    assert [(link.url, link.line) for link in doc.links] == [
        ("https://ci.example.org/t", 4),
        ("https://ci.example.org/b.svg", 4),
        ("https://mybinder.org/v2/gh/o/r/main", 6),
        ("https://mybinder.org/badge.svg", 6),
        ("https://docs.example.org", 8),
        ("https://example.org/raw.", 8),
    ]


def test_rst_inline_literals_and_links_at_their_own_lines(make_tree):
    text = ("Tool\n====\n\nA pure Python package, easy to\ninstall with ``pip install tool``; see\n"
            "`the docs <https://tool.example.org>`_ or https://example.org/more.\n")
    doc = TreeIndex.from_path(make_tree({"README.rst": text})).readme_document()
    assert [(c.text, c.line) for c in doc.inline_code] == [("pip install tool", 5)]
    # the URL of a `text <url>`_ reference is found twice, as a bare URL and as the reference
    assert sorted((link.url, link.line) for link in doc.links) == [
        ("https://example.org/more.", 6), ("https://tool.example.org", 6), ("https://tool.example.org", 6)]


def test_rst_titles_and_literal_blocks(make_tree):
    text = "Tool\n====\n\nInstall\n-------\n\nRun::\n\n    pip install -r requirements.txt\n\n.. code-block:: bash\n\n   python run.py\n\nDone.\n"
    root = make_tree({"README.rst": text})
    doc = TreeIndex.from_path(root).readme_document()
    assert [(h.level, h.text, h.line) for h in doc.headings] == [(1, "Tool", 1), (2, "Install", 4)]
    assert [(b.text, b.line_start) for b in doc.code_blocks] == [("pip install -r requirements.txt", 9), ("python run.py", 13)]


def test_empty_tree(tmp_path):
    tree = TreeIndex.from_path(tmp_path)
    assert tree.files == [] and tree.readme is None and tree.python_units() == []
    assert tree.inventory().files == 0


class _RecordingDirectory(LocalDirectory):
    """A local directory that records what it is asked to prefetch and to read."""

    def __init__(self, root):
        super().__init__(root)
        self.prefetched: list[str] = []
        self.reads: list[str] = []

    def prefetch(self, paths):
        self.prefetched.extend(paths)
        super().prefetch(paths)

    def read(self, path, limit):
        self.reads.append(path)
        return super().read(path, limit)


def test_prefetch_names_the_files_detectors_read_and_no_data(make_tree):
    root = make_tree({
        "README.md": "# x\n", "Makefile": "all:\n\ttrue\n", "requirements.txt": "numpy\n",
        "src/a.py": "import numpy\n", "notebooks/n.ipynb": json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []}),
        "data/table.csv": "a,b\n1,2\n", "figures/f.png": b"\x89PNG" + b"\0" * 64, "config.json": "{}",
        "data/big.json": "[" + "1," * 40000 + "1]",
    })
    source = _RecordingDirectory(root)
    index = TreeIndex(source)
    assert source.prefetched == ["Makefile", "README.md", "config.json", "notebooks/n.ipynb",
                                 "requirements.txt", "src/a.py"]  # the index's sorted path order
    from scoring import measure

    measure(index)
    # Everything prefetched is something the detectors read; data is never read.
    assert set(source.prefetched) <= set(source.reads)
    assert not {"data/table.csv", "figures/f.png", "data/big.json"} & set(source.reads)


def test_release_drops_cached_forms_and_a_later_access_reads_again(make_tree):
    root = make_tree({"a.py": "x = 1\n"})
    source = _RecordingDirectory(root)
    index = TreeIndex(source)
    first = index.python_unit("a.py")
    assert index.python_unit("a.py") is first and source.reads == ["a.py"]
    index.release()
    again = index.python_unit("a.py")
    assert again is not first and again.source == "x = 1\n" and source.reads == ["a.py", "a.py"]


def _notebook(code: str, output_bytes: int) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": code,
         "outputs": [{"output_type": "display_data", "metadata": {},
                      "data": {"image/png": "A" * output_bytes}}]},
    ]})


def test_a_notebook_is_capped_on_its_code_not_its_bytes(make_tree):
    # METRICS.md §0.2.5: 5 MiB of stored plot output, three lines of code: read and measured
    code = "import numpy as np\nnp.random.seed(0)\nx = np.random.rand(3)\n"
    root = make_tree({"analysis.ipynb": _notebook(code, 5 * 1024 * 1024), "big.csv": "a,b\n" * 600_000})
    measured = measure(root)
    assert measured.inventory.skipped == [
        {"path": "big.csv", "reason": "larger than the per-file limit (2400000 > 2097152 bytes)"}]
    assert measured.inventory.limits["max_notebook_bytes"] == 64 * 1024 * 1024
    assert measured["seed_management"].counts["seeded_files"] == 1
    assert measured["notebook_exec_order"].applicable


def test_a_notebook_whose_code_is_over_the_per_file_limit_is_skipped(make_tree):
    code = "x = 1\n" * 400_000    # 2.4 MB of code
    root = make_tree({"huge.ipynb": _notebook(code, 10)})
    tree = TreeIndex.from_path(root)
    assert tree.notebook("huge.ipynb") is None and tree.facts("huge.ipynb") is None
    assert tree.inventory().skipped == [
        {"path": "huge.ipynb", "reason": "code cells larger than the per-file limit (2400000 > 2097152 bytes)"}]


def test_a_notebook_over_the_notebook_limit_is_not_read(make_tree):
    root = make_tree({"n.ipynb": _notebook("x = 1\n", 2000)})
    tree = TreeIndex.from_path(root, Limits(max_file_bytes=1000, max_notebook_bytes=1500))
    assert tree.skip_reason("n.ipynb").startswith("larger than the notebook limit (")
    assert tree.facts("n.ipynb") is None


def test_a_plain_text_readme_marks_its_sections_by_lines_in_capitals():
    from scoring.parsers.markdown import parse_document

    text = ("Tools for the survey.\n\nINSTALLATION:\nRun make.\n\nDATA FORMAT\nOne CSV per site.\n"
            "IMPORTANT: read the licence.\n\nNOTE\n\nA B\nsee below\n")
    assert [(h.text, h.line, h.level) for h in parse_document(text, "README.txt").headings] == [
        ("INSTALLATION", 3, 2), ("DATA FORMAT", 6, 2), ("NOTE", 10, 2)]
    # the same lines in a Markdown file are prose
    assert parse_document(text, "README.md").headings == []


def test_readme_spelt_with_separators_only_when_no_listed_name(make_tree):
    """§0.1.13's names first; failing them, a root README spelt with separators
    (READ_ME.txt, Read-Me.md) by the same extension priority, never a README_<x> variant
    or one below the root."""
    spelt = TreeIndex.from_path(make_tree({"READ_ME.txt": "Run analysis.R\n", "Read-Me.md": "# Title\n",
                                           "README_figures.md": "# Figures\n", "docs/README.md": "# Docs\n"}))
    assert spelt.readme == "Read-Me.md"
    listed = TreeIndex.from_path(make_tree({"READ_ME.md": "# Spelt\n", "readme.txt": "Listed\n"}))
    assert listed.readme == "readme.txt"
    variant = TreeIndex.from_path(make_tree({"README_figures.md": "# Figures\n", "readmes.md": "# Many\n"}))
    assert variant.readme is None
