"""Identifiers, limits and enumerations of the neutral hook contract v1, and its error type.

The wire identifiers (``coding-ethos.hook/v1``, selector ``neutral-v1``) are those of the published
contract, so that a supervisor written against it talks to ``elydora hook`` unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping

from elydora_config.errors import ConfigError

CONTRACT_VERSION = "coding-ethos.hook/v1"
SELECTOR = "neutral-v1"
SELECTOR_ENV = "ELYDORA_HOOK_CONTRACT"
MAX_INPUT_BYTES = 1 << 20
INPUT_ENCODING = "application/json"
OUTPUT_ENCODING = "application/json"

EVENTS: tuple[str, ...] = (
    "Interrupt",
    "Notification",
    "PermissionRequest",
    "PermissionResult",
    "PostCompact",
    "PostToolBatch",
    "PostToolUse",
    "PostToolUseFailure",
    "PreCompact",
    "PreToolUse",
    "SessionEnd",
    "SessionStart",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "UserPromptSubmit",
)
OUTCOMES: tuple[str, ...] = ("allow", "deny")
EFFECTS: tuple[str, ...] = ("allow", "block", "continue", "rewrite")

GATED_EVENTS = frozenset(("PreToolUse", "PermissionRequest"))
"""Events that ask whether a tool may run: a frozen or revoked agent gets ``deny`` on these. Every other
event is observational: it is audited and allowed (blocking a ``Stop`` would mean "keep the turn going")."""

REQUEST_PROVIDERS: tuple[str, ...] = ("claude", "codex", "coding-ethos", "gemini", "kimi", "generic")
"""Providers a declared request may name (after resolution, see :func:`resolve_declared_provider`)."""
_SUBSTRING_ORDER: tuple[str, ...] = ("coding-ethos", "kimi", "gemini", "codex", "claude")

ADAPTERS: Mapping[str, str] = {"claude": "claudecode", "codex": "codex", "gemini": "gemini", "kimi": "kimi"}
"""Contract provider -> the Elydora catalog provider whose agent answers for it."""

CANONICAL_LIMITS: Mapping[str, int] = {
    "correlation_id": 128,
    "provider": 256,
    "hook_event_name": 256,
    "cwd": 4096,
    "transcript_path": 4096,
    "matcher": 256,
    "model": 256,
    "session_id": 256,
    "source": 256,
    "tool_name": 256,
}
"""Byte limits (UTF-8) of the canonical string fields of a declared request."""
OPTIONAL_STRING_ORDER: tuple[str, ...] = (
    "cwd",
    "transcript_path",
    "matcher",
    "model",
    "session_id",
    "source",
    "tool_name",
)
CANONICAL_FIELDS = frozenset(
    (*CANONICAL_LIMITS, "contract_version", "tool_input", "tool_response", "context_window_tokens")
)


class ContractError(ConfigError):
    """A request, selector or evaluation the contract refuses: one message on stderr, nothing on stdout."""

    def __init__(self, reason: str) -> None:
        super().__init__(None, reason)


def selected_contract(flag: str | None, env: Mapping[str, str]) -> str | None:
    """The contract chosen by ``--contract`` (wins when non-empty) or ``$ELYDORA_HOOK_CONTRACT``.

    ``None`` means provider-native output. Any value other than ``neutral-v1`` is refused.
    """
    chosen = flag or env.get(SELECTOR_ENV, "")
    if not chosen:
        return None
    if chosen != SELECTOR:
        source = "--contract" if flag else SELECTOR_ENV
        raise ContractError(f"--contract must be {SELECTOR} (got {chosen!r} from {source})")
    return chosen


def resolve_provider(text: str) -> str | None:
    """The named provider a hint contains (``Gemini-CLI`` -> ``gemini``), or ``None``; never ``generic``."""
    lowered = text.strip().lower()
    for name in _SUBSTRING_ORDER:
        if name in lowered:
            return name
    return None


def resolve_declared_provider(text: str) -> str | None:
    """Declared-mode resolution: a named provider by substring, else ``generic`` only when exactly so."""
    named = resolve_provider(text)
    if named is not None:
        return named
    return "generic" if text.strip().lower() == "generic" else None


def has_control(text: str) -> bool:
    """Whether ``text`` holds a character of Unicode category Cc (U+0000-U+001F, U+007F-U+009F)."""
    return any(c < " " or "\x7f" <= c <= "\x9f" for c in text)


def utf8_length(text: str) -> int:
    """UTF-8 length in bytes (a lone surrogate counts 3, as its replacement character would)."""
    return len(text.encode("utf-8", "surrogatepass"))
