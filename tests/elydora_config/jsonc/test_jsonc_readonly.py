"""Read-only JSON documents answer as the JSONC editor would: the same data, the same missing paths, and
every text the fast decoder does not take is left to the editor (which reports the error). Importing them
loads none of the editor's modules."""

from __future__ import annotations

import importlib
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from jsonc_testkit import TRICKY_STRINGS, Writer

from elydora_config import jsonc
from elydora_config.errors import MalformedConfigError
from elydora_config.jsonc import JSONC, JSONC_NO_TRAILING_COMMAS, STRICT_JSON, JsoncDocument
from elydora_config.jsonc.readonly import ReadOnlyJson, _without_comment_lines, loads_strict, lookup

HEADER = "// Managed by Elydora\n"
SETTINGS = '{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "x"}]}]}, "n": 1.5}'


@pytest.mark.parametrize(
    "text",
    [
        SETTINGS,
        HEADER + SETTINGS,
        "  // indented\r\n" + SETTINGS + "\n// last line\n",
        '{"url": "http://example.com//path", "a": [true, null, -0.0, 1e5]}',
    ],
)
def test_plain_texts_decode_to_the_editors_data(text: str) -> None:
    assert loads_strict(text, comments=True) == JsoncDocument.parse(text, JSONC).value


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',  # duplicate key: the editor reports it
        '{"a": NaN}',
        '{"a": Infinity}',
        '{"a": "tab\tinside"}',
        '{"a": 1,}',  # trailing comma (allowed by JSONC: the editor decides)
        '{"a": 1 /* block */}',
        '{"a": 1} // after a value',
        '{"a": "/*"}\n// comment',  # a block comment may be anywhere: not guessed
        "\ufeff{}",
        "[1, 2]",  # not an object
        "",
    ],
)
def test_anything_else_is_left_to_the_editor(text: str) -> None:
    assert loads_strict(text, comments=True) is None


PIECES = ["/", "//", " ", "\t", "\n", "\r", "\r\n", "a", "{}", '"', "*", "\x0c", "\u2028"]


@settings(max_examples=300)  # short texts: more of them than the profile gives, for the rarer line breaks
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
@example("// a\rb")
@example("x\r \t// c\r\n{}")
@example("a// b\n//c")
@example("\u2028// x")
def test_only_whole_line_comments_are_skipped(text: str) -> None:
    """As a regular expression says it: at a line's start (after ``\\n``, ``\\r`` or at offset 0), blanks
    and ``//`` up to the next line break; the line break stays."""
    expected = None if "/*" in text else re.sub(r"(?<![^\r\n])[ \t]*//[^\r\n]*", "", text)
    assert _without_comment_lines(text) == expected


def test_comments_count_only_where_the_dialect_allows_them() -> None:
    assert loads_strict(HEADER + "{}", comments=False) is None
    with pytest.raises(MalformedConfigError):
        ReadOnlyJson.parse(HEADER + "{}", STRICT_JSON, Path("settings.json"))
    assert ReadOnlyJson.parse(HEADER + "{}", JSONC_NO_TRAILING_COMMAS)._editor is None


@pytest.mark.parametrize("text", ['{"a": 1, "a": 2}', '{"a": NaN}', "// c\n{\"a\": 1,,}", '{"a": 1 /* x */'])
def test_read_only_parse_reports_what_the_editor_reports(text: str) -> None:
    path = Path("settings.json")
    with pytest.raises(MalformedConfigError) as editor:
        JsoncDocument.parse(text, JSONC, path=path)
    with pytest.raises(MalformedConfigError) as read_only:
        ReadOnlyJson.parse(text, JSONC, path)
    assert read_only.value.message == editor.value.message


def test_a_text_only_the_editor_takes_is_read_by_the_editor() -> None:
    text = '{"a": [1, 2,], /* kept */ "b": {}}'
    doc = ReadOnlyJson.parse(text, JSONC)
    assert doc._editor is not None and doc.value == {"a": [1, 2], "b": {}} and doc.get(["a", -1]) == 2
    assert doc.has(["b"]) and not doc.has(["c"]) and doc.text == text


