"""C3's credentials as facts (``FileFacts.credentials``): decided by the Python, R and
Julia frontends where they read a file, masked, with the lines and cells evidence uses."""

from __future__ import annotations

import json

import pytest

from scoring.facts import CredentialFact, FileFacts
from scoring.frontends import _credentials, frontend_for
from scoring.frontends._credentials import (
    _CREDENTIAL_NAME,
    lex,
    may_name_credential,
    token_bindings,
)
from scoring.parsers.secrets import credential_word

SECRET = "q8Zr2LmT7vXp4nCb"          # 16 characters, no placeholder, high entropy
MASK = "q8Zr…(16 chars)"
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def extract(path: str, text: str) -> FileFacts:
    return frontend_for(path).extract(text.encode(), path)


def found(facts: FileFacts) -> list[tuple]:
    return [(c.cell, c.line, c.kind, c.name, c.masked) for c in facts.credentials]


def notebook(*cells: str, language: str = "python") -> str:
    return json.dumps({
        "nbformat": 4, "metadata": {"kernelspec": {"language": language}},
        "cells": [{"cell_type": "code", "source": source, "outputs": [], "execution_count": None}
                  for source in cells],
    })


def test_a_python_script_binds_and_holds_credentials_masked():
    facts = extract("run.py", f'import os\nAPI_KEY = "{SECRET}"\n\ndef f(password="hunter2hunter2"):\n'
                              f'    return "{TOKEN}"\nuser = "YOUR_API_KEY"\n')
    assert found(facts) == [
        (None, 2, "assignment", "API_KEY", MASK),
        (None, 4, "assignment", "password", "hunt…(14 chars)"),
        (None, 5, "token", "github", "ghp_…(40 chars)"),
    ]
    assert facts.credentials[0] == CredentialFact(2, "assignment", "API_KEY", MASK, f"API_KEY = {MASK}")
    text = facts.to_json()
    assert SECRET not in text and "hunter2hunter2" not in text and TOKEN not in text


def test_python_that_does_not_parse_is_read_line_by_line():
    facts = extract("old.py", f'print "x"\ntoken = "{SECRET}"\n')
    assert facts.parse_error is not None
    assert found(facts) == [(None, 2, "assignment", "token", MASK)]


def test_a_notebook_reads_python_cells_magics_and_r_and_shell_cells_with_cell_lines():
    facts = extract("a.ipynb", notebook(
        "import os\n",
        f"x = 1\n%env GITHUB_TOKEN={SECRET}\nclient_secret = '{SECRET}x'\n",
        f'%%R\nlibrary(fredr)\nfredr::fredr_set_key("{SECRET}")\n',
        f"%%bash\nexport AWS_SECRET_ACCESS_KEY={SECRET}\n",
    ))
    assert found(facts) == [
        (2, 2, "assignment", "GITHUB_TOKEN", MASK),
        (2, 3, "assignment", "client_secret", "q8Zr…(17 chars)"),
        (3, 3, "assignment", "api_key", MASK),       # the %%R line counts within the cell
        (4, 2, "assignment", "AWS_SECRET_ACCESS_KEY", MASK),
    ]
    # the R cell's own facts (FileFacts.embedded) carry none: the notebook's are read
    # across all its cells, every secret of the file masked on every line
    assert all(not embedded.credentials for embedded in facts.embedded)


def test_an_r_kernel_notebook_and_an_invalid_one():
    facts = extract("r.ipynb", notebook(f'password <- "{SECRET}"\n', language="R"))
    assert found(facts) == [(1, 1, "assignment", "password", MASK)]
    broken = extract("b.ipynb", '{"cells": [\n  "password = \\"' + SECRET + '\\"",\n')
    assert broken.parse_error.startswith("NotebookError")
    assert found(broken) == [(None, 2, "assignment", "password", MASK)]


