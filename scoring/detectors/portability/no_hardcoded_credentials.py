"""C3 no_hardcoded_credentials: source and parameter files contain no hard-coded credentials."""

from __future__ import annotations

from scoring.detectors._shared import (
    JULIA,
    MATLAB,
    NATIVE,
    NEXTFLOW,
    PYTHON,
    SNAKEMAKE,
    R,
    fix_ecosystem,
)
from scoring.detectors.portability._common import (
    MAX_EVIDENCE,
    _evidence,
    _files,
    _Hit,
    _join,
    _ratio_value,
)
from scoring.facts import CredentialFact
from scoring.model import Evidence
from scoring.registry import Result, detector
from scoring.tree import TreeIndex


def _hit(path: str, fact: CredentialFact) -> _Hit:
    if fact.kind == "token":
        rule, reason = f"token.{fact.name}", f"{fact.name} token format {fact.masked}"
    elif fact.kind == "private_key":
        rule, reason = "token.private_key", "PEM private key with key material"
    else:
        rule, reason = "assignment", f"credential-named {fact.name!r} bound to a literal value {fact.masked}"
    return _Hit(path, fact.line, f"no_hardcoded_credentials.{rule}", reason, fact.excerpt, fact.cell)


_PUBLIC_SHOWN = 5


def _public(path: str, fact: CredentialFact) -> Evidence:
    return Evidence(path, f"publishable {fact.name} key {fact.masked}: made to ship in client code, not counted",
                    rule="no_hardcoded_credentials.public_token", line_start=fact.line, line_end=fact.line,
                    snippet=fact.excerpt, cell=fact.cell)


# how each language reads a secret at run time, for the fix text
_RUNTIME_SECRET = {
    "python": 'os.environ["NAME"]', "notebook": 'os.environ["NAME"]', "snakemake": 'os.environ["NAME"]',
    "r": 'Sys.getenv("NAME")', "rmd": 'Sys.getenv("NAME")', "julia": 'ENV["NAME"]',
    "matlab": "getenv('NAME')", "c_cpp": 'getenv("NAME")', "fortran": 'get_environment_variable("NAME", value)',
    "nextflow": "a Nextflow secret (nextflow secrets set NAME …, secret 'NAME' in the process)",
    "shell": '"$NAME" set outside the script',
}


# where a deposit keeps the secrets its configuration files must not hold, by the
# ecosystem of the tree (scoring.detectors._shared.fix_ecosystem)
_SECRET_STORE = {
    PYTHON: "an uncommitted .env file, with a committed .env.example of placeholders",
    R: "an uncommitted .Renviron read with Sys.getenv(), with a committed example of placeholders",
    JULIA: 'environment variables read with ENV["NAME"], set outside the repository',
    MATLAB: "environment variables read with getenv('NAME'), set outside the repository",
    NATIVE: 'environment variables read with getenv("NAME"), set outside the repository',
    NEXTFLOW: "Nextflow secrets (nextflow secrets set NAME …, secrets.NAME in the configuration)",
    SNAKEMAKE: 'environment variables the workflow declares with envvars: and reads with os.environ["NAME"]',
}


def _fix(hits_by_file: dict[str, list[_Hit]], kinds: dict[str, str], ecosystem: str) -> str:
    bad = sorted(hits_by_file)
    idioms = dict.fromkeys(_RUNTIME_SECRET[kinds[path]] for path in bad if kinds[path] in _RUNTIME_SECRET)
    committed = [path for path in bad if kinds[path] not in _RUNTIME_SECRET]
    ways = ", ".join(idioms)
    if committed:
        # parameter and .env files: the value goes, the key stays with a placeholder
        ways = (ways + "; " if ways else "") + f"keep secrets out of committed configuration files ({_SECRET_STORE[ecosystem]})"
    return f"Revoke the exposed credentials in {_join(bad)} and read them at run time instead: {ways}."


