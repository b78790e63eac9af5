"""Foreign writer: another program changes a target between our read and our rename, at every step.

A hook in the ``_sysio`` layer runs the foreign writer (plain ``os`` calls, not ``_sysio``) right before the
commit's N-th system call, for every N from the first call up to and including the one that renames (or
unlinks) that target; step ``-1`` writes between ``read`` and ``commit``. The writer replaces the target
(new inode), edits it in place (same size, mtime put back: only ctime and content tell), deletes it, or creates
the file we meant to create. Every time, the commit must raise ``ConcurrentModificationError`` or
``RollbackIncompleteError``, the target must hold exactly what the foreign writer left, the other targets
must be back to their originals, and ``recover()`` must not undo the foreign change.

Without ``renameat2`` (file systems that lack it) the same holds up to the call that tries it; the plain
rename that follows leaves a window of a few microseconds after the last verification, which only
``RENAME_EXCHANGE`` closes, so that last step is not part of this variant. Removals move the file aside with a
plain rename and are race-free either way.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _pytest.monkeypatch import MonkeyPatch
from elydora_testkit.txn_harness import Hook, Scenario, intercept, read_state, skip_fsync, without_renameat2

from elydora_config import ConcurrentModificationError, RollbackIncompleteError, Transaction, pending, recover

FOREIGN = b'{"written": "by another program"}\n'


def foreign_write(path: Path, action: str) -> None:
    if action == "replace":
        tmp = path.with_name(path.name + ".other-editor~")
        tmp.write_bytes(FOREIGN)
        os.chmod(tmp, 0o644)
        os.rename(tmp, path)
    elif action == "edit":
        before = os.stat(path)
        old = path.read_bytes()
        edited = (b"X" + old[1:]) if old else b"X"
        with open(path, "r+b") as fh:
            fh.write(edited)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    elif action == "delete":
        path.unlink()
    elif action == "create":
        path.write_bytes(FOREIGN)
    else:  # pragma: no cover
        raise AssertionError(action)


def _steps(tmp_path: Path, single: str = "") -> list[tuple[str, tuple[Any, ...]]]:
    probe = Scenario(tmp_path / "probe", single=single).build()
    steps: list[tuple[str, tuple[Any, ...]]] = []

    def hook(name: str, real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        steps.append((name, args))
        return real(*args, **kwargs)

    def run() -> None:
        tx = Transaction(probe.state)
        probe.stage(tx)
        with intercept(hook):
            tx.commit()

    run()
    return steps


def _applied_at(steps: list[tuple[str, tuple[Any, ...]]], target: Path) -> int:
    """The step that puts ``target`` in place (or takes it away)."""
    for index, (name, args) in enumerate(steps):
        if (name in ("rename", "exchange", "rename_noreplace") and target.name in args[:2]) or (
            name == "unlink" and args[0] == target.name
        ):
            return index
    raise AssertionError(f"{target.name} is never renamed or unlinked")


def writer_before(step: int, target: Path, action: str, done: list[int]) -> Hook:
    seen = 0

    def hook(name: str, real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        nonlocal seen
        if seen == step:
            foreign_write(target, action)
            done.append(step)
        seen += 1
        return skip_fsync(name, real, args, kwargs)

    return hook


ACTIONS = {"replaced": ("replace", "edit", "delete"), "removed": ("replace", "edit", "delete"), "created": ("create",)}


@pytest.mark.parametrize("single", [False, True], ids=["3-file", "single-target"])
@pytest.mark.parametrize("renameat2", [True, False], ids=["renameat2", "no-renameat2"])
@pytest.mark.parametrize("which", sorted(ACTIONS))
def test_foreign_write_at_every_step_is_detected_and_kept(
    tmp_path: Path, which: str, renameat2: bool, single: bool, monkeypatch: MonkeyPatch
) -> None:
    if not renameat2:
        without_renameat2(monkeypatch)
    only = which if single else ""
    steps = _steps(tmp_path, only)
    counts: Counter[str] = Counter()
    problems: list[str] = []
    for action in ACTIONS[which]:
        probe = Scenario(tmp_path / "names", single=only)
        last = _applied_at(steps, getattr(probe, which))
        if not renameat2 and which != "removed":
            assert steps[last][0] in ("exchange", "rename_noreplace"), steps[last]
        for step in range(-1, last + 1):
            scn = Scenario(tmp_path / f"{action}-{step}", single=only).build()
            target = getattr(scn, which)
            tx = Transaction(scn.state)
            scn.stage(tx)
            done: list[int] = []
            if step < 0:
                foreign_write(target, action)
                done.append(step)
            error: Exception | None = None
            with intercept(writer_before(step, target, action, done)):
                try:
                    tx.commit()
                except (ConcurrentModificationError, RollbackIncompleteError) as exc:
                    error = exc
            label = f"{action} {target.name} before step {step} {steps[step][0] if step >= 0 else 'commit'}"
            assert done == [step], f"{label}: the foreign writer did not run"
            foreign = read_state(target)
            if error is None:
                problems.append(f"{label}: not detected")
            elif str(target) not in str(error):
                problems.append(f"{label}: the error does not name the file: {error}")
            others = {p: s for p, s in scn.old().items() if p != target}
            if {p: read_state(p) for p in others} != others:
                problems.append(f"{label}: the other targets were not restored: {scn.observe()}")
            try:
                recover(scn.state)
            except RollbackIncompleteError:
                counts["recovery refused"] += 1
            if read_state(target) != foreign:
                problems.append(f"{label}: the foreign bytes were lost")
            counts[type(error).__name__] += 1
    print(f"\nforeign writer ({which}{' alone' if single else ''}, {'' if renameat2 else 'no '}renameat2): "
          f"{dict(counts)}")
    assert problems == [], "\n".join(problems)
    detected = sum(counts[k] for k in ("ConcurrentModificationError", "RollbackIncompleteError"))
    assert detected >= (8 if single else 20)


@pytest.mark.parametrize("which", ["replaced", "removed"])
def test_foreign_file_is_kept_when_it_cannot_be_put_back(tmp_path: Path, which: str) -> None:
    """The swap-back (or put-back) of a detected foreign file fails: its bytes go to a conflict file."""
    scn = Scenario(tmp_path / "t").build()
    target = getattr(scn, which)
    move, back = ("exchange", "exchange") if which == "replaced" else ("rename", "rename_noreplace")
    calls: Counter[str] = Counter()

    def hook(name: str, real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        calls[name] += 1
        if name == move and calls[name] == 1 and target.name in args[:2]:
            foreign_write(target, "replace")
        elif name == back and calls[name] == (2 if back == move else 1):
            raise OSError(5, "Input/output error")
        return skip_fsync(name, real, args, kwargs)

    tx = Transaction(scn.state)
    scn.stage(tx)
    with intercept(hook), pytest.raises(ConcurrentModificationError) as info:
        tx.commit()
    kept = [p for p in target.parent.iterdir() if ".elydora-conflict-" in p.name]
    assert len(kept) == 1 and kept[0].read_bytes() == FOREIGN, kept
    assert kept[0].name in str(info.value)
    assert {p: read_state(p) for p in scn.targets} == scn.old()
    assert not [p for p in target.parent.iterdir() if "elydora-tmp" in p.name]
    assert pending(scn.state) == []