PATHS: list[tuple[Any, ...]] = [
    (),
    ("hooks",),
    ("hooks", "PreToolUse", 0, "hooks", -1, "command"),
    ("hooks", "PreToolUse", 5),
    ("hooks", "PreToolUse", -2),
    ("hooks", "PreToolUse", "0"),
    ("hooks", "PreToolUse", True),
    ("n", "deeper"),
    ("n", "deeper", "still"),
    ("missing", "x"),
    (0,),
]


@pytest.mark.parametrize("path", PATHS, ids=repr)
def test_reads_answer_as_the_editor_does(path: tuple[Any, ...]) -> None:
    text = HEADER + SETTINGS
    editor = JsoncDocument.parse(text, JSONC)
    doc = ReadOnlyJson.parse(text, JSONC, Path("s.json"))
    assert doc._editor is None  # the fast path was taken
    assert doc.has(path) == editor.has(path)
    assert doc.get(path, "absent") == editor.get(path, "absent")
    try:
        expected: Any = editor.get(path)
    except KeyError as exc:
        with pytest.raises(KeyError) as found:
            doc.get(path)
        assert found.value.args == exc.args
    else:
        assert doc.get(path) == expected
    assert doc.text == text and doc._editor is None  # no read loaded the editor


def test_values_read_are_copies_and_anything_else_goes_to_the_editor() -> None:
    doc = ReadOnlyJson.parse(SETTINGS, STRICT_JSON)
    doc.get(["hooks"])["PreToolUse"].clear()
    doc.value["n"] = 3
    assert doc.get(["hooks", "PreToolUse", 0, "matcher"]) == "*" and doc.get(["n"]) == 1.5
    assert doc.span(["n"]) == JsoncDocument.parse(SETTINGS, STRICT_JSON).span(["n"])  # the editor, built now
    doc.set(["n"], 2)
    assert doc.value["n"] == 2 and doc.get(["n"]) == 2 and '"n": 2' in doc.text
    with pytest.raises(AttributeError):
        doc._private  # noqa: B018  (no private name reaches the editor)


# -- lookup is the editor's path rule, over plain data ------------------------------------------------------

keys = st.text(max_size=4) | st.sampled_from(TRICKY_STRINGS[:4])
scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False, allow_infinity=False) | keys
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4), max_leaves=12
)
containers = st.dictionaries(keys, values, max_size=5) | st.lists(values, max_size=5)


@st.composite
def paths_into(draw: st.DrawFn, root: Any) -> tuple[Any, ...]:
    """A path that mostly follows ``root``'s members (negative indexes too) and strays: a missing key, an index
    out of range, a key for a list or an index for an object, a bool, a member of a scalar, parts beyond."""
    path: list[Any] = []
    node: Any = root
    for _ in range(draw(st.integers(0, 5))):
        stray = st.text(max_size=2) | st.integers(-6, 6) | st.booleans()
        if isinstance(node, dict) and node and draw(st.booleans()):
            element: Any = draw(st.sampled_from(sorted(node)))
            node = node[element]
        elif isinstance(node, list) and node and draw(st.booleans()):
            element = draw(st.integers(-len(node), len(node) - 1))
            node = node[element]
        else:
            element, node = draw(stray), None
        path.append(element)
    return tuple(path)


