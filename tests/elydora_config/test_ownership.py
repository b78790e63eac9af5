"""Read-only files are refused without an opt-in; owner and group survive a rewrite; root refuses to write
state into another user's tree. These tests run as root (they chown files to other uids) or skip."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from elydora_config import Transaction, write_atomic
from elydora_config.errors import ForeignOwnerError, ReadOnlyFileError

ALICE, BOB = 1000, 2000
root_only = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")


@pytest.fixture
def shared() -> Iterator[Path]:
    """A world-writable directory other uids can reach (pytest's own tmp tree is root-only)."""
    path = Path(tempfile.mkdtemp(prefix="elydora-owner-"))
    os.chmod(path, 0o777)
    yield path
    shutil.rmtree(path)


def _owned(path: Path, uid: int, gid: int, mode: int, data: bytes = b'{"a": 1}\n') -> Path:
    path.write_bytes(data)
    os.chown(path, uid, gid)
    os.chmod(path, mode)
    return path


def _ids(path: Path) -> tuple[int, int, int]:
    info = os.stat(path)
    return info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)


def _as_user(uid: int, fn: Callable[[], object]) -> str:
    """Run ``fn`` in a child with the given uid and gid; the name of the exception it raised ('' if none)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        os.close(read)
        outcome = ""
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            fn()
        except BaseException as exc:
            outcome = type(exc).__name__
        os.write(write, outcome.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        outcome = fh.read().decode()
    os.waitpid(pid, 0)
    return outcome


def test_read_only_settings_file_is_refused_with_a_way_forward(tmp_path: Path) -> None:
    settings = _owned(tmp_path / "settings.json", os.geteuid(), os.getegid(), 0o444)
    with pytest.raises(ReadOnlyFileError) as info, Transaction(tmp_path / "state") as tx:
        tx.write(settings, b"{}\n")
    assert str(settings) in str(info.value) and "make it writable" in str(info.value)
    assert info.value.opt_in == "allow_read_only" and settings.read_bytes() == b'{"a": 1}\n'
    with Transaction(tmp_path / "state", allow_read_only=True) as tx:
        tx.write(settings, b"{}\n")
    assert settings.read_bytes() == b"{}\n" and _ids(settings)[2] == 0o444


def _rewrite_as_alice(tmp_path: Path, settings: Path) -> str:
    """Rewrite ``settings`` as ALICE through a transaction whose state directory she owns; the error's name."""
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    os.chown(state, ALICE, ALICE)

    def rewrite() -> None:
        with Transaction(state) as tx:
            tx.write(settings, b"{}\n")

    return _as_user(ALICE, rewrite)


@root_only
def test_file_not_writable_by_the_caller_is_refused(shared: Path) -> None:
    tmp_path = shared
    settings = _owned(tmp_path / "settings.json", BOB, BOB, 0o644)
    assert _rewrite_as_alice(tmp_path, settings) == "ReadOnlyFileError"
    assert settings.read_bytes() == b'{"a": 1}\n' and _ids(settings) == (BOB, BOB, 0o644)


@root_only
def test_owner_and_group_of_a_rewritten_file_are_kept(tmp_path: Path) -> None:
    settings = _owned(tmp_path / "settings.json", ALICE, BOB, 0o640)
    with Transaction(tmp_path / "state") as tx:
        tx.write(settings, b"{}\n")
    assert settings.read_bytes() == b"{}\n" and _ids(settings) == (ALICE, BOB, 0o640)
    write_atomic(settings, b"[]\n")
    assert settings.read_bytes() == b"[]\n" and _ids(settings) == (ALICE, BOB, 0o640)


@root_only
def test_rewrite_that_cannot_keep_the_owner_is_refused(shared: Path) -> None:
    tmp_path = shared
    settings = _owned(tmp_path / "settings.json", BOB, BOB, 0o666)
    assert _rewrite_as_alice(tmp_path, settings) == "ForeignOwnerError"
    assert settings.read_bytes() == b'{"a": 1}\n' and _ids(settings) == (BOB, BOB, 0o666)
    assert not [p for p in tmp_path.iterdir() if "elydora-tmp" in p.name]


@root_only
def test_root_in_another_users_home_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "alice"
    home.mkdir()
    os.chown(home, ALICE, ALICE)
    settings = _owned(home / "settings.json", ALICE, ALICE, 0o644)
    with pytest.raises(ForeignOwnerError) as info, Transaction(home / ".elydora") as tx:
        tx.write(settings, b"{}\n")
    assert str(home) in str(info.value) and "run it as that user" in str(info.value)
    assert not (home / ".elydora").exists() and _ids(settings) == (ALICE, ALICE, 0o644)


@root_only
def test_root_writing_into_another_users_home_with_state_elsewhere_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "alice"
    home.mkdir()
    os.chown(home, ALICE, ALICE)
    with pytest.raises(ForeignOwnerError), Transaction(tmp_path / "state") as tx:
        tx.write(home / "new-settings.json", b"{}\n")
    assert list(home.iterdir()) == []
