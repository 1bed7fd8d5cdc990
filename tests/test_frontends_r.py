"""R frontend: exact facts from small synthetic sources."""

from __future__ import annotations

import pytest

from scoring.facts import (
    AssignmentFact,
    CliArgFact,
    CommentFact,
    DefinitionFact,
    Expr,
    FileIOFact,
    HandlerFact,
    ImportFact,
    NotebookCellFact,
    RandomFact,
    UrlFact,
)
from scoring.frontends import r

SCRIPT = b"""library(dplyr)
suppressPackageStartupMessages(require("ggplot2"))
if (!requireNamespace("BiocManager", quietly = TRUE)) install.packages("BiocManager")
spread <- stats::sd(c(1, 2))

#' Add two numbers
#' @export
add <- function(a, b = 2) {
  a + b
}
.hidden <- function() NULL
set.seed(42)
draws <- runif(3)
api_key <- "abc123"
table <- tryCatch(read.csv("data/in.csv"), error = function(e) NULL)
quiet <- try(log(-1), silent = TRUE)
loud <- tryCatch(f(), warning = function(w) { message("w"); NULL }, error = function(e) stop(e))
args <- commandArgs(trailingOnly = TRUE)
download.file("https://example.org/d.zip", destfile = "d.zip")  # fetch the data
"""


def facts():
    return r.extract(SCRIPT, "analysis.R")


def test_library_require_requirenamespace_and_qualified_use_are_imports():
    assert facts().imports == (
        ImportFact("dplyr", 1, "none", "library"),
        ImportFact("ggplot2", 2, "none", "require"),
        ImportFact("BiocManager", 3, "conditional", "requireNamespace"),
        ImportFact("stats", 4, "none", "pkg::"),
    )


def test_imports_inside_try_are_guarded():
    assert r.extract(b"ok <- try(library(foo))\n", "a.R").imports == (ImportFact("foo", 1, "try", "library"),)


def test_a_package_tested_for_in_an_if_condition_is_probed():
    # §0.2.21: the test and the same package's uses in the then-branch are optional; a
    # negated test goes on to need the package, another package in the branch is counted
    source = (b'if (requireNamespace("opt", quietly = TRUE) & require(two)) {\n  opt::run()\n'
              b'  library(other)\n} else {\n  opt::fallback()\n}\nif (!require("need")) stop("install need")\n')
    assert [(i.module, i.line, i.guard, i.kind) for i in r.extract(source, "a.R").imports] == [
        ("opt", 1, "probe", "requireNamespace"), ("two", 1, "probe", "require"), ("opt", 2, "probe", "pkg::"),
        ("other", 3, "conditional", "library"), ("opt", 5, "conditional", "pkg::"),
        ("need", 7, "conditional", "require")]


def test_set_seed_is_a_literal_seed_and_runif_a_draw_of_the_same_generator():
    assert facts().randoms == (
        RandomFact(12, "set.seed", "R", "seed", True, "literal"),
        RandomFact(13, "runif", "R", "draw", False, ""),
    )


def test_time_seeds_and_permutation_arguments():
    source = b"set.seed(as.numeric(Sys.time()))\nres <- adonis2(d ~ g, permutations = 999)\nset.seed(s)\n"
    assert r.extract(source, "a.R").randoms == (
        RandomFact(1, "set.seed", "R", "seed", False, "time"),
        RandomFact(2, "adonis2", "R", "draw", False, ""),
        RandomFact(3, "set.seed", "R", "seed", True, "argument", seed_text="s"),
    )


def test_function_formals_and_those_a_call_may_leave_out():
    # S1, §0.2.25: a NULL/NA default, or no default and a missing() test, may be left out
    source = (b"fit <- function(x, folds, seed, k = 5, s2 = NULL, s3 = NA, ...) {\n"
              b"  if (!missing(seed)) set.seed(seed)\n  x\n}\n")
    (definition,) = r.extract(source, "a.R").definitions
    assert definition.parameters == ("x", "folds", "seed", "k", "s2", "s3", "...")
    assert definition.none_defaults == ("seed", "s2", "s3")


