"""The scanning machinery: comment blanking, the C-scanner remedies, bulk validation of wide containers."""

from __future__ import annotations

import json
import random

import pytest
from jsonc_testkit import oracle_loads

from elydora_config.errors import MalformedConfigError
from elydora_config.jsonc import JSONC, JSONC_NO_TRAILING_COMMAS, STRICT_JSON, JsoncDocument
from elydora_config.jsonc._blanking import blank, comment_spans, trailing_comma_candidates
from elydora_config.jsonc._diagnostics import line_and_column
from elydora_config.jsonc._fast_scan import ValueScanner
from elydora_config.jsonc._reference_scanner import ReferenceScanner


@pytest.fixture
def exact_blanking(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lane scan text gives up, so the exact string-aware blanking (the fallback) does the work."""
    monkeypatch.setattr("elydora_config.jsonc._fast_scan.scan_text_of_str", lambda text, commas: None)


def test_comment_spans_skip_strings_that_look_like_comments() -> None:
    text = '{"u": "http://x//y", "c": "/* no */", /* yes */ "d": 1 // tail "quoted\n}'
    spans = comment_spans(text)
    assert [text[a:b] for a, b in spans] == ["/* yes */", '// tail "quoted']
    blanked = blank(text, spans, [])
    assert len(blanked) == len(text)
    assert json.loads(blanked) == {"u": "http://x//y", "c": "/* no */", "d": 1}


def test_comment_spans_handle_escaped_quotes_and_multi_line_block_comments() -> None:
    text = '["a\\"//b", /* one\n two " */ 1, "\\\\" // end\n]'
    spans = comment_spans(text)
    assert [text[a:b] for a, b in spans] == ['/* one\n two " */', "// end"]
    assert blank(text, spans, []).count("\n") == text.count("\n")  # line breaks are kept


@pytest.mark.usefixtures("exact_blanking")
def test_trailing_comma_candidates_skip_comments() -> None:
    text = "[[1, /* x, ] */ 2,\n], 3, // y, ]\n]"
    spans = comment_spans(text)
    assert trailing_comma_candidates(text, spans) == [text.index("2,") + 1]
    scanner = ValueScanner(text, JSONC)
    assert scanner.value(0)[0] == [[1, 2], 3]  # the comma before "// y" is found from the scanner's error
    assert scanner.commas_tabbed == {text.index("2,") + 1, text.index("3,") + 1}


def test_a_long_run_of_whitespace_after_a_comma_is_quick() -> None:
    import time

    text = "[1," + " " * 200_000 + "2]"
    started = time.perf_counter()
    assert JsoncDocument.parse(text, JSONC).value == [1, 2]
    assert trailing_comma_candidates(text, []) == []
    assert time.perf_counter() - started < 10.0  # quadratic scanning would take hours; not a speed figure


def test_unterminated_block_comment_is_left_for_the_scanners() -> None:
    assert comment_spans("[1, /* open") == []
    with pytest.raises(MalformedConfigError, match="unterminated block comment"):
        JsoncDocument.parse("[1, /* open", JSONC)


@pytest.mark.parametrize(
    ("text", "pos", "expected"),
    [
        ("abc", 2, (1, 3)),
        ("a\nb", 2, (2, 1)),
        ("a\r\nb", 3, (2, 1)),
        ("a\rb", 2, (2, 1)),
        ("a\r\nb", 2, (1, 3)),
        ("\ufeff{x", 2, (1, 2)),
    ],
)
def test_line_and_column(text: str, pos: int, expected: tuple[int, int]) -> None:
    assert line_and_column(text, pos) == expected


def _deep_jsonc(with_trailing: bool) -> str:
    """A document whose comments and trailing commas sit deep inside big members (below the walked levels)."""
    items = []
    for i in range(300):
        trailing = "," if with_trailing and i % 7 == 0 else ""
        items.append(f'{{"id": {i}, "tags": ["a,]", "b"{trailing}], /* c{i} */ "n": {{"x": [{i}{trailing}]}} }}')
    lines = []
    for i, item in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        lines.append(f"        {item}{comma}" + (f" // item {i}" if i % 5 == 0 else ""))
    return '{\n  "top": {\n    "list": [\n' + "\n".join(lines) + "\n    ]\n  }\n}\n"


@pytest.mark.usefixtures("exact_blanking")
def test_comments_deep_inside_values_are_blanked_for_the_c_scanner() -> None:
    text = _deep_jsonc(with_trailing=False)
    doc = JsoncDocument.parse(text, JSONC_NO_TRAILING_COMMAS)
    assert doc.value == oracle_loads(text)
    assert doc.get(("top", "list", 299, "n", "x", 0)) == 299
    scanner = ValueScanner(text, JSONC_NO_TRAILING_COMMAS)
    assert scanner.end(text.index("[")) == text.rindex("]") + 1
    assert scanner.prepared and not scanner.commas_tabbed


def test_trailing_commas_deep_inside_values_and_look_alikes_in_strings() -> None:
    text = _deep_jsonc(with_trailing=True)
    doc = JsoncDocument.parse(text, JSONC)
    assert doc.value == oracle_loads(text)
    assert doc.get(("top", "list", 0, "tags")) == ["a,]", "b"]
    scanner = ValueScanner(text, JSONC)
    assert scanner.end(text.index("[")) == text.rindex("]") + 1
    assert scanner.prepared and len(scanner.commas_tabbed) == 2 * len(range(0, 300, 7))
    assert scanner.scan_text.count('"a,]"') == 300  # the look-alikes inside strings were restored
    with pytest.raises(MalformedConfigError, match="a trailing comma is not allowed"):
        JsoncDocument.parse(text, JSONC_NO_TRAILING_COMMAS)


def test_value_scanner_restores_a_comma_it_wrongly_took_for_a_trailing_one() -> None:
    text = '[["x,]", 1,], "y,}"]'
    scanner = ValueScanner(text, JSONC)
    assert scanner.end(0) == len(text)
    assert scanner.value(0)[0] == [["x,]", 1], "y,}"]
    assert "," in scanner.scan_text[3:6]


def test_wide_array_is_validated_in_bulk_and_still_editable() -> None:
    values = list(range(5000))
    text = json.dumps(values)
    doc = JsoncDocument.parse(text, STRICT_JSON)
    assert doc.value == values
    assert not doc._root.complete  # type: ignore[union-attr]  # white box: the bulk path was taken
    doc.insert((), -1, 5000)
    doc.remove((0,))
    doc.set((2500,), "mid")
    expected = [*range(1, 2501), "mid", *range(2502, 5001)]
    assert doc.value == expected and json.loads(doc.text) == expected
    assert doc.text.startswith("[1, 2, ") and doc.text.endswith("4999, 5000]")


def test_wide_object_duplicate_keys_are_found_across_and_after_the_bulk_boundary() -> None:
    keys = [f"k{i}" for i in range(200)]
    for repeat, original in ((150, 3), (180, 120)):
        names = [keys[original] if i == repeat else k for i, k in enumerate(keys)]
        text = "{\n" + ",\n".join(f'  "{k}": {i}' for i, k in enumerate(names)) + "\n}"
        with pytest.raises(MalformedConfigError) as caught:
            JsoncDocument.parse(text, STRICT_JSON)
        assert (caught.value.line, caught.value.column) == (repeat + 2, 3)
        assert caught.value.reason == f"duplicate key '{keys[original]}'"


def test_errors_inside_a_bulk_validated_remainder_are_reported_precisely() -> None:
    items = [json.dumps({"i": i}) for i in range(400)]
    items[333] = '{"i": tru}'
    text = "[\n" + ",\n".join(items) + "\n]"
    with pytest.raises(MalformedConfigError) as caught:
        JsoncDocument.parse(text, STRICT_JSON)
    with pytest.raises(MalformedConfigError) as reference:
        ReferenceScanner(text, STRICT_JSON).document()
    assert (caught.value.line, caught.value.column, caught.value.reason) == (
        reference.value.line,
        reference.value.column,
        reference.value.reason,
    )
    assert caught.value.line == 335


def test_wide_object_member_beyond_the_bulk_boundary_can_be_edited() -> None:
    text = json.dumps({f"k{i}": i for i in range(300)}, indent=2)
    doc = JsoncDocument.parse(text, STRICT_JSON)
    assert not doc._root.complete  # type: ignore[union-attr]  # white box: the bulk path was taken
    doc.set(("k250",), {"x": 1})
    doc.remove(("k299",))
    doc.set(("new",), True)
    expected = {f"k{i}": i for i in range(299)}
    expected["k250"] = {"x": 1}  # type: ignore[assignment]
    expected["new"] = True  # type: ignore[assignment]
    assert json.loads(doc.text) == expected
    assert doc.text.endswith('  "k298": 298,\n  "new": true\n}')


def test_a_huge_integer_is_refused_by_both_scanners_alike() -> None:
    text = "[" + "9" * 5000 + "]"
    with pytest.raises(MalformedConfigError, match="too many digits"):
        JsoncDocument.parse(text, STRICT_JSON)


def test_an_unterminated_block_comment_is_reported() -> None:
    with pytest.raises(MalformedConfigError, match="unterminated block comment"):
        JsoncDocument.parse("[1, // x\n 2 /* open\n", JSONC)


def test_splice_text_replaces_exactly_the_spans_even_when_their_text_repeats() -> None:
    from elydora_config.jsonc._lexical import splice_text

    text = '{"a": 1, "a2": 1, "b": [1, 1, 1]}' * 3
    spans = [(len(text) - 3, len(text) - 2, "9"), (len(text) - 2, len(text) - 2, ", 7")]
    expected = text[: len(text) - 3] + "9" + ", 7" + text[len(text) - 2 :]
    assert splice_text(text, spans) == expected
    assert splice_text("x" * 100_000, [(99_000, 99_001, "y")]) == "x" * 99_000 + "y" + "x" * 999


@pytest.mark.usefixtures("exact_blanking")
def test_an_edit_keeps_the_blanked_scan_text_in_step_with_the_new_text() -> None:
    text = "{\n" + "\n".join(f'  "k{i}": [1, /* c */ {i},], // n' for i in range(300)) + "\n}"
    doc = JsoncDocument.parse(text, JSONC)
    doc.set(("k150",), [1, 2])
    doc.insert(("k10",), 0, 0)
    doc.remove(("k299",))
    assert doc.get(("k150",)) == [1, 2] and doc.get(("k10",)) == [0, 1, 10]
    assert doc.value == oracle_loads(doc.text)
    carried = doc._scanner  # white box: the scanner the edits handed on
    fresh = ValueScanner(doc.text, JSONC)
    assert fresh.end(0) == len(doc.text) and fresh.prepared and carried.prepared
    assert carried.scan_text == fresh.scan_text and carried.commas_tabbed == fresh.commas_tabbed


def test_to_bytes_of_a_wide_text_is_its_utf8() -> None:
    value = {"k": ["\u65e5\u672c caf\u00e9 \U0001f600" * 10] * 2000}
    doc = JsoncDocument.parse(json.dumps(value, ensure_ascii=False), STRICT_JSON)
    assert doc.to_bytes() == doc.text.encode("utf-8")


def test_a_big_text_with_block_comments_across_lines_is_read_and_edited() -> None:
    rnd = random.Random(7)
    lines = []
    for i in range(30_000):
        if rnd.random() < 0.3:
            lines.append(f'  "k{i}": [1, /* multi\n line {i} "q" */ 2,], // c')
        else:
            lines.append(f'  "k{i}": "a//b", // c{i} /*')
    text = "{\n" + "\n".join(lines) + '\n  "end": 0\n}'
    doc = JsoncDocument.parse(text, JSONC)
    assert doc.value == oracle_loads(text)
    doc.set(("k29999",), "edited")
    assert doc.get(("k29999",)) == "edited"
