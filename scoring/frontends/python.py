"""Python frontend: ``.py``, ``.pyw``, ``.ipy`` and the code cells of ``.ipynb`` notebooks.

Python has no grammar to pin: the file is parsed once with the interpreter's own ``ast``
(``scoring.parsers.python.parse_source``, warnings silenced) and the tree is walked once,
so ``frontend_version`` is this module's ``VERSION`` plus the interpreter's minor version
(``1.0.0+py3.11``): a new Python may parse the same bytes into a different tree.

**One walk.** ``_Walker.walk`` pops nodes from one explicit stack in document order and
dispatches on ``type(node)``; no recursion, so a deeply nested file cannot exhaust the
C stack, and no ``ast.walk`` per fact kind. Expression contexts and operators (a third
of CPython's nodes, shared singletons) are never pushed. What a fact needs from above
a node comes from the *frame* of the statement it sits in (import guard, scope, the
handlers open around it): frames are pushed onto the node stack in front of the bodies
they govern and popped behind them, so the walk keeps its ancestors that matter on a
second stack without recording every node's parents. What a node needs from its parent
(the name a literal is bound to, being a docstring) is settled when the parent is
visited, before its children are.

**Comments** come from one regular-expression scan of the text (code and whole string
literals are skipped up to each ``#``), the technique D4 already uses: the same comments
as ``tokenize`` at a fraction of its cost (on CPython 3.11 ``tokenize`` takes about 2.3x
``ast.parse``, which would triple the frontend's time). Consecutive whole-line comments
are one ``CommentFact`` block; a comment after code is a block of its own. Docstrings
are reported twice, as ``StringFact(docstring=True)`` and as ``CommentFact(doc=True)``,
as the Julia frontend does, so comment spans cover every explanatory line.

**Decisions** (the tests pin each one):

* Imports: ``import a.b`` gives ``ImportFact("a.b", kind="import")`` per name; ``from x
  import a, b`` one ``ImportFact("x", kind="from", names=("a", "b"))``, a relative import
  keeping its dots (``".utils"``, ``"."``); ``asnames`` the local names where the
  import renames (``import numpy as np``: ``("np",)``; ``from x import a as b, c``:
  ``("b", "")``); ``__import__("m")`` and
  ``importlib.import_module("m")`` with a literal name are ``kind="dynamic"``. Guards:
  ``try`` in the body of a try whose handlers catch ``ImportError``,
  ``ModuleNotFoundError``, ``Exception``, ``BaseException`` or everything; ``except`` in
  such a handler (the fallback import, METRICS §0.1.21 counts both as optional);
  ``type_checking`` in the body of ``if TYPE_CHECKING:`` / ``if typing.TYPE_CHECKING:``;
  ``conditional`` under any other ``if`` (an ``else`` of ``TYPE_CHECKING`` included), except
  ``if __name__ == "__main__":``, which guards nothing. The innermost try, except or
  type_checking guard wins over ``conditional``. A function body starts afresh (``none``):
  the function runs later, outside the try or if that holds its definition; there is no
  separate kind for function-level imports. ``import_try`` is C2's older reading, kept
  apart from the guard: anywhere in the body of a try that catches import errors, a
  function, class, handler or TYPE_CHECKING block in between included (markers pushed
  around the try's body count the bodies open, whatever frames open inside).
* ``**name`` arguments (S1): a name bound before the call, in the same scope (a function,
  lambda or class body; the module, whose bindings carry from cell to cell in a
  notebook; a name the scope does not bind is read in the enclosing function or module
  as bound so far), only to dicts written out (``{"a": 1}``, ``dict(a=1)``, ``{**d}`` of such a
  name, conditional expressions of them) passes their keys, plus those added by
  ``name[k] = …``, ``name.update(…)``, ``name.setdefault(k, …)``; bound twice (the
  branches of an ``if``) it may pass either's. A parameter, or a name bound to anything
  else (a call's result, a loop target) at any point, passes what cannot be seen:
  ``spread_known`` is then False.
* Calls: every call whose callee is a dotted name (``a.b.c``, or a chain through calls,
  ``np.random.default_rng(0).normal``) is a ``CallFact``; ``name`` resolves the head
  through the import aliases met so far (``np.random.seed`` -> ``numpy.random.seed``,
  ``from os import path as p; p.join`` -> ``os.path.join``). Calls of subscripts or other
  expressions (``handlers[0]()``) have no name and give no ``CallFact``. Argument values
  are literals or ``Expr`` with the source text (80 characters).
* Strings: every ``str`` literal; an f-string is one ``StringFact`` whose value is its
  literal text with ``{…}`` for each replacement field (``f"/data/{name}.csv"`` ->
  ``"/data/{…}.csv"``): the shape of a path stays, code never becomes a value. Format specs
  are not strings. ``binding`` is the name a literal is directly bound to: assignment and
  annotated-assignment targets as written (``token``, ``self.token``, ``cfg["key"]``),
  dict keys, keyword arguments, parameter defaults, the variable of ``os.environ.setdefault``
  / ``putenv``. ``AssignmentFact`` records the same bindings for plain string literals.
* Definitions: functions, methods (a def in a class body) and classes, nested ones too;
  async functions are functions. ``public`` is D6's reading, so that D6 can read it off
  the facts unchanged: a name without a leading underscore defined at module level
  (also inside module-level if/try/with blocks), or a method directly in the body of
  such a public class. Dunder names (``__init__``) are not public: D6 leaves them out,
  as interrogate does with ``--ignore-magic`` (pydocstyle reports them under codes of
  their own, D105/D107). Nested functions and classes, and definitions under loops or
  under an ``if`` in a class body, are never public.
  ``documented`` means a non-blank docstring; ``decorators`` are dotted names with
  aliases resolved (a call decorator by its callee: ``@click.option(...)`` ->
  ``click.option``); ``end_line`` the last line of the body.
* Blocks (what import does not run, besides function bodies): a ``BlockFact("__main__")``
  for each ``if __name__ == "__main__":`` (either way round; ``!=`` is no such block)
  among the module's own statements, a ``BlockFact("lambda")`` for each lambda, with
  their last line.
* Handlers: ``caught`` is ``"..."`` for a bare ``except``, else the caught names as
  written, joined by ``", "``. ``action`` follows ``HANDLER_ACTIONS`` as the other
  frontends decide it: ``reraise`` (a ``raise``, ``sys.exit`` anywhere in the body) before
  ``log`` (``print``, ``logging``/``logger``/``log`` methods, ``warnings.warn``,
  ``traceback.print_exc``…) before ``return`` before ``continue``; otherwise ``pass`` when
  every statement of the body does nothing (``pass``, ``...``, a bare string; not the
  ``pass`` a notebook magic was masked into), else ``other``. A function defined inside a
  handler is not part of what the handler does.
* Randoms: ``SEEDS``, ``ENGINES`` and the draws of ``random``, ``numpy.random``, ``torch``
  and ``tensorflow.random``; a seed call without a seed (``random.seed()``) re-seeds from
  the system: ``entropy``; a seed expression mentioning the clock is ``time``. A draw from
  an engine variable (``rng = np.random.default_rng(0)``; ``rng.normal()``) names the
  variable as generator, as ``generator=g`` of a torch draw does.
* CLI: ``argparse``/``optparse`` parsers and each ``add_argument``/``add_option`` (named by
  its long option, else its first name), ``sys.argv`` reads, ``click`` options and
  arguments, ``typer.Option``/``Argument``, ``fire.Fire``, ``getopt``, ``docopt``, ``hydra.main``.
* File I/O: ``open`` and its kin (mode from the mode argument: ``r`` read, ``w``/``a``/``x``
  write, ``+`` readwrite, computed unknown), ``pandas``/``polars`` readers, writer methods
  on any object (``.to_csv(path)``, ``.savefig``; ``to_csv()`` without a path writes no
  file), numpy, torch, joblib, scipy.io, xarray, image and neuroimaging loaders, and
  ``Path("literal").read_text()``-style methods. After a star import (``from numpy
  import *``; ``%pylab`` gives numpy's and pyplot's names) a bare name the file does not
  define resolves to that module's reader or writer of the name (``genfromtxt``). A
  write call's path joined of literals only (``os.path.join("img", "fig.svg")``,
  ``Path("out") / "t.csv"``) is one literal. ``json.load``/``pickle.load`` read from a
  file object, whose ``open`` is the fact.
* Redaction: every text value passes through ``_common.redact_facts`` (the evidence
  snippet redaction) before the facts are returned.

**Decoding**: a BOM or a PEP 263 coding cookie chooses the codec (``tokenize.detect_
encoding``), UTF-8 otherwise; undecodable bytes become U+FFFD (``errors="replace"``):
facts are text, and a replacement character inside a literal does not stop the parse.

**Parse errors** (Python 2 code, NUL bytes, nesting beyond the parser's limits) are a
fact, never an exception: ``parse_error`` is ``"SyntaxError: invalid syntax (line 3)"``
(or ``ValueError: …``, ``RecursionError``, ``MemoryError``), and what a line scan can still
read is reported: comments, string literals and their URLs, import lines (renames and
star imports too), def/class lines (public and documented as D6's fallback reads them,
the end line by indentation), module-level ``if __name__ == "__main__":`` blocks by
indentation, and calls with the arguments written on their line (comments left out).

**Notebooks**: ``scoring.parsers.notebook`` reads the JSON, the cells and their magics
(line magics and shell escapes masked into ``pass``, non-Python cell magics dropped,
METRICS §0.1.11). Each cell is a ``NotebookCellFact``; each Python code cell is parsed
and walked on its own, its facts carrying ``cell`` (1-based among all cells) and lines
within the cell, the numbering evidence uses. Import aliases carry from cell to cell, as
the kernel's namespace does. ``parse_error`` names the first cell that does not parse
(``"cell 3: SyntaxError: …"``); the other cells are still read. ``lines`` counts the
lines of the code cells (the JSON's own lines mean nothing to a detector). A cell's
``commands`` are the shell commands its magics run (C2's inline installs); a cell in
another language keeps its non-blank lines as ``code_lines`` (A2, A4). R and Julia
cells (an R or Julia kernel, ``%%R``) are read by the R and Julia frontends, the ``%%R``
line blanked, into ``FileFacts.embedded``: one ``FileFacts`` per language whose facts
carry their cell, lines counted within the cell. Their imports and installs (C2) and, for
R, the handlers that swallow errors (C4) are also among the notebook's own facts.

**R Markdown**: the R frontend hands the evaluated Python chunks of a document to
``extract_chunks``: each chunk parsed and walked on its own, with the document's lines.
"""

from __future__ import annotations

import ast
import codecs
import gc
import re
import shlex
import sys
import tokenize
from dataclasses import fields, replace
from io import BytesIO
from itertools import accumulate

from scoring.facts import (
    EXPR_TEXT_LIMIT,
    AssertFact,
    AssignmentFact,
    BlockFact,
    CallFact,
    CliArgFact,
    CommentFact,
    DefinitionFact,
    Expr,
    FileFacts,
    FileIOFact,
    HandlerFact,
    ImportFact,
    InstallFact,
    NotebookCellFact,
    RandomFact,
    StringFact,
    UrlFact,
)
from scoring.frontends._common import (
    URL_PATTERN,
    blank_line_numbers,
    count_lines,
    redact_facts,
    redact_text,
)
from scoring.frontends._credentials import Credentials, mask_secrets
from scoring.parsers.notebook import (
    Cell,
    NotebookError,
    notebook_fallback_source,
    other_language_lines,
    parse_notebook,
    shell_commands,
    split_magics,
)
from scoring.parsers.python import parse_source
from scoring.parsers.textfile import strip_hash_comment, strip_unquoted_comment

LANGUAGE = "python"
VERSION = "1.2.18"   # 1.1.0: the facts the detectors aggregate (issue 15): definition headers, decorator lines, bases, handlers that swallow, call URLs and commands, asserts, argv subscripts, cell details, blank lines; 1.1.1: ImportFact.import_try and line_scan, NotebookCellFact.commands, the imports and installs of R and Julia cells; 1.2.0 (S1): import asnames, definition end lines, __main__ and lambda blocks, the arguments of calls of code that does not parse (comments left out), star imports and definition ends read by the line scan, the facts of R and Julia cells (FileFacts.embedded: notebooks embed the R and Julia frontends' facts, so bump this with theirs); 1.2.1: with main's 1.1.2-1.1.3 (NotebookCellFact.code_lines, StringFact.line_scan, magic_lines); 1.2.2: hash_scan_comments gone (D4 3.0.0 reads the comment blocks); 1.2.3 (S1): DefinitionFact.parameters and none_defaults, a generator built as a statement has seed source "discarded"; with r 1.1.2 (seed arguments in R cells); 1.2.4: with julia 1.0.6 (generators of Julia cells); 1.2.5 (S1): CallFact.spread_keys and spread_known, the keywords a ``**name`` argument can be seen to pass (a name bound in its scope only to dicts written out); 1.2.6: with r 1.1.5 and julia 1.0.7 (end lines of the definitions of R and Julia cells); 1.2.7 (S1): the R of %R line magics in Python cells embedded with the R cells (§0.2.24); 1.2.8: with main's credential facts (FileFacts.credentials, read as the file is walked); 1.2.9: with the credential facts of every language and each found secret masked in all of a file's facts (C3 2.2.0); 1.2.10: with r 1.1.9 and julia 1.1.2 (R and Julia cells); 1.2.11: with r 1.1.10 and julia 1.2.1 (R and Julia cells); 1.2.12: with r 1.1.11 (R cells: function formals, set.seed seed expressions); 1.2.13: with r 1.2.1 and julia 1.3.0 (R and Julia cells: definition inputs); 1.2.14: with r 1.2.2 and julia 1.3.1 (Julia cells: docstrings above const bindings and bare names); 1.2.15: both 1.2.14 lines, the second being (S1, §0.2.25): a seed call under an ``if`` its own default fails (``if args.seed != 0:`` with ``--seed`` defaulting to 0, ``if args.seed:`` with no default) has seed source "guarded", not seeded; 1.2.16: with julia 1.3.2 (Julia cells: chunked re-parse of a file the grammar loses); 1.2.17: with r 1.2.4 (R chunks of notebooks: the "probe" guard) and julia 1.3.2; 1.2.18: with the other 1.2.16/1.2.17 line: (S4) a write call's path joined of string literals (os.path.join, pathlib's /) is one path literal; (A1-A4) a bare name a star import (``from numpy import *``, ``%pylab``) binds resolves to the module's reader or writer of that name (``genfromtxt`` -> numpy.genfromtxt)

PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)


def frontend_version(own_version: str = VERSION) -> str:
    """The frontend's version plus the interpreter's: ``ast`` output changes with Python."""
    return f"{own_version}+py{sys.version_info.major}.{sys.version_info.minor}"


