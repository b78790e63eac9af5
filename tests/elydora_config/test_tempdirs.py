"""The list of directories where single-target commits stage temp files, and recovery's sweep of them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from elydora_testkit.platforms import NO_LINKS, posix_only

from elydora_config import Transaction, _platform, recover
from elydora_config._tempdirs import TEMP_DIRS, listed, register, state_tag, tagged_temp_name
from elydora_config.files import TEMP_MARKER


def _txfd(state: Path) -> int:
    (state / "transactions").mkdir(parents=True, exist_ok=True)
    return _platform.open_at(str(state / "transactions"), os.O_RDONLY | _platform.O_DIRECTORY)


def test_a_torn_last_line_is_skipped_and_never_glued_to_the_next(tmp_path: Path) -> None:
    fd = _txfd(tmp_path / "state")
    try:
        (tmp_path / "state" / "transactions" / TEMP_DIRS).write_bytes(json.dumps("/a").encode() + b'\n"/b')
        assert listed(fd) == ["/a"]
        register(fd, "/c")
        register(fd, "/a")  # already listed: not written again
        assert listed(fd) == ["/a", "/c"]
    finally:
        _platform.close(fd)


def test_a_list_replaced_or_emptied_behind_our_back_is_read_again(tmp_path: Path) -> None:
    fd = _txfd(tmp_path / "state")
    path = tmp_path / "state" / "transactions" / TEMP_DIRS
    try:
        register(fd, "/a")
        register(fd, "/a")  # now known to this process without reading the list
        path.unlink()
        register(fd, "/a")  # a new file: the remembered lines are not its lines
        assert listed(fd) == ["/a"]
        os.truncate(path, 0)
        register(fd, "/a")
        assert listed(fd) == ["/a"]
        replacement = path.with_name("new")
        replacement.write_bytes(json.dumps("/b").encode() + b"\n")
        os.replace(replacement, path)
        register(fd, "/a")
        assert listed(fd) == ["/b", "/a"]
    finally:
        _platform.close(fd)


@posix_only("names that are not UTF-8 exist on POSIX file systems only")
def test_names_with_newlines_and_non_utf8_bytes_survive_the_list(tmp_path: Path) -> None:
    fd = _txfd(tmp_path / "state")
    odd = "/home/u/dir\nwith newline/" + os.fsdecode(b"\xff")
    try:
        register(fd, odd)
        assert listed(fd) == [odd]
    finally:
        _platform.close(fd)


def test_recover_removes_tagged_temps_of_live_pids_and_only_dead_untagged_ones(tmp_path: Path) -> None:
    state, conf = tmp_path / "state", tmp_path / "conf"
    conf.mkdir()
    with Transaction(state) as tx:
        tx.write(conf / "settings.json", b"{}\n")
    ours = conf / tagged_temp_name("settings.json", state_tag(str(state)))  # this (live) process's PID
    other_state = conf / tagged_temp_name("settings.json", "0badc0de")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    untagged_dead = conf / f".x{TEMP_MARKER}{dead.stdout.strip()}-abcdef"
    for path in (ours, other_state, untagged_dead):
        path.write_bytes(b"leftover")
    recover(state)
    assert sorted(p.name for p in conf.iterdir()) == sorted(["settings.json", other_state.name])


@posix_only(NO_LINKS)
def test_the_tag_names_the_real_state_directory(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert state_tag(str(tmp_path / "link")) == state_tag(str(tmp_path / "real"))
    assert state_tag(str(tmp_path / "real")) != state_tag(str(tmp_path / "other"))
