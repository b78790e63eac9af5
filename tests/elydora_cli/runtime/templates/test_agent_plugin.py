"""The plugin module and the plugin-host stub are real JavaScript files: what they share with the installer is
pinned here, and node checks their syntax where it exists."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from elydora_testkit.provider_cases import make_context

from elydora_cli.plug import plugin
from elydora_cli.providers import kilo, opencode
from elydora_cli.statefiles import RUNTIME_FLAGS

TEMPLATES = Path(plugin.__file__).resolve().parents[1] / "runtime" / "templates"
TEMPLATE = TEMPLATES / plugin.TEMPLATE
PARAM = re.compile(r"^const ([A-Z_]+) = (.*); // @param$")


def _defaults() -> dict[str, object]:
    found = (PARAM.match(line) for line in TEMPLATE.read_text(encoding="utf-8").splitlines())
    return {m.group(1): json.loads(m.group(2)) for m in found if m}


def _constant(path: Path, name: str) -> object:
    match = re.search(rf"^const {name} = (.*);$", path.read_text(encoding="utf-8"), re.MULTILINE)
    assert match is not None, name
    return json.loads(match.group(1))


def test_the_templates_own_values_are_the_installers() -> None:
    defaults = _defaults()
    assert sorted(defaults) == sorted(plugin._PARAMS)
    assert defaults["FLAGS"] == list(RUNTIME_FLAGS)
    assert defaults["GUARD_TIMEOUT_MS"] == plugin.GUARD_TIMEOUT_MS
    assert defaults["HOST_PIDS"] == plugin.HOST_PIDS
    assert (
        defaults["DENY_EXIT"] == opencode.FACTS.guard_runtime.deny_exit_code == kilo.FACTS.guard_runtime.deny_exit_code
    )
    assert defaults["FAIL_CLOSED"] is (opencode.FACTS.guard.failure_mode == "closed")
    assert defaults["HOST"] in plugin.HOST_PIDS


def test_the_host_stub_speaks_the_catalog_and_the_installer() -> None:
    host = TEMPLATES / plugin.HOST_TEMPLATE
    assert plugin.host_program() == host
    assert _constant(host, "BLOCK_EXIT") == opencode.FACTS.guard.deny_exit_code == kilo.FACTS.guard.deny_exit_code
    assert _constant(host, "HOST_PIDS") == plugin.HOST_PIDS
    for facts in (opencode.FACTS, kilo.FACTS):
        assert (
            f'"{facts.events.pre_tool}": {{' in host.read_text()
            and f'"{facts.events.post_tool}": {{' in host.read_text()
        )


def test_rendering_changes_only_the_heading_the_marker_and_parameters(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    source = TEMPLATE.read_text(encoding="utf-8").split("\n")
    marker = plugin.Marker("work", '/opt/py "3"/python')
    rendered = plugin.render(kilo.FACTS, marker, ctx).split("\n")
    assert len(rendered) == len(source)
    assert rendered[0] == source[0].replace("for HOST,", "for Kilo Code CLI,") and rendered[1] == marker.line()
    assert plugin.marker_of("\n".join(rendered), TEMPLATE) == marker
    changed = {i for i, (a, b) in enumerate(zip(source, rendered, strict=True)) if a != b}
    params = {i for i, line in enumerate(source) if PARAM.match(line)}
    assert changed - {0, 1} <= params
    assert 'const PYTHON = "/opt/py \\"3\\"/python"; // @param' in rendered
    assert f'const GUARD = "{ctx.home}/.elydora/work/guard.py"; // @param' in rendered
    assert 'const HOST = "kilo"; // @param' in rendered


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
@pytest.mark.parametrize("name", [plugin.TEMPLATE, plugin.HOST_TEMPLATE])
def test_node_accepts_the_template(name: str) -> None:
    result = subprocess.run(["node", "--check", str(TEMPLATES / name)], capture_output=True, timeout=30)
    assert result.returncode == 0, result.stderr.decode()


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_node_accepts_the_rendered_module_under_its_js_name(tmp_path: Path) -> None:
    module = tmp_path / plugin.FILE_NAME  # .js without a package.json: node must detect the ES module syntax
    module.write_text(
        plugin.render(opencode.FACTS, plugin.Marker("opencode", "/usr/bin/python3"), make_context(tmp_path))
    )
    result = subprocess.run(["node", "--check", str(module)], capture_output=True, timeout=30)
    assert result.returncode == 0, result.stderr.decode()
