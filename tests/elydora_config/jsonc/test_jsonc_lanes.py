"""The lane scan text: comments and trailing commas blanked by one regex split per chunk, checked by the C scanner."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from jsonc_testkit import Writer, assert_agrees_with_reference, oracle_loads
from test_jsonc_properties import PROFILE, roots

from elydora_config.errors import MalformedConfigError
from elydora_config.jsonc import JSONC, JSONC_NO_TRAILING_COMMAS, STRICT_JSON, Dialect, JsoncDocument
from elydora_config.jsonc import _fast_scan as fast_scan
from elydora_config.jsonc import _lane_blanking as lane_blanking
from elydora_config.jsonc._blanking import (
    blank,
    comment_spans,
    follows_value,
    trailing_comma_candidates,
)
from elydora_config.jsonc._fast_scan import ValueScanner
from elydora_config.jsonc._lane_blanking import FOLD_MARK

_WHITESPACE = " \t\r\n"


def _lanes(text: str, commas: bool = True) -> str:
    """The lanes' own result (a text the C scanner then refuses falls back to the exact blanking)."""
    return lane_blanking._scan_text(text.encode("utf-8", "surrogatepass"), commas)


def test_the_lanes_are_taken_whatever_the_density() -> None:
    dense = "[\n" + "".join(f"  /* {i} */ {i}, // c\n" for i in range(50)) + "  0\n]"
    lines = [f"  {i}, // caf\u00e9 {i}\n" if i % 100 == 0 else f"  {i},\n" for i in range(500)]
    sparse = "[\n" + "".join(lines) + "  0\n]"
    for text in (dense, sparse):
        from_str = lane_blanking.scan_text_of_str(text, True)
        assert from_str is not None and len(from_str) == len(text) and from_str.isascii()
        assert from_str == _lanes(text) == _expected_lanes(text)  # TABs: the lanes, for few comments too
    assert ValueScanner(sparse, JSONC).end(0) == len(sparse)


def expected_runs(text: str) -> tuple[list[tuple[int, int]], list[int]]:
    """The comment runs the lanes must find, from the exact blanking (a run is one comment, or two with only
    whitespace between them), and the trailing commas."""
    spans = comment_spans(text)
    runs, at = [], 0
    while at < len(spans):
        start, end = spans[at]
        if at + 1 < len(spans) and not text[end : spans[at + 1][0]].strip(_WHITESPACE):
            at += 1
            end = spans[at][1]  # the second comment of a pair
        runs.append((start, end))
        at += 1
    blanked = blank(text, spans, [])
    return runs, [comma for comma in trailing_comma_candidates(blanked, []) if follows_value(blanked, comma)]


def _expected_lanes(text: str) -> str:
    """What the lanes must give: comment runs and trailing commas TABs, non-ASCII the fold mark."""
    out = [FOLD_MARK if not char.isascii() else char for char in text]
    runs, commas = expected_runs(text)
    for start, end in runs:
        out[start:end] = "\t" * (end - start)
    for comma in commas:
        out[comma] = "\t"
    return "".join(out)


def test_comments_and_trailing_commas_become_tabs_at_the_same_offsets() -> None:
    text = '{"a": 1, /* c */ "b": [1,2, // x\n],}'
    assert _lanes(text) == '{"a": 1, \t\t\t\t\t\t\t "b": [1,2\t \t\t\t\t\n]\t}'
    assert _lanes(text, commas=False) == '{"a": 1, \t\t\t\t\t\t\t "b": [1,2, \t\t\t\t\n],}'


def test_non_ascii_characters_fold_to_one_ascii_character_each() -> None:
    text = '["caf\u00e9 \u65e5 \U0001f600", /* \u00e9 */ 1]'
    lanes = _lanes(text)
    assert lanes.isascii() and len(lanes) == len(text)
    assert lanes == '["caf? ? ?", \t\t\t\t\t\t\t 1]' and FOLD_MARK == "?"  # valid in a string


def test_a_naive_comment_inside_a_string_is_refused_by_the_c_scanner() -> None:
    text = '{"a": "x//y",\n "b": "p/*q*/r" /* c */}'
    lanes = _lanes(text)  # blanked inside the strings, where the strict scanner refuses a TAB:
    assert lanes[text.index("//")] == lanes[text.index("/*q")] == "\t"
    scanner = ValueScanner(text, JSONC)
    assert scanner.end(0) == len(text)  # ... so the exact blanking took over
    assert scanner.lane_text is None and scanner.prepared
    assert JsoncDocument.parse_bytes(text.encode(), JSONC).value == {"a": "x//y", "b": "p/*q*/r"}