@detector("no_hardcoded_credentials", version="2.2.0")
def no_hardcoded_credentials(tree: TreeIndex) -> Result:
    """Source and parameter files contain no hard-coded credentials.

    What it checks:
        Exactly the files of C1: Python files, notebook code cells and magics, R, R
        Markdown/Quarto, Julia and shell files, the MATLAB/Octave, C/C++, Fortran,
        Nextflow (``.nf``, ``nextflow.config``, ``conf/*.config``) and Snakemake files
        (METRICS.md §0.1.9, §0.3: workflow code is source), vendored files excepted, and
        parameter files (YAML/JSON/TOML/INI named like configuration or below a config
        directory) and ``.env*`` files except ``.env.example``/``.env.sample``. A file is
        bad when it holds a provider token (AWS ``AKIA``/``ASIA``, GitHub
        ``gh[pousr]_``/``github_pat_``, GitLab ``glpat-``, OpenAI ``sk-``/``sk-proj-``,
        Stripe ``sk_live_``, Slack ``xox?-``, Google ``AIza``, Hugging Face ``hf_``,
        JWTs, Mapbox ``sk.``, PEM private keys with key material) anywhere in its text,
        or binds a
        literal to a credential-named key: the name's last component is ``password``,
        ``passwd``, ``api_key``, ``secret_key``, ``access_token``, ``client_secret``,
        ``private_key``, ``credentials``, … Bindings are read in each language's own
        syntax, outside comments and docstrings: ``=``, ``:``, ``<-``, ``=>``, keyword
        arguments, dict keys and parameter defaults (Python, and Snakemake rules:
        ``params: password="…"``), R/Julia keys (``ENV["API_KEY"] = …``) and key-setting
        calls (``fredr::fredr_set_key("…")``, ``census_api_key``, ``set_api_key``,
        ``set_token``), MATLAB struct fields and variables (``db.password = '…'``) and
        name-value arguments (``'Password', '…'``), C/C++ initialisers and
        ``#define NAME "…"``, Fortran assignments and keyword arguments, Nextflow
        ``params.api_key = '…'``, config settings, map entries and named arguments,
        the lines of process scripts read as shell, shell and ``.env`` assignments and
        ``--password=…`` options. The value must have at least 8 characters, no
        whitespace, and not be a URL, path, regular expression, template or
        environment lookup, or a placeholder (``YOUR_``, ``EXAMPLE``, ``XXXX``,
        ``<…>``, ``CHANGEME``, …). For the generic words ``token``, ``secret``, ``pwd``
        and ``auth`` it also needs ≥ 3.0 bits of entropy per character. Value =
        100·(1 − bad files / scanned files); nothing scanned → 100, not applicable.
    Why it matters:
        A committed secret is public the moment the deposit is: it must be revoked, and
        code that depends on it cannot run for anyone else anyway.
    Evidence:
        Path, line (and cell), the rule (token provider or assignment) and the key name;
        the secret itself is never reported, only its first four characters and length.
        Then up to five publishable keys (Mapbox ``pk.``, Stripe ``pk_live_``), made to
        ship in a web page's code: shown, never counted.
    How to fix:
        Revoke the exposed credential, then read it at run time in the file's own
        language: ``os.environ["NAME"]`` (Python, Snakemake), ``Sys.getenv("NAME")``
        (R), ``ENV["NAME"]`` (Julia), ``getenv('NAME')`` (MATLAB, C/C++),
        ``get_environment_variable`` (Fortran), a Nextflow secret (``nextflow secrets
        set NAME …`` and ``secret 'NAME'`` in the process). A secret in a configuration
        file goes where the deposit's ecosystem keeps secrets: an uncommitted ``.env``
        (Python; commit a ``.env.example`` with placeholders), ``.Renviron`` (R),
        Nextflow secrets, environment variables a Snakemake workflow declares with
        ``envvars:``, or the environment (Julia, MATLAB, C/C++/Fortran).
    Known false positives:
        Long literal test fixtures or demo passwords bound to credential-named keys
        (``password = "hunter2hunter2"`` in a unit test) count; so do public,
        intentionally shared read-only tokens, and provider-format tokens written in a
        comment, docstring or roxygen block (a live token is exposed wherever it is
        written; METRICS.md §0.2.4 makes documentation text no binding, not a safe place
        for a token). Secrets assembled at run time, stored in files outside the scanned
        set (``.pem``, ``.key``, ``docker-compose.yml``) or embedded in URLs
        (``postgres://user:pass@host``) are not seen.
    """
    code, parameters = _files(tree)
    files = code + parameters
    if not files:
        return Result(100, applicable=False, reason="no source or parameter files to scan",
                      counts={"files_scanned": 0, "files_with_credentials": 0})
    hits_by_file = {}
    public: list[Evidence] = []
    for scanned in files:
        # decided where the file was read (its frontend, or the line reader), masked
        credentials = scanned.lines.credentials if scanned.lines is not None else scanned.facts.credentials
        hits = [_hit(scanned.path, fact) for fact in credentials if fact.kind != "public_token"]
        if hits:
            hits_by_file[scanned.path] = hits
        public.extend(_public(scanned.path, fact) for fact in credentials if fact.kind == "public_token")
    bad = len(hits_by_file)
    counts = {
        "files_scanned": len(files),
        "files_with_credentials": bad,
        "credential_hits": sum(len(h) for h in hits_by_file.values()),
        "public_tokens": len(public),
        "parameter_files": len(parameters),
        "env_files": sum(1 for f in parameters if f.kind == "env"),
    }
    value = _ratio_value(bad, len(files))
    if not bad:
        return Result(value, counts=counts, evidence=public[:_PUBLIC_SHOWN],
                      reason=f"no hard-coded credential in {len(files)} scanned files")
    evidence = _evidence(hits_by_file)
    return Result(
        value,
        evidence=evidence + public[:min(_PUBLIC_SHOWN, MAX_EVIDENCE - len(evidence))],
        counts=counts,
        reason=f"{bad} of {len(files)} scanned files contain hard-coded credentials",
        fix=_fix(hits_by_file, {f.path: f.kind for f in files}, fix_ecosystem(tree)),
    )
