"""A real store for the export tests, and the tools they share.

``build(directory)`` scores real trees (the sample trees, and a tree with planted
secrets) into a fresh SQLite store with ``api.score_path`` and records the deposits
that hold them through the store's own API: Zenodo records (``upsert_deposit`` with
DataCite metadata, ``link_deposit``) and a Software Heritage origin (a harvest window
completed with its visit, then ``mark_swh_scored``). One tree is left without a deposit.

``offline()`` refuses every non-loopback connection and name lookup while it is active
and records the attempts, so a test can prove that nothing was fetched.
"""

from __future__ import annotations

import contextlib
import json
import socket
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conftest import write_tree

from harvester.records import Creator, DepositRecord
from reproscore import api
from reproscore.store import Store

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "tests" / "fixtures" / "samples"

# Planted in a deposit file that the no_hardcoded_credentials detector cites.
AWS_KEY = "AKIAZ7QK3LMN4PQR8STU"
GITHUB_TOKEN = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngOnly0123456"
SECRETS = (AWS_KEY, GITHUB_TOKEN)
SECRET_TREE = {
    "settings.py": (
        '"""Settings of the analysis."""\n'
        f'AWS_ACCESS_KEY_ID = "{AWS_KEY}"\n'
        f'GITHUB_TOKEN = "{GITHUB_TOKEN}"\n'
    ),
    "README.md": "# Bucket sync\n\nRun `python settings.py`.\n",
}

ZENODO_DOI = "10.5281/zenodo.9100001"
ZENODO_CONCEPT = "10.5281/zenodo.9100000"
ZENODO_NEWER_DOI = "10.5281/zenodo.9100006"
ORIGIN = "https://github.com/demo-lab/snakemake-rnaseq"
SWH_ORIGIN = "https://hal.example.org/hal-00000042"
SWH_SNAPSHOT = "2052019c63ad23323b3d36fc6d77b57b908a78c6"
SECRET_DOI = "10.5281/zenodo.9100007"
UNSCORED_RECORD = "9100005"

DATACITE = """<resource xmlns="http://datacite.org/schema/kernel-4"><creators><creator>\
<creatorName nameType="Personal">Okafor, Ada</creatorName></creator></creators>\
<titles><title>demo-lab/snakemake-rnaseq: v1.0.0</title></titles>\
<subjects><subject>RNA-seq</subject><subject>Snakemake</subject></subjects>\
<descriptions><description descriptionType="Other">Other text.</description>\
<description descriptionType="Abstract">An RNA-seq workflow with pinned conda environments.</description>\
</descriptions></resource>"""
ATOM = """<entry xmlns="http://www.w3.org/2005/Atom" xmlns:codemeta="https://doi.org/10.5063/SCHEMA/CODEMETA-2.0">\
<codemeta:name>aerosol-inversion</codemeta:name>\
<codemeta:description>Inverts particle size distributions.</codemeta:description>\
<codemeta:programmingLanguage>Python</codemeta:programmingLanguage></entry>"""


@dataclass
class ExportStore:
    """The store and what the tests need to know about it."""

    db: Path
    swhids: dict[str, str] = field(default_factory=dict)  # tree name -> SWHID
    results: dict[str, dict[str, Any]] = field(default_factory=dict)  # tree name -> stored result

    def result(self, tree: str) -> dict[str, Any]:
        return self.results[tree]


