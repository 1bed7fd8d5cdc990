"""Category D, documentation (METRICS.md D1–D7).

Can a third party understand how to execute this? Seven detectors read what a deposit
tells its reader: README sections (D1), install commands (D2), usage examples (D3), the
ratio of explanation to code (D4), a discoverable entry point (D5), docstrings (D6) and
reuse metadata (D7).

Prose documents are read through their parsed form (``tree.document``): headings come
from the Markdown/RST/HTML parser, so code comments and table-of-contents anchors are
never mistaken for sections, and commands come from code blocks and inline code with
console prompts stripped. None of the D metrics has labelled levels in METRICS.md, so
every measurement has ``level=None`` (§0.1.4).
"""

from scoring.detectors.documentation import (
    doc_structure,
    docstring_coverage,
    execution_entry_point,
    inline_explanation_density,
    install_instructions,
    reuse_metadata,
    usage_examples,
)

__all__ = [
    "doc_structure",
    "install_instructions",
    "usage_examples",
    "inline_explanation_density",
    "execution_entry_point",
    "docstring_coverage",
    "reuse_metadata",
]
