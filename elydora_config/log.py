"""structlog setup: readable lines on stderr by default, one JSON object per line with ``json=True``.

structlog is imported on the first :func:`get_logger` call, not at start-up: the hook commands run on every
tool call of the user's agent and must not pay for a logging stack they rarely use.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

_options: dict[str, Any] = {"verbose": 0, "json": False, "stream": None}
_configured = False


def set_options(*, verbose: int = 0, json: bool = False, stream: TextIO | None = None) -> None:
    """Remember the settings; structlog is configured with them when a logger is first asked for."""
    global _configured
    _options.update(verbose=verbose, json=json, stream=stream)
    _configured = False


def configure(*, verbose: int = 0, json: bool = False, stream: TextIO | None = None) -> None:
    """Configure structlog now (safe to call again to change the settings)."""
    global _configured
    import logging

    import structlog

    level = logging.WARNING if verbose <= 0 else logging.INFO if verbose == 1 else logging.DEBUG
    renderer: Any = (
        structlog.processors.JSONRenderer(sort_keys=True) if json else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(stream or sys.stderr),
        cache_logger_on_first_use=False,
    )
    _configured = True


def get_logger(name: str) -> Any:
    """A bound logger carrying ``component=name``."""
    if not _configured:
        configure(**_options)
    import structlog

    return structlog.get_logger().bind(component=name)
