"""Bytes in, bytes out: an edit of a document read from bytes splices its UTF-8 and decodes the text lazily."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from jsonc_testkit import Writer, all_paths, oracle_loads
from test_jsonc_properties import PROFILE, roots

from elydora_config.errors import MalformedConfigError
from elydora_config.jsonc import JSONC, STRICT_JSON, JsoncDocument
from elydora_config.jsonc._lexical import _utf8_offset, splice_text, splice_utf8, utf8_length

_ALPHABET = 'ab "\\/*,:{}[]\n\t\u00e9\u65e5\U0001f600\ufeff'


@pytest.mark.parametrize("seed", range(40))
def test_splicing_the_utf8_gives_the_utf8_of_the_spliced_text(seed: int) -> None:
    rnd = random.Random(seed)
    text = "".join(rnd.choice(_ALPHABET) for _ in range(rnd.randrange(0, 300)))
    cuts = sorted(rnd.sample(range(len(text) + 1), min(len(text) + 1, 2 * rnd.randrange(1, 4))))
    splices = [
        (cuts[i], cuts[i + 1], rnd.choice(["", "x", "\u00fc\U0001f600", "new text"]))
        for i in range(0, len(cuts) - 1, 2)
    ]
    data = text.encode("utf-8")
    assert splice_utf8(data, text, splices) == splice_text(text, splices).encode("utf-8")
    assert utf8_length(text, 0, len(text)) == len(data)


@pytest.mark.parametrize("seed", range(6))
def test_splicing_the_utf8_of_a_text_longer_than_the_counting_chunks(seed: int) -> None:
    rnd = random.Random(seed)
    text = "".join(rnd.choice(_ALPHABET) for _ in range(rnd.randrange(9000, 20000)))
    cuts = sorted(rnd.sample(range(len(text) + 1), 2 * rnd.randrange(1, 6)))
    splices = [(cuts[i], cuts[i + 1], rnd.choice(["", "\u00fc", "longer new text"])) for i in range(0, len(cuts), 2)]
    data = text.encode("utf-8")
    assert splice_utf8(data, text, splices) == splice_text(text, splices).encode("utf-8")
    assert utf8_length(text, 5, len(text) - 5) == len(text[5:-5].encode("utf-8"))


def test_splicing_the_utf8_where_the_text_before_the_splice_repeats() -> None:
    text = "a\u00e9\u65e5 " * 3000  # the characters before any offset occur many times: counted, not searched
    splices = [(4001, 4003, "X"), (9000, 9000, "\U0001f600")]
    assert splice_utf8(text.encode(), text, splices) == splice_text(text, splices).encode("utf-8")


@pytest.mark.parametrize("seed", range(30))
def test_the_byte_offset_of_a_character_is_found_in_its_window_or_counted(seed: int) -> None:
    rnd = random.Random(seed)
    # mostly ASCII with a few wide characters, and a block that repeats: its context occurs more than once
    # in the text, sometimes only once within the window where the offset can lie
    block = "".join(rnd.choice("ab, \n\"") for _ in range(rnd.randrange(70, 200)))
    parts = [block if rnd.random() < 0.3 else rnd.choice(["x" * rnd.randrange(1, 90), "\u00e9", "\u65e5", "\U0001f600"])
             for _ in range(rnd.randrange(20, 120))]
    text = "".join(parts)
    data = text.encode("utf-8")
    for pos in [*rnd.sample(range(len(text) + 1), min(40, len(text) + 1)), len(text)]:
        assert _utf8_offset(data, text, pos) == len(text[:pos].encode("utf-8"))


def test_an_edit_keeps_bytes_only_and_decodes_the_text_when_asked() -> None:
    text = '\ufeff{\n  // caf\u00e9\n  "a": [1, 2,],\n  "\u65e5": {"b": "\U0001f600"} /* c */\n}\n'
    doc = JsoncDocument.parse_bytes(text.encode("utf-8"), JSONC)
    doc.set(("\u65e5", "b"), "\u00fc")
    doc.insert(("a",), -1, 3)
    assert doc._loaded is None  # white box: no new text was built by the last edit
    data = doc.to_bytes()
    assert doc._loaded is None and data.decode("utf-8") == doc.text
    assert doc.text.startswith("\ufeff{\n  // caf\u00e9\n") and oracle_loads(doc.text[1:]) == doc.value
    assert doc.value == {"a": [1, 2, 3], "\u65e5": {"b": "\u00fc"}}
    doc.remove(("a", 0))
    doc.undo()
    assert doc.to_bytes() == doc.text.encode("utf-8") and doc.get(("a",)) == [1, 2, 3]


def test_a_bytearray_is_copied_so_later_changes_to_it_do_not_leak_in() -> None:
    data = bytearray(b'{"a": 1}')
    doc = JsoncDocument.parse_bytes(data, STRICT_JSON)
    data[6] = ord("2")
    doc.set(("b",), 2)
    assert doc.to_bytes() == b'{"a": 1, "b": 2}' and doc.text == '{"a": 1, "b": 2}'


def test_an_invalid_edit_still_leaves_the_document_unchanged() -> None:
    doc = JsoncDocument.parse_bytes('{"a": "\u00e9"}'.encode(), STRICT_JSON)
    with pytest.raises(TypeError):
        doc.set(("b",), object())
    with pytest.raises(MalformedConfigError):
        JsoncDocument.parse_bytes(b'{"a": 1,}', STRICT_JSON)
    assert doc.to_bytes() == '{"a": "\u00e9"}'.encode() and doc.edits == ()


def test_a_replaced_value_that_is_not_one_value_is_refused_and_nothing_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    text = '{\n  "a": 1, // one\n  "b": [2]\n}'
    doc = JsoncDocument.parse_bytes(text.encode(), JSONC)
    monkeypatch.setattr("elydora_config.jsonc._editing.render", lambda *args: "1, 2")
    monkeypatch.setattr("elydora_config.jsonc._editing.render_scalar", lambda *args: "1, 2")  # (scalars)
    with pytest.raises(MalformedConfigError, match="internal error"):
        doc.set(("a",), 5)
    with pytest.raises(MalformedConfigError, match="internal error"):
        doc.set(("a",), [5])
    assert doc.to_bytes() == text.encode() and doc.edits == () and doc.get(("b", 0)) == 2
    monkeypatch.undo()
    doc.set(("a",), {"x": [1, 2]})
    doc.set(("b", 0), "c")
    assert doc.text == '{\n  "a": {\n    "x": [\n      1,\n      2\n    ]\n  }, // one\n  "b": ["c"]\n}'
    assert doc.get(("a", "x", 1)) == 2 and doc.value == {"a": {"x": [1, 2]}, "b": ["c"]}


@pytest.mark.parametrize(
    "text",
    [
        '\ufeff{"a": 1 /* c */}',  # a byte order mark
        '{"a": "x // y", /* c */ "b": 1}',  # a "comment" inside a string: only the exact blanking reads it
        '{"\\u00e9": 1, /* c */ "\u00fc": 2}',  # escaped and raw non-ASCII: keys would not compare (lane tests)
    ],
)
def test_a_text_read_from_bytes_is_the_text_read_from_str(text: str) -> None:
    doc = JsoncDocument.parse_bytes(text.encode("utf-8"), JSONC)
    assert doc.value == JsoncDocument.parse(text, JSONC).value and doc.text == text


@PROFILE
@given(st.randoms(use_true_random=False), roots, st.data())
def test_reads_and_edits_from_the_bytes_equal_those_of_the_decoded_text(
    rnd: random.Random, root: Any, data: Any
) -> None:
    writer = Writer(rnd, comments=True, trailing_commas=rnd.random() < 0.5)
    text = writer.document(root, False)
    if "//" not in text and "/*" not in text:
        text = "// c\n" + text
    note(repr(text))
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:
        return  # a lone surrogate: not a UTF-8 file
    doc = JsoncDocument.parse_bytes(encoded, JSONC)
    expected = JsoncDocument.parse(text, JSONC)
    paths = [path for path, _ in all_paths(root)]
    for path in data.draw(st.lists(st.sampled_from(paths), max_size=4)):
        assert doc.get(path) == expected.get(path)
        assert doc.span(path) == expected.span(path) and doc.entry_span(path) == expected.entry_span(path)
    scalars = [path for path, value in all_paths(root) if path and not isinstance(value, (dict, list))]
    for path in data.draw(st.lists(st.sampled_from(scalars), max_size=3)) if scalars else []:
        new = data.draw(st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5)))
        assert doc.set(path, new) == expected.set(path, new)
        assert doc.to_bytes() == expected.text.encode("utf-8") and doc.get(path) == new
    assert doc.value == expected.value and doc.text == expected.text
