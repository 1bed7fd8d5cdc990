"""Validate exported crates with roc-validator, offline.

roc-validator (the ``roc-validator`` package, in the ``test`` extra) bundles its SHACL
profiles but fetches a crate's JSON-LD ``@context`` through a requests-cache HTTP cache.
:func:`seed_cache` fills that cache with the bundled contexts (a stored 200 answer per
context URL, served from the package data by a local transport adapter, so nothing
touches the network), and :func:`validate_crate` then validates with ``offline=True``:
a context that is not in the cache fails validation instead of being downloaded.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import threading
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .jsonld import CONTEXT_FILES, context_bytes

__all__ = ["PROFILE", "ValidationOutcome", "available", "seed_cache", "validate_crate"]

PROFILE = "ro-crate-1.3"


def available() -> bool:
    """Whether roc-validator is installed (``pip install 'reproscore[test]'``)."""
    try:
        import rocrate_validator  # noqa: F401
    except ImportError:
        return False
    return True


def seed_cache(cache_path: str | os.PathLike[str]) -> Path:
    """Store the bundled JSON-LD contexts in the roc-validator HTTP cache at
    ``cache_path`` (requests-cache's SQLite file is ``<cache_path>.sqlite``): one 200
    answer, never expiring, per context URL. Returns ``cache_path``."""
    import requests
    from requests.adapters import BaseAdapter, HTTPAdapter
    from requests_cache import CachedSession
    from urllib3.response import HTTPResponse

    class BundledContexts(BaseAdapter):
        """Answers GET for a bundled context URL from the package data; refuses the rest."""

        def send(self, request: Any, **_kwargs: Any) -> requests.Response:
            if request.url not in CONTEXT_FILES:
                raise requests.ConnectionError(f"{request.url} is not a bundled context")
            raw = HTTPResponse(
                body=io.BytesIO(context_bytes(request.url)),
                headers={"Content-Type": "application/ld+json"},
                status=200, reason="OK", preload_content=False, decode_content=False,
                request_url=request.url,
            )
            return HTTPAdapter().build_response(request, raw)

        def close(self) -> None:
            pass

    target = Path(cache_path)
    target.parent.mkdir(parents=True, exist_ok=True)
    session = CachedSession(cache_name=str(target), backend="sqlite", expire_after=-1,
                            allowable_methods=("GET",), allowable_codes=(200,))
    try:
        for prefix in ("https://", "http://"):
            session.mount(prefix, BundledContexts())
        for url in CONTEXT_FILES:
            if not session.cache.contains(url=url):
                session.get(url, headers={"Accept": "application/ld+json, application/json"})
    finally:
        session.close()
    return target


@dataclass
class ValidationOutcome:
    """roc-validator's verdict: passed, and the issues as (check, severity, entity, message)."""

    passed: bool
    issues: list[tuple[str, str, str | None, str]]

    def lines(self) -> list[str]:
        return [f"{check} {severity} {entity or '-'}: {message}" for check, severity, entity, message in self.issues]


_SPARQL_PATCH_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1024)
def _prepared_query(text: str, base: str | None, namespaces: tuple[tuple[str, Any], ...]) -> Any:
    from rdflib.plugins.sparql import processor

    return processor.translateQuery(processor.parseQuery(text), base, dict(namespaces) or None)


@contextlib.contextmanager
def _sparql_queries_parsed_once() -> Iterator[None]:
    """Within the block, rdflib parses each distinct SPARQL query text once per process.

    pyshacl runs every SPARQL-based constraint of the RO-Crate profiles once per focus
    node, as a query string, and rdflib parses a string query from scratch on each call:
    parsing was 70 % of a validation (21 of 30 s for a 50 kB crate, 386 parses of 37
    texts). The translated query is what ``rdflib.plugins.sparql.prepareQuery`` returns,
    made to be run again with other initial bindings, so reusing it changes no result.
    """
    from rdflib.plugins.sparql import processor

    with _SPARQL_PATCH_LOCK:
        original = processor.SPARQLProcessor.query

        def query(self: Any, strOrQuery: Any, initBindings: Any = None, initNs: Any = None,  # noqa: N803
                  base: str | None = None, DEBUG: bool = False) -> Any:  # noqa: N803
            if isinstance(strOrQuery, str):
                strOrQuery = _prepared_query(strOrQuery, base, tuple(sorted((initNs or {}).items())))
            return original(self, strOrQuery, initBindings, initNs, base, DEBUG)

        processor.SPARQLProcessor.query = query  # type: ignore[method-assign]
        try:
            yield
        finally:
            processor.SPARQLProcessor.query = original  # type: ignore[method-assign]


def validate_crate(
    crate: str | os.PathLike[str],
    cache_path: str | os.PathLike[str],
    *,
    profile: str = PROFILE,
    severity: str = "REQUIRED",
) -> ValidationOutcome:
    """Validate the crate directory or zip ``crate`` against ``profile`` at
    ``severity`` (REQUIRED, RECOMMENDED or OPTIONAL), offline, with the HTTP cache at
    ``cache_path`` (seeded by :func:`seed_cache` first)."""
    from rocrate_validator import services
    from rocrate_validator.models import Severity, ValidationSettings

    seed_cache(cache_path)
    settings = ValidationSettings(
        rocrate_uri=str(Path(crate).resolve()),
        profile_identifier=profile,
        requirement_severity=Severity[severity],
        offline=True,
        cache_path=Path(cache_path),
    )
    with warnings.catch_warnings():
        # rdflib's JSON-LD parser, which roc-validator uses, warns about its own internals.
        warnings.filterwarnings("ignore", message="ConjunctiveGraph is deprecated", category=DeprecationWarning)
        with _sparql_queries_parsed_once():
            result = services.validate(settings)
    issues = [
        (i.check.identifier, i.severity.name, i.violatingEntity, i.message)
        for i in result.get_issues()
    ]
    return ValidationOutcome(bool(result.passed()), issues)
