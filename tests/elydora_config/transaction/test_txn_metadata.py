"""Metadata: modes are kept, new files are private before their first byte, links are refused or followed
only on request, and recovery honours the ``allow_links`` choice of the transaction it resolves."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.txn_harness import Scenario, crash_at, enumerate_calls, intercept, skip_fsync

from elydora_config import ConcurrentModificationError, Transaction, UnsafePathError, pending, recover, write_atomic
from elydora_config.journal import TRANSACTIONS_DIR


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_rewrite_keeps_0644_and_new_files_are_0600(tmp_path: Path) -> None:
    scn = Scenario(tmp_path / "t").build()
    assert _mode(scn.replaced) == 0o644
    scn.run()
    assert _mode(scn.replaced) == 0o644
    assert _mode(scn.created) == 0o600
    write_atomic(scn.replaced, b"again\n")
    assert _mode(scn.replaced) == 0o644
    state = scn.state
    assert _mode(state) == 0o700 and _mode(state / TRANSACTIONS_DIR) == 0o700
    assert all(_mode(p) & 0o077 == 0 for p in (state / TRANSACTIONS_DIR).iterdir() if p.suffix != ".orig")


def test_every_file_is_0600_when_its_first_byte_is_written(tmp_path: Path) -> None:
    scn = Scenario(tmp_path / "t").build()
    seen: list[tuple[int, int]] = []

    def hook(name: str, real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if name == "write_all":
            info = os.fstat(args[0])
            seen.append((stat.S_IMODE(info.st_mode), info.st_size))
        return real(*args, **kwargs)

    old_umask = os.umask(0)  # the library must not rely on the caller's umask
    try:
        with intercept(hook):
            scn.run()
    finally:
        os.umask(old_umask)
    assert len(seen) >= 3  # the journal and two temp files
    assert seen == [(0o600, 0)] * len(seen)
    assert scn.outcome() == "new" and _mode(scn.replaced) == 0o644


def test_symlinked_target_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_bytes(b"{}\n")
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    tx = Transaction(tmp_path / "state")
    with pytest.raises(UnsafePathError) as info:
        tx.write(link, b'{"a": 1}\n')
    assert str(link) in str(info.value) and "symbolic link" in str(info.value)
    assert real.read_bytes() == b"{}\n" and link.is_symlink()


def test_target_swapped_for_a_symlink_after_the_read_is_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious\n")
    target = tmp_path / "settings.json"
    target.write_bytes(b"{}\n")
    tx = Transaction(tmp_path / "state")
    tx.read(target)
    tx.write(target, b'{"a": 1}\n')
    target.unlink()
    target.symlink_to(victim)
    with pytest.raises((ConcurrentModificationError, UnsafePathError)):
        tx.commit()
    assert victim.read_bytes() == b"precious\n" and target.is_symlink()
    assert pending(tmp_path / "state") == []


def test_symlinked_parent_directory_needs_allow_links(tmp_path: Path) -> None:
    real_dir = tmp_path / "real-config"
    real_dir.mkdir()
    (real_dir / "settings.json").write_bytes(b"{}\n")
    linked = tmp_path / "config"
    linked.symlink_to(real_dir, target_is_directory=True)
    with pytest.raises(UnsafePathError) as info:
        Transaction(tmp_path / "state").read(linked / "settings.json")
    assert str(linked) in str(info.value) and "symbolic link" in str(info.value)
    with Transaction(tmp_path / "state", allow_links=True) as tx:
        tx.read(linked / "settings.json")
        tx.write(linked / "settings.json", b'{"a": 1}\n')
    assert (real_dir / "settings.json").read_bytes() == b'{"a": 1}\n'
    assert linked.is_symlink()


def _linked_tree(root: Path) -> tuple[Path, Callable[[], object]]:
    real_dir = root / "real-config"
    real_dir.mkdir(parents=True)
    (real_dir / "a.json").write_bytes(b"old a\n")
    (real_dir / "b.json").write_bytes(b"old b\n")
    linked = root / "config"
    linked.symlink_to(real_dir, target_is_directory=True)

    def commit() -> None:
        with Transaction(root / "state", allow_links=True) as tx:
            tx.write(linked / "a.json", b"new a\n")
            tx.write(linked / "b.json", b"new b\n")

    return real_dir, commit


def test_recovery_of_a_transaction_made_through_a_symlinked_directory(tmp_path: Path) -> None:
    """``recover`` must finish a journal whose paths go through a directory link the user allowed."""
    _, probe = _linked_tree(tmp_path / "probe")
    calls = enumerate_calls(probe)
    with_journal = 0
    for point in range(len(calls)):
        real_dir, commit = _linked_tree(tmp_path / f"p{point}")
        assert crash_at(point, commit) == -9
        with_journal += bool(pending(real_dir.parent / "state"))
        with intercept(skip_fsync):
            recover(real_dir.parent / "state")
        outcome = sorted((real_dir / n).read_bytes() for n in ("a.json", "b.json"))
        assert outcome in ([b"old a\n", b"old b\n"], [b"new a\n", b"new b\n"]), (point, calls[point], outcome)
        assert pending(real_dir.parent / "state") == []
        assert sorted(os.listdir(real_dir)) == ["a.json", "b.json"], (point, calls[point])
    assert with_journal >= 10


def test_recover_accepts_a_state_dir_behind_an_allowed_link(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    state = tmp_path / "link" / "state"
    with Transaction(state, allow_links=True) as tx:
        tx.write(tmp_path / "link" / "a.json", b"{}\n")
    with pytest.raises(UnsafePathError):
        recover(state)
    assert recover(state, allow_links=True) == []
