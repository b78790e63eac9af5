"""What status checks of a system install's root-owned files: owner, modes, the policy the guard needs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from elydora_cli import managed
from elydora_cli.installer.systemscope import system_file_findings, system_policy_findings


def _runtime(tmp_path: Path) -> Path:
    directory = tmp_path / "lib" / "claudecode"
    directory.mkdir(parents=True)
    for d in (directory.parent, directory):
        d.chmod(0o755)
    (directory / managed.SYSTEM_STATUS).write_text('{"status": "active"}')
    (directory / managed.SYSTEM_STATUS).chmod(0o644)
    return directory


def test_a_clean_runtime_has_no_findings(tmp_path: Path) -> None:
    assert system_policy_findings(_runtime(tmp_path)) == []


def test_writable_by_others_or_missing_policy_is_reported(tmp_path: Path) -> None:
    directory = _runtime(tmp_path)
    directory.chmod(0o777)
    assert any("writable by other users" in f.message for f in system_policy_findings(directory))
    directory.chmod(0o755)
    (directory / managed.SYSTEM_STATUS).unlink()
    assert any("guard blocks every tool call" in f.message for f in system_policy_findings(directory))


def test_a_launcher_users_cannot_run_or_someone_else_owns(tmp_path: Path) -> None:
    launcher = _runtime(tmp_path) / "guard.py"
    launcher.write_text("#!/bin/sh\n")
    launcher.chmod(0o700)
    assert "users need 0755" in system_file_findings(launcher, managed.LAUNCHER_MODE)[0].message
    launcher.chmod(0o755)
    assert system_file_findings(launcher, managed.LAUNCHER_MODE) == []
    if os.geteuid() != 0:
        pytest.skip("changing a file's owner needs root")
    os.chown(launcher, 1000, -1)
    assert "not by root" in system_file_findings(launcher, managed.LAUNCHER_MODE)[0].message
