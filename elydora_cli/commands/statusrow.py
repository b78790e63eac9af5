"""The row of ``elydora status`` for an agent it could not check (a file it cannot read), in either scope."""

from __future__ import annotations

from typing import Any

from elydora_config.errors import ConfigError

from ..exitcodes import describe_error, failure
from ..pathtext import shown


def error_row(pid: str, exc: Exception) -> dict[str, Any]:
    """The row of an agent whose files status could not read (``exc``), in either scope."""
    message = str(exc) if isinstance(exc, ConfigError) else describe_error(exc)  # an OSError: "<file>: <problem>"
    return {
        "provider": pid,
        "agent_id": None,
        "state": "error",
        "healthy": False,
        "installed": None,
        "problems": [shown(message)],
        "failures": [failure(pid, exc)],
    }
