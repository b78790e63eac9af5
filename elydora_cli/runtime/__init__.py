"""The hook runtime: generated guard and audit scripts, the flusher, the ledger and the server client.

The installer uses :func:`generate` (every runtime file of an agent, with bytes and mode) and
:func:`runtime_argv` (how an agent must run a generated script). See ``docs/runtime.md``. They are loaded on
first use: the detached flusher imports this package on every start and needs none of them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the flusher's boot imports this package, and typing costs
if TYPE_CHECKING:  # about half an interpreter start
    from typing import Any

    from .generate import GUARD_NAME, HOOK_NAME, SCRIPT_MODE, generate, runtime_argv

__all__ = ["GUARD_NAME", "HOOK_NAME", "SCRIPT_MODE", "generate", "runtime_argv"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'elydora_cli.runtime' has no attribute {name!r}")
    import importlib  # the flusher's boot imports this package and needs none of its names

    module = importlib.import_module(".generate", __name__)
    # Importing the submodule bound the package attribute ``generate`` to it; bind the public names instead.
    globals().update({public: getattr(module, public) for public in __all__})
    return globals()[name]
