"""I/O fault injection at every step of the 3-file commit, once and persistently.

Every ``_sysio`` call of the commit except ``close`` is a step. At step N the injected error is raised the
way the kernel would report it (``OSError`` with the file name for path calls, without one for descriptor
calls); "once" fails only that call, "persistent" fails it and every later call of the same function. For
each (step, errno, once/persistent):

* the commit either succeeds despite the fault (all-new: e.g. a failed hard link falls back to a copy) or
  raises exactly one error that names a file (``ConfigError.path`` or ``OSError.filename``);
* after a failure the originals are byte-identical (content and mode) and nothing of the failed transaction
  is left: no temp file, journal, artifact or created directory, and ``pending()`` is empty;
* once the fault is gone, the same commit succeeds without any recovery step.
"""

from __future__ import annotations

import errno
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.txn_harness import Hook, Scenario, intercept, skip_fsync

from elydora_config import ConfigError, RollbackIncompleteError, pending, recover

ERRNOS = {
    "open_file": (errno.EACCES, errno.ENOSPC),
    "write_all": (errno.ENOSPC, errno.EIO),
    "fsync": (errno.EIO,),
    "fsync_dir": (errno.EIO,),
    "fchmod": (errno.EPERM,),
    "rename": (errno.EACCES, errno.EXDEV, errno.EBUSY),
    "exchange": (errno.EACCES, errno.EXDEV, errno.EBUSY, errno.EINVAL),
    "rename_noreplace": (errno.EACCES, errno.EXDEV, errno.EBUSY, errno.EINVAL),
    "link": (errno.EXDEV, errno.EPERM, errno.ENOSPC),
    "unlink": (errno.EACCES, errno.EBUSY),
    "mkdir": (errno.ENOSPC, errno.EACCES),
    "rmdir": (errno.EBUSY,),
}
PATH_ARGS = {"open_file": 1, "unlink": 1, "mkdir": 1, "rmdir": 1, "rename": 2, "link": 2, "exchange": 2}
PATH_ARGS["rename_noreplace"] = 2


def _steps(tmp_path: Path, nested: bool, single: str = "") -> list[str]:
    probe = Scenario(tmp_path / "probe", nested, single=single).build()
    steps: list[str] = []

    def hook(name: str, real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if name != "close":
            steps.append(name)
        return real(*args, **kwargs)

    with intercept(hook):
        probe.run()
    return steps


def _injected(name: str, code: int, args: tuple[Any, ...]) -> OSError:
    names = [a for a in args[: PATH_ARGS.get(name, 0)] if isinstance(a, str)]
    return OSError(code, os.strerror(code), *names[:1], None, *names[1:2])


def fault_at(step: int, code: int, persistent: bool, fired: list[str]) -> Hook:
    seen = 0

    def hook(name: str, real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        nonlocal seen
        if name == "close":
            return real(*args, **kwargs)
        index, seen = seen, seen + 1
        if index == step or (persistent and fired and fired[0] == name):
            fired.append(name)
            raise _injected(name, code, args)
        if name in ("fsync", "fsync_dir"):
            return None  # durability plays no part here; skipping the real call keeps the test fast
        return real(*args, **kwargs)

    return hook


def names_a_file(exc: BaseException) -> bool:
    if isinstance(exc, ConfigError):
        return bool(exc.path)
    return isinstance(exc, OSError) and bool(exc.filename)


def _judge(scn: Scenario, error: BaseException | None, persistent: bool) -> list[str]:
    outcome = scn.outcome()
    if error is None:
        return [] if outcome == "new" else [f"no error but {outcome}"]
    found = [] if names_a_file(error) else [f"error does not name a file: {type(error).__name__}: {error}"]
    if persistent and isinstance(error, RollbackIncompleteError) and error.recovery_path:
        # The fault also defeats the rollback: the journal is kept and recovery must finish the job.
        recover(scn.state)
        outcome = scn.outcome()
        if outcome not in ("old", "new"):
            return [*found, f"after recovery: {outcome}"]
    elif outcome != "old":
        return [*found, f"{type(error).__name__}: {error} but {outcome}"]
    elif persistent and pending(scn.state):
        # A persistent unlink fault can make clean-up impossible; the journal then resolves on recovery.
        recover(scn.state)
    found += scn.leftovers(outcome)
    found += [f"pending {p.journal_path}" for p in pending(scn.state)]
    return found


VARIANTS = {  # the scenario, and the calls its commit must make (so that each gets a fault)
    "flat": (False, "", {"write_all", "fsync", "fsync_dir", "rename", "link", "unlink", "exchange"}),
    "mkdir": (True, "", {"write_all", "fsync", "fsync_dir", "rename", "link", "unlink", "exchange", "mkdir"}),
    "single-replaced": (False, "replaced", {"write_all", "fchmod", "fsync", "fsync_dir", "exchange", "unlink"}),
    "single-removed": (False, "removed", {"fsync_dir", "rename", "unlink"}),
    "single-created": (False, "created", {"write_all", "fsync", "fsync_dir", "rename_noreplace"}),
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_fault_at_every_step_once_and_persistent(tmp_path: Path, variant: str) -> None:
    nested, single, expected = VARIANTS[variant]
    steps = _steps(tmp_path, nested, single)
    assert expected <= set(steps), steps
    results: Counter[str] = Counter()
    problems: list[str] = []
    for step, name in enumerate(steps):
        for code in ERRNOS[name]:
            for persistent in (False, True):
                label = f"step {step} {name} {errno.errorcode[code]} {'persistent' if persistent else 'once'}"
                scn = Scenario(tmp_path / f"s{step}-{code}-{int(persistent)}", nested, single=single).build()
                fired: list[str] = []
                error: BaseException | None = None
                with intercept(fault_at(step, code, persistent, fired)):
                    try:
                        scn.run()
                    except Exception as exc:
                        error = exc
                assert fired, f"{label}: the fault was never injected"
                found = _judge(scn, error, persistent)
                if error is not None and not found:
                    with intercept(skip_fsync):
                        scn.run()
                    if scn.outcome() != "new":
                        found.append("the retried commit did not apply")
                problems += [f"{label}: {p}" for p in found]
                results["error" if error else "tolerated"] += 1
                results["kept for recovery"] += isinstance(error, RollbackIncompleteError) or bool(pending(scn.state))
    print(f"\nfault points ({variant}): {len(steps)} steps, {sum(results.values())} runs "
          f"-> {dict(results)}")
    assert problems == [], "\n".join(problems[:400]) + f"\n... {len(problems)} problems"
    assert results["error"] >= len(steps)
    # The journalled commit tolerates e.g. a refused hard link (it copies the original instead); a single
    # removal has no step that can fail without failing the commit.
    assert results["tolerated"] >= (0 if variant == "single-removed" else 1)
