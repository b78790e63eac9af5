"""Claude Code's managed sources: which one it uses, and whether that one holds our hooks (``--scope system``).

Claude Code 2.1.332 reads managed settings from four kinds of source, highest first: server-managed settings
(the organization's admin console, cached per user in ``<config home>/remote-settings.json``), the MDM policy
(macOS: the ``com.anthropic.claudecode`` managed preferences, per user then per device; Windows: the ``Settings``
value of ``HKLM\\SOFTWARE\\Policies\\ClaudeCode``), the managed files (``managed-settings.json`` with the
``managed-settings.d/*.json`` drop-ins merged over it, where ours lies) and last ``HKCU\\...\\ClaudeCode``, read
only when no administrator's source exists. By default (``managedSourcesBehavior: "first-wins"``) the highest
source present is the managed tier alone and the others are ignored; with ``"merge"`` in that source every
source deep-merges (hook arrays are joined). So our drop-in runs only when the files win, when the winner merges,
or when the winner holds our hooks itself (an administrator who deployed our profile, ``elydora profile``).

:func:`gather` finds what this machine shows (every path below ``--root``; the registry only without it);
:func:`decide` is the pure rule; :func:`findings` says it in status's words. Server-managed settings cannot be
known from here: a user who has not started Claude Code has no cached copy, and a cached copy is used only once
Claude Code verifies it for the signed-in account (2.1.332 ran our drop-in beside an unverified copy, e2e); the
verdict says so (a note, and ``uncertain`` users) instead of claiming them absent or in force.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.records import field, record

from .managed import user_home
from .plug import macprefs
from .plug.context import Context
from .plug.contract import Finding

if sys.platform == "win32":
    import winreg

    def _policy_text(hive: str) -> str | None:
        """The policy value's text (``None``: no such key or value)."""
        root = winreg.HKEY_LOCAL_MACHINE if hive == "HKLM" else winreg.HKEY_CURRENT_USER
        try:
            with winreg.OpenKey(root, POLICY_KEY) as key:
                value, _ = winreg.QueryValueEx(key, POLICY_VALUE)
        except OSError:
            return None
        return str(value)
else:
    import pwd

    def _policy_text(hive: str) -> str | None:
        return None

if TYPE_CHECKING:
    from typing import Any

REMOTE, PLIST, HKLM, FILES = "remote", "plist", "hklm", "files"
PRECEDENCE = (REMOTE, PLIST, HKLM, FILES)
"""Highest first (``plist`` and ``hklm`` never meet: one per platform)."""
NAMES = {
    REMOTE: "server-managed settings",
    PLIST: "the managed preferences profile (com.anthropic.claudecode)",
    HKLM: "the HKLM\\SOFTWARE\\Policies\\ClaudeCode policy",
    FILES: "managed-settings.json and managed-settings.d/",
}
PREFERENCES_DOMAIN = "com.anthropic.claudecode"
REMOTE_CACHE = "remote-settings.json"
"""Claude Code's cache of server-managed settings in each user's config home (``~/.claude``)."""
POLICY_KEY, POLICY_VALUE = "SOFTWARE\\Policies\\ClaudeCode", "Settings"
MERGE_KEY = "managedSourcesBehavior"
UNSEEN = ("server-managed settings of users who have not started Claude Code yet cannot be seen from this "
          "machine: where the organization's admin console delivers them, Claude Code uses them instead of "
          "these files (unless they set managedSourcesBehavior: merge)")


@record(frozen=True)
class Source:
    """One managed source found on the machine."""

    kind: str
    where: str
    """Its file, or its registry key."""
    settings: Any
    """The settings it holds (a dict; ``None``: present but unreadable)."""
    user: str | None = None
    """A per-user source (a user's cache of server-managed settings, a per-user profile); ``None``: everyone's."""

    @property
    def name(self) -> str:
        return NAMES[self.kind] + (f" of user {self.user}" if self.user else "")

    @property
    def merges(self) -> bool:
        return isinstance(self.settings, dict) and self.settings.get(MERGE_KEY) == "merge"


@record
class Verdict:
    """The source Claude Code uses for everyone, the users for whom another one wins, and what is ignored."""

    used: Source
    merged: bool
    ignored: list[Source] = field(default_factory=list)
    per_user: dict[str, Source] = field(default_factory=dict)


def _winner(sources: list[Source]) -> Source:
    return min(sources, key=lambda s: (PRECEDENCE.index(s.kind), s.user is None))


def decide(files: Source, others: Iterable[Source]) -> Verdict:
    """Claude Code's rule: the highest source present wins alone, unless it sets ``managedSourcesBehavior:
    merge`` (then every source takes part). A per-user source decides for that user only."""
    found = [s for s in others if s.settings != {}]
    device = [files, *(s for s in found if s.user is None)]
    used = _winner(device)
    verdict = Verdict(used, used.merges, [s for s in device if s is not used and not used.merges])
    for user in sorted({s.user for s in found if s.user is not None}):
        mine = _winner([*device, *(s for s in found if s.user == user)])
        if mine is not used:
            verdict.per_user[user] = mine
    return verdict


