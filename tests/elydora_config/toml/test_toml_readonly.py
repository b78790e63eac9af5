"""Read-only TOML documents answer as the editor does: the same data, the same reads by path (defaults and
``MissingPathError`` included), the same errors; the editor is built only when something needs it."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elydora_config.errors import MalformedConfigError
from elydora_config.toml import MissingPathError, TomlDocument
from elydora_config.toml.readonly import ReadOnlyToml

OURS = '[[hooks]]\nevent = "PreToolUse"\ncommand = "x"\ntimeout = 10\n[features]\nhooks = true\n'
PATHS = [
    (), ("hooks",), ("hooks", 0), ("hooks", -1, "event"), ("hooks", 1), ("hooks", "x"), ("features", "hooks"),
    ("features", "hooks", "deeper"), ("absent",), ("absent", "more"), ("hooks", True), ("a",), ("a", 0),
]  # fmt: skip
LINES = st.sampled_from(
    ["a = 1", "a = 2", "b = 'x'", '[t]', "[[hooks]]", 'event = "E"', "x = true", "# c", "", "a = [1, 2]",
     "a = { b = 1 }", 'c = "esc\\"aped"', "[t.u]", "\ufeffz = 1", "d = 1.5"]
)  # fmt: skip


def _outcome(read: Any) -> tuple[str, Any]:
    try:
        return "value", read()
    except (MissingPathError, TypeError) as exc:
        return type(exc).__name__, exc.args


def _reads(doc: Any) -> list[Any]:
    found: list[Any] = [doc.text, doc.value]
    for path in PATHS:
        found += [_outcome(lambda p=path: doc.get(p)), doc.get(path, "default"), doc.has(path)]
    found.append(_outcome(lambda: doc.get("hooks")))  # a string is no path
    return found


@settings(max_examples=300, deadline=None)
@given(st.lists(LINES, max_size=6).map("\n".join))
def test_reads_and_errors_are_the_editors(text: str) -> None:
    try:
        editor = TomlDocument.parse(text, path="c.toml")
    except MalformedConfigError as exc:
        with pytest.raises(MalformedConfigError) as read_only:
            ReadOnlyToml.parse(text, "c.toml")
        assert read_only.value.message == exc.message
        return
    assert _reads(ReadOnlyToml.parse(text, "c.toml")) == _reads(editor)


def test_the_plain_subset_is_read_without_the_editor_until_an_edit() -> None:
    doc = ReadOnlyToml.parse(OURS, "c.toml")
    assert doc._editor is None and doc.get(("hooks", 0, "timeout")) == 10
    doc.get(("hooks",))[0]["timeout"] = 99  # a copy: the document is not changed through it
    assert doc.value["hooks"][0]["timeout"] == 10
    doc.set(("features", "hooks"), False)  # anything else builds the editor, which answers from then on
    assert isinstance(doc._editor, TomlDocument) and doc.get(("features", "hooks")) is False
    assert doc.text == OURS.replace("hooks = true", "hooks = false")


def test_a_text_outside_the_subset_is_the_editors_at_once() -> None:
    doc = ReadOnlyToml.parse("a = [1, 2]\n", "c.toml")
    assert isinstance(doc._editor, TomlDocument) and doc.get(("a", -1)) == 2


def test_reading_loads_no_editor_module() -> None:
    code = (
        "import sys\n"
        "from elydora_config.toml.readonly import ReadOnlyToml\n"
        f"ReadOnlyToml.parse({OURS!r}).get(('hooks', 0))\n"
        "print(sorted({'elydora_config.toml.document', 'elydora_config.toml.values', 'tomllib', 'math'}"
        " & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-I", "-S", "-c", f"import sys; sys.path[:0] = {sys.path!r}\n" + code],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert out.strip() == "[]"
