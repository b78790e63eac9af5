"""A fake model server for the e2e tests: just enough of four model APIs for a real agent to make one tool call.

Dialects (by request path):

* Anthropic Messages: ``POST /v1/messages`` (JSON, or SSE with ``"stream": true``).
* OpenAI chat completions: ``POST /v1/chat/completions`` (JSON, or SSE chunks ending in ``[DONE]``).
* OpenAI Responses: ``POST /v1/responses`` (JSON, or SSE ``response.*`` events).
* Gemini: ``POST /v1beta/models/<model>:generateContent`` and ``:streamGenerateContent`` (SSE with ``alt=sse``,
  else a JSON array), ``:countTokens``.
* Augment (Auggie): ``POST /augment/<endpoint>``, in ``fake_augment.py``.
* ``GET .../models``: a one-model list in the OpenAI and Gemini shapes. Anything else: ``{}`` with 404.

Behaviour: the first request that offers the agent's shell tool (``shell_tool``) is answered with exactly one
call of that tool running ``command`` (or, when ``arguments`` is set, with exactly those arguments: e.g. a
``Write`` of a large file); every other request gets a short final text, after ``answer_delay`` seconds when it
comes after the tool call (0 unless a row asks for it). Each request is appended
to ``log_path`` as one JSON line (method, path, headers, parsed body, which answer it got, the tool call id
issued), so the tests can read what the agent told the model.

Stdlib only; binds 127.0.0.1 on a free port (``port`` 0). Used in-process by ``driver.py`` (which runs inside
the test's network namespace) and runnable alone for debugging: ``python fake_model.py --tool Bash``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import threading
import time
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import fake_augment

FINAL_TEXT = "Done: the fake model has nothing more to do."
DESCRIPTION = "Create the e2e proof file (fake model)"
MODEL = "fake-model"
MAX_BODY = 64 << 20


# -- tool discovery ---------------------------------------------------------------------------------------
def offered_tools(dialect: str, body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Tool name -> JSON schema of its parameters, as offered in this request."""
    tools: dict[str, dict[str, Any]] = {}
    raw = body.get("tools")
    if not isinstance(raw, list):
        return tools
    for tool in raw:
        if not isinstance(tool, dict):
            continue
        if dialect == "gemini":
            for decl in tool.get("functionDeclarations") or tool.get("function_declarations") or []:
                if isinstance(decl, dict) and isinstance(decl.get("name"), str):
                    schema = decl.get("parametersJsonSchema") or decl.get("parameters") or {}
                    tools[decl["name"]] = schema if isinstance(schema, dict) else {}
        elif dialect == "anthropic":
            if isinstance(tool.get("name"), str):
                schema = tool.get("input_schema") or {}
                tools[tool["name"]] = schema if isinstance(schema, dict) else {}
        elif dialect == "chat":
            fn = tool.get("function") if isinstance(tool.get("function"), dict) else tool
            if isinstance(fn.get("name"), str):
                schema = fn.get("parameters") or {}
                tools[fn["name"]] = schema if isinstance(schema, dict) else {}
        elif dialect == "responses" and isinstance(tool.get("name"), str):
            schema = tool.get("parameters") or {}
            tools[tool["name"]] = schema if isinstance(schema, dict) else {}
    return tools