def findings(verdict: Verdict, holds_ours: Callable[[Any], bool], seen_users: int) -> list[Finding]:
    """What status says: an error where a source that lacks our hooks replaces the files, notes otherwise."""
    found: list[Finding] = []
    for who, source in [(None, verdict.used), *verdict.per_user.items()]:
        if source.kind == FILES:
            continue
        whom = "every user" if who is None else f"user {who}"
        if source.merges:
            found.append(Finding(f"Claude Code merges every managed source for {whom} ({MERGE_KEY} is merge in "
                                 f"{source.name}): our drop-in takes part", Path(source.where), severity="note"))
        elif source.kind == REMOTE and not holds_ours(source.settings or {}):
            found.append(Finding(
                f"Claude Code may use {source.name} instead of {NAMES[FILES]}: this is its cached copy, which it "
                f"uses once it verifies it for the signed-in account (not something status can check); if it does, "
                f"our hooks do not run for {whom}", Path(source.where), severity="note"))
        elif source.settings is None:
            found.append(Finding(f"Claude Code uses {source.name} for {whom} and it cannot be read here: whether our "
                                 "hooks run cannot be told", Path(source.where)))
        elif holds_ours(source.settings):
            found.append(Finding(f"Claude Code uses {source.name} for {whom}, which holds our hooks (our drop-in is "
                                 "ignored while it is there)", Path(source.where), severity="note"))
        else:
            found.append(Finding(
                f"Claude Code uses {source.name} for {whom} and ignores {NAMES[FILES]}: our hooks do not run; add "
                f"them to it (elydora profile claude) or set {MERGE_KEY}: \"merge\" there", Path(source.where)))
    found.append(Finding(f"{UNSEEN} (looked into {seen_users} user homes)", severity="note"))
    return found


def describe(verdict: Verdict, holds_ours: Callable[[Any], bool]) -> dict[str, Any]:
    """The ``managed_source`` field of the compliance probe's row."""

    def one(source: Source) -> dict[str, Any]:
        return {"source": source.kind, "name": source.name, "where": source.where, "user": source.user,
                "holds_ours": None if source.settings is None else holds_ours(source.settings)}

    return {
        "used": one(verdict.used),
        "merged": verdict.merged,
        "ignored": [one(s) for s in verdict.ignored],
        "per_user": {user: one(s) for user, s in verdict.per_user.items()},
        "uncertain": sorted(user for user, s in verdict.per_user.items()
                            if s.kind == REMOTE and not s.merges and not holds_ours(s.settings or {})),
        "unseen": UNSEEN,
    }


# -- what this machine shows ------------------------------------------------------------------------------


def _json_object(path: Path) -> Any:
    """A JSON object file: its value, ``{}`` when absent, ``None`` when unreadable or not an object."""
    try:
        with open(path, "rb") as stream:
            value = json.loads(stream.read(2 << 20))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _users(ctx: Context) -> list[tuple[str, Path]]:
    """Every account with a home below ``--root`` (the password database, never ``$HOME``)."""
    found: list[tuple[str, Path]] = []
    if sys.platform != "win32":  # Windows has no password database (and system scope is refused there)
        root = ctx.home if ctx.rooted else None
        for entry in pwd.getpwall():
            home = user_home(entry.pw_dir, root)
            if entry.pw_dir and home.is_dir():
                found.append((entry.pw_name, home))
    return found


def _registry(hive: str) -> Any:
    """The ``Settings`` value under the ClaudeCode policy key (Windows only), parsed as JSON."""
    text = _policy_text(hive)
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def gather(ctx: Context, files: Source) -> tuple[Verdict, int]:
    """The verdict for this machine, and how many user homes were looked into."""
    users = _users(ctx)
    others = [Source(REMOTE, str(home / ".claude" / REMOTE_CACHE), _json_object(home / ".claude" / REMOTE_CACHE), name)
              for name, home in users]
    if macprefs.in_effect(ctx):
        folder = ctx.place(macprefs.MANAGED_PREFERENCES)
        others.append(Source(PLIST, str(folder / f"{PREFERENCES_DOMAIN}.plist"),
                             macprefs.read(folder / f"{PREFERENCES_DOMAIN}.plist")))
        others += [Source(PLIST, str(folder / name / f"{PREFERENCES_DOMAIN}.plist"),
                          macprefs.read(folder / name / f"{PREFERENCES_DOMAIN}.plist"), name) for name, _ in users]
    if ctx.windows and not ctx.rooted:
        others.append(Source(HKLM, f"HKLM\\{POLICY_KEY}", _registry("HKLM")))
    return decide(files, others), len(users)
