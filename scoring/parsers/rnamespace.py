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


# R reads an exportPattern as a POSIX extended regular expression: its bracket classes
# (``[[:alpha:]]``, the pattern package.skeleton() and RStudio's template write) mean
# nothing to Python's re, which would read ``[[:alpha:]]+`` as the set ``[:alph`` then "]+"
_POSIX_CLASSES = {
    "alpha": "a-zA-Z", "alnum": "a-zA-Z0-9", "digit": "0-9", "upper": "A-Z", "lower": "a-z",
    "xdigit": "0-9A-Fa-f", "space": r" \t\n\r\f\v", "blank": r" \t", "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    "cntrl": r"\x00-\x1f\x7f", "print": r"\x20-\x7e", "graph": r"\x21-\x7e", "word": r"\w",
}
_POSIX_CLASS = re.compile(r"\[:(" + "|".join(_POSIX_CLASSES) + r"):\]")


def _python_pattern(pattern: str) -> str:
    """An R (POSIX) pattern in Python's syntax: bracket classes spelt out."""
    return _POSIX_CLASS.sub(lambda match: _POSIX_CLASSES[match.group(1)], pattern)


@dataclass(frozen=True)
class RNamespace:
    """The names ``export()`` lists and the regular expressions ``exportPattern()``
    gives (compiled by Python once their POSIX bracket classes are spelt out)."""

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
                    patterns.append(re.compile(_python_pattern(argument)))
                except re.error:
                    continue
    return RNamespace(frozenset(exports), tuple(patterns))


__all__ = ["RNamespace", "parse_namespace"]
