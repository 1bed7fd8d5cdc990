"""Python frontend: exact facts from small synthetic sources, notebooks, parse errors,
deep files, the one walk and the redaction of what facts carry."""

from __future__ import annotations

import ast
import io
import json
import re
import sys
import tokenize
from dataclasses import replace
from pathlib import Path

import pytest

from scoring.facts import (
    AssertFact,
    AssignmentFact,
    CallFact,
    CliArgFact,
    CommentFact,
    DefinitionFact,
    Expr,
    FileFacts,
    FileIOFact,
    HandlerFact,
    ImportFact,
    NotebookCellFact,
    RandomFact,
    StringFact,
    UrlFact,
)
from scoring.frontends import _common, frontend_for
from scoring.frontends import python as py

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"


def extract(source: str | bytes, path: str = "pkg/mod.py") -> FileFacts:
    """The facts of ``source``; every test input also checks the exact JSON round trip."""
    data = source.encode() if isinstance(source, str) else source
    facts = py.extract(data, path)
    assert FileFacts.from_json(facts.to_json()) == facts
    assert FileFacts.from_json(facts.to_json()).to_json() == facts.to_json()
    return facts


IMPORTS = '''\
from __future__ import annotations
import os.path, numpy as np
from . import utils
from ..core.io import load as _load, save
from typing import TYPE_CHECKING
try:
    import ujson as json
except ImportError:
    import json
try:
    import yaml
except KeyError:
    pass
if TYPE_CHECKING:
    from pandas import DataFrame
else:
    import collections
if sys.platform == "win32":
    import winreg
    try:
        import _winapi
    except Exception:
        pass
if __name__ == "__main__":
    import cProfile
def run():
    import torch
    if torch:
        import torchvision
plugin = importlib.import_module("plugins.extra")
legacy = __import__("imp")
other = importlib.import_module(name)
'''


def test_imports_with_their_kind_names_and_guard():
    assert extract(IMPORTS).imports == (
        ImportFact("__future__", 1, "none", "from", ("annotations",)),
        ImportFact("os.path", 2, "none", "import"),
        ImportFact("numpy", 2, "none", "import", asnames=("np",)),
        ImportFact(".", 3, "none", "from", ("utils",)),
        ImportFact("..core.io", 4, "none", "from", ("load", "save"), asnames=("_load", "")),
        ImportFact("typing", 5, "none", "from", ("TYPE_CHECKING",)),
        ImportFact("ujson", 7, "try", "import", import_try=True, asnames=("json",)),
        ImportFact("json", 9, "except", "import"),
        # a try whose handler does not catch import errors guards nothing
        ImportFact("yaml", 11, "none", "import"),
        ImportFact("pandas", 15, "type_checking", "from", ("DataFrame",)),
        ImportFact("collections", 17, "conditional", "import"),
        ImportFact("winreg", 19, "conditional", "import"),
        # the innermost try wins over the if around it
        ImportFact("_winapi", 21, "try", "import", import_try=True),
        # the main guard is no condition on what is installed
        ImportFact("cProfile", 25, "none", "import"),
        # a function body starts afresh
        ImportFact("torch", 27, "none", "import"),
        ImportFact("torchvision", 29, "conditional", "import"),
        ImportFact("plugins.extra", 30, "none", "dynamic"),
        ImportFact("imp", 31, "none", "dynamic"),
    )


def test_type_checking_inside_a_try_is_type_checking():
    source = "try:\n    if typing.TYPE_CHECKING:\n        import a\nexcept ImportError:\n    pass\n"
    # ... and still in the try's body, where C2 reads an optional import
    assert extract(source).imports == (ImportFact("a", 3, "type_checking", "import", import_try=True),)


def test_an_import_anywhere_in_an_import_try_body_is_optional_for_c2():
    source = ("try:\n    def f():\n        import a\n    try:\n        import b\n    except ValueError:\n"
              "        import c\nexcept ImportError:\n    import d\nimport e\n")
    assert [(ref.module, ref.guard, ref.import_try) for ref in extract(source).imports] == [
        ("a", "none", True), ("b", "try", True), ("c", "try", True), ("d", "except", False), ("e", "none", False)]


CALLS = '''\
import numpy as np
from os import path as p
from pathlib import Path
np.random.seed(1)
p.join("a", name, -2, 1.5, None, True, b"x", 1e999, k=[1], **extra)
Path("notes.txt").read_text()
np.random.default_rng(0).normal(size=3)
handlers[0]()
print(f"{value!r:>10}")
'''


def test_calls_resolve_aliases_and_keep_literals_or_expressions():
    assert extract(CALLS).calls == (
        CallFact("numpy.random.seed", "np.random.seed", 4, (1,)),
        CallFact("os.path.join", "p.join", 5,
                 ("a", Expr("name"), -2, 1.5, None, True, Expr('b"x"'), Expr("1e999")),
                 (("k", Expr("[1]")), ("**", Expr("extra")))),
        # a call in the chain keeps its parentheses, and its head is resolved too
        CallFact("pathlib.Path().read_text", "Path().read_text", 6),
        CallFact("pathlib.Path", "Path", 6, ("notes.txt",)),
        CallFact("numpy.random.default_rng().normal", "np.random.default_rng().normal", 7, (), (("size", 3),)),
        CallFact("numpy.random.default_rng", "np.random.default_rng", 7, (0,)),
        # handlers[0]() has no dotted callee: no CallFact, its parts are still walked
        CallFact("print", "print", 9, (Expr('f"{value!r:>10}"'),)),
    )


def test_expression_text_is_cut_to_80_characters():
    call = extract("f(" + " + ".join(["alpha"] * 40) + ")\n").calls[0]
    assert call.args == (Expr((" + ".join(["alpha"] * 40))[:80]),)


STRINGS = '''\
"""Module doc, see https://example.org/docs."""
API = "https://api.example.org/v1/data"
self.root, mode = "/data/raw", "r"
a = b = "same"
cfg["section"] = "value"
settings = {"host": "db.local", 3: "three"}
open(path, encoding="utf-8")
out = f"/results/{name}/{step:>{width}}.csv"
x: str = "typed"
def fetch(url="ftp://files.example.org/a.gz", *, retries="3"):
    """Fetch ``url``.

    Mirrors at https://mirror.example.org.
    """
    return url
class C:
    """Class doc."""
    def m(self):
        \'\'\'
        \'\'\'
long = """first
see http://example.com/a.
"""
'''


