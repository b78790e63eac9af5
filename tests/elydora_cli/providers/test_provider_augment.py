"""Auggie specifics: exec-form handlers, migration of the quoted-wrapper form, the 7-event schema, JavaScript
matchers, status."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.provider_cases import make_context
from locations import CAPTURED_PAYLOADS

from elydora_cli.installer import operations, verify
from elydora_cli.plug.context import Context
from elydora_cli.plug.jsregex import NodeUnavailableError
from elydora_cli.plug.ownership import Ref
from elydora_cli.providers import augment
from elydora_config.errors import FileTooLargeError, MalformedConfigError

PY = sys.executable
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")


def settings(ctx: Context) -> Path:
    return ctx.home / ".augment" / "settings.json"


def write(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value, indent=2) + "\n", encoding="utf-8")


def ours(ctx: Context, script: str) -> dict[str, Any]:
    argv = [PY, "-I", "-S", f"{ctx.home}/.elydora/augment/{script}"]
    return {"matcher": ".*", "hooks": [{"type": "command", "command": argv[0], "args": argv[1:], "timeout": 10000}]}


def old_wrapper_entry(ctx: Context, wrapper: str) -> dict[str, Any]:
    """What earlier versions (and the Python SDK installer) wrote: the POSIX-quoted wrapper path."""
    command = f"'{ctx.home}/.elydora/augment/{wrapper}'"
    return {"matcher": ".*", "hooks": [{"type": "command", "command": command, "timeout": 10000}]}


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    return make_context(tmp_path)


def test_install_writes_exec_form_handlers_auggie_spawns_without_a_shell(ctx: Context) -> None:
    operations.install("augment", ctx)
    assert json.loads(settings(ctx).read_text()) == {
        "hooks": {"PreToolUse": [ours(ctx, "guard.py")], "PostToolUse": [ours(ctx, "hook.py")]}
    }
    assert operations.status("augment", ctx).healthy
    operations.uninstall("augment", ctx)
    assert not settings(ctx).exists()


def test_the_quoted_wrapper_form_is_migrated_and_its_wrappers_removed(ctx: Context) -> None:
    agent = ctx.agent_dir("augment")
    write(settings(ctx), {"hooks": {"PreToolUse": [old_wrapper_entry(ctx, "augment-guard.sh")],
                                    "PostToolUse": [old_wrapper_entry(ctx, "augment-hook.sh")]}})  # fmt: skip
    assert not operations.status("augment", ctx).healthy
    operations.install("augment", ctx)
    assert json.loads(settings(ctx).read_text()) == {
        "hooks": {"PreToolUse": [ours(ctx, "guard.py")], "PostToolUse": [ours(ctx, "hook.py")]}
    }
    assert operations.status("augment", ctx).healthy
    operations.uninstall("augment", ctx)
    assert ".elydora" not in settings(ctx).read_text() and not (agent / "augment-guard.sh").exists()


def test_wrappers_an_earlier_install_generated_are_removed_on_reinstall(ctx: Context) -> None:
    from elydora_cli.installer.manifest import MANIFEST_NAME, Manifest

    operations.install("augment", ctx)
    agent = ctx.agent_dir("augment")
    manifest = Manifest.decode((agent / MANIFEST_NAME).read_bytes(), agent / MANIFEST_NAME)
    for name in ("augment-guard.sh", "augment-hook.sh"):  # what the earlier version left and recorded
        (agent / name).write_text("#!/bin/sh\n")
        manifest.runtime.append(name)
    (agent / MANIFEST_NAME).write_bytes(manifest.encode())
    operations.install("augment", ctx)
    assert not (agent / "augment-guard.sh").exists() and not (agent / "augment-hook.sh").exists()
    assert operations.status("augment", ctx).healthy


def test_windows_forms(tmp_path: Path) -> None:
    ctx = make_context(tmp_path).with_options(state_root=Path('/st/100%"x'), python="/py/py%.exe", windows=True)
    assert augment.make_handler(Ref("augment", "audit", ctx.python, 10000), ctx) == {
        "type": "command",
        "command": "/py/py%.exe",
        "args": ["-I", "-S", '/st/100%"x/.elydora/augment/hook.py'],
        "timeout": 10000,
    }
    old = {"type": "command", "command": '"/st/100%\\"x/.elydora/augment/augment-hook.cmd"', "timeout": 10000}
    assert augment.legacy(old, ctx) == Ref("augment", "audit", ctx.python, 10000)


def test_timeout_is_in_milliseconds(ctx: Context) -> None:
    operations.install("augment", ctx.with_options(timeout_seconds=7))
    assert json.loads(settings(ctx).read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] == 7000


# -- schema -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hooks", "reason"),
    [
        ({"PostToolUseFailure": []}, "hooks.PostToolUseFailure is not an event this agent knows"),
        ({"SessionStart": [{"matcher": ".*", "hooks": []}]}, "hooks.SessionStart[0].matcher must be absent"),
        ({"PreToolUse": [{"matcher": 3, "hooks": []}]}, "hooks.PreToolUse[0].matcher must be a string"),
        ({"Stop": [{"metadata": {"includeUserContext": "yes"}, "hooks": []}]}, "hooks.Stop[0].metadata must be"),
        ({"Stop": [{"metadata": [], "hooks": []}]}, "hooks.Stop[0].metadata must be"),
        ({"Stop": [{"hooks": [{"type": "prompt", "prompt": "x"}]}]}, "hooks.Stop[0].hooks[0].type must be one of"),
        ({"Stop": [{"hooks": [{"command": "x"}]}]}, "hooks.Stop[0].hooks[0].type must be one of"),
        ({"Stop": [{"hooks": [{"type": "command"}]}]}, "missing the required key 'command'"),
        ({"Stop": [{"hooks": [{"type": "command", "command": ""}]}]}, "command must be a non-empty string"),
        ({"Stop": [{"hooks": [{"type": "command", "command": "x", "args": [1]}]}]}, "args must be a list of strings"),
        ({"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]}, "timeout must be a positive"),
        ({"Stop": {}}, "hooks.Stop must be an array"),
    ],
)
def test_schema_refusals_leave_the_file_untouched(ctx: Context, hooks: dict[str, Any], reason: str) -> None:
    write(settings(ctx), {"hooks": hooks})
    before = settings(ctx).read_bytes()
    with pytest.raises(MalformedConfigError) as error:
        operations.install("augment", ctx)
    assert reason in error.value.reason
    assert settings(ctx).read_bytes() == before
    assert not ctx.elydora_dir.exists()


@pytest.mark.parametrize("content", ['\ufeff{"hooks": {}}', '{"hooks": {},}', '{"a": 1, "a": 1}', "/* c */ {}"])
def test_strict_json_only(ctx: Context, content: str) -> None:
    write(settings(ctx), content)
    with pytest.raises(MalformedConfigError):
        operations.install("augment", ctx)


def test_settings_are_limited_to_512_kib(ctx: Context) -> None:
    write(settings(ctx), '{"x": "' + "a" * (512 * 1024) + '"}')
    with pytest.raises(FileTooLargeError):
        operations.install("augment", ctx)


def test_extra_handler_and_group_keys_are_kept(ctx: Context) -> None:
    group = {
        "label": "mine",
        "metadata": {"includeConversationData": True, "future": 1},
        "hooks": [{"type": "command", "command": "x", "args": ["a"], "timeout": 5, "extra": {"k": 1}}],
    }
    write(settings(ctx), {"hooks": {"SessionEnd": [group]}})
    operations.install("augment", ctx)
    assert json.loads(settings(ctx).read_text())["hooks"]["SessionEnd"] == [group]


# -- JavaScript matchers ----------------------------------------------------------------------------------


@needs_node
def test_a_matcher_javascript_rejects_is_refused(ctx: Context) -> None:
    write(
        settings(ctx), {"hooks": {"PreToolUse": [{"matcher": "ok", "hooks": []}, {"matcher": "(?P<x>a)", "hooks": []}]}}
    )
    with pytest.raises(MalformedConfigError) as error:
        operations.install("augment", ctx)
    assert error.value.path == str(settings(ctx))
    assert "hooks.PreToolUse[1].matcher is not a valid JavaScript regular expression" in error.value.reason


@needs_node
def test_javascript_only_syntax_is_accepted(ctx: Context) -> None:
    user_group = {"matcher": "(?<tool>launch-process)", "hooks": []}
    write(settings(ctx), {"hooks": {"PostToolUse": [user_group]}})
    operations.install("augment", ctx)
    groups = json.loads(settings(ctx).read_text())["hooks"]["PostToolUse"]
    assert groups[0] == user_group and len(groups) == 2  # the user's group kept, ours appended
    assert operations.status("augment", ctx).healthy


def test_node_is_needed_only_for_user_matchers(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    operations.install("augment", ctx)
    monkeypatch.setenv("PATH", str(ctx.home / "no-node-here"))
    operations.install("augment", ctx)  # only our own ".*": nothing to ask Node
    assert operations.status("augment", ctx).healthy
    value = json.loads(settings(ctx).read_text())
    value["hooks"]["PreToolUse"].insert(0, {"matcher": "launch-.*", "hooks": []})
    write(settings(ctx), value)
    before = settings(ctx).read_bytes()
    with pytest.raises(NodeUnavailableError) as error:
        operations.install("augment", ctx)
    assert "Node.js (`node`) is needed" in error.value.reason and error.value.path == str(settings(ctx))
    assert settings(ctx).read_bytes() == before
    operations.uninstall("augment", ctx)  # uninstall and status never need Node
    assert json.loads(settings(ctx).read_text()) == {"hooks": {"PreToolUse": [{"matcher": "launch-.*", "hooks": []}]}}


# -- ownership and status ---------------------------------------------------------------------------------


def test_uninstall_keeps_user_handlers_beside_ours(ctx: Context) -> None:
    operations.install("augment", ctx)
    value = json.loads(settings(ctx).read_text())
    value["hooks"]["PreToolUse"][0]["hooks"].append({"type": "command", "command": "mine"})
    write(settings(ctx), value)
    operations.uninstall("augment", ctx)
    assert json.loads(settings(ctx).read_text()) == {
        "hooks": {"PreToolUse": [{"matcher": ".*", "hooks": [{"type": "command", "command": "mine"}]}]}
    }


def test_look_alikes_are_not_ours(ctx: Context) -> None:
    agent = f"{ctx.home}/.elydora/augment"
    look_alikes = [
        {"type": "command", "command": f"'{agent}/augment-guard.sh'", "args": [], "timeout": 10000},
        {"type": "command", "command": f"'{agent}/other.sh'", "timeout": 10000},
        {"type": "command", "command": f"'{agent}/augment-guard.sh' extra", "timeout": 10000},
    ]
    write(settings(ctx), {"hooks": {"PreToolUse": [{"matcher": ".*", "hooks": look_alikes}]}})
    operations.install("augment", ctx)
    operations.uninstall("augment", ctx)
    assert json.loads(settings(ctx).read_text()) == {"hooks": {"PreToolUse": [{"matcher": ".*", "hooks": look_alikes}]}}


def test_reference_entries_are_ours_and_migrated(ctx: Context) -> None:
    """The Python SDK installer wrote the quoted-wrapper entries too: they are replaced, not duplicated."""
    write(settings(ctx), {"hooks": {"PreToolUse": [old_wrapper_entry(ctx, "augment-guard.sh")]}})
    operations.install("augment", ctx)
    assert json.loads(settings(ctx).read_text())["hooks"]["PreToolUse"] == [ours(ctx, "guard.py")]


def test_status_names_a_missing_handler(ctx: Context) -> None:
    operations.install("augment", ctx)
    value = json.loads(settings(ctx).read_text())
    del value["hooks"]["PostToolUse"]
    write(settings(ctx), value)
    found = operations.status("augment", ctx).findings
    assert [f.render() for f in found if f.severity == "error"] == [
        f"{settings(ctx)}: no Elydora audit handler for PostToolUse (expected exactly one)"
    ]
    assert [f.severity for f in found if f.severity != "error"] == ["note"]  # the enable_hooks flag


def test_status_notes_that_hooks_need_the_servers_feature_flag(ctx: Context) -> None:
    operations.install("augment", ctx)
    status = operations.status("augment", ctx)
    assert status.healthy
    assert [f.message for f in status.findings] == [augment.ENABLE_HOOKS_NOTE]


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse"])
def test_verify_probes_send_the_payload_auggie_sends(event: str, tmp_path: Path) -> None:
    """``elydora verify`` feeds our hooks Auggie 0.36.0's own shape (keys in its order, a string
    ``tool_output``, ``tool_error``), as captured from the real CLI in the end-to-end suite."""
    captured = json.loads((CAPTURED_PAYLOADS / f"augment-{event}.json").read_text(encoding="utf-8"))
    sample = json.loads(verify.payload("augment", event, str(tmp_path)))
    assert list(sample) == list(captured)
    assert {k: type(v) for k, v in sample.items()} == {k: type(v) for k, v in captured.items()}
    assert sample["workspace_roots"] == [str(tmp_path)]
