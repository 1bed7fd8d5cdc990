"""Category S detectors (scoring/detectors/signals/): golden fixtures of S1–S7 and the
rules and bad inputs the fixtures cannot hold or do not pin down."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import scoring.detectors.signals  # noqa: F401 - registers the S detectors
from scoring.registry import DOC_SECTIONS, REGISTRY
from scoring.tree import TreeIndex

FIXTURES = Path(__file__).parent / "fixtures"

S_METRICS = (
    "seed_management",
    "notebook_exec_order",
    "test_file_presence",
    "expected_outputs",
    "ci_presence",
    "config_externalised",
    "hardware_requirements",
)


@pytest.fixture
def measure_s(make_tree):
    """``measure_s(metric, files)`` → the Measurement of one S detector on a fresh tree."""

    def run(metric: str, files: dict[str, str | bytes]):
        return REGISTRY[metric].run(TreeIndex.from_path(make_tree(files)))

    return run


def notebook(*cells, nbformat: int = 4) -> str:
    """A notebook whose code cells are ``(source, execution_count)`` pairs; strings are markdown."""
    out = []
    for cell in cells:
        if isinstance(cell, str):
            out.append({"cell_type": "markdown", "metadata": {}, "source": cell})
        else:
            out.append({"cell_type": "code", "execution_count": cell[1], "metadata": {}, "outputs": [], "source": cell[0]})
    return json.dumps({"nbformat": nbformat, "nbformat_minor": 5, "metadata": {}, "cells": out})


def evidence_of(measurement, rule: str) -> list[dict]:
    return [e.to_dict() for e in measurement.evidence if e.rule == rule]


# One small tree per ecosystem a fix is written for (scoring.detectors._shared.fix_ecosystem)
BARE_TREES = {
    "python": {"analysis.py": "x = 1\n"},
    "r": {"analysis.R": "x <- 1\n"},
    "julia": {"analysis.jl": "x = 1\n"},
    "matlab": {"analysis.m": "x = 1;\n"},
    "native": {"src/model.c": "int main(void) { return 0; }\n"},
    "nextflow": {"main.nf": "workflow { }\n"},
    "snakemake": {"Snakefile": "rule all:\n    input: 'x'\n"},
}


# --------------------------------------------------------------------------- fixtures


@pytest.mark.parametrize("metric", S_METRICS)
def test_every_s_metric_has_three_fixtures_and_a_documented_detector(metric):
    assert len(list((FIXTURES / metric).glob("*/expected.json"))) >= 3
    detector = REGISTRY[metric]
    # the V2 rules; 2.0.1: config_externalised's sys.argv evidence in reading order, seed_management
    # read from facts (imports anywhere on a line, != main guards, R/Julia notebook cells parsed);
    # 2.1.0: test_file_presence's §0.3 test suites in every ecosystem; seed_management's C/C++ and
    # Fortran randomness, test and vendored files excluded; config_externalised's parameter files the
    # code loads, native input decks and command lines, MATLAB inputParser; expected_outputs' §0.2.18
    # output files (16 bytes, no code) and §0.3 test expected-output folders and nf-test snapshots;
    # test_file_presence 2.1.1: up to 50 test files, the ones with the most tests first;
    # config_externalised 2.1.1: where argparse options are declared, every parameter file shown;
    # ci_presence 2.0.1: every test-running line (meson test, --lint, test steps), not installs;
    # hardware_requirements 2.0.1: a statement before a badge line, the environment's declarations shown;
    # expected_outputs 2.1.1: the folders holding several figures, figures in turn from them;
    # test_file_presence 2.2.0: native test programs, pFUnit, Julia test sub-folders and runners,
    # Snakemake CI folders, CI-run validation scripts, fixes in the tree's ecosystem; ci_presence
    # 2.0.2: workflow test runs, fpm test and validation scripts run tests, fixes in the tree's ecosystem;
    # expected_outputs 2.2.0: README pictures and copies of documentation images are not figures, a
    # README showing what the output looks like is the 60 tier, fixes in the tree's ecosystem;
    # config_externalised 2.2.0: vendored, build and dependency-folder code out, Nextflow params without
    # defaults and a MATLAB driver's arguments are the 80 tier, fixes in the tree's ecosystem;
    # hardware_requirements 2.1.0: MATLAB gpuArray, CUDA sources and builds, batch GPU requests and
    # workflow accelerators/GPU resources make it applicable, batch and workflow resource requests declare it;
    # expected_outputs 2.3.0: files the deposit's code writes are outputs in documentation locations;
    # config_externalised 2.3.0: gflags DEFINE_* calls (tf.app.flags, absl.flags) are the 80 tier;
    # 2.4.0: a MATLAB parameter script the driver runs is a parameter file (2.4.1: a workflow's own
    # parameters shown first); test_file_presence 2.3.0
    # and expected_outputs 2.4.0: the case folders of data-driven regression suites; test_file_presence
    # 2.3.0 and ci_presence 2.0.3: native fixes through the tree's own build system;
    # notebook_exec_order 2.1.0: notebooks over 2 MiB are read, capped on their code (§0.2.5);
    # test_file_presence 2.4.0: test-named and shell CI validation scripts; expected_outputs
    # 2.5.0: README sentences showing what a run produces, 2.6.0: test reference-genome folders;
    # ci_presence 2.0.4: runs_tests through those validation scripts
    # a README spelt otherwise (READ_ME.txt) is found when no listed name exists (TreeIndex.readme,
    # §0.1.13 fallback): every detector that reads the README bumped; config_externalised 2.5.0:
    # structured files handed to a loader, Snakefile config reads, Julia ArgMacros; test_file_presence
    # 2.5.0: R tests in any test folder or test-named anywhere; expected_outputs 2.8.0: a folder of
    # README images only is a documentation figure folder; seed_management 2.20.0: dotted calls
    # bound by no import are no module calls, seeds under a test their default fails; 2.21.0: a C library
    # draw name shadowed by the tree's own function or the enclosing class's method; expected_outputs
    # 2.9.0: img/ folders are documentation only when a README beside or above embeds one of their files
    assert detector.version == {"config_externalised": "2.5.0", "seed_management": "2.21.0",
                                "test_file_presence": "2.5.0", "expected_outputs": "2.9.0",
                                "ci_presence": "2.0.4", "hardware_requirements": "2.2.0",
                                "notebook_exec_order": "2.1.0"}.get(metric, "2.0.0")
    sections = detector.sections()
    assert sections[""].strip()
    assert all(sections.get(title) for title in DOC_SECTIONS)


def test_empty_tree_fill_values(tmp_path):
    tree = TreeIndex.from_path(tmp_path)
    got = {m: REGISTRY[m].run(tree) for m in S_METRICS}
    assert {m: (r.value, r.applicable) for m, r in got.items()} == {
        "seed_management": (100, False),
        "notebook_exec_order": (100, False),
        "test_file_presence": (0, True),
        "expected_outputs": (0, True),
        "ci_presence": (0, True),
        "config_externalised": (0, True),
        "hardware_requirements": (100, False),
    }
    assert all(r.fix for r in got.values() if r.value < 100)
    assert all(r.fix is None for r in got.values() if r.value == 100)


def test_hostile_inputs_never_raise(make_tree):
    root = make_tree({
        "binary.py": b"\x00\x01np.random.rand(3)\x00",
        "binary.ipynb": b"\x00\x00\x00",
        "list.ipynb": "[1, 2, 3]",
        "latin1.R": "# caf\xe9\nx <- rnorm(3)\n".encode("latin-1"),
        "empty.py": "",
        "empty.jl": "",
        "huge.py": "x = 1\n" * 100_000,
        "tests/test_py2.py": "print 'x'\ndef test_it():\n    assert 1\n",
        "markdown_only.ipynb": json.dumps({"nbformat": 4, "metadata": {}, "cells": [{"cell_type": "markdown", "source": "Prose."}]}),
        "pyproject.toml": "[project\nname = 'x'",
        "environment.yml": "dependencies: [unclosed",
        "Dockerfile": b"FROM \x00",
        "README.md": b"\xff\xfe GPU",
    })
    tree = TreeIndex.from_path(root)
    for metric in S_METRICS:
        measurement = REGISTRY[metric].run(tree)
        assert 0 <= measurement.value <= 100
    seed = REGISTRY["seed_management"].run(tree)
    assert seed.counts["stochastic_files"] == 1  # latin1.R; the binary .py is never read
    order = REGISTRY["notebook_exec_order"].run(tree)
    assert (order.counts["notebooks_parsed"], order.counts["unparseable"], order.counts["unreadable"]) == (1, 1, 1)
    assert REGISTRY["test_file_presence"].run(tree).counts["test_files"] == 1


# --------------------------------------------------------------------------- S1 seed_management


def test_python2_file_is_scanned_with_the_token_fallback(measure_s):
    m = measure_s("seed_management", {
        "old.py": "import numpy as np\nprint 'start'\nnp.random.seed(1)\nx = np.random.rand(3)\n",
        "old_km.py": "from sklearn.cluster import KMeans\nprint 'fit'\nkm = KMeans(n_clusters=3, random_state=0)\n",
        "old_unseeded.py": "import random as rnd\nprint rnd.choice([1, 2])  # random pick\n",
    })
    assert m.value == pytest.approx(200 / 3)
    assert m.counts["unparseable_files"] == 3
    assert evidence_of(m, "seed_management.unseeded")[0] | {} == {
        "path": "old_unseeded.py", "line_start": 2, "line_end": 2, "rule": "seed_management.unseeded",
        "reason": "random call random.choice with no seed set for this file",
        "snippet": "print rnd.choice([1, 2]) # random pick",
    }
    assert [e["path"] for e in evidence_of(m, "seed_management.explicit_seed")] == ["old_km.py"]


@pytest.mark.parametrize(("source", "value", "applicable"), [
    ("import numpy as np\nnp.random.seed()\nx = np.random.rand(2)\n", 0, True),          # reseeds from the OS
    ("import random\nrandom.seed(None)\nrandom.random()\n", 0, True),
    ("from sklearn.model_selection import train_test_split\ntrain_test_split(X, y, shuffle=False)\n", 100, False),
    ("from sklearn.model_selection import KFold\nKFold(5)\n", 100, False),
    ("from sklearn.model_selection import KFold\nKFold(5, shuffle=True)\n", 0, True),
    ("from sklearn.model_selection import KFold\nKFold(5, shuffle=True, random_state=seed)\n", 100, True),
    ("from sklearn.cluster import KMeans\nKMeans(3, random_state=None)\n", 0, True),
    ("from sklearn.cluster import KMeans\nKMeans(3, **params)\n", 100, True),
    ("import pandas as pd\nx = pd.read_csv('a.csv').sample(frac=0.5, random_state=1)\n", 100, True),
    ("import pandas as pd\nx = pd.read_csv('a.csv').sample(n=3)\n", 0, True),
    ("from scipy import signal\ny = signal.resample(x, 10)\nz = df.resample('1h').sum()\n", 100, False),
    ("import jax\nkey = jax.random.PRNGKey(0)\nx = jax.random.normal(key, (3,))\n", 100, True),
    ("import numpy as np\nrng = np.random.default_rng(42)\nnp.random.shuffle(x)\n", 0, True),
    ("import numpy as np\nrng = np.random.default_rng()\n", 0, True),
    ("import torch\ng = torch.Generator().manual_seed(0)\nx = torch.rand(3, generator=g)\n", 100, True),
    ("import tensorflow as tf\nx = tf.random.uniform((2,), seed=1)\n", 100, True),
    ("import tensorflow as tf\nx = tf.random.stateless_uniform((2,), seed=[1, 2])\n", 100, False),
    ("from sklearn.ensemble import *\nm = RandomForestClassifier()\n", 0, True),
    ("import lightning as L\nL.seed_everything(42)\nimport random\nrandom.random()\n", 100, True),
    ("from torch.utils.data import DataLoader\nDataLoader(ds, batch_size=8)\n", 100, False),
    ("from torch.utils.data import DataLoader\nDataLoader(ds, batch_size=8, shuffle=True)\n", 0, True),
    ("from numpy.random import normal as draw\n\nx = draw(size=3)\n", 0, True),
    ("import numpy as np\nprint('np.random.rand(3) is random')\n", 100, False),
])
def test_python_random_and_seed_rules(measure_s, source, value, applicable):
    m = measure_s("seed_management", {"a.py": source})
    assert (m.value, m.applicable) == (value, applicable), m.evidence


def test_notebook_cells_share_imports(measure_s):
    m = measure_s("seed_management", {
        "a.ipynb": notebook(("from numpy.random import normal as draw", 1), "Draw.", ("x = draw(size=3)", 2)),
    })
    assert m.value == 0
    assert [(e["cell"], e["line_start"], e["reason"]) for e in evidence_of(m, "seed_management.unseeded")] == [
        (3, 1, "random call numpy.random.normal with no seed set for this file")]


def test_seed_inside_an_uncalled_function_does_not_seed_importers(measure_s):
    m = measure_s("seed_management", {
        "utils.py": "import numpy as np\n\n\ndef init():\n    np.random.seed(0)\n",
        "b.py": "import numpy as np\nimport utils\n\nx = np.random.rand(3)\n",
    })
    assert m.value == 0
    assert evidence_of(m, "seed_management.unseeded")[0]["path"] == "b.py"


def test_transitive_relative_import_of_a_seeding_module(measure_s):
    m = measure_s("seed_management", {
        "pkg/__init__.py": "",
        "pkg/seeding.py": "import random\nrandom.seed(5)\n",
        "pkg/base.py": "from . import seeding\n",
        "pkg/model.py": "import random\n\nfrom .base import *\n\nx = random.random()\n",
    })
    assert m.value == 100
    proof = evidence_of(m, "seed_management.seeding_import")
    assert [(e["path"], e["line_start"]) for e in proof] == [("pkg/seeding.py", 2)]
    assert "imports pkg/seeding.py" in evidence_of(m, "seed_management.seeded")[0]["reason"]


def test_r_source_and_julia_seeds(measure_s):
    m = measure_s("seed_management", {
        "main.R": "set.seed(1)\nsource(\"R/sim.R\")\n",
        "R/sim.R": "draws <- rnorm(10)\n",
        "nullseed.R": "set.seed(NULL)\nx <- runif(3)\n",
        "not_random.R": "y <- resample(x)\nz <- x$resample(2)\n",
        "seeded.jl": "using Random\nRandom.seed!(1)\nx = rand(3)\n",
        "unseeded.jl": "x = randn(3)  # draws\n",
    })
    assert m.counts["stochastic_files"] == 4
    assert m.value == 50
    assert [(e["path"], e["line_start"]) for e in evidence_of(m, "seed_management.unseeded")] == [
        ("nullseed.R", 2), ("unseeded.jl", 1)]
    assert [(e["path"], e["line_start"]) for e in evidence_of(m, "seed_management.seeded_importer")] == [("main.R", 1)]


@pytest.mark.parametrize(("call", "seeded"), [
    ("fit(d, 10, 42)", True),                 # by position
    ("fit(d, reps = 10, 42)", True),          # positions fill the formals no name matched
    ("fit(d, seed = 42)", True),
    ("fit(d, 10)", False),                    # left out: missing, no seed
    ("fit(d, seed = NULL)", False),
    ("wrap <- function(d, s) fit(d, 10, s)\nwrap(d, 3)", True),    # passed on, and passed to the caller
    ("wrap <- function(d, s = NULL) fit(d, 10, s)\nwrap(d)", False),
])
def test_r_seed_parameter_counts_where_every_call_passes_it(measure_s, call, seeded):
    # §0.2.25 for R: set.seed(p) with p a parameter seeds only as the calls pass p
    m = measure_s("seed_management", {
        "R/fit.R": "fit <- function(d, reps = 5, seed) {\n  if (!missing(seed)) set.seed(seed)\n"
                   "  replicate(reps, mean(sample(d, replace = TRUE)))\n}\n",
        "run.R": f"d <- c(1, 2, 3)\n{call}\n",
    })
    assert (m.counts["stochastic_files"], m.counts["seeded_files"]) == (1, int(seeded))
    rule = "seed_management.seed_parameter" if seeded else "seed_management.ineffective_seed"
    assert [(e["path"], e["line_start"]) for e in evidence_of(m, rule)] == [("R/fit.R", 1 if seeded else 2)]


def test_r_resampling_arguments_learner_seeds_and_clock_seeds(measure_s):
    # §0.3 R specifics: permutation tests are stochastic; a seed from the clock seeds nothing
    # (§0.2.23); a learner's own seed argument seeds it, unless it is NA
    m = measure_s("seed_management", {
        "perm.R": "library(coin)\nt <- oneway_test(y ~ g, distribution = approximate(B = 999))\n",
        "vegan.R": "set.seed(7)\nfit <- anosim(d, g, permutations = 99)\n",
        "clock.R": "set.seed(as.numeric(Sys.time()))\nx <- runif(3)\n",
        "rf.R": "library(ranger)\nm <- ranger(y ~ .,\n  data = d, seed = 11)\n",
        "rf_na.R": "m <- ranger::ranger(y ~ ., data = d, seed = NA)\n",
        "boot.R": "b <- boot::boot(d, stat, R = 999)\n",
    })
    assert (m.counts["stochastic_files"], m.counts["seeded_files"]) == (6, 2)
    assert [(e["path"], e["line_start"]) for e in evidence_of(m, "seed_management.unseeded")] == [
        ("boot.R", 1), ("clock.R", 2), ("perm.R", 2), ("rf_na.R", 1)]
    assert [(e["path"], e["line_start"]) for e in evidence_of(m, "seed_management.explicit_seed")] == [("rf.R", 3)]
    assert [(e["path"], e["line_start"]) for e in evidence_of(m, "seed_management.seed_call")] == [("vegan.R", 1)]


def test_a_name_drawn_over_an_alphabet_is_why_nothing_is_stochastic(measure_s):
    m = measure_s("seed_management", {
        "tmp.py": "import random\nimport string\n\nname = ''.join(random.choices(string.ascii_lowercase, k=8))\n",
    })
    assert (m.value, m.applicable) == (100, False)
    assert [(e.path, e.line_start, e.rule) for e in m.evidence] == [("tmp.py", 4, "seed_management.name_draw")]


def test_a_package_is_seeded_by_outside_scripts_only_when_the_repository_does_not_distribute_it(measure_s):
    files = {
        "main.py": "import numpy as np\nfrom runners import train\n\nnp.random.seed(1)\ntrain.run()\n",
        "runners/__init__.py": "",
        "runners/train.py": "import numpy as np\n\n\ndef run():\n    return np.random.rand(3)\n",
    }
    # the analysis's own helper package runs after its driver's seed (§0.1.30)
    assert measure_s("seed_management", files).value == 100
    # a distributed package is imported by whoever installs it: the driver seeds its own run only
    files["pyproject.toml"] = '[project]\nname = "runners"\nversion = "1.0"\n'
    m = measure_s("seed_management", files)
    assert m.value == 0
    assert [(e["path"], e["line_start"]) for e in evidence_of(m, "seed_management.unseeded")] == [("runners/train.py", 5)]


@pytest.mark.parametrize(("files", "value", "unseeded"), [
    # §0.2.23: a seed from the clock or the OS is no seed; a generator built from one is
    # not reached by the file's global seed either
    ({"a.py": "import random, time\nrandom.seed(time.time())\nrandom.random()\n"}, 0, [("a.py", 3)]),
    ({"a.py": "import numpy as np, os\nnp.random.seed(0)\nr = np.random.RandomState(os.getpid())\nx = r.rand()\n"},
     0, [("a.py", 3)]),
    # a generator built as a statement seeds nothing
    ({"a.py": "import numpy as np\nnp.random.default_rng(0)\nx = np.random.normal()\n"}, 0, [("a.py", 2)]),
    ({"a.py": "import numpy as np\nnp.random.default_rng(0)\nnp.random.seed(1)\nx = np.random.normal()\n"}, 100, []),
    # §0.2.25: a seed parameter defaulting to None seeds when every call passes it
    ({"lib.py": "import numpy as np\ndef draw(n, seed=None):\n    return np.random.default_rng(seed).random(n)\n",
      "run.py": "from lib import draw\ndraw(3, seed=1)\ndraw(4, 2)\n"}, 100, []),
    ({"lib.py": "import numpy as np\ndef draw(n, seed=None):\n    return np.random.default_rng(seed).random(n)\n",
      "run.py": "from lib import draw\ndraw(3, seed=1)\ndraw(4)\n"}, 0, [("lib.py", 3)]),
    ({"lib.py": "import numpy as np\ndef draw(n, seed=None):\n    return np.random.default_rng(seed).random(n)\n"},
     0, [("lib.py", 3)]),
    # passed on from a caller whose own seed parameter is left None
    ({"lib.py": ("import numpy as np\ndef draw(n, seed):\n    return np.random.default_rng(seed).random(n)\n"
                 "def run(seed=None):\n    return draw(2, seed)\n"),
      "main.py": "from lib import run\nrun()\n"}, 0, [("lib.py", 3)]),
    # a required generator parameter named like the module is the generator passed in
    ({"moves.py": "def propose(state, random):\n    return random.choice(state)\n",
      "main.py": "import numpy as np\nfrom moves import propose\npropose([1, 2], np.random.default_rng(5))\n"},
     100, []),
])
def test_python_seed_provenance(measure_s, files, value, unseeded):
    m = measure_s("seed_management", files)
    assert m.value == value
    assert [(e["path"], e["line_start"]) for e in evidence_of(m, "seed_management.unseeded")] == unseeded


def test_matlab_class_methods_are_called_through_their_class(measure_s):
    m = measure_s("seed_management", {
        "run_all.m": "rng(1);\nm = Model(3);\nm.simulate();\n",
        "@Model/Model.m": "classdef Model\n  properties\n    n\n  end\nend\n",
        "@Model/simulate.m": "function out = simulate(obj)\nout = randn(obj.n, 1);\nend\n",
        "legacy.m": "rand('state', sum(100*clock));\nx = rand(3);\n",
    })
    assert (m.counts["stochastic_files"], m.counts["seeded_files"]) == (2, 1)
    assert [(e["path"], e["line_start"]) for e in evidence_of(m, "seed_management.seeded_caller")] == [("run_all.m", 1)]
    assert [(e["path"], e["line_start"]) for e in evidence_of(m, "seed_management.ineffective_seed")] == [("legacy.m", 1)]


@pytest.mark.parametrize(("files", "fix"), [
    ({"a.R": "x <- rnorm(3)\n"}, "Set a seed in a.R before the first random call: set.seed(1)."),
    ({"sim.m": "x = rand(3);\n"}, "Set a seed in sim.m before the first random call: rng(42) in the script that "
                                  "calls the rest."),
    ({"a.py": "import random\nrandom.random()\n"},
     "Set a seed in a.py before the first random call: random.seed(0), or pass random_state=/seed=/generator= to "
     "every random call."),
    # each generator family its unseeded draws use, and only those (§0.2.23)
    ({"a.py": "import torch\nimport numpy as np\ntorch.manual_seed(0)\nt = torch.rand(2)\nx = np.random.rand(2)\n",
      "b.py": "import numpy as np\nimport tensorflow as tf\nx = tf.random.normal([2])\ng = np.random.default_rng()\n"},
     "Set a seed in a.py, b.py before the first random call: np.random.seed(0); tf.random.set_seed(0); a seed to "
     "each generator the file builds (np.random.default_rng(0)), or pass random_state=/seed=/generator= to every "
     "random call."),
    ({"a.R": "x <- rnorm(3)\n", "b.ipynb": notebook(("import random\nrandom.random()", 1))},
     "Set a seed in a.R, b.ipynb before the first random call: set.seed(1); random.seed(0), or pass "
     "random_state=/seed=/generator= to every random call."),
    ({"engine.jl": "using Random\nrng = Xoshiro()\nx = rand(rng, 3)\n"},
     "Set a seed in engine.jl before the first random call: a seed to each generator the file builds (Xoshiro(1))."),
    ({"sim.jl": "x = rand(3)\n"},
     "Set a seed in sim.jl before the first random call: Random.seed!(1), or a seeded Xoshiro(1) passed to every "
     "rand."),
    ({"sim.c": "#include <stdlib.h>\nint main(void) { return rand(); }\n",
      "mc.f90": "program mc\n  real :: x\n  call random_number(x)\nend program mc\n"},
     "Set a seed in mc.f90, sim.c before the first random call: call random_seed(put=seed) before random_number; "
     "srand48(11)/srand(11) for the C generator you draw from, or an engine built from a --seed option with a "
     "constant default."),
    # JAGS's own generators, which set.seed does not reach; MATLAB's GPU stream
    ({"fit.R": "library(rjags)\nset.seed(1)\nm <- jags.model(\"m.bug\", data = d)\n"},
     "Set a seed in fit.R before the first random call: .RNG.seed in each chain's initial values "
     "(list(.RNG.name = \"base::Mersenne-Twister\", .RNG.seed = 1)) or rjags::jags.seed(1) for JAGS, and "
     "rnd.seed = 1 to BEST::BESTmcmc (set.seed does not reach JAGS)."),
    ({"gpu.m": "rng(1);\nx = rand(3);\ny = gpuArray.randn(3);\n"},
     "Set a seed in gpu.m before the first random call: parallel.gpu.rng(42) for the gpuArray draws."),
])
def test_the_fix_names_the_ecosystems_own_seeding(measure_s, files, fix):
    assert measure_s("seed_management", files).fix == fix


def test_r_bayesian_samplers_draw_from_their_own_generators(measure_s):
    m = measure_s("seed_management", {
        # MCMCpack: its own generator, seed = NA meaning the fixed 12345
        "pack.R": "library(MCMCpack)\npost <- MCMCregress(y ~ x, data = d)\n",
        # a .RNG.seed in a chain's initial values seeds the JAGS model, set.seed does not
        "jags.R": "set.seed(2)\ninits <- list(.RNG.name = \"base::Wichmann-Hill\", .RNG.seed = 9)\n"
                  "m <- rjags::jags.model(\"m.bug\", data = d, inits = inits)\n",
        "clock.R": "m <- jags.model(\"m.bug\", inits = list(.RNG.seed = as.numeric(Sys.time())))\n",
        "best.R": "out <- BEST::BESTmcmc(a, b)\nset.seed(3)\ncp <- bcp::bcp(y)\n",
    })
    assert (m.value, m.counts["stochastic_files"], m.counts["seeded_files"]) == (50, 4, 2)
    assert [(e["path"], e["line_start"]) for e in evidence_of(m, "seed_management.unseeded")] == [
        ("best.R", 1), ("clock.R", 1)]
    assert [(e["path"], e["line_start"], e["reason"]) for e in evidence_of(m, "seed_management.ineffective_seed")] == [
        ("best.R", 2, "set.seed seeds R's generator only, not JAGS's own generators (seeded from the clock without "
                      ".RNG.seed), which BESTmcmc draws from"),
        ("clock.R", 1, "this seed comes from the clock: it differs on every run")]
    assert [(e["path"], e["line_start"]) for e in evidence_of(m, "seed_management.seed_call")] == [
        ("jags.R", 2), ("pack.R", 2)]


def test_julia_generator_unpacked_from_a_struct_follows_its_constructions(measure_s):
    struct = ("struct Gen{R}\n    rng::R\nend\n"
              "make(rng = Random.default_rng()) = Gen(rng)\n"
              "function (g::Gen)()\n    s, rng = 1, g.rng\n    return rand(rng, 3)\nend\n")
    passed = measure_s("seed_management", {"src/gen.jl": struct, "run.jl": "g = make(Xoshiro(1))\ng()\n"})
    assert (passed.value, passed.counts["seeded_files"]) == (100, 1)
    omitted = measure_s("seed_management", {"src/gen.jl": struct, "run.jl": "g = make()\ng()\n"})
    assert (omitted.value, omitted.counts["seeded_files"]) == (0, 0)
    assert [(e["path"], e["line_start"]) for e in evidence_of(omitted, "seed_management.ineffective_seed")] == [
        ("run.jl", 1)]
    # Random.seed! seeds the global generator the struct then holds
    seeded = measure_s("seed_management", {"src/gen.jl": struct, "run.jl": "Random.seed!(4)\ng = make()\n",
                                           "src/Pkg.jl": "module Pkg\nusing Random\nRandom.seed!(5)\n"
                                                         "include(\"gen.jl\")\nend\n"})
    assert (seeded.value, seeded.counts["seeded_files"]) == (100, 1)


def test_rmarkdown_chunks_report_file_lines(measure_s):
    m = measure_s("seed_management", {
        "report.Rmd": "---\ntitle: x\n---\n\nText.\n\n```{r}\nx <- rnorm(5)\n```\n\n```{python}\nimport random\nrandom.shuffle(v)\n```\n",
    })
    assert m.counts["stochastic_files"] == 1
    assert evidence_of(m, "seed_management.unseeded")[0]["line_start"] == 8


def test_notebook_r_cells_and_rmarkdown_julia_and_python_chunks_are_read_from_their_facts(measure_s):
    m = measure_s("seed_management", {
        "a.ipynb": notebook(("import numpy as np", 1), ("%%R\nset.seed(1)\nx <- rnorm(3)", 2),
                            ("y = np.random.rand(3)", 3)),
        "b.Rmd": "Text.\n\n```{julia}\nusing Random\nx = rand(3)\n```\n",
        "c.qmd": "```{python}\nimport random\n```\n\n```{python}\nprint 'py2'\nrandom.seed(2)\n```\n"
                 "```{python}\nrandom.random()\n```\n",
    })
    assert (m.counts["stochastic_files"], m.counts["seeded_files"], m.counts["unparseable_files"]) == (3, 1, 1)
    # the R cell's set.seed seeds R's generator, not numpy's (§0.2.23): the notebook's numpy draw is unseeded
    assert [(e["path"], e.get("cell"), e["line_start"]) for e in evidence_of(m, "seed_management.unseeded")] == [
        ("a.ipynb", 3, 1), ("b.Rmd", None, 5)]
    assert [(e["path"], e.get("cell"), e["line_start"], e["reason"])
            for e in evidence_of(m, "seed_management.ineffective_seed")] == [
        ("a.ipynb", 2, 2, "set.seed seeds R's generator only, not numpy's global generator (np.random), which "
                          "numpy.random.rand draws from")]
    assert [(e["path"], e.get("cell"), e["line_start"]) for e in evidence_of(m, "seed_management.seed_call")] == [
        ("c.qmd", None, 7)]


def test_what_a_python_module_runs_when_imported(measure_s):
    m = measure_s("seed_management", {
        "main_only.py": "import random\nif '__main__' == __name__:\n    random.seed(1)\n",
        "lazy.py": "import random\nreset = lambda: random.seed(1)\n",
        "not_main.py": "import random\nif __name__ != '__main__':\n    random.seed(1)\n",
        "old.py": "import random\nprint 'x'\ntry:\n    random.seed(1)\nexcept: pass\ndef f():\n    random.seed(2)\n",
        "a.py": "import main_only, lazy\nimport random\nrandom.random()\n",
        "b.py": "import not_main\nimport random\nrandom.random()\n",
        "c.py": "import old\nimport random\nrandom.random()\n",
    })
    assert [e["path"] for e in evidence_of(m, "seed_management.unseeded")] == ["a.py"]
    assert sorted((e["path"], e["line_start"]) for e in evidence_of(m, "seed_management.seeding_import")) == [
        ("not_main.py", 3), ("old.py", 4)]


def test_seed_evidence_is_bounded_and_unseeded_files_come_first(measure_s):
    files = {f"s{i:02}.py": "import random\nrandom.random()\n" for i in range(30)}
    files["z_seeded.py"] = "import random\nrandom.seed(1)\nrandom.random()\n"
    m = measure_s("seed_management", files)
    assert m.counts["stochastic_files"] == 31
    assert m.value == pytest.approx(100 / 31)
    assert len(m.evidence) == 20
    assert {e.rule for e in m.evidence} == {"seed_management.unseeded"}
    assert m.fix.startswith("Set a seed in s00.py, s01.py, s02.py and 27 more")


# --------------------------------------------------------------------------- S2 notebook_exec_order


def test_notebook_without_code_cells_counts_as_ordered(measure_s):
    m = measure_s("notebook_exec_order", {
        "prose.ipynb": notebook("Only prose."),
        "bad.ipynb": notebook(("a = 1", 3), ("b = 2", 4), ("c = 3", 4)),
    })
    assert m.value == 50
    assert m.counts == {"notebooks_parsed": 2, "ordered": 1, "out_of_order": 1, "unexecuted": 1,
                        "unparseable": 0, "unreadable": 0}
    assert m.fix == "Restart the kernel and run all cells in order (Restart & Run All), then save bad.ipynb."


def test_rmarkdown_is_not_a_jupyter_notebook(measure_s):
    m = measure_s("notebook_exec_order", {"a.Rmd": "```{r}\nx <- 1\n```\n"})
    assert (m.value, m.applicable) == (100, False)


# --------------------------------------------------------------------------- S3 test_file_presence


def test_test_notebooks_and_helpers(measure_s):
    m = measure_s("test_file_presence", {
        "tests/helpers.py": "def make_data():\n    return [1]\n",
        "tests/check.ipynb": notebook(("import tool", 1), ("assert tool.run() == 1", 2)),
        "test/runtests.jl": "# no tests yet\nprintln(\"@test later\")\n",
        "src/test_config.yaml": "a: 1\n",
    })
    assert m.value == 50
    assert m.counts == {"test_files": 1, "candidate_modules": 3, "modules_without_tests": 2}
    found = evidence_of(m, "test_file_presence.notebook")
    assert [(e["path"], e["cell"], e["line_start"]) for e in found] == [("tests/check.ipynb", 2, 1)]
    assert {e["path"] for e in evidence_of(m, "test_file_presence.no_tests")} == {"tests/helpers.py", "test/runtests.jl"}


def test_nf_test_parser_skips_comments_and_triple_quoted_code():
    from scoring.parsers.nftest import parse_nf_test

    text = ('nextflow_process {\n    // test("old") {\n    test("one") {\n        when {\n'
            '            process {\n                """\n                assert input\n                """\n'
            '            }\n        }\n        then {\n            /* assert nothing\n            */\n'
            '            assert snapshot(process.out).match()\n        }\n    }\n}\n')
    parsed = parse_nf_test(text)
    assert (parsed.tests, parsed.assertions) == ((3,), (14,))


def test_ci_config_files_passed_to_workflow_runs():
    from scoring.parsers.ci import parse_ci_config

    text = ("jobs:\n  t:\n    steps:\n      - run: snakemake --cores 1 --configfile .test/config/config.yaml\n"
            "      - run: nextflow run main.nf -c ./conf/ci.config --conda-frontend mamba\n"
            "      - run: nextflow run main.nf -params-file params.yml -c $CONF\n"
            "      # - run: snakemake --configfile old.yaml\n")
    assert parse_ci_config(text, ".github/workflows/t.yml").config_files == (
        (4, ".test/config/config.yaml"), (5, "conf/ci.config"), (6, "params.yml"))


def test_snakemake_test_config_not_run_by_ci_is_not_a_test(measure_s):
    # §0.3: Snakemake .test/ configurations count when CI runs them
    m = measure_s("test_file_presence", {"workflow/Snakefile": "rule all:\n    input: 'a.txt'\n",
                                          ".test/config/config.yaml": "samples: s.tsv\n"})
    assert (m.value, m.counts["test_files"]) == (0, 0)
    assert "Snakemake test configuration" in m.fix


def test_assert_outside_a_tests_folder_is_not_a_test(measure_s):
    m = measure_s("test_file_presence", {"scripts/test_inputs.py": "assert open('x').read()\n"})
    assert m.value == 0
    assert m.counts["modules_without_tests"] == 1


def test_many_test_files_show_fifty_the_most_substantial_first(measure_s):
    files = {f"tests/test_a{i:02d}.py": "def test_one():\n    assert True\n" for i in range(60)}
    files["tests/test_zz_core.py"] = "import core\n\n" + "".join(
        f"def test_case_{i}():\n    assert core.run({i})\n\n" for i in range(12))
    files["tests/test_zy_longer.py"] = "# setup\n\n\ndef test_only():\n    assert 1\n"
    files["tests/run_tests.py"] = "import pytest\npytest.main()\n"
    m = measure_s("test_file_presence", files)
    assert (m.value, m.counts["test_files"]) == (100, 62)
    counted = evidence_of(m, "test_file_presence.python")
    assert len(counted) == 50
    assert {"path": "tests/test_zz_core.py", "line_start": 3} in [
        {"path": e["path"], "line_start": e["line_start"]} for e in counted]
    # one test each: the file with more lines first
    assert [e["line_start"] for e in counted if e["path"] == "tests/test_zy_longer.py"] == [4]
    assert "tests/test_a59.py" not in {e["path"] for e in counted}
    assert [(e["path"], e["line_start"]) for e in evidence_of(m, "test_file_presence.runner")] == [
        ("tests/run_tests.py", None)]


@pytest.mark.parametrize(("files", "fix"), [
    (BARE_TREES["python"], "Add automated tests, e.g. tests/test_<module>.py with pytest test_* functions (two test "
                           "files for the full score)."),
    ({"R/fit.R": "f <- function() 1\n", "DESCRIPTION": "Package: fit\n"},
     "Add testthat tests, e.g. tests/testthat/test-<topic>.R with test_that() blocks (usethis::use_testthat() "
     "sets them up)."),
    (BARE_TREES["r"], "Add testthat tests, e.g. tests/testthat/test-<topic>.R with test_that() blocks checking the "
                      "analysis functions, run with testthat::test_dir(\"tests/testthat\")."),
    ({"src/Fit.jl": "module Fit end\n", "Project.toml": "name = \"Fit\"\n"},
     "Add Julia tests: test/runtests.jl with @testset/@test blocks, or test files with them that it includes, run "
     "by Pkg.test()."),
    (BARE_TREES["julia"], "Add Julia tests: test/runtests.jl with @testset/@test blocks checking the analysis "
                          "functions, run with julia --project test/runtests.jl."),
    (BARE_TREES["matlab"], "Add matlab.unittest test classes (tests/<Name>Test.m) or MOxUnit test_*.m suites."),
    (BARE_TREES["native"], "Add test sources (GoogleTest/Catch2 for C/C++, test-drive for Fortran) and register them "
                           "with CTest add_test or meson test()."),
    (BARE_TREES["nextflow"], "Add nf-test tests (tests/main.nf.test with assertions, nf-test.config) or a test "
                             "profile run by CI."),
    (BARE_TREES["snakemake"], "Add a Snakemake test configuration (.test/config/config.yaml with small data) and run "
                              "it in CI."),
])
def test_the_test_fix_names_the_ecosystems_own_framework(measure_s, files, fix):
    assert measure_s("test_file_presence", files).fix == fix


NATIVE_BUILDS = {
    "cmake": {"CMakeLists.txt": "project(model C)\nadd_executable(model src/model.c)\n"},
    "meson": {"meson.build": "project('model', 'c')\nexecutable('model', 'src/model.c')\n"},
    "fpm": {"fpm.toml": "name = \"model\"\n"},
    "autotools": {"configure.ac": "AC_INIT([model], [1.0])\n", "Makefile.am": "bin_PROGRAMS = model\n"},
    "make": {"Makefile": "model: src/model.c\n\tcc -o model src/model.c\n"},
    "make with a platform suffix": {"Makefile.gcc": "model: src/model.c\n\tgcc -o model src/model.c\n"},
}


@pytest.mark.parametrize(("build", "fix", "another"), [
    ("cmake", "Add test sources (GoogleTest/Catch2 for C/C++, test-drive for Fortran) and register them with CTest "
              "add_test in CMakeLists.txt.", "a test program registered with CTest add_test"),
    ("meson", "Add test sources (GoogleTest/Catch2 for C/C++, test-drive for Fortran) and register them with meson "
              "test() in meson.build.", "a test program registered with meson test()"),
    ("fpm", "Add test-drive test programs under test/, which fpm test builds and runs.",
     "a test program under test/, run by fpm test"),
    ("autotools", "Add test programs (or regression cases: inputs with a committed reference output in "
                  "tests/<case>/) and run them from the check target (make check).",
     "a test program or regression case that make check runs"),
    ("make", "Add test programs (or regression cases: inputs with a committed reference output in tests/<case>/) "
             "and a Makefile test target that builds and runs them (make test).",
     "a test program or regression case that make test runs"),
    ("make with a platform suffix", "Add test programs (or regression cases: inputs with a committed reference "
                                    "output in tests/<case>/) and a Makefile test target that builds and runs them "
                                    "(make test).", "a test program or regression case that make test runs"),
])
def test_the_native_test_fix_names_the_trees_own_build(measure_s, build, fix, another):
    files = {**BARE_TREES["native"], **NATIVE_BUILDS[build]}
    assert measure_s("test_file_presence", files).fix == fix
    files["tests/test_model.c"] = "#include <assert.h>\nint main(void) { assert(1); return 0; }\n"
    one = measure_s("test_file_presence", files)
    assert one.counts["test_files"] == 1
    assert one.fix == f"Add at least one more test file beside {one.evidence[0].path} (e.g. {another}) to cover the " \
                      "rest of the code."


def test_one_test_file_fix_suggests_another_in_the_ecosystems_form(measure_s):
    m = measure_s("test_file_presence", {"R/stats.R": "f <- function(x) x\n",
                                          "tests/testthat/test-stats.R": "test_that('f', expect_equal(f(1), 1))\n"})
    assert m.fix == ("Add at least one more test file beside tests/testthat/test-stats.R "
                     "(e.g. tests/testthat/test-<topic>.R) to cover the rest of the code.")


REGRESSION_CASES = {
    "src/solver.f90": "program solver\nend program solver\n",
    "test-suite/tests/h2/h2.in": "atoms = H H\n",
    "test-suite/tests/h2/benchmark.out.default.inp=h2.in": "total energy = -1.1287 Ha\n",
    "test-suite/tests/he/he.in": "atoms = He\n",
    "test-suite/tests/he/reference/he.out": "total energy = -2.8552 Ha\n",
}


@pytest.mark.parametrize(("runner", "value", "runs"), [
    ({}, 0, []),                                                      # nothing runs the cases
    ({"test-suite/tests/jobconfig": "[h2]\ninputs_args = ('h2.in', '')\n"}, 0, []),   # configured, never run
    ({".github/workflows/ci.yml": "jobs:\n  t:\n    steps:\n      - run: make\n      - run: make test\n"}, 100,
     [(".github/workflows/ci.yml", 5, "CI job runs the tests")]),
    ({"test-suite/run_tests.sh": "for c in tests/*/; do ../solver $c; done\n"}, 100,
     [("test-suite/run_tests.sh", None, "regression test runner")]),
    ({"test-suite/tests/runtests.py": "import subprocess\nsubprocess.run(['../solver', 'h2'])\n"}, 100,
     [("test-suite/tests/runtests.py", None, "test runner")]),
    ({"Makefile": "solver:\n\tgfortran -o solver src/solver.f90\n\ncheck: solver\n\tcd test-suite && sh run.sh\n"},
     100, [("Makefile", 4, "the check target runs the tests")]),
])
def test_regression_case_folders_count_when_something_runs_them(measure_s, runner, value, runs):
    m = measure_s("test_file_presence", {**REGRESSION_CASES, **runner})
    assert (m.value, m.counts["test_files"]) == (value, value // 50)
    assert [(e.path, e.reason) for e in evidence_of_rule(m, "test_file_presence.regression_case")] == [
        ("test-suite/tests/h2", "regression test case with a committed reference output "
                                "(benchmark.out.default.inp=h2.in)"),
        ("test-suite/tests/he", "regression test case with a committed reference output (he.out)")][:value // 50]
    assert [(e.path, e.line_start, e.reason) for e in evidence_of_rule(m, "test_file_presence.runner")] == runs


def test_a_regression_case_with_a_counted_test_of_its_own_is_counted_once(measure_s):
    m = measure_s("test_file_presence", {
        "CMakeLists.txt": "project(md C)\nenable_testing()\nadd_subdirectory(tests/h2)\n",
        "tests/h2/CMakeLists.txt": "add_test(NAME h2 COMMAND md h2.inp)\n",
        "tests/h2/h2.inp": "atoms = H H\n",
        "tests/h2/reference/h2.out": "total energy = -1.1287 Ha\n",
    })
    assert (m.value, m.counts["test_files"]) == (50, 1)
    assert [e.path for e in m.evidence] == ["tests/h2/CMakeLists.txt"]


def evidence_of_rule(measurement, rule: str) -> list:
    return [e for e in measurement.evidence if e.rule == rule]


def test_native_programs_that_neither_a_build_runs_nor_fail_are_not_tests(measure_s):
    m = measure_s("test_file_presence", {
        "src/a.c": "int f(void) { return 1; }\n",
        "tests/demo.c": "#include <stdlib.h>\nint main(void) { exit(0); }\n",
        "tests/demo.f90": "program demo\n  print *, 1\n  stop\nend program demo\n",
        # a build that registers tests runs only the programs below its own folder
        "tools/CMakeLists.txt": "add_test(NAME lint COMMAND lint.sh)\n",
    })
    assert (m.value, m.counts["test_files"]) == (50, 1)
    assert [e.path for e in m.evidence] == ["tools/CMakeLists.txt"]


def test_a_lint_only_snakemake_run_makes_no_test_configuration(measure_s):
    m = measure_s("test_file_presence", {
        "workflow/Snakefile": 'configfile: "config/config.yaml"\nrule all:\n    input: "a"\n',
        ".test/config/config.yaml": "samples: s.tsv\n",
        ".github/workflows/lint.yml": ("jobs:\n  lint:\n    steps:\n      - uses: snakemake/snakemake-github-action@v1\n"
                                       "        with:\n          directory: .test\n          args: --lint\n"),
    })
    assert m.value == 0


def test_a_ci_script_is_a_validation_test_only_when_named_so_and_asserting(measure_s):
    m = measure_s("test_file_presence", {
        "scripts/check_results.R": "x <- read.csv('results/a.csv')\nprint(nrow(x))\n",
        "scripts/compare_runs.R": "x <- read.csv('results/a.csv')\nstopifnot(nrow(x) == 3)\n",
        ".gitlab-ci.yml": "test:\n  script:\n    - Rscript scripts/check_results.R\n    - Rscript scripts/compare_runs.R\n",
    })
    assert (m.value, m.counts["test_files"]) == (50, 1)
    assert [(e.path, e.line_start, e.reason) for e in m.evidence] == [
        ("scripts/compare_runs.R", 2, "validation script run by CI (.gitlab-ci.yml:4)")]



def test_a_ci_shell_test_script_counts_when_a_check_reaches_a_failing_exit(measure_s):
    m = measure_s("test_file_presence", {
        # the check fails the script from the else branch
        "ci/test_output.sh": ('out=results/out.cram\nif [ -f "$out" ]; then\n  echo ok\nelse\n'
                              '  echo "no cram"\n  exit 1\nfi\n'),
        # an elif that compares reaches the exit; the first if checks nothing
        "ci/tests.sh": ("if true; then\n  echo skip\nelif ! cmp -s a.txt b.txt; then\n  exit 2\nfi\n"),
        # a check, but the script always succeeds; a failing exit without a check
        "ci/test_quiet.sh": "diff a.txt b.txt > d.txt || true\nexit 0\n",
        "ci/test_build.sh": "make\nexit 1\n",
        # a check that fails, in a script whose name says neither test nor check
        "ci/testing_env.sh": "grep -q conda env.txt || exit 1\n",
        ".gitlab-ci.yml": ("test:\n  script:\n    - bash ci/test_output.sh\n    - bash ci/tests.sh\n"
                           "    - bash ci/test_quiet.sh\n    - bash ci/test_build.sh\n    - bash ci/testing_env.sh\n"),
    })
    assert (m.value, m.counts["test_files"]) == (100, 2)
    assert [(e.path, e.line_start, e.reason) for e in m.evidence] == [
        ("ci/test_output.sh", 2, "validation script run by CI (.gitlab-ci.yml:3)"),
        ("ci/tests.sh", 3, "validation script run by CI (.gitlab-ci.yml:4)")]



def test_a_reference_genome_beside_a_case_is_no_reference_output(measure_s):
    files = {
        "tests/run_tests.sh": "for case in tests/*/; do ./align \"$case\"; done\n",
        "tests/chr1/reads.fq": "@r1\nACGTACGTACGTACGT\n+\nIIIIIIIIIIIIIIII\n",
        "tests/chr1/reference.fa.gz": b"\x1f\x8b" + b"compressed test genome bytes",
        "tests/chr2/reads.fq": "@r2\nTTTTACGTACGTACGT\n+\nIIIIIIIIIIIIIIII\n",
        "tests/chr2/reference.sam": "@HD\tVN:1.6\nr2\t0\tchr2\t1\t60\t16M\t*\t0\t0\tTTTTACGTACGTACGT\n",
    }
    tests = measure_s("test_file_presence", files)
    assert (tests.value, [e.path for e in tests.evidence if e.rule == "test_file_presence.regression_case"]) == (
        50, ["tests/chr2"])
    outputs = measure_s("expected_outputs", files)
    assert outputs.value == 100
    assert [e.path for e in outputs.evidence if e.rule == "expected_outputs.output_file"] == ["tests/chr2/reference.sam"]


# --------------------------------------------------------------------------- S4 expected_outputs


# §0.2.18: an output file has at least 16 bytes; CSV rows and figure bytes large enough,
# so each case below tests its location (or its rule), never the size.
ROWS = "a,b\n1,2\n3,4\n5,6\n7,8\n"
IMAGE = "x" * 32


@pytest.mark.parametrize(("files", "value"), [
    ({"a/b/results/x.csv": ROWS}, 0),             # depth 3 is too deep
    ({"src/Results/x.csv": ROWS}, 100),           # depth 2, any case
    ({".cache/results/x.csv": ROWS}, 0),          # hidden parents never hold outputs
    ({"plots/.DS_Store": IMAGE}, 0),
    ({"analysis/logo_small.png": IMAGE, "analysis/icon.svg": IMAGE}, 0),
    ({"paper/figure2.PDF": IMAGE}, 40),
    # 2.1.0: §0.2.18 output files
    ({"results/x.csv": "1\n"}, 0),                # below 16 bytes: a placeholder
    ({"paper/figure2.pdf": "x"}, 0),
    ({"output/README.md": ROWS, "output/.keep": ROWS}, 0),
    ({"plots/make_plots.py": "import matplotlib\n" * 3}, 0),   # scripts make outputs, are none
    ({"src/outputs/writer.cpp": "int write_output();\n" * 3}, 0),
    ({"Data/model comparison results/fit.mat": ROWS}, 100),      # the word "results"
    ({"data/results_v1/fit.csv": ROWS}, 100),
    ({"figure/fig1.csv": ROWS}, 100),             # §0.3: figure/ singular too
    ({"docs/figures/overview.csv": ROWS}, 0),     # documentation locations, every tier
    ({"man/figures/lifecycle-stable.svg": IMAGE}, 0),
    ({"manual/Manual.pdf": IMAGE}, 0),
    ({"vignettes/img/plot.png": IMAGE}, 0),
    # §0.3 test expected-output folders and snapshots
    ({"tests/h2/reference/h2.out": ROWS}, 100),
    ({"tests/contrib/baseline/test_plot.png": IMAGE}, 100),
    ({"tests/testthat/_snaps/print.md": ROWS}, 100),
    ({".tests/unit/step/expected/out.csv": ROWS}, 100),
    ({"tst/regression/data/shock.vtk": ROWS}, 100),
    ({"tests/data/reports/sub-01.md": ROWS}, 100),
    ({"tests/data/inputs.csv": ROWS}, 0),         # test data is input
    ({"tests/fixtures/recording.json": ROWS}, 0),
    ({"tests/reference/check.py": "assert True\n" * 3}, 0),
    ({"modules/local/x/tests/main.nf.test.snap": '{"x": {"content": [1]}}\n'}, 100),
    ({"third_party/lib/tests/expected/out.txt": ROWS}, 0),   # vendored
])
def test_output_locations(measure_s, files, value):
    assert measure_s("expected_outputs", files).value == value


@pytest.mark.parametrize(("outputs", "value"), [
    ([{"output_type": "execute_result", "data": {"text/plain": ["1"]}, "metadata": {}, "execution_count": 1}], 40),
    ([{"output_type": "stream", "name": "stdout", "text": ["done\n"]}], 40),
    ([{"output_type": "stream", "name": "stderr", "text": ["warning\n"]}], 0),
    ([{"output_type": "error", "ename": "E", "evalue": "", "traceback": []}], 0),
])
def test_notebook_outputs_count_only_when_they_are_results(measure_s, outputs, value):
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
          "cells": [{"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["x = 1\n"],
                     "outputs": outputs}]}
    assert measure_s("expected_outputs", {"analysis/run.ipynb": json.dumps(nb)}).value == value


def test_readme_sentence_points_at_its_line(measure_s):
    m = measure_s("expected_outputs", {
        "README.md": "# Tool\n\nRun the script.\nThe example\noutputs are in the paper.\n",
    })
    assert m.value == 60
    assert [(e["line_start"], e["rule"]) for e in (x.to_dict() for x in m.evidence)] == [
        (3, "expected_outputs.readme_sentence")]


def test_bare_results_heading_is_not_an_expected_output(measure_s):
    assert measure_s("expected_outputs", {"README.md": "# Tool\n\n## Results\n\nGood.\n"}).value == 0


@pytest.mark.parametrize(("readme", "value"), [
    # §0.3: "the output looks like" followed by a block or an image
    ("# T\n\nRun `t in.csv`. The result should look like:\n\n```\npeak 410 0.9\n```\n", 60),
    ("# T\n\nThe output looks like this: ![out](out.png)\n", 60),
    # followed by prose, or by nothing, it shows nothing
    ("# T\n\nThe output looks like a table.\n\nThen plot it.\n", 0),
    ("# T\n\nThe output looks like this:\n", 0),
])
def test_a_readme_sentence_showing_the_output(measure_s, readme, value):
    assert measure_s("expected_outputs", {"README.md": readme}).value == value


@pytest.mark.parametrize(("files", "figures"), [
    ({"media/json-fortran-logo-1.png": "P" * 20, "media/silicon.png": "P" * 20}, ["media/silicon.png"]),
    # a README in a sub-folder embeds its schematic; the result figure beside it stays
    ({"analysis/README.md": "# A\n\n![](overview.svg)\n", "analysis/overview.svg": "S" * 20,
      "analysis/fig2.pdf": "F" * 20}, ["analysis/fig2.pdf"]),
    # a GitHub URL of the repository's own file is the file
    ({"README.md": "# A\n\n![](https://github.com/o/r/blob/main/art/tour.png?raw=true)\n",
      "art/tour.png": "P" * 20, "art/run.png": "Q" * 20}, ["art/run.png"]),
])
def test_readme_pictures_and_assets_are_not_result_figures(measure_s, files, figures):
    m = measure_s("expected_outputs", files)
    assert [e["path"] for e in evidence_of(m, "expected_outputs.figure")] == figures


def test_files_the_code_writes_are_outputs_in_documentation_locations(measure_s):
    files = {"R/figures.R": 'plot_it <- function(p) {\n  ggplot2::ggsave("figures/fig_2.png", p)\n}\n',
             "vignettes/figures/fig_2.png": IMAGE, "vignettes/figures/draft.png": IMAGE}
    m = measure_s("expected_outputs", files)
    assert (m.value, m.counts["output_dirs"], m.counts["figures"]) == (100, 1, 1)
    assert [(e.path, e.reason, e.rule) for e in m.evidence] == [
        ("vignettes/figures", "output directory the code writes into (R/figures.R:2) holding 1 file",
         "expected_outputs.written_output_dir"),
        ("vignettes/figures/fig_2.png", "committed output in vignettes/figures", "expected_outputs.output_file")]
    # nothing writes them: documentation figures, out of every tier (§0.2.18)
    del files["R/figures.R"]
    assert measure_s("expected_outputs", files).value == 0
    # a test, a documentation page or a vendored script writing it is not the deposit's code
    files["tests/testthat/test-plot.R"] = 'test_that("plot", ggplot2::ggsave("figures/fig_2.png"))\n'
    files["vignettes/intro.Rmd"] = '```{r}\nggplot2::ggsave("figures/draft.png")\n```\n'
    assert measure_s("expected_outputs", files).value == 0


@pytest.mark.parametrize(("writer", "value"), [
    ('import matplotlib.pyplot as plt\nplt.savefig("../docs/fig_accuracy.pdf")\n', 40),
    ('import matplotlib.pyplot as plt\nplt.savefig(f"../docs/fig_{name}.pdf")\n', 0),   # computed: names no file
    ('import matplotlib.pyplot as plt\nplt.savefig("../docs/other.pdf")\n', 0),
])
def test_a_figure_the_code_writes_into_docs_is_a_result_figure(measure_s, writer, value):
    m = measure_s("expected_outputs", {"analysis/train.py": writer, "docs/fig_accuracy.pdf": IMAGE})
    assert m.value == value
    if value:
        assert [e["path"] for e in evidence_of(m, "expected_outputs.figure")] == ["docs/fig_accuracy.pdf"]


def test_a_baseline_folder_of_sub_folders_shows_each_of_them(measure_s):
    m = measure_s("expected_outputs", {"tests/baseline_images/test_plot/line.png": "P" * 20,
                                        "tests/baseline_images/test_hist/bars.png": "Q" * 20,
                                        "tests/testthat/_snaps/plot.md": "# plot\n\n    Code\n      x\n",
                                        "tests/testthat/_snaps/plot/line.svg": "<svg>line</svg>" * 2})
    assert [(e["path"], e["reason"]) for e in evidence_of(m, "expected_outputs.test_output_dir")] == [
        ("tests/baseline_images/test_hist", "test expected-output folder holding 1 file"),
        ("tests/baseline_images/test_plot", "test expected-output folder holding 1 file"),
        ("tests/testthat/_snaps", "test expected-output folder holding 2 files")]


@pytest.mark.parametrize(("ecosystem", "fix"), [
    ("python", "pytest-mpl baseline images or expected files under tests/"),
    ("r", "testthat snapshots in tests/testthat/_snaps/"),
    ("julia", "reference files that test/runtests.jl compares with"),
    ("matlab", "reference .mat or .csv files that the tests compare with"),
    ("native", "reference outputs of test cases in tests/<case>/reference/"),
    ("nextflow", "nf-test snapshots, *.nf.test.snap"),
    ("snakemake", "expected outputs of Snakemake unit tests in .tests/unit/<rule>/expected/"),
])
def test_the_output_fix_names_the_ecosystems_reference_outputs(measure_s, ecosystem, fix):
    assert measure_s("expected_outputs", BARE_TREES[ecosystem]).fix == (
        f"Commit the outputs of a reference run in results/ (or {fix}) and describe the expected output in the README.")


def test_figure_tier_shows_the_folders_holding_figures(measure_s):
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 32
    files = {f"_freeze/report/figure-html/chunk-{i}.png": png for i in range(12)}
    files.update({"slides/talk/map.png": png, "slides/talk/trend.png": png, "overview.png": png})
    m = measure_s("expected_outputs", files)
    assert (m.value, m.counts["figures"]) == (40, 15)
    assert [(e.path, e.rule) for e in m.evidence[:5]] == [
        ("_freeze", "expected_outputs.figure_folder"),
        ("slides", "expected_outputs.figure_folder"),
        ("_freeze/report/figure-html/chunk-0.png", "expected_outputs.figure"),
        ("slides/talk/map.png", "expected_outputs.figure"),
        ("overview.png", "expected_outputs.figure"),
    ]
    assert m.evidence[0].reason == "12 committed figures under _freeze/"
    assert len(m.evidence) == 12


# --------------------------------------------------------------------------- S5 ci_presence


def test_ci_directories_are_matched_case_insensitively(measure_s):
    m = measure_s("ci_presence", {".GitHub/Workflows/CI.YML": "on: push\n", ".circleci/config.yml": "version: 2.1\n"})
    assert m.value == 100
    assert [e.path for e in m.evidence] == [".GitHub/Workflows/CI.YML", ".circleci/config.yml"]
    assert m.counts == {"ci_files": 2, "runs_tests": False}


def test_ci_files_that_run_tests_come_first_with_their_test_lines(measure_s):
    files = {f".github/workflows/a{i:02d}.yml": "on: push\n" for i in range(25)}
    files[".github/workflows/z-tests.yml"] = ("on: push\njobs:\n  t:\n    steps:\n      - run: pip install tox\n"
                                              "      - run: tox -e py311\n      - run: ctest --output-on-failure\n")
    m = measure_s("ci_presence", files)
    assert m.counts == {"ci_files": 26, "runs_tests": True}
    assert [(e.path, e.line_start, e.rule) for e in m.evidence[:3]] == [
        (".github/workflows/z-tests.yml", None, "ci_presence.config"),
        (".github/workflows/z-tests.yml", 6, "ci_presence.runs_tests"),
        (".github/workflows/a00.yml", None, "ci_presence.config"),
    ]
    assert len(m.evidence) == 20


def test_ci_yaml_below_workflows_subfolder_does_not_count(measure_s):
    assert measure_s("ci_presence", {".github/workflows/old/ci.yml": "on: push\n"}).value == 0


@pytest.mark.parametrize(("files", "fix"), [
    (BARE_TREES["python"], "Add a CI workflow such as .github/workflows/tests.yml that installs the environment and "
                           "runs the tests (pytest) on every push."),
    ({"R/fit.R": "f <- function() 1\n", "DESCRIPTION": "Package: fit\n"},
     "Add a CI workflow that runs R CMD check on every push, e.g. r-lib/actions' check-standard "
     "(usethis::use_github_action(\"check-standard\"))."),
    (BARE_TREES["r"], "Add a CI workflow that restores the R environment (r-lib/actions/setup-r and setup-renv) and "
                      "runs the analysis scripts or their testthat tests on every push."),
    ({"src/Fit.jl": "module Fit end\n", "Project.toml": "name = \"Fit\"\n"},
     "Add a CI workflow that runs the package tests on every push (julia-actions/setup-julia, julia-buildpkg and "
     "julia-runtest)."),
    (BARE_TREES["julia"], "Add a CI workflow that instantiates the environment (julia-actions/setup-julia, then "
                          "julia --project -e 'using Pkg; Pkg.instantiate()') and runs the scripts or "
                          "test/runtests.jl on every push."),
    (BARE_TREES["matlab"], "Add a CI workflow that runs the tests on every push (matlab-actions/setup-matlab and "
                           "matlab-actions/run-tests)."),
    (BARE_TREES["native"], "Add a CI workflow that builds the code and runs its tests on every push "
                           "(cmake -B build && cmake --build build && ctest --test-dir build)."),
    (BARE_TREES["nextflow"], "Add a CI workflow that runs the pipeline on its test profile (nextflow run . -profile "
                             "test,docker) or nf-test test on every push."),
    (BARE_TREES["snakemake"], "Add a CI workflow that lints the workflow and runs it on its .test/ data on every push "
                              "(snakemake/snakemake-github-action with directory: .test, --lint, then --use-conda "
                              "--cores 1)."),
])
def test_the_ci_fix_names_the_ecosystems_own_runner(measure_s, files, fix):
    assert measure_s("ci_presence", files).fix == fix


@pytest.mark.parametrize(("build", "commands"), [
    ("cmake", "cmake -B build && cmake --build build && ctest --test-dir build"),
    ("meson", "meson setup build && meson test -C build"),
    ("fpm", "fpm build && fpm test"),
    ("autotools", "./configure && make && make check"),
    ("make", "make && make test"),
    ("make with a platform suffix", "make && make test"),
])
def test_the_native_ci_fix_builds_and_tests_with_the_trees_own_build(measure_s, build, commands):
    files = {**BARE_TREES["native"], **NATIVE_BUILDS[build]}
    assert measure_s("ci_presence", files).fix == (
        f"Add a CI workflow that builds the code and runs its tests on every push ({commands}).")


def test_a_script_ci_runs_is_a_test_run_only_when_it_validates(measure_s):
    files = {"scripts/plot.py": "assert True\n", "scripts/check_plot.py": "print('looks fine')\n",
             ".travis.yml": "script:\n  - python scripts/plot.py\n  - python scripts/check_plot.py\n"}
    assert measure_s("ci_presence", files).counts == {"ci_files": 1, "runs_tests": False}
    files["scripts/check_plot.py"] = "import numpy as np\nnp.testing.assert_allclose(1.0, 1.0)\n"
    m = measure_s("ci_presence", files)
    assert m.counts == {"ci_files": 1, "runs_tests": True}
    assert [(e["line_start"], e["reason"]) for e in evidence_of(m, "ci_presence.runs_tests")] == [
        (3, "CI job runs the validation script scripts/check_plot.py")]


# --------------------------------------------------------------------------- S6 config_externalised


@pytest.mark.parametrize(("files", "value", "rule"), [
    ({"params.yaml": "lr: 0.1\n"}, 100, "config_externalised.parameter_file"),
    ({"src/conf/model/resnet.yaml": "depth: 50\n"}, 100, "config_externalised.config_dir"),
    ({"a/b/configs/x.yaml": "k: 1\n"}, 0, None),
    ({".config/x.yaml": "k: 1\n"}, 0, None),
    ({"main.py": "from absl import flags\nFLAGS = flags.FLAGS\n"}, 80, "config_externalised.cli_parser"),
    ({"main.py": "import sys\n# sys.argv[1] is the input\nprint(len(sys.argv))\n"}, 0, None),
    ({"main.py": "import sys\nprint 'using', sys.argv[1]\n"}, 80, "config_externalised.argv"),
    ({"main.py": "from sys import argv\nname = argv[1]\n"}, 80, "config_externalised.argv"),
    ({"main.nf": "params.reads = 'data/*.fq'\n"}, 100, "config_externalised.nextflow_params"),
    ({"report.Rmd": "---\ntitle: r\nparams:\n  year: 2020\n---\n"}, 100, "config_externalised.rmd_params"),
    ({"run.jl": "n = parse(Int, ARGS[1])\n"}, 80, "config_externalised.cli_parser"),
    ({"fit.R": "library(optparse)\n"}, 80, "config_externalised.cli_parser"),
    ({"fit.R": "cfg <- config::get()\n"}, 100, "config_externalised.r_config"),
    ({"fit.R": "# we could use commandArgs() here\n"}, 0, None),
    # 2.3.0: the gflags API (absl.flags and TensorFlow 1's re-exports of it)
    ({"main.py": "import tensorflow as tf\ntf.app.flags.DEFINE_string('data', 'cora', 'Dataset.')\n"}, 80,
     "config_externalised.cli_parser"),
    ({"main.py": "from tensorflow.compat.v1 import flags\nflags.DEFINE_integer('epochs', 5, 'Epochs.')\n"}, 80,
     "config_externalised.cli_parser"),
    ({"main.py": "import gflags\ngflags.DEFINE_bool('verbose', False, 'Log more.')\n"}, 80,
     "config_externalised.cli_parser"),
    ({"main.py": "flags.DEFINE_string('data', 'cora', 'Dataset.')\n"}, 0, None),     # no flags package imported
    ({"main.py": "import tensorflow as tf\nregistry.DEFINE_op('add')\n"}, 0, None),    # no gflags type
])
def test_config_sources(measure_s, files, value, rule):
    m = measure_s("config_externalised", files)
    assert m.value == value
    assert [e.rule for e in m.evidence][:1] == ([rule] if rule else [])


def test_a_matlab_parameter_script_the_driver_runs_is_a_parameter_file(measure_s):
    fixture = FIXTURES / "config_externalised" / "matlab_parameter_script" / "tree"
    files = {str(p.relative_to(fixture)): p.read_text() for p in fixture.rglob("*.m")}
    m = measure_s("config_externalised", files)
    assert m.value == 100
    assert [(e.path, e.reason) for e in m.evidence] == [
        ("configFiles/StandardSettings.m", "MATLAB parameter script, run by run_sorting.m:3"),
        ("sim/sim_params.m", "MATLAB parameter script, run by sim/make_sim.m:2")]
    # a script the driver runs is no parameter file by its name and folder alone
    assert measure_s("config_externalised", {"main.m": "run('load_recording.m')\n",
                                             "load_recording.m": "x = load('rec.mat');\n"}).value == 0
    # nor is a function, or a settings script nothing runs
    assert measure_s("config_externalised", {"main.m": "ops = default_config(3);\n",
                                             "default_config.m": "function ops = default_config(n)\nops.n = n;\nend\n",
                                             "configFiles/probe_settings.m": "ops.nChan = 32;\n"}).value == 0


def test_a_workflows_own_parameters_come_before_a_tools_configuration(measure_s):
    m = measure_s("config_externalised", {
        "main.nf": ("params.genome = 'GRCh38'\n\nworkflow {\n"
                    "    config = Channel.fromPath(\"$projectDir/assets/multiqc_config.yml\")\n}\n"),
        "nextflow.config": "params {\n    input = null\n    outdir = 'results'\n}\n",
        "assets/multiqc_config.yml": "report_comment: bamtofastq\n",
    })
    assert m.reason == "parameters externalised (Nextflow params: nextflow.config)"
    assert [(e.path, e.line_start, e.rule) for e in m.evidence] == [
        ("nextflow.config", 1, "config_externalised.nextflow_params"),
        ("main.nf", 1, "config_externalised.nextflow_params"),
        ("main.nf", 4, "config_externalised.loaded_parameter_file"),
        ("assets/multiqc_config.yml", None, "config_externalised.parameter_file_loaded")]
    m = measure_s("config_externalised", {"Snakefile": "configfile: 'config/config.yaml'\n",
                                           "config/config.yaml": "samples: samples.tsv\n"})
    assert m.reason == "parameters externalised (Snakemake configfile: Snakefile)"
    assert m.evidence[0].rule == "config_externalised.snakemake_configfile"


def test_argparse_evidence_shows_where_the_options_are_declared(measure_s):
    m = measure_s("config_externalised", {
        "cli.py": ("import argparse\n\n\ndef add_options(parser):\n    \"\"\"The run's options.\"\"\"\n"
                   "    parser.add_argument('--alpha', type=float)\n    parser.add_argument('--beta')\n"
                   "    return parser\n"),
        "run.py": "import argparse\nfrom cli import add_options\n\nargs = add_options(argparse.ArgumentParser()).parse_args()\n",
        "plot.py": "import argparse\np = argparse.ArgumentParser()\np.add_argument('in')\np.add_argument('--dpi')\n",
    })
    assert m.value == 80
    assert [(e.path, e.line_start, e.line_end, e.reason) for e in m.evidence] == [
        ("cli.py", 4, 8, "declares its command-line options with argparse in add_options()"),
        ("plot.py", 3, 4, "declares its command-line options with argparse"),
        ("run.py", 1, 1, "imports the command-line parser argparse"),
    ]


def test_full_tier_shows_each_source_first_then_every_file(measure_s):
    m = measure_s("config_externalised", {
        "configuration/a_default.json": "{}\n",
        "configuration/b_cloud.json": "{}\n",
        "sim/main.cpp": "int main(int argc, char** argv) { return 0; }\n",
        "sim/decks/x.par": "n = 1\n",
        "sim/decks/y.par": "n = 2\n",
        "tool/run.py": "import json\nSETTINGS = json.load(open('run_settings.json'))\n",
        "tool/run_settings.json": "{}\n",
        "tool/report.py": "NAME = 'run_settings.json'\n",
    })
    assert (m.value, m.counts["parameter_files"], m.counts["input_deck_folders"]) == (100, 1, 1)
    assert [(e.path, e.line_start, e.rule) for e in m.evidence] == [
        ("configuration/a_default.json", None, "config_externalised.config_dir"),
        ("tool/report.py", 1, "config_externalised.loaded_parameter_file"),
        ("sim/decks/x.par", None, "config_externalised.input_deck"),
        ("tool/run_settings.json", None, "config_externalised.parameter_file_loaded"),
        ("tool/run.py", 2, "config_externalised.loaded_parameter_file"),
        ("configuration/b_cloud.json", None, "config_externalised.config_dir"),
        ("sim/decks/y.par", None, "config_externalised.input_deck"),
    ]


@pytest.mark.parametrize(("ecosystem", "fix"), [
    ("python", "Move hard-coded run parameters into config.yaml (read with yaml/Hydra) or expose them as argparse "
               "command-line options."),
    ("r", "Move hard-coded run parameters into config.yml read with config::get(), or read them from the command "
          "line with optparse or commandArgs() (an R Markdown report: params: in its YAML header)."),
    ("julia", "Move hard-coded run parameters into a TOML file read with TOML.parsefile(), or read them from the "
              "command line with ArgParse.jl or ARGS."),
    ("matlab", "Move hard-coded run parameters into a parameter file (a .json read with jsondecode(fileread(...))), "
               "or pass them to the driver function as arguments checked with inputParser."),
    ("native", "Read the run parameters from an input file (a Fortran namelist, a parameter deck) or the command "
               "line (getopt, CLI11) instead of compiling them in."),
    ("nextflow", "Declare the pipeline parameters with defaults in nextflow.config (params { ... }), so runs "
                 "override them with --name or -params-file."),
    ("snakemake", "Move the workflow's settings into config/config.yaml read with configfile:, so runs override "
                  "them with --configfile."),
])
def test_the_config_fix_names_the_ecosystems_own_tools(measure_s, ecosystem, fix):
    assert measure_s("config_externalised", BARE_TREES[ecosystem]).fix == fix


def test_matlab_options_are_inputparser_uses_and_driver_arguments(measure_s):
    # `p = inputParser;` is no call: its addParameter calls show it
    m = measure_s("config_externalised", {"src/smooth.m": "function y = smooth(x, varargin)\np = inputParser;\n"
                                                          "addParameter(p, 'width', 3)\nparse(p, varargin{:});\n"
                                                          "y = x;\nend\n",
                                           "scripts/main.m": "function main(cfg)\ndisp(cfg)\nend\n"})
    assert (m.value, m.reason) == (80, "parameters come from the function arguments (src/smooth.m)")
    assert [(e.path, e.line_start, e.reason) for e in m.evidence] == [
        ("src/smooth.m", 3, "parses its name-value options with inputParser")]
    assert m.fix == ("Move the run parameters into a parameter file (a .json read with jsondecode(fileread(...))), "
                     "so the exact settings of the published run are recorded.")
    # a library function's arguments are its API; only a top-level driver's are run parameters
    assert measure_s("config_externalised", {"src/smooth.m": "function y = smooth(x, w)\ny = x;\nend\n"}).value == 0


def test_nextflow_parameters_with_defaults_are_the_full_tier(measure_s):
    m = measure_s("config_externalised", {"main.nf": "workflow { A(Channel.fromPath(params.reads)) }\n",
                                           "nextflow.config": "params.reads = 'data/*.fq'\n"})
    assert (m.value, [e.rule for e in m.evidence]) == (100, ["config_externalised.nextflow_params"])


def test_python_config_evidence_points_at_the_import_line(measure_s):
    m = measure_s("config_externalised", {
        "nb.ipynb": notebook(("x = 1", 1), ("import click\nfrom omegaconf import OmegaConf", 2)),
    })
    assert m.value == 100
    assert [(e.path, e.cell, e.line_start) for e in m.evidence] == [("nb.ipynb", 2, 2)]


# --------------------------------------------------------------------------- S7 hardware_requirements


@pytest.mark.parametrize(("files", "value", "applicable"), [
    ({"requirements.txt": "barracuda-tools==1.0\n", "README.md": "# x\n"}, 100, False),
    ({"run.py": "model.cuda()\n", "README.md": "Needs cuDNN 8.\n"}, 100, True),
    ({"run.py": "x = x.to('cuda:0')\n", "README.md": "# x\n"}, 0, True),
    ({"fit.R": "library(torch)\n", "README.md": "# x\n"}, 0, True),
    ({"train.jl": "using Flux, CUDA\n", "README.md": "A full run needs 16 GB of RAM.\n"}, 100, True),
    ({"environment.yml": "dependencies:\n  - pytorch\n  - pytorch-cuda=11.8\n"}, 100, True),
    ({"requirements.txt": "jax==0.4.20\n", "docker-compose.yml": "services:\n  app:\n    runtime: nvidia\n"}, 100, True),
    ({"requirements.txt": "tensorflow==2.13\n", "docs/setup.md": "Tested on an NVIDIA A100.\n"}, 100, True),
    ({"requirements.txt": "tensorflow==2.13\n", "README.md": "Debugging tips for CPUs and GPUless setups.\n"}, 0, True),
    ({"requirements.txt": "tensorflow==2.13\n", "CHANGELOG.md": "Added GPU support.\n"}, 0, True),
])
def test_gpu_use_and_declarations(measure_s, files, value, applicable):
    m = measure_s("hardware_requirements", files)
    assert (m.value, m.applicable) == (value, applicable), [e.to_dict() for e in m.evidence]


def test_hardware_evidence_shows_the_statement_and_the_gpu_image(measure_s):
    m = measure_s("hardware_requirements", {
        "README.rst": "Tool\n====\n\n|PyPI| |Docker CUDA|\n\nThe JAX backend can use GPU acceleration.\n",
        "docker/gpu/Dockerfile": "FROM nvidia/cuda:12.2.0-runtime-ubuntu22.04\nRUN pip install tool[jax]\n",
        "tool/backend.py": "import jax\n",
    })
    assert (m.value, m.counts) == (100, {"gpu_triggers": 1, "declarations": 1})
    assert [(e.rule, e.path, e.line_start) for e in m.evidence] == [
        ("hardware_requirements.gpu_import", "tool/backend.py", 1),
        ("hardware_requirements.documented", "README.rst", 6),
        ("hardware_requirements.gpu_image", "docker/gpu/Dockerfile", 1),
    ]


def test_undeclared_gpu_fix_names_the_readme(measure_s):
    m = measure_s("hardware_requirements", {"readme.rst": "Tool\n====\n", "a.py": "import cupy\n"})
    assert m.value == 0
    assert m.fix.startswith("State the hardware in readme.rst:")
    assert [(e.rule, e.path, e.line_start) for e in m.evidence] == [("hardware_requirements.gpu_import", "a.py", 1)]


@pytest.mark.parametrize(("files", "fix"), [
    ({"train.py": "import torch\n"},
     "State the hardware in README.md: GPU model and memory and CUDA version, or that a CPU is enough, and the RAM a "
     "full run needs."),
    ({"fit.R": "library(torch)\n"},
     "State the hardware in README.md: GPU model and memory and the CUDA version torch/tensorflow use, or that a CPU "
     "is enough, and the RAM a full run needs."),
    ({"fit.jl": "using CUDA\n"},
     "State the hardware in README.md: GPU model and memory and the CUDA version CUDA.jl uses (CUDA.versioninfo()), "
     "or that a CPU is enough, and the RAM a full run needs."),
    ({"fit.m": "x = gpuArray(rand(3));\n"},
     "State the hardware in README.md: the GPU the gpuArray code needs (a CUDA GPU your MATLAB release supports, "
     "with Parallel Computing Toolbox) and its memory, or that a CPU is enough, and the RAM a full run needs."),
    ({"src/k.cu": "__global__ void k() {}\n"},
     "State the hardware in README.md: GPU model, compute capability (CMAKE_CUDA_ARCHITECTURES) and CUDA toolkit "
     "version, or that a CPU build is enough, and the RAM and cores a run needs."),
    ({"main.nf": "workflow { }\n", "bin/train.py": "import torch\n"},
     "Declare what the GPU processes need with accelerator, memory and cpus directives, or state the GPU, its memory "
     "and the CUDA version in README.md."),
    ({"Snakefile": "rule all:\n    input: 'x'\n", "scripts/train.py": "import torch\n"},
     "Declare what the GPU rules need with resources: (gpu=1, mem_mb=...) and threads:, or state the GPU, its memory "
     "and the CUDA version in README.md."),
])
def test_the_hardware_fix_names_what_the_ecosystems_gpu_code_needs(measure_s, files, fix):
    m = measure_s("hardware_requirements", files)
    assert (m.value, m.fix) == (0, fix)


def test_gpu_use_is_read_in_every_ecosystem_and_cpu_resources_alone_are_no_gpu(measure_s):
    # cpus/memory directives and threads: declare, they do not make a pipeline GPU code
    assert measure_s("hardware_requirements", {"main.nf": "process A {\n  cpus 4\n  memory '8 GB'\n"
                                                          "  script:\n  'echo'\n}\n"}).applicable is False
    assert measure_s("hardware_requirements", {"job.sh": "#!/bin/bash\n#SBATCH --mem=8G\n"}).applicable is False
    m = measure_s("hardware_requirements", {"CMakeLists.txt": "find_package(CUDAToolkit 11 REQUIRED)\n",
                                            "README.md": "# x\n\nNeeds an NVIDIA GPU with 8 GB.\n"})
    assert (m.value, [(e.rule, e.path, e.line_start) for e in m.evidence]) == (100, [
        ("hardware_requirements.cuda_build", "CMakeLists.txt", 1),
        ("hardware_requirements.documented", "README.md", 3)])
    # a trigger in a vendored folder is another project's GPU code
    assert measure_s("hardware_requirements", {"third_party/k/k.cu": "__global__ void k() {}\n",
                                                "third_party/k/LICENSE": "MIT\n"}).applicable is False


def test_gpu_imports_are_shown_from_the_top_level_scripts_and_across_folders(measure_s):
    m = measure_s("hardware_requirements", {"models/a.py": "import torch\n", "models/b.py": "import torch\n",
                                            "data/c.py": "import torch\n", "main.py": "import os\nimport torch\n"})
    assert [(e.path, e.line_start) for e in m.evidence] == [("main.py", 2), ("data/c.py", 1), ("models/a.py", 1),
                                                            ("models/b.py", 1)]


def test_julia_runners_include_test_files_and_a_file_including_sources_is_no_runner(measure_s):
    m = measure_s("test_file_presence", {
        "test/runtests.jl": "using Test\n@testset \"all\" begin\n    include(\"core/core.jl\")\nend\n",
        "test/core/core.jl": "testfile(\"graph.jl\")\n",
        "test/core/graph.jl": "@test 1 + 1 == 2\n",
        "test/test_helpers.jl": "include(\"../lib/graph.jl\")\nmake_graph() = 1\n",
        "lib/graph.jl": "graph() = 1\n",
    })
    assert (m.value, m.counts["test_files"]) == (50, 1)
    assert [(e.path, e.line_start, e.rule) for e in m.evidence] == [
        ("test/core/graph.jl", 1, "test_file_presence.julia"), ("test/runtests.jl", 3, "test_file_presence.runner"),
        ("test/core/core.jl", 1, "test_file_presence.runner"), ("test/test_helpers.jl", None, "test_file_presence.no_tests")]