def test_strings_bindings_docstrings_and_fstrings():
    result = extract(STRINGS)
    assert result.strings == (
        StringFact("Module doc, see https://example.org/docs.", 1, 1, "", True),
        StringFact("https://api.example.org/v1/data", 2, 2, "API"),
        StringFact("/data/raw", 3, 3, "self.root"),
        StringFact("r", 3, 3, "mode"),
        StringFact("same", 4, 4, "a"),
        StringFact("section", 5, 5),
        StringFact("value", 5, 5, 'cfg["section"]'),
        StringFact("host", 6, 6),
        StringFact("db.local", 6, 6, "host"),
        StringFact("three", 6, 6),
        StringFact("utf-8", 7, 7, "encoding"),
        # an f-string is one literal; its fields are {…}; format specs are no strings
        StringFact("/results/{…}/{…}.csv", 8, 8, "out"),
        StringFact("typed", 9, 9, "x"),
        StringFact("ftp://files.example.org/a.gz", 10, 10, "url"),
        StringFact("3", 10, 10, "retries"),
        StringFact("Fetch ``url``.\n\n    Mirrors at https://mirror.example.org.\n    ", 11, 14, "", True),
        StringFact("Class doc.", 17, 17, "", True),
        StringFact("\n        ", 19, 20, "", True),
        StringFact("first\nsee http://example.com/a.\n", 21, 23, "long"),
    )
    assert result.assignments == (
        AssignmentFact("API", 2, "https://api.example.org/v1/data"),
        AssignmentFact("self.root", 3, "/data/raw"),
        AssignmentFact("mode", 3, "r"),
        AssignmentFact("a", 4, "same"),
        AssignmentFact("b", 4, "same"),
        AssignmentFact('cfg["section"]', 5, "value"),
        AssignmentFact("host", 6, "db.local"),
        AssignmentFact("encoding", 7, "utf-8"),
        AssignmentFact("x", 9, "typed"),
        AssignmentFact("url", 10, "ftp://files.example.org/a.gz"),
        AssignmentFact("retries", 10, "3"),
        AssignmentFact("long", 21, "first\nsee http://example.com/a.\n"),
    )
    # URLs of code strings, with their own line; never from docstrings
    assert result.urls == (
        UrlFact("https://api.example.org/v1/data", 2),
        UrlFact("ftp://files.example.org/a.gz", 10),
        UrlFact("http://example.com/a", 22),
    )


COMMENTS = '''\
#!/usr/bin/env python
# first line of a block
#   second line
x = "# not a comment"  # trailing
y = """
# inside a string
"""
# a block of its own
def f():
    """Doc."""
    return 1  # also trailing
    # indented, after code
'''


def test_comment_blocks_merge_consecutive_whole_line_comments():
    assert extract(COMMENTS).comments == (
        CommentFact(1, 3, "#!/usr/bin/env python\n# first line of a block\n#   second line"),
        CommentFact(4, 4, "# trailing"),
        CommentFact(8, 8, "# a block of its own"),
        CommentFact(10, 10, "Doc.", True),
        CommentFact(11, 11, "# also trailing"),
        CommentFact(12, 12, "# indented, after code"),
    )


TRICKY_COMMENTS = "\n".join([
    "",
    r"a = 'it\'s # no'  # one",
    r'b = "say \"#\""  # two',
    'c = f"{x}#{y}"  # three',
    'd = """#',
    "'''\"\"\"  # four",
    r'e = r"\"  # not"  # five',
    "",
])


def test_the_comment_scan_finds_what_the_tokenizer_finds():
    expected = [(t.start[0], t.string) for t in tokenize.generate_tokens(io.StringIO(TRICKY_COMMENTS).readline)
                if t.type == tokenize.COMMENT]
    found = [(c.line_start, c.text) for c in extract(TRICKY_COMMENTS).comments]
    assert found == expected == [(2, "# one"), (3, "# two"), (4, "# three"), (6, "# four"), (7, "# five")]


DEFINITIONS = '''\
import functools
from typing import overload
def public(): """Documented."""
def _private(): pass
async def fetch():
    """ """
    def inner(): pass
@functools.lru_cache(maxsize=None)
@overload
def cached(): ...
class Model:
    """A model."""
    def fit(self): """Fit."""
    def _step(self): pass
    def __init__(self): pass
    if DEBUG:
        def debug(self): pass
    class Config:
        def value(self): pass
class _Hidden:
    def run(self): pass
if HAVE_GPU:
    def gpu(): pass
for i in range(2):
    def looped(): pass
@app.route("/")
def index(): pass
'''


def test_parameters_in_call_order_and_those_defaulting_to_none():
    source = (b"def f(a, /, b=None, *rest, c, d=None, e=3, **options): pass\n"
              b"def g(x, *, seed=None): pass\n"
              b"lambda rng=None: rng\n")
    found = extract(source).definitions
    assert [(d.name, d.parameters, d.none_defaults) for d in found] == [
        ("f", ("a", "b", "*rest", "c", "d", "e", "**options"), ("b", "d")),
        ("g", ("x", "*", "seed"), ("seed",)),
    ]


SPREADS = b'''\
options = {"num_workers": 1} if cuda else {}
load(data, **options)
def f(**kwargs):
    load(data, **kwargs)
    load(data, **options)
def g(opts):
    kw = dict(batch_size=2, **options)
    kw["generator"] = opts.g
    load(data, **kw, **{"x": 1})
    kw.update(seed=1)
    load(data, **kw)
    kw.setdefault(opts.key, 1)
    load(data, **kw)
    load(data, **cfg())
    options = make()
    load(data, **options)
class C:
    options = {"seed": 1}
    def m(self):
        load(data, **options)
lam = lambda options: load(**options)
for options in []:
    pass
load(data, **options)
'''


def test_the_keywords_a_double_star_argument_can_be_seen_to_pass():
    calls = [c for c in extract(SPREADS).calls if c.written == "load"]
    assert [(c.line, c.spread_known, c.spread_keys) for c in calls] == [
        (2, True, ("num_workers",)),
        (4, False, ()),                      # a parameter
        (5, True, ("num_workers",)),         # the module's dict, read in a function
        (9, True, ("batch_size", "generator", "num_workers", "x")),
        (11, True, ("batch_size", "generator", "num_workers", "seed")),
        (13, False, ()),                     # a computed key
        (14, False, ()),                     # a call's result
        (16, False, ()),                     # rebound to a call's result
        (20, True, ("num_workers",)),        # a class body encloses no method
        (21, False, ()),                     # the lambda's parameter
        (24, False, ()),                     # rebound by a loop
    ]
    assert "spread_known" not in calls[1].to_dict() and calls[0].to_dict()["spread_keys"] == ["num_workers"]


def test_a_generator_built_as_a_statement_is_thrown_away_with_its_seed():
    source = b"import numpy as np\nnp.random.default_rng(seed=0)\nrng = np.random.default_rng(1)\nnp.random.seed(2)\n"
    assert [(r.line, r.kind, r.seeded, r.seed_source) for r in extract(source).randoms] == [
        (2, "engine", False, "discarded"), (3, "engine", True, "literal"), (4, "seed", True, "literal")]


