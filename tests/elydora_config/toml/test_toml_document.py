"""TomlDocument's API, one behaviour at a time, with the exact text each edit must produce
(these are the before/after examples of docs/editors.md, section TOML)."""

from __future__ import annotations

import datetime as dt
import sys
from typing import Any

import pytest

from elydora_config.errors import MalformedConfigError
from elydora_config.toml import TomlDocument

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]


def edited(before: str, *edits: tuple[str, tuple[Any, ...], Any]) -> str:
    doc = TomlDocument.parse(before)
    for verb, path, arg in edits:
        if verb == "insert":
            index, value = arg
            doc.insert(path, index, value)
        elif verb == "remove":
            doc.remove(path)
        else:
            getattr(doc, verb)(path, arg)
        assert doc._last_engine in ("span", None), (verb, path)
        assert tomllib.loads(doc.text) == doc.value
    return doc.text


# -- reading ---------------------------------------------------------------------------------------


def test_value_get_and_has() -> None:
    doc = TomlDocument.parse('a = 1\n[t]\nlist = [1, {x = "y"}]\n')
    assert doc.value == {"a": 1, "t": {"list": [1, {"x": "y"}]}}
    assert doc.get(("t", "list", -1, "x")) == "y"
    assert doc.get(("missing",), None) is None
    assert doc.has(("t", "list", 1)) and not doc.has(("t", "list", 2)) and not doc.has(("a", "b"))
    with pytest.raises(KeyError):
        doc.get(("t", "nope"))
    with pytest.raises(IndexError):
        doc.get(("t", "list", 5))
    with pytest.raises(KeyError):
        doc.get(("t", 0))
    assert doc.get(("a", "under a scalar"), "default") == "default"
    with pytest.raises(TypeError):
        doc.get("t")


def test_value_and_get_are_copies() -> None:
    doc = TomlDocument.parse("[t]\nlist = [1]\n")
    doc.value["t"]["list"].append(2)
    doc.get(("t",))["new"] = 1
    assert doc.value == {"t": {"list": [1]}}


def test_parse_error_has_line_and_column_and_path() -> None:
    with pytest.raises(MalformedConfigError) as caught:
        TomlDocument.parse("a = 1\nb = = 2\n", path="/home/u/.kimi/config.toml")
    error = caught.value
    assert (error.line, error.column) == (2, 5)
    assert error.path == "/home/u/.kimi/config.toml"
    assert str(error).startswith("/home/u/.kimi/config.toml:2:5: invalid TOML")


def test_parse_error_at_end_of_document_is_located() -> None:
    with pytest.raises(MalformedConfigError) as caught:
        TomlDocument.parse('a = "unterminated\n')
    assert caught.value.line >= 1 and caught.value.column >= 1


def test_bytes_must_be_utf8() -> None:
    with pytest.raises(MalformedConfigError) as caught:
        TomlDocument.parse(b'a = 1\nb = "\xff"\n')
    assert (caught.value.line, caught.value.column) == (2, 6)


def test_bom_and_crlf_are_kept() -> None:
    text = '\ufeffa = 1\r\n[t]\r\nb = "x"\r\n'
    doc = TomlDocument.parse(text.encode("utf-8"))
    assert doc.text == text and doc.newline == "\r\n"
    doc.set(("t", "c"), 2)
    assert doc.text == '\ufeffa = 1\r\n[t]\r\nb = "x"\r\nc = 2\r\n'


# -- set ---------------------------------------------------------------------------------------------


def test_set_replaces_only_the_value_and_keeps_the_comment_and_quote_style() -> None:
    before = "timeout = 30 # keep\nname = 'lit'\n"
    after = edited(before, ("set", ("timeout",), 10), ("set", ("name",), "new"))
    assert after == "timeout = 10 # keep\nname = 'new'\n"


def test_set_to_the_same_value_changes_nothing() -> None:
    doc = TomlDocument.parse("n = 0x10\n")
    doc.set(("n",), 16)
    assert doc.text == "n = 0x10\n" and doc._last_engine is None


def test_set_new_key_goes_after_the_last_key_of_its_table() -> None:
    before = '[server]\nhost = "a"\n# port = 80\n\n# about client\n[client]\nx = 1\n'
    after = edited(before, ("set", ("server", "port"), 8080))
    assert after == '[server]\nhost = "a"\nport = 8080\n# port = 80\n\n# about client\n[client]\nx = 1\n'


