"""The installed plugin modules run under node with the plugin-host stub, the way OpenCode and Kilo run them:
allow, block by throw with the guard's reason, the guard's failure mode (closed) on our own errors, the audit
handed the native input and output (the tool output included), and one record per tool call on a machine with
both agents whichever of them loads both modules. Pi's extension, under the same stub's Pi API: allow, block by
``{block, reason}``, fail-closed, and the audit handed Pi's own ``tool_result`` event."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from elydora_testkit.provider_cases import make_context, payload, run_as_agent, set_status

from elydora_cli import catalog
from elydora_cli.installer import operations
from elydora_cli.plug import plugin
from elydora_cli.plug.context import Context

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
BEFORE, AFTER = "tool.execute.before", "tool.execute.after"
CALL, RESULT = "tool_call", "tool_result"


def module(ctx: Context, agent: str) -> Path:
    if agent == "pi":
        return ctx.home / ".pi" / "agent" / "extensions" / plugin.FILE_NAME
    return ctx.home / ".config" / agent / "plugins" / plugin.FILE_NAME


def host(hook: str, *modules: Path, as_agent: str | None = None) -> list[str]:
    chosen = ["--host", as_agent] if as_agent else []
    return ["node", str(plugin.host_program()), *chosen, hook, *map(str, modules)]


def recorder(tmp_path: Path) -> tuple[Path, Path]:
    """A stand-in interpreter that logs which runtime script it was asked to run and the stdin it got (install
    also asks it to compile the runtime, ``-c``: refused, as by an interpreter that cannot)."""
    log = tmp_path / "calls.jsonl"
    script = tmp_path / "recorder.py"
    script.write_text(
        "#!/usr/bin/env python3\nimport json, sys\n"
        "if '-c' in sys.argv: sys.exit(1)\n"
        f"open({str(log)!r}, 'a').write(json.dumps([sys.argv[-1], sys.stdin.read()]) + '\\n')\n"
    )
    script.chmod(0o755)
    return script, log


def calls(log: Path) -> list[tuple[str, dict[str, object]]]:
    if not log.exists():
        return []
    return [
        (Path(s).parent.name + "/" + Path(s).name, json.loads(body))
        for s, body in map(json.loads, log.read_text().splitlines())
    ]


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    return make_context(tmp_path)


@pytest.mark.parametrize("agent", ["opencode", "kilo"])
def test_allow_then_block_by_throw(ctx: Context, agent: str) -> None:
    operations.install(agent, ctx)
    allowed = run_as_agent(host(BEFORE, module(ctx, agent)), payload(agent, BEFORE))
    assert (allowed.returncode, allowed.stdout, allowed.stderr) == (0, b"", b"")
    set_status(ctx, agent, "frozen")
    blocked = run_as_agent(host(BEFORE, module(ctx, agent)), payload(agent, BEFORE))
    assert blocked.returncode == catalog.provider(agent).guard.deny_exit_code
    assert (
        blocked.stderr.decode().strip()
        == f'[Elydora guard] Agent "{agent}" is frozen in Elydora. Tool execution blocked.'
    )


@pytest.mark.parametrize("agent", ["opencode", "kilo"])
def test_the_guard_failing_blocks_because_the_guard_fails_closed(ctx: Context, agent: str) -> None:
    operations.install(agent, ctx)
    (ctx.agent_dir(agent) / "guard.py").unlink()
    result = run_as_agent(host(BEFORE, module(ctx, agent)), payload(agent, BEFORE))
    assert result.returncode == 2
    assert "Elydora guard failed, so the tool call is blocked (fail-closed)" in result.stderr.decode()


def test_a_guard_that_does_not_answer_is_bounded(ctx: Context, tmp_path: Path) -> None:
    slow = tmp_path / "slow-python"
    slow.write_text('#!/bin/sh\n[ "$3" = -c ] && exit 1  # install compiling the runtime\nexec sleep 30\n')
    slow.chmod(0o755)
    operations.install("opencode", ctx.with_options(python=str(slow)))
    text = (
        module(ctx, "opencode").read_text().replace("const GUARD_TIMEOUT_MS = 5000;", "const GUARD_TIMEOUT_MS = 300;")
    )
    quick = tmp_path / "quick.js"
    quick.write_text(text)
    result = run_as_agent(host(BEFORE, quick), payload("opencode", BEFORE))
    assert result.returncode == 2 and "no answer within 300 ms" in result.stderr.decode()


@pytest.mark.parametrize("agent", ["opencode", "kilo"])
def test_the_audit_gets_the_native_input_and_output(ctx: Context, tmp_path: Path, agent: str) -> None:
    python, log = recorder(tmp_path)
    operations.install(agent, ctx.with_options(python=str(python)))
    sent = json.loads(payload(agent, AFTER))
    result = run_as_agent(host(AFTER, module(ctx, agent)), payload(agent, AFTER))
    assert (result.returncode, result.stderr) == (0, b"")
    assert calls(log) == [(f"{agent}/hook.py", sent)]  # tool, args, sessionID, callID, title, output, metadata
    assert sent["output"] and sent["metadata"]


def test_the_real_audit_hook_records_the_tool_output(ctx: Context, tmp_path: Path) -> None:
    operations.install("opencode", ctx)
    from elydora_cli.installer.verify import make_probe_dir
    from elydora_cli.statefiles import PROBE_ENV

    name, made = make_probe_dir(str(ctx.agent_dir("opencode")), "active")  # verify's scratch state
    scratch = Path(made)
    result = run_as_agent(host(AFTER, module(ctx, "opencode")), payload("opencode", AFTER), {PROBE_ENV: name})
    assert result.returncode == 0, result.stderr
    [line] = (scratch / "spool.jsonl").read_text().split("\n", 1)[1].splitlines()
    assert json.loads(line.split(" ", 1)[1]) == json.loads(payload("opencode", AFTER))


@pytest.mark.parametrize(("as_agent", "recorded"), [("kilo", "kilo"), ("opencode", "opencode"), (None, "opencode")])
def test_both_modules_in_one_process_record_once(
    ctx: Context, tmp_path: Path, as_agent: str | None, recorded: str
) -> None:
    """Kilo loading OpenCode's module too (it loads OpenCode's project plugin folders) must not double-record:
    the module of the agent running the process acts, the other stays silent; an unknown host runs the first."""
    python, log = recorder(tmp_path)
    for agent in ("opencode", "kilo"):
        operations.install(agent, ctx.with_options(python=str(python)))
    both = (module(ctx, "opencode"), module(ctx, "kilo"))
    for hook in (BEFORE, AFTER):
        result = run_as_agent(host(hook, *both, as_agent=as_agent), payload("opencode", hook))
        assert (result.returncode, result.stderr) == (0, b"")
    assert [script for script, _ in calls(log)] == [f"{recorded}/guard.py", f"{recorded}/hook.py"]


def test_an_inherited_pid_variable_is_not_the_host(ctx: Context, tmp_path: Path) -> None:
    """Kilo started from an OpenCode shell inherits OPENCODE_PID, which names the parent, not this process."""
    python, log = recorder(tmp_path)
    operations.install("kilo", ctx.with_options(python=str(python)))
    result = run_as_agent(
        host(AFTER, module(ctx, "kilo"), as_agent="kilo"), payload("kilo", AFTER), {"OPENCODE_PID": "1"}
    )
    assert result.returncode == 0
    assert [script for script, _ in calls(log)] == ["kilo/hook.py"]


def test_the_stub_refuses_a_bad_call() -> None:
    result = subprocess.run(
        ["node", str(plugin.host_program()), "tool.execute.sideways"], capture_output=True, timeout=30
    )
    assert result.returncode == 64 and b"usage:" in result.stderr


def test_a_fail_open_guard_lets_the_call_through_on_our_own_errors(ctx: Context, tmp_path: Path) -> None:
    """The failure mode is the catalog's, rendered as a constant: the same failure allows when it says open."""
    from elydora_cli.providers import opencode
    from elydora_config.records import replace

    facts = replace(opencode.FACTS, guard=replace(opencode.FACTS.guard, failure_mode="open"))
    lenient = tmp_path / "lenient.js"
    lenient.write_text(plugin.render(facts, plugin.Marker("opencode", str(tmp_path / "no-python")), ctx))
    assert "const FAIL_CLOSED = false; // @param" in lenient.read_text()
    result = run_as_agent(host(BEFORE, lenient), payload("opencode", BEFORE))
    assert (result.returncode, result.stderr) == (0, b"")


