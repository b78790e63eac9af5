"""The hook runtime: generated guard and audit scripts, the flusher, the ledger and the server client.

The installer uses :func:`generate` (every runtime file of an agent, with bytes and mode) and
:func:`runtime_argv` (how an agent must run a generated script). See ``docs/runtime.md``.
"""

from __future__ import annotations

from .generate import GUARD_NAME, HOOK_NAME, SCRIPT_MODE, generate, runtime_argv

__all__ = ["GUARD_NAME", "HOOK_NAME", "SCRIPT_MODE", "generate", "runtime_argv"]
