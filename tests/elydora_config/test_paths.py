"""Safe path components, physical directory creation, and the directories a read-only pass keeps open."""

from __future__ import annotations

import os
import re
import stat

import pytest
from elydora_testkit.platforms import NO_LINKS, NO_MODES, posix_only
from hypothesis import given, settings
from hypothesis import strategies as st

from elydora_config import _sysio
from elydora_config.errors import MissingDirectoryError, SymlinkRefusedError, UnsafePathError
from elydora_config.files import read_physical
from elydora_config.paths import (
    DirectoryCache,
    check_safe_name,
    ensure_directory,
    opened_directory,
    split_target,
    target_parts,
    unsafe_name_reason,
)


@pytest.mark.parametrize(
    "name",
    ["", ".", "..", "a/b", "a\\b", "tab\there", "nul\x00", "del\x7f", "a<b", "a>b", 'a"b', "a|b", "a?b",
     "a*b", "a:b", "trailing.", "trailing ", "CON", "con.txt", "Lpt1", "COM9.json", "aux "],
)
def test_unsafe_names_refused(name):
    assert unsafe_name_reason(name) is not None
    with pytest.raises(UnsafePathError):
        check_safe_name(name)


@pytest.mark.parametrize("name", ["claudecode", "agent-1", "a.b", "console", "com10", "lpt", ".hidden", "ünï"])
def test_safe_names_accepted(name):
    assert check_safe_name(name) == name


@settings(max_examples=1000)
@given(st.text(alphabet=st.sampled_from(list('ab.: /\\\x00\x1f\x7f<>"|?*\x80é\t')), max_size=6))
def test_the_reason_names_the_first_forbidden_character_as_the_pattern_found_it(name):
    """The character class, pinned against the pattern it replaced (no pattern compiled at import)."""
    bad = re.search(r'[\x00-\x1f\x7f<>:"|?*/\\]', name)
    reason = unsafe_name_reason(name)
    if name and name not in (".", "..") and bad:
        char = bad.group()
        control = ord(char) < 0x20 or char == "\x7f"
        kind = "a path separator" if char in "/\\" else "a control character" if control else None
        assert reason == (f"it contains {kind}" if kind else f"it contains the reserved character {char!r}")
    elif name and name not in (".", ".."):
        assert reason is None or "contains" not in reason


@posix_only(NO_MODES)
def test_ensure_directory_creates_private_chain(tmp_path):
    target = tmp_path / "a" / "b" / "c"
    created = ensure_directory(target)
    assert created == [str(tmp_path / "a"), str(tmp_path / "a" / "b"), str(target)]
    assert all(stat.S_IMODE((tmp_path / p).stat().st_mode) == 0o700 for p in ["a", "a/b", "a/b/c"])
    assert ensure_directory(target) == []


