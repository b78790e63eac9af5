"""Every user-caused error of ``elydora install`` ends in one ``Error:`` line naming the file, a documented
exit code, no traceback, and every file byte-identical with no leftovers."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from elydora_testkit.platforms import NO_LINKS, NO_SPECIAL_FILES, posix_only

from elydora_cli.main import main
from elydora_config import _sysio
from elydora_config.files import TEMP_MARKER


def tree(root: Path) -> dict[str, bytes | str]:
    """Every entry below ``root`` by its ``/``-separated relative path: file bytes, or a marker for directories,
    links and specials."""
    found: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[rel] = f"-> {os.readlink(path)}"
            elif path.is_dir():
                found[rel] = "<dir>"
            elif path.is_file():
                found[rel] = path.read_bytes()
            else:
                found[rel] = "<special>"
    return found


def user_tree(root: Path) -> dict[str, bytes | str]:
    """The tree minus the state directory's lock and empty transaction folder (infrastructure, not leftovers)."""
    keep = {".elydora", ".elydora/.lock", ".elydora/transactions"}
    return {k: v for k, v in tree(root).items() if k not in keep}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def settings(home: Path) -> Path:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


BAD_CLAUDE = {
    "malformed": (b'{"hooks": ', "claudecode", "1:11"),
    "trailing comma": (b'{"model": "x",}\n', "claudecode", "trailing comma"),
    "duplicate key": (b'{"model": "a", "model": "b"}\n', "claudecode", "duplicate"),
    "hooks is a list": (b'{"hooks": []}\n', "claudecode", "hooks must be an object"),
    "unknown event": (b'{"hooks": {"NoSuchEvent": []}}\n', "claudecode", "NoSuchEvent"),
    "bad handler key": (
        b'{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "bogus": 1}]}]}}',
        "claudecode",
        "bogus",
    ),
    "BOM": (b"\xef\xbb\xbf{}\n", "claudecode", "byte order mark"),
    "non-UTF-8": (b'{"model": "\xff"}\n', "claudecode", "UTF-8"),
    "disabled": (b'{"disableAllHooks": true}\n', "claudecode", "disableAllHooks"),
    "disableAllHooks wrong type": (b'{"disableAllHooks": "yes"}\n', "claudecode", "disableAllHooks must be"),
}


@pytest.mark.parametrize("name", sorted(BAD_CLAUDE))
def test_bad_settings_file_is_refused_untouched(tmp_path, capsys, name):
    content, provider, expected = BAD_CLAUDE[name]
    home = tmp_path / "home"
    target = settings(home)
    target.write_bytes(content)
    before = tree(home)
    code, _, err = run(capsys, "install", provider, "--root", str(home))
    assert code == 1
    assert err.count("\n") == 1 and err.startswith("Error: ") and str(target) in err
    assert expected.lower() in err.lower(), err
    assert "Traceback" not in err
    assert tree(home) == before


def test_gemini_trailing_comma_refused(tmp_path, capsys):
    home = tmp_path / "home"
    target = home / ".gemini" / "settings.json"
    target.parent.mkdir(parents=True)
    target.write_bytes(b'{\n  // comment\n  "theme": "x",\n}\n')
    before = tree(home)
    code, _, err = run(capsys, "install", "gemini", "--root", str(home))
    assert code == 1 and "trailing comma" in err.lower() and str(target) in err
    assert tree(home) == before


@pytest.mark.parametrize(
    "kind",
    [
        "directory",
        pytest.param("fifo", marks=posix_only(NO_SPECIAL_FILES)),
        pytest.param("symlink", marks=posix_only(NO_LINKS)),
        pytest.param("symlinked parent", marks=posix_only(NO_LINKS)),
    ],
)
def test_wrong_kind_of_file_refused(tmp_path, capsys, kind):
    home = tmp_path / "home"
    target = settings(home)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "settings.json").write_bytes(b"{}\n")
    if kind == "directory":
        target.mkdir()
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "symlink":
        target.symlink_to(elsewhere / "settings.json")
    else:
        target.parent.rmdir()
        target.parent.symlink_to(elsewhere)
    before, outside = tree(home), tree(elsewhere)
    code, _, err = run(capsys, "install", "claudecode", "--root", str(home))
    assert code == 1 and err.startswith("Error: ") and "Traceback" not in err
    assert {
        "directory": "is a directory",
        "fifo": "not a regular file",
        "symlink": "symbolic link",
        "symlinked parent": "symbolic link",
    }[kind] in err
    assert tree(home) == before and tree(elsewhere) == outside


