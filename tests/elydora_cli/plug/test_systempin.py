"""The hooks-on pin of a system settings file: written by every system install, removed only where we wrote it."""

from __future__ import annotations

from pathlib import Path

import pytest

from elydora_cli.plug import systempin
from elydora_cli.plug.common import RefusedError
from elydora_cli.plug.contract import Format, Target
from elydora_cli.plug.documents import Documents, parse

PATH = Path("/etc/gemini-cli/settings.json")
NESTED = systempin.Pin(("hooksConfig", "enabled"), True, "Gemini CLI")
TOP = systempin.Pin(("disableAllHooks",), False, "Qwen Code")
FMT = Format.JSONC_NO_TRAILING_COMMAS


def _docs(text: str, recorded: list[object] | None = None, created: list[list[str | int]] | None = None) -> Documents:
    target = Target(PATH, FMT)
    docs = Documents({PATH: target}, {PATH: parse(text, FMT, PATH)}, {PATH: text}, recorded=recorded or [])
    if created:
        docs.created[PATH] = created
    return docs


def _value(docs: Documents) -> object:
    doc = docs.doc(PATH)
    assert doc is not None
    return doc.value


def test_a_missing_parent_is_created_logged_and_removed_again() -> None:
    docs = _docs('{"ui": {}}')
    systempin.apply(docs, PATH, NESTED)
    assert _value(docs) == {"ui": {}, "hooksConfig": {"enabled": True}}
    log = docs.log(PATH)
    assert log.created == [["hooksConfig"]] and log.inserted == [{"at": ["hooksConfig", "enabled"],
                                                                  "value": {"pin": "hooksConfig.enabled"}}]
    later = _docs(docs.final_text(PATH) or "", recorded=[{"pin": "hooksConfig.enabled"}], created=[["hooksConfig"]])
    systempin.remove(later, PATH, NESTED)
    assert later.final_text(PATH) == '{"ui": {}}'


def test_an_existing_parent_keeps_its_other_keys() -> None:
    docs = _docs('{"hooksConfig": {"notifications": false}}')
    systempin.apply(docs, PATH, NESTED)
    assert docs.log(PATH).created == []
    later = _docs(docs.final_text(PATH) or "", recorded=[{"pin": "hooksConfig.enabled"}])
    systempin.remove(later, PATH, NESTED)
    assert later.final_text(PATH) == '{"hooksConfig": {"notifications": false}}'


def test_an_administrators_own_value_is_not_recorded_nor_removed() -> None:
    docs = _docs('{"disableAllHooks": false}')
    systempin.apply(docs, PATH, TOP)
    assert docs.log(PATH).inserted == []
    systempin.remove(docs, PATH, TOP)
    assert _value(docs) == {"disableAllHooks": False}
    ours = _docs('{"disableAllHooks": false}', recorded=[{"pin": "disableAllHooks"}])
    systempin.apply(ours, PATH, TOP)  # a reinstall keeps our record
    assert ours.log(PATH).inserted == [{"at": ["disableAllHooks"], "value": {"pin": "disableAllHooks"}}]


def test_the_opposite_value_refuses_and_a_missing_pin_is_a_problem() -> None:
    docs = _docs('{"disableAllHooks": true}')
    with pytest.raises(RefusedError, match="disableAllHooks is true"):
        systempin.apply(docs, PATH, TOP)
    assert [f.message.split(":")[0] for f in systempin.check(docs, PATH, TOP)] == ["disableAllHooks is not false"]
    assert systempin.check(_docs('{"disableAllHooks": false}'), PATH, TOP) == []