def test_r_markdown_reads_every_chunk_with_the_documents_lines():
    facts = extract("report.Rmd", (
        "---\ntitle: x\n---\n\n```{r}\nkey <- 1\n```\n\n"
        f'```{{r, eval = FALSE}}\nSys.setenv(GITHUB_TOKEN = "{SECRET}")\n```\n\n'
        f'```{{python}}\nimport os\npassword = "{SECRET}"\n```\n'))
    assert found(facts) == [
        (None, 10, "assignment", "GITHUB_TOKEN", MASK),   # not evaluated, still written down
        (None, 15, "assignment", "password", MASK),
    ]
    assert all(not embedded.credentials for embedded in facts.embedded)


def test_r_and_julia_scripts_bind_by_every_operator_they_have():
    r = extract("a.R", f'cfg[["password"]] <- "{SECRET}"\n"{SECRET}" -> db_pwd\nset_api_key("{SECRET}")\n'
                       'token <- "short"\n')
    assert found(r) == [(None, 1, "assignment", "password", MASK), (None, 2, "assignment", "db_pwd", MASK),
                        (None, 3, "assignment", "api_key", MASK)]
    julia = extract("a.jl", f'ENV["GITHUB_TOKEN"] = "{SECRET}"\nconf = Dict("api_key" => "{SECRET}")\n')
    assert found(julia) == [(None, 1, "assignment", "GITHUB_TOKEN", MASK), (None, 2, "assignment", "api_key", MASK)]


def test_matlab_binds_struct_fields_variables_and_name_value_arguments_outside_comments():
    facts = extract("db.m", (
        "function c = db()\n% HELP: db.password = 'Kq8Zr2LmT7vXp4nC' in the help text\n"
        f"cfg.password = '{SECRET}';\nx = a';  y = [b' 'c'];\n"
        f"c = database('lab', 'reader', 'pw', 'Password', '{SECRET}');\n"
        "%{\napi_key = 'Kq8Zr2LmT7vXp4nC';\n%}\n"
        f'token = "{SECRET}";\nend\n'))
    assert found(facts) == [(None, 3, "assignment", "password", MASK), (None, 5, "assignment", "Password", MASK),
                            (None, 9, "assignment", "token", MASK)]
    assert facts.credentials[0].excerpt == f"cfg.password = {MASK};"


def test_the_matlab_tokenizer_tells_a_transpose_from_a_char_array():
    assert lex("x = a'; y = [a' 'b'];disp 'it''s'\n", "matlab") == [
        ("name", "x", 1), ("op", "=", 1), ("name", "a", 1), ("op", "'", 1), ("op", ";", 1),
        ("name", "y", 1), ("op", "=", 1), ("op", "[", 1), ("name", "a", 1), ("op", "'", 1), ("str", "b", 1),
        ("op", "]", 1), ("op", ";", 1), ("name", "disp", 1), ("str", "it's", 1), ("nl", "\n", 1),
    ]


def test_c_and_cpp_bind_initialisers_defines_and_arrays_not_calls_or_comments():
    facts = extract("client.cpp", (
        f'// const char *password = "{SECRET}";\n#define DB_PASSWORD "{SECRET}"\n'
        f'static char password[64] = "{SECRET}";\nstd::string api_key{{"{SECRET}"}};\n'
        f'check_password("{SECRET}");\ncfg.token = R"x({SECRET})x";\n'))
    assert found(facts) == [(None, 2, "assignment", "DB_PASSWORD", MASK), (None, 3, "assignment", "password", MASK),
                            (None, 4, "assignment", "api_key", MASK), (None, 6, "assignment", "token", MASK)]


def test_fortran_binds_assignments_and_keyword_arguments_in_free_and_fixed_form():
    free = extract("io.f90", (f"! password = '{SECRET}'\ncharacter(len=*), parameter :: password = '{SECRET}'\n"
                              f'call open_db(user="reader", pwd="{SECRET}")\ncfg%token = "short"\n'))
    assert found(free) == [(None, 2, "assignment", "password", MASK), (None, 3, "assignment", "pwd", MASK)]
    fixed = extract("old.f", f"C     password = '{SECRET}'\n      passwd = '{SECRET}'\n")
    assert found(fixed) == [(None, 2, "assignment", "passwd", MASK)]


