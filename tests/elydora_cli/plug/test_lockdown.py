"""The lock-down switch of a managed layer: set only when asked, removed only where we set it."""

from __future__ import annotations

from pathlib import Path

from elydora_cli.plug import lockdown
from elydora_cli.plug.context import Context
from elydora_cli.plug.contract import Format, Target
from elydora_cli.plug.documents import Documents, parse

PATH = Path("/etc/claude-code/managed-settings.json")
KEY = "allowManagedHooksOnly"


def _docs(text: str, recorded: list[object] | None = None) -> Documents:
    target = Target(PATH, Format.JSON)
    return Documents({PATH: target}, {PATH: parse(text, Format.JSON, PATH)}, {PATH: text}, recorded=recorded or [])


def _ctx(lock_down: bool | None) -> Context:
    return Context(home=Path("/"), state_root=Path("/"), repo_root=Path("/"), system=True, lock_down=lock_down)


def test_the_switch_is_set_only_with_the_flag_and_recorded_as_ours() -> None:
    docs = _docs("{}")
    lockdown.apply(docs, PATH, _ctx(None), KEY)
    assert docs.final_text(PATH) == "{}"
    lockdown.apply(docs, PATH, _ctx(True), KEY)
    assert docs.doc(PATH) is not None and docs.doc(PATH).value == {KEY: True}  # type: ignore[union-attr]
    assert docs.log(PATH).inserted == [{"at": [KEY], "value": {"lockdown": KEY}}]


def test_an_administrators_switch_is_never_removed() -> None:
    docs = _docs('{"allowManagedHooksOnly": true}')
    lockdown.apply(docs, PATH, _ctx(True), KEY)  # already on: not ours
    assert docs.log(PATH).inserted == []
    lockdown.apply(docs, PATH, _ctx(False), KEY)
    lockdown.remove(docs, PATH, KEY)
    assert docs.doc(PATH).value == {KEY: True}  # type: ignore[union-attr]
    notes = lockdown.check(docs, PATH, KEY, "user hooks")
    assert [n.severity for n in notes] == ["note"] and "set by the administrator" in notes[0].message


def test_our_switch_is_kept_by_a_plain_reinstall_and_removed_by_no_lock_down() -> None:
    recorded: list[object] = [{"lockdown": KEY}]
    docs = _docs('{"allowManagedHooksOnly": true}', recorded)
    lockdown.apply(docs, PATH, _ctx(None), KEY)
    assert docs.log(PATH).inserted == [{"at": [KEY], "value": {"lockdown": KEY}}]
    assert "set by this install" in lockdown.check(docs, PATH, KEY, "user hooks")[0].message
    lockdown.apply(docs, PATH, _ctx(False), KEY)
    assert docs.doc(PATH).value == {}  # type: ignore[union-attr]
