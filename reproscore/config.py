"""Configuration of the nightly run: a TOML file (``reproscore.toml`` by default).

Every key has a default, so the file is optional; a key this version does not know is
refused with its name (a typo must not silently fall back to a default). Each key is
documented, with its default, in ``docs/configuration.md``; ``tests/test_pipeline.py``
checks that the two stay in step.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

DEFAULT_CONFIG = "reproscore.toml"
ENV_CONFIG = "REPROSCORE_CONFIG"

GiB = 1024**3
MiB = 1024**2


class ConfigError(Exception):
    """The configuration file cannot be used (the message names the file and the key)."""


@dataclass(frozen=True)
class ZenodoConfig:
    """``[zenodo]``: where and how to harvest."""

    enabled: bool = True
    oai_url: str = "https://zenodo.org/oai2d"
    api_url: str = "https://zenodo.org/api"
    metadata_prefix: str = "oai_datacite"
    set_spec: str = "software"
    window_hours: int = 24
    lag_hours: int = 1
    start: str | None = None
    oai_per_minute: float = 30.0
    api_per_minute: float = 60.0


@dataclass(frozen=True)
class SwhConfig:
    """``[swh]``: the Software Heritage source, harvested with Zenodo by default (its
    deposit search since the checkpoint, the watch list, the Zenodo-linked origins);
    ``enabled = false`` turns it off."""

    enabled: bool = True
    api_url: str = "https://archive.softwareheritage.org/api/1/"
    # The *name* of the variable holding the token: the token itself never goes in a
    # file that may be committed, logged or stored.
    token_env: str = "SWH_TOKEN"
    deposits: bool = True
    start: str | None = None
    overlap_hours: int = 1
    query: str | None = None
    query_limit: int = 1000
    origins_file: str | None = None
    zenodo_links: bool = True
    per_minute: float = 60.0
    vault: bool = True
    vault_poll_seconds: float = 5.0
    vault_poll_max_seconds: float = 60.0
    vault_timeout_seconds: float = 3600.0
    max_bundle_bytes: int = 2 * GiB
    small_tree_files: int = 50


@dataclass(frozen=True)
class HttpConfig:
    """``[http]``: the shared HTTP client."""

    contact: str | None = None
    connect_timeout: float = 10.0
    read_timeout: float = 60.0
    max_attempts: int = 6
    backoff_base: float = 1.0
    backoff_max: float = 300.0
    pacing: bool = True


@dataclass(frozen=True)
class DownloadConfig:
    """``[download]``: caps on what a deposit may make us download."""

    max_file_bytes: int = 2 * GiB
    max_deposit_bytes: int = 4 * GiB


@dataclass(frozen=True)
class ExtractConfig:
    """``[extract]``: caps on what an archive may unpack to."""

    max_total_bytes: int = 2 * GiB
    max_entries: int = 100_000
    max_ratio: float = 200.0
    max_file_bytes: int = 1 * GiB


@dataclass(frozen=True)
class RunConfig:
    """``[run]``: the nightly job itself."""

    work_dir: str = "reproscore-work"
    keep: bool = False
    lock_file: str | None = None
    rubric: str = "default"
    max_attempts: int = 3
    # Scale (docs/scale.md, "Distributed measurement"): archives are read in place
    # unless extract (or keep, which keeps the extracted tree for the execution tier).
    extract: bool = False
    workers: int = 1
    executor: str = "local"
    scheduler: str | None = None
    download_threads: int = 2
    batch_size: int = 50
    task_attempts: int = 3


@dataclass(frozen=True)
class ExecuteConfig:
    """``[execute]``: the execution tier (``reproscore execute``, never part of ``run``):
    per-probe limits of the sandbox and where it works."""

    timeout_seconds: float = 600.0
    install_timeout_seconds: float = 1800.0
    memory_mb: int = 4096
    cpu_seconds: int | None = None
    max_processes: int = 256
    max_file_mb: int = 1024
    scratch_dir: str | None = None
    sandbox_uid: int = 65534
    conda: str | None = None


@dataclass(frozen=True)
class ExportConfig:
    """``[export]``: who publishes the exports (the RO-Crate ``publisher`` with its
    contact point). Without a publisher name the operator is anonymous: the crates
    still validate at REQUIRED, but RO-Crate's RECOMMENDED checks want an identified
    publisher with a URL and a contact point."""

    publisher_name: str | None = None
    publisher_type: str = "Organization"
    # An ROR URL for an Organization, an ORCID URL for a Person (the @id of the entity).
    publisher_id: str | None = None
    publisher_url: str | None = None
    # Default: [http] contact, the address the harvester already gives the archives.
    contact_email: str | None = None
    contact_url: str | None = None


@dataclass(frozen=True)
class Config:
    """The whole configuration; every section and key has a default."""

    zenodo: ZenodoConfig = field(default_factory=ZenodoConfig)
    swh: SwhConfig = field(default_factory=SwhConfig)
    http: HttpConfig = field(default_factory=HttpConfig)
    download: DownloadConfig = field(default_factory=DownloadConfig)
    extract: ExtractConfig = field(default_factory=ExtractConfig)
    run: RunConfig = field(default_factory=RunConfig)
    execute: ExecuteConfig = field(default_factory=ExecuteConfig)
    export: ExportConfig = field(default_factory=ExportConfig)

    def with_overrides(self, section: str, **values: Any) -> Config:
        """A copy with some keys of one section replaced (command-line options); None
        values are ignored, so an option not given keeps the file's value."""
        given = {key: value for key, value in values.items() if value is not None}
        if not given:
            return self
        return replace(self, **{section: replace(getattr(self, section), **given)})


