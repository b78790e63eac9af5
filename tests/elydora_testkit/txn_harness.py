"""Shared helpers of the transaction acceptance tests.

* :class:`Scenario` builds the canonical 3-file commit (one file replaced, one removed, one created; optionally
  the created file lives in a directory the transaction creates, or only one of the three changes is staged:
  the single-target commit), runs it, and judges the tree afterwards:
  all-old, all-new or mixed, and which leftovers (temp files, journals, artifacts of unfinished transactions,
  stray files or directories) remain.
* :func:`intercept` replaces every function of :mod:`elydora_config._sysio` by a wrapper that hands each call
  to a hook (crash, fault, foreign-writer and recording harnesses are all such hooks).
* :func:`in_child` runs a function in a forked child and returns its exit code (``-9`` when it was killed).
"""

from __future__ import annotations

import errno
import inspect
import os
import signal
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from elydora_config import Transaction, _sysio
from elydora_config._tempdirs import TEMP_DIRS
from elydora_config.files import TEMP_MARKER
from elydora_config.journal import DONE_SUFFIX, JOURNAL_SUFFIX, TRANSACTIONS_DIR

FileState = tuple[bytes, int] | None
Hook = Callable[[str, Callable[..., Any], tuple[Any, ...], dict[str, Any]], Any]

SYSIO_NAMES = tuple(
    name
    for name, fn in vars(_sysio).items()
    if inspect.isfunction(fn) and fn.__module__ == _sysio.__name__ and not name.startswith("_")
)

OLD_SETTINGS = b'{\n  "model": "opus",\n  "hooks": {}\n}\n'
NEW_SETTINGS = b'{\n  "model": "opus",\n  "hooks": {"PreToolUse": [{"command": "elydora hook guard"}]}\n}\n'
OLD_GUARD = b"#!/bin/sh\nexec elydora-old-guard \"$@\"\n"
NEW_AGENT = b'[elydora]\nagent_id = "a-1"\nsecret = "0123456789abcdef"\n'


# -- the scenario -----------------------------------------------------------------------------------------
@dataclass
class Scenario:
    """The 3-file commit: ``conf/settings.json`` replaced (0644 kept), ``conf/guard.sh`` removed, a new file."""

    root: Path
    nested: bool = False  # the new file lives in ``fresh/sub``, created by ``tx.mkdir``
    chmod: bool = False  # settings.json keeps its bytes and only changes mode (0644 -> 0600)
    single: str = ""  # "replaced", "removed" or "created": only that change is staged (the single-target commit)
    initial_dirs: set[str] = field(default_factory=set)

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def replaced(self) -> Path:
        return self.root / "conf" / "settings.json"

    @property
    def removed(self) -> Path:
        return self.root / "conf" / "guard.sh"

    @property
    def created(self) -> Path:
        return self.root / ("fresh/sub" if self.nested else "other") / "agent.toml"

    @property
    def targets(self) -> list[Path]:
        return [self.replaced, self.removed, self.created]

    @property
    def staged(self) -> list[Path]:
        """The targets the commit changes: all three, or the ``single`` one."""
        return [getattr(self, self.single)] if self.single else self.targets

    @property
    def target_dirs(self) -> list[Path]:
        return sorted({p.parent for p in self.targets if p.parent.exists()})

    def build(self) -> Scenario:
        (self.root / "conf").mkdir(parents=True, exist_ok=True)
        if not self.nested:
            (self.root / "other").mkdir(exist_ok=True)
        _put(self.replaced, OLD_SETTINGS, 0o644)
        _put(self.removed, OLD_GUARD, 0o755)
        self.initial_dirs = _dirs(self.root)
        return self

    def old(self) -> dict[Path, FileState]:
        return {self.replaced: (OLD_SETTINGS, 0o644), self.removed: (OLD_GUARD, 0o755), self.created: None}

    def new(self) -> dict[Path, FileState]:
        settings = (OLD_SETTINGS, 0o600) if self.chmod else (NEW_SETTINGS, 0o644)
        new = {self.replaced: settings, self.removed: None, self.created: (NEW_AGENT, 0o600)}
        old = self.old()
        return {path: new[path] if path in self.staged else old[path] for path in self.targets}

    def stage(self, tx: Transaction) -> None:
        staged = self.staged
        for path in staged:
            tx.read(path)
        if self.replaced in staged:
            if self.chmod:
                tx.write(self.replaced, OLD_SETTINGS, mode=0o600)
            else:
                tx.write(self.replaced, NEW_SETTINGS)
        if self.removed in staged:
            tx.remove(self.removed)
        if self.nested:
            tx.mkdir(self.created.parent, 0o700)
        if self.created in staged:
            tx.write(self.created, NEW_AGENT)

    def run(self) -> str | None:
        tx = Transaction(self.state, lock_timeout=5.0)
        self.stage(tx)
        return tx.commit()

    def observe(self) -> dict[Path, FileState]:
        return {path: read_state(path) for path in self.targets}

    def outcome(self) -> str:
        now = self.observe()
        if now == self.old():
            return "old"
        if now == self.new():
            return "new"
        return "mixed: " + ", ".join(f"{p.name}={_short(s)}" for p, s in now.items())

    def leftovers(self, outcome: str) -> list[str]:
        """Everything that should not be there after a resolved transaction ending in ``outcome``."""
        found: list[str] = []
        expected = self.old() if outcome == "old" else self.new()
        wanted_files = {str(p) for p, s in expected.items() if s is not None}
        wanted_dirs = set(self.initial_dirs)
        if outcome == "new" and self.nested:
            wanted_dirs |= {str(self.root / "fresh"), str(self.root / "fresh" / "sub")}
        state = str(self.state)
        for dirpath, dirnames, filenames in os.walk(self.root):
            for name in filenames + dirnames:
                full = os.path.join(dirpath, name)
                if TEMP_MARKER in name:
                    found.append(f"temp file {full}")
                elif full == state or full.startswith(state + os.sep):
                    continue
                elif name in dirnames and full not in wanted_dirs:
                    found.append(f"directory {full}")
                elif name in filenames and full not in wanted_files:
                    found.append(f"file {full}")
        for name in _wanted_dirs_missing(wanted_dirs):
            found.append(f"missing directory {name}")
        found.extend(state_leftovers(self.state))
        return found


