"""The Transaction API: staging, commit, discard, no-op writes, preconditions."""

from __future__ import annotations

import json
import os
import stat

import pytest
from elydora_testkit.platforms import WINDOWS

from elydora_config import (
    ConcurrentModificationError,
    RecoveryNeededError,
    Transaction,
    _platform,
    pending,
    recover,
)
from elydora_config._tempdirs import TEMP_DIRS
from elydora_config.files import TEMP_MARKER


def _tree(root):
    return {
        os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/"): open(os.path.join(d, f), "rb").read()
        for d, _, files in os.walk(root)
        for f in files
        if ".elydora" not in d
    }


def test_commit_three_kinds_of_change(tmp_path):
    home, state = tmp_path / "home", tmp_path / "home" / ".elydora"
    home.mkdir()
    (home / "replace").write_bytes(b"old")
    (home / "replace").chmod(0o644)
    (home / "remove").write_bytes(b"gone")
    with Transaction(state) as tx:
        assert tx.read(home / "replace") == b"old"
        tx.write(home / "replace", b"new")
        tx.mkdir(home / "dir")
        tx.write(home / "dir" / "created", b"fresh")
        tx.remove(home / "remove")
        assert tx.read(home / "replace") == b"new"  # reads see staged content
    assert tx.txid is not None
    assert _tree(home) == {"replace": b"new", "dir/created": b"fresh"}
    assert _platform.file_mode((home / "replace").stat().st_mode) == _platform.kept_mode(0o644)
    assert _platform.file_mode((home / "dir" / "created").stat().st_mode) == _platform.kept_mode(0o600)
    assert WINDOWS or stat.S_IMODE((home / "dir").stat().st_mode) == 0o700  # Windows: the inherited ACL
    assert pending(state) == []


def test_exception_inside_block_writes_nothing(tmp_path):
    (tmp_path / "f").write_bytes(b"old")
    with pytest.raises(RuntimeError), Transaction(tmp_path / "state") as tx:
        tx.write(tmp_path / "f", b"new")
        raise RuntimeError("boom")
    assert (tmp_path / "f").read_bytes() == b"old"
    assert not (tmp_path / "state").exists()


def test_identical_write_is_a_no_op(tmp_path):
    target = tmp_path / "f"
    target.write_bytes(b"same")
    before = target.stat()
    with Transaction(tmp_path / "state") as tx:
        tx.write(target, b"same")
    assert tx.txid is None
    after = target.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert not (tmp_path / "state").exists()  # nothing to write: no state directory, no lock


def test_a_commit_with_nothing_to_write_still_checks_what_it_read(tmp_path):
    target = tmp_path / "f"
    target.write_bytes(b"mine")
    tx = Transaction(tmp_path / "state")
    tx.read(target)
    target.write_bytes(b"theirs")
    with pytest.raises(ConcurrentModificationError, match="f"):
        tx.commit()
    assert target.read_bytes() == b"theirs" and not (tmp_path / "state").exists()


def test_change_after_read_is_detected_and_nothing_lost(tmp_path):
    target, other = tmp_path / "f", tmp_path / "g"
    target.write_bytes(b"mine")
    tx = Transaction(tmp_path / "state")
    tx.read(target)
    tx.write(target, b"ours")
    tx.write(other, b"second file")
    target.write_bytes(b"theirs")
    with pytest.raises(ConcurrentModificationError) as info:
        tx.commit()
    assert str(target) in str(info.value)
    assert target.read_bytes() == b"theirs" and not other.exists()
    assert not [n for n in os.listdir(tmp_path) if TEMP_MARKER in n]


def test_dependency_change_aborts(tmp_path):
    policy, target = tmp_path / "policy", tmp_path / "target"
    policy.write_bytes(b"v1")
    tx = Transaction(tmp_path / "state")
    assert tx.depend(policy) == b"v1"
    tx.write(target, b"data")
    policy.write_bytes(b"v2")
    with pytest.raises(ConcurrentModificationError, match="policy"):
        tx.commit()
    assert not target.exists()


def test_leftover_journal_requires_recovery(tmp_path):
    state = tmp_path / "state"
    (state / "transactions").mkdir(parents=True)
    (state / "transactions" / "123-1-abcd.journal").write_bytes(b"torn")
    with pytest.raises(RecoveryNeededError), Transaction(state) as tx:
        tx.write(tmp_path / "f", b"x")
    assert [p.txid for p in pending(state)] == ["123-1-abcd"] and pending(state)[0].torn
    assert [r.outcome for r in recover(state)] == ["discarded"]
    with Transaction(state) as tx:
        tx.write(tmp_path / "f", b"x")
    assert (tmp_path / "f").read_bytes() == b"x"


