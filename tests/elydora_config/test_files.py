"""Physical reads, atomic writes and private appends, on real files in temporary directories."""

from __future__ import annotations

import errno
import os
import stat

import pytest
from elydora_testkit.platforms import NO_LINKS, NO_MODES, NO_SPECIAL_FILES, posix_only

from elydora_config import _sysio
from elydora_config.errors import FileTooLargeError, MalformedConfigError, UnsafePathError
from elydora_config.files import TEMP_MARKER, append_private, read_physical, write_atomic


def test_read_absent_returns_none(tmp_path):
    assert read_physical(tmp_path / "missing.json", max_bytes=10) is None


def test_read_text_strict_utf8_names_line_and_column(tmp_path):
    target = tmp_path / "bad.json"
    target.write_bytes(b'{\n  "a": "\xff"\n}')
    with pytest.raises(MalformedConfigError) as info:
        read_physical(target, max_bytes=100, text=True)
    assert info.value.line == 2 and info.value.column == 9
    assert str(target) in str(info.value) and "UTF-8" in str(info.value)


def test_read_refuses_oversized_file(tmp_path):
    target = tmp_path / "big"
    target.write_bytes(b"x" * 101)
    with pytest.raises(FileTooLargeError, match="101 bytes"):
        read_physical(target, max_bytes=100)
    assert read_physical(target, max_bytes=101) == b"x" * 101

@pytest.mark.parametrize(
    "kind",
    [
        pytest.param("symlink", marks=posix_only(NO_LINKS)),
        "directory",
        pytest.param("fifo", marks=posix_only(NO_SPECIAL_FILES)),
    ],
)
def test_read_refuses_non_regular(tmp_path, kind):
    target = tmp_path / "settings.json"
    if kind == "symlink":
        (tmp_path / "real").write_text("{}")
        target.symlink_to(tmp_path / "real")
    elif kind == "directory":
        target.mkdir()
    else:
        os.mkfifo(target)
    with pytest.raises(UnsafePathError) as info:
        read_physical(target, max_bytes=100)
    assert str(target) in str(info.value)


@posix_only(NO_LINKS)
def test_symlinked_parent_refused_unless_allowed(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "f").write_text("data")
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        read_physical(tmp_path / "link" / "f", max_bytes=10)
    assert read_physical(tmp_path / "link" / "f", max_bytes=10, allow_links=True) == b"data"
    with pytest.raises(UnsafePathError):
        write_atomic(tmp_path / "link" / "g", b"x")


@posix_only(NO_MODES)
def test_write_atomic_new_file_is_0600_and_durable(tmp_path):
    target = tmp_path / "new.json"
    write_atomic(target, b"{}")
    assert target.read_bytes() == b"{}"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert not [n for n in os.listdir(tmp_path) if TEMP_MARKER in n]


@posix_only(NO_MODES)
def test_write_atomic_keeps_existing_mode_or_sets_requested(tmp_path):
    target = tmp_path / "settings.json"
    target.write_text("old")
    target.chmod(0o644)
    write_atomic(target, b"new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    write_atomic(target, b"newer", mode=0o600)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert target.read_bytes() == b"newer"


@posix_only(NO_LINKS)
def test_write_atomic_refuses_symlink_target(tmp_path):
    real = tmp_path / "real"
    real.write_text("keep")
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        write_atomic(tmp_path / "link", b"x")
    assert real.read_text() == "keep"


def test_write_atomic_failure_leaves_original_and_no_temp(tmp_path, monkeypatch):
    target = tmp_path / "f"
    target.write_bytes(b"original")

    def full_disk(fd, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_sysio, "write_all", full_disk)
    with pytest.raises(OSError, match="No space"):
        write_atomic(target, b"replacement")
    assert target.read_bytes() == b"original"
    assert os.listdir(tmp_path) == ["f"]


@posix_only(NO_MODES)
def test_new_temp_is_0600_before_first_byte(tmp_path, monkeypatch):
    seen = []
    real_write = _sysio.write_all

    def spy(fd, data):
        seen.append(stat.S_IMODE(os.fstat(fd).st_mode))
        real_write(fd, data)

    monkeypatch.setattr(_sysio, "write_all", spy)
    target = tmp_path / "public"
    target.write_text("x")
    target.chmod(0o644)
    write_atomic(target, b"secret-free but checked")
    assert seen == [0o600]
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


@posix_only(NO_MODES)
def test_append_private_creates_owner_only_and_appends(tmp_path):
    log = tmp_path / "error.log"
    append_private(log, "one\n")
    append_private(log, b"two\n")
    assert log.read_text() == "one\ntwo\n"
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


@posix_only(NO_MODES)
def test_append_private_refuses_shared_file_and_links(tmp_path):
    log = tmp_path / "error.log"
    log.write_text("")
    log.chmod(0o644)
    with pytest.raises(UnsafePathError, match="0600"):
        append_private(log, "x\n")
    (tmp_path / "l").symlink_to(log)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        append_private(tmp_path / "l", "x\n")


def test_write_atomic_in_a_directory_it_cannot_write_names_the_file_not_its_temp(tmp_path, monkeypatch):
    """A read-only state directory (EROFS, EACCES): the error names the file asked for, never our temp file."""
    target = tmp_path / "status.json"
    original_open = _sysio.open_file

    def read_only_directory(name, flags, *args, **kwargs):
        if flags & os.O_CREAT:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), name)
        return original_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(_sysio, "open_file", read_only_directory)
    with pytest.raises(OSError) as caught:
        write_atomic(target, b"{}")
    assert caught.value.filename == str(target) and caught.value.errno == errno.EROFS
    assert os.listdir(tmp_path) == []