def test_nextflow_binds_params_config_settings_map_entries_and_process_script_lines():
    script = extract("main.nf", (
        f'params.api_key = "{SECRET}"\n// params.token = "{SECRET}"\nprocess X {{\n    script:\n    """\n'
        f'    mysql --password={SECRET} -h db < q.sql\n    echo "a//b"\n    """\n}}\n'
        f"def opts = [secret_key: '{SECRET}', name: 'x']\n"))
    assert found(script) == [(None, 1, "assignment", "api_key", MASK), (None, 6, "assignment", "password", MASK),
                             (None, 10, "assignment", "secret_key", MASK)]
    config = extract("nextflow.config", f"params {{\n    db_password = '{SECRET}'\n    token = System.getenv('T')\n}}\n")
    assert found(config) == [(None, 2, "assignment", "db_password", MASK)]


def test_snakemake_binds_rule_keyword_arguments_and_python_assignments():
    facts = extract("Snakefile", (
        f'API_KEY = "{SECRET}"\n\nrule get:\n    output: "x"\n    params:\n        password="{SECRET}"\n'
        '    shell: "curl {params.password}"\n'))
    assert found(facts) == [(None, 1, "assignment", "API_KEY", MASK), (None, 6, "assignment", "password", MASK)]
    broken = extract("rules/a.smk", f'rule a:\n    params: token="{SECRET}"\n  bad indent(\n')
    assert broken.parse_error is not None
    assert found(broken) == [(None, 2, "assignment", "token", MASK)]
    assert SECRET not in facts.to_json() and SECRET not in broken.to_json()


@pytest.mark.parametrize("name", [
    "password", "PASSWORD", "db_passwd", "pwd", "apiKey", "API_KEY", "api_key_", "ApiKey", "APIKEY",
    "secretKEY", "client.secret", "credentials", "Credentials", "aws-credential", "auth", "my token",
    "x$password", "GITHUB_TOKEN", "set_api_key", "census_api_key", "api\\key", "api_keyé",
])
def test_every_name_that_ends_with_a_credential_word_is_found_by_the_tokenizers_gate(name):
    assert credential_word(name) is not None or name in ("set_api_key", "census_api_key")
    assert _CREDENTIAL_NAME.search(name)


@pytest.mark.parametrize("name", ["keyboard", "tokenizer", "passwords_file", "monkey2", "authors", "keys"])
def test_names_that_end_otherwise_are_neither_credentials_nor_through_the_gate(name):
    assert credential_word(name) is None
    assert not _CREDENTIAL_NAME.search(name)


@pytest.mark.parametrize("text", [
    "keys <- 1", "api_key <- 1", "API_KEY=", "x$Token", "monkey2", "authors", "auth", "Credentials", "credentialsX",
    "passwd", "PassWord9", "db_pwd]", "\u212aey <- 1", "api_\u212aey", "\u017fecret = 1", "\u0130 api_key",
    "\u0130 keys", "key\u0130", "", "k", "tokenized secretary keyword",
])
def test_the_gate_finds_what_its_regular_expression_finds(text):
    assert may_name_credential(text) == bool(_CREDENTIAL_NAME.search(text))


def test_text_that_can_bind_no_credential_name_is_not_tokenized(monkeypatch):
    def refuse(text, language):
        raise AssertionError("tokenized")

    monkeypatch.setattr(_credentials, "lex", refuse)
    # a provider token needs no binding: it is still found
    facts = extract("a.R", f'x <- "monkeys"\nkeys <- c(1, 2)\ny <- "{TOKEN}"\n')
    assert found(facts) == [(None, 3, "token", "github", "ghp_…(40 chars)")]
    with pytest.raises(AssertionError, match="tokenized"):
        extract("b.R", f'token <- "{SECRET}"\n')


