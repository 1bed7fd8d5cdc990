"""YAML read with libyaml's parser gives what ``yaml.safe_load`` gives, errors included."""

from __future__ import annotations

import pytest
import yaml

from scoring.parsers import yamlfile

DOCUMENTS = [
    "name: env\nchannels: [conda-forge]\ndependencies:\n  - numpy=1.26\n  - pip:\n    - requests==2.31\n",
    "a: 1\nb: 2.5\nc: yes\nd: null\ne: 2024-01-02\nf: !!str 3\ng: &x [1, 2]\nh: *x\n'on': off\n",
    "",
    "# only a comment\n",
    "- one\n- {two: 2}\n",
]
BROKEN = [
    "[y/N]: \n",                 # a flow sequence as a key: the constructor refuses it
    "a: [1, 2\n",                # the parser refuses it
    "a:\n\t- tab\n",             # the scanner refuses it
    "key: 'unclosed\n",
]


@pytest.mark.parametrize("text", DOCUMENTS)
def test_the_values_are_those_of_safe_load(text):
    assert yaml.CSafeLoader is yamlfile._FAST_LOADER     # the fast path is what is tested
    assert yamlfile.safe_load(text) == yaml.safe_load(text)


@pytest.mark.parametrize("text", BROKEN)
def test_a_document_that_does_not_load_raises_safe_loads_own_error(text):
    with pytest.raises(yaml.YAMLError) as expected:
        yaml.safe_load(text)
    with pytest.raises(yaml.YAMLError) as raised:
        yamlfile.safe_load(text)
    assert str(raised.value) == str(expected.value)