def _default_for(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return ""
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return "low" if "low" in schema["enum"] else schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    kind = str(kind).lower() if kind else "string"
    return {"boolean": False, "integer": 0, "number": 0, "array": [], "object": {}}.get(kind, "")


def _is_array(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    return kind == "array" or str(kind).lower() == "array" or (isinstance(kind, list) and "array" in kind)


def tool_arguments(schema: dict[str, Any], command: str) -> dict[str, Any]:
    """Arguments for a shell tool: the command in whichever field the schema names, required fields filled."""
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    args: dict[str, Any] = {}
    for key in ("command", "cmd", "commands"):
        if key in props:
            if key == "commands" or _is_array(props[key]):
                args[key] = [command] if key == "commands" else ["bash", "-lc", command]
            else:
                args[key] = command
            break
    else:
        args["command"] = command
    if "description" in props:
        args["description"] = DESCRIPTION
    for key in schema.get("required") or []:
        if key not in args and isinstance(key, str):
            args[key] = _default_for(props.get(key))
    return args


def _shortened(value: Any, limit: int = 1 << 16) -> Any:
    """``value`` with every string longer than ``limit`` cut (a large Write would fill the log many times)."""
    if isinstance(value, str) and len(value) > limit:
        return value[:limit] + f"...[{len(value) - limit} chars cut by the fake model's log]"
    if isinstance(value, dict):
        return {k: _shortened(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [_shortened(v, limit) for v in value]
    return value


# -- the server -------------------------------------------------------------------------------------------
class FakeModel:
    def __init__(self, shell_tool: str, command: str, log_path: str) -> None:
        self.shell_tool = shell_tool
        self.command = command
        self.log_path = log_path
        self.arguments: dict[str, Any] | None = None
        """The tool call's arguments as given (instead of a shell command fitted to the tool's schema)."""
        self.lock = threading.Lock()
        self.tool_call_id: str | None = None
        self.answer_delay = 0.0
        """Seconds to wait before answering a request made after the tool call (a real model takes seconds)."""
        self.server: ThreadingHTTPServer | None = None
        self.thread: threading.Thread | None = None

    # one decision per request, under the lock: exactly one tool call per server lifetime
    def decide(self, tools: dict[str, dict[str, Any]], prefix: str) -> tuple[str, str | None, dict[str, Any] | None]:
        with self.lock:
            if self.tool_call_id is None and self.shell_tool in tools:
                self.tool_call_id = f"{prefix}e2e{uuid.uuid4().hex[:20]}"
                if self.arguments is not None:
                    return "tool_call", self.tool_call_id, self.arguments
                return "tool_call", self.tool_call_id, tool_arguments(tools[self.shell_tool], self.command)
        return "text", None, None

    def record(self, entry: dict[str, Any]) -> None:
        line = json.dumps(_shortened(entry), sort_keys=True, default=str) + "\n"
        with self.lock, open(self.log_path, "a", encoding="utf-8") as fh:
            fh.write(line)

    def start(self, port: int = 0) -> int:
        model = self

        class Handler(_Handler):
            fake = model

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="fake-model", daemon=True)
        self.thread.start()
        return int(self.server.server_address[1])

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeModel

    def log_message(self, format: str, *args: Any) -> None:  # quiet: everything goes to the JSON log
        pass

    # -- plumbing
    def _body(self) -> tuple[Any, str]:
        length = int(self.headers.get("Content-Length") or 0)
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            raw = self._read_chunked()
        else:
            raw = self.rfile.read(min(length, MAX_BODY)) if length else b""
        encoding = (self.headers.get("Content-Encoding") or "").lower()
        try:
            if encoding == "gzip":
                raw = gzip.decompress(raw)
            elif encoding == "deflate":
                raw = zlib.decompress(raw)
        except (OSError, zlib.error):
            return None, raw.decode("latin-1")
        try:
            return (json.loads(raw) if raw else {}), ""
        except ValueError:
            return None, raw.decode("utf-8", "replace")

    def _read_chunked(self) -> bytes:
        out = b""
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                self.rfile.readline()
                return out
            out += self.rfile.read(size)
            self.rfile.readline()

    def _json(self, status: int, data: Any) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _sse(self, events: list[tuple[str | None, Any]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for name, data in events:
            text = data if isinstance(data, str) else json.dumps(data)
            chunk = (f"event: {name}\n" if name else "") + f"data: {text}\n\n"
            raw = chunk.encode()
            self.wfile.write(f"{len(raw):x}\r\n".encode() + raw + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    # -- routing
    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
        self.fake.record({"t": time.time(), "method": "HEAD", "path": self.path, "answer": "head"})

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path.endswith("/models"):
            answer = "models"
            self._json(200, {
                "object": "list",
                "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "e2e"}],
                "models": [{"name": f"models/{MODEL}", "supportedGenerationMethods": ["generateContent"]}],
            })
        else:
            answer = "404"
            self._json(404, {})
        self.fake.record({"t": time.time(), "method": "GET", "path": self.path, "answer": answer,
                          "headers": dict(self.headers)})

    def do_POST(self) -> None:
        body, undecoded = self._body()
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        entry: dict[str, Any] = {"t": time.time(), "method": "POST", "path": self.path,
                                 "headers": dict(self.headers), "body": body}
        if undecoded:
            entry["undecoded_body"] = undecoded[:20000]
        if not isinstance(body, dict):
            entry["answer"] = "400"
            self.fake.record(entry)
            self._json(400, {"error": {"message": "fake model: body is not a JSON object"}})
            return
        if fake_augment.serves(path):
            fake_augment.answer(self, path, body, entry, FINAL_TEXT)
        elif path.endswith("/messages/count_tokens"):
            entry["answer"] = "count_tokens"
            self.fake.record(entry)
            self._json(200, {"input_tokens": 10})
        elif path.endswith("/messages"):
            self._anthropic(body, entry)
        elif path.endswith("/chat/completions"):
            self._chat(body, entry)
        elif path.endswith("/responses"):
            self._responses(body, entry)
        elif ":countTokens" in path:
            entry["answer"] = "count_tokens"
            self.fake.record(entry)
            self._json(200, {"totalTokens": 10})
        elif ":generateContent" in path or ":streamGenerateContent" in path:
            stream = ":streamGenerateContent" in path
            self._gemini(body, entry, stream=stream, sse=query.get("alt") == ["sse"])
        else:
            entry["answer"] = "404"
            self.fake.record(entry)
            self._json(404, {})

    def _decide(self, dialect: str, body: dict[str, Any], entry: dict[str, Any], prefix: str) -> tuple[
        str, str | None, dict[str, Any] | None
    ]:
        tools = offered_tools(dialect, body)
        kind, call_id, args = self.fake.decide(tools, prefix)
        entry.update(dialect=dialect, tools=sorted(tools), answer=kind)
        if call_id:
            entry.update(tool_call_id=call_id, tool_name=self.fake.shell_tool, tool_args=args)
        self.fake.record(entry)
        if kind == "text" and self.fake.tool_call_id is not None and self.fake.answer_delay > 0:
            time.sleep(self.fake.answer_delay)
        return kind, call_id, args

    # -- Anthropic Messages
    def _anthropic(self, body: dict[str, Any], entry: dict[str, Any]) -> None:
        kind, call_id, args = self._decide("anthropic", body, entry, "toolu_")
        msg_id = f"msg_{uuid.uuid4().hex[:24]}"
        model = body.get("model") or MODEL
        usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}
        if kind == "tool_call":
            block: dict[str, Any] = {"type": "tool_use", "id": call_id, "name": self.fake.shell_tool, "input": args}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": FINAL_TEXT}
            stop = "end_turn"
        if not body.get("stream"):
            self._json(200, {"id": msg_id, "type": "message", "role": "assistant", "model": model,
                             "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage})
            return
        start_block = dict(block, input={}) if kind == "tool_call" else {"type": "text", "text": ""}
        delta = ({"type": "input_json_delta", "partial_json": json.dumps(args)} if kind == "tool_call"
                 else {"type": "text_delta", "text": FINAL_TEXT})
        self._sse([
            ("message_start", {"type": "message_start", "message": {
                "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
                "stop_reason": None, "stop_sequence": None, "usage": dict(usage, output_tokens=1)}}),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start_block}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 5}}),
            ("message_stop", {"type": "message_stop"}),
        ])

    # -- OpenAI chat completions
    def _chat(self, body: dict[str, Any], entry: dict[str, Any]) -> None:
        kind, call_id, args = self._decide("chat", body, entry, "call_")
        cid = f"chatcmpl-{uuid.uuid4().hex[:24]}"
        model = body.get("model") or MODEL
        created = int(time.time())
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if kind == "tool_call":
            call = {"id": call_id, "type": "function",
                    "function": {"name": self.fake.shell_tool, "arguments": json.dumps(args)}}
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": FINAL_TEXT}
            finish = "stop"
        if not body.get("stream"):
            self._json(200, {"id": cid, "object": "chat.completion", "created": created, "model": model,
                             "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                             "usage": usage})
            return

        def chunk(delta: dict[str, Any], finish_reason: str | None) -> dict[str, Any]:
            return {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}

        if kind == "tool_call":
            deltas = [chunk({"role": "assistant", "content": None, "tool_calls": [dict(call, index=0)]}, None)]
        else:
            deltas = [chunk({"role": "assistant", "content": ""}, None), chunk({"content": FINAL_TEXT}, None)]
        deltas.append(chunk({}, finish))
        events: list[tuple[str | None, Any]] = [(None, d) for d in deltas]
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append((None, {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                                  "choices": [], "usage": usage}))
        events.append((None, "[DONE]"))
        self._sse(events)

    # -- OpenAI Responses
    def _responses(self, body: dict[str, Any], entry: dict[str, Any]) -> None:
        kind, call_id, args = self._decide("responses", body, entry, "call_")
        rid = f"resp_{uuid.uuid4().hex[:24]}"
        model = body.get("model") or MODEL
        if kind == "tool_call":
            item: dict[str, Any] = {"type": "function_call", "id": f"fc_{uuid.uuid4().hex[:20]}",
                                    "call_id": call_id, "name": self.fake.shell_tool,
                                    "arguments": json.dumps(args), "status": "completed"}
        else:
            item = {"type": "message", "id": f"msg_{uuid.uuid4().hex[:20]}", "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": FINAL_TEXT, "annotations": []}]}
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
        response = {"id": rid, "object": "response", "created_at": int(time.time()), "status": "completed",
                    "model": model, "output": [item], "usage": usage}
        if not body.get("stream"):
            self._json(200, response)
            return
        events: list[tuple[str | None, Any]] = [
            ("response.created", {"type": "response.created", "sequence_number": 0,
                                  "response": dict(response, status="in_progress", output=[])}),
            ("response.output_item.added", {"type": "response.output_item.added", "sequence_number": 1,
                                            "output_index": 0, "item": item}),
        ]
        if kind == "text":
            events.append(("response.output_text.delta", {
                "type": "response.output_text.delta", "sequence_number": 2, "item_id": item["id"],
                "output_index": 0, "content_index": 0, "delta": FINAL_TEXT}))
        events += [
            ("response.output_item.done", {"type": "response.output_item.done", "sequence_number": 3,
                                           "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "sequence_number": 4, "response": response}),
        ]
        self._sse(events)

    # -- Gemini generateContent
    def _gemini(self, body: dict[str, Any], entry: dict[str, Any], *, stream: bool, sse: bool) -> None:
        kind, _call_id, args = self._decide("gemini", body, entry, "gem_")
        if kind == "tool_call":
            part: dict[str, Any] = {"functionCall": {"name": self.fake.shell_tool, "args": args}}
        else:
            part = {"text": FINAL_TEXT}
        response = {
            "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": MODEL,
        }
        if stream and sse:
            self._sse([(None, response)])
        elif stream:
            self._json(200, [response])
        else:
            self._json(200, response)


def main() -> None:
    parser = argparse.ArgumentParser(description="fake model server (debugging)")
    parser.add_argument("--tool", required=True, help="the agent's shell tool to call once")
    parser.add_argument("--command", default="echo hello > hello.txt")
    parser.add_argument("--log", default="/dev/stderr")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    fake = FakeModel(args.tool, args.command, args.log)
    print(fake.start(args.port), flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        fake.stop()


if __name__ == "__main__":
    main()