def test_jags_seeds_and_other_seed_arguments():
    source = (b"inits <- list(.RNG.name = \"base::Wichmann-Hill\",\n  .RNG.seed = 9)\n"
              b"rjags::jags.seed(4)\n"
              b"b <- BESTmcmc(y1, y2, rnd.seed = s)\n"
              b"m <- runMCMC(cm, setSeed = FALSE)\n"
              b"c0 <- list(.RNG.seed = as.numeric(Sys.time()))\n")
    assert r.extract(source, "a.R").randoms == (
        RandomFact(2, "list", "JAGS", "seed", True, "literal"),
        RandomFact(3, "rjags::jags.seed", "JAGS", "seed", True, "literal"),
        RandomFact(4, "BESTmcmc", "BESTmcmc", "seed", True, "argument"),
        RandomFact(5, "runMCMC", "runMCMC", "seed", False, "none"),
        RandomFact(6, "list", "JAGS", "seed", False, "time"),
    )


def test_a_seed_argument_seeds_its_own_call_at_the_arguments_line():
    source = (b"fit <- mikropml::run_ml(\n  otus,\n  seed = 2019\n)\n"
              b"fit2 <- ranger(y ~ ., data = d, seed = NA)\nm <- brm(y ~ x, seed = SEED)\n")
    assert r.extract(source, "a.R").randoms == (
        RandomFact(3, "mikropml::run_ml", "mikropml::run_ml", "seed", True, "literal"),
        RandomFact(5, "ranger", "ranger", "seed", False, "none"),
        RandomFact(6, "brm", "brm", "seed", True, "argument"),
    )


def test_roxygen_block_documents_the_function_below_it():
    result = facts()
    assert result.definitions == (
        DefinitionFact("add", "function", 8, True, True, end_line=10, parameters=("a", "b"), inputs=("a", "b")),
        DefinitionFact(".hidden", "function", 11, False, False, end_line=11),
    )
    assert result.comments == (
        CommentFact(6, 7, "#' Add two numbers\n#' @export", True),
        CommentFact(19, 19, "# fetch the data", False),
    )


def test_roxygen_documents_across_blank_lines_plain_comments_and_double_hash():
    result = r.extract(
        b"#' Fit\n#' @export\n\nfit <- function(x) x\n"
        b"#' Plot\n# nolint start\nplot_it <- function(x) x\n"
        b"##' Summary\nsummary_of <- function(x) x\n"
        b"#' Data docs\nNULL\n\nafter_code <- function(x) x\n"
        b"#' spent by the first object\nfirst <- function(x) x\nsecond <- function(x) x\n",
        "R/fit.R")
    assert [(d.name, d.documented) for d in result.definitions] == [
        ("fit", True), ("plot_it", True), ("summary_of", True), ("after_code", False), ("first", True),
        ("second", False)]


def test_silent_handlers_and_what_the_others_do():
    assert facts().handlers == (
        HandlerFact(15, "error", "pass", None, 15, "null_handler",
                    'table <- tryCatch(read.csv("data/in.csv"), error = function(e) NULL)'),
        # assigned: its value can be inspected, so it does not swallow the error
        HandlerFact(16, "error", "pass", None, 16),
        # every handler's last line: the try call's, each tryCatch handler function's
        HandlerFact(17, "warning", "log", None, 17),
        HandlerFact(17, "error", "reraise", None, 17),
    )


def test_try_without_silent_prints_the_error():
    assert r.extract(b"try(f())\n", "a.R").handlers == (HandlerFact(1, "error", "log", None, 1),)


def test_strings_assignments_io_cli_and_urls():
    result = facts()
    # the value bound to a credential-like name is masked before facts leave the frontend
    assert result.assignments == (AssignmentFact("api_key", 14, "abc1…(6 chars)"),)
    assert result.file_io == (FileIOFact(15, "read", "data/in.csv", "read.csv"),)
    assert result.cli_args == (CliArgFact(18, "commandArgs"),)
    assert result.urls == (UrlFact("https://example.org/d.zip", 19),)
    assert [(s.value, s.binding) for s in result.strings if s.line_start in (14, 19)] == [
        ("abc1…(6 chars)", "api_key"), ("https://example.org/d.zip", ""), ("d.zip", "destfile")]


