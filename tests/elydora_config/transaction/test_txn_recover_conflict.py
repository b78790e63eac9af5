"""Recovery never wedges: a crash, then another program edits a target, then ``recover()``.

The 3-file commit of :class:`txn_harness.Scenario` is killed before a seeded mutating call; then a foreign
writer replaces or edits in place (or creates) one seeded target; then ``recover()`` runs. Every time it must
finish (no exception, no journal left), leave the foreign bytes in place, put every other target back to
one consistent state, and save what it knew of the foreign target in the folder its report names: the
original (whenever its rollback artifact still held it) and our version (whenever the commit had put it in
place, so that the foreign edit overwrote it), each with exactly the recorded bytes.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from pathlib import Path

import pytest
from elydora_testkit.txn_harness import (
    NEW_AGENT,
    NEW_SETTINGS,
    Scenario,
    crash_at,
    enumerate_calls,
    intercept,
    read_state,
    skip_fsync,
)

from elydora_config import RecoveryNeededError, Transaction, pending, recover
from elydora_config._tempdirs import TEMP_DIRS
from elydora_config.files import TEMP_MARKER
from elydora_config.journal import TRANSACTIONS_DIR

KILLED = -9
TRIALS = 200
INDEX = {"replaced": 0, "removed": 1, "created": 2}  # entry order of Scenario.stage
OURS = {"replaced": NEW_SETTINGS, "created": NEW_AGENT}


def _foreign_write(path: Path, data: bytes, in_place: bool) -> None:
    if in_place and path.exists():
        with open(path, "r+b") as fh:  # same inode, as an editor that writes in place would
            fh.truncate(0)
            fh.write(data)
        return
    tmp = path.with_name(path.name + ".other~")
    tmp.write_bytes(data)
    os.rename(tmp, path)


def _temps(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if TEMP_MARKER in p.name]


def _trial(root: Path, point: int, which: str, in_place: bool, seed: int, seen: Counter[str]) -> list[str]:
    scn = Scenario(root).build()
    assert crash_at(point, scn.run) == KILLED
    target = getattr(scn, which)
    before = read_state(target)
    interrupted = [p for p in pending(scn.state) if not p.torn]  # a torn journal: nothing happened
    txdir = scn.state / TRANSACTIONS_DIR
    artifact = bool(interrupted) and (txdir / f"{interrupted[0].txid}.{INDEX[which]}.orig").exists()
    foreign = f'{{"written by": "another program", "seed": {seed}}}\n'.encode()
    _foreign_write(target, foreign, in_place)
    with intercept(skip_fsync):
        reports = recover(scn.state)
    label = f"seed {seed}: killed before call {point}, {'edit' if in_place else 'replace'} {which}"
    problems = []
    if read_state(target) is None or read_state(target)[0] != foreign:  # type: ignore[index]
        problems.append("the foreign bytes were not kept in place")
    others = {p for p in scn.targets if p != target}
    now = {p: read_state(p) for p in others}
    consistent = [{p: s[p] for p in others} for s in (scn.old(), scn.new())]
    if now not in consistent or (interrupted and now != consistent[0]):
        problems.append(f"the other targets are not consistent: {now}")
    if pending(scn.state) or _temps(scn.root):
        problems.append(f"left over: {pending(scn.state)} {_temps(scn.root)}")
    conflicts = [c for r in reports for c in r.conflicts]
    if not interrupted:
        return [f"{label}: {p}" for p in problems + ([f"unexpected conflicts {conflicts}"] if conflicts else [])]
    seen["interrupted"] += 1
    if len(conflicts) != 1 or conflicts[0].path != str(target):
        return [f"{label}: conflicts {conflicts} (problems: {problems})"]
    conflict, folder = conflicts[0], reports[0].saved_in
    assert folder is not None
    if str(target) not in (Path(folder) / "README.txt").read_text():
        problems.append("the README does not name the file")
    ours_applied = which in OURS and before == scn.new()[target]
    if conflict.ours is not None:
        seen["ours saved"] += 1
        if which not in OURS or Path(conflict.ours).read_bytes() != OURS[which]:
            problems.append(f"wrong bytes saved as ours: {conflict.ours}")
    elif ours_applied:
        problems.append("our version was in place before the foreign edit but was not saved")
    original_intact = artifact and not (in_place and before is not None and before == scn.old()[target])
    if conflict.original is not None:
        seen["original saved"] += 1
        old = scn.old()[target]
        if old is None or Path(conflict.original).read_bytes() != old[0]:
            problems.append(f"wrong bytes saved as the original: {conflict.original}")
    elif original_intact:
        problems.append("the original was kept as an artifact but not saved")
    for saved in Path(folder).iterdir():
        if saved.stat().st_mode & 0o077:
            problems.append(f"{saved} is readable by others")
    return [f"{label}: {p}" for p in problems]


def test_kill_then_foreign_edit_then_recover_200_seeded_trials(tmp_path: Path) -> None:
    probe = Scenario(tmp_path / "probe").build()
    points = len(enumerate_calls(probe.run))
    rng = random.Random(13)
    seen: Counter[str] = Counter()
    problems: list[str] = []
    for seed in range(TRIALS):
        which = rng.choice(sorted(INDEX))
        problems += _trial(tmp_path / f"t{seed}", rng.randrange(points), which, rng.random() < 0.5, seed, seen)
    print(f"\nkill + foreign edit + recover: {TRIALS} trials -> {dict(seen)}")
    assert problems == [], "\n".join(problems)
    assert seen["interrupted"] >= TRIALS // 2 and seen["ours saved"] >= 20 and seen["original saved"] >= 20


def _crash_after_settings_applied(root: Path) -> Scenario:
    """Killed right after settings.json holds our bytes (the first exchange), before anything else."""
    scn = Scenario(root).build()
    calls = enumerate_calls(Scenario(root.with_name(root.name + "-probe")).build().run)
    point = calls.index(next(c for c in calls if c.startswith("exchange("))) + 1
    assert crash_at(point, scn.run) == KILLED
    assert read_state(scn.replaced) == scn.new()[scn.replaced]
    return scn


def test_recover_keeps_foreign_edit_and_saves_ours_and_original(tmp_path: Path) -> None:
    scn = _crash_after_settings_applied(tmp_path / "t")
    theirs = b'{"model": "edited by the agent after the crash"}\n'
    scn.replaced.write_bytes(theirs)
    [report] = recover(scn.state)
    assert report.outcome == "rolled back" and scn.replaced.read_bytes() == theirs
    assert read_state(scn.removed) == scn.old()[scn.removed] and not scn.created.exists()
    [conflict] = report.conflicts
    assert report.saved_in == str(scn.state / "recovered" / report.txid)
    assert conflict.original and Path(conflict.original).read_bytes() == scn.old()[scn.replaced][0]  # type: ignore[index]
    assert conflict.ours and Path(conflict.ours).read_bytes() == NEW_SETTINGS
    assert os.stat(report.saved_in).st_mode & 0o777 == 0o700
    assert recover(scn.state) == [] and pending(scn.state) == []


def test_unresolved_journal_does_not_block_transactions_on_other_files(tmp_path: Path) -> None:
    scn = _crash_after_settings_applied(tmp_path / "t")
    elsewhere = tmp_path / "other-agent.json"
    with Transaction(scn.state) as tx:
        tx.write(elsewhere, b"{}\n")
    assert elsewhere.read_bytes() == b"{}\n" and len(pending(scn.state)) == 1
    try:
        with Transaction(scn.state) as tx:
            tx.write(scn.replaced, b"{}\n")
    except RecoveryNeededError as exc:
        assert pending(scn.state)[0].journal_path in str(exc)
    else:  # pragma: no cover
        raise AssertionError("a transaction on the interrupted transaction's file was not refused")
    [report] = recover(scn.state)
    assert report.outcome == "rolled back" and scn.outcome() == "old"


@pytest.mark.parametrize("files", [1, 2], ids=["single-target", "journalled"])
def test_secret_removed_by_the_user_does_not_survive_in_rollback_copies(tmp_path: Path, files: int) -> None:
    state, settings = tmp_path / "state", tmp_path / "settings.json"
    settings.write_bytes(b'{"token": "s3cr3t-removed-by-the-user"}\n')
    with Transaction(state) as tx:
        tx.read(settings)
        tx.write(settings, b'{"hooks": {}}\n')
        if files == 2:
            tx.write(tmp_path / "other.json", b"{}\n")
    txdir = state / TRANSACTIONS_DIR
    leaked = [p.name for p in tmp_path.rglob("*") if p.is_file() and b"s3cr3t" in p.read_bytes()]
    kept = [p.suffix for p in txdir.iterdir()] if files == 2 else [p.name for p in txdir.iterdir()]
    assert leaked == [] and kept == ([".done"] if files == 2 else [TEMP_DIRS])


def test_recover_finishes_when_a_saved_version_is_unreadable(tmp_path: Path) -> None:
    scn = _crash_after_settings_applied(tmp_path / "t")
    [interrupted] = pending(scn.state)
    copy = scn.state / TRANSACTIONS_DIR / f"{interrupted.txid}.0.new"
    copy.unlink()
    copy.symlink_to("/etc/hostname")
    scn.replaced.write_bytes(b'{"theirs": true}\n')
    [report] = recover(scn.state)
    assert [c.ours for c in report.conflicts] == [None] and report.conflicts[0].original
    assert scn.replaced.read_bytes() == b'{"theirs": true}\n' and pending(scn.state) == []
    assert "ours (what the transaction meant to write): not available" in (
        Path(report.saved_in or "") / "README.txt"
    ).read_text()
