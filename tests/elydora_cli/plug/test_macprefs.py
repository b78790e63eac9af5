"""macOS preferences read as files, in ``CFPreferencesCopyAppValue``'s order (a stand-in layout; no Mac here)."""

from __future__ import annotations

import plistlib
from pathlib import Path

import pytest

from elydora_cli.plug import macprefs
from elydora_cli.plug.context import Context
from elydora_config.errors import MalformedConfigError

DOMAIN = "com.example.agent"


def _ctx(home: Path) -> Context:
    return Context(home=home, state_root=home, repo_root=home / "work")


def test_the_search_list_goes_from_forced_to_the_users_own_to_the_machines() -> None:
    home = Path("/Users/me")
    found = macprefs.search_list(_ctx(home), DOMAIN, "me")
    assert found == [
        Path(f"/Library/Managed Preferences/me/{DOMAIN}.plist"),
        Path(f"/Library/Managed Preferences/{DOMAIN}.plist"),
        home / f"Library/Preferences/{DOMAIN}.plist",
        Path(f"/Library/Preferences/{DOMAIN}.plist"),
    ]
    assert [macprefs.users_own(_ctx(home), p) for p in found] == [False, False, True, False]


def test_the_first_file_holding_the_key_answers(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    own = tmp_path / "Library" / "Preferences" / f"{DOMAIN}.plist"
    own.parent.mkdir(parents=True)
    own.write_bytes(plistlib.dumps({"k": "own", "other": 1}))
    assert macprefs.app_value(ctx, DOMAIN, "k") == (own, "own")
    assert macprefs.app_value(ctx, DOMAIN, "missing") is None
    by_host = own.parent / "ByHost" / f"{DOMAIN}.0A1B.plist"
    by_host.parent.mkdir()
    by_host.write_bytes(plistlib.dumps({"k": "this host"}, fmt=plistlib.FMT_BINARY))
    assert macprefs.app_value(ctx, DOMAIN, "k") == (by_host, "this host")


def test_a_file_that_is_no_property_list_is_an_error_naming_it(tmp_path: Path) -> None:
    own = tmp_path / "Library" / "Preferences" / f"{DOMAIN}.plist"
    own.parent.mkdir(parents=True)
    own.write_bytes(b"not a plist")
    assert macprefs.read(own) is None and macprefs.read(own.with_name("absent.plist")) == {}
    with pytest.raises(MalformedConfigError, match="cannot be read as a property list") as caught:
        macprefs.app_value(_ctx(tmp_path), DOMAIN, "k")
    assert str(own) in str(caught.value)