def test_a_name_bound_to_a_url_built_from_a_literal_base_is_an_assignment():
    result = r.extract(
        b'uri <- paste0("https://eutils.example.org/eutils/", util, ".fcgi")\n'
        b'page = sprintf("https://example.org/p/%s.csv", id)\n'
        b'glue::glue("ftp://example.org/{x}") -> remote\n'
        b'local <- paste0(base, "https://example.org/")\n'
        b'stem <- paste0("data/", name)\n'
        b'again <- paste0(uri, ids)\n', "R/base.R")
    # the first argument, when it is a URL literal (the built string starts with it); the
    # rest of the string is not known, and a string that starts with a variable is no URL
    assert result.assignments == (
        AssignmentFact("uri", 1, "https://eutils.example.org/eutils/"),
        AssignmentFact("page", 2, "https://example.org/p/%s.csv"),
        AssignmentFact("remote", 3, "ftp://example.org/{x}"),
    )


def test_call_arguments_keep_literals_and_mark_expressions():
    call = r.extract(b"f(1L, -2.5, TRUE, NULL, 'a', x, k = NA)\n", "a.R").calls[0]
    assert (call.name, call.args, call.kwargs) == ("f", (1, -2.5, True, None, "a", Expr("x")), (("k", Expr("NA")),))


def test_rmarkdown_chunks_are_read_in_place_and_eval_false_chunks_skipped():
    document = (b"---\ntitle: x\n---\nText with set.seed(1) in prose.\n"
                b"```{r setup}\nlibrary(tidyr)\n```\n"
                b"```{r, eval=FALSE}\nlibrary(never)\n```\n"
                b"```{r}\n#| eval: false\nlibrary(neither)\n```\n")
    result = r.extract(document, "report.Rmd")
    assert result.imports == (ImportFact("tidyr", 6, "none", "library"),)
    assert result.randoms == ()
    assert result.lines == 14
    # the document's cells; a markdown cell's chars leave the YAML front matter out; a
    # chunk's code lines are the document's (eval = FALSE chunks included: they are cells)
    assert result.cells == (
        # a code cell's line_offset: the line before its first code line
        NotebookCellFact(1, "markdown", chars=31),
        NotebookCellFact(2, "code", language="r", line_offset=5, code_lines=((6, "library(tidyr)"),)),
        NotebookCellFact(3, "code", language="r", line_offset=8, code_lines=((9, "library(never)"),)),
        NotebookCellFact(4, "code", language="r", line_offset=11,
                         code_lines=((12, "#| eval: false"), (13, "library(neither)"))),
    )
    assert result.blank_lines == ()


def test_rmarkdown_shell_and_other_chunks_keep_their_commands_and_lines():
    document = (b"Intro\n```{bash}\nwget https://example.org/d.zip\n\n  unzip d.zip\n```\n"
                b"```{sql}\nSELECT 1\n```\n```{python}\nimport os\n```\n")
    assert r.extract(document, "get.qmd").cells == (
        NotebookCellFact(1, "markdown", chars=5),
        NotebookCellFact(2, "code", None, (), ("wget https://example.org/d.zip", "unzip d.zip"), language="shell",
                         commands=((3, "wget https://example.org/d.zip"), (5, "unzip d.zip")), line_offset=2, magic_lines=(3, 5)),
        NotebookCellFact(3, "code", language="other", line_offset=7, code_lines=((8, "SELECT 1"),)),
        NotebookCellFact(4, "code", language="python", line_offset=10),
    )


def test_blank_lines_of_an_r_script():
    assert r.extract(b"x <- 1\n\n  \ny <- 2\n", "a.R").blank_lines == (2, 3)


