"""``status`` lists and walks the state directory once per run (every provider asks for the same manifests and
directories), reads each file once, and what it remembers ends with the run: a change between two runs in one
process is seen."""

from __future__ import annotations

import collections
import json
import os
from pathlib import Path
from typing import Any

import pytest

from elydora_cli.main import main
from elydora_cli.plug.context import Context
from elydora_cli.plug.contract import Sources
from elydora_cli.providers import claudecode
from elydora_config import files


def _states(capsys: pytest.CaptureFixture[str], root: Path) -> dict[str, str]:
    main(["status", "claudecode", "gemini", "--json", "--root", str(root / "home")])
    doc = json.loads(capsys.readouterr().out)
    return {row["provider"]: row["state"] for row in doc["providers"]}


def test_status_lists_the_manifests_once(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["install", "claudecode", "gemini", "--root", str(root / "home")]) == 0
    capsys.readouterr()
    listed: list[str] = []
    real_scandir = os.scandir

    def counting(path: str) -> object:
        listed.append(os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", counting)
    assert _states(capsys, root) == {"claudecode": "healthy", "gemini": "healthy"}
    assert listed.count(str(root / "home" / ".elydora")) == 1
    assert _open_below(root / "home") == []  # the run's pass ended with it: no directory it walked stays open


def test_status_reads_each_file_once(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent's settings (read for its entries and for the state roots they name) and its chain state (read
    for the delivered offset and for the chain check) are read once, whatever limit each reader sets."""
    assert main(["install", "claudecode", "gemini", "--root", str(root / "home")]) == 0
    capsys.readouterr()
    read: collections.Counter[str] = collections.Counter()
    real_read_at = files.read_at

    def counting(dfd: int, name: str, full: str, *args: Any, **kwargs: Any) -> files.PhysicalRead | None:
        read[full] += 1
        return real_read_at(dfd, name, full, *args, **kwargs)

    monkeypatch.setattr(files, "read_at", counting)
    main(["status", "--json", "--root", str(root / "home")])  # every agent, the two installed ones healthy
    states = {row["provider"]: row["state"] for row in json.loads(capsys.readouterr().out)["providers"]}
    assert states["claudecode"] == states["gemini"] == "healthy"
    home = root / "home"
    assert read[str(home / ".claude" / "settings.json")] == read[str(home / ".gemini" / "settings.json")] == 1
    assert read[str(home / ".elydora" / "gemini" / "chain-state.json")] == 1
    assert [path for path, count in read.items() if count > 1] == []


def _open_below(directory: Path) -> list[str]:
    """The directories at or below ``directory`` this process holds open (empty without ``/proc``)."""
    if not os.path.isdir("/proc/self/fd"):
        return []
    top = os.path.realpath(directory)
    targets = [os.path.realpath(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")]
    return [t for t in targets if (t == top or t.startswith(top + os.sep)) and os.path.isdir(t)]


def test_status_sees_changes_between_runs_in_one_process(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(root / "home")
    assert main(["install", "claudecode", "--root", home]) == 0
    capsys.readouterr()
    assert _states(capsys, root) == {"claudecode": "healthy", "gemini": "not installed"}
    assert main(["install", "gemini", "--root", home]) == 0  # a new manifest in the listed directory
    capsys.readouterr()
    assert _states(capsys, root) == {"claudecode": "healthy", "gemini": "healthy"}
    (root / "home" / ".elydora" / "gemini" / "guard.py").write_text("# edited\n")  # a file in a walked directory
    assert _states(capsys, root) == {"claudecode": "healthy", "gemini": "unhealthy"}
    assert main(["uninstall", "claudecode", "--root", home]) == 0
    capsys.readouterr()
    assert _states(capsys, root) == {"claudecode": "not installed", "gemini": "unhealthy"}


def test_status_asks_each_agent_for_its_sources_once_per_run(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent's documents and the state roots they name come from the same sources, asked for once."""
    assert main(["install", "claudecode", "--root", str(root / "home")]) == 0
    capsys.readouterr()
    asked: list[object] = []
    real_sources = claudecode.sources

    def counting(ctx: Context) -> Sources:
        asked.append(ctx)
        return real_sources(ctx)

    monkeypatch.setattr(claudecode, "sources", counting)
    assert _states(capsys, root)["claudecode"] == "healthy"
    assert len(asked) == 1
    assert _states(capsys, root)["claudecode"] == "healthy"
    assert len(asked) == 2  # a new run asks again