SECTIONS: dict[str, type] = {
    "zenodo": ZenodoConfig,
    "swh": SwhConfig,
    "http": HttpConfig,
    "download": DownloadConfig,
    "extract": ExtractConfig,
    "run": RunConfig,
    "execute": ExecuteConfig,
    "export": ExportConfig,
}


def documented_keys() -> dict[str, Any]:
    """Every ``section.key`` with its default (what docs/configuration.md must list)."""
    out: dict[str, Any] = {}
    for section, cls in SECTIONS.items():
        defaults = cls()
        for f in fields(cls):
            out[f"{section}.{f.name}"] = getattr(defaults, f.name)
    return out


def _check_type(where: str, value: Any, annotation: str) -> Any:
    """Check a TOML value against a field's annotation (given as a string under
    ``from __future__ import annotations``); ints are accepted for floats."""
    optional = annotation.endswith("| None")
    base = annotation.replace("| None", "").strip()
    if value is None and optional:
        return value
    expected = {"str": str, "int": int, "float": (int, float), "bool": bool}[base]
    # bool is an int in Python, but `window_hours = true` is a mistake.
    if isinstance(value, bool) and base != "bool" or not isinstance(value, expected):
        raise ConfigError(f"{where}: expected {base}, got {type(value).__name__} {value!r}")
    if base == "float":
        value = float(value)
    if base in ("int", "float") and value < 0:
        raise ConfigError(f"{where}: must not be negative, got {value!r}")
    return value


def parse_config(data: dict[str, Any], source: str = "<config>") -> Config:
    """A :class:`Config` from parsed TOML; unknown sections or keys and wrong types raise
    :class:`ConfigError` naming them."""
    sections: dict[str, Any] = {}
    for name, table in data.items():
        cls = SECTIONS.get(name)
        if cls is None:
            raise ConfigError(
                f"{source}: unknown section [{name}] (known: {', '.join(SECTIONS)})"
            )
        if not isinstance(table, dict):
            raise ConfigError(f"{source}: {name} must be a table ([{name}])")
        known = {f.name: f for f in fields(cls)}
        values = {}
        for key, value in table.items():
            if key not in known:
                raise ConfigError(
                    f"{source}: unknown key {name}.{key} (known in [{name}]: {', '.join(known)})"
                )
            values[key] = _check_type(f"{source}: {name}.{key}", value, str(known[key].type))
        sections[name] = cls(**values)
    config = Config(**sections)
    if config.zenodo.window_hours < 1:
        raise ConfigError(f"{source}: zenodo.window_hours must be at least 1")
    if config.swh.vault_poll_seconds <= 0 or config.swh.vault_poll_max_seconds <= 0:
        raise ConfigError(f"{source}: swh.vault_poll_seconds and vault_poll_max_seconds must be positive")
    if config.swh.per_minute <= 0:
        raise ConfigError(f"{source}: swh.per_minute must be positive")
    if config.run.max_attempts < 1:
        raise ConfigError(f"{source}: run.max_attempts must be at least 1")
    r = config.run
    if r.executor not in ("local", "dask"):
        raise ConfigError(f"{source}: run.executor must be \"local\" or \"dask\", got {r.executor!r}")
    if r.scheduler is not None and r.executor != "dask":
        raise ConfigError(f"{source}: run.scheduler is for run.executor = \"dask\"")
    if min(r.download_threads, r.batch_size, r.task_attempts) < 1:
        raise ConfigError(f"{source}: run.download_threads, batch_size and task_attempts must be at least 1")
    x = config.execute
    if x.timeout_seconds <= 0 or x.install_timeout_seconds <= 0:
        raise ConfigError(f"{source}: execute.timeout_seconds and install_timeout_seconds must be positive")
    if min(x.memory_mb, x.max_processes, x.max_file_mb) < 1 or (x.cpu_seconds is not None and x.cpu_seconds < 1):
        raise ConfigError(f"{source}: execute.memory_mb, cpu_seconds, max_processes and max_file_mb must be at least 1")
    e = config.export
    if e.publisher_type not in ("Organization", "Person"):
        raise ConfigError(f"{source}: export.publisher_type must be \"Organization\" or \"Person\", got {e.publisher_type!r}")
    for key in ("publisher_id", "publisher_url", "contact_url"):
        value = getattr(e, key)
        if value is not None and not value.startswith(("https://", "http://")):
            raise ConfigError(f"{source}: export.{key} must be an absolute http(s) URL, got {value!r}")
    return config


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """The configuration from ``path``; without one, from ``$REPROSCORE_CONFIG`` or
    ``./reproscore.toml`` when present, else the defaults. A path given explicitly
    must exist."""
    explicit = path is not None or ENV_CONFIG in os.environ
    chosen = Path(path if path is not None else os.environ.get(ENV_CONFIG, DEFAULT_CONFIG))
    if not chosen.is_file():
        if explicit:
            raise ConfigError(f"{chosen}: no such configuration file")
        return Config()
    try:
        with chosen.open("rb") as handle:
            data = tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{chosen}: not valid TOML: {exc}") from exc
    except OSError as exc:
        raise ConfigError(f"{chosen}: cannot read: {exc}") from exc
    return parse_config(data, str(chosen))