def test_set_new_root_key_stays_before_the_first_table() -> None:
    # a blank line between the file's comment and the first key, else the comment would be the key's own
    assert edited("# my config\n\n[a]\nx = 1\n", ("set", ("title",), "T")) == (
        '# my config\n\ntitle = "T"\n\n[a]\nx = 1\n'
    )
    # a comment directly above a header belongs to the header, so the key goes above it
    assert edited("# about a\n[a]\n", ("set", ("k",), 1)) == "k = 1\n# about a\n[a]\n"


def test_set_follows_the_tables_indentation_and_equals_style() -> None:
    assert edited("[a]\n  x=1\n", ("set", ("a", "y"), 2)) == "[a]\n  x=1\n  y=2\n"


def test_set_creates_missing_tables_as_a_header_block() -> None:
    assert edited("x = 1\n", ("set", ("tool", "kimi", "timeout"), 5)) == "x = 1\n\n[tool.kimi]\ntimeout = 5\n"


def test_set_under_a_dotted_table_adds_a_dotted_key() -> None:
    before = 'site.name = "x"\nother = 1\n'
    assert edited(before, ("set", ("site", "url"), "u")) == 'site.name = "x"\nsite.url = "u"\nother = 1\n'


def test_set_inside_inline_values() -> None:
    before = "point = { x = 1 }\nlist = [\n  1,\n  2,\n]\n"
    after = edited(before, ("set", ("point", "y"), 2), ("set", ("list", 1), 20))
    assert after == "point = { x = 1, y = 2 }\nlist = [\n  1,\n  20,\n]\n"


def test_set_replaces_an_array_of_tables_entry_in_place() -> None:
    before = "[[h]]\na = 1\n\n[[h]]\na = 2\n\n[[h]]\na = 3\n"
    assert edited(before, ("set", ("h", 1), {"b": 5})) == "[[h]]\na = 1\n\n[[h]]\nb = 5\n\n[[h]]\na = 3\n"


def test_set_replacing_a_whole_table_uses_tomlkit_and_is_verified() -> None:
    doc = TomlDocument.parse("[a]\nx = 1\n\n[b]\ny = 2\n")
    doc.set(("a",), {"z": 3})
    assert doc._last_engine == "tomlkit"
    assert tomllib.loads(doc.text) == {"a": {"z": 3}, "b": {"y": 2}}


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ('tab\there "q" \\ é \x01', '"tab\\there \\"q\\" \\\\ é \\u0001"'),
        (1.5, "1.5"),
        (float("inf"), "inf"),
        (-0.0, "-0.0"),
        (True, "true"),
        ((1, "a"), '[1, "a"]'),
        ({"k": [], "a b": {}}, '{ k = [], "a b" = {} }'),
        (dt.date(2024, 1, 2), "2024-01-02"),
        (dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=2))), "2024-01-02T03:04:05+02:00"),
        (dt.time(3, 4, 5, 6), "03:04:05.000006"),
    ],
)
def test_values_are_written_as_toml_that_reads_back_the_same(value: Any, text: str) -> None:
    doc = TomlDocument.parse("x = 0\n")
    doc.set(("x",), value)
    assert doc.text == f"x = {text}\n"


@pytest.mark.parametrize(
    ("value", "error"),
    [(None, TypeError), (2**63, ValueError), ({1: 2}, TypeError), (object(), TypeError),
     (dt.time(1, tzinfo=dt.timezone.utc), ValueError), ("\ud800", ValueError)],
)  # fmt: skip
def test_values_toml_cannot_hold_are_refused(value: Any, error: type[Exception]) -> None:
    doc = TomlDocument.parse("x = 0\n")
    with pytest.raises(error):
        doc.set(("x",), value)
    assert doc.text == "x = 0\n"


def test_set_path_errors() -> None:
    doc = TomlDocument.parse("a = [1]\ns = 'x'\n")
    with pytest.raises(IndexError):
        doc.set(("a", 1), 2)  # use insert to grow an array
    with pytest.raises(KeyError):
        doc.set(("s", "k"), 1)
    with pytest.raises(ValueError):
        doc.set((), {})


# -- remove ---------------------------------------------------------------------------------------------


