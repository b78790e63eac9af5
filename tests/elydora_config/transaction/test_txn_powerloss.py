"""Power-loss model: >= 10,000 seeded trials of losing power during the 3-file commit, then ``recover()``.

How a trial works: a real commit runs once per scenario (flat, and with a created directory) under a
recording ``_sysio`` layer (:mod:`txn_powermodel`), which yields the op trace with its barriers. Each trial
picks a crash point (how many ops were issued, 0..all) and builds the tree the disk could hold then:
durable ops are applied; every op not yet durable is applied, dropped or (writes) torn, independently and in
program order. The tree is materialised at the original place (the journal holds absolute paths), the real
``recover()`` runs, and the targets must be all-old or all-new, with no temp file, no journal and no orphan
artifact left. Once every rename/unlink of the targets is durable, the outcome must be all-new (a commit that
returned stays committed).

Assumptions of the model (what makes it weaker or stronger than a real file system):

* ``fsync(fd)`` makes the earlier data and mode changes of that inode durable, nothing else; in particular not
  the directory entry of a new file (stronger than ext4, which usually persists it too).
* ``fsync`` of a directory makes the earlier entry ops in it durable (create, mkdir, rename, link, unlink,
  rmdir); a rename is durable once both its directories were synced. No other op ever becomes durable by
  itself; real file systems persist unsynced work all the time, which the "apply" choice covers.
* Unsynced ops are chosen independently, so a later op in a directory may survive while an earlier one is
  lost: stronger than ext4's ordered journal, but allowed by POSIX. An op whose precondition did not survive
  (rename of a file whose creation was dropped) is skipped, as a real file system could not apply it.
* A torn write keeps a random prefix, optionally followed by zeros up to the full length (the "size updated,
  data not" outcome of delayed allocation). Renames, links and unlinks are atomic; a synced byte is never
  corrupted (no lying disks, no media errors); power is lost only once (recovery itself is not cut; the crash
  harness covers killing ``recover``).
* Recovery runs with fsync disabled: it only changes how fast the trials run, not what recovery decides.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.txn_harness import Hook, Scenario, in_child, intercept
from elydora_testkit.txn_powermodel import Recorder, crash_state, durable_before

from elydora_config import pending, recover

TRIALS_PER_SCENARIO = int(os.environ.get("TXN_POWERLOSS_TRIALS", "5000"))
SEED = 20_240_229


def _no_fsync(name: str, real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return None if name in ("fsync", "fsync_dir") else real(*args, **kwargs)


def _sabotaged(recorder: Recorder, sabotage: str) -> Hook:
    """The recorder, minus the fsyncs a broken protocol would leave out (to show the model catches it)."""
    fsyncs = 0

    def hook(name: str, real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        nonlocal fsyncs
        fsyncs += name == "fsync"
        if sabotage == "temp-fsync" and name == "fsync" and fsyncs > 1:
            return None
        target_dir = name == "fsync_dir" and os.readlink(f"/proc/self/fd/{args[0]}").endswith(("/conf", "/other"))
        if sabotage == "dir-fsync" and target_dir:
            return None
        return recorder(name, real, args, kwargs)

    return hook


def _run_trials(root: Path, nested: bool, trials: int, out: Path, sabotage: str = "", single: str = "") -> None:
    scn = Scenario(root, nested, single=single).build()
    recorder = Recorder(str(root))
    with intercept(_sabotaged(recorder, sabotage)):
        scn.run()
    ops = recorder.ops
    durable = durable_before(ops)
    targets = {str(p) for p in scn.targets}
    moves = ("rename", "exchange", "rename_noreplace", "unlink")
    target_ops = [i for i, op in enumerate(ops) if op.kind in moves and {op.path, op.dst} & targets]
    must_be_new = max(durable[i] for i in target_ops)
    start = recorder.start_model()
    outcomes: Counter[str] = Counter()
    points: Counter[int] = Counter()
    failures: list[str] = []
    failed = 0
    with intercept(_no_fsync):
        for trial in range(trials):
            rng = random.Random(f"{SEED}-{nested}-{single}-{trial}" if single else f"{SEED}-{nested}-{trial}")
            point = rng.randint(0, len(ops))
            model, choices = crash_state(start, ops, durable, point, rng)
            model.materialise()
            try:
                recover(scn.state)
                outcome = scn.outcome()
                problems = [] if outcome in ("old", "new") else [outcome]
                problems += scn.leftovers(outcome) if not problems else []
                problems += [f"pending {p.txid}" for p in pending(scn.state)]
                if point >= must_be_new and outcome != "new":
                    problems.append(f"committed transaction lost ({outcome})")
            except Exception as exc:
                outcome, problems = "error", [f"{type(exc).__name__}: {exc}"]
            outcomes[outcome] += 1
            points[point] += 1
            failed += bool(problems)
            if problems and len(failures) < 5:
                failures.append(f"trial {trial} point {point}/{len(ops)} {choices}: {problems}")
    summary = {
        "trials": trials,
        "ops": len(ops),
        "trace": [f"{op.kind} {os.path.basename(op.path)} {os.path.basename(op.dst)}" for op in ops],
        "must_be_new_from": must_be_new,
        "outcomes": dict(outcomes),
        "points": len(points),
        "failures": failures,
        "failed": failed,
    }
    out.write_text(json.dumps(summary))


@pytest.fixture
def fast_dir(tmp_path: Path) -> Iterator[Path]:
    """A scratch directory on tmpfs when there is one (the trials rebuild a tree 10,000 times)."""
    if not os.path.isdir("/dev/shm") or not os.access("/dev/shm", os.W_OK):
        yield tmp_path
        return
    path = Path(tempfile.mkdtemp(prefix="elydora-powerloss-", dir="/dev/shm"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def test_power_loss_during_commit_always_recovers_to_old_or_new(tmp_path: Path, fast_dir: Path) -> None:
    total = _trials_in_workers(tmp_path, fast_dir, [("flat", False, ""), ("mkdir", True, "")], TRIALS_PER_SCENARIO)
    assert total >= 10_000


def test_power_loss_during_a_single_target_commit_always_recovers_to_old_or_new(
    tmp_path: Path, fast_dir: Path
) -> None:
    """The single-target commit writes no journal: each kind of change, the first commit in a fresh state (the
    temp-dir list is created) and recovery finding the temp file through that list."""
    kinds = [(kind, False, kind) for kind in ("replaced", "removed", "created")]
    assert _trials_in_workers(tmp_path, fast_dir, kinds, TRIALS_PER_SCENARIO // 2) >= 6_000


def _trials_in_workers(tmp_path: Path, fast_dir: Path, scenarios: list[tuple[str, bool, str]], trials: int) -> int:
    pids = []
    for tag, nested, single in scenarios:
        out = tmp_path / f"{tag}.json"
        root = fast_dir / f"tree-{tag}"
        pid = os.fork()
        if pid == 0:  # pragma: no cover - worker
            code = in_child(lambda r=root, n=nested, o=out, s=single: _run_trials(r, n, trials, o, single=s))  # type: ignore[misc]
            os._exit(code)
        pids.append((tag, pid, out))
    total = 0
    for tag, pid, out in pids:
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, f"{tag} worker failed"
        summary = json.loads(out.read_text())
        print(f"\npower loss ({tag}): {summary['trials']} trials over {summary['points']} crash points of "
              f"{summary['ops']} ops -> {summary['outcomes']}")
        assert summary["failures"] == [], "\n".join(summary["failures"]) + "\n" + "\n".join(summary["trace"])
        assert summary["points"] == summary["ops"] + 1
        assert summary["must_be_new_from"] <= summary["ops"], "commit returned before it was durable"
        assert summary["outcomes"].get("old", 0) > 0 and summary["outcomes"].get("new", 0) > 0
        total += sum(summary["outcomes"].values())
    return total


@pytest.mark.parametrize("single", ["", "replaced"], ids=["journalled", "single-target"])
@pytest.mark.parametrize("sabotage", ["temp-fsync", "dir-fsync"])
def test_the_model_catches_a_commit_that_skips_a_barrier(
    tmp_path: Path, fast_dir: Path, sabotage: str, single: str
) -> None:
    """Without the temp-file fsync (torn content after a durable rename) or the final directory fsync (a
    returned commit lost), some trials must fail: the model is strong enough to see a missing barrier."""
    out = tmp_path / "sabotaged.json"
    _run_trials(fast_dir / "tree", False, 300, out, sabotage, single)
    summary = json.loads(out.read_text())
    print(f"\nsabotaged commit ({sabotage}): {summary['failed']} of 300 trials fail, e.g. {summary['failures'][:1]}")
    if single and sabotage == "dir-fsync":
        # Nothing after the rename syncs its directory: the commit returns before it is durable, which is
        # what the main test's "must be new from" bound rejects.
        assert summary["must_be_new_from"] > summary["ops"], summary
    else:
        assert summary["failed"] > 0, summary
