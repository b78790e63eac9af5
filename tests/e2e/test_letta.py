"""End to end, Letta Code only: the subject of a record when Letta's payload carries no session id, and how many
records one failed tool call leaves."""

from __future__ import annotations

from typing import Any

import pytest
from elydora_testkit.e2e_harness import PROOF_FILE
from elydora_testkit.e2e_session import assert_reached_only_the_fake_model, open_session

from elydora_cli.runtime.record import PLACE_PREFIX

pytestmark = pytest.mark.e2e

SESSION_KEYS = ("conversation_id", "session_id", "sessionId", "session", "taskId", "sessionID")


def test_letta_records_share_the_project_subject(agent_cache: dict[str, Any],
                                                 tmp_path_factory: pytest.TempPathFactory) -> None:
    """docs/providers.md (Letta, record subject): with no session id in the payload the subject is ``dir:`` and
    the payload's working directory, the same for two headless runs in one project although the tool call ids
    (and the model's replies) differ."""
    for s in open_session("letta", agent_cache, tmp_path_factory.mktemp("e2e-letta-subject")):
        sb = s.sandbox
        for phase in ("first", "second"):
            run = s.run(phase)
            assert_reached_only_the_fake_model(run)
            assert run.proof_exists, f"the tool did not run\n{run.describe()}"
        records = [entry["record"] for entry in sb.ledger()]
        posts = [r for r in records if r["payload"].get("event_type") == "PostToolUse"]
        assert len(posts) == 2, f"expected two post-tool records, got {records}"
        for record in posts:
            assert not any(key in record["payload"] for key in SESSION_KEYS), record["payload"]
            assert record["subject"] == {"session_id": PLACE_PREFIX + str(sb.work)}, record["subject"]
        first, second = (r["payload"]["tool_call_id"] for r in posts)
        assert first != second, "the two runs got the same tool call id: the subject check proves nothing"


def test_letta_records_a_failed_call_once(agent_cache: dict[str, Any],
                                          tmp_path_factory: pytest.TempPathFactory) -> None:
    """The shell command fails (the proof file's name is taken by a directory): one tool call, one record, from
    PostToolUse (Letta 0.34.12 fires PostToolUseFailure after it for a failed call; docs/e2e.md, finding 8)."""
    for s in open_session("letta", agent_cache, tmp_path_factory.mktemp("e2e-letta-failure")):
        sb = s.sandbox
        (sb.work / PROOF_FILE).mkdir()
        run = s.run_raw("failed", s.agent.argv(s.info["bin"]), tool=s.agent.shell_tool)
        assert_reached_only_the_fake_model(run)
        assert run.tool_call is not None
        records = [e["record"] for e in sb.ledger() if e["record"]["payload"].get("tool_call_id")
                   == run.tool_call["tool_call_id"]]
        events = sorted(r["payload"]["event_type"] for r in records)
        assert events and all(r["payload"].get("tool_result", {}).get("status", "error") == "error"
                              for r in records), f"the call did not fail: {records}"
        assert events == ["PostToolUse"], f"one failed call left {len(records)} records: {events}"