def test_definitions_public_as_d6_reads_it_documented_and_decorators():
    found = extract(DEFINITIONS).definitions
    assert [d.end_line for d in found] == [3, 4, 7, 7, 10, 19, 13, 14, 15, 17, 19, 19, 21, 21, 23, 25, 27]
    assert [d.parameters for d in found if d.parameters] == [("self",)] * 6
    assert tuple(replace(d, end_line=0, parameters=()) for d in found) == (
        DefinitionFact("public", "function", 3, True, True),
        DefinitionFact("_private", "function", 4, False, False),
        # a blank docstring documents nothing; async functions are functions
        DefinitionFact("fetch", "function", 5, True, False, header="async def fetch():"),
        DefinitionFact("inner", "function", 7, False, False),
        DefinitionFact("cached", "function", 10, True, False, ("functools.lru_cache", "typing.overload"),
                       header="def cached(): ...", decorator_lines=(8, 9)),
        DefinitionFact("Model", "class", 11, True, True),
        DefinitionFact("fit", "method", 13, True, True),
        DefinitionFact("_step", "method", 14, False, False),
        # dunder methods are magic, not public (D6, interrogate --ignore-magic)
        DefinitionFact("__init__", "method", 15, False, False),
        # only the direct members of a class body count
        DefinitionFact("debug", "method", 17, False, False),
        DefinitionFact("Config", "class", 18, False, False),
        DefinitionFact("value", "method", 19, False, False),
        DefinitionFact("_Hidden", "class", 20, False, False),
        DefinitionFact("run", "method", 21, False, False),
        # module-level if/try/with blocks count, loops do not
        DefinitionFact("gpu", "function", 23, True, False, header="def gpu(): pass"),
        DefinitionFact("looped", "function", 25, False, False),
        DefinitionFact("index", "function", 27, True, False, ("app.route",), header="def index(): pass",
                       decorator_lines=(26,)),
    )


def test_class_bases_resolved_and_decorator_lines():
    source = ("import luigi as lg\nfrom prefect import flow\nclass Fetch(lg.Task, Mixin, make_base()):\n    pass\n"
              "class Plain:\n    pass\n@flow\n@other.deco(1)\ndef main():\n    pass\n")
    assert extract(source).definitions == (
        DefinitionFact("Fetch", "class", 3, True, False, header="class Fetch(lg.Task, Mixin, make_base()):",
                       bases=("luigi.Task", "Mixin", "make_base()"), written_bases=("lg.Task", "Mixin"), end_line=4),
        DefinitionFact("Plain", "class", 5, True, False, header="class Plain:", end_line=6),
        DefinitionFact("main", "function", 9, True, False, ("prefect.flow", "other.deco"), header="def main():",
                       decorator_lines=(7, 8), end_line=10),
    )


HANDLERS = '''\
try:
    run()
except:
    pass
try:
    run()
except (ValueError, errors.Fatal) as exc:
    logger.warning("failed: %s", exc)
    return_code = 1
try:
    run()
except Exception:
    raise RuntimeError("wrapped")
except OSError:
    "documented silence"
    ...
for item in items:
    try:
        item.go()
    except KeyError:
        continue
def f():
    try:
        return g()
    except TypeError:
        if strict:
            sys.exit(2)
        return None
try:
    run()
except ImportError:
    def fallback():
        return None
'''


def test_handlers_caught_names_and_actions():
    assert extract(HANDLERS).handlers == (
        # a handler that swallows the error carries its extent and first lines (C4)
        HandlerFact(3, "...", "pass", None, 4, "empty", "except: pass"),
        HandlerFact(7, "ValueError, errors.Fatal", "log"),
        HandlerFact(12, "Exception", "reraise"),
        HandlerFact(14, "OSError", "pass", None, 16, "empty", 'except OSError: "documented silence" ...'),
        HandlerFact(20, "KeyError", "continue", None, 21, "empty", "except KeyError: continue"),
        HandlerFact(25, "TypeError", "reraise"),
        # a function defined in a handler is not what the handler does
        HandlerFact(31, "ImportError", "other"),
    )


RANDOMS = '''\
import random
import numpy as np
import torch
import tensorflow as tf
from numpy.random import default_rng
random.seed(42)
random.seed()
np.random.seed(args.seed)
np.random.seed(int(time.time()))
rng = default_rng(7)
rng.normal(size=3)
self.rng = np.random.RandomState()
self.rng.shuffle(order)
np.random.rand(3)
random.choice(items)
torch.manual_seed(0)
g = torch.Generator()
g.manual_seed(seed)
torch.randn(2, generator=g)
tf.random.set_seed(1)
np.random.default_rng().integers(5)
'''


def test_seeds_engines_and_draws():
    assert extract(RANDOMS).randoms == (
        RandomFact(6, "random.seed", "random", "seed", True, "literal"),
        # random.seed() re-seeds from the operating system
        RandomFact(7, "random.seed", "random", "seed", False, "entropy"),
        RandomFact(8, "numpy.random.seed", "numpy.random", "seed", True, "argument"),
        RandomFact(9, "numpy.random.seed", "numpy.random", "seed", False, "time"),
        RandomFact(10, "numpy.random.default_rng", "numpy.random.default_rng", "engine", True, "literal"),
        RandomFact(11, "rng.normal", "rng", "draw"),
        RandomFact(12, "numpy.random.RandomState", "numpy.random.RandomState", "engine", False, "entropy"),
        RandomFact(13, "self.rng.shuffle", "self.rng", "draw"),
        RandomFact(14, "numpy.random.rand", "numpy.random", "draw"),
        RandomFact(15, "random.choice", "random", "draw"),
        RandomFact(16, "torch.manual_seed", "torch", "seed", True, "literal"),
        # torch.Generator() starts from a documented fixed seed
        RandomFact(17, "torch.Generator", "torch.Generator", "engine", True, "default"),
        RandomFact(18, "g.manual_seed", "g", "seed", True, "argument"),
        RandomFact(19, "torch.randn", "g", "draw"),
        RandomFact(20, "tensorflow.random.set_seed", "tensorflow", "seed", True, "literal"),
        RandomFact(21, "numpy.random.default_rng().integers", "numpy.random.default_rng()", "draw"),
        RandomFact(21, "numpy.random.default_rng", "numpy.random.default_rng", "engine", False, "entropy"),
    )


CLI_AND_IO = '''\
import argparse, sys, click, typer, fire, getopt
from sys import argv
import pandas as pd
import numpy as np
from pathlib import Path
parser = argparse.ArgumentParser(description="run")
parser.add_argument("-i", "--input", required=True)
parser.add_argument("output")
first = sys.argv[1]
rest = argv[2:]
opts, _ = getopt.getopt(sys.argv[1:], "hv")
@click.command()
@click.option("-n", "--count", default=1)
@click.argument("name")
def main(count, name, k: int = typer.Option(3, "--k")):
    pass
fire.Fire(main)
with open("data/in.txt") as fh, open(out, "w") as sink, open("log.txt", mode="a+") as log:
    pass
frame = pd.read_csv("data/table.csv")
frame.to_csv(path_or_buf="results/out.csv", index=False)
text = frame.to_csv()
np.save("arr.npy", values)
Path("notes.md").write_text("done")
Path(folder).read_bytes()
Path("cfg.yaml").open("w")
'''