def state_leftovers(state: Path) -> list[str]:
    """Journals, and files of transactions that are neither pending nor retained as ``.done``."""
    txdir = state / TRANSACTIONS_DIR
    names = os.listdir(txdir) if txdir.is_dir() else []
    done = {n[: -len(DONE_SUFFIX)] for n in names if n.endswith(DONE_SUFFIX)}
    found = [f"journal {txdir / n}" for n in names if n.endswith(JOURNAL_SUFFIX)]
    found += [
        f"orphan {txdir / n}"
        for n in names
        if not n.endswith(JOURNAL_SUFFIX) and n.split(".", 1)[0] not in done and n != TEMP_DIRS
    ]
    if state.is_dir():
        extra = set(os.listdir(state)) - {".lock", TRANSACTIONS_DIR}
        found += [f"state entry {state / n}" for n in sorted(extra)]
    return found


def _wanted_dirs_missing(wanted: set[str]) -> list[str]:
    return sorted(d for d in wanted if not os.path.isdir(d))


def _dirs(root: Path) -> set[str]:
    return {os.path.join(dp, d) for dp, dns, _ in os.walk(root) for d in dns}


def _put(path: Path, data: bytes, mode: int) -> None:
    path.write_bytes(data)
    os.chmod(path, mode)


def _short(state: FileState) -> str:
    if state is None:
        return "absent"
    return f"{state[0][:24]!r}..({len(state[0])}B,{state[1]:o})"


def read_state(path: Path) -> FileState:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return (b"<not a regular file>", stat.S_IFMT(info.st_mode))
    return (path.read_bytes(), stat.S_IMODE(info.st_mode))


# -- intercepting _sysio ------------------------------------------------------------------------------------
@contextmanager
def intercept(hook: Hook) -> Iterator[None]:
    """Route every ``_sysio`` call through ``hook(name, real_function, args, kwargs)``."""
    originals = {name: getattr(_sysio, name) for name in SYSIO_NAMES}

    def wrapped(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            return hook(name, real, args, kwargs)

        return call

    for name, real in originals.items():
        setattr(_sysio, name, wrapped(name, real))
    try:
        yield
    finally:
        for name, real in originals.items():
            setattr(_sysio, name, real)


def is_mutating(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Every ``_sysio`` call changes the file system except ``close`` and opening without ``O_CREAT``."""
    if name == "close":
        return False
    if name == "open_file":
        flags = args[1] if len(args) > 1 else kwargs["flags"]
        return bool(flags & os.O_CREAT)
    return True


def describe(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    shown = [os.path.basename(a) if isinstance(a, str) else "fd" for a in args[:2] if isinstance(a, (str, int))]
    return f"{name}({', '.join(shown)})"


def enumerate_calls(fn: Callable[[], object]) -> list[str]:
    """Run ``fn`` in this process and list its mutating ``_sysio`` calls, in order."""
    calls: list[str] = []

    def hook(name: str, real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if is_mutating(name, args, kwargs):
            calls.append(describe(name, args, kwargs))
        return real(*args, **kwargs)

    with intercept(hook):
        fn()
    return calls


def kill_before(index: int) -> Hook:
    """A hook that SIGKILLs this process right before its ``index``-th (0-based) mutating call.

    Real fsyncs are skipped (they still count as crash points): a killed process loses nothing that is in
    the page cache, so durability plays no part in this harness and the skipped calls only save time.
    """
    seen = 0

    def hook(name: str, real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        nonlocal seen
        if is_mutating(name, args, kwargs):
            if seen == index:
                os.kill(os.getpid(), signal.SIGKILL)
            seen += 1
        return skip_fsync(name, real, args, kwargs)

    return hook


def skip_fsync(name: str, real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A hook that performs every call except ``fsync``/``fsync_dir`` (for harnesses where durability is moot)."""
    return None if name in ("fsync", "fsync_dir") else real(*args, **kwargs)


def without_renameat2(monkeypatch: Any) -> None:
    """Make ``exchange`` and ``rename_noreplace`` fail as on a file system that does not support them."""

    def unsupported(src: str, dst: str, **_: Any) -> None:
        raise OSError(errno.EINVAL, os.strerror(errno.EINVAL), src, None, dst)

    monkeypatch.setattr(_sysio, "exchange", unsupported)
    monkeypatch.setattr(_sysio, "rename_noreplace", unsupported)


def in_child(fn: Callable[[], object]) -> int:
    """Run ``fn`` in a forked child; its exit code (0 ok, 70 exception, -9 killed)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        code = 0
        try:
            fn()
        except BaseException:
            code = 70
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def crash_at(index: int, fn: Callable[[], object]) -> int:
    """Run ``fn`` in a child that is killed before its ``index``-th mutating ``_sysio`` call."""

    def child() -> None:
        with intercept(kill_before(index)):
            fn()

    return in_child(child)
