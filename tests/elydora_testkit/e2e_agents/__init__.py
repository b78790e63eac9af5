"""One module per agent of the end-to-end suite, found by name: ``<agent>.py`` defines either ``ROW`` (an
``Agent``: how to run that CLI against the fake model) or ``SKIP`` (why it cannot run here, exactly).

A catalog agent with no module here is skipped as "no row for this agent yet".
"""

from __future__ import annotations

import importlib
import pkgutil

from elydora_testkit.e2e_agents.shape import (
    DENIAL_WITH_REASON,
    STDERR_TO_MODEL,
    TASK_ABORTED,
    Agent,
    run_env,
)

__all__ = ["AGENTS", "DENIAL_WITH_REASON", "NOT_RUNNABLE", "STDERR_TO_MODEL", "TASK_ABORTED", "Agent", "run_env"]

AGENTS: dict[str, Agent] = {}
NOT_RUNNABLE: dict[str, str] = {}

for _info in pkgutil.iter_modules(__path__):
    if _info.name == "shape" or _info.name.startswith("_"):
        continue
    _module = importlib.import_module(f"{__name__}.{_info.name}")
    if hasattr(_module, "ROW"):
        AGENTS[_info.name] = _module.ROW
    else:
        NOT_RUNNABLE[_info.name] = _module.SKIP
