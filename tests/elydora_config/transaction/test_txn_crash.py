"""Crash harness (``_sysio`` variant): kill the committing process before each mutating call, then recover.

The 3-file commit of :class:`txn_harness.Scenario` runs in a child (forked; on Windows a fresh interpreter)
whose ``_sysio`` layer kills the child (SIGKILL; on Windows TerminateProcess) right before its N-th mutating
call (every call except ``close`` and opens without ``O_CREAT``), for every N the commit makes. ``recover()``
then runs in the test process; the targets must be all-old or all-new and nothing may be left over: no temp
file anywhere, no journal, no artifact of an unfinished transaction, no stray file or directory.

Variants: the flat scenario, the new file in a directory the transaction creates, a mode-only change (same
bytes, 0644 -> 0600: recovery must tell our file from the original by its mode), and a file system without
``renameat2`` (the verify-then-rename fallback). On Windows, which has no ``renameat2`` and keeps no mode but
the read-only attribute, the flat and mkdir variants are the ones that differ from each other.

The second test also kills ``recover()`` itself before each of its mutating calls (for every commit crash
point) and recovers again. On Windows, where every crash costs the start of a fresh interpreter under Wine
(about a second, several on a loaded machine), it does so for three commit points spread over the commit,
flat layout only.
"""

from __future__ import annotations

import functools
from collections import Counter
from pathlib import Path

import pytest
from _pytest.monkeypatch import MonkeyPatch
from elydora_testkit.txn_harness import (
    KILLED,
    WINDOWS,
    Scenario,
    crash_at,
    enumerate_calls,
    intercept,
    skip_fsync,
    without_renameat2,
)

from elydora_config import Transaction, pending, recover

POSIX_ONLY = pytest.mark.skipif(WINDOWS, reason="Windows has no renameat2 and no mode but read-only: as 'flat' there")
FLAT_ON_WINDOWS = pytest.mark.skipif(WINDOWS, reason="for time: each crash starts an interpreter under Wine")
VARIANTS = ["flat", "mkdir", *(pytest.param(v, marks=POSIX_ONLY) for v in ("chmod-only", "no-renameat2"))]
SINGLE = ["replaced", "removed", "created"]
# The single-target commit (no journal): each kind of change, a mode-only change, and without renameat2.
SINGLE_VARIANTS = [
    *SINGLE,
    *(pytest.param(v, marks=POSIX_ONLY) for v in ("replaced-chmod-only", "replaced-no-renameat2")),
    pytest.param("created-no-renameat2", marks=POSIX_ONLY),
]


def _commit_points(tmp_path: Path, nested: bool, chmod: bool = False, single: str = "") -> list[str]:
    probe = Scenario(tmp_path / "probe", nested, chmod, single).build()
    calls = enumerate_calls(probe.run)
    assert probe.outcome() == "new"
    return calls


def _crash_commit(root: Path, nested: bool, point: int, chmod: bool = False, single: str = "") -> Scenario:
    scn = Scenario(root, nested, chmod, single).build()
    code = crash_at(point, scn.run)
    assert code == KILLED, f"commit was not killed at mutating call {point} (exit {code})"
    return scn


def _check_resolved(scn: Scenario, where: str) -> str:
    outcome = scn.outcome()
    assert outcome in ("old", "new"), f"{where}: {outcome}"
    assert scn.leftovers(outcome) == [], where
    assert pending(scn.state) == [], where
    return outcome


@pytest.mark.parametrize("variant", VARIANTS)
def test_kill_before_every_mutating_call_of_commit(tmp_path: Path, variant: str, monkeypatch: MonkeyPatch) -> None:
    nested, chmod = variant == "mkdir", variant == "chmod-only"
    if variant == "no-renameat2":
        without_renameat2(monkeypatch)
    calls = _commit_points(tmp_path, nested, chmod)
    assert len(calls) >= 20, calls
    outcomes: Counter[str] = Counter()
    for point, call in enumerate(calls):
        scn = _crash_commit(tmp_path / f"p{point}", nested, point, chmod)
        with intercept(skip_fsync):
            recover(scn.state)
        outcomes[_check_resolved(scn, f"killed before call {point} {call}")] += 1
    # One point beyond the last call: the commit runs to completion in the child.
    scn = Scenario(tmp_path / "complete", nested, chmod).build()
    assert crash_at(len(calls), scn.run) == 0
    assert _check_resolved(scn, "uninterrupted") == "new"
    print(f"\ncrash points (_sysio, {variant}): {len(calls)} -> {dict(outcomes)}")
    assert sum(outcomes.values()) == len(calls)
    assert outcomes["old"] > 0 and outcomes["new"] > 0


