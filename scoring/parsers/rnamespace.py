"""An R package's ``NAMESPACE`` file: which names the package exports.

``NAMESPACE`` is R code of a few directives (Writing R Extensions §1.5.1); roxygen2
writes one directive a line, hand-written files put several names in one call:
``export(a, b, "c<-")``, ``exportPattern("^[^\\\\.]")``. Only the two directives that make
plain objects public are read; ``S3method``, ``exportMethods`` and ``exportClasses``
register methods and classes, which are not top-level functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DIRECTIVE = re.compile(r"(?<![\w.])(export|exportPattern)\s*\(([^()]*)\)")
_COMMENT = re.compile(r"#[^\n]*")
_QUOTED = re.compile(r"""^(["'`])(.*)\1$""", re.DOTALL)


@dataclass(frozen=True)
class RNamespace:
    """The names ``export()`` lists and the regular expressions ``exportPattern()``
    gives (in Python's syntax, which the R patterns packages use share)."""

    exports: frozenset[str]
    patterns: tuple[re.Pattern[str], ...]

    def exported(self, name: str) -> bool:
        return name in self.exports or any(pattern.search(name) for pattern in self.patterns)


def _argument(text: str) -> str:
    text = text.strip()
    quoted = _QUOTED.match(text)
    if quoted is None:
        return text
    value = quoted.group(2)
    # an R string literal: a doubled backslash is one backslash
    return value.replace("\\\\", "\\") if quoted.group(1) != "`" else value


def parse_namespace(text: str) -> RNamespace:
    """The exports of a ``NAMESPACE`` text; a pattern that Python cannot compile is
    dropped (it exports nothing it could be shown to export)."""
    exports: set[str] = set()
    patterns: list[re.Pattern[str]] = []
    for directive, arguments in _DIRECTIVE.findall(_COMMENT.sub("", text)):
        for argument in (_argument(a) for a in arguments.split(",")):
            if not argument:
                continue
            if directive == "export":
                exports.add(argument)
            else:
                try:
                    patterns.append(re.compile(argument))
                except re.error:
                    continue
    return RNamespace(frozenset(exports), tuple(patterns))


__all__ = ["RNamespace", "parse_namespace"]