def test_urls_in_strings_keep_the_lane_path() -> None:
    text = '{"$schema": "https://example.test/x", // a comment\n "f": "file:///tmp"}'
    scanner = ValueScanner(text, JSONC)
    assert scanner.end(0) == len(text)
    assert scanner.lane_text is not None and not scanner.prepared
    assert JsoncDocument.parse(text, JSONC).value == {"$schema": "https://example.test/x", "f": "file:///tmp"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[1, // see /* here\n2] /* x */", "[1, " + "\t" * 14 + "\n2] " + "\t" * 7),  # an opener in a line comment
        ("[1, /* open", "[1, " + "\t" * 7),  # unterminated: blanked to the end, the C scanner then stops
    ],
)
def test_interleaved_and_unterminated_comments_are_lexed_like_the_lexer(text: str, expected: str) -> None:
    assert _lanes(text) == expected


def test_interleaved_and_unterminated_comments_are_still_read_exactly() -> None:
    assert JsoncDocument.parse("[1, // see /* here\n2] /* x */", JSONC).value == [1, 2]
    with pytest.raises(MalformedConfigError, match="unterminated block comment"):
        JsoncDocument.parse_bytes(b"[1, /* open", JSONC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/*/ x */1", "\t" * 8 + "1"),  # "/*/" does not close
        ("/**/1", "\t\t\t\t1"),
        ("/* a /* b */1", "\t" * 12 + "1"),  # an opener inside a block comment is its text
        ("1 */", "1 */"),  # a closer no opener reaches is left for the scanner
        ("[1 /* a */*/ 2 */]", "[1 " + "\t" * 7 + "*/ 2 */]"),  # "*/*": the slash closes, opens nothing
        ("// a */ b\n1", "\t" * 9 + "\n1"),
        ("1 /* x // y */ 2", "1 \t\t\t\t\t\t\t\t\t\t\t\t 2"),  # a // inside a block comment
        ("1 ///// x\r2", "1 " + "\t" * 7 + "\r2"),  # a line comment ends at CR
    ],
)
def test_comment_boundaries_follow_the_lexer(text: str, expected: str) -> None:
    assert _lanes(text) == expected


def test_runs_of_comments_are_lexed_in_pairs() -> None:
    text = "[1, /* a */ /* b */\n  // c\n  /* d */ 2]"
    lanes = _lanes(text)
    assert lanes == _expected_lanes(text)
    assert lanes == "[1, " + "\t" * 15 + "\n  " + "\t" * 14 + " 2]"  # (a b), then (c d) with its line break
    assert ValueScanner(text, JSONC).end(0) == len(text)


def test_a_text_with_cr_lexes_line_comments_to_either_break() -> None:
    lf = "{\n" + "".join(f'  /* {i} */ "k{i}": {i}, // c{i}\n' for i in range(40)) + '  "end": [0, // e\n  ],\n}'
    crlf = lf.replace("\n", "\r\n")
    for text in (lf, crlf):
        assert _lanes(text) == _expected_lanes(text)
        assert JsoncDocument.parse_bytes(text.encode(), JSONC).value == oracle_loads(lf)
    lone_cr = '[1, // c\r"a", // d\n 2]'  # a CR alone ends a line comment: what follows is a value
    assert _lanes(lone_cr) == "[1, \t\t\t\t\r\"a\", \t\t\t\t\n 2]"
    assert JsoncDocument.parse_bytes(lone_cr.encode(), JSONC).value == [1, "a", 2]


def test_a_trailing_comma_behind_comments_in_a_long_dense_chunk_keeps_the_lane_path() -> None:
    body = "".join(f'  /* {i} */ "k{i}": [{i}, // c\n  /* x */ ],\n' for i in range(2000))
    text = "{\n" + body + '  "end": 0, /* last */ // c\n}'
    assert len(text) > 1 << 16
    lanes = _lanes(text)
    assert lanes == _expected_lanes(text)
    scanner = ValueScanner(text, JSONC)
    assert scanner.end(0) == len(text)
    assert scanner.lane_text is not None and not scanner.prepared
    assert JsoncDocument.parse_bytes(text.encode(), JSONC).get(("k1999",)) == [1999]


def test_chunks_carry_block_comments_and_trailing_commas_across_their_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lane_blanking, "_CHUNK", 64)
    rnd = random.Random(3)
    lines = []
    for i in range(400):
        roll = rnd.random()
        if roll < 0.2:
            lines.append(f'  "k{i}": [1, /* multi\n line "q" {i} */ 2,\n\n    ], // c')
        elif roll < 0.4:
            lines.append(f'  "k{i}": {{"x": {i},\n   // c\n\n   }},')
        else:
            lines.append(f'  "k{i}": "caf\u00e9 {i}", // c{i} http://x')
    text = "{\n" + "\n".join(lines) + '\n  "end": 0,\n}'
    lanes = _lanes(text)
    assert len(lanes) == len(text)
    assert lanes == _expected_lanes(text)
    doc = JsoncDocument.parse_bytes(text.encode("utf-8"), JSONC)
    assert doc._scanner.lane_text is not None  # white box: the C scanner accepted the lane text throughout
    assert doc.value == oracle_loads(text)
    doc.set(("k399",), "edited")
    assert doc.get(("k399",)) == "edited" and oracle_loads(doc.text)["k399"] == "edited"


