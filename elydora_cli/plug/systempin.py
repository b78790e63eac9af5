"""The hooks-on pin of a system settings layer (Gemini CLI, Qwen Code; see ``docs/fleet.md``).

Both agents merge their settings files key by key with the system file last, so a value there beats the same
key in every user and project file. Their "all hooks off" switch is such a key (Gemini ``hooksConfig.enabled``,
Qwen ``disableAllHooks``): a system install writes it with the value that keeps hooks on, so a user's settings
cannot switch every hook off. It is ours by record, as the lock-down switch is (:mod:`.lockdown`): the install
manifest notes ``{"at": <key path>, "value": {"pin": "<dotted key>"}}``, and uninstall removes the key (and a
parent object we created for it) only then; an administrator's own identical value stays theirs. The opposite
value in the system file refuses the install (every hook, ours included, would be off).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.records import record

from .. import managed
from .common import add_hooks, check_hooks, refuse_if, remove_hooks
from .context import Context
from .contract import Finding, Format, Sources, Target
from .documents import Documents
from .hookmap import HookMap
from .layers import managed_file

if TYPE_CHECKING:
    from typing import Any

NEW_TEXT = "// Managed by Elydora\n{}\n"


@record(frozen=True)
class Pin:
    at: tuple[str, ...]
    """The key path in the system file (``("hooksConfig", "enabled")``)."""
    on: bool
    """The value that keeps hooks on."""
    agent: str
    """The agent's name in messages."""

    @property
    def name(self) -> str:
        return ".".join(self.at)


def _marker(pin: Pin) -> dict[str, str]:
    return {"pin": pin.name}


def _ours(docs: Documents, pin: Pin) -> bool:
    return _marker(pin) in docs.recorded


def _current(docs: Documents, path: Path, pin: Pin) -> Any:
    doc = docs.doc(path)
    return None if doc is None else doc.get(list(pin.at), None)


def apply(docs: Documents, path: Path, pin: Pin) -> None:
    """Write the pin (install); refused when the file holds the opposite value."""
    current = _current(docs, path, pin)
    refuse_if(current is (not pin.on), path, f"{pin.agent} hooks are disabled ({pin.name} is "
              f"{str(current).lower()}); remove it to install")
    log = docs.log(path)
    marker = {"at": list(pin.at), "value": _marker(pin)}
    if current is pin.on:
        if _ours(docs, pin):
            log.inserted.append(marker)
        return
    doc = docs.ensure(path)
    parent: list[str | int] = list(pin.at[:-1])
    if parent and not isinstance(doc.get(parent, None), dict):
        doc.set(parent, {pin.at[-1]: pin.on})
        log.created.append(parent)
    else:
        doc.set(list(pin.at), pin.on)
    log.inserted.append(marker)


def remove(docs: Documents, path: Path, pin: Pin) -> None:
    """Remove the pin where we wrote it (uninstall), and the parent object we created for it once empty."""
    doc = docs.doc(path)
    if doc is None or not _ours(docs, pin) or doc.get(list(pin.at), None) is not pin.on:
        return
    doc.remove(list(pin.at))
    parent: list[str | int] = list(pin.at[:-1])
    if parent and doc.get(parent, None) == {} and parent in docs.created.get(path, []):
        doc.remove(parent)


def check(docs: Documents, path: Path, pin: Pin) -> list[Finding]:
    """Without the pin a user's settings can switch every hook off, ours included."""
    if _current(docs, path, pin) is pin.on:
        return []
    return [Finding(f"{pin.name} is not {str(pin.on).lower()}: a user's settings can switch every hook off, ours "
                    "included; reinstall with --scope system", path)]


# -- the shared shape of a system install into such a settings file ------------------------------------------


def sources(ctx: Context, provider_id: str, fmt: Format) -> Sources:
    """The agent's system settings file (its managed layer), root's 0644 when we create it."""
    target = Target(managed_file(ctx, provider_id), fmt, new_text=NEW_TEXT, mode=managed.POLICY_MODE)
    return Sources([target])


def install(docs: Documents, path: Path, pin: Pin, hm: HookMap, ctx: Context, agent_id: str) -> None:
    apply(docs, path, pin)  # before our entries: a reinstall re-adds them at the end, after the pin
    add_hooks(docs, path, hm, ctx, agent_id)


def uninstall(docs: Documents, path: Path, pin: Pin, hm: HookMap, ctx: Context, agent_ids: set[str] | None) -> None:
    if agent_ids is None:
        remove(docs, path, pin)
    remove_hooks(docs, path, hm, ctx, agent_ids)


def check_system(docs: Documents, path: Path, pin: Pin, hm: HookMap, ctx: Context, agent_id: str) -> list[Finding]:
    """Our entries and the pin; once both are there, whether every user's agent can read the file."""
    found = check_hooks(docs, path, hm, ctx, agent_id) + check(docs, path, pin)
    return found or access_findings(ctx, path, pin.agent)


def _access_problem(info: os.stat_result, need: int) -> str | None:
    mode = stat.S_IMODE(info.st_mode)
    if info.st_uid != 0:
        return f"is owned by uid {info.st_uid}, not by root"
    if mode & 0o022:
        return f"is writable by group or others (mode {mode:04o})"
    if mode & need != need:
        return f"is not readable by every user (mode {mode:04o})"
    return None


def access_findings(ctx: Context, path: Path, agent: str) -> list[Finding]:
    """The system file, and every directory above it (up to ``--root``), root's and readable by every user.

    Gemini CLI skips a system file (with a warning) that is not root's or that group or others can write, or
    below such a directory; a file users cannot read gives them no hooks; one they can write, they can empty."""
    top = ctx.place("/")
    for where in (path, *path.parents):
        try:
            info = os.stat(where)
        except OSError as exc:
            return [Finding(f"cannot be checked: {exc.strerror}", where)]
        problem = _access_problem(info, 0o444 if where == path else 0o555)
        if problem:
            return [Finding(f"{problem}: {agent} must read it for every user, and only root may change it", where)]
        if where == top:
            break
    return []
