"""A4 data_acquisition_script: code in the repository downloads the data."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

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
from scoring.detectors.data._common import (
    _CODE_CONTEXT,
    _INSTALLER_SUFFIXES,
    GDAL_REMOTE_RE,
    MAX_EVIDENCE,
    URL_FETCH_CALL_RE,
    DataSignal,
    OwnIdentifiers,
    Pointer,
    _guarded,
    _host_is,
    _is_workflow_file,
    _notebook_code_lines,
    _python_facts,
    _split_url,
    _top,
    classify_url,
    data_probe,
    is_data_use_path,
    is_documentation_example,
    is_software_download,
    is_software_release,
    nextflow_param_urls,
    nextflow_remote_params,
    not_applicable_result,
    own_identifiers,
    probed,
    snakemake_remote_urls,
)
from scoring.facts import CallFact, Expr, FileFacts, Value
from scoring.model import Evidence
from scoring.parsers.shell import Command, split_commands
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

_URL_START_RE = re.compile(r"^(?:https?|ftp)://", re.IGNORECASE)
_INSTALLER_HOSTS = ("repo.anaconda.com", "repo.continuum.io", "get.docker.com", "install.python-poetry.org",
                    "astral.sh", "sh.rustup.rs", "bootstrap.pypa.io", "micro.mamba.pm", "pixi.sh",
                    "deb.nodesource.com", "rpm.nodesource.com", "get.sdkman.io")
_INSTALLER_NAME_RE = re.compile(r"(?:miniconda|miniforge|mambaforge|anaconda3|get-pip\.py)", re.IGNORECASE)
# Programs that consume a download as an installer or a signing key rather than as data.
_INTERPRETERS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python2", "python3",
                           "perl", "ruby", "node", "php", "Rscript", "apt-key", "gpg"})
_DOWNLOADERS = frozenset({"wget", "curl", "aria2c"})
_CURL_UPLOAD_FLAGS = frozenset({"-d", "--data", "--data-binary", "--data-raw", "--data-urlencode", "-F", "--form",
                                "-T", "--upload-file"})
_SRA_TOOLS = frozenset({"prefetch", "fasterq-dump", "fastq-dump"})
# Every program _download_tool recognises: a shell line runs a download only if it
# names one of these or a downloader.
_DATA_TOOLS = frozenset({"zenodo_get", "osf", "kaggle", "dvc", "datalad", *_SRA_TOOLS, "aws", "gsutil", "gcloud",
                         "rclone", "gdown", "huggingface-cli", "hf", "synapse", "azcopy", "git"})
_DOWNLOAD_PROGRAMS = tuple(sorted(_DOWNLOADERS | _DATA_TOOLS))


def is_installer_url(url: str) -> bool:
    """Installer downloads are environment setup, not data (§0.1.22)."""
    host, path = _split_url(url)
    lower = path.lower()
    return (
        _host_is(host, *_INSTALLER_HOSTS)
        or lower.endswith(_INSTALLER_SUFFIXES)
        or bool(_INSTALLER_NAME_RE.search(lower))
        or (host == "github.com" and lower.startswith("/conda-forge/miniforge/"))
    )


def software_kind(url: str, own: OwnIdentifiers | None = None) -> str | None:
    """What software a URL fetches ("an installer", "a software release"), or None for
    data: a library tarball or a versioned source release (``fftw-3.3.10.tar.gz``,
    ``archive/v1.2.tar.gz``, ``archive/master.zip``) is software, never data acquisition
    (METRICS.md §0.3 native codes) -- unless a data archive hosts it (a Zenodo or
    institutional record of a versioned dataset)."""
    if is_installer_url(url):
        return "an installer"
    return "a software release" if is_software_release(url, own) else None


def _ignored_software(what: str, kind: str) -> Download:
    rule = "installer_ignored" if kind == "an installer" else "software_ignored"
    return Download(f"data_acquisition_script.{rule}", f"{what} of {kind} URL", installer=True)


def _is_local_url(url: str) -> bool:
    host, _ = _split_url(url)
    return host in ("localhost", "127.0.0.1", "0.0.0.0") or not host


@dataclass(frozen=True)
class Download:
    rule: str
    reason: str
    installer: bool = False   # an installer URL or a pipe into an interpreter: recorded, not counted
    # the first line of the workflow rule a wrapper belongs to: the evidence spans the rule
    # from there to the wrapper
    rule_line: int | None = None
    # where the name the call takes its URL from is bound (another line): shown as an
    # evidence item of its own, whose snippet is that line
    bound_line: int | None = None
    # a call of a local downloader function: the file and line of the download call inside
    # it that fetches the URL passed here, shown as an evidence item of its own
    via: tuple[str, int] | None = None


def shell_download(commands: list[Command], own: OwnIdentifiers | None = None) -> Download | None:
    """The data download performed by one shell line (its simple commands), if any; an
    installer download is returned only when the line holds no data download."""
    installer: Download | None = None
    for index, cmd in enumerate(commands):
        program = cmd.program
        args = list(cmd.args)
        if program in _DOWNLOADERS:
            urls = [a for a in args if _URL_START_RE.match(a)]
            if not urls or all(_is_local_url(u) for u in urls):
                continue
            if program == "curl" and (_CURL_UPLOAD_FLAGS & set(args) or _curl_writes(args)):
                continue
            reader = commands[index + 1] if index + 1 < len(commands) else None
            if reader is not None and reader.piped_from and reader.program in _INTERPRETERS:
                installer = installer or Download(
                    "data_acquisition_script.installer_ignored",
                    f"{program} output piped into {reader.program} (an installer or key)", installer=True)
                continue
            kinds = [software_kind(u, own) for u in urls]
            data_urls = [u for u, kind in zip(urls, kinds, strict=True) if kind is None]
            if not data_urls:
                installer = installer or _ignored_software(program, next(k for k in kinds if k))
                continue
            return Download("data_acquisition_script.shell_download", f"{program} downloads {data_urls[0]}")
        if _only_asks_about_itself(args):
            continue   # `prefetch --help &> /dev/null`: checks that the tool runs, fetches nothing
        tool = _download_tool(program, args, own)
        if tool:
            return Download("data_acquisition_script.download_tool", tool)
    return installer


_SELF_QUERY_FLAGS = frozenset({"--help", "-h", "-help", "--version", "-V", "-version"})


def _only_asks_about_itself(args: list[str]) -> bool:
    """A tool run with only a help or version flag (and redirections)."""
    words = [a for a in args if not re.match(r"^(?:\d?[<>]|&>|[<>&|])", a) and not re.match(r"^/dev/", a)]
    return bool(words) and all(a in _SELF_QUERY_FLAGS for a in words)


def _may_run_a_download(text: str) -> bool:
    """Whether a shell line names a downloader or data tool: the test before it is split
    into commands (most lines name none). Quotes and backslashes are dropped first, as
    the split drops them from a word (``w"get"`` runs ``wget``)."""
    if "'" in text or '"' in text or "\\" in text:
        text = text.replace("'", "").replace('"', "").replace("\\", "")
    return any(program in text for program in _DOWNLOAD_PROGRAMS)


def _curl_writes(args: list[str]) -> bool:
    """``curl -X POST/PUT`` sends data rather than fetching it."""
    for i, arg in enumerate(args):
        if arg in ("-X", "--request") and i + 1 < len(args) and args[i + 1].upper() in ("POST", "PUT", "PATCH", "DELETE"):
            return True
    return False


def _positional(args: list[str]) -> list[str]:
    return [a for a in args if not a.startswith("-")]


def _download_tool(program: str, args: list[str], own: OwnIdentifiers | None) -> str | None:
    if program not in _DATA_TOOLS:
        return None
    words = _positional(args)
    first = words[0] if words else ""
    if program == "zenodo_get":
        return "zenodo_get fetches a Zenodo record"
    if program == "osf" and {"clone", "fetch"} & set(words):
        return "osf client fetches an OSF project"
    if program == "kaggle" and len(words) >= 2 and words[0] in ("datasets", "d", "competitions", "c") and words[1] == "download":
        return "kaggle CLI downloads a dataset"
    if program == "dvc" and first in ("pull", "get", "import", "import-url", "fetch"):
        return f"dvc {first} fetches tracked data"
    if program == "datalad" and first in ("get", "clone", "install", "download-url"):
        return f"datalad {first} fetches data"
    if program in _SRA_TOOLS:
        return f"SRA toolkit {program} fetches sequencing runs"
    if program == "aws" and len(words) >= 3 and words[0] == "s3" and words[1] in ("cp", "sync") and words[2].startswith("s3://"):
        return f"aws s3 {words[1]} from a bucket"
    if program == "gsutil" and len(words) >= 2 and words[0] in ("cp", "rsync") and words[1].startswith("gs://"):
        return f"gsutil {words[0]} from a bucket"
    if program == "gcloud" and words[:2] == ["storage", "cp"] and len(words) >= 3 and words[2].startswith("gs://"):
        return "gcloud storage cp from a bucket"
    if program == "rclone" and first in ("copy", "sync", "copyurl"):
        return f"rclone {first} fetches remote data"
    if program == "gdown":
        return "gdown fetches a Google Drive file"
    if program in ("huggingface-cli", "hf") and first == "download":
        return f"{program} download fetches from the Hugging Face hub"
    if program == "synapse" and first == "get":
        return "synapse get fetches Synapse data"
    if program == "azcopy" and first == "copy" and len(words) >= 2 and _URL_START_RE.match(words[1]):
        return "azcopy copy from remote storage"
    if program == "git" and first == "clone" and own is not None:
        for url in (w for w in words[1:] if _URL_START_RE.match(w)):
            pointer = classify_url(url, _CODE_CONTEXT, own)
            if isinstance(pointer, Pointer) and pointer.value >= 60 and pointer.rule != "data_pointer.doi_in_data_context":
                return f"git clone of a data repository ({url})"
    return None


_SHELL_VAR_RE = re.compile(r"\$\{(\w+)\}|\$(\w+)")
_MAKE_VAR_REF_RE = re.compile(r"\$[({](\w+)[)}]")
def _substitute(text: str, table: dict[str, str], pattern: re.Pattern[str]) -> str:
    if not table or "$" not in text:
        return text
    for _ in range(3):  # variables defined through other variables
        new = pattern.sub(lambda m: table.get(next(g for g in m.groups() if g), m.group(0)), text)
        if new == text:
            break
        text = new
    return text


@dataclass(frozen=True)
class _Hit:
    path: str
    line: int | None
    cell: int | None
    snippet: str
    download: Download


class _DownloadScan:
    """Collects downloads, one per located line (two fetch calls on one line are one step)."""

    def __init__(self, own: OwnIdentifiers):
        self.own = own
        self.hits: list[_Hit] = []
        self._seen: set[tuple[str, int | None, int | None]] = set()

    def shell_line(self, text: str, path: str, line: int | None, cell: int | None,
                   table: dict[str, str] | None = None, pattern: re.Pattern[str] = _SHELL_VAR_RE) -> None:
        if table:
            text = _substitute(text, table, pattern)
        if not _may_run_a_download(text):
            return
        commands = split_commands(text)
        found = shell_download(commands, self.own) if commands else None
        if found:
            self.add(path, line, cell, text, found)

    def add(self, path: str, line: int | None, cell: int | None, snippet: str, download: Download) -> None:
        key = (path, line, cell)
        if line is None or key not in self._seen:
            self._seen.add(key)
            self.hits.append(_Hit(path, line, cell, snippet, download))


def _scan_shell_file(tree: TreeIndex, path: str, scan: _DownloadScan) -> None:
    script = tree.shell_script(path)
    if script is None or not script.commands:
        return
    table = script.variables
    for number, line in script.commands:
        scan.shell_line(line, path, number, None, table)


def _scan_make_like(tree: TreeIndex, path: str, scan: _DownloadScan) -> None:
    targets = tree.task_targets(path)
    if not targets:
        return
    table = tree.make_variables(path) if not path.lower().endswith(".py") else {}
    seen: set[int] = set()
    for target in targets:
        for number, command in target.recipe:
            if number in seen:
                continue
            seen.add(number)
            scan.shell_line(command.replace("$$", "$"), path, number, None, table, _MAKE_VAR_REF_RE)


# a string's prefix letter only before its quote: `fasterq-dump` keeps its f
_WORKFLOW_LINE_PREFIX_RE = re.compile(
    r"""^\s*(?:-\s*)?(?:(?:shell|cmd|script|command)\s*:\s*)?(?:[rRfF]?(?:\"\"\"|'''|"|'))?""")
_WORKFLOW_LINE_SUFFIX_RE = re.compile(r"""(?:\"\"\"|'''|"|')?\s*,?\s*$""")
_WORKFLOW_REMOTE_RE = re.compile(
    r"""\b(?:(?:HTTP|FTP)\.remote|storage(?:\.\w+)?|file|files|fromPath|fromFilePairs)\s*\(\s*[rf]?["'](?:https?|ftp|s3|gs)://"""
)
_PY_FALLBACK_URL_CALL_RE = re.compile(
    r"""\b(?:urlretrieve|urlopen|requests\.get|httpx\.get|wget\.download|get_file|download_url)\s*\([^)]*?[rbuf]*["'](?:https?|ftp)://[^"']+["']"""
)
_PY_FALLBACK_TOOL_RE = re.compile(
    r"\b(?:hf_hub_download|pooch\.retrieve|gdown\.download|GEOparse\.get_GEO|Entrez\.efetch|"
    r"dataset_download_files|zenodo_get)\s*\("
)


def _scan_workflow_file(tree: TreeIndex, path: str, scan: _DownloadScan) -> None:
    """Snakemake ``shell:`` strings and ``run:`` code, Nextflow/WDL script blocks and
    remote inputs, ``dvc.yaml`` commands: each line is read as a shell command after
    removing the directive and quotes."""
    facts = tree.facts(path)
    if facts is not None and facts.frontend in ("snakemake", "nextflow"):
        _scan_workflow_facts(tree, path, facts, scan)
    # a Nextflow script's ${params.name} stands for the remote URL the configuration binds
    params = nextflow_param_urls(tree) if facts is not None and facts.frontend == "nextflow" else {}
    for number, raw in tree.script_lines(path):
        if _WORKFLOW_REMOTE_RE.search(raw):
            scan.add(path, number, None, raw, Download("data_acquisition_script.workflow_remote",
                                                       "workflow input fetched from a remote URL"))
            continue
        if _PY_FALLBACK_URL_CALL_RE.search(raw) or _PY_FALLBACK_TOOL_RE.search(raw):
            scan.add(path, number, None, raw, Download("data_acquisition_script.python_call", "download call in workflow code"))
            continue
        command = _WORKFLOW_LINE_SUFFIX_RE.sub("", _WORKFLOW_LINE_PREFIX_RE.sub("", raw, count=1), count=1)
        param = _PARAM_DOWNLOAD_RE.search(command)
        if param:
            # `wget -O {output} {params.ftp}…`: the rule's parameter holds the URL
            scan.add(path, number, None, raw, Download("data_acquisition_script.shell_download",
                                                       f"{param.group(1)} downloads the URL in params.{param.group(2)}"))
            continue
        scan.shell_line(command, path, number, None, params, _NF_PARAM_REF_RE)


_NF_PARAM_REF_RE = re.compile(r"\$\{params\.(\w+)\}|\$params\.(\w+)")
# A downloader given a workflow parameter as its URL: Snakemake ``{params.url}``
# (``{params[url]}``), Nextflow ``${params.url}``.
_PARAM_DOWNLOAD_RE = re.compile(
    r"(?<![\w-])(wget|curl|aria2c)\s(?:[^|;&]*\s)?[\"']?(?:\{params(?:\.|\[[\"']?)|\$\{?params\.)(\w+)")
# Snakemake wrappers (snakemake-wrappers) that download data: Ensembl references,
# the VEP cache and plugins, SRA runs, genomepy genomes, Entrez records, any wrapper
# named for a download or fetch (``bio/snpeff/download``).
_DOWNLOAD_WRAPPER_RE = re.compile(
    r"(?:^|/)bio/(?:reference/[^/]+|vep/(?:cache|plugins)|sra-tools/[^/]+|genomepy|entrez/[^/]+)$"
    r"|(?:^|/)[^/]*(?:download|fetch)[^/]*$")


def _scan_workflow_facts(tree: TreeIndex, path: str, facts: FileFacts, scan: _DownloadScan) -> None:
    """Downloads the workflow engines perform from their facts: Snakemake wrappers of the
    download family (evidence from the rule's line to its wrapper), Snakemake remote
    providers called with a scheme-less address (``HTTP.remote("example.org/x.fa")``,
    ``FTP.remote(…)``) and Nextflow's ``Channel.fromSRA``."""
    if facts.frontend == "snakemake":
        rule_lines = {d.name: d.line for d in facts.definitions if d.kind in ("rule", "checkpoint")}
        for directive in facts.directives:
            if directive.kind == "wrapper" and _DOWNLOAD_WRAPPER_RE.search(_wrapper_path(directive.value)):
                scan.add(path, directive.line, None, directive.value, Download(
                    "data_acquisition_script.workflow_wrapper",
                    f"snakemake wrapper {_wrapper_path(directive.value)} downloads data",
                    rule_line=rule_lines.get(directive.scope)))
        for line, url in snakemake_remote_urls(facts):
            scan.add(path, line, None, tree.snippet(path, line) or url, Download(
                "data_acquisition_script.workflow_remote", f"workflow input fetched from the remote {url}"))
    else:
        for call in facts.calls:
            if call.name.rsplit(".", 1)[-1] == "fromSRA":
                scan.add(path, call.line, None, tree.snippet(path, call.line) or call.written, Download(
                    "data_acquisition_script.workflow_remote", "Channel.fromSRA fetches sequencing runs from SRA/ENA"))


def _wrapper_path(value: str) -> str:
    """A wrapper's path without its version (``0.74.0/bio/vep/cache`` -> ``bio/vep/cache``)
    and quotes."""
    text = value.strip().strip("\"'").rstrip("/")
    return re.sub(r"^(?:v?\d+(?:\.\d+)*|master|main)/", "", text)


# ---- Python calls
_DATASET_CALL_RE = re.compile(
    r"^(?:sklearn\.datasets\.fetch_\w+|(?:tensorflow\.)?keras\.datasets\.\w+\.load_data|"
    r"huggingface_hub\.hf_hub_download|pooch\.\w+(?:\.\w+)*|gdown\.\w+|zenodo_get(?:\.\w+)*|osfclient(?:\.\w+)*|"
    r"kagglehub\.\w*(?:download|load)\w*|kaggle(?:\.\w+|\.\w+\(\))*\.\w*download\w*|GEOparse\.get_GEO|"
    r"Bio\.Entrez\.efetch|synapseutils\.syncFromSynapse|datalad\.api\.(?:get|clone|install|download_url)|"
    r"dvc\.api\.(?:open|read)|torchvision\.datasets\.utils\.download_file_from_google_drive|"
    r"torchtext\.datasets\.\w+|openml\.datasets\.get_dataset)$"
)
_TORCH_DATASET_RE = re.compile(r"^(?:torchvision|torchaudio)\.datasets\.[A-Z]\w*$")
_SUBPROCESS_RE = re.compile(r"^(?:subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|os\.(?:system|popen))$")
_KAGGLE_METHOD_RE = re.compile(r"(?:^|\.)(?:dataset|competition)_download_files?$")
_LOCAL_BUILDERS = frozenset({"csv", "json", "parquet", "text", "imagefolder", "audiofolder", "arrow", "pandas",
                             "webdataset", "sql", "videofolder"})


def _kwarg(call: CallFact, name: str) -> Value | None:
    return next((value for key, value in call.kwargs if key == name), None)


def _call_url(call: CallFact, key: str | None = None) -> str | None:
    """The URL the call's arguments resolve to (the first, or that of keyword ``key``)."""
    return next((url for k, url in call.urls if key is None or k == key), None)


def python_download(call: CallFact, modules: set[str], own: OwnIdentifiers) -> Download | None:
    """The data download performed by one resolved call, if any (A4 V2, §0.1.22);
    ``modules`` are the top-level modules its unit (file or notebook cell) imports."""
    name = call.name
    if URL_FETCH_CALL_RE.match(name):
        url = _call_url(call)
        if not url or _is_local_url(url):
            return None
        kind = software_kind(url, own)
        if kind:
            return _ignored_software(name, kind)
        return Download("data_acquisition_script.python_call", f"{name} downloads {url}")
    if name == "datasets.load_dataset":
        builder = call.args[0] if call.args else _kwarg(call, "path")
        if isinstance(builder, str) and (builder in _LOCAL_BUILDERS or builder.startswith((".", "/", "~"))):
            if not _call_url(call, "data_files"):
                return None
        return Download("data_acquisition_script.python_call", "datasets.load_dataset fetches a hub dataset")
    if name == "tensorflow_datasets.load":
        if _kwarg(call, "download") is False:
            return None
        return Download("data_acquisition_script.python_call", "tensorflow_datasets.load downloads a dataset")
    if _TORCH_DATASET_RE.match(name):
        if _kwarg(call, "download") is True:
            return Download("data_acquisition_script.python_call", f"{name}(download=True) downloads a dataset")
        return None
    if name == "huggingface_hub.snapshot_download":
        if _kwarg(call, "repo_type") == "dataset":
            return Download("data_acquisition_script.python_call", "snapshot_download of a hub dataset")
        return None
    if _DATASET_CALL_RE.match(name):
        return Download("data_acquisition_script.python_call", f"{name} fetches data")
    if _SUBPROCESS_RE.match(name):
        if call.command and _may_run_a_download(call.command):
            commands = split_commands(call.command)
            found = shell_download(commands, own) if commands else None
            if found:
                return Download(found.rule if found.installer else "data_acquisition_script.python_shell",
                                f"{name} runs: {found.reason}", installer=found.installer)
        return None
    if "kaggle" in modules and _KAGGLE_METHOD_RE.search(call.written):
        return Download("data_acquisition_script.python_call", "Kaggle API downloads a dataset")
    if "synapseclient" in modules and call.written.endswith(".get") and call.args:
        ident = call.args[0]
        if isinstance(ident, str) and re.fullmatch(r"syn\d+", ident):
            return Download("data_acquisition_script.python_call", f"Synapse client fetches {ident}")
    return None


def _scan_python(tree: TreeIndex, path: str, facts: FileFacts, scan: _DownloadScan) -> None:
    """The calls of a Python file or notebook (facts; a notebook cell is a unit of its
    own for the imports that qualify a call, as it was read)."""
    modules: dict[int | None, set[str]] = {}
    for ref in facts.imports:
        if ref.kind != "dynamic":
            modules.setdefault(ref.cell, set()).add(_top(ref))
    unparsed = _unparsed_unit(path, facts)
    for call in facts.calls:
        if unparsed is not False and call.cell == unparsed:
            found = _fallback_download(call)
        else:
            if call.urls:
                call = _without_parameter_urls(call, facts)
            found = python_download(call, modules.get(call.cell, set()), scan.own)
        if found:
            scan.add(path, call.line, call.cell, tree.snippet(path, call.line, call.cell) or call.written, found)


def _without_parameter_urls(call: CallFact, facts: FileFacts) -> CallFact:
    """The call's URLs read in its function's scope: the frontend resolves a name against
    the unit's first binding of it, but inside a function the name is its latest string
    binding there before the call, and a parameter not rebound there hides every binding
    outside the function (§0.1.22, as for R, Julia and MATLAB)."""
    around = [d for d in facts.definitions if d.cell == call.cell and d.kind in ("function", "method")
              and d.line <= call.line <= (d.end_line or d.line)]
    if not around:
        return call
    function = max(around, key=lambda d: d.line)
    kept = []
    for key, url in call.urls:
        value = call.args[int(key)] if key.isdigit() and int(key) < len(call.args) else _kwarg(call, key)
        name = value.text.strip() if isinstance(value, Expr) else ""
        if name.isidentifier():
            local = [a for a in facts.assignments
                     if a.name == name and a.cell == call.cell and function.line < a.line <= call.line]
            if local:
                bound = max(local, key=lambda a: a.line).value
                if _URL_LITERAL_RE.match(bound):
                    kept.append((key, bound))
                continue
            if name in (p.lstrip("*") for p in function.parameters):
                continue
        kept.append((key, url))
    return call if kept == list(call.urls) else replace(call, urls=tuple(kept))


_FALLBACK_URL_CALL_RE = re.compile(r"(?:^|\.)(?:urlretrieve|urlopen|requests\.get|httpx\.get|wget\.download|get_file|download_url)$")
_FALLBACK_TOOL_RE = re.compile(r"(?:^|\.)(?:hf_hub_download|pooch\.retrieve|gdown\.download|GEOparse\.get_GEO|Entrez\.efetch|"
                               r"dataset_download_files|zenodo_get)$")


def _unparsed_unit(path: str, facts: FileFacts) -> int | None | bool:
    """The unit whose calls the frontend read by line patterns (it does not parse): None
    for a ``.py`` file, the cell named by a notebook's parse error; False when none."""
    error = facts.parse_error
    if not error:
        return False
    if error.startswith("cell "):
        head = error[5:].split(":", 1)[0]
        return int(head) if head.isdigit() else False
    return None if not path.lower().endswith(".ipynb") else False


def _fallback_download(call: CallFact) -> Download | None:
    """A download call in code that does not parse (Python 2), read by line patterns."""
    url = call.args[0] if call.args and isinstance(call.args[0], str) and _URL_START_RE.match(call.args[0]) else None
    if url and _FALLBACK_URL_CALL_RE.search(call.written) or _FALLBACK_TOOL_RE.search(call.written):
        kind = software_kind(url) if url else None
        if kind:
            return _ignored_software("download", kind)
        return Download("data_acquisition_script.python_call", "download call (line pattern; the file does not parse)")
    return None


# ---- R and Julia
_R_URL_CALL_RE = re.compile(
    r"(?<![\w.])(?P<name>download\.file|curl_download|GET|POST|request|read\.csv|read\.csv2|read\.table|read\.delim|"
    r"read_csv|read_tsv|read_delim|fread|readRDS|read_excel)\s*\(\s*(?P<arg>[^,)]*(?:\([^)]*\)?)?)"
)
_R_TOOL_RE = re.compile(r"(?<![\w.])(?P<name>getGEO|pb_download|BiocFileCache|bfcrpath|osf_download)\s*\(")
_JL_URL_CALL_RE = re.compile(r"(?<![\w.])(?P<name>Downloads\.download|download|HTTP\.download|HTTP\.get)\s*\(\s*(?P<arg>[^,)]*)")
_JL_TOOL_RE = re.compile(r"(?<![\w.])(?P<name>DataDep)\s*\(|datadep\"")
_URL_VAR_RE = re.compile(
    r"""^\s*(?:const\s+|local\s+|global\s+)?([A-Za-z_.][\w.]*)\s*(?:<<-|<-|=)\s*"""
    r"""(?:(?:paste0?|sprintf|file\.path|glue(?:::glue)?|str_c|string)\(\s*)?["']((?:https?|ftp)://[^"']*)"""
)
_ARG_WRAPPERS_RE = re.compile(r"^(?:url|gzcon|paste0?|string|file|sprintf|glue(?:::glue)?|file\.path)\s*\(\s*")


def _url_vars(lines: Iterable[str]) -> dict[str, str]:
    table: dict[str, str] = {}
    for line in lines:
        match = _URL_VAR_RE.match(line)
        if match:
            table.setdefault(match.group(1), match.group(2))
    return table


def _arg_url(arg: str, url_vars: dict[str, str]) -> str | None:
    text = re.sub(r"^[A-Za-z_.][\w.]*\s*=\s*(?!=)", "", arg.strip())
    for _ in range(3):
        new = _ARG_WRAPPERS_RE.sub("", text)
        if new == text:
            break
        text = new
    match = re.match(r"""^[rfb]?["']((?:https?|ftp)://[^"']*)""", text)
    if match:
        return match.group(1)
    ident = re.match(r"^[A-Za-z_.][\w.]*", text)
    return url_vars.get(ident.group(0)) if ident else None


def _strip_hash_comment(line: str) -> str:
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote and line[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return line[:i]
    return line


def _scan_r_julia_lines(lines: list[tuple[int, str]], language: str, path: str, cell: int | None,
                        scan: _DownloadScan) -> None:
    url_vars = _url_vars(text for _, text in lines)
    url_call, tool = (_R_URL_CALL_RE, _R_TOOL_RE) if language == "r" else (_JL_URL_CALL_RE, _JL_TOOL_RE)
    label = "r_call" if language == "r" else "julia_call"
    for number, raw in lines:
        if "(" not in raw and "datadep" not in raw:
            continue
        line = _strip_hash_comment(raw)
        match = tool.search(line)
        if match:
            scan.add(path, number, cell, raw, Download(f"data_acquisition_script.{label}",
                                                       f"{match.group('name') or 'datadep'} fetches data"))
            continue
        for match in url_call.finditer(line):
            url = _arg_url(match.group("arg"), url_vars)
            if not url or _is_local_url(url):
                continue
            kind = software_kind(url, scan.own)
            if kind:
                scan.add(path, number, cell, raw, _ignored_software(match.group("name"), kind))
            else:
                scan.add(path, number, cell, raw, Download(f"data_acquisition_script.{label}",
                                                           f"{match.group('name')} downloads {url}"))
            break


# httr's POST fetches what a query posts (E-utilities takes long id lists by POST)
_R_URL_CALLS = frozenset({"download.file", "curl_download", "GET", "POST", "request", "read.csv", "read.csv2", "read.table",
                          "read.delim", "read_csv", "read_tsv", "read_delim", "fread", "readRDS", "read_excel"})
_R_TOOLS = frozenset({"getGEO", "pb_download", "BiocFileCache", "bfcrpath", "osf_download",
                      # data-archive APIs: tidycensus (US Census), fredr (FRED)
                      "get_acs", "get_decennial", "get_estimates", "get_pums",
                      "fredr", "fredr_series_observations"})
_JL_URL_CALLS = frozenset({"Downloads.download", "download", "HTTP.download", "HTTP.get"})
_JL_TOOLS = frozenset({"DataDep"})
_URL_LITERAL_RE = re.compile(r"^(?:https?|ftp)://")


class _UrlNames:
    """Names bound to a URL literal, looked up in the scope of a call (METRICS.md §0.1.22,
    A4): a name takes its URL from a binding in the call's own function -- a parameter of
    that function hides every other binding --, then (R and Julia, whose functions see the
    names of the functions around them and of the file's top level) from the enclosing
    functions and the top level. A MATLAB function sees only its own workspace (a nested
    function that of the function around it too), never the bindings of a script's code
    or of another local function."""

    def __init__(self, facts: FileFacts, lexical: bool):
        self.lexical = lexical
        self.functions = [d for d in facts.definitions
                          if d.kind in ("function", "method") and d.end_line >= d.line]
        # (function line or 0 for the top level, name) -> the first binding's URL and line;
        # a name bound to anything else in that scope is known there and holds no URL
        self.bindings: dict[tuple[int, str], tuple[str, int]] = {}
        self.bound: set[tuple[int, str]] = set()
        for assignment in facts.assignments:
            scope = self._enclosing(assignment.line, assignment.cell)
            key = (scope[0].line if scope else 0, assignment.name)
            self.bound.add(key)
            if _URL_LITERAL_RE.match(assignment.value):
                self.bindings.setdefault(key, (assignment.value, assignment.line))

    def _enclosing(self, line: int, cell: int | None) -> list:
        """The functions around a line, innermost first."""
        around = [d for d in self.functions if d.cell == cell and d.line <= line <= d.end_line]
        return sorted(around, key=lambda d: d.line, reverse=True)

    def lookup(self, name: str, line: int, cell: int | None = None) -> tuple[str, int] | None:
        scopes = self._enclosing(line, cell)
        for function in scopes:
            if name in function.inputs or name in function.parameters:
                return None
            if (function.line, name) in self.bound:
                return self.bindings.get((function.line, name))
        if scopes and not self.lexical:
            return None
        return self.bindings.get((0, name))


def _fact_arg_url(value: Value, line: int, url_vars: _UrlNames,
                  literal_urls: dict[int, list[str]], cell: int | None = None) -> tuple[str | None, int | None]:
    """The URL an argument stands for: a URL literal, a wrapper call (``url("…")``,
    ``paste0("…", x)``…) whose literal is on the same line, or a name bound to a URL
    in the call's scope (then also the line of the binding)."""
    if isinstance(value, str):
        return (value if _URL_LITERAL_RE.match(value) else None), None
    if not isinstance(value, Expr):
        return None, None
    text = value.text.strip()
    unwrapped = text
    for _ in range(3):
        new = _ARG_WRAPPERS_RE.sub("", unwrapped)
        if new == unwrapped:
            break
        unwrapped = new
    if unwrapped != text:
        match = re.match(r"""^[rfb]?["']((?:https?|ftp)://[^"']*)""", unwrapped)
        if match:
            # the wrapper's own literal argument holds the whole URL (an Expr's text is cut)
            whole = next((u for u in literal_urls.get(line, ()) if u.startswith(match.group(1))), None)
            return whole or match.group(1), None
    ident = re.match(r"^[A-Za-z_.][\w.]*", unwrapped)
    bound = url_vars.lookup(ident.group(0), line, cell) if ident else None
    return bound if bound is not None else (None, None)


def _bound_at(bound: int | None, line: int) -> str:
    """Where the name a call takes its URL from is bound, for the reason: the evidence
    stays at the call's line, whose text the snippet shows."""
    return f" (the URL bound at line {bound})" if bound is not None and bound != line else ""


# The download calls (not readers) whose URL argument, when it is a parameter of the
# function around the call, makes that function a downloader of whatever its callers pass
_R_DOWNLOAD_CALLS = frozenset({"download.file", "curl_download"})
_JL_DOWNLOAD_CALLS = frozenset({"Downloads.download", "download", "HTTP.download"})


@dataclass(frozen=True)
class _Downloader:
    """A local R or Julia function that downloads the URL its caller passes: the parameter
    (and its position) that reaches the URL argument of a download call, and that call."""
    param: str
    position: int
    path: str
    line: int
    call: str


def _callee(call: CallFact, language: str) -> str:
    return call.written.rsplit("::", 1)[-1] if language == "r" else call.written


def _local_downloaders(tree: TreeIndex, sources: list[tuple[str, FileFacts, str]]) -> dict[str, dict[str, _Downloader]]:
    """Per language, the deposit's functions whose parameter is passed as the URL of a
    download call in their own body (``get_data <- function(url) curl::curl_download(url,
    …)``); the first definition of a name wins."""
    found: dict[str, dict[str, _Downloader]] = {"r": {}, "julia": {}}
    for path, facts, language in sources:
        calls = _R_DOWNLOAD_CALLS if language == "r" else _JL_DOWNLOAD_CALLS
        functions = [d for d in facts.definitions
                     if d.kind in ("function", "method") and d.inputs and d.end_line >= d.line]
        if not functions:
            continue
        for call in facts.calls:
            if _callee(call, language) not in calls:
                continue
            first = call.args[0] if call.args else None
            if not isinstance(first, Expr):
                continue
            around = [d for d in functions if d.cell == call.cell and d.line <= call.line <= d.end_line]
            if not around:
                continue
            function = max(around, key=lambda d: d.line)
            name = first.text.strip()
            if name in function.inputs and function.name:
                found[language].setdefault(function.name, _Downloader(
                    name, function.inputs.index(name), path, call.line, _callee(call, language)))
    return found


def _downloader_argument(call: CallFact, downloader: _Downloader) -> Value | None:
    """The argument a call passes for the downloader's URL parameter: by name, else by
    position among the positional arguments."""
    for key, value in call.kwargs:
        if key == downloader.param:
            return value
    return call.args[downloader.position] if downloader.position < len(call.args) else None


def _scan_r_julia_calls(tree: TreeIndex, path: str, facts: FileFacts, language: str, scan: _DownloadScan,
                        downloaders: dict[str, _Downloader] | None = None) -> None:
    """R and Julia downloads from the file's call facts: a fetching tool, or a reader or
    downloader called with a URL (a literal, a wrapper of one, a name bound to one),
    or a local downloader function called with one."""
    url_calls, tools = (_R_URL_CALLS, _R_TOOLS) if language == "r" else (_JL_URL_CALLS, _JL_TOOLS)
    downloaders = downloaders or {}
    label = "r_call" if language == "r" else "julia_call"
    for call in facts.calls:
        command = _command_download(call, language, scan.own)
        if command:
            scan.add(path, call.line, None, tree.snippet(path, call.line) or call.written, command)
    named = [(call, name) for call in facts.calls
             if (name := _callee(call, language)) in tools or name in url_calls or name in downloaders]
    if not named:   # most files: no fetching call at all
        return
    url_vars = _UrlNames(facts, lexical=True)
    # URL literals of the lines with such a call (a wrapper's literal is on its line)
    lines = {call.line for call, _ in named}
    literal_urls: dict[int, list[str]] = {}
    for call in facts.calls:
        if call.line in lines:
            for arg in call.args[:1]:
                if isinstance(arg, str) and _URL_LITERAL_RE.match(arg):
                    literal_urls.setdefault(call.line, []).append(arg)
    by_line: dict[int, Download] = {}
    for call, name in named:
        if name in tools:
            by_line[call.line] = Download(f"data_acquisition_script.{label}", f"{name} fetches data")
            continue
        if call.line in by_line:
            continue
        downloader = downloaders.get(name) if name not in url_calls else None
        if name not in url_calls and downloader is None:
            continue
        if downloader is not None:
            first = _downloader_argument(call, downloader)
        else:
            first = call.args[0] if call.args else (call.kwargs[0][1] if call.kwargs else None)
        url, bound = _fact_arg_url(first, call.line, url_vars, literal_urls, call.cell)
        if not url or _is_local_url(url):
            continue
        kind = software_kind(url, scan.own)
        if kind:
            by_line[call.line] = _ignored_software(name, kind)
        elif downloader is not None:
            by_line[call.line] = Download(
                f"data_acquisition_script.{label}",
                f"{name} downloads {url}{_bound_at(bound, call.line)} through {downloader.call} "
                f"({downloader.path}:{downloader.line})", bound_line=bound, via=(downloader.path, downloader.line))
        else:
            by_line[call.line] = Download(f"data_acquisition_script.{label}",
                                          f"{name} downloads {url}{_bound_at(bound, call.line)}", bound_line=bound)
    for line in sorted(by_line):
        scan.add(path, line, None, tree.snippet(path, line) or "", by_line[line])


_MATLAB_URL_CALLS = frozenset({"websave", "urlwrite", "webread"})
# the DANDI client called through MATLAB's Python interface (py.dandi.download.download,
# written ``download.download`` in the facts) with a dandi:// URI
_MATLAB_TOOL_RE = re.compile(r"^(?:py\.)?(?:dandi\.)?(?:download\.)?download$")


def _scan_matlab_calls(tree: TreeIndex, path: str, facts: FileFacts, scan: _DownloadScan) -> None:
    """MATLAB/Octave downloads from the call facts (§0.3): ``websave``/``urlwrite``/
    ``webread`` of a URL (a literal or a name bound to one) and the DANDI client
    ``py.dandi.download.download``."""
    url_vars: _UrlNames | None = None
    by_line: dict[int, Download] = {}
    for call in facts.calls:
        name = call.written
        first = call.args[0] if call.args else None
        if _MATLAB_TOOL_RE.match(name) and isinstance(first, str) and first.lower().startswith("dandi://"):
            by_line.setdefault(call.line, Download("data_acquisition_script.matlab_call", f"the DANDI client downloads {first}"))
            continue
        command = _command_download(call, "matlab", scan.own)
        if command:
            by_line.setdefault(call.line, command)
            continue
        if name not in _MATLAB_URL_CALLS or call.line in by_line:
            continue
        if url_vars is None:
            url_vars = _UrlNames(facts, lexical=False)
        args = list(call.args)
        # websave(filename, url) / urlwrite(url, filename) / webread(url)
        candidates = args[1:2] + args[:1] if name == "websave" else args[:1]
        for arg in candidates:
            url, bound = _fact_arg_url(arg, call.line, url_vars, {}, call.cell)
            if url and not _is_local_url(url) and not software_kind(url, scan.own):
                by_line[call.line] = Download("data_acquisition_script.matlab_call",
                                              f"{name} downloads {url}{_bound_at(bound, call.line)}",
                                              bound_line=bound)
                break
    for line in sorted(by_line):
        scan.add(path, line, None, tree.snippet(path, line) or "", by_line[line])


# Calls that run a command line, by frontend: the shell download a command string holds
# is a download whatever language runs it, as Python's ``os.system``/``subprocess`` are
# (A4 V2 "shell: wget/curl/aria2c with a URL (any flags)")
_COMMAND_CALLS = {
    "r": frozenset({"system", "shell", "system2"}),
    "julia": frozenset({"run", "read", "pipeline", "success"}),
    "matlab": frozenset({"system", "unix", "dos"}),
    "fortran": frozenset({"execute_command_line", "system"}),
    "c_cpp": frozenset({"system", "popen", "_popen", "_wsystem", "std::system"}),
}
_QUOTED_RE = re.compile(r"""["']([^"']*)["']""")


def _command_line(call: CallFact, frontend: str) -> str | None:
    """The command line a command-running call is given as literals: a string (``system("wget …")``,
    ``execute_command_line('curl -LO https://…')``), a Julia command literal
    (``run(`wget …`)``), R ``system2("curl", c("-LO", "https://…"))`` and MATLAB's
    ``!wget …``."""
    name = call.written.rsplit("::", 1)[-1] if frontend == "r" else call.written
    if frontend == "matlab" and name.startswith("!"):
        return " ".join([name[1:]] + [a for a in call.args if isinstance(a, str)])
    if name not in _COMMAND_CALLS[frontend] and call.written not in _COMMAND_CALLS[frontend]:
        return None
    first = call.args[0] if call.args else None
    if frontend == "julia":
        if isinstance(first, Expr) and first.text.startswith("`") and first.text.endswith("`"):
            return first.text[1:-1]
        return None
    if name == "system2" and isinstance(first, str):
        rest = call.args[1] if len(call.args) > 1 else _kwarg(call, "args")
        words = [rest] if isinstance(rest, str) else _QUOTED_RE.findall(rest.text) if isinstance(rest, Expr) else []
        return " ".join([first, *words])
    return first if isinstance(first, str) else None


def _command_download(call: CallFact, frontend: str, own: OwnIdentifiers) -> Download | None:
    command = _command_line(call, frontend)
    if not command or not _may_run_a_download(command):
        return None
    commands = split_commands(command)
    found = shell_download(commands, own) if commands else None
    if found is None:
        return None
    if found.installer:
        return found
    return Download("data_acquisition_script.command_string", f"{call.written} runs: {found.reason}")


def _scan_native_calls(tree: TreeIndex, path: str, facts: FileFacts, scan: _DownloadScan) -> None:
    """C, C++ and Fortran: a shell download in the command string of ``system()``,
    ``popen()`` or ``execute_command_line()``."""
    for call in facts.calls:
        found = _command_download(call, facts.frontend, scan.own)
        if found:
            scan.add(path, call.line, None, tree.snippet(path, call.line) or call.written, found)


def _scan_notebooks(tree: TreeIndex, scan: _DownloadScan) -> None:
    by_cell: dict[tuple[str, int | None, str], list[tuple[int, str]]] = {}
    for item in _notebook_code_lines(tree):
        if item.language == "shell":
            scan.shell_line(item.text, item.path, item.line, item.cell)
        elif item.language in ("r", "julia"):
            by_cell.setdefault((item.path, item.cell, item.language), []).append((item.line, item.text))
    for (path, cell, language), lines in by_cell.items():
        _scan_r_julia_lines(lines, language, path, cell, scan)


def _scan_gdal_remote(tree: TreeIndex, scan: _DownloadScan) -> None:
    """String literals that read a remote file through a GDAL virtual file system
    (``"/vsizip//vsicurl/https://naciscdn.org/naturalearth/…"`` for ``sf::st_read`` or
    ``terra::rast``, ``/vsis3/bucket/key`` for rasterio): in any language GDAL is called
    from, the read stages the remote data, a download."""
    paths = [p for kind in ("python", "notebook", "r", "rmd", "julia") for p in tree.by_type(kind)]
    for path in dict.fromkeys(paths + tree.by_frontend("matlab")):
        if tree.role(path) == "vendored":
            continue
        facts = tree.facts(path)
        for literal in facts.strings if facts is not None else ():
            if literal.docstring or "/vsi" not in literal.value:
                continue
            match = GDAL_REMOTE_RE.search(literal.value)
            if match:
                scan.add(path, literal.line_start, literal.cell,
                         tree.snippet(path, literal.line_start, literal.cell) or literal.value,
                         Download("data_acquisition_script.gdal_remote",
                                  f"GDAL reads the remote file {match.group(0)}"))


def _as_example(hit: _Hit) -> _Hit:
    """A download in documentation or a test, shown as ignored."""
    return _Hit(hit.path, hit.line, hit.cell, hit.snippet,
                Download("data_acquisition_script.example_ignored",
                         f"{hit.download.reason} (documentation or test: example data, not counted)",
                         rule_line=hit.download.rule_line, bound_line=hit.download.bound_line,
                         via=hit.download.via))


def _dvc_tracking_files(tree: TreeIndex) -> list[str]:
    """``*.dvc`` files that really track outputs (they carry ``outs:``)."""
    return [path for path in tree.files
            if path.lower().endswith(".dvc") and not path.startswith(".dvc/") and tree.dvc_tracking(path)]


@detector("data_acquisition_script", version="2.12.0")
def data_acquisition_script(tree: TreeIndex) -> Result:
    """Code in the repository downloads the data: a script, notebook cell, task recipe or workflow rule.

    What it checks:
        100 if any of these performs a data download (METRICS.md A4 V2, §0.1.22), else 0:
        shell scripts (``.sh``, ``.bash``, and extensionless files with a shell shebang
        such as ``kit/run-gen-ref``; ``\\`` continuations joined, ``$VAR`` expanded
        from assignments in the same file), notebook ``!``/``%sx`` lines and ``%%bash``
        cells, R Markdown shell chunks, Make-like recipes (root and environment
        locations; ``$(VAR)`` expanded), workflow files (Snakemake ``shell:`` and ``run:``
        lines, Nextflow/WDL scripts and remote ``file()``/``fromPath()`` inputs,
        ``dvc.yaml`` commands) running ``wget``/``curl``/``aria2c`` with an http(s)/ftp URL
        (any flags) or a data tool (``zenodo_get``, ``osf clone|fetch``, ``kaggle datasets
        download``, ``dvc pull|get|import``, ``datalad get|clone``, ``prefetch``,
        ``fasterq-dump``, ``aws s3 cp|sync s3://…``, ``gsutil cp gs://…``, ``rclone copy``,
        ``gdown``, ``huggingface-cli download``, ``git clone`` of a data repository);
        Python calls resolved through imports (``.py`` files and notebook cells):
        ``urlretrieve``/``urlopen``/``requests.get``/``httpx.get``/``wget.download``/
        ``keras.utils.get_file``/``pandas.read_*`` whose argument is a URL (a literal, an
        f-string or ``.format`` template, a concatenation starting with one, or a name
        bound to one in the same unit), and dataset fetchers (``datasets.load_dataset`` of
        a hub dataset, ``sklearn.datasets.fetch_*``, ``tensorflow_datasets.load``,
        ``keras.datasets.*.load_data``, torchvision/torchaudio datasets with
        ``download=True``, ``hf_hub_download``, ``pooch.*``, ``gdown.*``, ``zenodo_get``,
        ``osfclient``, the Kaggle API, ``GEOparse.get_GEO``, ``Entrez.efetch``, Synapse),
        and ``subprocess``/``os.system`` running a shell download; R ``download.file``,
        ``curl_download``, ``httr::GET``/``POST`` (2.6.0), ``read.csv``/``fread`` of a URL
        -- a literal, a wrapper of one, or a name bound to one or to a URL built from a
        literal base (``uri <- paste0("https://…/eutils/", util)``, also ``sprintf``,
        ``file.path``, ``glue``, ``str_c``; 2.6.0) --, ``getGEO``,
        ``piggyback::pb_download``, ``BiocFileCache``, ``osf_download``, the data-archive
        APIs ``tidycensus::get_acs``/``get_decennial``/``get_estimates``/``get_pums`` and
        ``fredr::fredr`` (in ``.R`` files and, from the R facts of their chunks, R Markdown
        and Quarto documents outside vignettes, tests, documentation and ``inst/``: a
        reader on a URL variable counts); MATLAB/Octave
        ``websave``/``urlwrite``/``webread`` of a URL and the DANDI client
        ``py.dandi.download.download("dandi://…")`` vendored code in every language
        (``renv/activate.R`` bootstrapping renv, toolboxes, ``third_party/``) is never
        evidence (§0.2.2; R and Julia 2.10.0); Julia
        ``Downloads.download``/``download``/``HTTP.get`` of a URL and ``DataDeps``. A
        name given to an R, Julia or MATLAB download call takes its URL only from a
        binding in the call's scope (§0.1.22; 2.8.0): the call's own function, then for R
        and Julia the functions around it and the file's top level (their functions see
        those names), for MATLAB only a nested function's parent (a local function sees
        no other function's or script's workspace); a parameter of the function hides
        every outer binding (``function str = readURL(url)`` / ``webread(url)`` fetches
        whatever its caller passes, not the ``url`` another function binds) -- and one
        level of that flow counts (2.11.0, in the spirit of §0.2.25's "every call site"): an
        R or Julia function of the deposit whose parameter is the URL argument of a
        download call in its body (``download.file``, ``curl_download``; Julia
        ``Downloads.download``, ``download``, ``HTTP.download``) is a downloader, and a call
        of it anywhere in the deposit (``source()``d or the same package) passing a URL for
        that parameter, by position or by name, is a download, with the inner download
        line as a second evidence item (``data_acquisition_script.downloader``); likewise a
        Python call's URL name inside a function is its latest string binding there
        before the call, and a parameter not rebound there names no known URL; and
        ``*.dvc`` data-tracking files (with ``outs:``). Also (2.5.0): a code string of
        Python, R, Julia or MATLAB that reads a remote file through a GDAL virtual file
        system (``"/vsizip//vsicurl/https://…"``, ``/vsis3/…``, ``/vsigs/…``, ``/vsiaz/…``
        with a path after it: sf, terra, rasterio, geopandas); workflow data (§0.3): a
        Nextflow parameter set to a remote file (http(s), ftp, s3, gs, az) in
        ``nextflow.config``, a profile's ``conf/*.config`` or a ``.nf`` file that
        ``file()``, ``Channel.fromPath``, ``fromFilePairs`` or nf-schema's
        ``samplesheetToList``/``fromSamplesheet`` reads (Nextflow stages it),
        ``Channel.fromSRA``, a Snakemake remote provider called with an address, scheme
        or not (``HTTP.remote("example.org/x.fa")``, ``FTP.remote(…)``), a
        snakemake-wrappers wrapper of the download family (``bio/reference/*`` such as
        ``ensembl-sequence``/``ensembl-variation``, ``bio/vep/cache``, ``bio/vep/plugins``,
        ``bio/sra-tools/*``, ``bio/genomepy``, ``bio/entrez/*``, any wrapper named for a
        download or fetch), and ``wget``/``curl`` given a rule parameter as its URL
        (``wget -O {output} {params.ftp}…``, ``${params.url}``); a Nextflow script's
        ``${params.name}`` reads as the remote URL the configuration binds it to
        (``git clone ${params.refRepo}`` with ``refRepo = 'https://github.com/lab/reference-data.git'``
        clones a data repository; 2.8.0). A shell download in the command string of a
        command-running call counts in every language, as Python's ``os.system`` and
        ``subprocess`` do (A4 V2 "shell: wget/curl/aria2c with a URL", whatever runs
        the shell; 2.8.0): R ``system("wget …")``/``system2("curl", c("-LO", "https://…"))``,
        Julia ``run(`wget …`)``, MATLAB ``system('wget …')``/``!wget …``, C/C++
        ``system()``/``popen()``, Fortran ``execute_command_line('curl -LO https://…')``
        (rule ``data_acquisition_script.command_string``); a command built at run time
        (``'curl -LO ' // url``) names no URL and does not count. ``git clone`` counts only
        for a repository A2 takes for data (named as data); a code repository cloned by
        a process (``primer-schemes``) is software, whatever it holds (the A4 tool list
        names ``datalad clone``, not ``git clone``).
        Not downloads: installer URLs (ending ``.sh .exe .deb .rpm .pkg .dmg .whl``,
        ``repo.anaconda.com``, Miniconda/Miniforge, ``get.docker.com``,
        ``install.python-poetry.org``, ``get-pip.py``, ``astral.sh``, ``sh.rustup.rs``),
        software releases (METRICS.md §0.3 native codes; 2.5.0): a library tarball or
        versioned source archive (``fftw-3.3.10.tar.gz``, ``openmpi-4.1.5.tar.bz2``,
        ``archive/v1.2.tar.gz``, ``archive/master.zip``) that no data archive hosts (a
        versioned dataset on Zenodo stays data), and GitHub's source archive of a
        repository at a ref (``api.github.com/repos/<o>/<r>/tarball/<ref>``,
        ``…/zipball``, ``codeload.github.com/<o>/<r>/tar.gz/<ref>``) unless the
        repository is named as data (2.10.0),
        any download piped into an interpreter (``curl … | sh``), localhost URLs,
        ``curl`` uploads, and a data tool run with only a help or version flag
        (``prefetch --help &> /dev/null`` checks that the tool runs; 2.4.0). A workflow
        line keeps a leading ``f``/``r`` unless it prefixes a quote (``fasterq-dump`` was
        read as ``asterq-dump`` before 2.4.0), and a command opening a subshell or group
        (``(wget … | gzip -dc) > ref.fa``) runs its first word. Python that does not
        parse (Python 2) is scanned with line patterns. README code blocks are
        documentation, not scripts, and a download in a documentation or test file
        (``docs/``, ``vignettes/``, tests: a tutorial's or a test's example data; the
        notebooks of a folder the documentation build copies in, 2.7.0) is listed as
        ignored, never counted (§0.3 deposit kind; 2.5.0).
        {shared:deposit_kind}
    Why it matters:
        A script that fetches the exact input files removes the most error-prone manual
        step of a rerun and records where the data came from.
    Evidence:
        Each download with file, line (and notebook cell), the command or call and its
        URL; a call that takes its URL from a name bound on another line is followed by
        that line (rule ``data_acquisition_script.url_binding``, once per binding), and its
        reason names it: each item's snippet is its own line (2.6.0; the download's item
        spanned from the binding to the call before); a snakemake wrapper's item spans its
        rule from the rule's first line. Ignored installer downloads are listed with rule
        ``data_acquisition_script.installer_ignored``. ``counts`` holds the downloads, the
        files holding them, the ignored installers and the DVC tracking files.
    How to fix:
        Add a script (e.g. ``scripts/download_data.sh``) that fetches the archived data
        from its DOI or URL and verifies a checksum, or track the data with DVC and
        document ``dvc pull``. The fix names the deposit's own tools (METRICS.md §0.3; 2.5.1):
        ``download.file()``/``piggyback``/``BiocFileCache`` for R, a DataDeps.jl
        registration or ``Downloads.download()`` for Julia, ``websave()`` for MATLAB,
        ``wget``/``curl`` with ``sha256sum -c`` for native codes, a remote
        ``params.input`` or a download process for Nextflow, a download rule, remote input
        or wrapper for Snakemake.
    Known false positives:
        A ``wget`` of a software file the release pattern does not catch (an unversioned
        ``tool.tar.gz``) or of a model checkpoint counts as a data download; any
        ``pooch``/``gdown`` call counts; a downloader in an unused script counts; a
        Nextflow remote parameter of a test profile counts. A URL held in a variable
        defined in another file, built at run time or passed in as a parameter (R,
        Julia, MATLAB: the call sites are not followed) is not resolved (a false
        negative);
        an ``httr::POST`` that uploads counts as a download.
    """
    return not_applicable_result(tree) or probed(tree, "data_acquisition_script")[0]


@data_probe("data_acquisition_script")
def _measure(tree: TreeIndex) -> tuple[Result, list[DataSignal]]:
    own = own_identifiers(tree)
    scan = _DownloadScan(own)
    dvc_files = _dvc_tracking_files(tree)
    for path in dvc_files:
        scan.add(path, None, None, path, Download("data_acquisition_script.dvc_tracking", "DVC data-tracking file"))
    # shell scripts: by extension, and extensionless files with a shell shebang
    for path in tree.by_type("shell") + list(tree.shebang_shell_files):
        _guarded(tree, path, "scanning shell commands", lambda p=path: _scan_shell_file(tree, p, scan), None)
    for path in tree.make_like_files():
        _guarded(tree, path, "scanning task recipes", lambda p=path: _scan_make_like(tree, p, scan), None)
    for path in tree.files:
        if _is_workflow_file(path):
            _guarded(tree, path, "scanning workflow rules", lambda p=path: _scan_workflow_file(tree, p, scan), None)
    for param in _guarded(tree, "", "finding remote workflow inputs", lambda: nextflow_remote_params(tree), []):
        scan.add(param.path, param.line, None, tree.snippet(param.path, param.line) or param.url, Download(
            "data_acquisition_script.workflow_remote",
            f"Nextflow stages params.{param.name} ({param.url}), read by {param.reader}()"))
    for path, facts in _python_facts(tree):
        _guarded(tree, path, "scanning Python calls", lambda p=path, f=facts: _scan_python(tree, p, f, scan), None)
    r_julia: list[tuple[str, FileFacts, str]] = []
    for kind in ("r", "julia", "rmd"):
        language = "r" if kind == "rmd" else kind
        for path in tree.by_type(kind):
            if tree.role(path) == "vendored":
                continue  # renv/activate.R fetching renv itself: never the deposit's data (§0.2.2)
            if kind == "rmd" and not is_data_use_path(tree, path):
                continue  # vignettes, test-suite and documentation documents: examples, not the deposit's data use
            facts = tree.facts(path)
            if facts is not None and facts.frontend == language:
                r_julia.append((path, facts, language))
    downloaders = _guarded(tree, "", "finding local downloader functions",
                           lambda: _local_downloaders(tree, r_julia), {"r": {}, "julia": {}})
    for path, facts, language in r_julia:
        # R Markdown / Quarto: the R facts of its chunks (a call's argument on the next
        # line, a URL in a variable of an earlier chunk)
        _guarded(tree, path, "scanning R/Julia calls",
                 lambda p=path, f=facts, k=language: _scan_r_julia_calls(tree, p, f, k, scan, downloaders[k]), None)
    for path in tree.by_frontend("matlab"):
        if tree.role(path) == "vendored":
            continue
        facts = tree.facts(path)
        if facts is not None and facts.frontend == "matlab":
            _guarded(tree, path, "scanning MATLAB calls", lambda p=path, f=facts: _scan_matlab_calls(tree, p, f, scan), None)
    for frontend in ("c_cpp", "fortran"):
        for path in tree.by_frontend(frontend):
            if tree.role(path) == "vendored":
                continue
            facts = tree.facts(path)
            if facts is not None and facts.frontend == frontend:
                _guarded(tree, path, "scanning command strings",
                         lambda p=path, f=facts: _scan_native_calls(tree, p, f, scan), None)
    _guarded(tree, "", "scanning notebook cells", lambda: _scan_notebooks(tree, scan), None)
    _guarded(tree, "", "scanning GDAL remote reads", lambda: _scan_gdal_remote(tree, scan), None)

    fetched = [h for h in scan.hits if not h.download.installer]
    # downloads in documentation and tests fetch example and test data (§0.3 deposit kind)
    downloads = [h for h in fetched if not is_documentation_example(tree, h.path)]
    examples = [h for h in fetched if is_documentation_example(tree, h.path)]
    ignored = [h for h in scan.hits if h.download.installer]
    signals = [DataSignal("call", h.path, h.download.reason) for h in downloads
               if is_data_use_path(tree, h.path) and not h.path.lower().startswith("readme")
               and not is_software_download(f"{h.download.reason} {h.snippet or ''}")]
    counts = {
        "downloads": len(downloads),
        "files_with_downloads": len({h.path for h in downloads}),
        "ignored_installers": len(ignored),
        "ignored_documentation_and_test_downloads": len(examples),
        "dvc_tracking_files": len(dvc_files),
    }
    evidence = _evidence(tree, downloads + ignored + [_as_example(h) for h in examples])
    if downloads:
        return Result(100, evidence=evidence, counts=counts, reason=downloads[0].download.reason), signals
    reason = "no script, notebook cell, task recipe or workflow rule downloads data"
    if ignored:
        reason += f" ({len(ignored)} installer or software download(s) ignored)"
    if examples:
        reason += f" ({len(examples)} download(s) of example or test data in documentation or tests ignored)"
    return Result(0, evidence=evidence, counts=counts, reason=reason, fix=_FETCH_FIX[fix_ecosystem(tree)]), signals


def _evidence(tree: TreeIndex, hits: list[_Hit]) -> list[Evidence]:
    """Each download at its line (a wrapper from its rule's first line), followed by the
    line binding the name it takes its URL from when that is another line, once per
    binding: every item's snippet is the text of its own line."""
    evidence: list[Evidence] = []
    bindings: set[tuple[str, int]] = set()
    for h in hits:
        if len(evidence) >= MAX_EVIDENCE:
            break
        evidence.append(Evidence(
            h.path, h.download.reason, rule=h.download.rule,
            line_start=min(h.line, h.download.rule_line) if h.line and h.download.rule_line else h.line,
            line_end=h.line, snippet=h.snippet, cell=h.cell))
        bound = h.download.bound_line
        if bound is not None and bound != h.line and (h.path, bound) not in bindings \
                and len(evidence) < MAX_EVIDENCE:
            bindings.add((h.path, bound))
            evidence.append(Evidence(
                h.path, f"the URL of the download at line {h.line} is bound here",
                rule="data_acquisition_script.url_binding", line_start=bound, line_end=bound,
                snippet=tree.snippet(h.path, bound) or "", cell=h.cell))
        via = h.download.via
        if via is not None and via not in bindings and len(evidence) < MAX_EVIDENCE:
            bindings.add(via)
            evidence.append(Evidence(
                via[0], f"the download call that fetches the URL passed at {h.path}:{h.line}",
                rule="data_acquisition_script.downloader", line_start=via[1], line_end=via[1],
                snippet=tree.snippet(via[0], via[1]) or ""))
    return evidence


# How the deposit's own tools fetch archived data (METRICS.md §0.3 A4 row).
_FETCH_FIX = {
    PYTHON: "Add a script (e.g. scripts/download_data.sh) that fetches the archived data from its DOI or URL and "
            "verifies its checksum, or track the data with DVC and document 'dvc pull'.",
    R: "Add an R script (e.g. data-raw/download_data.R) that fetches the archived data from its DOI or URL with "
       "download.file() (or piggyback::pb_download(), BiocFileCache) and checks tools::md5sum().",
    JULIA: "Register the archived data as a DataDeps.jl DataDep (its URL and SHA-256), or add a script that calls "
           "Downloads.download() on its DOI or URL and checks the checksum.",
    MATLAB: "Add a download_data.m that fetches the archived data with websave() from its DOI or URL and checks "
            "its size or checksum.",
    NATIVE: "Add a script (e.g. scripts/download_data.sh) that fetches the archived input data with wget or curl "
            "from its DOI or URL and checks it with sha256sum -c.",
    NEXTFLOW: "Let the pipeline fetch its inputs: point params.input (nextflow.config or a test profile) at the "
              "archived data's URL so Nextflow stages it, or add a download process (wget/curl, Channel.fromSRA).",
    SNAKEMAKE: "Add a rule that downloads the archived input data from its DOI or URL (a wget/curl shell, a "
               "storage/HTTP remote input, or a snakemake-wrappers download such as bio/reference/ensembl-sequence).",
}