def build(directory: Path) -> ExportStore:
    """The export tests' store in ``directory`` (see the module documentation)."""
    directory.mkdir(parents=True, exist_ok=True)
    db = directory / "export.db"
    store_info = ExportStore(db)
    trees = {name: SAMPLES / name for name in ("snakemake-rnaseq", "notebook-ml-study", "r-survey-analysis")}
    trees["secret"] = write_tree(directory / "secret", SECRET_TREE)
    for name, path in trees.items():
        scored = api.score_path(path, "default", db=db)
        store_info.swhids[name] = scored.result["snapshot"]["swhid"]
    with Store(db) as store:
        def snapshot_id(name: str) -> int:
            return store.find_snapshot(store_info.swhids[name]).id

        first = store.upsert_deposit(
            "zenodo", "9100001", version_doi=ZENODO_DOI, concept_doi=ZENODO_CONCEPT,
            origin_url=ORIGIN, title="demo-lab/snakemake-rnaseq: v1.0.0", license="MIT",
            creators=[{"name": "Okafor, Ada", "orcid": "0000-0002-1825-0097",
                       "affiliation": "Demo Institute"}],
            publication_date="2026-08-20", metadata=DATACITE,
        )  # fmt: skip
        store.link_deposit(first, snapshot_id("snakemake-rnaseq"))
        newer = store.upsert_deposit(
            "zenodo", "9100006", version_doi=ZENODO_NEWER_DOI, concept_doi=ZENODO_CONCEPT,
            origin_url=ORIGIN, title="demo-lab/snakemake-rnaseq: v1.0.1", license="MIT",
        )  # fmt: skip
        store.link_deposit(newer, snapshot_id("snakemake-rnaseq"))
        secret = store.upsert_deposit(
            "zenodo", "9100007", version_doi=SECRET_DOI, title="bucket-sync", license="Apache-2.0",
        )  # fmt: skip
        store.link_deposit(secret, snapshot_id("secret"))
        store.upsert_deposit("zenodo", UNSCORED_RECORD, version_doi="10.5281/zenodo.9100005",
                             title="never scored")
        # A Software Heritage origin, harvested and scored the way the pipeline does it.
        run_id = store.start_run("swh", "harvest", None, "2026-08-21T00:00:00Z")
        window = store.start_window(run_id, "swh", "2026-08-20T00:00:00Z", "2026-08-21T00:00:00Z")
        record = DepositRecord(
            source="swh", oai_identifier=SWH_ORIGIN, datestamp="2026-08-20T11:02:41Z",
            record_id=SWH_ORIGIN, title="aerosol-inversion", version="v0.4.0",
            creators=[Creator(name="Ada Okafor", affiliation="Demo Institute of Atmospheric Physics")],
            licence="GNU GPLv3", raw_metadata=ATOM, resource_type_general="Software",
        )  # fmt: skip
        visit = {
            "visit": 1, "visit_type": "deposit", "date": "2026-08-20T11:02:41+00:00",
            "status": "full", "swh_snapshot": SWH_SNAPSHOT, "branch": "HEAD",
            "target_type": "release", "target": "8dbe16b418729941f9abe6854211501c062a2eb1",
            "release": "8dbe16b418729941f9abe6854211501c062a2eb1", "revision": None,
            "directory": store_info.swhids["notebook-ml-study"], "discovered_by": "watch",
        }  # fmt: skip
        store.complete_swh_window(window, [(record, visit)], pages=1, advance=True)
        store.finish_run(run_id, "completed")
        deposit_id = store.deposit_id("swh", SWH_ORIGIN)
        visit_row, _directory = store.latest_swh_visit(deposit_id)
        store.mark_swh_scored(deposit_id, visit_row, snapshot_id("notebook-ml-study"), [])
    for name, swhid in store_info.swhids.items():
        store_info.results[name] = api.show_stored(db, swhid).result
    return store_info


# --------------------------------------------------------------------------- offline


class NetworkBlocked(OSError):
    pass


@contextlib.contextmanager
def offline():
    """Refuse every connection and name lookup that is not to the loopback interface;
    yields the list of refused attempts."""
    attempts: list[str] = []
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo
    loopback = {"127.0.0.1", "::1", "localhost"}

    def allowed(address: Any) -> bool:
        if isinstance(address, tuple):
            return str(address[0]) in loopback
        return isinstance(address, str | bytes)  # a Unix socket path

    def connect(self, address):
        if not allowed(address):
            attempts.append(f"connect {address!r}")
            raise NetworkBlocked(f"network disabled in this test: connect {address!r}")
        return real_connect(self, address)

    def connect_ex(self, address):
        if not allowed(address):
            attempts.append(f"connect {address!r}")
            raise NetworkBlocked(f"network disabled in this test: connect {address!r}")
        return real_connect_ex(self, address)

    def getaddrinfo(host, *args, **kwargs):
        if host is not None and str(host if not isinstance(host, bytes) else host.decode()) not in loopback:
            attempts.append(f"getaddrinfo {host!r}")
            raise NetworkBlocked(f"network disabled in this test: lookup {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect
    socket.socket.connect_ex = connect_ex
    socket.getaddrinfo = getaddrinfo
    try:
        yield attempts
    finally:
        socket.socket.connect = real_connect
        socket.socket.connect_ex = real_connect_ex
        socket.getaddrinfo = real_getaddrinfo


# --------------------------------------------------------------------------- reading exports


def crate_metadata(path: Path) -> dict[str, Any]:
    """The ro-crate-metadata.json of a crate directory or zip."""
    if path.is_dir():
        return json.loads((path / "ro-crate-metadata.json").read_text(encoding="utf-8"))
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("ro-crate-metadata.json"))


def crate_file(path: Path, name: str) -> bytes:
    if path.is_dir():
        return (path / name).read_bytes()
    with zipfile.ZipFile(path) as archive:
        return archive.read(name)


def crate_entities(path: Path) -> dict[str, dict[str, Any]]:
    return {e["@id"]: e for e in crate_metadata(path)["@graph"]}


def all_text(path: Path) -> str:
    """Every byte of an export (a file, a directory's files, a zip's members) as text."""
    if path.is_dir():
        return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(path.rglob("*")) if p.is_file())
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            return "\n".join(archive.read(n).decode("utf-8", errors="replace") for n in archive.namelist())
    return path.read_text(encoding="utf-8", errors="replace")