# What the facts cache keys this frontend's facts by (``scoring.facts_cache.frontend_version``).
FACTS_VERSION = frontend_version()


# --------------------------------------------------------------------------- tables

IMPORT_ERROR_NAMES = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
DYNAMIC_IMPORTS = frozenset({"__import__", "importlib.import_module", "importlib.__import__"})

LOG_CALLS = frozenset({
    "print", "warnings.warn", "traceback.print_exc", "traceback.print_exception", "traceback.format_exc",
    "sys.stderr.write", "sys.stdout.write", "logging.debug", "logging.info", "logging.warning",
    "logging.warn", "logging.error", "logging.exception", "logging.critical", "logging.log",
    "tqdm.write", "pprint.pprint", "rich.print", "click.echo", "click.secho",
})
LOG_RECEIVERS = frozenset({"logger", "log", "logging", "LOGGER", "LOG", "_logger", "_log", "_LOGGER",
                           "self.logger", "self.log", "self._logger", "self._log", "cls.logger"})
LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"})
EXIT_CALLS = frozenset({"sys.exit", "exit", "quit", "os._exit", "os.abort"})

# seed calls: resolved name -> the generator whose state they set
SEEDS = {
    "random.seed": "random",
    "numpy.random.seed": "numpy.random",
    "torch.manual_seed": "torch", "torch.random.manual_seed": "torch",
    "torch.cuda.manual_seed": "torch.cuda", "torch.cuda.manual_seed_all": "torch.cuda",
    "tensorflow.random.set_seed": "tensorflow", "tensorflow.set_random_seed": "tensorflow",
    "tensorflow.compat.v1.set_random_seed": "tensorflow", "tensorflow.keras.utils.set_random_seed": "keras",
    "keras.utils.set_random_seed": "keras",
    "pytorch_lightning.seed_everything": "lightning", "lightning.seed_everything": "lightning",
    "lightning.pytorch.seed_everything": "lightning", "lightning_fabric.seed_everything": "lightning",
    "pytorch_lightning.utilities.seed.seed_everything": "lightning",
    "transformers.set_seed": "transformers",
    "cupy.random.seed": "cupy.random", "mxnet.random.seed": "mxnet", "paddle.seed": "paddle",
}
# generator objects built: resolved name -> seed source when built without a seed
ENGINES = {
    "numpy.random.default_rng": "entropy", "numpy.random.RandomState": "entropy",
    "numpy.random.Generator": "entropy", "numpy.random.SeedSequence": "entropy",
    "numpy.random.PCG64": "entropy", "numpy.random.PCG64DXSM": "entropy", "numpy.random.MT19937": "entropy",
    "numpy.random.Philox": "entropy", "numpy.random.SFC64": "entropy",
    "random.Random": "entropy", "random.SystemRandom": "entropy", "secrets.SystemRandom": "entropy",
    # torch.Generator() starts from a documented fixed default seed
    "torch.Generator": "default",
    "jax.random.PRNGKey": "none", "jax.random.key": "none",
    "tensorflow.random.Generator.from_seed": "none",
    "tensorflow.random.Generator.from_non_deterministic_state": "entropy",
    "tensorflow.random.get_global_generator": "entropy",
}
ALWAYS_ENTROPY = frozenset({"random.SystemRandom", "secrets.SystemRandom",
                            "tensorflow.random.Generator.from_non_deterministic_state"})
SEED_KEYWORDS = ("seed", "a", "random_state", "x")
NUMPY_NOT_DRAWS = frozenset({"seed", "get_state", "set_state", "default_rng", "RandomState", "Generator",
                             "SeedSequence", "BitGenerator", "PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64"})
RANDOM_DRAWS = frozenset({
    "random", "randint", "randrange", "choice", "choices", "shuffle", "sample", "uniform", "gauss",
    "normalvariate", "lognormvariate", "expovariate", "betavariate", "gammavariate", "triangular",
    "vonmisesvariate", "paretovariate", "weibullvariate", "getrandbits", "randbytes", "binomialvariate",
})
TORCH_DRAWS = frozenset({"rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
                         "normal", "bernoulli", "multinomial", "poisson"})
TENSORFLOW_DRAWS = frozenset({"normal", "uniform", "shuffle", "truncated_normal", "categorical", "gamma",
                              "poisson", "stateless_normal"})
ENGINE_NOT_DRAWS = frozenset({"get_state", "set_state", "getstate", "setstate", "spawn", "bit_generator",
                              "jumped", "initial_seed", "get_global_generator", "split", "state"})
TIME_MARKERS = ("time(", "time_ns(", "now(", "perf_counter", "datetime", "monotonic")
ENTROPY_MARKERS = ("urandom", "getpid", "uuid", "secrets.", "SystemRandom", "randbits")

# reads and writes: resolved name -> (mode, index of the path argument, path keywords)
FILE_CALLS = {
    "numpy.load": ("read", 0, ("file",)), "numpy.loadtxt": ("read", 0, ("fname",)),
    "numpy.genfromtxt": ("read", 0, ("fname",)), "numpy.fromfile": ("read", 0, ("file",)),
    "numpy.save": ("write", 0, ("file",)), "numpy.savez": ("write", 0, ("file",)),
    "numpy.savez_compressed": ("write", 0, ("file",)), "numpy.savetxt": ("write", 0, ("fname",)),
    "torch.load": ("read", 0, ("f",)), "torch.save": ("write", 1, ("f",)),
    "joblib.load": ("read", 0, ("filename",)), "joblib.dump": ("write", 1, ("filename",)),
    "scipy.io.loadmat": ("read", 0, ("file_name",)), "scipy.io.savemat": ("write", 0, ("file_name",)),
    "xarray.open_dataset": ("read", 0, ("filename_or_obj",)), "xarray.open_mfdataset": ("read", 0, ("paths",)),
    "xarray.open_dataarray": ("read", 0, ("filename_or_obj",)), "xarray.open_zarr": ("read", 0, ("store",)),
    "PIL.Image.open": ("read", 0, ("fp",)), "cv2.imread": ("read", 0, ("filename",)),
    "cv2.imwrite": ("write", 0, ("filename",)), "imageio.imread": ("read", 0, ("uri",)),
    "imageio.v2.imread": ("read", 0, ("uri",)), "imageio.v3.imread": ("read", 0, ("uri",)),
    "imageio.imwrite": ("write", 0, ("uri",)), "imageio.v3.imwrite": ("write", 0, ("uri",)),
    "skimage.io.imread": ("read", 0, ("fname",)), "skimage.io.imsave": ("write", 0, ("fname",)),
    "tifffile.imread": ("read", 0, ("files",)), "tifffile.imwrite": ("write", 0, ("file",)),
    "matplotlib.pyplot.imread": ("read", 0, ("fname",)), "matplotlib.pyplot.imsave": ("write", 0, ("fname",)),
    "matplotlib.pyplot.savefig": ("write", 0, ("fname",)),
    "nibabel.load": ("read", 0, ("filename",)), "nibabel.save": ("write", 1, ("filename",)),
    "geopandas.read_file": ("read", 0, ("filename",)), "anndata.read_h5ad": ("read", 0, ("filename",)),
    "scanpy.read": ("read", 0, ("filename",)), "scanpy.read_h5ad": ("read", 0, ("filename",)),
    "pyarrow.parquet.read_table": ("read", 0, ("source",)),
    "tensorflow.keras.models.load_model": ("read", 0, ("filepath",)),
    "keras.models.load_model": ("read", 0, ("filepath",)),
}
OPEN_CALLS = {  # resolved name -> (index of the mode argument, default mode)
    "open": (1, "r"), "io.open": (1, "r"), "codecs.open": (1, "r"), "builtins.open": (1, "r"),
    "gzip.open": (1, "rb"), "bz2.open": (1, "rb"), "lzma.open": (1, "rb"),
    "h5py.File": (1, "r"), "netCDF4.Dataset": (1, "r"), "zarr.open": (1, "a"),
}
READ_PREFIXES = ("pandas.read_", "polars.read_", "polars.scan_")
PANDAS_PATH_KEYWORDS = ("filepath_or_buffer", "path", "io", "path_or_buf", "source")
# writer methods on any object (DataFrame.to_csv, Figure.savefig): method -> path keywords
WRITE_METHODS = {
    "to_csv": ("path_or_buf",), "to_excel": ("excel_writer",), "to_parquet": ("path",),
    "to_json": ("path_or_buf",), "to_hdf": ("path_or_buf",), "to_pickle": ("path",),
    "to_feather": ("path",), "to_stata": ("path",), "to_netcdf": ("path",), "to_zarr": ("store",),
    "to_file": ("filename",), "write_h5ad": ("filename",), "savefig": ("fname",), "tofile": ("fid",),
}
# pathlib methods: the path is the receiver's, when it is ``Path("literal")``
PATH_METHODS = {"read_text": "read", "read_bytes": "read", "write_text": "write", "write_bytes": "write",
                "open": "open"}