def test_the_tokenizer_decodes_strings_and_skips_comments():
    tokens = lex('# api_key <- "no"\nx <- "a\\tb" # c\nr"(raw\\n)"\n', "r")
    assert tokens == [
        ("nl", "\n", 1), ("name", "x", 2), ("op", "<-", 2), ("str", "a\tb", 2), ("nl", "\n", 2),
        ("str", "raw\\n", 3), ("nl", "\n", 3),
    ]
    assert list(token_bindings(tokens)) == [("x", "a\tb", 2)]


@pytest.mark.parametrize(("path", "text"), [
    # bindings the snippet redaction cannot see in the facts that keep them
    ("a.py", f'os.environ.setdefault("TOKEN", "{SECRET}")\nd = {{"api_key": "{SECRET}"}}\n'),
    ("a.ipynb", notebook(f'os.environ.setdefault("TOKEN", "{SECRET}")\n', f'%%R\nset_api_key("{SECRET}")\n')),
    ("a.R", f'set_api_key("{SECRET}")\n"{SECRET}" -> db_pwd\n'),
    ("a.Rmd", f'```{{r}}\nset_api_key("{SECRET}")\n```\n'),
    ("a.jl", f'conf = Dict("api_key" => "{SECRET}")\n'),
    ("db.m", f"c = database('lab', 'reader', 'pw', 'Password', '{SECRET}');\n"),
    ("client.cpp", f'std::string api_key{{"{SECRET}"}};\n'),
    ("io.f90", f"call open_db(pwd='{SECRET}')\n"),
    ("main.nf", f"def opts = [secret_key: '{SECRET}']\n"),
    ("Snakefile", f'rule a:\n    params: token="{SECRET}"\n'),
])
def test_a_secret_c3_finds_is_masked_in_every_fact_of_the_file(path, text):
    facts = extract(path, text)
    assert facts.credentials
    assert SECRET not in facts.to_json()


def test_publishable_keys_are_found_apart_from_secrets_and_masked_too():
    public = "pk.eyJ1IjoibGFiIiwiYSI6ImNseDdrOSJ9.Qm3Zt8Lx2Vb7Np4Kr9Wd1A"
    secret = "sk.eyJ1IjoibGFiIiwiYSI6ImNseDdrOSJ9.Zr8Tq2Lm7Vx3Kb9Wd4Np6H"
    stripe = "pk_live_51Hq8ZrT2mLx7Vp4Nc"
    source = (f"html = \"<script>L.mapbox.accessToken = '{public}'</script>\"\n"
              f'UPLOAD = "{secret}"\napi_key = "{stripe}"\n')
    facts = extract("map.py", source)
    assert [(c.line, c.kind, c.name) for c in facts.credentials] == [
        (1, "public_token", "mapbox"), (2, "token", "mapbox"),
        (3, "public_token", "stripe"),   # found as a publishable key before the binding
    ]
    text = facts.to_json()
    assert public not in text and secret not in text and stripe not in text


@pytest.mark.parametrize(("text", "expected"), [
    ('#define API_KEY "x"\n', True),
    ("opts = struct('Password', 'x');\n", True),
    ("int key = hash(k);\nputs(\"done\");\n", False),      # the quote is on another line
    ("keys = ['a'];\n", False),                            # keys is no credential name
    ("token", False),
])
def test_matlab_c_and_fortran_are_tokenized_only_with_a_quote_after_a_credential_name(text, expected):
    assert _credentials.may_bind_on_its_line(text) is expected


def test_c_text_that_binds_nothing_on_a_line_is_not_tokenized(monkeypatch):
    def refuse(text, language):
        raise AssertionError("tokenized")

    monkeypatch.setattr(_credentials, "lex", refuse)
    assert extract("hash.c", "static int key;\nint lookup(int key) { return table[key]; }\n").credentials == ()
    with pytest.raises(AssertionError, match="tokenized"):
        extract("db.c", f'#define DB_PASSWORD "{SECRET}"\n')
