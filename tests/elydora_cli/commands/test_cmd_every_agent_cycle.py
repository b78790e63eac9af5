"""Every agent installed, reported and uninstalled by the commands a user runs, on the system the suite runs on.

The Windows leg runs this module with the official CPython for Windows (under Wine): ``install --every``, then
``status`` says each agent is enforced and audited, then ``uninstall --all`` leaves nothing outside
``.elydora/``. Before, the command stopped at the first agent (``No module named 'fcntl'``), and Factory Droid's
and Qwen Code's system settings under ``C:\\Program Files`` and ``C:\\ProgramData`` could not be placed below
``--root``. (How each agent runs the entries on Windows is checked by the runtime tests and, per agent's command
form, by the tests of those forms.)
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

from elydora_cli.main import main
from elydora_cli.providers import implemented_ids

AWAITING = {"codex"}
"""Agents whose hooks wait for the user's approval inside the agent (``install --trust`` records it)."""


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


def test_every_agent_installs_reports_and_uninstalls(tmp_path: Path) -> None:
    root = str(tmp_path / "home")
    os.mkdir(root)
    assert _run("--root", root, "install", "--every")[0] == 0
    _code, out = _run("--root", root, "--json", "status")
    rows = {row["provider"]: row for row in json.loads(out)["providers"]}
    assert sorted(rows) == sorted(implemented_ids())
    for provider, row in rows.items():
        assert row["installed"] and row["enforced"] and row["audited"], (provider, row["problems"])
        assert row["state"] == ("awaiting approval" if provider in AWAITING else "healthy"), (provider, row["problems"])
    assert _run("--root", root, "uninstall", "--all")[0] == 0
    left = [os.path.relpath(os.path.join(d, f), root) for d, _dirs, files in os.walk(root) for f in files]
    assert [path for path in left if not path.startswith(".elydora" + os.sep)] == []


def test_a_home_under_a_folder_with_a_blank_is_not_another_state_root(tmp_path: Path) -> None:
    """``/Volumes/Macintosh HD/Users/me``: the state-root search of a config's text, which stops at blanks, sees
    ``/Users/me/.elydora/...`` there. The agents whose hook file or plugin module is ours by its marker
    (Cline, OpenCode, Kilo Code, Pi) took that for entries of another state root: status said ``other state
    root`` and uninstall refused. Their entries are now ours only for the state root their script names."""
    root = str(tmp_path / "Macintosh HD" / "home")
    os.makedirs(root)
    agents = ("cline", "opencode", "kilo", "pi", "claudecode")
    assert _run("--root", root, "install", *agents)[0] == 0
    _code, out = _run("--root", root, "--json", "status", *agents)
    rows = {row["provider"]: row for row in json.loads(out)["providers"]}
    assert {provider: row["state"] for provider, row in rows.items()} == dict.fromkeys(agents, "healthy")
    assert all(row["elsewhere"] == {} for row in rows.values())
    assert _run("--root", root, "uninstall", "--all")[0] == 0
    left = [os.path.relpath(os.path.join(d, f), root) for d, _dirs, files in os.walk(root) for f in files]
    assert [path for path in left if not path.startswith(".elydora" + os.sep)] == []


def test_marker_agents_installed_for_another_state_root_are_reported_there(tmp_path: Path) -> None:
    """The other side of the test above: the hook files and plugin modules written for ``--state-root other``
    are that root's entries (status: ``other state root``, uninstall without the flag refuses)."""
    root, other = str(tmp_path / "home"), str(tmp_path / "other")
    os.mkdir(root)
    agents = ("cline", "opencode", "kilo", "pi")
    assert _run("--root", root, "--state-root", other, "install", *agents)[0] == 0
    code, out = _run("--root", root, "--json", "status", *agents)
    rows = {row["provider"]: row for row in json.loads(out)["providers"]}
    assert code == 1
    assert {provider: (row["state"], row["elsewhere"]) for provider, row in rows.items()} == {
        agent: ("other state root", {other: [agent]}) for agent in agents
    }
    assert _run("--root", root, "uninstall", "cline")[0] == 1
    assert _run("--root", root, "--state-root", other, "uninstall", "--all")[0] == 0