def test_cli_access():
    assert extract(CLI_AND_IO).cli_args == (
        CliArgFact(6, "argparse"),
        CliArgFact(7, "argparse", "--input"),
        CliArgFact(8, "argparse", "output"),
        CliArgFact(9, "sys.argv", subscript=True),
        CliArgFact(10, "sys.argv", subscript=True),
        CliArgFact(11, "getopt"),
        CliArgFact(11, "sys.argv", subscript=True),
        CliArgFact(13, "click", "--count"),
        CliArgFact(14, "click", "name"),
        CliArgFact(15, "typer", "--k"),
        CliArgFact(17, "fire"),
    )


def test_file_reads_and_writes_with_their_path_literals():
    assert extract(CLI_AND_IO).file_io == (
        FileIOFact(18, "read", "data/in.txt", "open"),
        FileIOFact(18, "write", "", "open"),
        FileIOFact(18, "readwrite", "log.txt", "open"),
        FileIOFact(20, "read", "data/table.csv", "pandas.read_csv"),
        FileIOFact(21, "write", "results/out.csv", "frame.to_csv"),
        # to_csv() without a path returns text: no file
        FileIOFact(23, "write", "arr.npy", "numpy.save"),
        FileIOFact(24, "write", "notes.md", "pathlib.Path().write_text"),
        FileIOFact(25, "read", "", "pathlib.Path().read_bytes"),
        FileIOFact(26, "write", "cfg.yaml", "pathlib.Path().open"),
    )


def test_write_paths_joined_of_literals_are_one_literal():
    source = (
        "import os\nimport os.path as op\nfrom pathlib import Path\nimport matplotlib.pyplot as plt\n"
        "plt.savefig(op.join('img', 'velhist.svg'), bbox_inches='tight')\n"
        "plt.savefig(os.path.join('img', 'sub', '/abs.svg'))\n"
        "fig.savefig(Path('out') / 'runs' / 'b.png')\n"
        "plt.savefig(op.join('img', 'x_{}.svg'.format(1)))\n"
        "frame.to_csv(path_or_buf=op.join('res', 't.csv'))\n"
        "open(op.join('data', 'in.txt'))\n"
    )
    assert extract(source).file_io == (
        FileIOFact(5, "write", "img/velhist.svg", "matplotlib.pyplot.savefig"),
        # an absolute part starts the path afresh, as os.path.join does
        FileIOFact(6, "write", "/abs.svg", "matplotlib.pyplot.savefig"),
        FileIOFact(7, "write", "out/runs/b.png", "fig.savefig"),
        # a computed part: no literal
        FileIOFact(8, "write", "", "matplotlib.pyplot.savefig"),
        FileIOFact(9, "write", "res/t.csv", "frame.to_csv"),
        # reads keep their plain literals only
        FileIOFact(10, "read", "", "open"),
    )


def test_frontend_version_names_the_interpreter_and_the_file_is_registered():
    facts = extract("x = 1\n")
    assert facts.frontend_version == f"1.2.18+py{PYTHON}"
    assert (facts.language, facts.frontend, facts.lines, facts.parse_error) == ("python", "python", 1, None)
    assert frontend_for("src/pkg/mod.py") is py and frontend_for("nb/Analysis.ipynb") is py


# --------------------------------------------------------------------------- parse errors


PYTHON2 = '''\
# -*- coding: utf-8 -*-
import os, sys as system
from foo.bar import (a, b)
print "see http://example.org/old"
class Old:
    def run(self):
        """Runs."""
        print 'x'
def _helper():
    pass
'''


def test_code_that_does_not_parse_still_gives_what_a_line_scan_reads():
    result = extract(PYTHON2)
    assert result.parse_error == "SyntaxError: Missing parentheses in call to 'print'. " \
        "Did you mean print(...)? (line 4)"
    assert result.imports == (
        ImportFact("os", 2, "none", "import", line_scan=True),
        ImportFact("sys", 2, "none", "import", line_scan=True, asnames=("system",)),
        ImportFact("foo.bar", 3, "none", "from", ("a", "b"), line_scan=True),
    )
    # docstrings read from the tokens (a string statement after a def/class header)
    assert result.comments == (CommentFact(1, 1, "# -*- coding: utf-8 -*-"), CommentFact(7, 7, '"""Runs."""', True))
    assert result.strings == (
        StringFact("see http://example.org/old", 4, 4, line_scan=True), StringFact("Runs.", 7, 7, line_scan=True),
        StringFact("x", 8, 8, line_scan=True))
    assert result.urls == (UrlFact("http://example.org/old", 4),)
    # the end lines read by indentation
    assert result.definitions == (
        DefinitionFact("Old", "class", 5, True, False, header="class Old:", end_line=8),
        DefinitionFact("run", "method", 6, True, True, end_line=8),
        DefinitionFact("_helper", "function", 9, False, False, end_line=10),
    )
    assert result.calls == ()


def test_a_quote_in_a_comment_opens_no_string():
    # D4's historical scan read ``# """`` as the start of a string (fixed in D4 3.0.0)
    facts = extract('# def f():\n#    """\n#    Doc.\n#    """\nx = 1\n')
    assert [(c.line_start, c.line_end) for c in facts.comments] == [(1, 4)]


def test_blank_lines_of_a_script_in_splitlines_numbering():
    assert extract("x = 1\n\n   \n\ty = 2\n\t\n").blank_lines == (2, 3, 5)
    assert extract("x = 1\r\n\r\ny = 2").blank_lines == (2,)
    assert extract("").blank_lines == ()
def test_calls_of_code_that_does_not_parse_are_read_by_line_patterns():
    source = ('import urllib2\nprint "fetching"\nresp = urllib2.urlopen("http://example.org/x.csv")\n'
              '# urllib2.urlopen("http://commented.org")\nif ok(x): save (resp, \'out.csv\')\ndef f(a): pass\n')
    assert [(c.name, c.line, c.args) for c in extract(source).calls] == [
        ("urllib2.urlopen", 3, ("http://example.org/x.csv",)), ("ok", 5, (Expr("x"),)),
        ("save", 5, (Expr("resp"), "out.csv"))]


@pytest.mark.parametrize(("data", "error"), [
    (b"def f(:\n    pass\n", "SyntaxError: invalid syntax (line 1)"),
    (b"if x:\npass\n", "IndentationError: expected an indented block after 'if' statement on line 1 (line 2)"),
    (b"x = 1\x00\n# kept\n", "source code string cannot contain null bytes"),
])
def test_parse_errors_are_facts(data, error):
    result = extract(data)
    # the NUL message is a ValueError or a SyntaxError depending on the Python release
    assert result.parse_error == error or result.parse_error.endswith(f"Error: {error}")
    assert result.lines == 2
    if b"\x00" in data:
        assert result.comments == (CommentFact(2, 2, "# kept"),)


