"""Property tests: random documents in random styles, random edit sequences.

Profiles: ``ELYDORA_JSONC_PROFILE=jsonc-default`` (the default, a few seconds) or ``jsonc-thorough``.
"""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from jsonc_testkit import (
    TRICKY_STRINGS,
    Writer,
    all_paths,
    assert_agrees_with_reference,
    comment_ids,
    model_apply,
    oracle_loads,
    oracle_strict,
)

from elydora_config.jsonc import JSONC, JSONC_NO_TRAILING_COMMAS, STRICT_JSON, Dialect, Edit, JsoncDocument
from elydora_config.jsonc._reference_scanner import ReferenceScanner

settings.register_profile(
    "jsonc-default", max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "jsonc-thorough", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
PROFILE = settings.get_profile(os.environ.get("ELYDORA_JSONC_PROFILE", "jsonc-default"))

keys = st.text(max_size=6) | st.sampled_from(TRICKY_STRINGS)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.sampled_from(TRICKY_STRINGS)
)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4), max_leaves=10
)
roots = st.dictionaries(keys, values, max_size=5) | st.lists(values, max_size=5)


def _document(rnd: random.Random, root: Any) -> tuple[str, Dialect]:
    comments = rnd.random() < 0.7
    writer = Writer(rnd, comments=comments, trailing_commas=rnd.random() < 0.4)
    bom = comments and rnd.random() < 0.15
    text = writer.document(root, bom)
    if writer.used_trailing:
        return text, JSONC
    if writer.used_comments or bom:
        return text, rnd.choice([JSONC, JSONC_NO_TRAILING_COMMAS])
    return text, rnd.choice([STRICT_JSON, JSONC, JSONC_NO_TRAILING_COMMAS])


def _draw_op(data: st.DataObject, model: Any) -> tuple[Any, ...]:
    paths = all_paths(model)
    objects = [p for p, v in paths if isinstance(v, dict)]
    arrays = [p for p, v in paths if isinstance(v, list)]
    members = [p for p, _ in paths if p]
    kinds = ["set"] + (["new"] if objects else []) + (["insert"] if arrays else []) + (["remove"] if members else [])
    kind = data.draw(st.sampled_from(kinds))
    value = data.draw(values)
    if kind == "set":
        path = data.draw(st.sampled_from([p for p, _ in paths if p] or [()]))
        return ("set", path, value)
    if kind == "new":
        path = data.draw(st.sampled_from(objects))
        existing = model_get_keys(model, path)
        key = data.draw(keys.filter(lambda k: k not in existing))
        return ("set", (*path, key), value)
    if kind == "insert":
        path = data.draw(st.sampled_from(arrays))
        size = len(model_get_keys(model, path))
        index = data.draw(st.integers(-1, size).filter(lambda i: i != -1 or size >= 0))
        return ("insert", path, index, value)
    return ("remove", data.draw(st.sampled_from(members)))


def model_get_keys(model: Any, path: tuple[Any, ...]) -> Any:
    for element in path:
        model = model[element]
    return model


def _apply(doc: JsoncDocument, op: tuple[Any, ...]) -> Edit:
    if op[0] == "set":
        return doc.set(op[1], op[2])
    if op[0] == "insert":
        return doc.insert(op[1], op[2], op[3])
    return doc.remove(op[1])


def _check_reparses(doc: JsoncDocument, model: Any, dialect: Dialect) -> None:
    assert doc.value == model
    assert JsoncDocument.parse(doc.text, dialect).value == model
    assert oracle_loads(doc.text) == model
    assert ReferenceScanner(doc.text, dialect).document()[0] == model
    if dialect is STRICT_JSON:
        assert oracle_strict(doc.text) == model