@posix_only(NO_LINKS)
def test_ensure_directory_refuses_links(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        ensure_directory(tmp_path / "link" / "child")
    assert not (real / "child").exists()
    assert ensure_directory(tmp_path / "link" / "child", allow_links=True) == [str(tmp_path / "link" / "child")]


def test_ensure_directory_refuses_file_in_the_way(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(UnsafePathError, match="not a directory"):
        ensure_directory(tmp_path / "file" / "child")


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def test_a_directory_cache_walks_each_directory_once(tmp_path, monkeypatch):
    for name in ("a", "b", "c"):
        (tmp_path / "d" / "e").mkdir(parents=True, exist_ok=True)
        (tmp_path / "d" / "e" / name).write_bytes(name.encode())
    opened: list[str] = []
    real_open = _sysio.open_file

    def counting(name, flags, *args, **kwargs):
        if flags & _sysio.O_DIRECTORY:
            opened.append(name)
        return real_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(_sysio, "open_file", counting)
    before = _open_fds()
    with DirectoryCache() as cache:
        assert [read_physical(tmp_path / "d" / "e" / n, max_bytes=10, cache=cache) for n in "abc"] == [b"a", b"b", b"c"]
        assert read_physical(tmp_path / "d" / "missing", max_bytes=10, cache=cache) is None
    depth = len(tmp_path.parts) + 2  # "/" and every component down to d/e, each once
    assert len(opened) == depth
    assert _open_fds() == before  # the block closed what it kept
    opened.clear()
    read_physical(tmp_path / "d" / "e" / "a", max_bytes=10)
    read_physical(tmp_path / "d" / "e" / "b", max_bytes=10)
    assert len(opened) == 2 * depth  # outside a block every read walks again


@posix_only(NO_LINKS)
def test_a_directory_cache_never_follows_a_link_swapped_in(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_bytes(b"original")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "f").write_bytes(b"elsewhere")
    with DirectoryCache() as cache:
        assert read_physical(tmp_path / "d" / "f", max_bytes=20, cache=cache) == b"original"
        (tmp_path / "d").rename(tmp_path / "moved")
        (tmp_path / "d").symlink_to(tmp_path / "other")
        # the kept descriptor is the directory that was checked: the link is not followed
        assert read_physical(tmp_path / "d" / "f", max_bytes=20, cache=cache) == b"original"
        with pytest.raises(SymlinkRefusedError):  # a directory first walked now is checked as always
            read_physical(tmp_path / "d" / "sub" / "f", max_bytes=20, cache=cache)
    with pytest.raises(SymlinkRefusedError):
        read_physical(tmp_path / "d" / "f", max_bytes=20)


def test_a_directory_cache_reports_failures_as_a_plain_walk_does(tmp_path):
    (tmp_path / "file").write_text("")
    with DirectoryCache() as cache:
        with pytest.raises(MissingDirectoryError, match="is missing"):
            opened_directory(tmp_path / "absent" / "x", cache=cache)
        with pytest.raises(UnsafePathError, match="not a directory"):
            opened_directory(tmp_path / "file" / "x", cache=cache)


def test_a_directory_cache_remembers_a_missing_directory(tmp_path, monkeypatch):
    (tmp_path / "d").mkdir()
    opened: list[str] = []
    real_open = _sysio.open_file

    def counting(name, flags, *args, **kwargs):
        opened.append(name)
        return real_open(name, flags, *args, **kwargs)

    with pytest.raises(MissingDirectoryError) as plain, opened_directory(tmp_path / "d" / "absent"):
        pass
    monkeypatch.setattr(_sysio, "open_file", counting)
    with DirectoryCache() as cache:
        with pytest.raises(MissingDirectoryError) as kept, opened_directory(tmp_path / "d" / "absent", cache=cache):
            pass
        walked = len(opened)
        assert read_physical(tmp_path / "d" / "absent" / "f", max_bytes=10, cache=cache) is None
        assert read_physical(tmp_path / "d" / "absent" / "g", max_bytes=10, cache=cache) is None
        assert len(opened) == walked  # known to be missing: not walked again
        (tmp_path / "d" / "absent").mkdir()
        missing = read_physical(tmp_path / "d" / "absent" / "f", max_bytes=10, cache=cache)
        assert missing is None  # missing for the block
    assert str(kept.value) == str(plain.value)
    (tmp_path / "d" / "absent" / "f").write_bytes(b"f")
    with DirectoryCache() as cache:
        assert read_physical(tmp_path / "d" / "absent" / "f", max_bytes=10, cache=cache) == b"f"  # a new cache looks


def test_a_directory_cache_walks_to_a_missing_directory_once(tmp_path, monkeypatch):
    """A walk that finds a directory missing raises the plain walk's error without walking again, and a later
    walk below that directory opens nothing more."""
    (tmp_path / "d").mkdir()
    deep = tmp_path / "d" / "absent" / "x"
    opened: list[str] = []
    real_open = _sysio.open_file

    def counting(name, flags, *args, **kwargs):
        opened.append(name)
        return real_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(_sysio, "open_file", counting)
    with pytest.raises(MissingDirectoryError) as plain, opened_directory(deep):
        pass
    one_walk = list(opened)  # what one plain walk to the missing directory opens on this platform
    assert one_walk[-2:] == ["d", "absent"]
    with pytest.raises(MissingDirectoryError) as plain_below, opened_directory(deep / "y"):
        pass
    opened.clear()
    with DirectoryCache() as cache:
        with pytest.raises(MissingDirectoryError) as kept, opened_directory(deep, cache=cache):
            pass
        assert opened == one_walk  # one walk, to "absent"
        with pytest.raises(MissingDirectoryError) as kept_below, opened_directory(deep / "y", cache=cache):
            pass
        assert read_physical(tmp_path / "d" / "absent" / "f", max_bytes=10, cache=cache) is None
        assert opened == one_walk  # below a missing directory: nothing opened
    assert (str(kept.value), str(kept_below.value)) == (str(plain.value), str(plain_below.value))
    assert "absent is missing" in str(kept_below.value)


@posix_only("paths are written in POSIX syntax here")
@settings(max_examples=500)
@given(st.lists(st.sampled_from(["a", "..", ".", "", "b c", "é"]), max_size=5).map("/".join), st.booleans())
def test_target_parts_are_split_target_and_their_join(path, absolute):
    path = ("/" if absolute else "") + path + "/f"
    parent, name, full = target_parts(path)
    assert (parent, name) == split_target(path) and full == os.path.join(parent, name) == os.path.abspath(path)