def test_the_after_hook_never_throws_on_our_errors(ctx: Context, tmp_path: Path) -> None:
    broken = tmp_path / "broken.js"
    marker = plugin.Marker("kilo", str(tmp_path / "gone"))
    broken.write_text(plugin.render(catalog.provider("kilo"), marker, ctx))
    result = run_as_agent(host(AFTER, broken), payload("kilo", AFTER))
    assert (result.returncode, result.stderr) == (0, b"")


def test_pi_allows_then_blocks_with_the_guards_reason(ctx: Context) -> None:
    operations.install("pi", ctx)
    allowed = run_as_agent(host(CALL, module(ctx, "pi")), payload("pi", CALL))
    assert (allowed.returncode, allowed.stdout, allowed.stderr) == (0, b"", b"")
    set_status(ctx, "pi", "frozen")
    blocked = run_as_agent(host(CALL, module(ctx, "pi")), payload("pi", CALL))
    assert blocked.returncode == 2
    assert blocked.stderr.decode().strip() == '[Elydora guard] Agent "pi" is frozen in Elydora. Tool execution blocked.'


def test_pi_blocks_when_the_guard_fails_because_it_fails_closed(ctx: Context) -> None:
    operations.install("pi", ctx)
    (ctx.agent_dir("pi") / "guard.py").unlink()
    result = run_as_agent(host(CALL, module(ctx, "pi")), payload("pi", CALL))
    assert result.returncode == 2
    assert "Elydora guard failed, so the tool call is blocked (fail-closed)" in result.stderr.decode()


def test_pi_hands_its_own_events_to_the_guard_and_the_audit(ctx: Context, tmp_path: Path) -> None:
    """The guard gets Pi's ``tool_call`` event and the audit its ``tool_result`` event, each with the handler
    context's ``cwd`` and session id (``hook_event_name`` first), nothing else added or taken away."""
    python, log = recorder(tmp_path)
    operations.install("pi", ctx.with_options(python=str(python)))
    for hook in (CALL, RESULT):
        result = run_as_agent(host(hook, module(ctx, "pi")), payload("pi", hook))
        assert (result.returncode, result.stderr) == (0, b"")
    sent = [("pi/guard.py", json.loads(payload("pi", CALL))), ("pi/hook.py", json.loads(payload("pi", RESULT)))]
    assert calls(log) == sent
