"""Claude Code's own Windows build (``claude.exe``, npm ``@anthropic-ai/claude-code-win32-x64``, the version the
suite pins) under Wine, with our hooks installed by ``elydora install`` run by the Windows CPython into a Windows
home (docs/e2e.md "Under Wine").

The phases share one session and follow each other: install (the user's own settings file kept), allow (the
guard lets the ``Write`` through, the audit hook records Claude Code's native Windows payload, ``audit verify``
passes), block (frozen: the guard's exit 2 stops the call and the model is told), uninstall (the settings file
is back byte for byte, the tool runs with no hook). Claude Code without Git Bash offers ``PowerShell`` as its
shell tool, which Wine cannot run, so the call the fake model makes is a ``Write``: a tool Claude Code runs
itself, so its effect (the file) is the proof.

Skipped, saying why, only when Wine or the Windows test bed (``tests/windows/setup.sh``) is missing, or the
agent's Windows build could not be fetched.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from elydora_testkit.e2e_agents import AGENTS
from elydora_testkit.e2e_harness import contains, unshare_problem
from elydora_testkit.e2e_session import guard_line
from elydora_testkit.e2e_wine import WineSession, wine_problem

AGENT = AGENTS["claudecode"]
USER_SETTINGS = b'{\r\n  "permissions": {"allow": ["Read"]},\r\n  "cleanupPeriodDays": 30\r\n}\r\n'
"""The user's own settings before installing, as a Windows editor saves them (CRLF)."""


@pytest.fixture(scope="module")
def wine(agent_cache: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WineSession, str]]:
    problem = wine_problem() or unshare_problem()
    if problem:
        pytest.skip(problem)
    build = (agent_cache.get("claudecode") or {}).get("windows") or {}
    if not build.get("available"):
        pytest.skip(f"Claude Code's Windows build: {build.get('reason', 'not in the e2e cache manifest')}")
    session = WineSession(tmp_path_factory.mktemp("wine-claudecode"))
    try:
        yield session, build["bin"]
    finally:
        session.close()


def _env(session: WineSession) -> dict[str, str]:
    return dict(AGENT.env(None, session.driver.port))  # type: ignore[arg-type]  # Claude Code's row reads the port only


def _run(session: WineSession, exe: str, phase: str) -> Any:
    call = {"file_path": str(session.windows_work / "hello.txt"), "content": "hello\r\n"}
    argv = [exe, "-p", "Write hello.txt", "--output-format", "json", "--allowedTools", "Write"]
    run = session.run_agent(phase, argv, _env(session), tool="Write", call=call)
    assert run.tool_call is not None, f"the fake model was never offered Write\n{run.describe()}"
    return run


def test_install(wine: tuple[WineSession, str]) -> None:
    session, _exe = wine
    settings = session.home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(USER_SETTINGS)
    session.elydora("install", "claudecode")
    rc, out = session.elydora("status", "claudecode", check=False)
    assert rc == 0 and out.split()[1:2] == ["healthy"], out
    assert b"python.exe" in settings.read_bytes()


def test_allow(wine: tuple[WineSession, str]) -> None:
    session, exe = wine
    run = _run(session, exe, "allow")
    assert run.rc == 0 and run.proof_exists, run.describe()
    tools = {tool for request in run.model_requests for tool in request.get("tools") or []}
    assert "PowerShell" in tools and "Bash" not in tools, sorted(tools)  # no Git Bash here
    assert run.after_tool_call(), run.describe()
    assert session.ran("guard") and session.ran("audit"), run.describe()
    posts = [e["record"]["payload"] for e in session.ledger("claudecode")]
    assert len(posts) == 1, posts
    payload = posts[0]
    assert set(payload) == AGENT.post_keys, sorted(payload)
    assert payload["hook_event_name"] == "PostToolUse" and payload["tool_name"] == "Write", payload
    assert payload["cwd"] == str(session.windows_work), payload["cwd"]
    assert payload["tool_input"]["file_path"] == str(session.windows_work / "hello.txt"), payload
    assert payload["transcript_path"].startswith(str(session.windows_home / ".claude" / "projects")), payload
    assert run.tool_call is not None and payload["tool_use_id"] == run.tool_call["tool_call_id"], payload
    session.elydora("audit", "verify", "--provider", "claudecode")


def test_block(wine: tuple[WineSession, str]) -> None:
    session, exe = wine
    session.elydora("agent", "freeze", "--provider", "claudecode")
    session.ledger("claudecode")  # the freeze's own record, signed
    before = session.records()
    run = _run(session, exe, "block")
    assert not run.proof_exists, run.describe()
    assert session.ran("guard") and not session.ran("audit"), run.describe()
    assert any(contains(r, guard_line("claudecode")) for r in run.after_tool_call()), run.describe()
    assert session.records() == before, "the blocked call was recorded"


def test_uninstall(wine: tuple[WineSession, str]) -> None:
    session, exe = wine
    session.elydora("uninstall", "claudecode")
    settings = session.home / ".claude" / "settings.json"
    assert settings.read_bytes() == USER_SETTINGS
    run = _run(session, exe, "uninstall")  # still frozen: a hook left behind would block
    assert run.rc == 0 and run.proof_exists, run.describe()
    assert not any(contains(r, "Elydora") for r in run.model_requests), run.describe()
    assert not (session.home / ".elydora" / "claudecode").exists() or not session.ran("guard")
