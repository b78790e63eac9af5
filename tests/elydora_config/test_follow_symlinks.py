"""``Transaction(follow_symlinks=True)`` edits the real file a link points to, with that file's snapshot and
mode, and leaves the link a link; without it a link is refused with an error that names the opt-in."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from elydora_config import Transaction, recover
from elydora_config.errors import SymlinkRefusedError


def _linked(tmp_path: Path) -> tuple[Path, Path]:
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_bytes(b'{"a": 1}\n')
    os.chmod(real, 0o640)
    link = tmp_path / "home" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(real)
    return link, real


def test_symlinked_dotfile_is_refused_with_the_opt_in_named(tmp_path: Path) -> None:
    link, real = _linked(tmp_path)
    with pytest.raises(SymlinkRefusedError) as info, Transaction(tmp_path / "state") as tx:
        tx.read(link)
    assert info.value.opt_in == "follow_symlinks" and str(link) in str(info.value)
    assert real.read_bytes() == b'{"a": 1}\n'


def test_follow_symlinks_edits_the_real_file_and_keeps_the_link(tmp_path: Path) -> None:
    link, real = _linked(tmp_path)
    with Transaction(tmp_path / "state", follow_symlinks=True) as tx:
        assert tx.read(link) == b'{"a": 1}\n'
        snap = tx.snapshot(link)
        assert snap is not None and snap.path == str(real) and snap.mode == 0o640
        tx.write(link, b'{"a": 2}\n')
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() == b'{"a": 2}\n' and stat.S_IMODE(os.stat(real).st_mode) == 0o640
    assert recover(tmp_path / "state") == []


def test_follow_symlinks_through_a_symlinked_home(tmp_path: Path) -> None:
    (tmp_path / "data" / "home").mkdir(parents=True)
    (tmp_path / "home").symlink_to(tmp_path / "data" / "home")
    target = tmp_path / "home" / "settings.json"
    with pytest.raises(SymlinkRefusedError), Transaction(tmp_path / "home" / ".state") as tx:
        tx.write(target, b"{}\n")
    with Transaction(tmp_path / "home" / ".state", follow_symlinks=True) as tx:
        tx.write(target, b"{}\n")
    assert (tmp_path / "data" / "home" / "settings.json").read_bytes() == b"{}\n"
    assert (tmp_path / "data" / "home" / ".state").is_dir() and (tmp_path / "home").is_symlink()