def test_parse_error_is_a_fact_and_the_rest_is_still_read():
    result = r.extract(b"library(a)\nf <- function( {\nset.seed(3)\n", "broken.R")
    assert result.parse_error == "syntax error at line 2"
    assert ImportFact("a", 1, "none", "library") in result.imports


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        # a try whose value is dropped swallows the error: as a statement, a body, wrapped
        ("try(f(x), silent = TRUE)\n", (1, 1, "silent", "try(f(x), silent = TRUE)", 0)),
        ("if (ok) try(f(x), T)\n", (1, 1, "silent", "if (ok) try(f(x), T)", 0)),
        ("invisible(try(f(x), silent = TRUE))\n", (1, 1, "silent", "invisible(try(f(x), silent = TRUE))", 0)),
        ("for (i in 1:3) {\n  try(\n    f(i),\n    silent = TRUE\n  )\n}\n",
         (2, 5, "silent", "try( f(i), silent = TRUE", 0)),
        ("res <- try(f(x), silent = TRUE)\n", None),
        ("try(f(x), silent = TRUE) -> res\n", None),
        ("if (inherits(try(f(x), silent = TRUE), 'try-error')) stop()\n", None),
        ("base::try(f(x), silent = TRUE)\n", None),
        # a tryCatch error handler that returns nothing; the evidence starts at tryCatch(
        ("tryCatch({\n  f()\n},\nerror = function(e) invisible(NULL))\n",
         (4, 4, "null_handler", "tryCatch({ f() },", 1)),
        ("tryCatch(f(), error = function(e) {\n  # nothing\n})\n",
         (1, 3, "null_handler", "tryCatch(f(), error = function(e) { # nothing })", 0)),
        ("tryCatch(f(), error = function(e) 'x')\n", None),
        ("tryCatch(f(), warning = function(w) NULL)\n", None),
    ],
)
def test_handlers_that_swallow_the_error(code, expected):
    swallowing = [(h.line, h.end_line, h.swallows, h.excerpt, h.start_line)
                  for h in r.extract(code.encode(), "a.R").handlers if h.swallows]
    assert swallowing == ([expected] if expected else [])


def test_rmarkdown_chunk_code_setting_eval_false_is_still_code():
    doc = (b"```{r include=FALSE}\nif (!ok) {\n  knitr::opts_chunk$set(eval = FALSE)\n}\nset.seed(333)\n```\n"
           b"```{r}\n#| eval = FALSE\nlibrary(skipped)\n```\n")
    result = r.extract(doc, "v.Rmd")
    assert [(c.name, c.line) for c in result.calls] == [("knitr::opts_chunk$set", 3), ("set.seed", 5)]
    assert result.frontend_version.startswith("1.2.4+")


def test_rmarkdown_python_and_julia_chunks_are_embedded_with_the_documents_lines():
    doc = (b"---\ntitle: x\n---\n```{r}\nx <- rnorm(5)\n```\n"
           b"```{python}\nimport random as rnd\nrnd.shuffle(v)\n```\n"
           b"```{python, eval=FALSE}\nimport never\n```\n"
           b"```{julia}\nusing Random\nRandom.seed!(1)\n```\n"
           b"```{python}\nprint 'py2'\nrnd.seed(1)\n```\n")
    result = r.extract(doc, "report.qmd")
    assert [(c.name, c.line) for c in result.calls] == [("rnorm", 5)]
    python, julia = result.embedded
    assert (python.language, julia.language) == ("python", "julia")
    assert [(i.module, i.line, i.asnames) for i in python.imports] == [("random", 8, ("rnd",))]
    # each chunk parses on its own: the Python 2 one is read by the line scan
    # (aliases carry from chunk to chunk)
    assert [(c.name, c.line) for c in python.calls] == [("random.shuffle", 9), ("random.seed", 20)]
    assert python.parse_error.endswith("(line 19)")
    assert [(c.written, c.line) for c in julia.calls] == [("Random.seed!", 16)]
    assert julia.blank_lines == ()
    assert r.extract(b"```{r}\nx <- 1\n```\n", "a.Rmd").embedded == ()
