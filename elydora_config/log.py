"""structlog setup: readable lines on stderr by default, one JSON object per line with ``json=True``.

A logger from :func:`get_logger` imports and configures structlog for the first record that passes the level
(warnings by default, info with ``verbose=1``, debug with ``verbose=2``), not before: the hook commands run on
every tool call of the user's agent, and a command that logs nothing at the chosen level must not pay for a
logging stack it does not use.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

DEBUG, INFO, WARNING, ERROR = 10, 20, 30, 40
"""The levels, with the numbers of the standard library's :mod:`logging` (which structlog's filter takes)."""

_options: dict[str, Any] = {"verbose": 0, "json": False, "stream": None}
_configured = False


def set_options(*, verbose: int = 0, json: bool = False, stream: TextIO | None = None) -> None:
    """Remember the settings; structlog is configured with them when a record first passes the level."""
    global _configured
    _options.update(verbose=verbose, json=json, stream=stream)
    _configured = False


def level(verbose: int) -> int:
    """The lowest level logged at ``verbose`` (0: warnings, 1: info, 2 or more: debug)."""
    return WARNING if verbose <= 0 else INFO if verbose == 1 else DEBUG


def configure(*, verbose: int = 0, json: bool = False, stream: TextIO | None = None) -> None:
    """Configure structlog now (safe to call again to change the settings)."""
    global _configured
    import structlog

    renderer: Any = (
        structlog.processors.JSONRenderer(sort_keys=True) if json else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level(verbose)),
        logger_factory=structlog.PrintLoggerFactory(stream or sys.stderr),
        cache_logger_on_first_use=False,
    )
    _configured = True


class Logger:
    """A logger carrying ``component=name``: each method hands the record to structlog when its level passes
    (structlog imported and configured then), and drops it otherwise."""

    def __init__(self, name: str) -> None:
        self.name = name

    def debug(self, event: str, **fields: Any) -> None:
        """Log ``event`` with ``fields`` at the debug level."""
        self._log(DEBUG, "debug", event, fields)

    def info(self, event: str, **fields: Any) -> None:
        """Log ``event`` with ``fields`` at the info level."""
        self._log(INFO, "info", event, fields)

    def warning(self, event: str, **fields: Any) -> None:
        """Log ``event`` with ``fields`` at the warning level."""
        self._log(WARNING, "warning", event, fields)

    def error(self, event: str, **fields: Any) -> None:
        """Log ``event`` with ``fields`` at the error level."""
        self._log(ERROR, "error", event, fields)

    def _log(self, at: int, method: str, event: str, fields: dict[str, Any]) -> None:
        if at < level(_options["verbose"]):
            return
        if not _configured:
            configure(**_options)
        import structlog

        getattr(structlog.get_logger().bind(component=self.name), method)(event, **fields)


def get_logger(name: str) -> Logger:
    """A logger carrying ``component=name``."""
    return Logger(name)
