"""``elydora verify``: every installed entry run the way its agent runs it, against a scratch status.

A fresh ``install --every`` passes for every supported agent; a deleted script, an edited config entry and a timeout
that differs from the flag each fail with a clear reason; the agent's real state is never changed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from elydora_cli import catalog, identity
from elydora_cli import providers as registry
from elydora_cli.main import main

LINE = re.compile(r"^(\S+) +(\S+) +(\S+) +(OK|FAIL .*)$")


def cli(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, str, str]:
    code = main([*argv, "--root", str(root / "home"), "--repo-root", str(root / "work")])
    out, err = capsys.readouterr()
    return code, out, err


def rows(out: str) -> dict[tuple[str, str, str], str]:
    """(provider, event, probe) -> ``OK`` or ``FAIL <reason>`` (repeated keys keep the last)."""
    found = {}
    for line in out.splitlines()[:-1]:
        match = LINE.match(line)
        assert match, line
        found[match.group(1), match.group(2), match.group(3)] = match.group(4)
    return found


def state_files(home: Path) -> dict[str, bytes]:
    """The agents' state (the interpreter's bytecode cache aside: running a hook fills it)."""
    return {
        str(p.relative_to(home)): p.read_bytes()
        for p in sorted((home / ".elydora").rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and "transactions" not in p.parts and p.name != ".lock"
    }


def test_a_fresh_install_all_passes_for_every_agent(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(capsys, root, "install", "--every")[0] == 0
    before = state_files(root / "home")
    code, out, err = cli(capsys, root, "verify", "--all")
    assert (code, err) == (0, ""), out
    found = rows(out)
    expected = set()
    for pid in registry.implemented_ids():
        facts = catalog.provider(pid)
        expected |= {(pid, facts.events.pre_tool, "allow"), (pid, facts.events.pre_tool, "block")}
        expected |= {(pid, event, "audit") for event in facts.events.audit_events}
    assert len(registry.implemented_ids()) == 22
    assert set(found) == expected
    assert set(found.values()) == {"OK"}
    assert out.splitlines()[-1] == f"all {len(expected)} checks passed"
    assert state_files(root / "home") == before, "verify changed the agents' state"
    for pid in registry.implemented_ids():  # no probe event reached the spool, the ledger or the error log
        agent = root / "home" / ".elydora" / pid
        assert not {"spool.jsonl", "ledger.jsonl", "error.log"} & {p.name for p in agent.iterdir()}


def test_json_report(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, root, "install", "cursor", "gemini")
    code, out, _ = cli(capsys, root, "verify", "cursor", "gemini", "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] is True
    probes = [(c["provider"], c["event"], c["probe"]) for c in report["checks"]]
    assert probes == [
        ("cursor", "preToolUse", "allow"),
        ("cursor", "preToolUse", "block"),
        ("cursor", "postToolUse", "audit"),
        ("cursor", "postToolUseFailure", "audit"),
        ("gemini", "BeforeTool", "allow"),
        ("gemini", "BeforeTool", "block"),
        ("gemini", "AfterTool", "audit"),
    ]
    block = report["checks"][1]
    assert block["exit_code"] == 2 and block["source"] == str(root / "home" / ".cursor" / "hooks.json")


def test_a_frozen_agent_still_passes_and_stays_frozen(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, root, "install", "qwen")
    status = root / "home" / ".elydora" / "qwen" / identity.STATUS
    status.write_bytes(identity.status_bytes("frozen", "by the test"))
    frozen = status.read_bytes()
    code, out, _ = cli(capsys, root, "verify", "qwen")
    assert code == 0, out
    assert status.read_bytes() == frozen


def test_a_deleted_guard_script_fails(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, root, "install", "claudecode", "codex")
    (root / "home" / ".elydora" / "claudecode" / "guard.py").unlink()
    code, out, _ = cli(capsys, root, "verify", "claudecode", "codex")
    found = rows(out)
    assert code == 1
    assert found["claudecode", "config", "-"].endswith("guard.py: runtime file is missing")
    missing = f"FAIL cannot run {root / 'home' / '.elydora' / 'claudecode' / 'guard.py'}: No such file or directory"
    assert found["claudecode", "PreToolUse", "allow"] == missing  # the entry runs the launcher itself
    assert found["claudecode", "PreToolUse", "block"] == missing
    assert found["claudecode", "PostToolUse", "audit"] == "OK"
    assert {v for k, v in found.items() if k[0] == "codex"} == {"OK"}
    assert out.splitlines()[-1] == "3 of 8 checks failed"


def test_a_deleted_audit_module_fails_as_not_recorded(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, root, "install", "codex")
    for module in (root / "home" / ".elydora" / "codex").glob("_elydora_audit.*"):  # the source and its bytecode
        module.unlink()
    code, out, _ = cli(capsys, root, "verify", "codex")
    assert code == 1
    # fail-open: the launcher answers exit 0 as on success, but nothing was recorded
    assert rows(out)["codex", "PostToolUse", "audit"].startswith("FAIL the event was not recorded")


def test_an_edited_config_entry_fails(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, root, "install", "droid")
    path = root / "home" / ".factory" / "hooks.json"
    text = path.read_text()
    path.write_text(text.replace("/guard.py'", "/guard.py' --extra", 1))
    code, out, _ = cli(capsys, root, "verify", "droid")
    found = rows(out)
    assert code == 1
    assert found["droid", "PreToolUse", "-"] == "FAIL no Elydora handler for it in the agent's config"
    assert "no Elydora guard handler for PreToolUse" in found["droid", "config", "-"]
    assert found["droid", "PostToolUse", "audit"] == "OK"


def test_a_remembered_timeout_is_kept_and_a_different_flag_fails(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli(capsys, root, "install", "kimi", "letta", "--hook-timeout-seconds", "30")
    assert cli(capsys, root, "verify", "kimi", "letta")[0] == 0  # the manifest remembers 30 s
    code, out, _ = cli(capsys, root, "verify", "kimi", "letta", "--hook-timeout-seconds", "10")
    assert code == 1
    problems = [line for line in out.splitlines() if " config " in line]
    settings = root / "home" / ".letta" / "settings.json"
    wanted = f"{settings}: PreToolUse: installed with a timeout of 30 s, expected 10 s; pass --hook-timeout-seconds 30"
    assert any(line.endswith(wanted + " or reinstall") for line in problems), problems
    assert any("kimi" in line and "PostToolUseFailure: installed with a timeout of 30 s" in line for line in problems)
    assert cli(capsys, root, "verify", "kimi", "letta", "--hook-timeout-seconds", "30")[0] == 0


def test_status_names_the_timeout_mismatch(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, root, "install", "gemini", "--hook-timeout-seconds", "30")
    assert cli(capsys, root, "status", "gemini")[0] == 0  # the manifest remembers 30 s
    code, out, _ = cli(capsys, root, "status", "gemini", "--hook-timeout-seconds", "10")
    assert code == 1
    assert "BeforeTool: installed with a timeout of 30 s, expected 10 s; pass --hook-timeout-seconds 30" in out
    assert cli(capsys, root, "status", "gemini", "--hook-timeout-seconds", "30")[0] == 0


def test_not_installed_and_usage(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, root, "verify", "augment")
    assert code == 1
    assert rows(out) == {("augment", "-", "-"): "FAIL not installed (run: elydora install augment)"}
    code, _, err = cli(capsys, root, "verify")
    assert code == 2 and "name at least one provider" in err
    code, _, err = cli(capsys, root, "verify", "nosuch")
    assert code == 2 and "unknown provider" in err  # a usage error


def test_a_hook_that_outlives_the_agents_timeout_fails(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, root, "install", "grok", "--hook-timeout-seconds", "1")
    module = root / "home" / ".elydora" / "grok" / "_elydora_guard.py"
    module.write_text("import time\n\ndef main():\n    time.sleep(30)\n")
    for compiled in module.parent.glob("_elydora_guard.*.code"):  # the launcher loads the source without it
        compiled.unlink()
    code, out, _ = cli(capsys, root, "verify", "grok", "--hook-timeout-seconds", "1")
    found = rows(out)
    assert code == 1
    assert found["grok", "PreToolUse", "allow"] == "FAIL no answer within the agent's timeout of 1 s"


COPILOT_DENY = (
    b'{"permissionDecision":"deny","permissionDecisionReason":'
    b'"[Elydora guard] Agent \\"copilot\\" is frozen in Elydora. Tool execution blocked."}\n'
)


@pytest.mark.parametrize(
    ("kind", "code", "stdout", "problem"),
    [
        ("block", 2, COPILOT_DENY, None),
        ("block", 2, b"", "stdout is not the agent's JSON block answer"),  # exit 2 alone: the model hears no reason
        ("block", 2, b'{"permissionDecision":"deny"}\n', "permissionDecisionReason must be a non-empty string"),
        ("allow", 0, b"", None),
        ("allow", 0, COPILOT_DENY, "stdout refuses the call"),
    ],
)
def test_copilots_block_protocol_is_judged(
    tmp_path: Path, kind: str, code: int, stdout: bytes, problem: str | None
) -> None:
    from elydora_cli.installer import verify
    from elydora_cli.installer.entries import Entry
    from elydora_cli.plug.ownership import Ref

    entry = Entry(tmp_path, "preToolUse", "guard", Ref("copilot", "guard", "python3", 10), {}, ["true"], 10)
    probe = verify.Probe("copilot", entry, kind, b"{}", 10.0, None, str(tmp_path))
    stderr = b'[Elydora guard] Agent "copilot" is frozen in Elydora. Tool execution blocked.\n'
    found = verify.judge(probe, code, stdout, stderr if kind == "block" else b"", str(tmp_path))
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found