def test_remove_key_takes_its_lines_and_the_comment_lines_right_above() -> None:
    before = "# about a\na = 1 # one\nb = [\n  1,\n]\nc = 3\n"
    assert edited(before, ("remove", ("a",), None), ("remove", ("b",), None)) == "c = 3\n"
    # a blank line between: the comment is not the key's
    assert edited("# file\n\na = 1\nc = 3\n", ("remove", ("a",), None)) == "# file\n\nc = 3\n"


def test_remove_array_of_tables_entry_takes_header_body_comments_and_separation() -> None:
    before = (
        'top = 1\n\n# first\n[[hooks]]\nevent = "A"\n\n# second\n[[hooks]]\nevent = "B"\n\n[[hooks]]\nevent = "C"\n'
    )
    after = 'top = 1\n\n# first\n[[hooks]]\nevent = "A"\n\n[[hooks]]\nevent = "C"\n'
    assert edited(before, ("remove", ("hooks", 1), None)) == after


def test_remove_first_entry_takes_the_blank_lines_after_it() -> None:
    before = '[[hooks]]\nevent = "A"\n\n[[hooks]]\nevent = "B"\n'
    assert edited(before, ("remove", ("hooks", 0), None)) == '[[hooks]]\nevent = "B"\n'


def test_remove_entry_glued_to_the_next_keeps_the_separation_above() -> None:
    before = "x = 1\n\n[[h]]\na = 1\n[[h]]\na = 2\n"
    assert edited(before, ("remove", ("h", 0), None)) == "x = 1\n\n[[h]]\na = 2\n"


def test_remove_entry_takes_its_sub_tables() -> None:
    before = "[[h]]\na = 1\n[h.sub]\nq = 1\n\n[[h]]\na = 2\n"
    assert edited(before, ("remove", ("h", 0), None)) == "[[h]]\na = 2\n"


def test_removing_the_last_entry_removes_the_array() -> None:
    doc = TomlDocument.parse('x = 1\n\n[[hooks]]\nevent = "A"\n')
    doc.remove(("hooks", 0))
    assert doc.text == "x = 1\n" and doc.value == {"x": 1}


def test_removing_the_last_item_of_an_inline_array_keeps_the_key() -> None:
    doc = TomlDocument.parse('hooks = [{ event = "A" }] # keep\n')
    doc.remove(("hooks", 0))
    assert doc.text == "hooks = [] # keep\n" and doc.value == {"hooks": []}


def test_implicit_tables_left_empty_disappear_explicit_ones_stay() -> None:
    assert edited("[tool.x]\na = 1\n\n[other]\nb = 2\n", ("remove", ("tool", "x"), None)) == "[other]\nb = 2\n"
    doc = TomlDocument.parse("[tool]\n[tool.x]\na = 1\n")
    doc.remove(("tool", "x"))
    assert doc.text == "[tool]\n" and doc.value == {"tool": {}}


def test_remove_missing_raises() -> None:
    doc = TomlDocument.parse("a = 1\n")
    with pytest.raises(KeyError):
        doc.remove(("b",))
    with pytest.raises(ValueError):
        doc.remove(())


# -- insert / append_table ---------------------------------------------------------------------------------


def test_insert_into_inline_arrays_follows_their_layout() -> None:
    before = 'a = [1, 2, 3]\nb = [\n  "x",\n  "y",  # why\n]\nc = [\n  1,\n  2\n]\n'
    after = edited(
        before,
        ("insert", ("a",), (1, 9)),
        ("insert", ("b",), (2, "z")),
        ("insert", ("c",), (2, 3)),
        ("remove", ("b", 1), None),
    )
    assert after == 'a = [1, 9, 2, 3]\nb = [\n  "x",\n  "z",\n]\nc = [\n  1,\n  2,\n  3\n]\n'


def test_insert_into_empty_and_negative_index() -> None:
    assert edited("a = []\n", ("insert", ("a",), (0, 1))) == "a = [1]\n"
    assert edited("a = [1, 3]\n", ("insert", ("a",), (-1, 2))) == "a = [1, 3, 2]\n"  # -1 appends


def test_insert_errors() -> None:
    doc = TomlDocument.parse("a = [1]\nt = {}\n")
    with pytest.raises(IndexError):
        doc.insert(("a",), 3, 2)
    with pytest.raises(IndexError):
        doc.insert(("a",), -2, 2)
    with pytest.raises(TypeError):
        doc.insert(("t",), 0, 1)
    with pytest.raises(KeyError):
        doc.insert(("nope",), 0, 1)


