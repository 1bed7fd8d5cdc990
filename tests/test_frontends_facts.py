"""The facts layer: exact JSON round trip (property-based), the registry, one walk per file."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import facts as F
from scoring.frontends import _common, frontend_for, frontend_name, snakemake

text = st.text(max_size=12)
line = st.integers(min_value=1, max_value=10_000)
value = st.one_of(st.none(), st.booleans(), st.integers(),
                  st.floats(allow_nan=False, allow_infinity=False), text, st.builds(F.Expr, text))
small = dict(max_size=3)
cell = st.none() | st.integers(min_value=1, max_value=500)
names = st.lists(text, **small).map(tuple)

file_facts = st.builds(
    F.FileFacts,
    language=text, frontend=text, frontend_version=text,
    imports=st.lists(st.builds(F.ImportFact, text, line, st.sampled_from(F.GUARDS), text, names, cell),
                    **small).map(tuple),
    calls=st.lists(st.builds(F.CallFact, text, text, line, st.lists(value, **small).map(tuple),
                             st.lists(st.tuples(text, value), **small).map(tuple), cell), **small).map(tuple),
    strings=st.lists(st.builds(F.StringFact, text, line, line, text, st.booleans(), cell), **small).map(tuple),
    comments=st.lists(st.builds(F.CommentFact, line, line, text, st.booleans(), cell), **small).map(tuple),
    definitions=st.lists(st.builds(F.DefinitionFact, text, text, line, st.booleans(), st.booleans(),
                                   names, cell), **small).map(tuple),
    assignments=st.lists(st.builds(F.AssignmentFact, text, line, text, cell), **small).map(tuple),
    handlers=st.lists(st.builds(F.HandlerFact, line, text, st.sampled_from(F.HANDLER_ACTIONS), cell),
                      **small).map(tuple),
    randoms=st.lists(st.builds(F.RandomFact, line, text, text, st.sampled_from(F.RANDOM_ROLES), st.booleans(),
                               st.sampled_from(F.SEED_SOURCES), cell), **small).map(tuple),
    cli_args=st.lists(st.builds(F.CliArgFact, line, text, text, cell), **small).map(tuple),
    file_io=st.lists(st.builds(F.FileIOFact, line, st.sampled_from(F.FILE_MODES), text, text, cell),
                     **small).map(tuple),
    urls=st.lists(st.builds(F.UrlFact, text, line, cell), **small).map(tuple),
    directives=st.lists(st.builds(F.DirectiveFact, text, text, line, text), **small).map(tuple),
    cells=st.lists(st.builds(F.NotebookCellFact, line, text, st.none() | st.integers(0, 999),
                             st.lists(text, **small).map(tuple), st.lists(text, **small).map(tuple)),
                   **small).map(tuple),
    parse_error=st.none() | text,
    lines=st.integers(min_value=0, max_value=10**6),
    credentials=st.lists(st.builds(F.CredentialFact, line, text, text, text, text, cell), **small).map(tuple),
)


@settings(max_examples=150, deadline=None)
@given(file_facts)
def test_file_facts_round_trip_through_json_exactly(facts):
    restored = F.FileFacts.from_json(facts.to_json())
    assert restored == facts
    assert restored.to_json() == facts.to_json()


def test_cell_and_names_are_left_out_of_the_json_while_they_hold_their_defaults():
    # facts of every file but a notebook keep the JSON they had before ``cell`` existed
    plain = F.ImportFact("numpy", 3)
    assert plain.to_dict() == {"module": "numpy", "line": 3, "guard": "none", "kind": "import"}
    in_cell = F.ImportFact("os", 1, "none", "from", ("path",), 4)
    assert in_cell.to_dict()["cell"] == 4 and in_cell.to_dict()["names"] == ["path"]
    assert F.ImportFact.from_dict(plain.to_dict()) == plain
    assert F.ImportFact.from_dict(in_cell.to_dict()) == in_cell
    assert "cell" not in F.UrlFact("https://x.org", 2).to_dict()


def test_a_literal_string_is_never_read_back_as_an_expression():
    call = F.CallFact("f", "f", 1, ("expr", F.Expr("x + 1")), (("k", "expr"),))
    assert call.to_dict()["args"] == ["expr", {"expr": "x + 1"}]
    restored = F.CallFact.from_dict(call.to_dict())
    assert restored.args == ("expr", F.Expr("x + 1"))
    assert restored.kwargs == (("k", "expr"),)


def test_non_finite_floats_become_expressions():
    assert F.literal_or_expr(float("inf"), "1e999") == F.Expr("1e999")
    assert F.literal_or_expr(2.5, "2.5") == 2.5


@pytest.mark.parametrize(("path", "frontend"), [
    ("R/fit.R", "r"), ("analysis/report.Rmd", "r"), ("paper.qmd", "r"), ("src/Sim.jl", "julia"),
    ("toolbox/run_all.m", "matlab"), ("src/main.c", "c_cpp"), ("include/model.hpp", "c_cpp"),
    ("src/kernel.cu", "c_cpp"), ("src/solver.F90", "fortran"), ("legacy/old.f", "fortran"),
    ("main.nf", "nextflow"), ("nextflow.config", "nextflow"), ("conf/base.config", "nextflow"),
    ("workflow/Snakefile", "snakemake"), ("workflow/rules/qc.smk", "snakemake"),
    ("pkg/module.py", "python"), ("gui/app.pyw", "python"), ("analysis/Fit.ipynb", "python"),
    ("startup.ipy", "python"), ("setup.cfg", None), ("README.md", None),
])
def test_registry_picks_the_frontend_from_the_file_name(path, frontend):
    assert frontend_name(path) == frontend
    module = frontend_for(path)
    assert (module.__name__.rsplit(".", 1)[-1] if module else None) == frontend
    if module is not None:
        assert module.VERSION and module.LANGUAGE


def count_nodes(node) -> int:
    return 1 + sum(count_nodes(child) for child in node.children)


SOURCES = {
    "a.R": b"library(x)\nf <- function(a) { tryCatch(g(a), error = function(e) NULL) }\nset.seed(1)\n",
    "a.jl": b'"""doc"""\nf(x) = x\nusing Random\nRandom.seed!(1)\ntry\n g()\ncatch\nend\n',
    "a.m": b"function y = f(x)\n% help\ny = rand(3);\nend\n",
    "a.cpp": b"#include <random>\nint main() { std::mt19937 g(1); try { } catch (...) {} }\n",
    "a.f90": b"program p\n  call random_seed()\nend program p\n",
    "a.nf": b"process X {\n  container 'a:1'\n  script:\n  \"\"\"\n  echo\n  \"\"\"\n}\n",
}


@pytest.mark.parametrize("path", sorted(SOURCES))
def test_each_tree_sitter_frontend_parses_once_and_queries_the_tree_once(monkeypatch, path):
    """One parse, one traversal: one query run (``_common.selected``) over that tree;
    no frontend walks the tree node by node in Python."""
    parses, selections, walks = [], [], []
    original_parse, original_selected = _common.parse, _common.selected

    def counting_parse(data, language):
        tree = original_parse(data, language)
        parses.append(tree)
        return tree

    def counting_selected(tree, compiled):
        selections.append(tree)
        return original_selected(tree, compiled)

    monkeypatch.setattr(_common, "parse", counting_parse)
    monkeypatch.setattr(_common, "selected", counting_selected)
    monkeypatch.setattr(_common, "preorder", lambda tree: walks.append(tree) or iter(()))
    frontend_for(path).extract(SOURCES[path], path)
    assert len(parses) == 1
    assert len(selections) == 1 and selections[0] is parses[0]
    assert not walks


def test_selected_nodes_come_in_document_order():
    """``captures`` groups nodes in a set; ``selected`` puts them back in preorder,
    outermost first where spans coincide."""
    tree = _common.parse(b"f(g(h(1)), 'a')\nx <- k(2)(3)\n", "r")
    compiled = _common.query("r", "[(call) (string) (binary_operator)] @node")
    expected = [node.id for node, _ in _common.preorder(tree)
                if node.type in ("call", "string", "binary_operator")]
    assert [node.id for node in _common.selected(tree, compiled)[0]] == expected


def test_first_error_is_the_first_error_node_in_preorder():
    for source in (b"x <- f(\n", b"f(1)\ng(2))\nh(3\n", b"x <- 1\n"):
        tree = _common.parse(source, "r")
        expected = next((node for node, _ in _common.preorder(tree) if _common.is_error(node)), None)
        found = _common.first_error(tree)
        assert (found and found.id) == (expected and expected.id)


def test_snakemake_walks_the_rewritten_module_once(monkeypatch):
    visited = []
    original = snakemake._Facts.visit
    monkeypatch.setattr(snakemake._Facts, "visit", lambda self, node, ancestors: (
        visited.append(node), original(self, node, ancestors))[1])
    data = b'rule a:\n    input: "x"\n    run:\n        print(1)\n'
    snakemake.extract(data, "Snakefile")
    rewritten = snakemake._Rewriter(data.decode())
    rewritten.run()
    module = ast.parse(rewritten.source())
    assert len(visited) == sum(1 for _ in ast.walk(module))
    # Load/Store are shared singletons in CPython's ast; every other node is met once
    distinct = [node for node in visited if not isinstance(node, ast.expr_context)]
    assert len({id(node) for node in distinct}) == len(distinct)


def test_frontend_version_names_the_grammar_release():
    facts = frontend_for("a.R").extract(b"x <- 1\n", "a.R")
    assert facts.frontend_version == "1.2.4+tslp0.13.0"
    assert (facts.language, facts.frontend, facts.lines) == ("r", "r", 1)


def test_path_to_is_the_ancestor_stack_preorder_yields():
    tree = _common.parse(b"if (a) {\n  tryCatch(library(x), error = function(e) NULL)\n}\n", "r")
    for node, ancestors in _common.preorder(tree):
        assert [a.id for a in _common.path_to(tree.root_node, node)] == [a.id for a in ancestors]
GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def test_redact_facts_leaves_no_secret_in_any_kind_of_fact():
    secret_url = "https://alice:hunter22@data.example.org/x.csv"
    facts = F.FileFacts(
        "x", "x", "1",
        imports=(F.ImportFact(secret_url, 1, kind="include"),),
        calls=(F.CallFact("f", "f", 1, (GITHUB_TOKEN, F.Expr(f"'{GITHUB_TOKEN}' + x")),
                          (("password", "hunter22"), ("k", 1))),),
        strings=(F.StringFact("hunter22", 1, 1, "db_password"), F.StringFact(GITHUB_TOKEN, 2, 2)),
        comments=(F.CommentFact(1, 2, f"# token = '{GITHUB_TOKEN}'\n# see {secret_url}"),),
        definitions=(F.DefinitionFact("f", "function", 1, decorators=(f"auth('{GITHUB_TOKEN}')",)),),
        assignments=(F.AssignmentFact("self.api_key", 3, "s3cr3t-v4lue"),),
        cli_args=(F.CliArgFact(1, "argparse", f"--token={GITHUB_TOKEN}"),),
        file_io=(F.FileIOFact(1, "read", secret_url, "open"),),
        urls=(F.UrlFact(secret_url, 1),),
        directives=(F.DirectiveFact("password", "hunter22", 1, "params"),),
        cells=(F.NotebookCellFact(1, "code", magics=(f"!curl -u alice:hunter22 {secret_url}",)),),
    )
    redacted = _common.redact_facts(facts)
    text = redacted.to_json()
    assert GITHUB_TOKEN not in text and "hunter22" not in text and "s3cr3t-v4lue" not in text
    assert redacted.assignments[0].value == "s3cr…(12 chars)"
    assert redacted.strings[1].value == "ghp_…(40 chars)"
    assert redacted.urls[0].url == "https://alice:hunt…(8 chars)@data.example.org/x.csv"
    # a value without a secret is the same object: the pass copies only what it masks
    clean = F.FileFacts("x", "x", "1", strings=(F.StringFact("data/in.csv", 1, 1, "path"),))
    assert _common.redact_facts(clean) is clean
    assert _common.redact_facts(redacted) == redacted


def test_screening_finds_exactly_the_texts_that_hold_a_marker():
    texts = ["plain", "a --user x", "", "nothing", "the key", "ghp", "x" * 50 + "auth"]
    assert _common._with_markers(texts) == [1, 4, 5, 6]
    assert _common._with_markers(["plain", "text"]) == []
    from scoring.model import redact
    for text in ("plain", "nothing here", "data/in.csv"):
        assert redact(text) == text


def test_python_parses_and_walks_a_file_once(monkeypatch):
    from scoring.frontends import python

    calls = {"parse": 0, "walk": 0}
    parse, walk = python.parse_source, python._Walker.walk

    def counting_parse(source):
        calls["parse"] += 1
        return parse(source)

    def counting_walk(self, tree):
        calls["walk"] += 1
        return walk(self, tree)

    monkeypatch.setattr(python, "parse_source", counting_parse)
    monkeypatch.setattr(python._Walker, "walk", counting_walk)
    python.extract(b"import os\ndef f():\n    return os.getcwd()\n", "a.py")
    assert calls == {"parse": 1, "walk": 1}