def test_deeply_nested_files_do_not_crash():
    parens = extract("x = " + "(" * 3000 + "1" + ")" * 3000 + "\n# after\n")
    assert parens.parse_error == "SyntaxError: too many nested parentheses (line 1)"
    assert parens.comments == (CommentFact(2, 2, "# after"),)
    ifs = extract("".join(" " * i + "if x:\n" for i in range(3000)) + " " * 3000 + "pass\n")
    assert ifs.parse_error.startswith("IndentationError: too many levels of indentation")
    chain = extract("y = " + " + ".join(["'a'"] * 20000) + "\n")
    assert chain.parse_error.startswith(("RecursionError", "MemoryError", "SyntaxError"))
    assert len(chain.strings) == 20000


def test_a_tree_deeper_than_the_recursion_limit_is_walked(monkeypatch):
    # the walk and the helpers it calls never recurse: a tree that only parses under a
    # raised recursion limit is read under the normal one
    source = "x" + ".step()" * 3000 + "\ny = " + "-" * 3 + "1\n"
    monkeypatch.setattr(py, "parse_source", _parse_with_limit)
    result = extract(source)
    assert result.parse_error is None
    assert len(result.calls) == 3000
    assert result.calls[0].written == "x" + ".step()" * 2999 + ".step"


def _parse_with_limit(source: str):
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)
    try:
        return ast.parse(source)
    finally:
        sys.setrecursionlimit(limit)


def test_encodings_bom_line_ends_and_undecodable_bytes():
    latin = extract("# -*- coding: latin-1 -*-\ns = 'caf\xe9'\n".encode("latin-1"))
    assert latin.strings == (StringFact("café", 2, 2, "s"),)
    bom = extract(b"\xef\xbb\xbfs = 'a'\r\nt = '\xff'\r\nu = 'b'\r")
    assert bom.strings == (StringFact("a", 1, 1, "s"), StringFact("\ufffd", 2, 2, "t"), StringFact("b", 3, 3, "u"))


# --------------------------------------------------------------------------- notebooks


def notebook(*cells, nbformat: int = 4) -> bytes:
    return json.dumps({"nbformat": nbformat, "nbformat_minor": 5,
                       "metadata": {"kernelspec": {"language": "python"}}, "cells": list(cells)}).encode()


def code(source: str, count: int | None = None, outputs: list | None = None) -> dict:
    return {"cell_type": "code", "execution_count": count, "source": source, "outputs": outputs or [],
            "metadata": {}}


NOTEBOOK = notebook(
    {"cell_type": "markdown", "source": "# Title\nSee https://example.org", "metadata": {}},
    code("!pip install numpy\n%matplotlib inline\nimport numpy as np\n# seed it\nnp.random.seed(0)\n", 1,
         [{"output_type": "stream", "name": "stderr", "text": "w"}, {"output_type": "execute_result", "data": {}},
          {"output_type": "stream", "name": "stdout", "text": "a"}, {"output_type": "stream", "name": "stdout"}]),
    code("try:\n    x = np.random.rand(2)\nexcept Exception:\n    !echo failed\n", None),
    code("%%bash\necho hi\n", 3),
    code("print 'py2'\n", 4, [{"output_type": "error"}]),
    {"cell_type": "raw", "source": "raw", "metadata": {}},
)


def test_notebook_cells_and_facts_numbered_by_cell():
    result = extract(NOTEBOOK, "analysis/Fit.ipynb")
    assert result.cells == (
        # chars: a markdown cell's stripped text length (D4's explanatory cells)
        NotebookCellFact(1, "markdown", chars=31, newlines=1, line_count=2),
        NotebookCellFact(2, "code", 1, ("stream:stderr", "execute_result", "stream:stdout"),
                         ("!pip install numpy", "%matplotlib inline"), newlines=5, has_outputs=True, language="python",
                         line_count=5, commands=((1, "pip install numpy"),), magic_lines=(1, 2)),
        NotebookCellFact(3, "code", None, (), ("!echo failed",), newlines=4, language="python", line_count=4,
                         commands=((4, "echo failed"),), magic_lines=(4,)),
        # the shell commands of magics, with their lines in the cell (C2's inline installs);
        # the line of each magic (C1 reads magics as shell lines)
        NotebookCellFact(4, "code", 3, (), ("%%bash", "echo hi"), newlines=2, language="shell", line_count=2,
                         commands=((2, "echo hi"),), magic_lines=(1, 2)),
        NotebookCellFact(5, "code", 4, ("error",), newlines=1, has_outputs=True, language="python", line_count=1),
        NotebookCellFact(6, "raw", line_count=1),
    )
    # magics are masked: the cell parses, and lines count within the cell
    assert result.imports == (ImportFact("numpy", 3, cell=2, asnames=("np",)),)
    assert result.comments == (CommentFact(4, 4, "# seed it", cell=2),)
    # aliases carry from cell to cell, as the kernel's namespace does
    assert [(c.name, c.line, c.cell) for c in result.calls] == [("numpy.random.seed", 5, 2),
                                                                ("numpy.random.rand", 2, 3)]
    assert result.randoms == (RandomFact(5, "numpy.random.seed", "numpy.random", "seed", True, "literal", 2),
                              RandomFact(2, "numpy.random.rand", "numpy.random", "draw", cell=3))
    # a shell escape masked into ``pass`` does something: the handler is not silent
    assert result.handlers == (HandlerFact(3, "Exception", "other", 3),)
    # the first cell that does not parse is named; its strings are still read
    assert result.parse_error == "cell 5: SyntaxError: Missing parentheses in call to 'print'. " \
        "Did you mean print(...)? (line 1)"
    assert result.strings == (StringFact("py2", 1, 1, cell=5, line_scan=True),)
    # markdown is no code: its URL is not a code URL
    assert result.urls == ()
    assert result.lines == 5 + 4 + 2 + 1


def test_notebook_format_3_and_broken_notebooks():
    old = json.dumps({"nbformat": 3, "worksheets": [{"cells": [
        {"cell_type": "heading", "source": "Title", "level": 1},
        {"cell_type": "code", "input": "import os\n", "prompt_number": 2,
         "outputs": [{"output_type": "pyout"}, {"output_type": "stream", "stream": "stdout"}]},
    ]}]}).encode()
    result = extract(old, "old.ipynb")
    assert result.cells == (NotebookCellFact(1, "markdown", chars=5, line_count=1),
                            NotebookCellFact(2, "code", 2, ("execute_result", "stream:stdout"), newlines=1,
                                             has_outputs=True, language="python", line_count=1))
    assert result.imports == (ImportFact("os", 1, cell=2),)
    broken = extract(b"{not json", "broken.ipynb")
    assert broken.parse_error == "NotebookError: invalid JSON: Expecting property name enclosed in double quotes " \
        "at line 1"
    assert broken.cells == () and broken.lines == 0


