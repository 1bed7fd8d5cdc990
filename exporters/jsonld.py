"""JSON-LD without the network: the contexts the exports use are shipped as package data.

Every JSON-LD document reproscore writes names its context by URL, as the RO-Crate and
CodeMeta specifications require. Parsing such a document (rdflib, roc-validator) would
fetch the context; here the URL is replaced by the bundled copy first, so nothing is
ever fetched. A context URL that is not bundled is an error, never a download.

Bundled (``exporters/contexts/``):

* ``https://w3id.org/ro/crate/1.3/context``: the RO-Crate 1.3.0 context (byte-identical
  to the one the ``rocrate`` library ships and to the specification's release);
* ``https://w3id.org/codemeta/3.0``: the CodeMeta 3.0 context (3.1 has the same one).
"""

from __future__ import annotations

import copy
import functools
import json
import warnings
from importlib import resources
from typing import Any

from rdflib import Graph

__all__ = [
    "CODEMETA_CONTEXT",
    "CONTEXT_FILES",
    "ContextNotBundled",
    "ROCRATE_CONTEXT",
    "context_bytes",
    "context_document",
    "inline_contexts",
    "parse_jsonld",
]

ROCRATE_CONTEXT = "https://w3id.org/ro/crate/1.3/context"
CODEMETA_CONTEXT = "https://w3id.org/codemeta/3.0"

CONTEXT_FILES: dict[str, str] = {
    ROCRATE_CONTEXT: "rocrate-1.3-context.jsonld",
    CODEMETA_CONTEXT: "codemeta-3.0.jsonld",
}
# The same documents under the spellings seen in the wild (trailing slash, http).
_ALIASES = {
    "https://w3id.org/ro/crate/1.3/context/": ROCRATE_CONTEXT,
    "http://w3id.org/ro/crate/1.3/context": ROCRATE_CONTEXT,
    "https://w3id.org/codemeta/3.0/": CODEMETA_CONTEXT,
    "http://w3id.org/codemeta/3.0": CODEMETA_CONTEXT,
    "https://w3id.org/codemeta/3.1": CODEMETA_CONTEXT,
}


class ContextNotBundled(ValueError):
    """A document names a remote JSON-LD context that reproscore does not ship."""


def _canonical_url(url: str) -> str:
    url = _ALIASES.get(url, url)
    if url not in CONTEXT_FILES:
        raise ContextNotBundled(
            f"JSON-LD context {url!r} is not bundled with reproscore (bundled: "
            f"{', '.join(CONTEXT_FILES)}); contexts are never fetched"
        )
    return url


@functools.cache
def context_bytes(url: str) -> bytes:
    """The bundled context document for ``url``, byte for byte."""
    name = CONTEXT_FILES[_canonical_url(url)]
    return resources.files("exporters").joinpath("contexts", name).read_bytes()


@functools.cache
def _context_document(url: str) -> dict[str, Any]:
    return json.loads(context_bytes(url))


def context_document(url: str) -> dict[str, Any]:
    """The bundled context document for ``url`` (a fresh copy)."""
    return copy.deepcopy(_context_document(url))


def inline_contexts(context: Any) -> Any:
    """``context`` with every context URL replaced by the bundled context it names."""
    if isinstance(context, str):
        return context_document(context)["@context"]
    if isinstance(context, list):
        return [inline_contexts(item) for item in context]
    return context


def parse_jsonld(document: dict[str, Any] | str | bytes, *, base: str | None = None) -> Graph:
    """Parse a JSON-LD document into an rdflib graph, offline.

    The top-level ``@context`` is inlined from the bundled copies; a context URL that
    is not bundled, or a remote context nested deeper, is an error
    (:class:`ContextNotBundled`), never a download. ``base`` resolves relative ids (for
    RO-Crate, an ``arcp://`` URI as the specification recommends).
    """
    doc = json.loads(document) if isinstance(document, str | bytes) else copy.deepcopy(document)
    if isinstance(doc, dict) and "@context" in doc:
        doc["@context"] = inline_contexts(doc["@context"])
    _refuse_nested_remote_contexts(doc)
    with warnings.catch_warnings():
        # rdflib's own JSON-LD parser uses its deprecated ConjunctiveGraph internally.
        warnings.filterwarnings("ignore", message="ConjunctiveGraph is deprecated", category=DeprecationWarning)
        return Graph().parse(data=json.dumps(doc), format="json-ld", base=base)


def _refuse_nested_remote_contexts(node: Any) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "@context":
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, str):
                        raise ContextNotBundled(
                            f"nested remote JSON-LD context {item!r}: contexts are never fetched"
                        )
            else:
                _refuse_nested_remote_contexts(value)
    elif isinstance(node, list):
        for item in node:
            _refuse_nested_remote_contexts(item)
