"""Python code units: the word view that prefilters rely on."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from scoring.parsers.python import CodeUnit

_TEXT = st.text(alphabet=string.ascii_letters + string.digits + string.punctuation + " \t\n_«»é·\u00a0\u2003", max_size=200)
_NAME = st.text(alphabet=string.ascii_letters + string.digits + "_é", min_size=1, max_size=6)


@given(_TEXT, _NAME)
def test_a_word_character_name_is_in_the_word_text_exactly_when_it_is_in_the_source(source, name):
    unit = CodeUnit.parse("a.py", source)
    assert (name in unit.word_text) == (name in source)


def test_words_split_at_whitespace_and_ascii_punctuation_but_keep_underscores():
    unit = CodeUnit.parse("a.py", "np.random.seed(42)  # set_seed «x»\nimport torch as t\n")
    assert unit.words == frozenset({"np", "random", "seed", "42", "set_seed", "«x»", "import", "torch", "as", "t"})


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
