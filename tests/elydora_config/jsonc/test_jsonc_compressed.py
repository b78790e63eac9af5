"""A document read from bytes with comments is parsed on its compressed scan text: the UTF-8 index, the way
back from compressed offsets, the keys read from their bytes, what is answered without decoding the text, and
every case handed to the decoded text."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from jsonc_testkit import Writer, all_paths
from test_jsonc_lanes import expected_runs
from test_jsonc_properties import PROFILE, roots

from elydora_config.errors import MalformedConfigError
from elydora_config.jsonc import JSONC, JsoncDocument, lane_blanking
from elydora_config.jsonc import compressed as compressed_module
from elydora_config.jsonc import document as document_module
from elydora_config.jsonc.compressed import CompressedText, Utf8Index


@pytest.fixture(autouse=True)
def _every_size_compressed() -> Iterator[None]:
    """Small texts too take the compressed parse here (the editor keeps it for texts of 64 KiB and more)."""
    with mock.patch.object(document_module, "_COMPRESS_FROM", 0):
        yield


_WIDE = "ab \n\u00e9\u07ff\u0800\u65e5\uffff\U0001f600\U0010ffff"  # one to four bytes per character


def _text(rnd: random.Random, size: int) -> str:
    return "".join(rnd.choice(_WIDE) for _ in range(size))


def _boundaries(text: str) -> list[int]:
    """The byte offset where each character starts, and the end."""
    offsets, at = [], 0
    for char in text:
        offsets.append(at)
        at += len(char.encode("utf-8"))
    return [*offsets, at]


@pytest.mark.parametrize("seed", range(12))
def test_the_index_maps_every_byte_offset_to_its_character(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compressed_module, "_STEP", random.Random(seed).choice([1, 2, 3, 7, 64, 1 << 14]))
    rnd = random.Random(seed)
    text = _text(rnd, rnd.randrange(0, 400))
    data = text.encode("utf-8")
    index = Utf8Index.of(data, data.isascii())
    assert index is not None
    for char, byte in enumerate(_boundaries(text)):
        assert index.char_offset(byte) == char


@pytest.mark.parametrize("seed", range(30))
def test_an_index_after_a_replacement_is_the_index_of_the_new_bytes(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compressed_module, "_STEP", 5)  # many indexed chunks, some starting inside the old bytes
    rnd = random.Random(seed)
    text = _text(rnd, rnd.randrange(1, 200)) if seed % 3 else "".join(rnd.choice("ab \n") for _ in range(99))
    data = text.encode("utf-8")
    index = Utf8Index.of(data, data.isascii())
    assert index is not None
    start, end = sorted(rnd.sample(range(len(text) + 1), 2))
    new = rnd.choice(["", "x", "abc", "\u00fc\U0001f600", _text(rnd, 20)])
    spliced = text[:start] + new + text[end:]
    at, old_bytes = len(text[:start].encode()), len(text[start:end].encode())
    replaced = index.replaced(spliced.encode(), at, old_bytes, len(new.encode()), len(new) - (end - start))
    assert replaced.ascii == spliced.isascii()
    for char, byte in enumerate(_boundaries(spliced)):
        assert replaced.char_offset(byte) == char


@pytest.mark.parametrize(
    "data",
    [b"\x80", b"ab\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"a" * 70_000 + b"\xff" + b"b"],
    ids=["continuation", "truncated", "surrogate", "overlong", "beyond U+10FFFF", "in a later chunk"],
)
def test_the_index_refuses_what_the_utf8_decoder_refuses(data: bytes) -> None:
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert Utf8Index.of(data, False) is None


def _lines(rnd: random.Random, count: int) -> str:
    lines = []
    for i in range(count):
        value = rnd.choice(['"caf\u00e9 x/y"', "[1, 2,]", f"{i}", '{"\u65e5": true}'])
        head = rnd.choice(["", "/* a */ ", "/* a\n b */ "])
        tail = rnd.choice(["", " // n", " /* c */ // d"])
        lines.append(f'  {head}"k{i}": {value},{tail}')
    return "{\n" + "\n".join(lines) + '\n  "end": 0 // last\n}\n'


def _expected_compressed(text: str) -> str:
    """Every comment run one TAB, the rest (trailing commas too) the UTF-8 read as Latin-1."""
    out = list(text)
    runs, _ = expected_runs(text)
    for start, end in reversed(runs):
        out[start:end] = ["\t"]
    return "".join(out).encode("utf-8").decode("latin-1")


@pytest.mark.parametrize("seed", range(8))
def test_the_compressed_text_is_the_text_with_each_comment_run_one_tab(seed: int) -> None:
    rnd = random.Random(seed)
    text = _lines(rnd, 50) + rnd.choice(["", "// after\n", "/* x */ /* y */ /* z */"])
    assert CompressedText(text.encode()).text == _expected_compressed(text)


@pytest.mark.parametrize("seed", range(8))
def test_compressed_offsets_map_back_to_the_bytes(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lane_blanking, "_CHUNK", random.Random(seed).choice([64, 300, 1 << 18]))
    rnd = random.Random(seed)
    data = _lines(rnd, 300).encode("utf-8")
    compressed = CompressedText(data)
    text = compressed.text
    assert text.count("//") == 0 and len(text) < len(data)  # every comment run is one TAB
    previous = -1
    for pos in range(len(text) + 1):
        byte = compressed.byte_offset(pos)
        assert byte > previous  # strictly increasing: a run is one position
        previous = byte
        if pos < len(text) and text[pos] != "\t":
            assert data[byte : byte + 1] == text[pos].encode("latin-1")


def test_a_replaced_token_keeps_the_offsets_mapped_even_when_it_looks_like_a_comment() -> None:
    rnd = random.Random(5)
    data = _lines(rnd, 400).encode("utf-8")
    compressed = CompressedText(data)
    pos = compressed.text.index('"k200": ') + len('"k200": ')
    end = pos + compressed.text[pos:].index(",")
    assert compressed.replace(pos, end - pos, b'"a // b /* c"') == data.index(b'"k200": ') + len(b'"k200": ')
    assert compressed.data == data.replace(data[data.index(b'"k200": ') :].split(b",")[0], b'"k200": "a // b /* c"')
    for key in ("k199", "k200", "k201", "end"):
        at = compressed.text.index(f'"{key}"')
        assert compressed.data[compressed.byte_offset(at) :].startswith(f'"{key}"'.encode())


def _big(keys: list[str]) -> str:
    members = [f'  /* {i} */ {key}: {{"n": {i}, "s": "caf\u00e9 x/y"}}' for i, key in enumerate(keys)]
    return "{\n" + ", // c\n".join(members) + " // end\n}\n"


def test_reading_and_setting_values_never_decode_the_text() -> None:
    text = _big([f'"k{i}"' for i in range(400)])
    doc = JsoncDocument.parse_bytes(text.encode("utf-8"), JSONC)
    expected = JsoncDocument.parse(text, JSONC)
    assert doc._loaded is None and doc._compressed is not None  # white box: parsed on the compressed text
    for _ in range(2):  # before and after an edit
        assert doc.has(("k250", "n")) and not doc.has(("k250", "x"))
        for path in [("k3",), ("k250", "s"), ("k399",), ()]:
            assert doc.span(path) == expected.span(path) and doc.entry_span(path) == expected.entry_span(path)
            assert doc.get(path) == expected.get(path)
        assert doc.value == expected.value
        assert doc.set(("k250", "s"), "\u65e5 new") == expected.set(("k250", "s"), "\u65e5 new")
        assert doc.set(("k3", "n"), -7) == expected.set(("k3", "n"), -7)
        assert doc.to_bytes() == expected.text.encode("utf-8")
    assert doc._loaded is None and doc._compressed is not None  # nothing decoded
    doc.remove(("k7",))  # an edit of the text: it is decoded and parsed the usual way
    expected.remove(("k7",))
    assert doc._compressed is None and doc.text == expected.text and doc.edits == expected.edits


def test_non_ascii_keys_are_read_from_the_bytes() -> None:
    keys = ['"\u00e9"', '"\u00fc"', '"\u65e5\u672c"', '"\\u0041\u00e9"', '"\x7f"', '"a\x7fb"', '"\U0001f600"']
    text = _big(keys)
    doc = JsoncDocument.parse_bytes(text.encode("utf-8"), JSONC)
    assert doc._compressed is not None
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


def test_what_the_compressed_parse_refuses_is_reported_from_the_decoded_text() -> None:
    cases = [
        '{"a": 1, // c\n "b": [1,,]}',  # a syntax error: line and column of the text
        '{"a": 1, /* c */ "a": 2}',  # a duplicate at the walked level
        '{"a": {"b": {"\u00e9": 1, /* c */ "\u00e9": 2}}}',  # a duplicate the C scanner sees
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
        '{"\\u00e9": 1, /* c */ "\u00fc": 2}',  # escaped and raw non-ASCII: keys would not compare (lane tests)
    ],
)
def test_what_the_compressed_text_cannot_read_goes_to_the_decoded_text(text: str) -> None:
    doc = JsoncDocument.parse_bytes(text.encode("utf-8"), JSONC)
    assert doc._compressed is None and doc._loaded is not None  # white box: decoded at parse
    assert doc.value == JsoncDocument.parse(text, JSONC).value


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


def test_a_small_text_is_decoded_and_a_big_one_compressed() -> None:
    """Below 64 KiB the lane text and the decoded text cost less than the compressed text's way back."""
    small = _big([f'"k{i}"' for i in range(100)])
    big = _big([f'"k{i}"' for i in range(2000)])
    assert len(small.encode()) < 1 << 16 <= len(big.encode())
    with mock.patch.object(document_module, "_COMPRESS_FROM", 1 << 16):
        small_doc = JsoncDocument.parse_bytes(small.encode(), JSONC)
        big_doc = JsoncDocument.parse_bytes(big.encode(), JSONC)
    assert small_doc._compressed is None and small_doc._loaded is not None  # white box
    assert small_doc._loaded[1].lane_text is not None  # built from the bytes before they were decoded
    assert big_doc._compressed is not None and big_doc._loaded is None


