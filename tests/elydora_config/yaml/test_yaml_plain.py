"""The plain YAML subset: read without PyYAML, to exactly what PyYAML's safe loader reads, or not at all."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from elydora_config.errors import MalformedConfigError
from elydora_config.yaml import YamlDocument
from elydora_config.yaml.plain import plain_loads
from elydora_config.yaml.readonly import ReadOnlyYaml

IN_SUBSET = [
    "",
    "# only comments\n\n",
    "\ufeffa: 1\r\nb: -2\r\n",
    "model:\n  default: fake-model   # mine\n  provider: custom\n",
    "hooks:\n  pre_tool_call:\n    - command: \"'/usr/bin/python3' '-I' '-S' '/h/guard.py'\"\n      timeout: 10\n",
    "hooks:\n  on_session_start:\n  - command: notify-send\n    timeout: 5\n  # note\nlast: null\n",
    "list:\n  -   a\n  - 'it''s'\n  - \"q\\\"uote\" # c\nempty: {}\nnone: []\nflag: true\noff_word: false\n",
    "nested:\n  deeper:\n    deepest: x\n  back: 0\nkey: # comment only\n  child: 1\n",
    "items:\n- first: 1\n  second: two\n- third\n",
]
OUTSIDE = [
    "a: yes\n",
    "on: 1\n",
    "a: 1.5\n",
    "a: 2026-01-01\n",
    "url: http://127.0.0.1:8080/v1\n",
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "a: |\n  block\n",
    "a: [1, 2]\n",
    "a: {b: 1}\n",
    "'quoted key': 1\n",
    "---\na: 1\n",
    "a: 1\na: 2\n",
    "a:\n\tb: 1\n",
    "a: 010\n",
    "- top\n- list\n",
    "a: \"\\x41\"\n",
    "a:\n  - - nested\n",
    "a: plain\n  continued\n",
]


@pytest.mark.parametrize("text", IN_SUBSET)
def test_the_subset_reads_as_pyyaml_reads(text: str) -> None:
    assert plain_loads(text) == (yaml.safe_load(text) or {})


@pytest.mark.parametrize("text", OUTSIDE)
def test_anything_else_is_left_to_pyyaml(text: str) -> None:
    assert plain_loads(text) is None


WORDS = st.text(alphabet="abcdefghij_-./0123456789", min_size=1, max_size=8).filter(lambda w: w[0] in "abcdefghij_")
SCALARS = st.one_of(st.integers(-(10**12), 10**12), st.booleans(), st.none(), st.text(max_size=10), WORDS)
DATA = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(WORDS, inner, max_size=3)),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(WORDS, DATA, max_size=4))
def test_what_the_editor_writes_reads_back_the_same_either_way(data: dict[str, object]) -> None:
    """Every text the editor renders reads back as its data through PyYAML; the subset reader agrees wherever
    it answers at all."""
    doc = YamlDocument.parse("")
    for key, value in data.items():
        doc.set((key,), value)
    assert (yaml.safe_load(doc.text) or {}) == data
    found = plain_loads(doc.text)
    assert found is None or found == data


def test_the_read_only_document_needs_pyyaml_only_outside_the_subset() -> None:
    program = (
        "import sys\n"
        "from elydora_config.yaml.readonly import ReadOnlyYaml\n"
        "doc = ReadOnlyYaml.parse('hooks:\\n  pre_tool_call:\\n  - command: x\\n')\n"
        "assert doc.get(('hooks', 'pre_tool_call', -1, 'command')) == 'x' and not doc.has(('hooks', 'x'))\n"
        "print('yaml' in sys.modules)\n"
        "ReadOnlyYaml.parse('a: yes\\n')\n"
        "print('yaml' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "True"]


def test_an_invalid_text_is_refused_by_the_editor_behind_it() -> None:
    with pytest.raises(MalformedConfigError, match="invalid YAML"):
        ReadOnlyYaml.parse("a: [1\n", path="config.yaml")
    doc = ReadOnlyYaml.parse("a: 1\n")
    doc.set(("b",), 2)  # an edit builds the editor, which answers from then on
    assert doc.text == "a: 1\nb: 2\n" and doc.get(("b",)) == 2
