"""Detectors aggregate facts; they never read a file's text, parse it or walk its syntax.

Each file is read once, parsed once and walked once by its language frontend
(``scoring/frontends/``) or its format's parser (``scoring/parsers/``, behind a cached
``TreeIndex`` accessor); a detector only combines what those recorded. Two checks hold
every detector module (``scoring/detectors/**``) to that:

* statically: no import of a parser, tokenizer or grammar, no call of a ``TreeIndex``
  method that hands out a file's text, lines or syntax tree, no file opened;
* at run time: while every golden fixture tree is measured, no call of those methods,
  nor of the index's byte reader, comes from a detector module's own code.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from scoring import measure
from scoring.tree import TreeIndex

ROOT = Path(__file__).resolve().parents[1]
DETECTORS = ROOT / "scoring" / "detectors"
FIXTURES = ROOT / "tests" / "fixtures"

# Modules a detector must not import: they parse or tokenize text.
FORBIDDEN_MODULES = ("ast", "tokenize", "tree_sitter", "tree_sitter_language_pack", "markdown_it",
                     "tomllib", "yaml", "csv", "configparser", "nbformat", "scoring.frontends")
# ``json`` may write evidence; reading JSON is a parser's job.
FORBIDDEN_CALLS = frozenset({("json", "loads"), ("json", "load")})
# Names of scoring.parsers a detector may import: the parsed structures' types and plain
# tables, never a function that parses a file.
PARSER_NAME_PREFIXES = ("parse", "scan", "split", "lex", "tokenize", "read", "load", "extract")
# ... except these, which split one value a parse already produced (a command line of a
# README code block or a Make recipe, an image reference of a Dockerfile), never a file.
VALUE_PARSERS = frozenset({"split_commands", "split_image", "parse_install_command", "parse_rscript_installs"})

# Detector modules not yet moved onto facts (issue 15), each reading text, an AST or a
# notebook itself: none left. A module on it that no longer violates fails the test, so
# the list cannot go stale.
NOT_YET_ON_FACTS: frozenset[str] = frozenset()
# TreeIndex methods that hand out a file's text, lines, bytes or syntax tree.
TEXT_METHODS = frozenset({"text", "lines", "python_unit", "python_units", "notebook", "_read", "read_bytes",
                          "read_text"})


def _detector_modules() -> list[Path]:
    return sorted(DETECTORS.rglob("*.py"))


def _violations(path: Path, root: Path = ROOT) -> list[str]:
    """Each violation as ``path:line: what``, in line order."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        where = f"{path.relative_to(root)}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in FORBIDDEN_MODULES or alias.name.startswith(FORBIDDEN_MODULES):
                    found.append(f"{where}: imports {alias.name}")
        elif isinstance(node, ast.ImportFrom) and not node.level:
            module = node.module or ""
            if module.split(".")[0] in FORBIDDEN_MODULES or module.startswith(FORBIDDEN_MODULES):
                found.append(f"{where}: imports from {module}")
            elif module.startswith("scoring.parsers"):
                found.extend(f"{where}: imports {alias.name} from {module}" for alias in node.names
                             if alias.name.lower().startswith(PARSER_NAME_PREFIXES)
                             and alias.name not in VALUE_PARSERS)
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "open":
                found.append(f"{where}: opens a file")
            elif isinstance(func, ast.Attribute) and func.attr in TEXT_METHODS:
                found.append(f"{where}: calls .{func.attr}()")
            elif (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                  and (func.value.id, func.attr) in FORBIDDEN_CALLS):
                found.append(f"{where}: calls {func.value.id}.{func.attr}()")
    return sorted(found, key=lambda violation: (int(violation.split(":")[1]), violation))


def test_there_are_detector_modules_to_check():
    modules = _detector_modules()
    assert len([p for p in modules if not p.name.startswith("_")]) == 26  # one module per detector


@pytest.mark.parametrize("path", _detector_modules(), ids=lambda p: str(p.relative_to(DETECTORS)))
def test_a_detector_module_reads_no_text_and_parses_nothing(path):
    if path.relative_to(DETECTORS).as_posix() in NOT_YET_ON_FACTS:
        assert _violations(path) != [], "moved onto facts: take it off NOT_YET_ON_FACTS"
    else:
        assert _violations(path) == []


def test_the_static_check_finds_each_kind_of_violation(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import ast\n"
        "from scoring.parsers.markdown import parse_markdown, Document\n"
        "from scoring.parsers.shell import split_commands\n"
        "from scoring.frontends.python import extract\n"
        "def f(tree):\n"
        "    text = tree.text('a.py')\n"
        "    units = tree.python_units()\n"
        "    n = facts.lines + len(comment.text)\n"  # fact fields of the same names are fine
        "    data = json.loads(text), json.dumps(units)\n"
        "    return open('x').read(), tree.lines('b')\n",
        encoding="utf-8",
    )
    found = [violation.split(": ", 1)[1] for violation in _violations(bad, tmp_path)]
    assert found == [
        "imports ast",
        "imports parse_markdown from scoring.parsers.markdown",
        "imports from scoring.frontends.python",
        "calls .text()",
        "calls .python_units()",
        "calls json.loads()",
        "calls .lines()",
        "opens a file",
    ]


def _fixture_trees() -> list[Path]:
    """The tree of every golden fixture ``tests/fixtures/<metric_id>/<case>/``."""
    return sorted(case / "tree" for case in FIXTURES.glob("*/*") if (case / "expected.json").is_file())


def test_no_detector_reads_a_file_while_the_fixtures_are_measured(monkeypatch):
    trees = _fixture_trees()
    assert len({tree.parent.parent.name for tree in trees}) == 26
    callers: set[str] = set()
    detectors_prefix = str(DETECTORS)

    def watch(name):
        original = getattr(TreeIndex, name)

        def watched(self, *args, **kwargs):
            caller = sys._getframe(1).f_code.co_filename
            if caller.startswith(detectors_prefix) and Path(caller).relative_to(DETECTORS).as_posix() not in NOT_YET_ON_FACTS:
                callers.add(f"{Path(caller).relative_to(ROOT)} -> TreeIndex.{name}")
            return original(self, *args, **kwargs)

        monkeypatch.setattr(TreeIndex, name, watched)

    for name in ("text", "lines", "python_unit", "python_units", "notebook", "_read"):
        if hasattr(TreeIndex, name):
            watch(name)
    for tree in trees:
        measure(tree)
    assert callers == set()
