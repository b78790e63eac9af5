"""The system-scope facts: which agents have a managed layer, who may install there, per-user names."""

from __future__ import annotations

import os

import pytest

from elydora_cli import catalog, managed, statefiles


def test_every_managed_layer_belongs_to_a_catalog_agent_and_is_absolute() -> None:
    ids = {p.id for p in catalog.providers()}
    for pid, found in managed.LAYERS.items():
        assert pid in ids and found.provider == pid and found.path.startswith("/etc/")
        assert found.promise and (found.lockdown_key is None or found.lockdown_off)  # a switch says what it turns off


def test_an_agent_without_a_managed_layer_is_refused_by_name() -> None:
    with pytest.raises(managed.ScopeError, match="kimi: --scope system is not supported"):
        managed.layer("kimi")


def test_lock_down_is_refused_for_a_layer_without_the_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    assert managed.lockdown_switch("claudecode")[0] == "allowManagedHooksOnly"
    plain = managed.ManagedLayer("kimi", "/etc/x.json", "/Library/x.json", None, promise="read first")
    monkeypatch.setitem(managed.LAYERS, "kimi", plain)
    with pytest.raises(managed.ScopeError, match="kimi: --lock-down is not supported"):
        managed.lockdown_switch("kimi")


def test_only_root_may_use_system_scope(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(managed.ScopeError, match="must run as root"):
        managed.require_root("elydora install")
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    managed.require_root("elydora install")


def test_the_per_user_directory_name_is_a_valid_agent_id() -> None:
    name = managed.user_dir_name("claudecode", "alice")
    assert name == "claudecode@alice" and statefiles.check_agent_id(name) == name