PATH_TYPES = frozenset({"pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "pathlib.WindowsPath", "Path"})
# the modules a star import of a module re-exports the names of: pylab (and ``%pylab``)
# gives numpy's and matplotlib.pyplot's
STAR_EXPORTS = {"pylab": ("numpy", "matplotlib.pyplot"), "matplotlib.pylab": ("numpy", "matplotlib.pyplot")}
# calls that join path parts: a write call's path built of literals with them is one literal
PATH_JOINS = PATH_TYPES | {"os.path.join", "posixpath.join", "ntpath.join"}

# command-line interfaces: resolved name -> kind; the name is read from the arguments
CLI_CALLS = {
    "argparse.ArgumentParser": "argparse", "optparse.OptionParser": "optparse",
    "click.option": "click", "click.argument": "click", "typer.Option": "typer",
    "typer.Argument": "typer", "typer.Typer": "typer", "typer.run": "typer", "fire.Fire": "fire",
    "getopt.getopt": "getopt", "getopt.gnu_getopt": "getopt", "docopt.docopt": "docopt", "docopt": "docopt",
    "hydra.main": "hydra",
}
CLI_METHODS = {"add_argument": "argparse", "add_option": "optparse"}
NAMED_CLI = frozenset({"click.option", "click.argument", "typer.Option", "typer.Argument"})

SETENV_METHODS = frozenset({"setdefault", "putenv", "setenv"})

# the gate of _Walker.call: a call that may be any of the kinds above
_SPECIAL_NAMES = frozenset(DYNAMIC_IMPORTS | SEEDS.keys() | ENGINES.keys() | CLI_CALLS.keys() | OPEN_CALLS.keys()
                           | FILE_CALLS.keys())
_SPECIAL_METHODS = frozenset(SETENV_METHODS | CLI_METHODS.keys() | WRITE_METHODS.keys() | PATH_METHODS.keys())
_SPECIAL_PREFIXES = ("sys.argv.", "random.", "numpy.random.", "torch.", "tensorflow.random.", *READ_PREFIXES)

# S1: the values whose keywords a ``**name`` argument can be seen to pass, and the dict
# methods that add keywords
_SPREAD_KINDS = frozenset({ast.Dict, ast.IfExp, ast.Name, ast.Call})
_SPREAD_METHODS = frozenset({"update", "setdefault"})

# --------------------------------------------------------------------------- text scans


def _all_but(excluded: str) -> str:
    """A regex class of every character but ``excluded``, as ranges (sre compiles ranges
    to a lookup table; a negated class of literals is tested literal by literal)."""
    ranges, low = [], 0
    for code in sorted(map(ord, excluded)):
        if code > low:
            ranges.append(f"\\U{low:08x}-\\U{code - 1:08x}")
        low = code + 1
    ranges.append(f"\\U{low:08x}-\\U{sys.maxunicode:08x}")
    return "[" + "".join(ranges) + "]"


# Python string literals; prefixes never change where a literal ends. Possessive
# quantifiers keep an unterminated literal from backtracking.
_PY_STRING = (
    rf'"{{3}}(?:{_all_but(chr(34) + chr(92))}++|\\[\s\S]|"(?!""))*+"{{3}}'
    rf"|'{{3}}(?:{_all_but(chr(39) + chr(92))}++|\\[\s\S]|'(?!''))*+'{{3}}"
    rf'|"(?:{_all_but(chr(34) + chr(92) + chr(10))}++|\\[\s\S])*+"'
    rf"|'(?:{_all_but(chr(39) + chr(92) + chr(10))}++|\\[\s\S])*+'"
)
# Each match consumes code and whole string literals up to the next comment (group 1)
# or the end, so a ``#`` inside a string is never a comment and the loop below visits
# comments only. A stray quote is consumed as code.
_NEXT_COMMENT = re.compile(rf"(?:{_all_but(chr(35) + chr(34) + chr(39))}++|{_PY_STRING}|[\"'])*+(?:(#[^\n]*)|\Z)")
# string literals and comments, for code that does not parse
_STRING_OR_COMMENT = re.compile(rf"(?P<prefix>[rRbBuUfF]{{0,2}})(?P<string>{_PY_STRING})|#[^\n]*")
_IMPORT_LINE = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<from>\.*[\w.]*)[ \t]+import\b[ \t]*\(?(?P<names>[\w \t,*]*)"
    r"|import[ \t]+(?P<modules>[\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*))")
# the tokens the docstring scan of code that does not parse tells apart
_FALLBACK_TOKEN = re.compile(
    rf"(?P<string>[rRbBuUfF]{{0,2}}(?:{_PY_STRING}))|(?P<comment>#[^\n]*)|(?P<continuation>\\\r?\n)"
    r"|(?P<newline>\n)|(?P<open>[(\[{])|(?P<close>[)\]}])|(?P<name>[A-Za-z_]\w*)|(?P<other>[^\s])")


def _indent_column(source: str, at: int) -> int:
    """The tokenizer's column of the token at ``at``: tabs to the next multiple of 8,
    a form feed resets."""
    column = 0
    for char in source[source.rfind("\n", 0, at) + 1:at]:
        if char == " ":
            column += 1
        elif char == "\t":
            column = (column // 8 + 1) * 8
        elif char == "\f":
            column = 0
    return column


_DEF_LINE = re.compile(r"^(?P<indent>[ \t]*)(?:async[ \t]+)?(?P<kind>def|class)[ \t]+(?P<name>\w+)")
_DOCSTRING_START = re.compile(r"""^[ \t]*[rRuUbB]{0,2}(?:\"\"\"|'''|"|')""")


def decode(data: bytes) -> str:
    """The source text: BOM or coding cookie, else UTF-8; bad bytes become U+FFFD; line
    ends normalised to ``\\n`` (the parser counts ``\\r\\n`` and ``\\r`` as one line end)."""
    encoding = "utf-8"
    if not data.isascii():
        try:
            encoding, _ = tokenize.detect_encoding(BytesIO(data).readline)
            codecs.lookup(encoding)
        except (SyntaxError, LookupError):
            encoding = "utf-8"
    text = data.decode(encoding, "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        line = f" (line {exc.lineno})" if exc.lineno else ""
        return f"{type(exc).__name__}: {exc.msg}{line}"
    message = str(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _dotted(node) -> str:
    """``a.b.c`` for a chain of attributes on a name; a call inside the chain keeps its
    parentheses (``np.random.default_rng().normal``); "" for anything else. A loop, not
    recursion: a chain of thousands of method calls parses."""
    parts = []
    called = False           # the part met next is the callee of a call
    while True:
        kind = type(node)
        if kind is ast.Attribute:
            parts.append(node.attr + "()" if called else node.attr)
            node = node.value
        elif kind is ast.Name:
            parts.append(node.id + "()" if called else node.id)
            break
        elif kind is ast.Call and not called:
            node = node.func
            called = True
            continue
        else:
            return ""
        called = False
    parts.reverse()
    return ".".join(parts)


def _is_str(node) -> bool:
    return type(node) is ast.Constant and type(node.value) is str


def _target(node) -> str:
    """The name an assignment target is written as: ``x``, ``self.x``, ``cfg["key"]``."""
    kind = type(node)
    if kind is ast.Name:
        return node.id
    if kind is ast.Attribute:
        return _dotted(node)
    if kind is ast.Subscript and _is_str(node.slice):
        base = _dotted(node.value)
        return f'{base}["{node.slice.value}"]' if base else node.slice.value
    return ""


# Fields that never hold child nodes worth visiting: expression contexts and operators
# (shared singletons), identifiers, numbers, flags, type comments.
_SKIPPED_FIELDS = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "name", "asname", "module", "level",
                             "kind", "type_comment", "conversion", "is_async", "tag", "rest", "kwd_attrs",
                             "simple", "lineno"})


def _child_fields(kind: type) -> tuple[str, ...]:
    """The node-valued fields of ``kind``, last first (pushed so the first pops first).
    A value that is no node (a scalar field a later Python adds) has none."""
    if kind in (ast.Constant, ast.MatchSingleton, ast.Global, ast.Nonlocal):
        return ()
    return tuple(reversed([f for f in getattr(kind, "_fields", ()) if f not in _SKIPPED_FIELDS]))


class _Frame:
    """The context of a statement body: what a fact inside it needs from above.

    ``guard`` is the import guard; ``scope`` ``module``, ``class`` or ``function``;
    ``public_kinds`` the definition kinds that may be public here (D6's reading);
    ``handlers`` the except handlers whose body this is part of.
    """

    __slots__ = ("guard", "scope", "public_kinds", "handlers", "_derived")

    def __init__(self, guard: str, scope: str, public_kinds: frozenset, handlers: tuple) -> None:
        self.guard = guard
        self.scope = scope
        self.public_kinds = public_kinds
        self.handlers = handlers
        self._derived: dict | None = None

    def but(self, guard: str | None = None, scope: str | None = None, public_kinds: frozenset | None = None,
            handlers: tuple | None = None) -> _Frame:
        """This frame with some values changed; the same derived frame is reused for every
        body that derives it the same way (each ``if`` of a function body)."""
        if handlers is not None:
            return _Frame(guard or self.guard, scope or self.scope,
                          self.public_kinds if public_kinds is None else public_kinds, handlers)
        key = (guard, scope, public_kinds)
        derived = self._derived
        if derived is None:
            derived = self._derived = {}
        frame = derived.get(key)
        if frame is None:
            frame = derived[key] = _Frame(guard or self.guard, scope or self.scope,
                                          self.public_kinds if public_kinds is None else public_kinds,
                                          self.handlers)
        return frame


# marks a docstring's constant in ``_Walker.bindings`` (compared by identity)
_DOCSTRING = "\x00docstring"


class _Exit:
    """The marker behind a body: popping it restores the frame around the body."""


_EXIT = _Exit()


class _ImportTry:
    """The markers around the body of a try that catches import errors: C2's optional
    imports lie between them at any depth, whatever frames open in between."""

    __slots__ = ("step",)

    def __init__(self, step: int) -> None:
        self.step = step


_IMPORT_TRY_OPEN, _IMPORT_TRY_CLOSE = _ImportTry(1), _ImportTry(-1)


class _Scope:
    """The markers around the body of a function, lambda or class: the names bound to
    dicts written out (what a ``**name`` argument can pass, ``CallFact.spread_keys``) are
    the body's own, its parameters bound to what the frontend cannot see."""

    __slots__ = ("opening", "parameters", "is_class")

    def __init__(self, opening: bool, parameters: tuple[str, ...] = (), is_class: bool = False) -> None:
        self.opening = opening
        self.parameters = parameters
        self.is_class = is_class


_SCOPE_CLOSE = _Scope(False)
# a conditional expression or dict nested deeper than this is not followed
_SPREAD_DEPTH = 8
_NO_KINDS: frozenset = frozenset()
_MODULE_KINDS = frozenset({"function", "class"})
_METHOD_KINDS = frozenset({"method"})


class _Handler:
    __slots__ = ("line", "caught", "statements", "passive", "seen", "cell", "end_line", "swallows", "excerpt",
                 "start_line")

    def __init__(self, line: int, caught: str, statements: int, passive: int, cell: int | None,
                 end_line: int = 0, swallows: str = "", excerpt: str = "", start_line: int = 0) -> None:
        self.line, self.caught, self.statements, self.passive, self.cell = line, caught, statements, passive, cell
        self.seen: set[str] = set()
        self.end_line, self.swallows, self.excerpt, self.start_line = end_line, swallows, excerpt, start_line

    def fact(self) -> HandlerFact:
        return HandlerFact(self.line, self.caught, self.action(), self.cell, self.end_line, self.swallows,
                           self.excerpt, self.start_line)

    def action(self) -> str:
        for action in ("reraise", "log", "return", "continue"):
            if action in self.seen:
                return action
        return "pass" if self.statements == self.passive else "other"


class _Walker:
    """Facts of one file (or of every cell of one notebook), in the order the walk meets them."""

    def __init__(self) -> None:
        self.imports: list[ImportFact] = []
        self.calls: list[CallFact] = []
        self.strings: list[StringFact] = []
        self.comments: list[CommentFact] = []
        self.definitions: list[DefinitionFact] = []
        self.assignments: list[AssignmentFact] = []
        self.handlers: list[_Handler] = []
        self.randoms: list[RandomFact] = []
        self.discarded: set[int] = set()   # ids of calls that are whole expression statements
        self.cli_args: list[CliArgFact] = []
        self.file_io: list[FileIOFact] = []
        self.urls: list[UrlFact] = []
        self.asserts: list[AssertFact] = []     # S3: assert statements
        self.installs: list[InstallFact] = []   # the packages R and Julia cells install
        self.blocks: list[BlockFact] = []       # S1: __main__ blocks and lambdas, what import does not run
        # S1 (§0.2.25): ``if`` bodies whose test a seed's default may fail, (first line, last
        # line, cell, conjuncts (subject, operator, constant)); command-line option defaults
        # (dest -> default); seed facts under such a test (index in randoms, conjunct)
        self.seed_guards: list[tuple[int, int, int | None, tuple]] = []
        self.option_defaults: dict[str, object] = {}
        self.guarded_seeds: list[tuple[int, tuple]] = []
        self.main_blocks: set[int] = set()      # ids of the unit's module-level __main__ ifs
        self.subscripted: set[int] = set()      # S6: ids of argv names read by a subscript
        # S1: name -> the keywords of the dicts written out it is bound to in the current
        # scope (None: bound to anything else too), the enclosing scopes' saved, and the
        # keywords an assignment target is about to be bound to (by id of its Name)
        self.spreads: dict[str, frozenset[str] | None] = {}
        self.spread_scopes: list[tuple[dict[str, frozenset[str] | None], bool]] = []
        self.spread_class = False   # the current scope is a class body
        self.spread_pending: dict[int, frozenset[str] | None] = {}
        self.track_spreads = False   # on for a text with a ``**`` call argument (track_spreads_in)
        self.aliases: dict[str, str] = {}       # local name -> qualified name
        # the modules of star imports (``from numpy import *``, ``%pylab``), latest first
        self.star_modules: list[str] = []
        self.engines: set[str] = set()          # variables bound to a generator object
        self.argv_names: set[str] = set()       # local names bound to sys.argv
        self.resolved: dict[str, str] = {}     # callee as written -> resolved, emptied when aliases change
        self.name_exprs: dict[str, Expr] = {}
        self.parse_error: str | None = None
        # per unit: names bound by a plain assignment (the first), and the call arguments
        # that may stand for a URL, resolved once the unit is walked (CallFact.urls)
        self.url_names: dict[str, ast.AST] = {}
        self.url_pending: list[tuple[int, str, ast.AST]] = []
        # per unit (a file or one cell)
        self.cell: int | None = None
        self.source = ""
        self.magic_lines: frozenset[int] = frozenset()
        self.tree: ast.Module | None = None      # the last unit's parse (None: it does not parse)
        self.frame = _Frame("none", "module", _MODULE_KINDS, ())
        self.frames: list[_Frame] = [self.frame]
        self.import_tries = 0                   # the bodies of import-catching trys open around the node
        self.stack: list = []
        self.docstring_comments: list[CommentFact] = []
        self.bindings: dict[int, str] = {}      # id(literal node) -> the name it is bound to
        self._encoded: bytes | None = None
        self._starts: list[int] | None = None
        self._lines: list[str] | None = None
        self.dispatch = self.dispatch_table()

    # ------------------------------------------------------------ units
    def unit(self, source: str, cell: int | None = None, magic_lines: frozenset[int] = frozenset()) -> None:
        """Parse and walk one unit: a file's text or one notebook cell's Python."""
        self.cell, self.source, self.magic_lines = cell, source, magic_lines
        self.bindings = {}
        self.discarded = set()
        self._encoded = self._starts = None
        self._lines = None
        self.tree = None
        try:
            tree = parse_source(source)
        except PARSE_ERRORS as exc:
            if self.parse_error is None:
                self.parse_error = _error_text(exc) if cell is None else f"cell {cell}: {_error_text(exc)}"
            self.fallback(source)
            return
        self.tree = tree
        self.url_names, self.url_pending = {}, []
        docstrings = self.walk(tree)
        self.resolve_call_urls()
        self.scan_comments(source, docstrings)

    # ------------------------------------------------------------ the walk
    def walk(self, tree: ast.Module) -> list[CommentFact]:
        """The one pass: every node of ``tree`` popped once from an explicit stack.

        A handler of ``self.dispatch`` returns True when it pushed the node's children
        itself; any other node's children are pushed from its node-valued fields.
        """
        self.frame = _Frame("none", "module", _MODULE_KINDS, ())
        self.frames = [self.frame]
        self.docstring_comments = []
        stack: list = []
        self.stack = stack
        pop, push, extend = stack.pop, stack.append, stack.extend
        get = self.dispatch.get
        fields_of = _FIELDS
        self.module(tree)
        while stack:
            node = pop()
            kind = type(node)
            handler = get(kind)
            if handler is not None and handler(node):
                continue
            fields = fields_of.get(kind)
            if fields is None:
                fields = fields_of[kind] = _child_fields(kind)
            for name in fields:
                value = getattr(node, name)
                if type(value) is list:
                    if value:
                        extend(reversed(value))
                elif value is not None:
                    push(value)
        return self.docstring_comments

    def dispatch_table(self) -> dict:
        """``type(node)`` -> handler; a handler returns True when it pushed the node's
        children itself (or there are none to visit)."""
        return {
            _Frame: self.enter, _Exit: self.leave, type(None): _no_children, _ImportTry: self.import_try,
            _Scope: self.scope,
            ast.Name: self.name, ast.Constant: self.constant, ast.Call: self.call,
            ast.Attribute: self.attribute, ast.Assign: self.assign, ast.AnnAssign: self.ann_assign,
            ast.Dict: self.dict_, ast.JoinedStr: self.joined_str, ast.Import: self.import_,
            ast.ImportFrom: self.import_from, ast.FunctionDef: self.function, ast.AsyncFunctionDef: self.function,
            ast.ClassDef: self.class_, ast.If: self.if_, ast.Try: self.try_, ast.With: self.block,
            ast.AsyncWith: self.block, ast.For: self.loop, ast.AsyncFor: self.loop, ast.While: self.loop,
            ast.Raise: self.raise_, ast.Return: self.return_, ast.Continue: self.continue_,
            ast.Lambda: self.lambda_, ast.IfExp: self.if_exp, ast.Expr: self.expr_statement,
            **({ast.TryStar: self.try_} if hasattr(ast, "TryStar") else {}),
            ast.Match: self.match, ast.NamedExpr: self.named_expr, ast.arguments: self.arguments,
            ast.Assert: self.assert_, ast.Subscript: self.subscript,
        }

    def enter(self, frame: _Frame) -> bool:
        self.frames.append(frame)
        self.frame = frame
        return True

    def import_try(self, marker: _ImportTry) -> bool:
        self.import_tries += marker.step
        return True

    def leave(self, _marker) -> bool:
        frames = self.frames
        frames.pop()
        self.frame = frames[-1]
        return True

    def track_spreads_in(self, texts) -> None:
        """Follow what names are bound to (``CallFact.spread_keys``) only in a file, a
        notebook or chunks whose text holds a ``**``: without one there is no ``**``
        call argument to read."""
        self.track_spreads = any("**" in text for text in texts)
        self.dispatch[ast.Name] = self.name_tracking_spreads if self.track_spreads else self.name

    def scope(self, marker: _Scope) -> bool:
        if marker.opening:
            self.spread_scopes.append((self.spreads, self.spread_class))
            self.spreads = dict.fromkeys(marker.parameters)
            self.spread_class = marker.is_class
        else:
            self.spreads, self.spread_class = self.spread_scopes.pop()
        return True

    def spread_binding(self, name: str) -> frozenset[str] | None:
        """What ``name`` is bound to as the current scope reads it: its own binding, else
        the nearest enclosing function's or the module's (a class body encloses nothing)."""
        spreads = self.spreads
        if name in spreads:
            return spreads[name]
        for outer, is_class in reversed(self.spread_scopes):
            if not is_class and name in outer:
                return outer[name]
        return None

    def body(self, nodes: list, frame: _Frame | None) -> None:
        """Push a statement body to be walked under ``frame`` (None: the current one)."""
        stack = self.stack
        if frame is None or frame is self.frame:
            stack.extend(reversed(nodes))
            return
        stack.append(_EXIT)
        stack.extend(reversed(nodes))
        stack.append(frame)

    # ------------------------------------------------------------ leaves
    def name(self, node) -> bool:
        if node.id in self.argv_names and type(node.ctx) is ast.Load:
            self.cli_args.append(CliArgFact(node.lineno, "sys.argv", "", self.cell, id(node) in self.subscripted))
        return True

    def name_tracking_spreads(self, node) -> bool:
        """``name`` where a ``**`` call argument may need what a name is bound to."""
        if type(node.ctx) is ast.Store:
            self.bind_spread(node.id, self.spread_pending.pop(id(node), None) if self.spread_pending else None)
            return True
        return self.name(node)

    def attribute(self, node) -> bool:
        if node.attr == "argv" and type(node.ctx) is ast.Load and self.resolve(_dotted(node)) == "sys.argv":
            self.cli_args.append(CliArgFact(node.lineno, "sys.argv", "", self.cell, id(node) in self.subscripted))
            return True
        return False

    def constant(self, node) -> bool:
        value = node.value
        if type(value) is str:
            line = node.lineno
            end = node.end_lineno or line
            binding = self.bindings.get(id(node), "")
            if binding is _DOCSTRING:
                self.strings.append(StringFact(value, line, end, "", True, self.cell))
                self.docstring_comments.append(CommentFact(line, end, value, True, self.cell))
                return True
            if "://" in value:
                self.urls_in(value, line)
            self.strings.append(StringFact(value, line, end, binding, False, self.cell))
        return True

    def joined_str(self, node) -> bool:
        """An f-string: one string fact with ``{…}`` for each field; the fields' code is walked."""
        parts, fields, offset = [], [], 0
        line = node.lineno
        for part in node.values:
            if type(part) is ast.Constant:
                text = part.value
                if "://" in text:
                    self.urls_in(text, line + offset)
                offset += text.count("\n")
                parts.append(text)
            else:
                parts.append("{…}")
                fields.append(part.value)
                spec = part.format_spec
                if spec is not None:
                    fields.extend(p.value for p in spec.values if type(p) is ast.FormattedValue)
        self.strings.append(StringFact("".join(parts), line, node.end_lineno or line,
                                       self.bindings.get(id(node), ""), False, self.cell))
        self.stack.extend(reversed(fields))
        return True

    def urls_in(self, value: str, line: int) -> None:
        cell = self.cell
        for match in URL_PATTERN.finditer(value):
            self.urls.append(UrlFact(match.group(0).rstrip(".,;:"), line + value.count("\n", 0, match.start()),
                                     cell))

    # ------------------------------------------------------------ source text
    def segment(self, node) -> str:
        """The source text of ``node``, cut to 80 characters, in O(1): the parser's
        offsets are UTF-8 byte columns, read off the encoded text by line starts
        (``ast.get_source_segment`` splits the whole source on every call)."""
        if self._starts is None:
            source = self.source
            self._encoded = source.encode("utf-8", "surrogatepass")
            self._starts = [0, *accumulate([len(line) + 1 for line in self._encoded.split(b"\n")])]
        starts = self._starts
        try:
            start = starts[node.lineno - 1] + node.col_offset
            end = starts[node.end_lineno - 1] + node.end_col_offset
        except (IndexError, TypeError):
            return ""
        end = min(end, start + 4 * EXPR_TEXT_LIMIT)
        return self._encoded[start:end].decode("utf-8", "ignore")[:EXPR_TEXT_LIMIT]

    def value(self, node):
        """A call argument: its literal value, or ``Expr`` with its source text."""
        kind = type(node)
        if kind is ast.Constant:
            value = node.value
            if value is None or type(value) in (str, int, bool):
                return value
            if type(value) is float and value - value == 0:    # finite
                return value
            return Expr(self.segment(node))
        if kind is ast.Name:
            return self.name_expr(node.id)
        if kind is ast.UnaryOp and type(node.op) is ast.USub and type(node.operand) is ast.Constant:
            value = node.operand.value
            if type(value) in (int, float) and value - value == 0:
                return -value
        return Expr(self.segment(node))

    def name_expr(self, name: str) -> Expr:
        """``Expr(name)``, one per name (records are immutable, and names recur)."""
        expr = self.name_exprs.get(name)
        if expr is None:
            expr = self.name_exprs[name] = Expr(name)
        return expr

    def resolve(self, written: str) -> str:
        """``written`` with its head resolved through the import aliases; a head that is a
        call keeps its parentheses (``Path().read_text`` -> ``pathlib.Path().read_text``)."""
        head, dot, rest = written.partition(".")
        call = head.endswith("()")
        qualified = self.aliases.get(head[:-2] if call else head)
        if qualified is None:
            if self.star_modules and not dot and not call:
                return self.star_resolved(written)
            return written
        if call:
            qualified += "()"
        return f"{qualified}.{rest}" if dot else qualified

    def star_resolved(self, name: str) -> str:
        """A bare name a star import binds: the star-imported module's function of that
        name when it is a reader or writer the frontend knows (``genfromtxt`` after
        ``from numpy import *`` is ``numpy.genfromtxt``), unless the file defines the
        name itself; the name as written otherwise."""
        if any(d.name == name for d in self.definitions):
            return name
        for module in self.star_modules:
            for exporter in STAR_EXPORTS.get(module, (module,)):
                qualified = f"{exporter}.{name}"
                if qualified in FILE_CALLS or qualified in OPEN_CALLS or qualified.startswith(READ_PREFIXES):
                    return qualified
        return name

    def star_import(self, module: str) -> None:
        self.resolved = {}
        if module in self.star_modules:
            self.star_modules.remove(module)
        self.star_modules.insert(0, module)

    # ------------------------------------------------------------ module, definitions
    def module(self, tree: ast.Module) -> None:
        self.main_blocks = {id(s) for s in tree.body if type(s) is ast.If and _is_main_block(s.test)}
        self.body(self.docstring(tree.body), None)

    def docstring(self, body: list) -> list:
        """``body``, its docstring marked so that the walk reports it as one (a string
        fact and a doc comment, in document order)."""
        first = body[0] if body else None
        if type(first) is ast.Expr and _is_str(first.value):
            self.bindings[id(first.value)] = _DOCSTRING
        return body

    def decorator(self, node) -> str:
        target = node.func if type(node) is ast.Call else node
        written = _dotted(target)
        return self.resolve(written) if written else self.segment(node)

    def function(self, node) -> bool:
        frame = self.frame
        kind = "method" if frame.scope == "class" else "function"
        name = node.name
        body = node.body
        first = body[0] if body else None
        documented = type(first) is ast.Expr and _is_str(first.value) and bool(first.value.value.strip())
        public = kind in frame.public_kinds and not name.startswith("_")
        if self.star_modules:
            self.resolved.pop(name, None)   # the file's own function hides a star-imported one
        self.definitions.append(DefinitionFact(name, kind, node.lineno, public, documented,
                                               tuple(self.decorator(d) for d in node.decorator_list), self.cell,
                                               self.header(node.lineno, public and not documented),
                                               _decorator_lines(node), end_line=node.end_lineno or node.lineno,
                                               parameters=_parameter_names(node.args),
                                               none_defaults=_none_defaults(node.args)))
        self.parameter_defaults(node.args)
        inner = _Frame("none", "function", _NO_KINDS, ())
        # pushed last first: decorators, arguments, returns, then the body in its own scope
        stack = self.stack
        if self.track_spreads:
            stack.append(_SCOPE_CLOSE)
            self.body(self.docstring(body), inner)
            stack.append(_Scope(True, tuple(p.lstrip("*") for p in self.definitions[-1].parameters if p != "*")))
        else:
            self.body(self.docstring(body), inner)
        if node.returns is not None:
            stack.append(node.returns)
        stack.append(node.args)
        stack.extend(reversed(node.decorator_list))
        return True

    def parameter_defaults(self, args: ast.arguments) -> None:
        if not args.defaults and not args.kw_defaults:
            return
        positional = args.posonlyargs + args.args
        pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults, strict=True))
        pairs.extend((a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None)
        for arg, default in pairs:
            self.bind(arg.arg, default, default.lineno if hasattr(default, "lineno") else arg.lineno)

    def arguments(self, node) -> bool:
        """Parameters in source order: each positional with its default, ``*args``, each
        keyword-only with its default, ``**kwargs``."""
        ordered: list = []
        positional = node.posonlyargs + node.args
        first_default = len(positional) - len(node.defaults)
        for index, arg in enumerate(positional):
            ordered.append(arg)
            if index >= first_default:
                ordered.append(node.defaults[index - first_default])
        if node.vararg is not None:
            ordered.append(node.vararg)
        for arg, default in zip(node.kwonlyargs, node.kw_defaults, strict=True):
            ordered.append(arg)
            if default is not None:
                ordered.append(default)
        if node.kwarg is not None:
            ordered.append(node.kwarg)
        self.stack.extend(reversed(ordered))
        return True

    def lambda_(self, node) -> bool:
        self.blocks.append(BlockFact("lambda", node.lineno, node.end_lineno or node.lineno, self.cell))
        self.parameter_defaults(node.args)
        if not self.track_spreads:
            return False
        stack = self.stack
        stack.append(_SCOPE_CLOSE)
        stack.append(node.body)
        stack.append(_Scope(True, tuple(p.lstrip("*") for p in _parameter_names(node.args) if p != "*")))
        stack.append(node.args)
        return True

    def class_(self, node) -> bool:
        frame = self.frame
        name = node.name
        body = node.body
        first = body[0] if body else None
        documented = type(first) is ast.Expr and _is_str(first.value) and bool(first.value.value.strip())
        public = "class" in frame.public_kinds and not name.startswith("_")
        self.definitions.append(DefinitionFact(name, "class", node.lineno, public, documented,
                                               tuple(self.decorator(d) for d in node.decorator_list), self.cell,
                                               self.header(node.lineno, public and not documented),
                                               _decorator_lines(node), self.bases(node),
                                               _bases(node), node.end_lineno or node.lineno))
        # a class body runs where it stands: the try or if around it still holds
        inner = frame.but(scope="class", public_kinds=_METHOD_KINDS if public else _NO_KINDS)
        stack = self.stack
        if self.track_spreads:
            stack.append(_SCOPE_CLOSE)
            self.body(self.docstring(body), inner)
            stack.append(_Scope(True, is_class=True))
        else:
            self.body(self.docstring(body), inner)
        stack.extend(reversed(node.keywords))
        stack.extend(reversed(node.bases))
        stack.extend(reversed(node.decorator_list))
        return True

    def bases(self, node) -> tuple[str, ...]:
        """A class's bases as dotted names with aliases resolved ("" for any other base)."""
        if not node.bases:
            return ()
        return tuple(self.resolve(written) if (written := _dotted(base)) else "" for base in node.bases)

    def subscript(self, node) -> bool:
        value = node.value
        kind = type(value)
        if (kind is ast.Attribute and value.attr == "argv") or (kind is ast.Name and value.id in self.argv_names):
            self.subscripted.add(id(value))
        if self.track_spreads and kind is ast.Name and type(node.ctx) is ast.Store:
            # ``kwargs["seed"] = 1``: a keyword added to a dict written out
            keys = self.spreads.get(value.id)
            if keys is not None:
                key = node.slice
                self.spreads[value.id] = keys | {key.value} if type(key) is ast.Constant and type(
                    key.value) is str else None
        return False

    def assert_(self, node) -> bool:
        self.asserts.append(AssertFact(node.lineno, self.cell))
        return False

    # ------------------------------------------------------------ control flow and guards
    def if_(self, node) -> bool:
        frame = self.frame
        test = node.test
        if self.main_blocks and id(node) in self.main_blocks:
            self.blocks.append(BlockFact("__main__", node.lineno, node.end_lineno or node.lineno, self.cell))
        body_frame = else_frame = None
        if _is_type_checking(test):
            # the innermost strong guard wins: TYPE_CHECKING inside a try is type_checking
            body_frame = frame.but(guard="type_checking")
            if frame.guard == "none":
                else_frame = frame.but(guard="conditional")
        elif frame.guard == "none" and not _is_main_guard(test):
            body_frame = else_frame = frame.but(guard="conditional")
        if frame.scope == "class" and frame.public_kinds:
            # D6 counts the direct members of a class body only
            body_frame = (body_frame or frame).but(public_kinds=_NO_KINDS)
            else_frame = (else_frame or frame).but(public_kinds=_NO_KINDS)
        conjuncts = _seed_guard(test, self.segment)
        if conjuncts and node.body:
            self.seed_guards.append((node.body[0].lineno, node.body[-1].end_lineno or node.lineno, self.cell,
                                     conjuncts))
        self.body(node.orelse, else_frame)
        self.body(node.body, body_frame)
        self.stack.append(test)
        return True

    def try_(self, node) -> bool:
        frame = self.frame
        catches_import = any(_catches_import_errors(h.type) for h in node.handlers)
        private_members = frame.scope == "class" and frame.public_kinds
        base = frame.but(public_kinds=_NO_KINDS) if private_members else frame
        stack = self.stack
        cell, magic_lines = self.cell, self.magic_lines
        records = []
        for handler in node.handlers:
            statements = handler.body
            passive = sum(1 for s in statements if _is_passive(s, magic_lines))
            records.append(_Handler(handler.lineno, self.caught(handler.type), len(statements), passive, cell,
                                    *self.handler_extent(handler, passive)))
        self.handlers.extend(records)
        # pushed last first: body, then each handler's type and body, else, finally
        self.body(node.finalbody, base)
        self.body(node.orelse, base)
        guard = "except" if catches_import else base.guard
        for handler, record in zip(reversed(node.handlers), reversed(records), strict=True):
            self.body(handler.body, base.but(guard=guard, handlers=base.handlers + (record,)))
            if handler.type is not None:
                stack.append(handler.type)
        if catches_import:
            stack.append(_IMPORT_TRY_CLOSE)
            self.body(node.body, base.but(guard="try"))
            stack.append(_IMPORT_TRY_OPEN)
        else:
            self.body(node.body, base)
        return True

    def handler_extent(self, handler, passive: int) -> tuple[int, str, str]:
        """``(end line, swallows, excerpt)`` of an except clause that swallows the error
        (its body only does nothing: passive statements and ``continue``): its body's last
        line, ``"empty"`` and its first three lines stripped and joined (C4's evidence);
        ``(0, "", "")`` for any other handler."""
        statements = handler.body
        last = statements[-1]
        end = getattr(last, "end_lineno", None) or last.lineno
        swallows = passive == len(statements) or all(
            type(s) is ast.Continue or _is_passive(s, self.magic_lines) for s in statements)
        if not swallows:
            return 0, "", ""
        lines = self.source_lines()
        line = handler.lineno
        return end, "empty", " ".join(s.strip() for s in lines[line - 1: min(end, line + 2)])

    def source_lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.source.splitlines()
        return self._lines

    def caught(self, node) -> str:
        """``"..."`` for a bare except, else the caught names as written."""
        if node is None:
            return "..."
        elements = node.elts if type(node) is ast.Tuple else [node]
        return ", ".join(_dotted(e) or self.segment(e) for e in elements)

    def block(self, node) -> bool:
        """``with``: D6 counts definitions in module-level with blocks, not in class ones."""
        frame = self.frame
        inner = frame.but(public_kinds=_NO_KINDS) if frame.scope == "class" and frame.public_kinds else None
        self.body(node.body, inner)
        self.stack.extend(reversed(node.items))
        return True

    def loop(self, node) -> bool:
        """Loops: definitions inside are not public (D6 reads module-level if/try/with only)."""
        frame = self.frame
        inner = frame.but(public_kinds=_NO_KINDS) if frame.public_kinds else None
        self.body(node.orelse, inner)
        self.body(node.body, inner)
        stack = self.stack
        if type(node) is ast.While:
            stack.append(node.test)
        else:
            stack.append(node.iter)
            stack.append(node.target)
        return True

    def match(self, node) -> bool:
        frame = self.frame
        inner = frame.but(public_kinds=_NO_KINDS) if frame.public_kinds else None
        stack = self.stack
        for case in reversed(node.cases):
            self.body(case.body, inner)
            if case.guard is not None:
                stack.append(case.guard)
            stack.append(case.pattern)
        stack.append(node.subject)
        return True

    def if_exp(self, node) -> bool:
        self.stack.extend((node.orelse, node.test, node.body))
        return True

    def expr_statement(self, node) -> bool:
        if type(node.value) is ast.Call:
            self.discarded.add(id(node.value))
        self.stack.append(node.value)
        return True

    def mark(self, feature: str) -> None:
        for record in self.frame.handlers:
            record.seen.add(feature)

    def raise_(self, node) -> bool:
        if self.frame.handlers:
            self.mark("reraise")
        return False

    def return_(self, node) -> bool:
        if self.frame.handlers:
            self.mark("return")
        return False

    def continue_(self, node) -> bool:
        if self.frame.handlers:
            self.mark("continue")
        return True

    # ------------------------------------------------------------ imports
    def import_(self, node) -> bool:
        self.resolved = {}
        guard, line, cell, aliases = self.frame.guard, node.lineno, self.cell, self.aliases
        optional = self.import_tries > 0
        for alias in node.names:
            module = alias.name
            asname = alias.asname
            if asname:
                aliases[asname] = module
            else:
                head = module.partition(".")[0]
                aliases[head] = head
            self.imports.append(ImportFact(module, line, guard, "import", (), cell, optional,
                                           asnames=(asname,) if asname else ()))
        return True

    def import_from(self, node) -> bool:
        self.resolved = {}
        prefix = "." * (node.level or 0)
        module = prefix + (node.module or "")
        joint = "." if node.module else ""
        names = []
        for alias in node.names:
            name = alias.name
            names.append(name)
            if name == "*":
                if not prefix and node.module:
                    self.star_import(node.module)
                continue
            qualified = f"{module}{joint}{name}" if module else name
            local = alias.asname or name
            self.aliases[local] = qualified
            if qualified == "sys.argv":
                self.argv_names.add(local)
            else:
                self.argv_names.discard(local)
        asnames = tuple(alias.asname or "" for alias in node.names) if any(a.asname for a in node.names) else ()
        self.imports.append(ImportFact(module, node.lineno, self.frame.guard, "from", tuple(names), self.cell,
                                       self.import_tries > 0, asnames=asnames))
        return True

    # ------------------------------------------------------------ bindings
    def bind(self, name: str, value, line: int) -> None:
        """``value`` is bound to ``name``: its string fact carries the name, and a plain
        string literal is an assignment."""
        kind = type(value)
        if kind is ast.Constant:
            if type(value.value) is str:
                self.bindings[id(value)] = name
                self.assignments.append(AssignmentFact(name, line, value.value, self.cell))
        elif kind is ast.JoinedStr:
            self.bindings[id(value)] = name

    def assign(self, node) -> bool:
        value = node.value
        line = node.lineno
        kind = type(value)
        targets = node.targets
        if len(targets) == 1 and type(targets[0]) is ast.Name:
            self.url_names.setdefault(targets[0].id, value)
        if kind in _SPREAD_KINDS and self.track_spreads:
            keys = self.spread_of(value)
            if keys is not None:
                for target in targets:
                    if type(target) is ast.Name:
                        self.spread_pending[id(target)] = keys
        for target in node.targets:
            if type(target) in (ast.Tuple, ast.List) and kind in (ast.Tuple, ast.List) \
                    and len(target.elts) == len(value.elts):
                for element, item in zip(target.elts, value.elts, strict=True):
                    name = _target(element)
                    if name:
                        self.bind(name, item, line)
                continue
            name = _target(target)
            if not name:
                continue
            if kind is ast.Constant or kind is ast.JoinedStr:
                if id(value) in self.bindings:
                    # a = b = "x": the literal is bound to the first name, every name is assigned
                    if kind is ast.Constant and type(value.value) is str:
                        self.assignments.append(AssignmentFact(name, line, value.value, self.cell))
                else:
                    self.bind(name, value, line)
            elif kind is ast.Call:
                self.note_engine(name, value)
        return False

    def ann_assign(self, node) -> bool:
        value = node.value
        if value is not None and type(node.target) is ast.Name:
            self.url_names.setdefault(node.target.id, value)
            if type(value) in _SPREAD_KINDS and self.track_spreads:
                keys = self.spread_of(value)
                if keys is not None:
                    self.spread_pending[id(node.target)] = keys
        if value is not None:
            name = _target(node.target)
            if name:
                if type(value) is ast.Call:
                    self.note_engine(name, value)
                else:
                    self.bind(name, value, node.lineno)
        return False

    def named_expr(self, node) -> bool:
        if type(node.value) is ast.Call:
            self.note_engine(node.target.id, node.value)
        else:
            self.bind(node.target.id, node.value, node.lineno)
        return False

    def bind_spread(self, name: str, keys: frozenset[str] | None) -> None:
        """``name`` is bound to a dict with ``keys`` (None: to anything else): a name bound
        twice in a scope may hold either (a branch of an ``if``), so the keywords add up,
        and once bound to something unseen it stays unseen."""
        spreads = self.spreads
        if name in spreads:
            before = spreads[name]
            spreads[name] = None if before is None or keys is None else before | keys
        else:
            spreads[name] = keys

    def spread_of(self, node, depth: int = 0) -> frozenset[str] | None:
        """The keywords a dict written out passes (``{"a": 1}``, ``dict(a=1)``, ``{**d}``
        of a seen name, a conditional expression of them, a name bound only to such),
        None for any other value."""
        kind = type(node)
        if depth > _SPREAD_DEPTH:
            return None
        if kind is ast.Dict:
            keys: set[str] = set()
            for key, value in zip(node.keys, node.values, strict=True):
                if key is None:
                    inner = self.spread_of(value, depth + 1)
                    if inner is None:
                        return None
                    keys |= inner
                elif type(key) is ast.Constant and type(key.value) is str:
                    keys.add(key.value)
                else:
                    return None
            return frozenset(keys)
        if kind is ast.IfExp:
            body = self.spread_of(node.body, depth + 1)
            orelse = self.spread_of(node.orelse, depth + 1) if body is not None else None
            return None if orelse is None else body | orelse
        if kind is ast.Name:
            return self.spread_binding(node.id)
        if kind is ast.Call and type(node.func) is ast.Name and node.func.id == "dict" and "dict" not in self.aliases:
            if len(node.args) > 1:
                return None
            keys = set()
            if node.args:
                inner = self.spread_of(node.args[0], depth + 1)
                if inner is None:
                    return None
                keys |= inner
            for keyword in node.keywords:
                if keyword.arg is not None:
                    keys.add(keyword.arg)
                    continue
                inner = self.spread_of(keyword.value, depth + 1)
                if inner is None:
                    return None
                keys |= inner
            return frozenset(keys)
        return None

    def spread_method(self, name: str, method: str, node) -> None:
        """``d.update(…)``, ``d.setdefault(k, …)`` on a name bound to a dict written out
        add keywords to it."""
        keys = self.spreads.get(name)
        if keys is None:
            return
        added: set[str] | None = set()
        if method == "setdefault":
            first = node.args[0] if node.args else None
            if first is not None and type(first) is ast.Constant and type(first.value) is str:
                added.add(first.value)
            else:
                added = None
        else:
            for argument in node.args:
                inner = self.spread_of(argument)
                if inner is None:
                    added = None
                    break
                added |= inner
            for keyword in node.keywords if added is not None else ():
                inner = frozenset((keyword.arg,)) if keyword.arg is not None else self.spread_of(keyword.value)
                if inner is None:
                    added = None
                    break
                added |= inner
        self.spreads[name] = None if added is None else keys | added

    def note_engine(self, name: str, call) -> None:
        written = _dotted(call.func)
        if written and self.resolve(written) in ENGINES:
            self.engines.add(name)
        elif name in self.engines:
            self.engines.discard(name)

    def dict_(self, node) -> bool:
        keys, values = node.keys, node.values
        line = node.lineno
        for key, value in zip(keys, values, strict=True):
            if key is not None and _is_str(key):
                self.bind(key.value, value, getattr(value, "lineno", line))
        # keys and values interleaved, in document order
        stack = self.stack
        for key, value in zip(reversed(keys), reversed(values), strict=True):
            stack.append(value)
            if key is not None:
                stack.append(key)
        return True

    # ------------------------------------------------------------ calls
    def call(self, node) -> bool:
        func = node.func
        kind = type(func)
        if kind is ast.Name:
            written = func.id
        elif kind is ast.Attribute and type(func.value) is ast.Name:
            written = f"{func.value.id}.{func.attr}"
        else:
            written = _dotted(func)
        args, keywords = node.args, node.keywords
        stack = self.stack
        # children first (pushed last first); a plain dotted callee holds nothing to visit
        if keywords:
            stack.extend([k.value for k in reversed(keywords)])
        if args:
            stack.extend(reversed(args))
        if not written:
            stack.append(func)
            return True
        if "(" in written:
            stack.append(func)
        line = node.lineno
        value = self.value
        if args:
            literal = []
            for argument in args:
                kind = type(argument)
                if kind is ast.Name:
                    literal.append(self.name_expr(argument.id))
                elif kind is ast.Constant and type(argument.value) is str:
                    literal.append(argument.value)
                else:
                    literal.append(value(argument))
            literal_args = tuple(literal)
        else:
            literal_args = ()
        spread: frozenset[str] | None = None   # what the ``**`` arguments pass, when it can be seen
        if keywords:
            pairs = []
            starred = False
            for keyword in keywords:
                arg, argument = keyword.arg, keyword.value
                kind = type(argument)
                if arg and (kind is ast.Constant or kind is ast.JoinedStr):
                    self.bind(arg, argument, argument.lineno)
                if arg is None:
                    keys = self.spread_of(argument) if not starred or spread is not None else None
                    spread = None if keys is None else keys if not starred else spread | keys
                    starred = True
                pairs.append((arg or "**", value(argument)))
            literal_kwargs = tuple(pairs)
        else:
            literal_kwargs = ()
        name = self.resolved.get(written)
        if name is None:
            name = self.resolved[written] = self.resolve(written)
        cell = self.cell
        self.note_url_arguments(args, keywords)
        if spread is None:
            self.calls.append(CallFact(name, written, line, literal_args, literal_kwargs, cell))
        else:
            self.calls.append(CallFact(name, written, line, literal_args, literal_kwargs, cell,
                                       spread_keys=tuple(sorted(spread)), spread_known=True))
        if self.track_spreads and type(func) is ast.Attribute and func.attr in _SPREAD_METHODS \
                and type(func.value) is ast.Name and self.spreads.get(func.value.id) is not None:
            self.spread_method(func.value.id, func.attr, node)
        if name in SHELL_CALLS:
            self.url_pending.append((len(self.calls) - 1, _COMMAND, args[0] if args else next(
                (k.value for k in keywords if k.arg == "args"), None)))
        method = name[name.rfind(".") + 1:]
        if self.frame.handlers:
            if name in LOG_CALLS or (method in LOG_METHODS and written.rpartition(".")[0] in LOG_RECEIVERS):
                self.mark("log")
            elif name in EXIT_CALLS:
                self.mark("reraise")
        # most calls are none of the kinds below: one gate before the tables
        if name in _SPECIAL_NAMES or method in _SPECIAL_METHODS or name.startswith(_SPECIAL_PREFIXES) \
                or (self.engines and written.rpartition(".")[0] in self.engines) or "()." in name:
            self.special_call(node, name, written, method, literal_args, line)
        return True

    def special_call(self, node, name: str, written: str, method: str, literal_args: tuple, line: int) -> None:
        """Imports, randomness, CLI and file I/O read from a call."""
        cell = self.cell
        args = node.args
        if name.startswith("sys.argv.") and type(node.func) is ast.Attribute:
            self.cli_args.append(CliArgFact(line, "sys.argv", "", cell))
        if name in DYNAMIC_IMPORTS and literal_args and type(literal_args[0]) is str:
            self.imports.append(ImportFact(literal_args[0], line, self.frame.guard, "dynamic", (), cell))
        elif method in SETENV_METHODS and len(args) >= 2 and _is_str(args[0]):
            self.bind(args[0].value, args[1], line)
        self.randomness(node, name, written, method, line)
        if name in CLI_CALLS or method in CLI_METHODS:
            self.cli(name, method, literal_args, line)
            if method in CLI_METHODS:
                self.option_default(node, literal_args)
        if name in OPEN_CALLS or name in FILE_CALLS or name.startswith(READ_PREFIXES) or (
                type(node.func) is ast.Attribute and (method in WRITE_METHODS or method in PATH_METHODS)):
            self.file_call(node, name, method, literal_args, line)

    def seed_source(self, seed, unseeded: str) -> str:
        if seed is None or (type(seed) is ast.Constant and seed.value is None):
            return unseeded
        if type(seed) is ast.Constant:
            return "literal"
        if type(seed) is ast.UnaryOp and type(seed.operand) is ast.Constant:
            return "literal"
        text = seed.id if type(seed) is ast.Name else self.segment(seed)
        if any(marker in text for marker in TIME_MARKERS):
            return "time"
        if any(marker in text for marker in ENTROPY_MARKERS):
            return "entropy"
        return "argument"

    def note_guard(self, seed, line: int) -> None:
        """Remember a seed call inside an ``if`` whose test is about the seed itself
        (``if args.seed != 0: torch.manual_seed(args.seed)``), innermost test first."""
        text = self.segment(seed)
        for first, last, cell, conjuncts in reversed(self.seed_guards):
            if cell == self.cell and first <= line <= last:
                conjunct = next((c for c in conjuncts if c[0] == text), None)
                if conjunct is not None:
                    self.guarded_seeds.append((len(self.randoms), conjunct))
                    return

    def default_of(self, subject: str) -> object:
        """The default of a seed expression that reads a parsed command line (``args.seed``
        -> the default of ``--seed``); _UNKNOWN otherwise. A function parameter's seed
        waits for the function's call sites instead (the detector's reading)."""
        head, dot, attribute = subject.rpartition(".")
        if dot and head.isidentifier():
            return self.option_defaults.get(attribute, _UNKNOWN)
        return _UNKNOWN

    def unguard_seeds(self) -> None:
        """A seed set only under a test its own default fails seeds nothing in a default
        run (§0.2.25): seed source ``guarded``, not seeded."""
        for index, (subject, operator, constant) in self.guarded_seeds:
            fact = self.randoms[index]
            default = self.default_of(subject)
            if default is not _UNKNOWN and _fails(operator, default, constant):
                self.randoms[index] = replace(fact, seeded=False, seed_source="guarded")

    @staticmethod
    def seed_argument(node):
        if node.args:
            return node.args[0]
        for keyword in node.keywords:
            if keyword.arg in SEED_KEYWORDS:
                return keyword.value
        return None

    def randomness(self, node, name: str, written: str, method: str, line: int) -> None:
        cell = self.cell
        randoms = self.randoms
        if name in SEEDS:
            seed = self.seed_argument(node)
            source = self.seed_source(seed, "entropy")
            if source == "argument" and self.seed_guards:
                self.note_guard(seed, line)
            randoms.append(RandomFact(line, name, SEEDS[name], "seed", source in ("literal", "argument"),
                                      source, cell))
            return
        if name in ENGINES:
            source = "entropy" if name in ALWAYS_ENTROPY else self.seed_source(self.seed_argument(node), ENGINES[name])
            if id(node) in self.discarded and source in ("literal", "argument"):
                source = "discarded"   # built and thrown away: the seed seeds nothing
            randoms.append(RandomFact(line, name, name, "engine", source in ("literal", "argument", "default"),
                                      source, cell))
            return
        module, _, _ = name.rpartition(".")
        if module == "random" and method in RANDOM_DRAWS or module == "numpy.random" and method not in NUMPY_NOT_DRAWS:
            randoms.append(RandomFact(line, name, module, "draw", False, "", cell))
            return
        if module == "torch" and method in TORCH_DRAWS:
            generator = next((k.value.id for k in node.keywords if k.arg == "generator" and type(k.value) is ast.Name),
                             "torch")
            randoms.append(RandomFact(line, name, generator, "draw", False, "", cell))
            return
        if module == "tensorflow.random" and method in TENSORFLOW_DRAWS:
            randoms.append(RandomFact(line, name, "tensorflow", "draw", False, "", cell))
            return
        receiver = written.rpartition(".")[0]
        if receiver in self.engines:
            if method in ("seed", "manual_seed"):
                source = self.seed_source(self.seed_argument(node), "entropy")
                randoms.append(RandomFact(line, name, receiver, "seed", source in ("literal", "argument"),
                                          source, cell))
            elif method not in ENGINE_NOT_DRAWS:
                randoms.append(RandomFact(line, name, receiver, "draw", False, "", cell))
            return
        if "()." in name:
            engine, _, _ = name.rpartition("().")
            if engine in ENGINES and "(" not in engine and method not in ENGINE_NOT_DRAWS:
                randoms.append(RandomFact(line, name, engine + "()", "draw", False, "", cell))

    def option_default(self, node, args: tuple) -> None:
        """The default of an argparse/optparse option, under its destination: ``dest=``,
        else the first long option (``--random-seed`` -> random_seed), else the first
        name; argparse's own default (None, False for store_true) when none is given."""
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        dest = keywords.get("dest")
        names = [a for a in args if type(a) is str]
        if dest is not None:
            if not _is_str(dest):
                return
            key = dest.value
        else:
            option = next((n for n in names if n.startswith("--")), None) or (names[0] if names else "")
            key = option.lstrip("-").replace("-", "_")
        if not key:
            return
        default = keywords.get("default")
        action = keywords.get("action")
        if default is None:
            value = False if _is_str(action) and action.value == "store_true" else \
                True if _is_str(action) and action.value == "store_false" else None
        else:
            value = default.value if type(default) is ast.Constant else _UNKNOWN
        self.option_defaults[key] = value

    def cli(self, name: str, method: str, args: tuple, line: int) -> None:
        kind = CLI_CALLS.get(name) or CLI_METHODS[method]
        option = ""
        if name in NAMED_CLI or name not in CLI_CALLS:
            strings = [a for a in args if type(a) is str]
            option = next((s for s in strings if s.startswith("--")), None) or \
                next((s for s in strings if s.startswith("-")), None) or \
                (strings[0] if strings and name not in ("typer.Option", "typer.Argument") else "")
        self.cli_args.append(CliArgFact(line, kind, option, self.cell))

    def file_call(self, node, name: str, method: str, args: tuple, line: int) -> None:
        keywords = {k.arg: k.value for k in node.keywords if k.arg}

        def literal_at(index: int, names: tuple, fold: bool = False) -> str | None:
            if index < len(args):
                if type(args[index]) is str:
                    return args[index]
                return (self.joined_literal(node.args[index]) or "") if fold else ""
            for keyword in names:
                if keyword in keywords:
                    value = keywords[keyword]
                    if _is_str(value):
                        return value.value
                    return (self.joined_literal(value) or "") if fold else ""
            return None

        cell = self.cell
        if name in OPEN_CALLS:
            mode_index, default = OPEN_CALLS[name]
            path = literal_at(0, ("file", "filename", "name", "path"))
            mode_node = node.args[mode_index] if len(node.args) > mode_index else keywords.get("mode")
            self.file_io.append(FileIOFact(line, _mode(mode_node, default), path or "", name, cell))
        elif name in FILE_CALLS:
            mode, index, names = FILE_CALLS[name]
            path = literal_at(index, names, fold=mode == "write")
            self.file_io.append(FileIOFact(line, mode, path or "", name, cell))
        elif name.startswith(READ_PREFIXES):
            path = literal_at(0, PANDAS_PATH_KEYWORDS)
            self.file_io.append(FileIOFact(line, "read", path or "", name, cell))
        elif method in WRITE_METHODS:
            path = literal_at(0, WRITE_METHODS[method], fold=True)
            if path is not None:     # df.to_csv() without a path returns text
                self.file_io.append(FileIOFact(line, "write", path, name, cell))
        elif method in PATH_METHODS:
            receiver = node.func.value
            is_path = type(receiver) is ast.Call and self.resolve(_dotted(receiver.func)) in PATH_TYPES
            path = receiver.args[0].value if is_path and receiver.args and _is_str(receiver.args[0]) else ""
            mode = PATH_METHODS[method]
            if mode == "open":
                if not is_path:
                    return      # f.open() on anything else is no file of its own
                mode_node = node.args[0] if node.args else keywords.get("mode")
                mode = _mode(mode_node, "r")
            self.file_io.append(FileIOFact(line, mode, path, name, cell))

    def joined_literal(self, node, depth: int = 0) -> str | None:
        """The one path a write call's argument names when it joins string literals only
        (``os.path.join("img", "fig.svg")``, ``Path("img") / "fig.svg"``, nested too):
        ``img/fig.svg``, the file the code writes (S4). None for anything computed."""
        kind = type(node)
        if kind is ast.Constant:
            return node.value if type(node.value) is str else None
        if depth > 8:
            return None
        if kind is ast.BinOp and type(node.op) is ast.Div:
            left, right = self.joined_literal(node.left, depth + 1), self.joined_literal(node.right, depth + 1)
            return None if left is None or right is None else _join_path(left, right)
        if kind is ast.Call and node.args and not node.keywords \
                and self.resolve(_dotted(node.func)) in PATH_JOINS:
            path = None
            for argument in node.args:
                part = self.joined_literal(argument, depth + 1)
                if part is None:
                    return None
                path = part if path is None else _join_path(path, part)
            return path
        return None

    # ------------------------------------------------------------ definition headers
    def header(self, line: int, wanted: bool) -> str:
        """The stripped text of ``line`` of the unit (a definition's header line, D6's
        evidence), only when ``wanted``: the unit's lines are split on first use."""
        if not wanted:
            return ""
        lines = self.source_lines()
        return redact_text(lines[line - 1].strip()) if 0 < line <= len(lines) else ""

    # ------------------------------------------------------------ comments
    def scan_comments(self, source: str, docstrings: list[CommentFact]) -> None:
        """Comment blocks from one scan of the text, merged with the docstring blocks."""
        blocks: list[CommentFact] = []
        if "#" in source:
            cell = self.cell
            line, position = 1, 0
            previous_whole = False
            for match in _NEXT_COMMENT.finditer(source):
                at = match.start(1)
                if at < 0:
                    break
                line += source.count("\n", position, at)
                position = at
                text = match.group(1)
                start_of_line = source.rfind("\n", 0, at) + 1
                whole = not source[start_of_line:at].strip()
                last = blocks[-1] if blocks else None
                if whole and previous_whole and last is not None and last.line_end == line - 1:
                    blocks[-1] = CommentFact(last.line_start, line, last.text + "\n" + text, False, cell)
                else:
                    blocks.append(CommentFact(line, line, text, False, cell))
                previous_whole = whole
        if docstrings:
            blocks = sorted(blocks + docstrings, key=lambda c: c.line_start)
        self.comments.extend(blocks)

    # ------------------------------------------------------------ code that does not parse
    def fallback(self, source: str) -> None:
        """What a line scan reads from code that does not parse: comments, string
        literals and their URLs, import lines, and def/class lines."""
        cell = self.cell
        blocks: list[CommentFact] = []
        inside: set[int] = set()     # lines a multi-line string literal continues on
        line, position, previous_whole = 1, 0, False
        for match in _STRING_OR_COMMENT.finditer(source):
            at = match.start()
            line += source.count("\n", position, at)
            position = at
            literal = match.group("string")
            if literal is None:
                text = match.group(0)
                whole = not source[source.rfind("\n", 0, at) + 1:at].strip()
                last = blocks[-1] if blocks else None
                if whole and previous_whole and last is not None and last.line_end == line - 1:
                    blocks[-1] = CommentFact(last.line_start, line, last.text + "\n" + text, False, cell)
                else:
                    blocks.append(CommentFact(line, line, text, False, cell))
                previous_whole = whole
                continue
            quote = 3 if literal[:3] in ('"""', "'''") else 1
            value = literal[quote:-quote]
            end = line + literal.count("\n")
            inside.update(range(line + 1, end + 1))
            if "://" in value:
                self.urls_in(value, line)
            self.strings.append(StringFact(value, line, end, "", False, cell, line_scan=True))
        docstrings = self.fallback_docstrings(source)
        if docstrings:
            blocks = sorted(blocks + docstrings, key=lambda c: c.line_start)
        self.comments.extend(blocks)
        lines = source.split("\n")
        for number, text in enumerate(lines, start=1):
            match = _IMPORT_LINE.match(text)
            if match is None:
                continue
            if match.group("modules"):
                for module in match.group("modules").split(","):
                    words = module.split()
                    if words:
                        asname = words[2] if len(words) == 3 and words[1] == "as" else ""
                        self.imports.append(ImportFact(words[0], number, "none", "import", (), cell, line_scan=True,
                                                       asnames=(asname,) if asname else ()))
            elif match.group("from"):
                parts = [n.split() for n in match.group("names").split(",") if n.strip()]
                asnames = tuple(p[2] if len(p) == 3 and p[1] == "as" else "" for p in parts)
                self.imports.append(ImportFact(match.group("from"), number, "none", "from",
                                               tuple(p[0] for p in parts), cell, line_scan=True,
                                               asnames=asnames if any(asnames) else ()))
        self.fallback_definitions(lines, inside)
        self.fallback_main_blocks(lines, inside)
        self.fallback_handlers(source.splitlines())
        self.fallback_calls(lines)
        self.fallback_asserts(lines)
        if "argv" in source:
            self.fallback_argv(lines)

    def fallback_handlers(self, lines: list[str]) -> None:
        """``except`` lines of code that does not parse, each with its body read by
        indentation: ``caught`` is ``"..."`` when bare, else the names as written."""
        for index, line in enumerate(lines):
            if "except" not in line:
                continue
            match = _EXCEPT_LINE.match(line)
            if match is None:
                continue
            spec = _EXCEPT_AS.sub("", match.group("spec")).strip()
            names = [n.strip() for n in spec.strip("() ").split(",") if n.strip()]
            rest = strip_unquoted_comment(match.group("rest")).strip()
            end = index + 1
            if rest:
                body = [s.strip() for s in rest.split(";") if s.strip()]
            else:
                indent = len(match.group("indent").expandtabs())
                body = []
                for follow in range(index + 1, len(lines)):
                    text = lines[follow]
                    code = strip_unquoted_comment(text).strip()
                    if not code:
                        continue
                    if len(text.expandtabs()) - len(text.expandtabs().lstrip()) <= indent:
                        break
                    body.append(code)
                    end = follow + 1
            swallows = bool(body) and all(_SILENT_STATEMENT.match(s) for s in body)
            action = ("continue" if "continue" in body else "pass") if swallows else "other"
            excerpt = " ".join(s.strip() for s in lines[index: min(end, index + 3)]) if swallows else ""
            handler = _Handler(index + 1, ", ".join(names) if spec else "...", 0, 0, self.cell,
                               end if swallows else 0, "empty" if swallows else "", excerpt)
            if action == "continue":
                handler.seen.add(action)
            elif action == "other":
                handler.statements = 1
            self.handlers.append(handler)

    def fallback_docstrings(self, source: str) -> list[CommentFact]:
        """Docstrings of code that does not parse (Python 2), as doc comments: a string
        statement that opens the module or follows a ``def``/``class`` header. What the
        tokenizer would read, from one regular-expression scan: logical lines end at
        newlines outside brackets; an inconsistent dedent stops the scan, as it stops the
        tokenizer."""
        found: list[CommentFact] = []
        cell = self.cell
        at_start, after_header, header_pending = True, True, False
        depth, line, indents = 0, 1, [0]
        for match in _FALLBACK_TOKEN.finditer(source):
            kind = match.lastgroup
            if kind == "newline":
                if depth <= 0 and not at_start:
                    after_header, header_pending, at_start = header_pending, False, True
                line += 1
                continue
            if kind in ("comment", "continuation"):
                line += kind == "continuation"
                continue
            text = match.group()
            if at_start and depth <= 0:
                column = _indent_column(source, match.start())
                if column > indents[-1]:
                    indents.append(column)
                else:
                    while column < indents[-1]:
                        indents.pop()
                    if column != indents[-1]:
                        break
            if kind == "string":
                if at_start and after_header:
                    found.append(CommentFact(line, line + text.count("\n"), text, True, cell))
                line += text.count("\n")
            elif kind == "open":
                depth += 1
            elif kind == "close":
                depth -= 1
            if at_start:
                header_pending = kind == "name" and text in ("def", "class", "async")
                after_header = False
                at_start = False
        return found

    def fallback_calls(self, lines: list[str]) -> None:
        """Calls a line scan reads: each ``dotted.name(`` outside comments, with the
        arguments written on its line (:func:`_fallback_arguments`: literals, plain string
        literals, ``Expr`` otherwise; ``urllib2.urlopen("http://…")`` in Python 2 code). A
        call inside a leading string argument is not read."""
        cell = self.cell
        for number, text in enumerate(lines, start=1):
            if "(" not in text:
                continue
            code = strip_hash_comment(text)
            if "(" not in code:
                continue
            for match in _FALLBACK_CALL.finditer(code):
                written = match.group("name")
                if written in _FALLBACK_NOT_CALLS or code[:match.start()].rstrip().endswith(("def", "class")):
                    continue
                args, kwargs = _fallback_arguments(code, match.end("name"))
                self.calls.append(CallFact(self.resolve(written), written, number, args, kwargs, cell))

    def fallback_definitions(self, lines: list[str], inside: set[int]) -> None:
        """D6's line reading: column-0 defs and classes are functions and classes, a def
        one level inside a column-0 class a method; public and documented as D6 decides;
        the end line read by indentation (:func:`_block_end`)."""
        public_class, in_class, method_indent = False, False, None
        for index, text in enumerate(lines):
            if not text.strip() or text.lstrip().startswith("#"):
                continue
            indent = text[: len(text) - len(text.lstrip())]
            if not indent:
                public_class = in_class = False
                method_indent = None
            match = _DEF_LINE.match(text)
            if match is None:
                if in_class and method_indent is None and indent:
                    method_indent = indent
                continue
            name, keyword = match.group("name"), match.group("kind")
            if not indent:
                kind = "class" if keyword == "class" else "function"
                in_class = keyword == "class"
                public_class = in_class and not name.startswith("_")
                public = not name.startswith("_")
            elif in_class and keyword == "def" and (method_indent is None or indent == method_indent):
                method_indent = indent
                kind, public = "method", public_class and not name.startswith("_")
            else:
                kind, public = ("class" if keyword == "class" else "function"), False
            documented = _documented_at(lines, index)
            self.definitions.append(DefinitionFact(name, kind, index + 1, public, documented,
                                                   (), self.cell, redact_text(text.strip()) if public and not documented else "",
                                                   written_bases=_fallback_bases(text) if keyword == "class" else (),
                                                   end_line=_block_end(lines, index, inside)))

    def fallback_main_blocks(self, lines: list[str], inside: set[int]) -> None:
        """``if __name__ == "__main__":`` at column 0, its block read by indentation."""
        for index, text in enumerate(lines):
            if text.startswith("if") and "__main__" in text and _MAIN_LINE.match(text) and index + 1 not in inside:
                self.blocks.append(BlockFact("__main__", index + 1, _block_end(lines, index, inside), self.cell))

    # ------------------------------------------------------------ URL arguments (CallFact.urls, .command)
    def note_url_arguments(self, args: list, keywords: list) -> None:
        """Queue the arguments of the call about to be recorded that may stand for a URL."""
        index = len(self.calls)
        pending = self.url_pending
        for position, argument in enumerate(args):
            if type(argument) in _URL_SHAPES:
                pending.append((index, str(position), argument))
        for keyword in keywords:
            if keyword.arg and type(keyword.value) in _URL_SHAPES:
                pending.append((index, keyword.arg, keyword.value))

    def resolve_call_urls(self) -> None:
        """Resolve the queued arguments with every name the unit binds, and add the URLs
        (and a subprocess call's command line) to their calls."""
        if not self.url_pending:
            return
        found: dict[int, list[tuple[str, str]]] = {}
        commands: dict[int, str] = {}
        for index, key, node in self.url_pending:
            if key is _COMMAND:
                command = self.shell_text(node)
                if command:
                    commands[index] = command
                continue
            url = self.url_of(node)
            if url:
                found.setdefault(index, []).append((key, url))
        calls = self.calls
        for index in sorted(found.keys() | commands.keys()):
            calls[index] = replace(calls[index], urls=tuple(found.get(index, ())), command=commands.get(index, ""))
        self.url_pending = []

    def url_of(self, node, depth: int = 0) -> str | None:
        if node is None or depth > 4:
            return None
        kind = type(node)
        if kind is ast.Constant:
            text = node.value
            return text if type(text) is str and _URL_START.match(text) else None
        if kind is ast.JoinedStr:
            joined = "".join(v.value if type(v) is ast.Constant and type(v.value) is str else "{}" for v in node.values)
            return joined if _URL_START.match(joined) else None
        if kind is ast.BinOp and type(node.op) in (ast.Add, ast.Mod):
            left = self.url_of(node.left, depth + 1)
            if left is None:
                return None
            if type(node.op) is ast.Mod:   # "https://…/%s.csv" % name: the template is the URL
                return left
            right = node.right
            return left + (right.value if type(right) is ast.Constant and type(right.value) is str else "{}")
        if kind is ast.Call:
            func = node.func
            if type(func) is ast.Attribute and func.attr == "format":
                return self.url_of(func.value, depth + 1)
            if _plain_dotted(func).endswith(("urljoin", "path.join", "posixpath.join")) and node.args:
                return self.url_of(node.args[0], depth + 1)
            return None
        if kind is ast.Name:
            return self.url_of(self.url_names.get(node.id), depth + 1)
        return None

    def shell_text(self, node) -> str | None:
        """The command line of ``os.system("…")`` / ``subprocess.run([...])``."""
        if node is None:
            return None
        kind = type(node)
        if kind in (ast.List, ast.Tuple):
            words = []
            for element in node.elts:
                text = element.value if type(element) is ast.Constant and type(element.value) is str else None
                if text is None:
                    text = self.url_of(element)
                words.append(shlex.quote(text) if text is not None else "ARG")
            return " ".join(words)
        if kind is ast.Constant and type(node.value) is str:
            return node.value
        if kind is ast.JoinedStr:
            return "".join(v.value if type(v) is ast.Constant and type(v.value) is str else "ARG" for v in node.values)
        return None

    def fallback_argv(self, lines: list[str]) -> None:
        """``sys.argv[`` outside a comment: a subscript read of the command line."""
        for index, text in enumerate(lines):
            if "argv" in text and _ARGV_SUBSCRIPT.search(strip_hash_comment(text)):
                self.cli_args.append(CliArgFact(index + 1, "sys.argv", "", self.cell, True))

    def fallback_asserts(self, lines: list[str]) -> None:
        """Lines starting with ``assert`` (S3 counts asserts in test folders)."""
        for index, text in enumerate(lines):
            if _ASSERT_LINE.match(text):
                self.asserts.append(AssertFact(index + 1, self.cell))

    # ------------------------------------------------------------ result
    def finish(self, lines: int, cells: tuple = (), blank_lines: tuple[int, ...] = (),
               embedded: tuple = (), credentials: tuple = ()) -> FileFacts:
        """The facts, redacted (``_common.redact_facts``) before they leave the frontend
        (``embedded`` facts come redacted from their own frontends)."""
        if self.guarded_seeds:
            self.unguard_seeds()
        return redact_facts(FileFacts(
            language=LANGUAGE, frontend="python", frontend_version=frontend_version(),
            imports=tuple(self.imports), calls=tuple(self.calls), strings=tuple(self.strings),
            comments=tuple(self.comments), definitions=tuple(self.definitions),
            assignments=tuple(self.assignments),
            handlers=tuple(h.fact() for h in self.handlers),
            randoms=tuple(self.randoms), cli_args=tuple(self.cli_args), file_io=tuple(self.file_io),
            urls=tuple(self.urls), cells=cells, parse_error=self.parse_error, lines=lines,
            blank_lines=blank_lines,
            asserts=tuple(self.asserts), installs=tuple(self.installs), blocks=tuple(self.blocks),
            embedded=embedded, credentials=credentials,
        ))


_FIELDS: dict[type, tuple[str, ...]] = {}

# the line scan of ``except`` clauses in code that does not parse
_EXCEPT_LINE = re.compile(r"^(?P<indent>[ \t]*)except\b(?P<spec>[^:#]*):(?P<rest>.*)$")
_EXCEPT_AS = re.compile(r"\s+as\s+\w+\s*$")
_SILENT_STATEMENT = re.compile(r"^(?:pass|continue|\.\.\.|[rRuU]?(?:\"[^\"]*\"|'[^']*'))$")


# fallback_calls: a dotted name opening a call (a plain string literal opening its
# arguments is consumed, so that the scan resumes behind it)
_FALLBACK_CALL = re.compile(
    r"""(?<![\w.])(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\(\s*(?P<literal>"[^"\\\n]*"|'[^'\\\n]*')?""")
_PLAIN_STRING = re.compile(r""""[^"\\\n]*"|'[^'\\\n]*'""")
_FALLBACK_KEYWORD = re.compile(r"([A-Za-z_]\w*)\s*=(?!=)\s*(.*)", re.DOTALL)
_FALLBACK_NUMBER = re.compile(r"-?\d+(?:\.\d*)?")
_FALLBACK_CONSTANTS = {"None": None, "True": True, "False": False}


def _fallback_arguments(code: str, name_end: int) -> tuple[tuple, tuple]:
    """``(args, kwargs)`` of the call whose name ends at ``name_end`` in a line of code that
    does not parse, from what follows its ``(`` on the line: split at the commas outside
    brackets and quotes, up to the bracket that closes the call. A value is ``None``,
    ``True``, ``False``, a number, the text of a plain string literal, or ``Expr``; a
    ``*args`` argument is ``Expr("*args")``, ``**kwargs`` the keyword ``"**"``, as the
    walk reads them."""
    start = code.index("(", name_end) + 1
    pieces: list[str] = []
    depth, quote, escaped, begin = 0, "", False, start
    end = len(code)
    for index in range(start, len(code)):
        char = code[index]
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                end = index
                break
            depth -= 1
        elif char == "," and depth == 0:
            pieces.append(code[begin:index])
            begin = index + 1
    pieces.append(code[begin:end])
    args: list = []
    kwargs: list = []
    for piece in pieces:
        piece = piece.strip()
        if not piece:
            continue
        if piece.startswith("**"):
            kwargs.append(("**", Expr(piece[2:].strip()[:EXPR_TEXT_LIMIT])))
            continue
        keyword = _FALLBACK_KEYWORD.fullmatch(piece)
        if keyword is not None:
            kwargs.append((keyword.group(1), _fallback_value(keyword.group(2).strip())))
        else:
            args.append(_fallback_value(piece))
    return tuple(args), tuple(kwargs)


def _fallback_value(text: str):
    if text in _FALLBACK_CONSTANTS:
        return _FALLBACK_CONSTANTS[text]
    if _FALLBACK_NUMBER.fullmatch(text):
        return float(text) if "." in text else int(text)
    if _PLAIN_STRING.fullmatch(text):
        return text[1:-1]
    return Expr(text[:EXPR_TEXT_LIMIT])


# fallback_main_blocks: a module-level ``if __name__ == "__main__":`` line
_MAIN_LINE = re.compile(r"""if\s*\(?\s*(?:__name__\s*==\s*(['"])__main__\1|(['"])__main__\2\s*==\s*__name__)\s*\)?\s*:""")


def _indent_width(text: str) -> int:
    expanded = text.expandtabs(8)
    return len(expanded) - len(expanded.lstrip(" \t"))


def _block_end(lines: list[str], index: int, inside: set[int]) -> int:
    """The last line (1-based) of the block the compound statement header at
    ``lines[index]`` opens, read by indentation in code that does not parse: the header
    up to the line that closes its brackets, then every following line indented deeper
    than the header (blank and comment lines only where a deeper one follows; the lines
    a multi-line string continues on belong to the line it starts on)."""
    width = _indent_width(lines[index])
    end, depth = index, 0
    while end < len(lines):
        code = strip_hash_comment(lines[end])
        depth += code.count("(") + code.count("[") + code.count("{") - code.count(")") - code.count("]") \
            - code.count("}")
        if depth <= 0 or end - index >= 50:
            break
        end += 1
    end = min(end, len(lines) - 1)
    for following in range(end + 1, len(lines)):
        if following + 1 in inside:
            end = following
            continue
        text = lines[following]
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if _indent_width(text) <= width:
            break
        end = following
    return end + 1
_FALLBACK_NOT_CALLS = frozenset({"if", "elif", "while", "for", "return", "print", "exec", "assert", "and", "or",
                                 "not", "in", "is", "lambda", "yield", "del", "raise", "with", "except", "def",
                                 "class", "import", "from", "else"})

# CallFact.urls and .command (resolve_call_urls)
_URL_SHAPES = frozenset({ast.Constant, ast.JoinedStr, ast.BinOp, ast.Call, ast.Name})
_URL_START = re.compile(r"^(?:https?|ftp)://", re.IGNORECASE)
_COMMAND = "\0command"
SHELL_CALLS = frozenset({"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output",
                         "subprocess.Popen", "subprocess.getoutput", "subprocess.getstatusoutput",
                         "os.system", "os.popen"})


def _plain_dotted(node) -> str:
    """``a.b.c`` for attributes on a name, with a call in the chain kept as ``f()`` (the
    reading of ``scoring.parsers.python.dotted_name``); "" otherwise."""
    parts = []
    while type(node) is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    if type(node) is ast.Name:
        parts.append(node.id)
        return ".".join(reversed(parts))
    if type(node) is ast.Call:
        inner = _plain_dotted(node.func)
        if inner:
            parts.append(inner + "()")
            return ".".join(reversed(parts))
    return ""


def _parameter_names(args: ast.arguments) -> tuple[str, ...]:
    """A function's parameters in call order: positional ones, ``*args`` (a bare ``*``
    before keyword-only ones without it), keyword-only ones, ``**kwargs``."""
    names = [a.arg for a in args.posonlyargs + args.args]
    if args.vararg is not None:
        names.append("*" + args.vararg.arg)
    elif args.kwonlyargs:
        names.append("*")
    names.extend(a.arg for a in args.kwonlyargs)
    if args.kwarg is not None:
        names.append("**" + args.kwarg.arg)
    return tuple(names)


_UNKNOWN = object()   # a default the file does not show
_GUARD_OPERATORS = {ast.NotEq: "!=", ast.IsNot: "is not", ast.Gt: ">", ast.GtE: ">="}


def _seed_guard(test, segment) -> tuple:
    """The conjuncts of an ``if`` test a seed's default can fail: ``x != c``, ``x is not
    None``, ``x > c``, ``x >= c`` or a bare ``x`` (truthy), ``x`` a name or attribute, on
    their own or joined by ``and``."""
    parts = test.values if type(test) is ast.BoolOp and type(test.op) is ast.And else [test]
    found = []
    for part in parts:
        kind = type(part)
        if kind is ast.Name or kind is ast.Attribute:
            found.append((segment(part), "truthy", None))
        elif kind is ast.Compare and len(part.ops) == 1 and type(part.ops[0]) in _GUARD_OPERATORS \
                and type(part.comparators[0]) is ast.Constant and type(part.left) in (ast.Name, ast.Attribute):
            found.append((segment(part.left), _GUARD_OPERATORS[type(part.ops[0])], part.comparators[0].value))
    return tuple(found)


def _fails(operator: str, default, constant) -> bool:
    """Whether a seed's default fails a guard's conjunct (so a default run skips the seed)."""
    if operator == "truthy":
        return not default
    if operator == "!=":
        return default == constant
    if operator == "is not":
        return default is constant
    numbers = (int, float)
    if isinstance(default, numbers) and isinstance(constant, numbers) and not isinstance(default, bool):
        return default <= constant if operator == ">" else default < constant
    return False


def _none_defaults(args: ast.arguments) -> tuple[str, ...]:
    """The parameters whose default is the literal None."""
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults, strict=True))
    pairs.extend((a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None)
    return tuple(a.arg for a, d in pairs if type(d) is ast.Constant and d.value is None)


def _decorator_lines(node) -> tuple[int, ...]:
    """The line of each decorator of a def or class."""
    return tuple(d.lineno for d in node.decorator_list) if node.decorator_list else ()


def _no_children(_node) -> bool:
    return True


def _is_type_checking(test) -> bool:
    kind = type(test)
    return (kind is ast.Name and test.id == "TYPE_CHECKING") or \
        (kind is ast.Attribute and test.attr == "TYPE_CHECKING")


def _is_main_guard(test) -> bool:
    return type(test) is ast.Compare and type(test.left) is ast.Name and test.left.id == "__name__" \
        and len(test.comparators) == 1 and _is_str(test.comparators[0]) and test.comparators[0].value == "__main__"


def _is_main_block(test) -> bool:
    """``__name__ == "__main__"``, either way round: the test of a block that runs only when
    the module is run as a script (``BlockFact("__main__")``)."""
    if type(test) is not ast.Compare or len(test.comparators) != 1 or type(test.ops[0]) is not ast.Eq:
        return False
    left, right = test.left, test.comparators[0]
    if type(right) is ast.Name:
        left, right = right, left
    return type(left) is ast.Name and left.id == "__name__" and _is_str(right) and right.value == "__main__"


def _catches_import_errors(node) -> bool:
    if node is None:
        return True
    kind = type(node)
    if kind is ast.Name:
        return node.id in IMPORT_ERROR_NAMES
    if kind is ast.Attribute:
        return node.attr in IMPORT_ERROR_NAMES
    if kind is ast.Tuple:
        return any(_catches_import_errors(e) for e in node.elts)
    return False


def _is_passive(statement, magic_lines: frozenset[int]) -> bool:
    kind = type(statement)
    if kind is ast.Pass:
        return statement.lineno not in magic_lines   # a masked notebook magic does something
    if kind is ast.Expr and type(statement.value) is ast.Constant:
        value = statement.value.value
        return value is Ellipsis or type(value) is str
    return False


def _join_path(head: str, tail: str) -> str:
    """``os.path.join``'s rule: an absolute part starts the path afresh."""
    if tail.startswith("/") or not head:
        return tail
    return head + tail if head.endswith("/") else f"{head}/{tail}"


def _mode(node, default: str) -> str:
    if node is None:
        mode = default
    elif _is_str(node):
        mode = node.value
    else:
        return "unknown"
    if "+" in mode:
        return "readwrite"
    if mode[:1] in ("w", "a", "x"):
        return "write"
    if mode[:1] in ("r", "") or mode == "b":
        return "read"
    return "unknown"


def _documented_at(lines: list[str], index: int) -> bool:
    """Whether the statement after the header starting at ``index`` is a string."""
    depth = 0
    for j in range(index, min(len(lines), index + 50)):
        code = lines[j].split("#", 1)[0]
        depth += code.count("(") + code.count("[") - code.count(")") - code.count("]")
        if depth <= 0 and code.rstrip().endswith(":"):
            following = next((text for text in lines[j + 1:j + 5] if text.strip()), "")
            return _DOCSTRING_START.match(following) is not None
    return False


# --------------------------------------------------------------------------- entry points


def extract(data: bytes, path: str) -> FileFacts:
    """The facts of one Python file (``.py``, ``.pyw``), IPython file (``.ipy``) or notebook.

    The cyclic garbage collector is paused meanwhile: neither a syntax tree nor facts
    hold reference cycles, and a collection triggered by their allocations only
    re-traverses the growing tree (on a 1 MB file it doubles the time of parse and walk).
    Reference counting still frees everything as usual.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _extract(data, path)
    finally:
        if enabled:
            gc.enable()


def _extract(data: bytes, path: str) -> FileFacts:
    lowered = path.lower()
    if lowered.endswith(".ipynb"):
        return _notebook(data, path)
    text = decode(data)
    walker = _Walker()
    walker.track_spreads_in((text,))
    credentials = None
    if lowered.endswith(".ipy"):
        cell = Cell(index=1, cell_type="code", source=text)
        split_magics(cell)
        walker.unit(cell.python_source, None, frozenset(m.line for m in cell.magics))
    else:
        walker.unit(text)
        credentials = _script_credentials(data, text, walker.tree)
    return _finished(walker, credentials, count_lines(data), blank_lines=blank_line_numbers(text))


def _finished(walker: _Walker, credentials: Credentials | None, lines: int, *args, **kwargs) -> FileFacts:
    """The walk's facts with the file's credentials, each secret they found masked in
    every other fact (``_credentials.mask_secrets``: a binding the snippet redaction
    does not see, ``os.environ.setdefault("TOKEN", "…")``, leaves the secret in a call's
    arguments)."""
    found = credentials.facts() if credentials is not None else ()
    facts = walker.finish(lines, *args, credentials=found, **kwargs)
    return mask_secrets(facts, credentials.secrets()) if found else facts


def _script_credentials(data: bytes, text: str, tree: ast.Module | None) -> Credentials:
    """The credentials of a script, read in its text as UTF-8 (bad bytes replaced; line
    ends as written), the text every line-based reader of the scorer reads: the walk's
    parse serves unless the coding cookie or line ends made ``decode`` give another text."""
    found = Credentials()
    if (data.isascii() and b"\r" not in data) or (as_read := data.decode("utf-8", "replace")) == text:
        found.python(text, tree)
    else:
        found.python_source(as_read)
    return found


def extract_chunks(chunks: list[tuple[int, str]]) -> FileFacts:
    """The facts of the Python chunks of an R Markdown / Quarto document (the R
    frontend's ``FileFacts.embedded``): each ``(offset, code)``, the line before the
    chunk's first line and its code, parsed and walked on its own with the document's
    lines, import aliases carrying from chunk to chunk; ``lines`` counts the chunks' lines."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        walker = _Walker()
        walker.track_spreads_in(code for _, code in chunks)
        for offset, code in chunks:
            walker.unit("\n" * offset + code)
        return walker.finish(sum(count_lines(code.encode("utf-8", "surrogatepass")) for _, code in chunks))
    finally:
        if enabled:
            gc.enable()


def _notebook(data: bytes, path: str) -> FileFacts:
    walker = _Walker()
    credentials = Credentials()
    try:
        notebook = parse_notebook(data.decode("utf-8", "replace"), path)
    except (NotebookError, RecursionError, MemoryError) as exc:
        walker.parse_error = f"NotebookError: {exc}"
        # the source lines a line scan recovers from the JSON text, one per file line
        source = notebook_fallback_source(data.decode("utf-8", "replace"))
        walker.unit(source)
        credentials.python(source, walker.tree)
        return _finished(walker, credentials, 0)
    cells, lines = [], 0
    foreign: dict[str, list[tuple[int, FileFacts]]] = {}
    walker.track_spreads_in(cell.python_source for cell in notebook.cells
                            if cell.cell_type == "code" and cell.language == "python")
    for cell in notebook.cells:
        cells.append(NotebookCellFact(cell.index, cell.cell_type, cell.execution_count, cell.output_kinds,
                                      tuple(m.text.strip() for m in cell.magics),
                                      len(cell.source.strip()) if cell.cell_type == "markdown" else 0,
                                      cell.source.count("\n"), **_cell_extras(cell)))
        if cell.cell_type != "code":
            continue
        lines += count_lines(cell.source.encode("utf-8", "surrogatepass"))
        if cell.language == "python":
            if any(m.text.lstrip().startswith("%pylab") for m in cell.magics):
                walker.star_import("pylab")
            if cell.python_source.strip():
                walker.unit(cell.python_source, cell.index, frozenset(m.line for m in cell.magics))
                credentials.python(cell.python_source, walker.tree, cell.index, cell.line_offset)
            else:
                credentials.python(cell.python_source, None, cell.index, cell.line_offset)
            credentials.magics(cell, cell.index, cell.line_offset)
            r_lines = _r_line_magics(cell) if cell.magics else None
            if r_lines is not None:
                foreign.setdefault("r", []).append((cell.index, r_lines))
            continue
        credentials.other_cell(cell, cell.index)
        if cell.language in FOREIGN_CELLS:
            facts = _foreign_cell(cell)
            walker.imports.extend(facts.imports)     # C2 reads them among the notebook's imports
            walker.installs.extend(facts.installs)
            if cell.language == "r":
                _r_cell_handlers(walker, cell.index, facts)
            foreign.setdefault(cell.language, []).append((cell.index, facts))
    embedded = tuple(_joined(foreign[language]) for language in FOREIGN_CELLS if language in foreign)
    return _finished(walker, credentials, lines, tuple(cells), embedded=embedded)


# the languages of notebook cells another frontend reads (FileFacts.embedded)
FOREIGN_CELLS = ("r", "julia")


def _foreign_cell(cell: Cell) -> FileFacts:
    """The facts of an R or Julia code cell (an R or Julia kernel, ``%%R``) from its
    language's frontend, each fact carrying the cell, lines counted within the cell (a
    ``%%R`` line is blanked, not removed)."""
    from scoring.frontends import julia as julia_frontend
    from scoring.frontends import r as r_frontend

    body = cell.source
    lines = body.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        body = "\n".join(["", *lines[1:]])
    frontend, name = (r_frontend, "cell.R") if cell.language == "r" else (julia_frontend, "cell.jl")
    # the notebook's credentials are read across all its cells (``Credentials.other_cell``)
    return _in_cell(frontend.extract(body.encode("utf-8", "surrogatepass"), name, credentials=False), cell.index)


# ``%R [-i x] [-o y] [-w 5] code``: rpy2's R line magic, its options before the code
_R_LINE_MAGIC = re.compile(r"^\s*%R(?:\s+-{1,2}[A-Za-z][\w-]*(?:[ =](?!-)\S+)?)*\s+(?P<code>\S.*)$")


def _r_line_magics(cell: Cell) -> FileFacts | None:
    """The R of a Python cell's ``%R`` line magics (METRICS §0.2.24: their bodies are R, as
    ``%%R`` cells are), each at its line within the cell; None when there is none. Only
    ``FileFacts.embedded`` carries them (S1), not the notebook's own imports."""
    from scoring.frontends import r as r_frontend

    lines = [""] * (cell.source.count("\n") + 1)
    found = False
    for magic in cell.magics:
        match = _R_LINE_MAGIC.match(magic.text)
        if match is not None and 0 < magic.line <= len(lines):
            lines[magic.line - 1] = match.group("code")
            found = True
    if not found:
        return None
    return _in_cell(r_frontend.extract("\n".join(lines).encode("utf-8", "surrogatepass"), "cell.R"), cell.index)


def _in_cell(facts: FileFacts, index: int) -> FileFacts:
    """``facts`` with ``cell`` set on every fact that has one."""
    changes = {}
    for name in _LIST_FIELDS:
        items = getattr(facts, name)
        if items and "cell" in items[0].__dataclass_fields__:
            changes[name] = tuple(replace(item, cell=index) for item in items)
    return replace(facts, **changes) if changes else facts


def _joined(parts: list[tuple[int, FileFacts]]) -> FileFacts:
    """The facts of the cells of one language as one ``FileFacts``: the facts of each
    cell in cell order, ``parse_error`` naming the first cell that has one, ``lines`` the
    cells' lines together (blank lines are not kept: their numbers count within a cell)."""
    first = parts[0][1]
    error = next((f"cell {index}: {facts.parse_error}" for index, facts in parts if facts.parse_error), None)
    joined = {name: tuple(item for _, facts in parts for item in getattr(facts, name)) for name in _LIST_FIELDS}
    return replace(first, **joined, parse_error=error, lines=sum(facts.lines for _, facts in parts), blank_lines=())


def _r_cell_handlers(walker: _Walker, index: int, facts: FileFacts) -> None:
    """The handlers that swallow errors in an R code cell (``_foreign_cell``), also among
    the notebook's own handlers (C4 reads them there)."""
    for handler in facts.handlers:
        if handler.swallows:
            record = _Handler(handler.line, handler.caught, 0, 0, index, handler.end_line, handler.swallows,
                              handler.excerpt, handler.start_line)
            if handler.action == "other":
                record.statements = 1
            elif handler.action != "pass":
                record.seen.add(handler.action)   # the R frontend's action, kept
            walker.handlers.append(record)


def _cell_extras(cell: Cell) -> dict:
    """The signals' fields of a cell's fact: stored outputs, tags, language, line count;
    the shell commands of its magics (C2's inline installs, A4); the lines of a cell in
    another language (A2, A4)."""
    return {
        "commands": shell_commands(cell),
        "has_outputs": cell.has_outputs,
        "tags": cell.tags,
        "language": cell.language if cell.cell_type == "code" else "",
        "line_count": len(cell.source.splitlines()),
        "code_lines": other_language_lines(cell),
        "magic_lines": tuple(m.line for m in cell.magics),
    }


# --------------------------------------------------------------------------- class bases, asserts (S3)

_ASSERT_LINE = re.compile(r"\s*assert\b")
_CLASS_BASES = re.compile(r"\s*class\s+\w+\s*\(([^)]*)")


def _bases(node: ast.ClassDef) -> tuple[str, ...]:
    """The base classes that are dotted names, as written (``unittest.TestCase``)."""
    return tuple(name for name in map(_dotted, node.bases) if name and "(" not in name)


def _fallback_bases(text: str) -> tuple[str, ...]:
    """The bases of a ``class`` line that does not parse: the words between its parentheses."""
    match = _CLASS_BASES.match(text)
    if match is None:
        return ()
    return tuple(part.strip() for part in match.group(1).split(",") if part.strip())


_ARGV_SUBSCRIPT = re.compile(r"(?<![\w.])sys\.argv\s*\[")



# FileFacts fields holding facts (``_joined``, ``_in_cell``)
_LIST_FIELDS = tuple(f.name for f in fields(FileFacts)
                     if f.name not in ("cells", "blank_lines", "embedded")
                     and isinstance(f.default, tuple))