def test_notebook_cell_outputs_tags_language_and_line_count():
    cells = extract(notebook(
        {"cell_type": "code", "execution_count": 1, "source": ["alpha = 1\n", "beta = 2"],
         "outputs": [{"no_type": 1}], "metadata": {"tags": ["parameters", 3, "x"]}},
        {"cell_type": "code", "execution_count": None, "source": "%%R\nx <- 1\n", "outputs": [],
         "metadata": {"tags": "not-a-list"}},
        {"cell_type": "code", "source": "", "outputs": [], "metadata": {}},
    ), "p.ipynb").cells
    # an output without a type is still a stored output; only string tags are kept
    assert cells == (
        NotebookCellFact(1, "code", 1, (), (), newlines=1, has_outputs=True, tags=("parameters", "x"),
                         language="python", line_count=2),
        # a cell in another language keeps its lines (the cell magic's included)
        NotebookCellFact(2, "code", None, (), ("%%R",), newlines=2, language="r", line_count=2,
                         code_lines=((1, "%%R"), (2, "x <- 1")), magic_lines=(1,)),
        NotebookCellFact(3, "code", language="python"),
    )
    assert cells[2].to_dict() == {"index": 3, "kind": "code", "execution_count": None, "output_kinds": [],
                                  "magics": [], "language": "python"}


def test_ipython_files_have_their_magics_masked():
    result = extract("!pip install pandas\nimport pandas as pd\n%time frame = pd.read_csv('a.csv')\n", "run.ipy")
    assert result.parse_error is None
    assert result.imports == (ImportFact("pandas", 2, asnames=("pd",)),)


# --------------------------------------------------------------------------- redaction


GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

SECRETS = f'''\
"""Deploy with {GITHUB_TOKEN}."""
TOKEN = "{GITHUB_TOKEN}"
MIRROR = "https://alice:hunter22@data.example.org/set.zip"
db = connect(password="hunter22", url=f"https://bob:{{pw}}@db.example.org")
config = {{"api_key": "k3y-v4lue-1234"}}
# old token: {GITHUB_TOKEN}
# -----BEGIN RSA PRIVATE KEY-----
# MIIEowIBAAKCAQEA7bq98
# -----END RSA PRIVATE KEY-----
requests.get("https://carol:s3cret99@api.example.org", headers={{"Authorization": "Bearer {GITHUB_TOKEN}"}})
'''


@pytest.mark.parametrize("path", ["deploy.py", "deploy.ipynb"])
def test_facts_never_carry_a_secret(path):
    data = SECRETS.encode() if path.endswith(".py") else notebook(
        code(SECRETS), code(f"!curl -u alice:hunter22 https://x.org/{GITHUB_TOKEN}\n"),
        code(f"%%R\ntoken <- '{GITHUB_TOKEN}'\n"))
    result = extract(data, path)
    text = result.to_json()
    for secret in (GITHUB_TOKEN, "hunter22", "k3y-v4lue-1234", "s3cret99", "MIIEowIBAAKCAQEA7bq98"):
        assert secret not in text
    cell = None if path.endswith(".py") else 1
    assert AssignmentFact("TOKEN", 2, "ghp_…(40 chars)", cell) in result.assignments
    assert AssignmentFact("password", 4, "hunt…(8 chars)", cell) in result.assignments
    assert UrlFact("https://alice:hunt…(8 chars)@data.example.org/set.zip", 3, cell) in result.urls
    # the pass a frontend ends with left nothing to redact
    assert _common.redact_facts(result) == result


# --------------------------------------------------------------------------- the one walk


SOURCE = Path(py.__file__).read_text()


def test_the_frontend_never_walks_a_tree_a_second_time():
    code_only = re.sub(r"``[^`]*``", "", SOURCE)     # mentions in the docstrings are no calls
    for helper in ("ast.walk", "iter_child_nodes", "NodeVisitor", "NodeTransformer", "get_source_segment",
                   "ast.unparse", "get_docstring", "generate_tokens", "ast.parse("):
        assert helper not in code_only, helper


def test_each_node_is_popped_once(monkeypatch):
    visited: list = []
    original = py._Walker.dispatch_table

    def recording(self):
        table = original(self)

        def record(handler):
            def visit(node):
                visited.append(node)
                return handler(node) if handler is not None else False
            return visit

        node_types = {cls for cls in _ast_types()}
        return {**{kind: record(table.get(kind)) for kind in node_types},
                **{kind: table[kind] for kind in (py._Frame, py._Exit, type(None))}}

    trees: list = []
    parse = py.parse_source
    monkeypatch.setattr(py._Walker, "dispatch_table", recording)
    monkeypatch.setattr(py, "parse_source", lambda source: trees.append(parse(source)) or trees[-1])
    sources = [IMPORTS, CALLS, STRINGS, DEFINITIONS, HANDLERS, RANDOMS, CLI_AND_IO]
    for source in sources:
        visited.clear()
        py.extract(source.encode(), "a.py")
        assert len({id(node) for node in visited}) == len(visited)
        tree = trees[-1]
        seen = {id(node) for node in visited}
        # every statement, call and string literal carries facts: each is visited
        carriers = [n for n in ast.walk(tree) if isinstance(n, ast.stmt | ast.Call)
                    or (isinstance(n, ast.Constant) and isinstance(n.value, str) and not _in_fstring(tree, n))]
        assert all(id(n) in seen for n in carriers)
        # expression contexts and operators are never pushed
        assert not any(isinstance(n, ast.expr_context | ast.operator | ast.cmpop) for n in visited)


def _ast_types():
    stack = [ast.AST]
    while stack:
        cls = stack.pop()
        yield cls
        stack.extend(cls.__subclasses__())


def _in_fstring(tree, node) -> bool:
    return any(isinstance(f, ast.JoinedStr) and any(v is node for v in ast.walk(f)) for f in ast.walk(tree))


def test_the_python_frontend_is_in_the_shared_registry_and_test_of_frontends():
    assert frontend_for("a.pyw") is py and frontend_for("b.ipy") is py


def test_code_that_does_not_parse_gives_its_except_lines_read_by_indentation():
    source = 'print "py2"\ntry:\n    go()\nexcept Exception, e:\n    pass  # ignore\nexcept: continue\n' \
             'except KeyError:\n    log(e)\n'
    assert extract(source).handlers == (
        HandlerFact(4, "Exception, e", "pass", None, 5, "empty", "except Exception, e: pass  # ignore"),
        HandlerFact(6, "...", "continue", None, 6, "empty", "except: continue"),
        HandlerFact(7, "KeyError", "other"),
    )


def _notebook_json(cells, language="python"):
    return json.dumps({
        "nbformat": 4, "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": language, "language": language}},
        "cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": s}
                  for s in cells],
    })


