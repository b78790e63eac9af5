"""A document read from bytes with comments is parsed on its lane scan text alone: the UTF-8 index, the keys
read from the bytes, the one edit made without decoding, and every case handed to the decoded text."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from jsonc_testkit import Writer, all_paths
from test_jsonc_properties import PROFILE, roots

from elydora_config.errors import MalformedConfigError
from elydora_config.jsonc import JSONC, JsoncDocument
from elydora_config.jsonc import folded as folded_module
from elydora_config.jsonc.folded import Utf8Index
from elydora_config.jsonc.lexical import splice_text

_WIDE = "ab \n\u00e9\u07ff\u0800\u65e5\uffff\U0001f600\U0010ffff"  # one to four bytes per character


def _text(rnd: random.Random, size: int) -> str:
    return "".join(rnd.choice(_WIDE) for _ in range(size))


@pytest.mark.parametrize("seed", range(12))
def test_the_index_maps_every_character_to_its_byte_offset(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(folded_module, "_STEP", random.Random(seed).choice([1, 2, 3, 7, 64, 1 << 16]))
    rnd = random.Random(seed)
    text = _text(rnd, rnd.randrange(0, 400))
    data = text.encode("utf-8")
    index = Utf8Index.of(data, data.isascii())
    assert index is not None
    for char in range(len(text) + 1):
        assert index.byte_offset(char) == len(text[:char].encode("utf-8"))
    for _ in range(20):
        start, end = sorted(rnd.sample(range(len(text) + 1), 2)) if len(text) > 1 else (0, len(text))
        assert index.decode(start, end) == text[start:end]
        assert index.byte_offset(end, (start, index.byte_offset(start))) == len(text[:end].encode("utf-8"))


@pytest.mark.parametrize("seed", range(8))
def test_splicing_through_the_index_gives_the_utf8_of_the_spliced_text(seed: int) -> None:
    rnd = random.Random(seed)
    text = _text(rnd, rnd.randrange(70_000, 140_000))  # more than one indexed chunk
    cuts = sorted(rnd.sample(range(len(text) + 1), 2 * rnd.randrange(1, 5)))
    splices = [(cuts[i], cuts[i + 1], rnd.choice(["", "x", "\u00fc\U0001f600"])) for i in range(0, len(cuts), 2)]
    index = Utf8Index.of(text.encode("utf-8"), False)
    assert index is not None
    assert index.spliced(splices) == splice_text(text, splices).encode("utf-8")


@pytest.mark.parametrize(
    "data",
    [b"\x80", b"ab\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"a" * 70_000 + b"\xff" + b"b"],
    ids=["continuation", "truncated", "surrogate", "overlong", "beyond U+10FFFF", "in a later chunk"],
)
def test_the_index_refuses_what_the_utf8_decoder_refuses(data: bytes) -> None:
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert Utf8Index.of(data, False) is None


def _big(keys: list[str]) -> str:
    members = [f'  /* {i} */ {key}: {{"n": {i}, "s": "caf\u00e9 x/y"}}' for i, key in enumerate(keys)]
    return "{\n" + ", // c\n".join(members) + " // end\n}\n"


def test_one_edit_of_a_document_with_comments_never_decodes_its_text() -> None:
    text = _big([f'"k{i}"' for i in range(400)])
    doc = JsoncDocument.parse_bytes(text.encode("utf-8"), JSONC)
    assert doc._loaded is None and doc._folded is not None  # white box: parsed on the scan text alone
    assert doc.has(("k250", "n")) and not doc.has(("k250", "x")) and doc.span(("k3",)) == JsoncDocument.parse(
        text, JSONC
    ).span(("k3",))
    edit = doc.set(("k250", "s"), "\u65e5 new")
    assert doc._loaded is None and doc._folded is None  # the bytes were spliced; nothing decoded
    expected = JsoncDocument.parse(text, JSONC)
    assert edit == expected.set(("k250", "s"), "\u65e5 new")
    assert doc.to_bytes() == expected.text.encode("utf-8")
    assert doc.get(("k250", "s")) == "\u65e5 new" and doc.get(("k249", "s")) == "caf\u00e9 x/y"


def test_non_ascii_keys_are_read_from_the_bytes() -> None:
    keys = ['"\u00e9"', '"\u00fc"', '"\u65e5\u672c"', '"\\u0041\u00e9"', '"\x7f"', '"a\x7fb"', '"\U0001f600"']
    text = _big(keys)
    doc = JsoncDocument.parse_bytes(text.encode("utf-8"), JSONC)
    assert doc._folded is not None
    for i, key in enumerate(["\u00e9", "\u00fc", "\u65e5\u672c", "A\u00e9", "\x7f", "a\x7fb", "\U0001f600"]):
        assert doc.get((key, "n")) == i
    doc.set(("\u65e5\u672c", "n"), 99)
    assert doc.value == JsoncDocument.parse(text.replace('"n": 2,', '"n": 99,'), JSONC).value
    for twice in (['"\u00e9"', '"\u00e9"'], ['"A\u00e9"', '"\\u0041\u00e9"'], ['"\x7f"', '"\\u007f"']):
        text = _big(['"a"', *twice])
        with pytest.raises(MalformedConfigError) as from_bytes:
            JsoncDocument.parse_bytes(text.encode("utf-8"), JSONC)
        with pytest.raises(MalformedConfigError) as from_text:
            JsoncDocument.parse(text, JSONC)
        assert str(from_bytes.value) == str(from_text.value) and "duplicate key" in str(from_text.value)


def test_what_the_folded_parse_refuses_is_reported_from_the_decoded_text() -> None:
    cases = [
        '{"a": 1, // c\n "b": [1,,]}',  # a syntax error: line and column of the text
        '{"a": 1, /* c */ "a": 2}',  # a duplicate at the walked level
        '{"a": {"\u00e9": 1, /* c */ "\u00e9": 2}}',  # a duplicate the C scanner sees (folded alike)
        '{"a": 1, /* c',  # an unterminated comment
    ]
    for text in cases:
        with pytest.raises(MalformedConfigError) as from_bytes:
            JsoncDocument.parse_bytes(text.encode("utf-8"), JSONC)
        with pytest.raises(MalformedConfigError) as from_text:
            JsoncDocument.parse(text, JSONC)
        assert str(from_bytes.value) == str(from_text.value)
    with pytest.raises(MalformedConfigError, match="invalid UTF-8 at byte 12"):
        JsoncDocument.parse_bytes(b'{"a": 1, // \xff\n}', JSONC)


@pytest.mark.parametrize(
    "text",
    [
        '\ufeff{"a": 1 /* c */}',  # a byte order mark: the decoded text's rules for it
        '{"a": "x // y", /* c */ "b": 1}',  # a "comment" inside a string: only the exact blanking reads it
        '{"\u00e9": 1, /* c */ "x": {"y": {"\u00e9": 3, "\u00fc": 4}}}',  # keys the C scanner reads alike
    ],
)
def test_what_the_scan_text_cannot_read_goes_to_the_decoded_text(text: str) -> None:
    doc = JsoncDocument.parse_bytes(text.encode("utf-8"), JSONC)
    assert doc._folded is None and doc._loaded is not None  # white box: decoded at parse
    assert doc.value == JsoncDocument.parse(text, JSONC).value


@PROFILE
@given(st.randoms(use_true_random=False), roots, st.data())
def test_an_edit_from_the_bytes_equals_the_edit_of_the_decoded_text(rnd: random.Random, root: Any, data: Any) -> None:
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
    scalars = [path for path, value in all_paths(root) if path and not isinstance(value, (dict, list))]
    if not scalars:
        return
    path = data.draw(st.sampled_from(scalars))
    new = data.draw(st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5)))
    assert doc.set(path, new) == expected.set(path, new)
    assert doc.to_bytes() == expected.text.encode("utf-8")
    assert doc.get(path) == new