def _changed_region(old: str, new: str) -> tuple[int, int]:
    """``[start, end)`` of ``old`` outside which ``old`` and ``new`` agree byte for byte."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    return start, end_old


def _comment_lines_above(text: str, start: int) -> str:
    """The lines right above the line of ``start`` that hold one comment each (no blank line between)."""
    lines = text[: text.rfind("\n", 0, start) + 1].split("\n")[:-1]
    taken: list[str] = []
    for line in reversed(lines):
        bare = line.strip(" \t\r\ufeff")
        one_block = bare.startswith("/*") and bare.endswith("*/") and bare.find("*/") == len(bare) - 2
        if not (bare.startswith("//") or one_block):
            break
        taken.append(line)
    return "\n".join(taken)


def _only(text: str, allowed: str) -> bool:
    return all(ch in allowed for ch in text)


def _check_edit(before: JsoncDocument, before_text: str, doc: JsoncDocument, op: tuple[Any, ...], edit: Edit) -> None:
    after_text = doc.text
    # the edit's own account is exact in both directions
    assert edit.apply(before_text) == after_text
    assert edit.revert(after_text) == before_text
    kind, path = op[0], op[1]
    if kind == "set" and not path:
        return
    container_path = path if kind == "insert" else path[:-1]
    lo, hi = before.span(container_path)
    start, end = _changed_region(before_text, after_text)
    assert lo < start or start == end
    assert end < hi or start == end, "bytes changed outside the edited container"
    before_ids, after_ids = comment_ids(before_text), comment_ids(after_text)
    if kind == "set" and before.has(path):
        value_start, value_end = before.span(path)
        assert [(s.start, s.end) for s in edit.splices] == [(value_start, value_end)]
        assert after_ids == [c for c in before_ids if c not in comment_ids(before_text[value_start:value_end])]
        return
    if kind in ("set", "insert"):
        new_path = path if kind == "set" else (*path, len(before.get(path)) if op[2] == -1 else op[2])
        entry_start, entry_end = doc.entry_span(new_path)
        spans = edit.new_spans()
        holder = next(i for i, (a, b) in enumerate(spans) if a <= entry_start and entry_end <= b)
        rest = "".join(
            s.new if i != holder else s.new[: entry_start - spans[i][0]] + s.new[entry_end - spans[i][0] :]
            for i, s in enumerate(edit.splices)
        )
        assert all(_only(s.old, " \t\r\n") for s in edit.splices), "an insert removed something"
        separators = 1 if before.get(container_path) else 0  # none when the container was empty
        assert _only(rest, " \t\r\n,"), f"inserted more than entry + separator: {rest!r}"
        assert rest.count(",") == separators, f"inserted more than entry + separator: {rest!r}"
        assert after_ids == before_ids
        return
    # remove: what goes is the entry, one separator, whitespace, the comments on the entry's last line and the
    # comment lines right above it
    assert all(s.new == "" for s in edit.splices)
    entry_start, entry_end = before.entry_span(path)
    entry = before_text[entry_start:entry_end]
    removed_ids = set(before_ids) - set(after_ids)
    own = set(comment_ids(entry)) | set(comment_ids(_comment_lines_above(before_text, entry_start)))
    line_end = min(
        [p for p in (before_text.find("\n", entry_end), before_text.find("\r", entry_end)) if p >= 0],
        default=len(before_text),
    )
    same_line = set(comment_ids(before_text[entry_end:line_end]))
    assert removed_ids <= own | same_line, f"comments {removed_ids - own - same_line} were not the entry's"
    assert after_ids == [c for c in before_ids if c not in removed_ids]
    removed = "".join(s.old for s in edit.splices)
    assert entry in removed
    rest = removed.replace(entry, "", 1)
    for cid in (same_line | own) & removed_ids:  # drop the removed comments outside the entry
        for form in (f"/* {cid} */", f"/*{cid}*/", f"// {cid}", f"//{cid}"):
            rest = rest.replace(form, "")
    assert _only(rest, " \t\r\n,") and rest.count(",") <= 1, f"removed more than entry + separator: {rest!r}"


@PROFILE
@given(st.randoms(use_true_random=False), roots, st.data())
def test_random_documents_survive_random_edit_sequences(rnd: random.Random, root: Any, data: st.DataObject) -> None:
    text, dialect = _document(rnd, root)
    note(f"{dialect}: {text!r}")
    doc = JsoncDocument.parse(text, dialect)
    assert doc.text == text
    _check_reparses(doc, root, dialect)
    model = root
    for _ in range(data.draw(st.integers(1, 5))):
        op = _draw_op(data, model)
        before_text = doc.text
        before = JsoncDocument.parse(before_text, dialect)
        note(f"{op!r} on {before_text!r}")
        edit = _apply(doc, op)
        note(f"gives {doc.text!r}")
        model = model_apply(model, op)
        _check_reparses(doc, model, dialect)
        _check_edit(before, before_text, doc, op, edit)


@PROFILE
@given(st.randoms(use_true_random=False), roots, st.data())
def test_insert_then_remove_gives_back_the_original_bytes(rnd: random.Random, root: Any, data: st.DataObject) -> None:
    text, dialect = _document(rnd, root)
    doc = JsoncDocument.parse(text, dialect)
    op = _draw_op(data, root)
    note(f"{op!r} on {dialect}: {text!r}")
    if op[0] == "remove" or (op[0] == "set" and doc.has(op[1])):
        edit = _apply(doc, op)
        doc.undo()
        assert doc.text == text
        assert edit.revert(edit.apply(text)) == text
        return
    _apply(doc, op)
    note(f"gives {doc.text!r}")
    if op[0] == "insert":
        size = len(model_get_keys(root, op[1]))
        doc.remove((*op[1], size if op[2] == -1 else op[2]))
    else:
        doc.remove(op[1])
    assert doc.text == text


@PROFILE
@given(st.randoms(use_true_random=False), roots, st.integers(0, 2**32), st.sampled_from(["delete", "insert", "swap"]))
def test_fast_path_and_reference_scanner_agree_on_mutated_texts(
    rnd: random.Random, root: Any, seed: int, how: str
) -> None:
    text, dialect = _document(rnd, root)
    mutate = random.Random(seed)
    pos = mutate.randrange(len(text) + 1)
    if how == "delete" and text:
        pos = min(pos, len(text) - 1)
        text = text[:pos] + text[pos + 1 :]
    elif how == "insert":
        text = text[:pos] + mutate.choice(',:[]{}"/*\\ \n\t0-.etnaIN\x01\ufeff') + text[pos:]
    elif len(text) > 1:
        pos = min(pos, len(text) - 2)
        text = text[:pos] + text[pos + 1] + text[pos] + text[pos + 2 :]
    note(repr(text))
    assert_agrees_with_reference(
        text, (dialect, STRICT_JSON, JSONC), lambda candidate: JsoncDocument.parse(text, candidate).value, "fast path"
    )


@pytest.mark.parametrize("seed", range(3))
def test_random_writer_really_produces_what_the_properties_claim(seed: int) -> None:
    """Guard the generator: its documents must have comments, trailing commas, CRLF and tabs in practice."""
    rnd = random.Random(seed)
    seen = {"comments": False, "trailing": False, "crlf": False, "tab": False}
    for _ in range(200):
        writer = Writer(rnd, comments=True, trailing_commas=True)
        text = writer.document({"a": [1, {"b": [2, 3]}], "c": {"d": None}}, False)
        seen["comments"] |= writer.used_comments
        seen["trailing"] |= writer.used_trailing
        seen["crlf"] |= "\r\n" in text
        seen["tab"] |= "\n\t" in text
        assert oracle_loads(text) == {"a": [1, {"b": [2, 3]}], "c": {"d": None}}
    assert all(seen.values()), seen
