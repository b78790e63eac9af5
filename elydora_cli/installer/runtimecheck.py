"""What ``status`` checks of an installed agent beyond its config entries: that the install is live (a guard
that is no uninstall stub), that it was made with the same ``--hook-command``, and its runtime (the generated
files byte for byte and the launchers executable, the bytecode against the manifest's digests, nothing the
interpreter could import planted beside them, the identity, the interpreter or supervisor the entries run).

The interpreter is checked by what it is, not only by its path: the install manifest records its
:func:`fingerprint` (device, inode, size, modification time of the file the path resolves to); when that
changed, ``status`` runs it once (:func:`runs_runtime`) and reports one that does not run Python (a stub
that exits 0 would let every tool call through).
"""

from __future__ import annotations

import functools
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config import _platform

from .. import identity
from ..neutral.hookcommand import parse_hook_command
from ..plug.context import Context
from ..plug.contract import Finding
from ..plug.ownership import command_words
from ..readpass import Reads
from ..runtime.bytecode import CODE_SUFFIX, digest
from ..runtime.stubs import stub_time
from .manifest import Manifest
from .staging import runtime_files
from .systemscope import system_file_findings, system_policy_findings, user_root

if TYPE_CHECKING:  # the plug's shape, for type checking only
    from ..plug.provider import Provider


def live_guard(path: Path) -> bool:
    """A guard script that is not an uninstall's inert stub."""
    if not path.exists():  # most agents are not installed: no stub module to load for them
        return False
    return stub_time(path) is None


def _words(command: str | None) -> tuple[str, ...] | str | None:
    if command is None:
        return None
    try:
        return command_words(command)
    except ValueError:  # a manifest edited by hand: compare the text
        return command


def command_mismatch(recorded: str | None, given: str | None) -> str | None:
    """Why the install and this command's ``--hook-command`` disagree (``None``: they agree)."""
    if _words(recorded) == _words(given):
        return None
    if given is None:
        return f"installed with --hook-command {recorded!r}; pass the same --hook-command (or reinstall without it)"
    if recorded is None:
        return "installed without --hook-command (the entries run the Elydora runtime); drop --hook-command"
    return f"installed with --hook-command {recorded!r}, not {given!r}; pass that one (or reinstall)"


def check_runtime(
    provider: Provider, provider_id: str, ctx: Context, agent_dir: Path, agent_id: str, manifest: Manifest | None
) -> list[Finding]:
    findings = []
    python = manifest.python if manifest else ctx.python
    runtime_dir = ctx.runtime_dir(agent_id)
    expected = {} if ctx.hook_command else runtime_files(provider_id, runtime_dir, python, user_root(ctx))
    expected.update(provider.extra_runtime(ctx.with_options(python=python), agent_id))
    for name, (data, mode) in expected.items():
        path = ctx.runtime_file(agent_id, name)
        actual = ctx.reads.read_physical(path, max_bytes=4 << 20)
        if actual is None:
            findings.append(Finding("runtime file is missing", path))
        elif actual != data:
            findings.append(Finding("runtime file differs from what this version generates (reinstall)", path))
        elif ctx.system:
            findings += system_file_findings(path, mode)
        elif (_platform.kept_mode(mode) & stat.S_IXUSR  # Windows keeps no execute bit: python.exe runs the file
              and not _platform.file_mode(os.lstat(path).st_mode) & stat.S_IXUSR):
            findings.append(Finding("is not executable: the agent cannot start it (chmod 700 it, or reinstall)", path))
    code = {} if ctx.hook_command or manifest is None else manifest.bytecode
    findings += _bytecode_findings(ctx, agent_id, code)
    if not ctx.hook_command:
        findings += planted(runtime_dir, {*expected, *code})
    if ctx.system:
        findings += system_policy_findings(runtime_dir)
    else:
        findings += _identity_findings(agent_dir, provider_id, ctx.reads)
    executable, what = (python, "hook interpreter")
    if ctx.hook_command:
        executable, what = _supervisor(ctx.hook_command), "supervisor"
    if not os.path.isfile(executable) or not os.access(executable, os.X_OK):
        findings.append(Finding(f"the {what} {executable} does not exist or is not executable"))
    elif not ctx.hook_command:
        findings += _interpreter_findings(python, manifest.interpreter if manifest else None, code, ctx.reads)
    return findings


def _bytecode_findings(ctx: Context, agent_id: str, code: dict[str, str]) -> list[Finding]:
    """Each bytecode file the install compiled, unchanged (one that differs could run other code)."""
    findings = []
    for name, recorded in sorted(code.items()):
        path = ctx.runtime_file(agent_id, name)
        data = _read_regular(path)
        if data is None:
            findings.append(Finding("compiled runtime is missing: the hooks compile the source on every call "
                                    "(reinstall)", path, severity="note"))
        elif digest(data) != recorded:
            findings.append(Finding("compiled runtime differs from what install compiled: the hooks would run it "
                                    "in place of the runtime (reinstall)", path))
    return findings


