"""structlog setup: readable lines on stderr by default, one JSON object per line with ``json=True``."""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO

import structlog


def configure(*, verbose: int = 0, json: bool = False, stream: TextIO | None = None) -> None:
    """Configure structlog once for the process (safe to call again to change the settings)."""
    level = logging.WARNING if verbose <= 0 else logging.INFO if verbose == 1 else logging.DEBUG
    renderer: Any = (
        structlog.processors.JSONRenderer(sort_keys=True)
        if json
        else structlog.dev.ConsoleRenderer(colors=False)
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


def get_logger(name: str) -> Any:
    """A bound logger carrying ``component=name``."""
    return structlog.get_logger().bind(component=name)