@pytest.mark.parametrize("nested", [False, pytest.param(True, marks=FLAT_ON_WINDOWS)], ids=["flat", "mkdir"])
def test_kill_inside_recover_at_every_call(tmp_path: Path, nested: bool) -> None:
    calls = _commit_points(tmp_path, nested)
    points = range(0, len(calls), max(len(calls) // 3, 1) if WINDOWS else 1)
    exercised = 0
    pending_points = 0
    for point in points:
        recover_point = 0
        while True:
            root = tmp_path / f"p{point}-r{recover_point}"
            scn = _crash_commit(root, nested, point)
            had_journal = bool(pending(scn.state))
            code = crash_at(recover_point, functools.partial(recover, scn.state))
            if code == 0:
                break
            assert code == KILLED, f"recover exited {code} at commit point {point}, recover point {recover_point}"
            exercised += 1
            with intercept(skip_fsync):
                recover(scn.state)
            _check_resolved(scn, f"commit killed at {point} ({calls[point]}), recover killed at {recover_point}")
            recover_point += 1
        pending_points += had_journal
        _check_resolved(scn, f"commit killed at {point}, recover uninterrupted")
    print(f"\nrecover crash points ({'mkdir' if nested else 'flat'}): {exercised} over {pending_points} journals")
    assert pending_points >= len(points) // 2
    assert exercised >= 3 * pending_points


@pytest.mark.parametrize("variant", SINGLE_VARIANTS)
def test_kill_before_every_mutating_call_of_a_single_target_commit(
    tmp_path: Path, variant: str, monkeypatch: MonkeyPatch
) -> None:
    single, chmod = variant.split("-")[0], "chmod-only" in variant
    if variant.endswith("no-renameat2"):
        without_renameat2(monkeypatch)
    calls = _commit_points(tmp_path, False, chmod, single)
    assert not [c for c in calls if ".journal" in c], calls  # this path writes no journal
    # first commit in a fresh state: mkdir of the state tree, the temp-dir list, the temp file, the rename
    assert len(calls) >= 6, calls
    outcomes: Counter[str] = Counter()
    for point, call in enumerate(calls):
        scn = _crash_commit(tmp_path / f"p{point}", False, point, chmod, single)
        with intercept(skip_fsync):
            recover(scn.state)
        outcomes[_check_resolved(scn, f"killed before call {point} {call}")] += 1
    # Later commits into a listed directory: kill them too (the list is not written again).
    for point in range(len(_later_commit_points(tmp_path, chmod, single))):
        scn = Scenario(tmp_path / f"later{point}", False, chmod, single).build()
        _first_commit_of_another_file(scn)
        assert crash_at(point, scn.run) == KILLED
        with intercept(skip_fsync):
            recover(scn.state)
        outcomes[_check_resolved(scn, f"later commit killed before call {point}")] += 1
    print(f"\ncrash points (_sysio, single {variant}): {len(calls)} -> {dict(outcomes)}")
    assert outcomes["old"] > 0 and outcomes["new"] > 0


def _first_commit_of_another_file(scn: Scenario) -> None:
    """An earlier single-target commit into the same directory, so the temp-dir list already names it."""
    other = scn.staged[0].with_name("earlier.json")
    with Transaction(scn.state) as tx:
        tx.write(other, b"{}\n")
    other.unlink()


def _later_commit_points(tmp_path: Path, chmod: bool, single: str) -> list[str]:
    probe = Scenario(tmp_path / "later-probe", False, chmod, single).build()
    _first_commit_of_another_file(probe)
    calls = enumerate_calls(probe.run)
    assert probe.outcome() == "new" and not [c for c in calls if "temp-dirs" in c], calls
    return calls