def _read_regular(path: Path) -> bytes | None:
    """The file's bytes when it is a regular file (not followed through a link, never blocking), else ``None``;
    its folder was checked with the generated files beside it."""
    try:
        flags = os.O_RDONLY | _platform.O_NOFOLLOW | _platform.O_NONBLOCK | _platform.O_CLOEXEC
        fd = _platform.open_at(str(path), flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        return os.read(fd, info.st_size + 1) if stat.S_ISREG(info.st_mode) and info.st_size <= 4 << 20 else None
    finally:
        os.close(fd)


IMPORTABLE = (".py", ".pyc", ".pyo", ".pyw", ".so", ".pyd", CODE_SUFFIX)
"""File endings the interpreter (or our launcher) could load code from."""
PYCACHE = "__pycache__"


def planted(runtime_dir: Path, ours: set[str]) -> list[Finding]:
    """Anything beside the runtime that is not ours and that code could be loaded from: a module or package a
    hook interpreter that puts the script's folder on ``sys.path`` (Python 3.10, or a wrapper without ``-I``)
    would import in place of a standard-library module, or compiled files in ``__pycache__`` (no launcher of
    this version reads them)."""
    try:
        with os.scandir(runtime_dir) as listing:
            entries = [e for e in listing if e.name not in ours and (e.name.endswith(IMPORTABLE) or e.is_dir())]
    except OSError:
        return []
    findings = []
    for entry in sorted(entries, key=lambda e: e.name):
        path = Path(entry.path)
        if entry.is_dir():  # a link to a folder imports as well as a folder
            if entry.name == PYCACHE and _has_entries(path):
                findings.append(Finding("holds compiled modules the runtime does not use (remove the folder)", path))
            elif entry.name != PYCACHE and any((path / f"__init__{end}").exists() for end in (".py", ".pyc")):
                findings.append(Finding(f"{_PLANTED}; remove it", path))
        elif entry.name.endswith(IMPORTABLE):
            findings.append(Finding(f"{_PLANTED}; remove it", path))
    return findings


_PLANTED = "is not part of the runtime, but the hook interpreter could import it in place of a standard module"


def _has_entries(path: Path) -> bool:
    try:
        with os.scandir(path) as listing:
            return any(True for _ in listing)
    except OSError:
        return False


def fingerprint(python: str) -> dict[str, object] | None:
    """What the interpreter file is now: the file its path resolves to, with device, inode, size and
    modification time (``None`` when it cannot be read)."""
    real = os.path.realpath(python)
    try:
        info = os.stat(real)
    except OSError:
        return None
    return {"path": real, "dev": info.st_dev, "ino": info.st_ino, "size": info.st_size, "mtime_ns": info.st_mtime_ns}


PROBE = (
    "import marshal, posix, select, sys, time\n"
    "sys.stdout.write('elydora-python %s %d' % (sys.implementation.cache_tag, 6 * 7))\n"
)
"""What the hook interpreter must run (the runtime's imports, and an answer a stub cannot give)."""
PROBE_TIMEOUT = 10.0


@functools.cache
def runs_runtime(python: str, fingerprint_now: str) -> tuple[str | None, str | None]:
    """(cache tag, problem): whether ``python`` runs the runtime's imports with the runtime's flags; asked once
    per interpreter and fingerprint in a process (``fingerprint_now`` keys the cache)."""
    import subprocess  # only when the interpreter changed since install: status spawns nothing otherwise

    try:
        done = subprocess.run([python, "-I", "-S", "-c", PROBE], capture_output=True, timeout=PROBE_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"cannot be run: {exc}"
    words = done.stdout.decode("utf-8", "replace").split()
    if done.returncode != 0 or len(words) != 3 or words[0] != "elydora-python" or words[2] != "42":
        return None, f"does not run Python (exit {done.returncode}, answered {done.stdout[:60]!r})"
    return words[1], None


def interpreter_state(
    python: str, recorded: dict[str, object] | None, reads: Reads
) -> tuple[str, str | None, str | None]:
    """(``"as installed"``, ``"changed"`` or ``"not recorded"``; cache tag when it was run; problem)."""
    now = reads.kept(("interpreter fingerprint", python), lambda: fingerprint(python))  # once per status pass
    if recorded is not None and now == recorded:
        return "as installed", None, None
    tag, problem = runs_runtime(python, repr(now))
    return ("changed" if recorded is not None else "not recorded"), tag, problem


def _interpreter_findings(
    python: str, recorded: dict[str, object] | None, code: dict[str, str], reads: Reads
) -> list[Finding]:
    state, tag, problem = interpreter_state(python, recorded, reads)
    if problem is not None:
        why = "changed since install and " if state == "changed" else ""
        return [Finding(f"the hook interpreter {python} {why}{problem}: the guard cannot run (reinstall with a "
                        "working --python)")]
    if state == "changed" and code and not any(name.endswith(f".{tag}{CODE_SUFFIX}") for name in code):
        return [Finding(f"the hook interpreter {python} changed since install ({tag}): the hooks compile the runtime "
                        "on every call (reinstall)", severity="note")]
    return []


def _identity_findings(agent_dir: Path, provider_id: str, reads: Reads) -> list[Finding]:
    findings = []
    try:
        config = identity.read_config(agent_dir, reads=reads)
        if config.agent_name != provider_id:
            findings.append(
                Finding(f"agent_name is {config.agent_name!r}, expected {provider_id!r}", agent_dir / identity.CONFIG)
            )
        identity.check_private_key(agent_dir, reads=reads)
    except Exception as exc:  # every identity problem is one finding, never a crash of status
        findings.append(Finding(str(exc)))
    return findings


def _supervisor(command: str) -> str:
    return parse_hook_command(command).executable