def test_a_refused_compressed_text_is_not_followed_by_a_lane_text() -> None:
    text = _big([f'"k{i}"' for i in range(10)]).replace('"caf\u00e9 x/y"', '"a // b"', 1)  # a comment in a string
    doc = JsoncDocument.parse_bytes(text.encode(), JSONC)
    assert doc._compressed is None and doc.value == JsoncDocument.parse(text, JSONC).value
    assert doc._loaded is not None and doc._loaded[1].lane_text is None and doc._loaded[1].prepared  # exact


@pytest.mark.parametrize("seed", range(10))
def test_edits_in_many_chunks_in_any_order_keep_every_offset(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lane_blanking, "_CHUNK", 200)  # a chunk every few members
    rnd = random.Random(seed)
    text = _lines(rnd, 120)
    doc = JsoncDocument.parse_bytes(text.encode("utf-8"), JSONC)
    expected = JsoncDocument.parse(text, JSONC)
    assert doc._compressed is not None
    keys = [f"k{i}" for i in range(120) if not isinstance(expected.get((f"k{i}",)), (dict, list))]
    for key in rnd.sample(keys, 12):
        new = rnd.choice(["x" * rnd.randrange(0, 40), -1, None, "\u65e5\U0001f600 // not /* a comment"])
        assert doc.set((key,), new) == expected.set((key,), new)
        probe = rnd.choice(keys)
        assert doc.get((probe,)) == expected.get((probe,)) and doc.span((probe,)) == expected.span((probe,))
    assert doc._compressed is not None and doc.to_bytes() == expected.text.encode("utf-8")