def test_insert_array_of_tables_entry_copies_the_separation_of_the_entry_it_precedes() -> None:
    before = 'x = 1\n\n# c\n[[hooks]]\nevent = "A"\n'
    after = 'x = 1\n\n[[hooks]]\nevent = "Z"\n\n# c\n[[hooks]]\nevent = "A"\n'
    assert edited(before, ("insert", ("hooks",), (0, {"event": "Z"}))) == after


def test_append_table_appends_in_the_existing_style() -> None:
    before = '[[hooks]]\nevent = "A"\n\n[[hooks]]\nevent = "B"\n'
    after = edited(before, ("append_table", ("hooks",), {"event": "C", "timeout": 10}))
    assert after == before + '\n[[hooks]]\nevent = "C"\ntimeout = 10\n'


def test_append_table_creates_the_array_and_keeps_crlf_and_a_missing_final_newline() -> None:
    assert edited("x = 1\n", ("append_table", ("hooks",), {"event": "B"})) == 'x = 1\n\n[[hooks]]\nevent = "B"\n'
    assert edited("x = 1\r\n", ("append_table", ("hooks",), {"event": "B"})) == (
        'x = 1\r\n\r\n[[hooks]]\r\nevent = "B"\r\n'
    )
    assert edited("x = 1", ("append_table", ("hooks",), {"event": "B"})) == 'x = 1\n\n[[hooks]]\nevent = "B"'
    assert edited("", ("append_table", ("hooks",), {})) == "[[hooks]]\n"


def test_append_table_to_an_inline_array_appends_an_inline_table() -> None:
    before = 'hooks = [{ event = "A" }] # keep\n'
    after = edited(before, ("append_table", ("hooks",), {"event": "B", "timeout": 10}))
    assert after == 'hooks = [{ event = "A" }, { event = "B", timeout = 10 }] # keep\n'


def test_append_table_refuses_non_arrays() -> None:
    doc = TomlDocument.parse("hooks = 1\n")
    with pytest.raises(TypeError):
        doc.append_table(("hooks",), {})
    with pytest.raises(TypeError):
        doc.append_table(("other",), [])  # type: ignore[arg-type]


def test_append_then_remove_gives_back_the_original_bytes() -> None:
    for before in ["", "x = 1", "x = 1\n\n\n", "# only\n", "[[h]]\n", "\n\n", "a = 1\r\n# end\r\n"]:
        doc = TomlDocument.parse(before)
        doc.append_table(("h",), {"k": 1})
        doc.append_table(("h",), {"k": 2})
        doc.remove(("h", -1))
        doc.remove(("h", -1))
        assert doc.text == before, repr(before)


def test_an_array_of_tables_only_takes_tables() -> None:
    doc = TomlDocument.parse("[[h]]\na = 1\n")
    with pytest.raises(TypeError):
        doc.insert(("h",), 0, 5)
    with pytest.raises(TypeError):
        doc.set(("h", 0), "text")
    assert doc.text == "[[h]]\na = 1\n"
    inline = TomlDocument.parse("h = [{ a = 1 }]\n")
    inline.insert(("h",), 1, 5)  # an inline array may mix types (TOML 1.0)
    assert inline.text == "h = [{ a = 1 }, 5]\n"


def test_missing_paths_raise_an_error_both_lookup_kinds_catch() -> None:
    doc = TomlDocument.parse("a = [1]\n")
    for path in [("b",), ("a", 3)]:
        with pytest.raises(KeyError):
            doc.get(path)
        with pytest.raises(IndexError):
            doc.remove(path)


def test_undo_restores_the_previous_text_and_data() -> None:
    doc = TomlDocument.parse("a = 1\n")
    doc.set(("a",), 2)
    doc.append_table(("h",), {"k": 1})
    doc.undo()
    assert doc.text == "a = 2\n" and doc.value == {"a": 2}
    doc.undo()
    assert doc.text == "a = 1\n" and doc.value == {"a": 1}
    with pytest.raises(IndexError):
        doc.undo()


def test_parse_bytes_and_to_bytes() -> None:
    raw = "\ufeffk = 'é'\r\n".encode()
    doc = TomlDocument.parse_bytes(raw)
    assert doc.to_bytes() == raw and doc.value == {"k": "é"}
