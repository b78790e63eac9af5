"""Whole-file validation of an agent's hook map, described as data.

A provider states which events exist, which keys a group and a handler may carry and what type each must
have; :func:`validate_hookmap` checks the entire map before anything is written and names the exact place
of the first problem (``hooks.PreToolUse[0].hooks[1].timeout must be a positive number``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import MalformedConfigError
from elydora_config.records import field, record

if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class Check:
    test: Callable[[Any], bool]
    what: str


def _number(v: Any) -> bool:
    """A finite JSON number (``math.isfinite`` without importing :mod:`math`: ``float(v)`` is what it
    checks, an integer too large for one raising ``OverflowError`` as it does)."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return False
    number = float(v)
    return number - number == 0.0  # false for an infinity (inf - inf is nan) and for nan


STR = Check(lambda v: isinstance(v, str), "a string")
NONEMPTY_STR = Check(lambda v: isinstance(v, str) and v.strip() != "", "a non-empty string")
BOOL = Check(lambda v: isinstance(v, bool), "true or false")
POS_NUMBER = Check(lambda v: _number(v) and v > 0, "a positive number")
NONNEG_NUMBER = Check(lambda v: _number(v) and v >= 0, "a non-negative number")
NONNEG_INT = Check(lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0, "a non-negative integer")
STR_LIST = Check(lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of strings")
NONEMPTY_STR_LIST = Check(
    lambda v: isinstance(v, list) and all(isinstance(x, str) and x for x in v), "a list of non-empty strings"
)
STR_MAP = Check(lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()), "a map of strings")
OBJECT = Check(lambda v: isinstance(v, dict), "an object")
ANY = Check(lambda v: True, "anything")
HTTP_URL = Check(lambda v: isinstance(v, str) and bool(re.match(r"^https?://[^/\s?#]+", v)), "an http(s) URL")


def one_of(*values: Any) -> Check:
    return Check(lambda v: v in values, "one of " + ", ".join(repr(x) for x in values))


def nullable(check: Check) -> Check:
    return Check(lambda v: v is None or check.test(v), f"null or {check.what}")


@record(frozen=True)
class HandlerSchema:
    by_type: Mapping[str, Mapping[str, Check]]
    """Handler type -> its own keys (``type`` itself is implied)."""
    common: Mapping[str, Check] = field(default_factory=dict)
    required: Mapping[str, Collection[str]] = field(default_factory=dict)
    default_type: str | None = None
    open_keys: bool = False
    """Unknown handler keys tolerated (kept untouched)."""


ANY_HANDLER = HandlerSchema(by_type={}, open_keys=True)
"""Handlers must be objects; nothing else is checked (Codex, Cursor)."""


@record(frozen=True)
class MapSchema:
    handler: HandlerSchema
    events: Collection[str] | None = None
    """Known events; ``None``: any event name."""
    unknown_events: str = "error"  # "error" | "keep" (must still be an array, content not validated)
    group: Mapping[str, Check] = field(default_factory=lambda: {"matcher": STR})
    open_group_keys: bool = False
    grouped: bool = True
    container: tuple[str, ...] = ("hooks",)
    simple_events: Collection[str] = ()
    """Events that do not filter by tool: their groups may not carry a ``matcher`` (Letta, Auggie)."""
    matcher_required: bool = False
    """Groups of every other known event must carry a ``matcher`` (Letta)."""
    switches: Mapping[str, Check] = field(default_factory=dict)
    """Keys of the event map that are settings, not events (Letta's ``hooks.disabled``)."""


def _fail(path: Path, where: str, reason: str) -> None:
    raise MalformedConfigError(path, f"{where} {reason}")


def _check_keys(path: Path, where: str, obj: dict[str, Any], allowed: Mapping[str, Check], open_keys: bool) -> None:
    for key, value in obj.items():
        check = allowed.get(key)
        if check is None:
            if not open_keys:
                _fail(path, f"{where}.{key}", "is not a known key here")
            continue
        if not check.test(value):
            _fail(path, f"{where}.{key}", f"must be {check.what}")


def validate_handler(path: Path, where: str, handler: Any, schema: HandlerSchema) -> None:
    if not isinstance(handler, dict):
        _fail(path, where, "must be an object")
    if not schema.by_type:
        return
    kind = handler.get("type", schema.default_type)
    if kind not in schema.by_type:
        _fail(path, f"{where}.type", "must be one of " + ", ".join(repr(t) for t in schema.by_type))
    allowed = {"type": ANY, **schema.common, **schema.by_type[kind]}
    _check_keys(path, where, handler, allowed, schema.open_keys)
    for key in schema.required.get(kind, ()):
        if key not in handler:
            _fail(path, where, f"is missing the required key {key!r}")


def validate_hookmap(value: Any, path: Path, schema: MapSchema) -> None:
    """Raise :class:`MalformedConfigError` for the first place ``value`` breaks ``schema``."""
    container: Any = value
    where = ""
    for key in schema.container:
        where = f"{where}.{key}" if where else key
        if not isinstance(container, dict) or key not in container:
            return
        container = container[key]
    if not isinstance(container, dict):
        _fail(path, where, "must be an object")
    for event, entries in container.items():
        at = f"{where}.{event}" if where else event
        if event in schema.switches:
            if not schema.switches[event].test(entries):
                _fail(path, at, f"must be {schema.switches[event].what}")
            continue
        if schema.events is not None and event not in schema.events:
            if schema.unknown_events == "error":
                _fail(path, at, "is not an event this agent knows")
            if not isinstance(entries, list):
                _fail(path, at, "must be an array")
            continue
        if not isinstance(entries, list):
            _fail(path, at, "must be an array")
        for index, entry in enumerate(entries):
            _validate_entry(path, f"{at}[{index}]", entry, schema, event)


NO_MATCHER = Check(lambda v: False, "absent: this event does not filter by tool")


def _validate_entry(path: Path, where: str, entry: Any, schema: MapSchema, event: str = "") -> None:
    if not schema.grouped:
        validate_handler(path, where, entry, schema.handler)
        return
    if not isinstance(entry, dict):
        _fail(path, where, "must be an object")
    simple = event in schema.simple_events
    group = {**schema.group, "matcher": NO_MATCHER} if simple else schema.group
    _check_keys(path, where, {k: v for k, v in entry.items() if k != "hooks"}, group, schema.open_group_keys)
    if schema.matcher_required and not simple and "matcher" not in entry:
        _fail(path, where, "is missing the required key 'matcher'")
    handlers = entry.get("hooks")
    if not isinstance(handlers, list):
        _fail(path, f"{where}.hooks", "must be an array")
    for index, handler in enumerate(handlers):
        validate_handler(path, f"{where}.hooks[{index}]", handler, schema.handler)


def require_type(path: Path, value: Any, key: str, check: Check) -> None:
    """A top-level switch (``disableAllHooks``...) must have the right type when present."""
    if isinstance(value, dict) and key in value and not check.test(value[key]):
        _fail(path, key, f"must be {check.what}")