@given(st.data(), containers, st.randoms(use_true_random=False))
def test_lookup_answers_as_the_editors_get_and_has(data: st.DataObject, root: Any, rnd: random.Random) -> None:
    text = Writer(rnd, comments=True, trailing_commas=True).document(root, False)
    editor = JsoncDocument.parse(text, JSONC)
    plain = json.dumps(root, indent=rnd.choice([None, 2]))
    doc = ReadOnlyJson.parse(plain, STRICT_JSON) if isinstance(root, dict) else None  # the loader takes objects
    for _ in range(8):
        path = data.draw(paths_into(root))
        assert editor.has(path) == _has(root, path)
        try:
            expected = editor.get(path)
        except KeyError as exc:
            with pytest.raises(KeyError) as found:
                lookup(root, path)
            assert found.value.args == exc.args
            if doc is not None:
                with pytest.raises(KeyError) as found:
                    doc.get(path)
                assert found.value.args == exc.args and not doc.has(path)
        else:
            assert json.dumps(lookup(root, path)) == json.dumps(expected)  # ints stay ints, floats floats
            if doc is not None:
                assert json.dumps(doc.get(path)) == json.dumps(expected) and doc.has(path)
    assert doc is None or doc._editor is None  # every read answered without the editor


def _has(data: Any, path: tuple[Any, ...]) -> bool:
    try:
        lookup(data, path)
    except KeyError:
        return False
    return True


@pytest.mark.parametrize(
    ("path", "missing"),
    [(("l", -4), ("l", -4)), (("l", 3), ("l", 3)), (("l", False), ("l", False)), (("l", "0"), ("l", "0")),
     (("l", 1, "x"), ("l", 1)), (("l", 1, "x", 0), ("l", 1)), (("m", 0), ("m",)), ((0,), (0,))],
)
def test_lookup_names_the_path_up_to_its_first_missing_part(path: tuple[Any, ...], missing: tuple[Any, ...]) -> None:
    data = {"l": [[1], 2, 3]}
    with pytest.raises(KeyError) as found:
        lookup(data, path)
    assert found.value.args == (missing,)
    assert lookup(data, ("l", -3, -1)) == 1 and lookup(data, ()) is data and lookup(data, ["l", 2]) == 3


def test_a_scalar_top_level_value_has_no_members() -> None:
    with pytest.raises(KeyError) as editor:
        JsoncDocument.parse("1", JSONC).get(("x", "y"))
    with pytest.raises(KeyError) as data:
        lookup(1, ("x", "y"))
    assert data.value.args == editor.value.args == ((),)


# -- imports ------------------------------------------------------------------------------------------------


def _loaded_by(statement: str) -> set[str]:
    code = f"import json, sys; {statement}; print(json.dumps(sorted(sys.modules)))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return {name for name in json.loads(run.stdout) if name.startswith("elydora_config.jsonc.")}


EDITOR_MODULES = {
    f"elydora_config.jsonc.{file.stem}"
    for file in Path(jsonc.__file__).parent.glob("*.py")
    if file.stem not in ("__init__", "readonly", "refusals", "dialect")  # the dialects are data, not the editor
}


def test_the_loader_loads_none_of_the_editors_modules() -> None:
    assert "elydora_config.jsonc.document" in EDITOR_MODULES and len(EDITOR_MODULES) >= 10
    loaded = _loaded_by("from elydora_config.jsonc.readonly import ReadOnlyJson, loads_strict; loads_strict('{}')")
    assert loaded == {"elydora_config.jsonc.readonly", "elydora_config.jsonc.refusals"}
    read = "from elydora_config.jsonc import JSONC; from elydora_config.jsonc.readonly import ReadOnlyJson"
    loaded = _loaded_by(f"{read}; assert ReadOnlyJson.parse('// c\\n{{}}', JSONC).get(()) == {{}}")
    assert "elydora_config.jsonc.dialect" in loaded and loaded & EDITOR_MODULES == set()
    assert _loaded_by("import elydora_config.jsonc") == set()
    assert "elydora_config.jsonc.document" in _loaded_by("from elydora_config.jsonc import JsoncDocument")


def test_the_package_exports_its_names_on_first_use() -> None:
    for name in jsonc.__all__:
        home = importlib.import_module(jsonc._HOMES[name])
        assert getattr(jsonc, name) is getattr(home, name)
    assert set(jsonc.__all__) <= set(dir(jsonc))
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        jsonc.Nothing  # noqa: B018
