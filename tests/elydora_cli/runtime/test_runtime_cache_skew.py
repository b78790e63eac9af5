"""Issue 27: a server status cache dated in the future is stale, for the guard and for ``status``.

Before, such a cache made the guard skip every status request (its age was negative, so "fresh") and status
showed its age as 0: a freeze on the server never arrived (the real guard against a fake server).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from elydora_testkit.fake_elydora_server import FakeElydora
from elydora_testkit.runtime_helpers import make_agent, wait_until

from elydora_cli import health, identity
from elydora_cli.runtime import refresh

PROVIDER = "claudecode"
EVENT = {"hook_event_name": "PreToolUse", "transcript_path": "/t.jsonl", "tool_name": "Bash", "session_id": "s"}


def test_a_cache_dated_in_the_future_is_stale_and_status_shows_the_skew(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, PROVIDER, server=server)
    server.state.agents[PROVIDER].status = "frozen"
    future = time.time() + 86400
    agent.path(identity.STATUS_CACHE).write_bytes(refresh.cache_bytes("active", future, future))
    agent.path(identity.STATUS_CACHE).chmod(0o600)
    found = health.check(str(agent.directory))
    assert found.status_cache is not None and found.status_cache["age_seconds"] == 0.0
    assert 86390 < found.status_cache["skew_seconds"] <= 86400
    assert not found.enforced and any("dated 86" in p and "in the future" in p for p in found.enforcement)
    agent.run("guard.py", json.dumps(EVENT).encode())  # the guard asks the server now
    assert wait_until(lambda: b'"frozen"' in agent.path(identity.STATUS_CACHE).read_bytes(), timeout=20)
    assert server.state.requests
    assert agent.run("guard.py", json.dumps(EVENT).encode()).returncode == 2
    assert health.check(str(agent.directory)).status_cache["skew_seconds"] is None  # type: ignore[index]
