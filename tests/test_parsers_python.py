"""Python code units (the tree index's parse of a ``.py`` file)."""

from __future__ import annotations


def test_deposit_code_with_invalid_escapes_parses_silently_even_under_warnings_as_errors():
    import warnings

    from scoring.parsers.python import CodeUnit

    source = 'import re\nPATTERN = re.compile("\\d+")\n\n\ndef f():\n    """Docstring with \\w."""\n'
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("error")
        unit = CodeUnit.parse("analysis.py", source)
    assert caught == []
    assert unit.syntax_error is None
    assert [node.name for node in unit.tree.body if hasattr(node, "name")] == ["f"]