def _fail_when(monkeypatch, name: str, predicate, err: int) -> None:
    original = getattr(_sysio, name)

    def failing(*args, **kwargs):
        if predicate(*args, **kwargs):
            raise OSError(err, os.strerror(err), args[0] if args and isinstance(args[0], str) else None)
        return original(*args, **kwargs)

    monkeypatch.setattr(_sysio, name, failing)


@pytest.mark.parametrize(
    "case",
    ["unreadable settings", "read-only settings directory", "full disk", "EIO on fsync", "EBUSY on rename"],
)
def test_io_failures_leave_everything_as_it_was(tmp_path, capsys, monkeypatch, case):
    home = tmp_path / "home"
    target = settings(home)
    target.write_bytes(b'{\n  "model": "sonnet"\n}\n')
    before = user_tree(home)
    if case == "unreadable settings":
        _fail_when(
            monkeypatch,
            "open_file",
            lambda name, flags, *a, **k: name == "settings.json" and not flags & os.O_CREAT,
            errno.EACCES,
        )
    elif case == "read-only settings directory":
        _fail_when(
            monkeypatch,
            "open_file",
            lambda name, flags, *a, **k: "settings.json" in name and TEMP_MARKER in name,
            errno.EACCES,
        )
    elif case == "full disk":
        calls = {"n": 0}

        def third(*a, **k):
            calls["n"] += 1
            return calls["n"] == 3

        _fail_when(monkeypatch, "write_all", third, errno.ENOSPC)
    elif case == "EIO on fsync":
        _fail_when(monkeypatch, "fsync", lambda *a, **k: True, errno.EIO)
    else:
        for call in ("rename", "exchange", "rename_noreplace"):
            if hasattr(_sysio, call):
                _fail_when(monkeypatch, call, lambda src, dst, **k: dst == "settings.json", errno.EBUSY)
    code, _, err = run(capsys, "install", "claudecode", "--root", str(home))
    assert code == 1 and err.startswith("Error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert user_tree(home) == before
    assert not [p for p in tree(home) if TEMP_MARKER in p or p.endswith(".journal")]


def test_dry_run_prints_diff_and_writes_nothing(tmp_path, capsys):
    home = tmp_path / "home"
    target = settings(home)
    target.write_bytes(b'{\n  "model": "sonnet"\n}\n')
    before = tree(home)
    code, out, _ = run(capsys, "install", "claudecode", "--root", str(home), "--dry-run")
    assert code == 0
    assert f"--- {target}" in out and '+  "hooks": {' in out
    assert "private.key" in out and "not shown" in out
    assert tree(home) == before


def test_bad_flags_are_usage_errors(tmp_path, capsys):
    home = str(tmp_path / "home")
    os.mkdir(home)
    for argv in (
        ["install", "--root", home],
        ["install", "claudecode", "--all", "--root", home],
        ["install", "claudecode", "--hook-timeout-seconds", "3601", "--root", home],
        ["install", "claudecode", "codex", "--agent-id", "x", "--root", home],
    ):
        code, _, err = run(capsys, *argv)
        assert code == 2 and err.startswith("Error: "), argv
    with pytest.raises(SystemExit) as info:
        main(["install", "--no-such-flag"])
    assert info.value.code == 2
    code, _, err = run(capsys, "install", "claudecode", "--agent-id", "../x", "--root", home)
    assert code == 2 and "agent id" in err  # a usage error


def test_kimi_refuses_timeout_above_600(tmp_path, capsys):
    code, _, err = run(capsys, "install", "kimi", "--hook-timeout-seconds", "601", "--root", str(tmp_path))
    assert code == 2 and "600" in err
    assert not (tmp_path / ".kimi-code").exists()
