"""The guard and the audit hook run by Node the way a Node-based agent runs a hook entry: ``child_process.spawn``
of the entry's command and arguments (no shell), the event written to the child's stdin and the stream ended,
the exit code, stdout and stderr read back. On Windows (the Windows leg runs this module under Wine with
``node.exe``) this is how Claude Code, Gemini CLI, Copilot CLI and the other Node-based agents start the
interpreter the installer named: it shows that the generated runtime allows, blocks a frozen agent, records,
and that its detached flusher delivers a ledger ``audit verify`` accepts, with none of the POSIX calls it
makes elsewhere (``select``, ``posix_spawn``, ``flock``).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from elydora_testkit.runtime_helpers import (
    PYTHON,
    AgentHandle,
    host_envelope,
    make_agent,
    no_flusher_running,
    wait_until,
)

from elydora_cli import catalog, identity
from elydora_cli.main import main
from elydora_cli.runtime import runtime_argv

NODE = os.environ.get("ELYDORA_TEST_NODE") or shutil.which("node")
"""The Node the test drives: ``ELYDORA_TEST_NODE`` (the Windows leg's ``node.exe``), else the one on PATH."""
pytestmark = pytest.mark.skipif(NODE is None, reason="no node on this machine (set ELYDORA_TEST_NODE)")

DRIVER = """
const { spawn } = require("child_process");
const fs = require("fs");
const [request, answer] = process.argv.slice(2);
const { argv, stdin } = JSON.parse(fs.readFileSync(request, "utf8"));
const child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
const out = [], err = [];
child.stdout.on("data", (chunk) => out.push(chunk));
child.stderr.on("data", (chunk) => err.push(chunk));
child.on("error", (e) => fs.writeFileSync(answer, JSON.stringify({ error: String(e) })));
child.on("close", (code) => fs.writeFileSync(answer, JSON.stringify({
  code, stdout: Buffer.concat(out).toString("base64"), stderr: Buffer.concat(err).toString("base64"),
})));
child.stdin.end(Buffer.from(stdin, "base64"));
"""
PRE = {"hook_event_name": "PreToolUse", "session_id": "s-node", "tool_name": "Bash", "tool_input": {"command": "ls"}}
POST = dict(PRE, hook_event_name="PostToolUse", tool_response={"stdout": "a\r\nb"})


def _node_runs(agent: AgentHandle, script: str, event: dict[str, object]) -> tuple[int, bytes, bytes]:
    """(exit code, stdout, stderr) of ``script`` run by Node as the agent's hook entry runs it."""
    work = agent.directory.parent / "node-driver"
    work.mkdir(exist_ok=True)
    (work / "driver.js").write_text(DRIVER, encoding="utf-8")
    stdin = host_envelope(agent.provider, json.dumps(event).encode())
    argv = runtime_argv(PYTHON, agent.directory / script)
    request = {"argv": argv, "stdin": base64.b64encode(stdin).decode()}
    (work / "request.json").write_text(json.dumps(request), encoding="utf-8")
    answer = work / "answer.json"
    answer.unlink(missing_ok=True)
    with open(work / "node.log", "wb") as log:  # under Wine, node's own output must go to a file (not a pipe)
        subprocess.run(
            [str(NODE), str(work / "driver.js"), str(work / "request.json"), str(answer)],
            stdin=subprocess.PIPE, stdout=log, stderr=log, timeout=120, check=True,
        )  # fmt: skip
    result = json.loads(answer.read_text(encoding="utf-8"))
    assert "error" not in result, result
    return result["code"], base64.b64decode(result["stdout"]), base64.b64decode(result["stderr"])


def _ledger_entries(agent: AgentHandle) -> int:
    path = agent.path(identity.LEDGER)
    return len(path.read_bytes().splitlines()) if path.exists() else 0


def test_node_runs_the_guard_allow_block_and_the_audit_records(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "claudecode")
    facts = catalog.provider("claudecode")

    code, out, _err = _node_runs(agent, "guard.py", PRE)
    assert (code, out) == (0, facts.guard_runtime.success_stdout)

    agent.set_local_status("frozen")
    code, out, err = _node_runs(agent, "guard.py", PRE)
    assert code == facts.guard_runtime.deny_exit_code == 2
    assert b"frozen" in err

    agent.set_local_status("active")
    code, out, _err = _node_runs(agent, "hook.py", POST)
    assert (code, out) == (0, facts.audit.success_stdout)
    assert wait_until(lambda: _ledger_entries(agent) == 1 and no_flusher_running(agent), timeout=60)

    code, out, _err = _node_runs(agent, "hook.py", dict(POST, tool_name="Read"))
    assert code == 0
    assert wait_until(lambda: _ledger_entries(agent) == 2 and no_flusher_running(agent), timeout=60)
    first, second = (json.loads(line) for line in agent.path(identity.LEDGER).read_bytes().splitlines())
    assert first["record"]["payload"]["tool_name"] == "Bash" and second["record"]["payload"]["tool_name"] == "Read"
    assert main(["audit", "verify", "--provider", "claudecode", "--state-root", str(tmp_path)]) == 0