def test_keys_that_fold_alike_are_not_taken_for_duplicates() -> None:
    text = '{"\u00e9": 1, "\u00fc": 2, /* c */ "\u65e5": [3,]}'
    doc = JsoncDocument.parse_bytes(text.encode("utf-8"), JSONC)
    assert doc.value == {"\u00e9": 1, "\u00fc": 2, "\u65e5": [3]}
    with pytest.raises(MalformedConfigError, match="duplicate key"):
        JsoncDocument.parse_bytes('{"\u00e9": 1, /* c */ "\u00e9": 2}'.encode(), JSONC)


@pytest.mark.parametrize(
    "text",
    [
        '{"a": {"x": {"\\u00e9": 1, /* c */ "\u00e9": 2}}}',  # one key spelt escaped and raw, deep down
        '// c\n[{"\\u65e5": 1, "\u65e5": 2}]',
        '{"\u00e9": {"k\\u00fc": [1], /* c */ "k\u00fc": 2}}',
    ],
)
def test_one_key_spelt_escaped_and_raw_is_a_duplicate_whatever_the_comments(text: str) -> None:
    """The scan texts fold a raw non-ASCII character (or read its bytes) but the C scanner decodes an escaped
    one: in a text that holds both, they would take the two spellings of one key for two keys, so such a text
    takes neither."""
    assert lane_blanking.scan_text_of_str(text, True) is None
    assert not lane_blanking.keys_compare_faithfully(text.encode()) and not lane_blanking.keys_compare_faithfully(text)
    for parse in (lambda: JsoncDocument.parse(text, JSONC), lambda: JsoncDocument.parse_bytes(text.encode(), JSONC)):
        with pytest.raises(MalformedConfigError, match="duplicate key"):
            parse()


@pytest.mark.parametrize(
    "text",
    ['{"\\u00e9": 1, /* c */ "e": 2}', '{"\u00e9": "\\u0041", /* c */ "\u00fc": 2}'],
    ids=["escapes only", "raw and an ASCII escape"],
)
def test_a_text_with_one_spelling_of_non_ascii_keeps_the_lanes(text: str) -> None:
    assert lane_blanking.scan_text_of_str(text, True) is not None
    assert lane_blanking.keys_compare_faithfully(text.encode()) and lane_blanking.keys_compare_faithfully(text)


def test_a_comma_after_no_member_is_never_taken_for_a_trailing_one() -> None:
    for text in ("[ /* c */ ,]", "{,}", '{"a": ,}', "[1,,]"):
        assert _lanes(text)[text.index(",")] == ","  # the comma stays for the C scanner to refuse
        with pytest.raises(MalformedConfigError):
            JsoncDocument.parse(text, JSONC)


def test_an_edit_drops_the_lane_text_and_the_next_edit_builds_its_own() -> None:
    text = "{\n" + "\n".join(f'  "k{i}": [1, /* c */ {i},], // n' for i in range(300)) + "\n}"
    doc = JsoncDocument.parse_bytes(text.encode(), JSONC)
    assert doc._scanner.lane_text is not None  # white box: parse_bytes built it from the bytes
    doc.set(("k150",), [1, 2])
    doc.insert(("k10",), 0, 0)
    doc.remove(("k299",))
    assert doc.get(("k150",)) == [1, 2] and doc.get(("k10",)) == [0, 1, 10]
    assert doc.value == oracle_loads(doc.text)
    assert not doc._scanner.prepared  # no exact blanking of the whole text was needed


def _mutated(rnd: random.Random, root: Any, seed: int) -> tuple[str, Dialect]:
    writer = Writer(rnd, comments=True, trailing_commas=rnd.random() < 0.5)
    text = writer.document(root, rnd.random() < 0.1)
    dialect = JSONC if writer.used_trailing else rnd.choice([JSONC, JSONC_NO_TRAILING_COMMAS])
    mutate = random.Random(seed)
    if mutate.random() < 0.7:
        pos = mutate.randrange(len(text) + 1)
        text = text[:pos] + mutate.choice(',:[]{}"/*\\ \n\t0x\u00e9') + text[pos:]
    return text, dialect


@PROFILE
@given(st.randoms(use_true_random=False), roots, st.integers(0, 2**32))
def test_parse_bytes_with_lanes_agrees_with_the_reference_scanner(rnd: random.Random, root: Any, seed: int) -> None:
    text, dialect = _mutated(rnd, root, seed)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return  # a lone surrogate: not a UTF-8 file
    note(repr(text))
    assert_agrees_with_reference(
        text, (dialect, STRICT_JSON, JSONC), lambda candidate: JsoncDocument.parse_bytes(data, candidate).value, "lanes"
    )