def test_r_cells_of_a_notebook_give_the_handlers_that_swallow_errors():
    notebook = _notebook_json(["x = 1\n", "%%R\nres <- try(f(), silent = TRUE)\ntry(g(), silent = TRUE)\n"])
    assert extract(notebook, "nb.ipynb").handlers == (
        HandlerFact(3, "error", "pass", 2, 3, "silent", "try(g(), silent = TRUE)"),
    )
    r_kernel = _notebook_json(["tryCatch(\n  f(),\n  error = function(e) NULL\n)\n"], "R")
    assert extract(r_kernel, "nb.ipynb").handlers == (
        HandlerFact(3, "error", "pass", 1, 4, "null_handler", "tryCatch( f(), error = function(e) NULL", 1),
    )


def test_an_invalid_notebook_is_read_from_the_source_lines_of_its_json():
    text = '{\n "cells": [\n  {"source": [\n   "try:\\n",\n   "    go()\\n",\n   "except:\\n",\n   "    pass\\n"\n'
    result = extract(text, "broken.ipynb")
    assert result.parse_error.startswith("NotebookError: ")
    assert result.handlers == (HandlerFact(6, "...", "pass", None, 7, "empty", "except: pass"),)
    assert [(c.name, c.line) for c in result.calls] == [("go", 5)]
def test_call_urls_resolved_through_names_templates_and_joins_and_commands():
    source = '''import os, subprocess, requests
from urllib.parse import urljoin
from urllib.request import urlretrieve as fetch
BASE = "https://zenodo.org/records/1"
fetch(BASE + "/files/a.csv", "a.csv")
requests.get(url="https://x.org/{}".format(k), timeout=3)
requests.get(f"https://x.org/{name}/b.csv")
requests.get(urljoin(BASE, "c.csv"))
requests.get("https://x.org/%s.csv" % name)
requests.get(LATER)
subprocess.run(["wget", "-q", BASE, f"{BASE}/d.csv", out])
os.system("curl -O https://x.org/y.csv")
subprocess.check_call(args=f"curl {BASE}")
LATER = f"ftp://ftp.x.org/{name}"
'''
    calls = extract(source).calls
    assert [(c.line, c.urls, c.command) for c in calls] == [
        (5, (("0", "https://zenodo.org/records/1/files/a.csv"),), ""),
        (6, (("url", "https://x.org/{}"),), ""),      # a str's .format is no dotted call of its own
        (7, (("0", "https://x.org/{}/b.csv"),), ""),
        (8, (("0", "https://zenodo.org/records/1"),), ""),
        (8, (("0", "https://zenodo.org/records/1"),), ""),   # urljoin's own argument
        (9, (("0", "https://x.org/%s.csv"),), ""),
        (10, (("0", "ftp://ftp.x.org/{}"),), ""),        # a name bound later in the unit
        (11, (), "wget -q https://zenodo.org/records/1 ARG ARG"),
        (12, (), "curl -O https://x.org/y.csv"),        # a command line is no URL
        (13, (), "curl ARG"),
    ]


# --------------------------------------------------------------------------- class bases and asserts (S3)


def test_class_bases_as_written_and_assert_statements():
    result = extract(
        "import unittest as ut\n"
        "class TestA(ut.TestCase, Mixin):\n"
        "    def test_x(self):\n"
        "        assert 1 == 1, 'msg'\n"
        "class B(make().Base, object, metaclass=M):\n"
        "    pass\n"
        "def f():\n"
        "    assert (x := 2)\n"
    )
    assert [(d.name, d.kind, d.line, d.written_bases) for d in result.definitions] == [
        ("TestA", "class", 2, ("ut.TestCase", "Mixin")), ("test_x", "method", 3, ()),
        ("B", "class", 5, ("object",)), ("f", "function", 7, ())]
    assert result.asserts == (AssertFact(4), AssertFact(8))
    assert result.definitions[2].to_dict()["written_bases"] == ["object"]
    assert result.definitions[2].bases == ("make().Base", "object")   # resolved, calls kept
    assert "written_bases" not in result.definitions[1].to_dict()


def test_class_bases_and_asserts_of_code_that_does_not_parse():
    result = extract("class TestOld(unittest.TestCase ):\n    def test_a(self):\n        print 'x'\n"
                     "        assert x\n  assertion = 1\nclass Plain:\n    pass\n")
    assert result.parse_error is not None
    assert [(d.name, d.written_bases) for d in result.definitions] == [("TestOld", ("unittest.TestCase",)),
                                                              ("test_a", ()), ("Plain", ())]
    assert result.asserts == (AssertFact(4),)


def test_notebook_asserts_carry_their_cell():
    result = extract(notebook(code("x = 1\n"), code("\nassert x == 1\n")), "tests/check.ipynb")
    assert result.asserts == (AssertFact(2, cell=2),)


def test_argv_reads_tell_subscripts():
    result = extract("import sys\nfrom sys import argv\nn = len(sys.argv)\nx = sys.argv[1]\ny = argv[2:]\n")
    assert [(c.line, c.subscript) for c in result.cli_args if c.kind == "sys.argv"] == [
        (3, False), (4, True), (5, True)]
    old = extract("import sys\nprint 'x'  # sys.argv[0]\nx = sys.argv [1]\ns = '#'; y = sys.argv[2] # c\n")
    assert [(c.line, c.subscript) for c in old.cli_args] == [(3, True), (4, True)]


# --------------------------------------------------------------------------- S1: what import runs, aliases, embedded cells


def test_import_asnames_definition_end_lines_and_the_blocks_import_does_not_run():
    result = extract('import numpy as np, os.path\nfrom a.b import c as d, e\nfrom x import *\n\n'
                     '@dec\ndef f(x):\n    return x\n\n\nclass K:\n    def m(self):\n        pass\n\n'
                     'g = lambda v: (v,\n              1)\n'
                     'if __name__ == "__main__":\n    f(1)\nif "__main__" == __name__:\n    pass\n'
                     'if __name__ != "__main__":\n    pass\n'
                     'try:\n    if __name__ == "__main__":\n        pass\nexcept ImportError:\n    pass\n')
    assert [(i.module, i.names, i.asnames) for i in result.imports] == [
        ("numpy", (), ("np",)), ("os.path", (), ()), ("a.b", ("c", "e"), ("d", "")), ("x", ("*",), ())]
    assert result.imports[1].to_dict().get("asnames") is None
    assert [(d.name, d.line, d.end_line) for d in result.definitions] == [("f", 6, 7), ("K", 10, 12), ("m", 11, 12)]
    # module-level __main__ blocks, either way round (not !=, not nested); every lambda
    assert [(b.label, b.line, b.end_line) for b in result.blocks] == [
        ("lambda", 14, 15), ("__main__", 16, 17), ("__main__", 18, 19)]
    cells = extract(notebook(code("f = lambda: 1\n"), code("h = [lambda: 2]\n")), "n.ipynb")
    assert [(b.label, b.line, b.cell) for b in cells.blocks] == [("lambda", 1, 1), ("lambda", 1, 2)]


