"""Cline's hook program is a real JavaScript file; what it shares with the installer is pinned here."""

from __future__ import annotations

import json
import re
from pathlib import Path

from elydora_cli.providers import cline
from elydora_cli.statefiles import RUNTIME_FLAGS

TEMPLATE = Path(cline.__file__).resolve().parents[1] / "runtime" / "templates" / cline.TEMPLATE
PARAM = re.compile(r"^const ([A-Z_]+) = (.*); // @param$")


def _defaults() -> dict[str, object]:
    found = (PARAM.match(line) for line in TEMPLATE.read_text(encoding="utf-8").splitlines())
    return {m.group(1): json.loads(m.group(2)) for m in found if m}


def test_the_templates_own_values_are_the_installers() -> None:
    defaults = _defaults()
    assert sorted(defaults) == ["DENY_EXIT", "FLAGS", "KIND", "PYTHON", "RUNTIME"]
    assert defaults["FLAGS"] == list(RUNTIME_FLAGS)
    assert defaults["DENY_EXIT"] == cline.FACTS.guard_runtime.deny_exit_code == 2
    assert defaults["KIND"] in cline.EVENTS.values()


def test_rendering_changes_only_the_marker_heading_and_parameters() -> None:
    source = TEMPLATE.read_text(encoding="utf-8").split("\n")
    marker = cline.Marker("audit", "work", "/h/.elydora/work/hook.py", '/opt/py "3"/python')
    rendered = cline.render(marker).split("\n")
    assert len(rendered) == len(source) and "{{" not in "\n".join(source)
    assert rendered[0] == "#!/usr/bin/env node" and rendered[1] == marker.line()
    assert rendered[1].startswith(cline.MARKER) and cline.marker_of("\n".join(rendered), TEMPLATE) == marker
    assert rendered[2] == source[2].replace("Elydora KIND hook", "Elydora audit hook")
    changed = {i for i, (a, b) in enumerate(zip(source, rendered, strict=True)) if a != b}
    params = {i for i, line in enumerate(source) if PARAM.match(line)}
    assert changed - {1, 2} == params - {i for i in params if source[i] == rendered[i]}
    assert 'const PYTHON = "/opt/py \\"3\\"/python";' in rendered
    assert "const DENY_EXIT = 2;" in rendered and 'const FLAGS = ["-I", "-S"];' in rendered
