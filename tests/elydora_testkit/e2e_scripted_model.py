"""A scripted model for agents that read the model's answers from a file instead of an HTTP API.

Qoder CLI (a Gemini CLI fork) has a hidden ``--fake-responses <file>`` option: each line is
``{"method": "generateContentStream", "response": [<generateContent chunks>]}``, consumed in order, one per model
request, with no login and no network. That is the only way found to drive it offline (docs/e2e.md, Qoder), so
for it this module plays the part that ``tests/e2e/fake_model.py`` plays for the others.

The script holds exactly one answer: one call of the shell tool running the e2e command. The next model request
(the one carrying the tool's result) finds the script exhausted, and the agent writes the error into its session
transcript as ``No more mock responses for generateContentStream, got request:`` followed by that request as JSON
(``chatAsk``: the messages in chat-completions form and the tools offered). ``requests_from_transcripts`` turns
that into entries of the fake model's request log (``answer``: ``tool_call`` for the call the script made, with
the id the agent gave it, and ``text`` for the follow-up, whose ``body`` is the agent's own rendering of the
request), so the shared checks read it like any other agent's log. The follow-up is never answered: the run ends
with an error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from elydora_testkit.e2e_harness import COMMAND

EXHAUSTED = "No more mock responses for generateContentStream, got request:\n"
SOURCE = "scripted model (the agent's --fake-responses file, exhausted after the tool call)"


def write_script(path: Path, tool: str, arguments: dict[str, Any] | None = None) -> None:
    """One answer: a call of ``tool`` running the e2e command."""
    call = {"name": tool, "args": arguments or {"command": COMMAND, "description": "Create the e2e proof file"}}
    answer = {"method": "generateContentStream", "response": [{"candidates": [{
        "content": {"role": "model", "parts": [{"functionCall": call}]}, "finishReason": "STOP", "index": 0}]}]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(answer) + "\n")


def _strings(obj: Any) -> Iterator[str]:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for value in obj.values():
            yield from _strings(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from _strings(value)


def dumped_requests(transcript: Path) -> list[dict[str, Any]]:
    """The requests the agent wrote into one transcript when the script ran out (normally one)."""
    found: list[dict[str, Any]] = []
    # split on newlines only: str.splitlines would also cut at the U+2028 and U+0085 a JSON line may hold
    for line in transcript.read_text(encoding="utf-8", errors="replace").split("\n"):
        if EXHAUSTED.split(",")[0] not in line:  # the raw line has the marker's newline escaped
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        for text in _strings(entry):
            at = text.find(EXHAUSTED)
            if at < 0:
                continue
            try:
                request, _end = json.JSONDecoder().raw_decode(text, at + len(EXHAUSTED))
            except ValueError:
                continue
            if isinstance(request, dict) and request not in found:
                found.append(request)
    return found


def _tool_names(request: dict[str, Any]) -> list[str]:
    names = [((t.get("function") or {}).get("name") or t.get("name")) for t in request.get("tools") or []
             if isinstance(t, dict)]
    return sorted(n for n in names if isinstance(n, str))


def _call_of(request: dict[str, Any], tool: str) -> dict[str, Any] | None:
    """The assistant's call of ``tool`` in the request's history: the call the script made."""
    for message in request.get("messages") or []:
        for call in (message.get("tool_calls") or []) if isinstance(message, dict) else []:
            if isinstance(call, dict) and (call.get("function") or {}).get("name") == tool:
                return call
    return None


def log_entries(dumped: dict[str, Any], tool: str) -> list[dict[str, Any]]:
    """Request-log entries (the shape ``fake_model.py`` writes) for one dumped follow-up request.

    Qoder dumps ``{"chatAsk", "model", "messages", "tools"}``: ``chatAsk`` is the request it sends to its
    inference service (chat-completions ``messages`` with ``tool_calls`` and ``role: "tool"`` results, and the
    ``tools`` offered), which is what the entries carry as the body.
    """
    ask = dumped.get("chatAsk")
    request: dict[str, Any] = ask if isinstance(ask, dict) else dumped
    call = _call_of(request, tool)
    if call is None:
        return [{"answer": "text", "body": request, "tools": _tool_names(request), "source": SOURCE}]
    arguments = (call.get("function") or {}).get("arguments")
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        parsed = arguments
    return [
        # What the script answered; the tools offered are read from the follow-up, which offers the same set.
        {"answer": "tool_call", "tool_call_id": call.get("id"), "tool_name": tool, "tool_args": parsed,
         "tools": _tool_names(request), "body": None, "source": SOURCE},
        {"answer": "text", "body": request, "tools": _tool_names(request), "source": SOURCE},
    ]


def requests_from_transcripts(folder: Path, since: float, tool: str) -> list[dict[str, Any]]:
    """Log entries for every transcript (``*.jsonl`` below ``folder``) written since ``since`` (epoch seconds)."""
    entries: list[dict[str, Any]] = []
    if not folder.is_dir():
        return entries
    transcripts = sorted((p for p in folder.rglob("*.jsonl") if p.stat().st_mtime >= since),
                         key=lambda p: p.stat().st_mtime)
    for transcript in transcripts:
        for request in dumped_requests(transcript):
            entries += log_entries(request, tool)
    return entries