def test_the_line_scan_of_code_that_does_not_parse_reads_arguments_asnames_and_blocks():
    result = extract("import numpy as np, random\nfrom sklearn.cluster import KMeans as KM, DBSCAN\n"
                     "from numpy.random import *\nprint 'x'\n"
                     "np.random.seed(1)  # np.random.seed(2)\n"
                     "km = KM(n_clusters=3, random_state=None, **kw)\n"
                     "f('a, b', *rest, x=1.5, y=-2, z=True, w=g(1, 2))\n"
                     "def seed_all(s,\n        t):\n    '''Doc.\nat column 0\n'''\n\n    random.seed(s)\n"
                     "x = 1\n"
                     "if __name__ == '__main__':\n    seed_all(1)\n\n# end\n")
    assert result.parse_error is not None
    assert [(i.module, i.names, i.asnames) for i in result.imports] == [
        ("numpy", (), ("np",)), ("random", (), ()), ("sklearn.cluster", ("KMeans", "DBSCAN"), ("KM", "")),
        ("numpy.random", ("*",), ())]
    assert [(c.written, c.line, c.args, c.kwargs) for c in result.calls] == [
        ("np.random.seed", 5, (1,), ()),
        ("KM", 6, (), (("n_clusters", 3), ("random_state", None), ("**", Expr("kw")))),
        ("f", 7, ("a, b", Expr("*rest")), (("x", 1.5), ("y", -2), ("z", True), ("w", Expr("g(1, 2)")))),
        ("g", 7, (1, 2), ()),
        ("random.seed", 14, (Expr("s"),), ()),
        ("seed_all", 17, (1,), ()),
    ]
    assert [(d.name, d.line, d.end_line) for d in result.definitions] == [("seed_all", 8, 14)]
    assert [(b.label, b.line, b.end_line) for b in result.blocks] == [("__main__", 16, 17)]


def test_r_and_julia_cells_of_a_notebook_are_embedded_with_their_cells():
    result = extract(_notebook_json(["import numpy as np\n", "%%R\nset.seed(1)\nx <- rnorm(3)\n",
                                     "np.random.rand()\n"]), "nb.ipynb")
    assert [(c.name, c.line, c.cell) for c in result.calls] == [("numpy.random.rand", 1, 3)]
    (r_cells,) = result.embedded
    assert (r_cells.language, r_cells.frontend, r_cells.parse_error) == ("r", "r", None)
    assert [(c.name, c.line, c.cell) for c in r_cells.calls] == [("set.seed", 2, 2), ("rnorm", 3, 2)]
    assert FileFacts.from_json(result.to_json()) == result
    r_kernel = extract(_notebook_json(["set.seed(2)\n", "x <- sample(10)\nif (\n"], "R"), "r.ipynb")
    assert [(c.name, c.line, c.cell) for c in r_kernel.embedded[0].calls] == [("set.seed", 1, 1), ("sample", 1, 2)]
    assert r_kernel.embedded[0].parse_error.startswith("cell 2: ")
    julia = extract(_notebook_json(["using Random\nRandom.seed!(3)\nrand(3)\n"], "julia"), "j.ipynb")
    assert [(p.language, [(c.written, c.line, c.cell) for c in p.calls]) for p in julia.embedded] == [
        ("julia", [("Random.seed!", 2, 1), ("rand", 3, 1)])]
    assert extract(_notebook_json(["x = 1\n"]), "p.ipynb").embedded == ()
    assert "embedded" not in extract(_notebook_json(["x = 1\n"]), "p.ipynb").to_dict()


def test_r_line_magics_of_python_cells_are_embedded_as_r():
    result = extract(_notebook_json(["%load_ext rpy2.ipython\nimport numpy as np\n%R set.seed(1)\n",
                                     "%R -i df -o out x <- sample(df$id, 3)\ny = 2\n", "%%R\nz <- rnorm(2)\n"]),
                     "nb.ipynb")
    (r_parts,) = result.embedded
    assert [(c.name, c.line, c.cell) for c in r_parts.calls] == [("set.seed", 3, 1), ("sample", 1, 2), ("rnorm", 2, 3)]
    # the R of a line magic is read by S1 only: not among the notebook's own imports
    assert [i.module for i in result.imports] == ["numpy"]


def test_the_embedded_facts_of_r_cells_are_redacted():
    result = extract(_notebook_json(["x = 1\n", f'%%R\ntoken <- "{GITHUB_TOKEN}"\n']), "nb.ipynb")
    (r_cells,) = result.embedded
    assert GITHUB_TOKEN not in result.to_json()
    assert [s.line_start for s in r_cells.strings] == [2]
    from scoring.facts_cache import facts_secret_free
    assert facts_secret_free(result)


def test_a_seed_under_a_test_its_option_default_fails_is_guarded():
    source = '''import argparse
import torch
parser = argparse.ArgumentParser()
parser.add_argument("--seed", default=0, type=int)
parser.add_argument("--init-seed", type=int)
parser.add_argument("--other", default=3, type=int)
args = parser.parse_args()
if args.seed != 0:
    torch.manual_seed(args.seed)
if args.init_seed:
    torch.manual_seed(args.init_seed)
if args.other > 0:
    torch.manual_seed(args.other)
if args.seed != 0:
    pass
else:
    torch.manual_seed(args.seed)
'''
    assert [(r.line, r.seeded, r.seed_source) for r in extract(source).randoms] == [
        (9, False, "guarded"), (11, False, "guarded"), (13, True, "argument"), (17, True, "argument")]


def test_star_imports_bind_the_known_readers_and_writers_of_their_module():
    source = ("from numpy import *\nfrom h5py import *\ndata = genfromtxt('temps.dat')\nsavetxt('out.txt', data)\n"
              "x = rand(3)\nf = File('a.h5')\ndef loadtxt(path):\n    return path\nloadtxt('mine.txt')\n"
              "from .local import *\nread_csv('t.csv')\n")
    result = extract(source)
    # rand is no reader or writer: left as written; the file's own loadtxt hides numpy's
    assert [(c.name, c.line) for c in result.calls] == [
        ("numpy.genfromtxt", 3), ("numpy.savetxt", 4), ("rand", 5), ("h5py.File", 6), ("loadtxt", 9),
        ("read_csv", 11),
    ]
    assert [(f.line, f.mode, f.path, f.call) for f in result.file_io] == [
        (3, "read", "temps.dat", "numpy.genfromtxt"), (4, "write", "out.txt", "numpy.savetxt"),
        (6, "read", "a.h5", "h5py.File"),
    ]


def test_pylab_magic_binds_numpy_and_pyplot_names_from_its_cell_on():
    result = extract(notebook(code("loadtxt('before.txt')\n", 1), code("%pylab inline\nx = loadtxt('t.txt')\n", 2),
                              code("savefig('fig.png')\n", 3)), "Lecture.ipynb")
    assert [(c.name, c.cell) for c in result.calls] == [
        ("loadtxt", 1), ("numpy.loadtxt", 2), ("matplotlib.pyplot.savefig", 3)]
