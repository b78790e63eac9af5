"""``elydora demo`` on Windows (the Windows leg runs it with the official CPython for Windows under Wine).

Every agent is installed into the sandbox; each entry is run the way the agent's Windows runner runs it
(:mod:`elydora_cli.plug.runners`): exec forms, word lists and Node files here; the PowerShell rows are ``n/a``
when ``powershell.exe`` cannot run a script (Wine's is a stub), and the demo says how many of each. Where the
hooks ran, the guard blocks when the agent is frozen and the audit record is in the signed ledger; uninstall
leaves every file of the home as it was, bytes and mode. Before, every agent failed there (``/bin/sh`` and
``bash`` to run the hooks, a ``chmod`` check Windows has no bits for, Hermes's YAML).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from elydora_testkit.windows_runners import EXECUTED, POWERSHELL_RUN
from test_cmd_demo import table

from elydora_cli.demo import sandbox, tour
from elydora_cli.main import main
from elydora_cli.providers import implemented_ids
from elydora_config import _platform

pytestmark = pytest.mark.skipif(os.name != "nt", reason="the demo as Windows runs it (the Windows leg)")


def test_demo_executes_every_hook_windows_can_run_here(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    no_powershell = tour.powershell_missing(dict(os.environ))
    code = main(["demo", str(tmp_path / "demo")])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    rows = table(out)
    assert set(rows) == set(implemented_ids())
    for pid in EXECUTED:
        assert rows[pid] == ("ok", "ok", "ok", "ok"), (pid, out)
        if pid not in ("cline", "hermes"):  # their block speaks JSON on stdout, exit 0
            assert re.search(rf'{pid} +\S+ +exit 2 \[Elydora guard\] Agent "{pid}" is frozen', out), pid
        assert re.search(rf"{pid} +audit verify: [1-9]\d* signed entries, chain OK; newest: #\d+ ", out), pid
    powershell = ("n/a", "n/a", "n/a", "ok") if no_powershell else ("ok", "ok", "ok", "ok")
    assert {pid: rows[pid] for pid in POWERSHELL_RUN} == dict.fromkeys(POWERSHELL_RUN, powershell)
    if no_powershell:
        assert f"hooks executed here for {len(EXECUTED)} agents; n/a for {len(POWERSHELL_RUN)}:" in out
        names = ", ".join(pid for pid in implemented_ids() if pid in POWERSHELL_RUN)
        assert f"  {names}: {no_powershell}" in out
        assert out.rstrip().splitlines()[-2] == "every step that could run held"
    else:
        assert out.rstrip().splitlines()[-2] == "every step held"
    assert out.rstrip().splitlines()[-1].startswith(f"the sandbox is kept in {tmp_path / 'demo'} ")
    after = {Path(rel).as_posix(): found for rel, found in sandbox.snapshot(tmp_path / "demo" / "home").items()}
    assert after == {  # every file as it was, bytes and the mode Windows keeps (writable: 0o666)
        rel: (data, _platform.kept_mode(sandbox.MODES.get(rel, sandbox.DEFAULT_MODE)))
        for rel, data in sandbox.seeds().items()
    }
