"""OpenCode, Kilo Code and Pi (in-process plugins and extensions): where the module goes, install, install twice,
uninstall byte-identical, the user's own plugins untouched, ownership by exact content, status, a concurrent
writer."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from elydora_testkit.provider_cases import change_before_commit, files_under, make_context
from locations import PROJECT_ROOT

from elydora_cli.installer import operations
from elydora_cli.plug import plugin
from elydora_cli.plug.common import RefusedError
from elydora_cli.plug.context import Context
from elydora_cli.providers import kilo, opencode, pi
from elydora_config.errors import ConcurrentModificationError, MalformedConfigError

AGENTS = ["opencode", "kilo", "pi"]
MODULES = {"opencode": opencode, "kilo": kilo, "pi": pi}
NAMES = {"opencode": "OpenCode", "kilo": "Kilo Code CLI", "pi": "Pi"}
USER_PLUGIN = b"// my own plugin\r\nexport const Mine = async () => ({ 'tool.execute.before': async () => {} })\n"


def folder(ctx: Context, agent: str) -> Path:
    if agent == "pi":
        return ctx.home / ".pi" / "agent" / "extensions"
    return ctx.home / ".config" / agent / "plugins"


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    return make_context(tmp_path)


@pytest.mark.parametrize(
    ("agent", "env", "expected"),
    [
        ("opencode", {}, "HOME/.config/opencode/plugins/elydora-audit.js"),
        ("opencode", {"XDG_CONFIG_HOME": ""}, "HOME/.config/opencode/plugins/elydora-audit.js"),
        ("opencode", {"XDG_CONFIG_HOME": "/xdg"}, "HOME/xdg/opencode/plugins/elydora-audit.js"),
        ("kilo", {}, "HOME/.config/kilo/plugins/elydora-audit.js"),
        ("kilo", {"XDG_CONFIG_HOME": "/xdg"}, "HOME/xdg/kilo/plugins/elydora-audit.js"),
        ("kilo", {"XDG_CONFIG_HOME": "/xdg", "KILO_CONFIG_DIR": "/k"}, "HOME/k/plugins/elydora-audit.js"),
        ("pi", {}, "HOME/.pi/agent/extensions/elydora-audit.js"),
        ("pi", {"PI_CODING_AGENT_DIR": ""}, "HOME/.pi/agent/extensions/elydora-audit.js"),
        ("pi", {"PI_CODING_AGENT_DIR": "/p"}, "HOME/p/extensions/elydora-audit.js"),
        ("pi", {"PI_CODING_AGENT_DIR": "~/pi-home"}, "HOME/pi-home/extensions/elydora-audit.js"),
        ("pi", {"PI_CODING_AGENT_DIR": "rel"}, "REPO/rel/extensions/elydora-audit.js"),
    ],
)
def test_the_module_goes_to_the_global_plugins_folder(
    tmp_path: Path, agent: str, env: dict[str, str], expected: str
) -> None:
    ctx = make_context(tmp_path, env)
    wanted = expected.replace("HOME", str(ctx.home)).replace("REPO", str(ctx.repo_root))
    assert MODULES[agent].sources(ctx).targets[0].path == Path(wanted)


@pytest.mark.parametrize("agent", AGENTS)
def test_install_writes_one_owner_only_module_and_keeps_the_users_plugins(ctx: Context, agent: str) -> None:
    mine = folder(ctx, agent) / "mine.js"
    mine.parent.mkdir(parents=True)
    mine.write_bytes(USER_PLUGIN)
    operations.install(agent, ctx)
    ours = folder(ctx, agent) / plugin.FILE_NAME
    text = ours.read_text()
    assert sorted(p.name for p in folder(ctx, agent).iterdir()) == ["elydora-audit.js", "mine.js"]
    assert mine.read_bytes() == USER_PLUGIN
    assert ours.stat().st_mode & 0o777 == 0o600
    assert plugin.marker_of(text, ours) == plugin.Marker(agent, ctx.python)
    assert f'const HOST = "{agent}";' in text and "const FAIL_CLOSED = true;" in text
    assert f'const HOOK = "{ctx.home}/.elydora/{agent}/hook.py";' in text
    assert operations.status(agent, ctx).healthy


@pytest.mark.parametrize("agent", AGENTS)
def test_install_twice_is_install_once_and_uninstall_restores_every_byte(ctx: Context, agent: str) -> None:
    mine = folder(ctx, agent) / "mine.js"
    mine.parent.mkdir(parents=True)
    mine.write_bytes(USER_PLUGIN)
    before = files_under(folder(ctx, agent).parent)
    operations.install(agent, ctx)
    ours = folder(ctx, agent) / plugin.FILE_NAME
    once, inode = ours.read_bytes(), ours.stat().st_ino
    outcome = operations.install(agent, ctx)
    assert str(ours) not in outcome.changed
    assert ours.read_bytes() == once and ours.stat().st_ino == inode
    operations.uninstall(agent, ctx)
    assert files_under(folder(ctx, agent).parent) == before
    assert not ours.exists()


@pytest.mark.parametrize("agent", AGENTS)
def test_a_file_at_our_path_without_the_marker_is_someone_elses(ctx: Context, agent: str) -> None:
    ours = folder(ctx, agent) / plugin.FILE_NAME
    ours.parent.mkdir(parents=True)
    ours.write_bytes(USER_PLUGIN)
    with pytest.raises(RefusedError, match="no Elydora marker"):
        operations.install(agent, ctx)
    operations.uninstall(agent, ctx)
    assert ours.read_bytes() == USER_PLUGIN
    assert [f.message for f in operations.status(agent, ctx).findings if f.path == ours] == [
        "has no Elydora marker: another integration owns it"
    ]


@pytest.mark.parametrize("agent", AGENTS)
def test_a_broken_marker_is_refused_and_the_file_stays(ctx: Context, agent: str) -> None:
    ours = folder(ctx, agent) / plugin.FILE_NAME
    ours.parent.mkdir(parents=True)
    broken = f"// x\n{plugin.MARKER}e30\n".encode()  # base64url of {}
    ours.write_bytes(broken)
    with pytest.raises(MalformedConfigError, match="marker is unreadable"):
        operations.install(agent, ctx)
    assert ours.read_bytes() == broken


@pytest.mark.parametrize("agent", AGENTS)
def test_an_edited_module_is_reported_and_blocks_uninstall(ctx: Context, agent: str) -> None:
    operations.install(agent, ctx)
    ours = folder(ctx, agent) / plugin.FILE_NAME
    edited = ours.read_text().replace("const GUARD_TIMEOUT_MS = 5000;", "const GUARD_TIMEOUT_MS = 1;")
    ours.write_text(edited)
    assert any("differs from what this version generates" in f.message for f in operations.status(agent, ctx).findings)
    with pytest.raises(RefusedError, match="changed after Elydora wrote it"):
        operations.uninstall(agent, ctx)
    assert ours.read_text() == edited
    operations.install(agent, ctx)  # a marked file is ours to regenerate
    assert operations.status(agent, ctx).healthy


@pytest.mark.parametrize("agent", AGENTS)
def test_uninstall_leaves_another_agent_ids_module(ctx: Context, agent: str) -> None:
    operations.install(agent, ctx.with_options(agent_id="work"))
    ours = folder(ctx, agent) / plugin.FILE_NAME
    kept = ours.read_bytes()
    docs_ctx = ctx.with_options(agent_id="work")
    assert operations.status(agent, docs_ctx).healthy
    module = MODULES[agent]
    from elydora_cli.plug.documents import Documents

    docs = Documents({ours: module.sources(ctx).targets[0]}, {ours: None}, {ours: kept.decode()})
    module.uninstall(docs, ctx, {"other"})
    assert ours not in docs.deleted
    module.uninstall(docs, ctx, {"work"})
    assert ours in docs.deleted


@pytest.mark.parametrize("agent", AGENTS)
def test_a_concurrent_writer_aborts_the_install(ctx: Context, agent: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ours = folder(ctx, agent) / plugin.FILE_NAME
    change_before_commit(monkeypatch, ours, USER_PLUGIN)
    with pytest.raises(ConcurrentModificationError):
        operations.install(agent, ctx)
    assert ours.read_bytes() == USER_PLUGIN
    assert sorted(os.listdir(ours.parent)) == [plugin.FILE_NAME]


@pytest.mark.parametrize("agent", AGENTS)
def test_status_names_a_missing_module_and_a_missing_interpreter(ctx: Context, agent: str, tmp_path: Path) -> None:
    operations.install(agent, ctx.with_options(python=str(tmp_path / "gone" / "python3")))
    messages = [f.message for f in operations.status(agent, ctx).findings]
    assert any("does not exist or is not executable" in m for m in messages), messages
    (folder(ctx, agent) / plugin.FILE_NAME).unlink()
    messages = [f.message for f in operations.status(agent, ctx).findings]
    noun = "extension" if agent == "pi" else "plugin"
    assert any("is missing" in m and f"loads no Elydora {noun}" in m for m in messages), messages


@pytest.mark.parametrize("agent", AGENTS)
def test_a_hook_command_does_not_apply(tmp_path: Path, agent: str, capsys: pytest.CaptureFixture[str]) -> None:
    from elydora_cli.main import main

    name = NAMES[agent]
    code = main(["--root", str(tmp_path), "install", agent, "--hook-command", "/usr/bin/true hook"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{agent}: --hook-command does not apply: {name} loads the plugin module Elydora generates" in err
    assert not (tmp_path / ".config").exists() and not (tmp_path / ".pi").exists()


@pytest.mark.parametrize("agent", ["opencode", "kilo"])
def test_install_says_the_agent_fetches_its_plugin_package(ctx: Context, agent: str) -> None:
    """The package named in the note is the one the e2e suite pre-installs because the real agent fetches it
    (docs/e2e.md, finding 7)."""
    module = {"opencode": opencode, "kilo": kilo}[agent]
    notes = operations.install(agent, ctx).notes
    assert any(module.PLUGIN_PACKAGE in note and "npm" in note for note in notes), notes
    lock = json.loads((PROJECT_ROOT / "tests" / "e2e" / "agents.lock.json").read_text())
    assert lock["agents"][agent]["config_deps"]["package"] == module.PLUGIN_PACKAGE
