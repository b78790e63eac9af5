"""Hook matchers of Node-based agents are JavaScript regular expressions: Node itself says whether they compile.

Python's ``re`` accepts and rejects different patterns than ``new RegExp(...)``, so the check runs every
pattern of a file through one short ``node`` process, and only when a file holds a pattern at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import ConfigError, MalformedConfigError
from elydora_config.records import record

from ..executables import which

if TYPE_CHECKING:
    import subprocess
    from typing import Any

NODE_TIMEOUT_SECONDS = 15
_PROGRAM = """
const patterns = JSON.parse(require("fs").readFileSync(0, "utf8"));
let failure = null;
for (let i = 0; i < patterns.length && failure === null; i++) {
  try { new RegExp(patterns[i]); } catch (error) { failure = { index: i, message: String(error.message) }; }
}
process.stdout.write(JSON.stringify(failure));
"""


class NodeUnavailableError(ConfigError):
    """A pattern needs Node.js to be checked and ``node`` cannot be run."""


@record(frozen=True)
class Pattern:
    path: Path
    where: str
    """Where the pattern sits in the file (``hooks.PreToolUse[0].matcher``)."""
    source: str


def group_patterns(
    value: Any,
    path: Path,
    container: tuple[str, ...],
    *,
    keys: Collection[str] = ("matcher",),
    events: Collection[str] | None = None,
    literal: Callable[[str], bool] = lambda p: p in ("", "*"),
) -> list[Pattern]:
    """The patterns in the groups of an event map (``keys`` of each group; events limited to ``events``).

    ``literal`` says which values the agent does not treat as a regular expression (``""`` and ``*``).
    """
    for key in container:
        value = value.get(key) if isinstance(value, dict) else None
    if not isinstance(value, dict):
        return []
    prefix = "".join(f"{k}." for k in container)
    found = []
    for event, groups in value.items():
        if (events is not None and event not in events) or not isinstance(groups, list):
            continue
        for index, group in enumerate(groups):
            for key in keys:
                pattern = group.get(key) if isinstance(group, dict) else None
                if isinstance(pattern, str) and not literal(pattern):
                    found.append(Pattern(path, f"{prefix}{event}[{index}].{key}", pattern))
    return found


def require_compilable(patterns: Sequence[Pattern], node: str = "node") -> None:
    """Raise :class:`MalformedConfigError` for the first pattern JavaScript's ``RegExp`` rejects."""
    if not patterns:
        return
    import subprocess  # only when there are patterns to check

    first = patterns[0]
    executable = which(node)
    if executable is None:
        raise NodeUnavailableError(
            first.path,
            f"{first.where} is a regular expression the agent compiles with JavaScript; "
            "Node.js (`node`) is needed to check it and was not found on PATH",
        )
    try:
        result = subprocess.run(
            [executable, "-e", _PROGRAM],
            input=json.dumps([p.source for p in patterns]).encode("utf-8"),
            capture_output=True,
            timeout=NODE_TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise NodeUnavailableError(
            first.path, f"Node.js did not check the regular expressions within {NODE_TIMEOUT_SECONDS} s"
        ) from None
    except OSError as exc:
        raise NodeUnavailableError(first.path, f"Node.js could not check the regular expressions: {exc}") from None
    failure = _verdict(result)
    if isinstance(failure, str):
        raise NodeUnavailableError(first.path, f"Node.js failed while checking regular expressions: {failure}")
    if failure is not None:
        bad = patterns[failure[0]]
        raise MalformedConfigError(bad.path, f"{bad.where} is not a valid JavaScript regular expression ({failure[1]})")


def _verdict(result: subprocess.CompletedProcess[bytes]) -> tuple[int, str] | str | None:
    """``None``: all compile; ``(index, message)``: the first that does not; a string: Node itself failed."""
    failure: Any = ""
    try:
        failure = json.loads(result.stdout) if result.returncode == 0 else ""
    except ValueError:
        failure = ""
    if failure == "":
        lines = result.stderr.decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else f"exit status {result.returncode}, no output"
    if failure is None:
        return None
    return int(failure["index"]), str(failure["message"])
