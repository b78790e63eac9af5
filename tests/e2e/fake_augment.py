"""Augment's API, as much of it as Auggie needs to make one tool call offline (a dialect of ``fake_model.py``).

Auggie talks to its tenant URL (``tenantURL`` in ``AUGMENT_SESSION_AUTH``) with ``POST <tenant>/<endpoint>``.
The tests point the tenant at ``http://127.0.0.1:P/augment/`` (hooks on) or ``.../augment/no-hooks/``, so the
path alone says which server Auggie believes it has:

* ``get-models``: one model and ``feature_flags`` whose ``enable_hooks`` is true, or false under
  ``no-hooks/``. Auggie 0.36.0 loads hooks only when that server-side flag is on. Under ``overrides/`` the
  flags also hold ``allow_client_feature_flag_overrides: true``: Auggie then applies the ``featureFlagOverrides``
  of its settings files (off by default, as on Augment's own server).
* ``chat-stream``: newline-delimited JSON objects ``{"text", "nodes", "stop_reason"}``. The first request that
  offers the shell tool (its ``tool_definitions``) is answered with one tool_use node (type 5) calling it;
  every other one with a final text.
* any other endpoint (telemetry, MCP settings, remote tools, error reports): ``{}``, or the empty answer it
  needs (``ANSWERS``).

Requests are logged through the ``FakeModel`` like the other dialects (``answer`` ``tool_call``/``text`` on
``chat-stream``, ``augment`` elsewhere), so the tests see the tool call and the follow-up carrying its result.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

PREFIX = "/augment/"
NO_HOOKS = "no-hooks/"
OVERRIDES = "overrides/"
MODEL = "fake-model"
TOOL_USE_NODE = 5  # Auggie's node type for a tool call
STOP_END_TURN, STOP_TOOL_USE = 1, 3  # its stop reasons END_TURN and TOOL_USE_REQUESTED
WAIT = {"wait": True, "max_wait_seconds": 30}
"""``launch-process`` runs in the background unless told to wait: waiting makes its result (and the post-tool
hook) come before the follow-up request."""
ANSWERS: dict[str, Any] = {"agents/list-remote-tools": {"tools": []}}
"""Endpoints whose empty answer Auggie reports as a conversion error; every other one gets ``{}``."""


class FakeLike(Protocol):
    shell_tool: str

    def decide(self, tools: dict[str, dict[str, Any]], prefix: str) -> tuple[str, str | None,
                                                                              dict[str, Any] | None]: ...

    def record(self, entry: dict[str, Any]) -> None: ...


class HandlerLike(Protocol):
    fake: FakeLike

    def _json(self, status: int, data: Any) -> None: ...

    def send_response(self, code: int) -> None: ...

    def send_header(self, keyword: str, value: str) -> None: ...

    def end_headers(self) -> None: ...

    @property
    def wfile(self) -> Any: ...


def tenant_url(port: int, *, hooks: bool = True, overrides: bool = False) -> str:
    """The ``tenantURL`` that makes Auggie talk to this server on ``port``, with ``enable_hooks`` on or off, and
    client flag overrides allowed or not."""
    return f"http://127.0.0.1:{port}{PREFIX}{OVERRIDES if overrides else ''}{'' if hooks else NO_HOOKS}"


def serves(path: str) -> bool:
    return path.startswith(PREFIX)


def offered_tools(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Tool name -> JSON schema, from ``tool_definitions`` (each schema a JSON string, ``input_schema_json``)."""
    tools: dict[str, dict[str, Any]] = {}
    for tool in body.get("tool_definitions") or []:
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            continue
        try:
            schema = json.loads(tool.get("input_schema_json") or "{}")
        except ValueError:
            schema = {}
        tools[tool["name"]] = schema if isinstance(schema, dict) else {}
    return tools


def answer(handler: HandlerLike, path: str, body: dict[str, Any], entry: dict[str, Any], final_text: str) -> None:
    """Answer one Augment request; ``final_text`` is what the model says when it calls no tool."""
    endpoint = path[len(PREFIX):]
    overrides = endpoint.startswith(OVERRIDES)
    endpoint = endpoint.removeprefix(OVERRIDES)
    hooks = not endpoint.startswith(NO_HOOKS)
    endpoint = endpoint.removeprefix(NO_HOOKS)
    entry.update(dialect="augment", endpoint=endpoint)
    if endpoint == "get-models":
        entry.update(answer="augment", enable_hooks=hooks, overrides=overrides)
        handler.fake.record(entry)
        handler._json(200, _models(hooks, overrides))
    elif endpoint == "chat-stream":
        _chat_stream(handler, body, entry, final_text)
    else:
        entry["answer"] = "augment"
        handler.fake.record(entry)
        handler._json(200, ANSWERS.get(endpoint, {}))


def _models(hooks: bool, overrides: bool) -> dict[str, Any]:
    model = {"name": MODEL, "suggested_prefix_char_count": 4000, "suggested_suffix_char_count": 4000}
    flags: dict[str, Any] = {"enable_hooks": hooks}
    if overrides:
        flags["allow_client_feature_flag_overrides"] = True
    return {"default_model": MODEL, "models": [model], "languages": [], "feature_flags": flags}


def _chat_stream(handler: HandlerLike, body: dict[str, Any], entry: dict[str, Any], final_text: str) -> None:
    tools = offered_tools(body)
    kind, call_id, args = handler.fake.decide(tools, "toolu_")
    if args is not None:
        args.update((key, value) for key, value in WAIT.items() if key in args)
    entry.update(tools=sorted(tools), answer=kind)
    if call_id:
        entry.update(tool_call_id=call_id, tool_name=handler.fake.shell_tool, tool_args=args)
    handler.fake.record(entry)
    if kind == "tool_call":
        node = {"id": 0, "type": TOOL_USE_NODE, "content": "",
                "tool_use": {"tool_use_id": call_id, "tool_name": handler.fake.shell_tool,
                             "input_json": json.dumps(args)}}
        lines: list[dict[str, Any]] = [
            {"text": "", "nodes": [node]}, {"text": "", "nodes": [], "stop_reason": STOP_TOOL_USE},
        ]
    else:
        lines = [{"text": final_text, "nodes": []}, {"text": "", "nodes": [], "stop_reason": STOP_END_TURN}]
    _ndjson(handler, lines)


def _ndjson(handler: HandlerLike, lines: list[dict[str, Any]]) -> None:
    """The whole stream at once: Auggie reads ``chat-stream`` line by line, however the bytes arrive."""
    raw = "".join(json.dumps(line) + "\n" for line in lines).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/x-ndjson")
    handler.send_header("Content-Length", str(len(raw)))
    handler.end_headers()
    handler.wfile.write(raw)
