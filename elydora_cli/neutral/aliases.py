"""Event and tool-name normalisation, applied to every request (lenient or declared) before validation.

Tool names from the different agents are mapped to a small canonical set: ``Bash`` (shell commands and
terminal input), ``Write``, ``Edit``, ``MultiEdit``, and ``Noop`` for known tools that nothing enforces.
Other names are kept as they are. Shell input given as ``cmd`` or ``chars`` is also exposed as
``command``. A ``multi_tool_use.parallel`` wrapper around one enforced call is unwrapped; a batch of several
calls stays ``Bash`` and is marked with :data:`PARALLEL_BATCH_KEY`.
"""

from __future__ import annotations

from typing import Any

EVENT_RENAMES = {"BeforeTool": "PreToolUse"}
PARALLEL = "multi_tool_use.parallel"
PARALLEL_BATCH_KEY = "__coding_ethos_parallel_batch"
ENFORCED = frozenset(("Bash", "Write", "Edit", "MultiEdit"))

_TOOLS: dict[str, str] = {}
for _canonical, _names in (
    (
        "Bash",
        "Bash bash exec_command functions.exec_command run_command run_shell run_shell_command shell"
        " shell_command write_stdin functions.write_stdin multi_tool_use.parallel"
        " execute_bash execute_cmd",  # Kiro CLI's shell tool (execute_cmd on Windows)
    ),
    ("Write", "Write create_file write_file"),
    ("Edit", "Edit apply_patch functions.apply_patch edit_file replace"),
    ("MultiEdit", "MultiEdit"),
    (
        "Noop",
        "Read Grep Glob LS Task TodoWrite NotebookRead NotebookEdit WebFetch WebSearch functions.update_plan"
        " update_plan functions.request_user_input request_user_input functions.view_image view_image"
        " functions.list_mcp_resources functions.list_mcp_resource_templates functions.read_mcp_resource"
        " read_file list_directory search_file_content glob web_fetch google_web_search"
        " fs_read",  # Kiro CLI
    ),
):
    _TOOLS.update(dict.fromkeys(_names.split(), _canonical))
_SUFFIXES = ((".exec_command", "Bash"), (".write_stdin", "Bash"), (".apply_patch", "Edit"))
_ITEM_NAME_KEYS = ("recipient_name", "name", "tool_name", "toolName", "tool")


def normalise_event(name: str) -> str:
    return EVENT_RENAMES.get(name, name)


def canonical_tool(name: str) -> str:
    """The canonical name of a tool (unknown names are returned unchanged)."""
    known = _TOOLS.get(name)
    if known is not None:
        return known
    for suffix, canonical in _SUFFIXES:
        if name.endswith(suffix):
            return canonical
    return name


def with_command(tool_input: dict[str, Any]) -> dict[str, Any]:
    """``tool_input`` with non-empty ``cmd``, then ``chars`` (which wins), copied to ``command``."""
    result = tool_input
    for key in ("cmd", "chars"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            result = dict(result)
            result["command"] = value
    return result


def normalise_tool(name: str, tool_input: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(canonical tool name, normalised input) of one call."""
    if name == PARALLEL:
        return _parallel(tool_input)
    return canonical_tool(name), with_command(tool_input)


def _parallel(tool_input: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    uses = tool_input.get("tool_uses")
    if isinstance(uses, list) and len(uses) == 1 and isinstance(uses[0], dict):
        item = uses[0]
        item_name = next((v for k in _ITEM_NAME_KEYS if isinstance(v := item.get(k), str) and v), "")
        canonical = canonical_tool(item_name) if item_name != PARALLEL else ""
        if canonical in ENFORCED:
            parameters = item.get("parameters")
            return canonical, with_command(parameters if isinstance(parameters, dict) else {})
    result = with_command(tool_input)
    if isinstance(uses, list) and len(uses) >= 2:
        result = dict(result)
        result[PARALLEL_BATCH_KEY] = True
    return "Bash", result