def test_retention_is_bounded(tmp_path):
    # Two files per commit: the journalled protocol, which leaves a ``.done`` record.
    for i in range(15):
        with Transaction(tmp_path / "state", retention=3) as tx:
            tx.write(tmp_path / "f", str(i).encode())
            tx.write(tmp_path / "g", str(i).encode())
    names = os.listdir(tmp_path / "state" / "transactions")
    assert len([n for n in names if n.endswith(".done")]) == 3
    assert [n for n in names if not n.endswith(".done")] == []  # rollback copies go at retirement


def test_single_file_commits_leave_only_the_temp_dir_list(tmp_path):
    for i in range(5):
        with Transaction(tmp_path / "state") as tx:
            tx.write(tmp_path / "f", str(i).encode())
    assert (tmp_path / "f").read_bytes() == b"4"
    assert os.listdir(tmp_path / "state" / "transactions") == [TEMP_DIRS]
    listed = (tmp_path / "state" / "transactions" / TEMP_DIRS).read_text().splitlines()
    assert listed == [json.dumps(str(tmp_path))]  # listed once, not once per commit
    assert [n for n in os.listdir(tmp_path) if TEMP_MARKER in n] == []


def test_a_single_file_commit_deletes_artifacts_a_crash_left_of_a_retired_transaction(tmp_path):
    txdir = tmp_path / "state" / "transactions"
    with Transaction(tmp_path / "state") as tx:
        tx.write(tmp_path / "f", b"1")
        tx.write(tmp_path / "g", b"1")
    [done] = os.listdir(txdir)
    (txdir / done.replace(".done", ".0.orig")).write_bytes(b"secret left by a crash")
    with Transaction(tmp_path / "state") as tx:
        tx.write(tmp_path / "f", b"2")
    assert sorted(os.listdir(txdir)) == sorted([done, TEMP_DIRS])


def test_the_transaction_id_is_documented_and_names_the_committed_transaction(tmp_path):
    # ``with Transaction(...) as tx`` commits on exit: ``tx.txid`` is then the id that names the transaction's
    # retired journal under <state>/transactions/ (and would name it in pending() after a crash)
    doc = Transaction.txid.__doc__ or ""
    assert "committed transaction" in doc and "PendingTransaction" in doc
    state = tmp_path / "state"
    with Transaction(state) as tx:
        tx.write(tmp_path / "a", b"1")
        tx.write(tmp_path / "b", b"2")
        assert tx.txid is None  # not committed yet
    assert tx.txid is not None
    assert (state / "transactions" / f"{tx.txid}.done").exists()
    with pytest.raises(AttributeError):
        tx.txid = "another"  # type: ignore[misc]


def test_diff_shows_what_commit_would_write_and_hides_what_it_is_told(tmp_path):
    home, state = tmp_path / "home", tmp_path / "home" / ".elydora"
    home.mkdir()
    (home / "settings.json").write_bytes(b'{\n  "a": 1\n}\n')
    (home / "same").write_bytes(b"same\n")
    (home / "gone").write_bytes(b"bye\n")
    (home / "key").write_bytes(b"old secret\n")
    tx = Transaction(state)
    tx.write(home / "settings.json", b'{\n  "a": 2\n}\n')
    tx.write(home / "same", b"same\n")
    tx.write(home / "new", b"hello\n")
    tx.remove(home / "gone")
    tx.write(home / "key", b"new secret\n")
    tx.write(home / "key2", b"first secret\n")
    out = tx.diff(hidden=lambda path: os.path.basename(path).startswith("key"))
    settings, new, gone, key = (str(home / name) for name in ("settings.json", "new", "gone", "key"))
    assert out == (
        f"--- {settings}\n+++ {settings}\n@@ -1,3 +1,3 @@\n {{\n-  \"a\": 1\n+  \"a\": 2\n }}\n"
        f"--- /dev/null\n+++ {new}\n@@ -0,0 +1 @@\n+hello\n"
        f"--- {gone}\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
        f"--- {key}\n+++ {key}\n(changed; content not shown)\n"
        f"--- {key}2\n+++ {key}2\n(created; content not shown)\n"
    )
    assert "secret" not in out and "same" not in out
    assert tx.diff([home / "gone", home / "new", home / "unstaged"]) == (
        f"--- /dev/null\n+++ {new}\n@@ -0,0 +1 @@\n+hello\n--- {gone}\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n")
    tx.discard()
    assert tx.diff() == ""
    assert (home / "settings.json").read_bytes() == b'{\n  "a": 1\n}\n' and not (home / "new").exists()
