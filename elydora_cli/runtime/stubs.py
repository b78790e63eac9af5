"""Inert runtime stubs: what uninstall leaves at ``guard.py``/``hook.py`` (and at the ``--hook-command``
launcher ``supervisor.py``) so running sessions keep working.

An agent session started before ``elydora uninstall`` keeps calling the scripts its settings named when it
started. Deleting them would make every tool call of that session fail (the interpreter cannot open the
script: exit 2, most agents' block code). Uninstall therefore replaces the two launchers with stubs that
drain stdin (with the hooks' deadline), answer the agent's plain success (allow, recorded nothing) and exit
0; the implementation modules and the manifest are removed. The stubs are removed by the next install or
uninstall of that agent once :data:`GRACE_SECONDS` have passed (``status`` reports them, never as installed).
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from elydora_config import _platform

from .. import catalog
from ..statefiles import SUPERVISOR_SCRIPT
from .generate import GUARD_NAME, HOOK_NAME

GRACE_SECONDS = 24 * 3600
MARKER = "# elydora inert stub, left by uninstall at "
_READ = os.O_RDONLY | _platform.O_NOFOLLOW | _platform.O_NONBLOCK | _platform.O_CLOEXEC

_BODY = '''import os
if os.name == "nt":  # no SIGALRM: the pipe is read without blocking until the deadline
    import time
    _end = time.monotonic() + 0.75
    try:
        os.set_blocking(0, False)
        while time.monotonic() < _end:
            try:
                if not os.read(0, 1 << 16):
                    break
            except BlockingIOError:
                time.sleep(0.001)
    except OSError:
        pass
else:
    import _signal
    def _stop(*_):
        raise TimeoutError
    _signal.signal(_signal.SIGALRM, _stop)
    _signal.setitimer(_signal.ITIMER_REAL, 0.75)
    try:
        while os.read(0, 1 << 16):
            pass
    except (OSError, TimeoutError):
        pass
    _signal.setitimer(_signal.ITIMER_REAL, 0)
os.write(1, {stdout!r})
'''


def stub_bytes(provider_id: str, script: str, python: str, now: float | None = None) -> bytes:
    facts = catalog.provider(provider_id)
    guard = script in (GUARD_NAME, SUPERVISOR_SCRIPT)  # the supervisor's launcher answers first as a guard
    stdout = facts.guard_runtime.success_stdout if guard else facts.audit.success_stdout
    stamp = int(time.time() if now is None else now)
    shebang = f"#!{python} -IS\n" if not any(c.isspace() for c in python) else ""
    return (shebang + f"{MARKER}{stamp}\n" + _BODY.format(stdout=stdout)).encode("utf-8")


def stubs(provider_id: str, python: str, now: float | None = None) -> dict[str, bytes]:
    """Stubs for every launcher an entry may name (only those present are ever written: ``stage_stubs``)."""
    return {name: stub_bytes(provider_id, name, python, now) for name in (GUARD_NAME, HOOK_NAME, SUPERVISOR_SCRIPT)}


def stub_time(path: Path) -> int | None:
    """When uninstall left the stub at ``path`` (``None``: not a stub of ours)."""
    try:
        fd = _platform.open_at(str(path), _READ)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        head = os.read(fd, 512).decode("utf-8", "replace")
    finally:
        os.close(fd)
    for line in head.splitlines()[:2]:
        if line.startswith(MARKER) and line[len(MARKER) :].isdigit():
            return int(line[len(MARKER) :])
    return None


def expired(path: Path, now: float | None = None) -> bool:
    stamp = stub_time(path)
    return stamp is not None and (time.time() if now is None else now) - stamp >= GRACE_SECONDS