@pytest.mark.parametrize("text", ["[1, // c\n]", '{"a": 1, /* c */\n}', "[[1,],\r\n  ]"])
def test_a_trailing_comma_before_comments_keeps_the_lane_path(text: str) -> None:
    scanner = ValueScanner(text, JSONC)
    assert scanner.end(0) == len(text)
    assert scanner.lane_text is not None and not scanner.prepared


@pytest.mark.parametrize(("text", "value"), [("[1 ,]", [1]), ('{"a": 1 /* c */ ,}', {"a": 1})])
def test_a_trailing_comma_after_whitespace_or_a_comment_is_found_too(text: str, value: Any) -> None:
    assert lane_blanking.scan_text_of_str(text, True)[text.index(",")] == "\t"
    scanner = ValueScanner(text, JSONC)
    assert scanner.end(0) == len(text) and scanner.lane_text is not None and not scanner.prepared
    assert JsoncDocument.parse(text, JSONC).value == value
    with pytest.raises(MalformedConfigError, match="trailing comma"):
        JsoncDocument.parse(text, JSONC_NO_TRAILING_COMMAS)


def _stopping_at_the_comma(scan: Any) -> Any:
    """``scan`` made to report a trailing comma as the C scanner of Python 3.13 and later does: at the comma, with
    its own message (earlier versions stop at the bracket after it)."""

    def scan_at_comma(text: str, pos: int) -> Any:
        try:
            return scan(text, pos)
        except (StopIteration, json.JSONDecodeError) as exc:
            where = exc.value if isinstance(exc, StopIteration) else exc.pos
            back = len(text[:where].rstrip(" \t\r\n"))
            if text.startswith(("]", "}"), where) and text[back - 1 : back] == ",":
                raise json.JSONDecodeError("Illegal trailing comma before end of array", text, back - 1) from None
            raise

    return scan_at_comma


@pytest.mark.parametrize(
    ("text", "value"),
    [("[1 ,]", [1]), ("[1, // c\n]", [1]), ('{"a": 1, /* c */\n}', {"a": 1}), ("[[1,],\r\n  ]", [[1]])],
)
def test_a_trailing_comma_reported_at_the_comma_takes_the_same_paths(
    monkeypatch: pytest.MonkeyPatch, text: str, value: Any
) -> None:
    for name in ("_VALIDATING", "_VALIDATING_WITH_DUPLICATES", "_SKIPPING", "_BUILDING"):
        monkeypatch.setattr(fast_scan, name, _stopping_at_the_comma(getattr(fast_scan, name)))
    scanner = ValueScanner(text, JSONC)
    assert scanner.end(0) == len(text) and scanner.lane_text is not None and not scanner.prepared
    monkeypatch.setattr(fast_scan, "scan_text_of_str", lambda text, commas: None)  # the exact blanking's remedies
    exact = ValueScanner(text, JSONC)
    assert exact.value(0) == (value, len(text)) and exact.prepared
    assert JsoncDocument.parse(text, JSONC).value == value


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_short_chunks_with_line_breaks_non_ascii_and_an_opener_in_a_string(
    monkeypatch: pytest.MonkeyPatch, newline: str
) -> None:
    monkeypatch.setattr(lane_blanking, "_CHUNK", 48)
    lines = [f'  /* \u00e9{i} "\u65e5" */ "k\u00fc{i}": ["\U0001f600", {i},], // caf\u00e9 /* {i}' for i in range(60)]
    text = "{" + newline + newline.join(lines) + newline + '  "end": "\u00e9/*",' + newline + "}"
    plain = text.replace('"\u00e9/*"', '"\u00e9"')
    lanes = _lanes(plain)
    expected = _expected_lanes(plain)
    # from bytes and from str (a chunk of the text's UTF-8 ends where one of the text may not), one lane per code
    # point in every chunk, as the exact blanking gives, but for the whitespace between two comments a chunk's end
    # separates
    for found in (lanes, lane_blanking.scan_text_of_str(plain, True)):
        assert found is not None and len(found) == len(plain)
        triples = zip(found, expected, plain, strict=True)
        assert all(x == y or (y == "\t" and x == z in _WHITESPACE) for x, y, z in triples)
    doc = JsoncDocument.parse_bytes(plain.encode(), JSONC)
    assert doc._scanner.lane_text == lanes  # white box: the lanes were accepted throughout
    assert doc.value == oracle_loads(plain)
    doc = JsoncDocument.parse_bytes(text.encode(), JSONC)  # a "/*" in the last string, next to a comment:
    assert doc._scanner.lane_text is None  # white box: ... the C scanner refused the lanes, exact blanking
    assert doc.value == oracle_loads(text)
