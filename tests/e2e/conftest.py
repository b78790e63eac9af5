"""Fixtures of the e2e suite: the agent cache (installed by install_agents.py), the per-agent sandbox and
namespace driver, and a closing table of results per agent.

The suite runs only when asked for: ``python -m pytest -m e2e tests/e2e`` (or ``ELYDORA_E2E=1``), so the
unit-test run (``python -m pytest``) does not install and drive real agents.

With pytest-xdist, ``-n 2 --dist loadscope`` keeps each module on one worker, in order (an agent's four
phases share a module-scoped session); the workers take turns installing the agents and send their rows of
the closing table to the controller.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.e2e_harness import (
    E2E_DIR,
    INSTALL_SCRIPT,
    INSTALL_TIMING,
    RESULTS,
    VERSIONS,
    cache_dir,
    unshare_problem,
)

PHASES = ("allow", "block", "uninstall", "reinstall")


def _selected(config: pytest.Config) -> bool:
    return os.environ.get("ELYDORA_E2E") == "1" or "e2e" in (config.getoption("markexpr") or "")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip = pytest.mark.skip(reason="the e2e suite runs only when selected: python -m pytest -m e2e tests/e2e "
                                   "(or ELYDORA_E2E=1); see docs/e2e.md")
    for item in items:
        if Path(str(item.fspath)).is_relative_to(E2E_DIR):
            item.add_marker(pytest.mark.e2e)
            if not _selected(config):
                item.add_marker(skip)


@pytest.fixture(scope="session")
def agent_cache() -> dict[str, Any]:
    """Install (or find warm) the pinned agents; the manifest says per agent where it is or why it is not."""
    problem = unshare_problem()
    if problem:
        pytest.skip(problem)
    t0 = time.monotonic()
    cache_dir().mkdir(parents=True, exist_ok=True)
    with open(cache_dir() / ".install-lock", "a") as lock:  # xdist workers install one after the other
        fcntl.flock(lock, fcntl.LOCK_EX)
        proc = subprocess.run([sys.executable, str(INSTALL_SCRIPT)], capture_output=True, text=True, timeout=1800)
    INSTALL_TIMING.append(f"install_agents.py: exit {proc.returncode} in {time.monotonic() - t0:.1f}s")
    manifest_path = cache_dir() / "manifest.json"
    try:
        manifest: dict[str, Any] = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        pytest.skip(f"install_agents.py produced no manifest (exit {proc.returncode}); the package registries "
                    f"are probably unreachable: {proc.stderr[-800:]}")
    return manifest


def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> None:
    if not _selected(item.config):
        return
    row = getattr(item, "callspec", None)
    agent = row.params.get("session") if row is not None else None
    if not isinstance(agent, str) or call.when not in ("setup", "call"):
        return
    phase = item.originalname.removeprefix("test_")  # type: ignore[attr-defined]
    key = (agent, phase)
    if call.excinfo is None:
        if call.when == "call":
            RESULTS[key] = "XPASS: the bug looks fixed, remove its xfail" if hasattr(item, "_e2e_xfail") else "pass"
        return
    if call.excinfo.errisinstance(pytest.skip.Exception):
        RESULTS[key] = "skip: " + str(call.excinfo.value.msg)
    elif hasattr(item, "_e2e_xfail"):
        RESULTS[key] = "FAIL (known product bug, xfail)"
    else:
        RESULTS[key] = "FAIL"


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On an xdist worker: hand the closing table's rows to the controller."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["e2e"] = json.dumps({"results": [[*key, value] for key, value in RESULTS.items()],
                                          "versions": VERSIONS, "timing": INSTALL_TIMING})


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """On the xdist controller: a worker's rows of the closing table."""
    sent = json.loads(getattr(node, "workeroutput", {}).get("e2e", "{}"))
    RESULTS.update({(agent, phase): value for agent, phase, value in sent.get("results", [])})
    VERSIONS.update(sent.get("versions", {}))
    INSTALL_TIMING.extend(sent.get("timing", []))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not RESULTS:
        return
    agents = list(dict.fromkeys(a for a, _ in RESULTS))
    terminalreporter.section("e2e results per agent")
    for line in INSTALL_TIMING:
        terminalreporter.write_line(line)
    for agent in agents:
        skipped = {v for (a, _), v in RESULTS.items() if a == agent and v.startswith("skip")}
        if len(skipped) == 1 and all((agent, p) in RESULTS for p in PHASES):
            terminalreporter.write_line(f"{agent:<11} {'-':<9} {skipped.pop()}")
            continue
        cells = [f"{phase}={RESULTS.get((agent, phase), '-')}" for phase in PHASES]
        terminalreporter.write_line(f"{agent:<11} {VERSIONS.get(agent, '-'):<9} " + "  ".join(cells))
