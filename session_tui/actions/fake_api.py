"""A fake model API on 127.0.0.1 for a dry-run resume: it keeps every
request, applies the real APIs' pairing rules to each conversation (400
with their wording) and answers "ok" as plain text, so the client never
runs a tool. Anthropic Messages (``/v1/messages``, streamed or not),
OpenAI Responses (``/v1/responses``, server-sent events; a websocket upgrade
is answered 426 so Codex falls back to HTTP at once) and OpenAI Chat
Completions (``/v1/chat/completions``, streamed or not: opencode, Qwen Code,
Copilot CLI's BYOK mode) and Gemini (``/v1beta/models/M:streamGenerateContent``
with ``?alt=sse``, ``:generateContent``, ``:countTokens``: Gemini CLI).
Loopback only, a random port."""

from __future__ import annotations

import gzip
import json
import re
import socket
import threading
import time
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..model.resume.api_rules import ANTHROPIC, CHAT, GEMINI, RESPONSES, violations

HOST = "127.0.0.1"  # never anything else


@dataclass
class Captured:
    method: str
    path: str
    body: Any
    status: int
    wire: str | None = None  # ANTHROPIC, RESPONSES, CHAT or GEMINI for a model request
    rejection: str | None = None  # the 400's message
    at: float = field(default_factory=time.time)


def _sse(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


def _anthropic_stream(model: str) -> bytes:
    message_id = f"msg_dry_run_{int(time.time() * 1000)}"
    usage = {"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    return _sse(
        [
            (
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": message_id,
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": usage,
                    },
                },
            ),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            ),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}},
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 1},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
    )


def _anthropic_json(model: str) -> dict[str, Any]:
    return {
        "id": f"msg_dry_run_{int(time.time() * 1000)}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }


#: the one output item Codex expects for a request that ends with a
#: ``compaction_trigger`` item (its "remote compaction v2", run before a turn
#: when it resumes with another model than the session's)
COMPACTION = {"id": "cmp_dry_run", "type": "compaction", "encrypted_content": "session-tui-dry-run"}


def compacting(fields: dict[str, Any]) -> bool:
    """Whether a Responses request asks for a compaction (its last item a ``compaction_trigger``)."""
    items = fields.get("input")
    return (
        isinstance(items, list)
        and bool(items)
        and isinstance(items[-1], dict)
        and (items[-1].get("type") == "compaction_trigger")
    )


def _responses_stream(model: str, compact: bool = False) -> bytes:
    base = {"id": f"resp_dry_run_{int(time.time() * 1000)}", "object": "response", "created_at": int(time.time())}
    base["model"] = model
    part = {"type": "output_text", "text": "ok", "annotations": []}
    item = {"id": "msg_dry_run", "type": "message", "role": "assistant", "status": "completed", "content": [part]}
    if compact:
        return _compaction_stream(base)
    usage = {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 1,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 11,
    }
    at = {"item_id": "msg_dry_run", "output_index": 0, "content_index": 0}
    events: list[tuple[str, dict[str, Any]]] = [
        ("response.created", {"response": {**base, "status": "in_progress", "output": []}}),
        ("response.in_progress", {"response": {**base, "status": "in_progress", "output": []}}),
        ("response.output_item.added", {"output_index": 0, "item": {**item, "status": "in_progress", "content": []}}),
        ("response.content_part.added", {**at, "part": {"type": "output_text", "text": "", "annotations": []}}),
        ("response.output_text.delta", {**at, "delta": "ok"}),
        ("response.output_text.done", {**at, "text": "ok"}),
        ("response.content_part.done", {**at, "part": part}),
        ("response.output_item.done", {"output_index": 0, "item": item}),
        ("response.completed", {"response": {**base, "status": "completed", "output": [item], "usage": usage}}),
    ]
    return _sse([(name, {"type": name, "sequence_number": n, **data}) for n, (name, data) in enumerate(events)])


def _compaction_stream(base: dict[str, Any]) -> bytes:
    usage = {"input_tokens": 10, "output_tokens": 1, "total_tokens": 11}
    events: list[tuple[str, dict[str, Any]]] = [
        ("response.created", {"response": {**base, "status": "in_progress", "output": []}}),
        ("response.output_item.added", {"output_index": 0, "item": COMPACTION}),
        ("response.output_item.done", {"output_index": 0, "item": COMPACTION}),
        ("response.completed", {"response": {**base, "status": "completed", "output": [COMPACTION], "usage": usage}}),
    ]
    return _sse([(name, {"type": name, "sequence_number": n, **data}) for n, (name, data) in enumerate(events)])


def _chat_chunk(chunk_id: str, model: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
    return {"id": chunk_id, "object": "chat.completion.chunk", "created": int(time.time()), "model": model} | {
        "system_fingerprint": "fp_dry_run",
        "choices": [choice],
    }


def _chat_usage() -> dict[str, Any]:
    return {
        "prompt_tokens": 10,
        "completion_tokens": 1,
        "total_tokens": 11,
        "prompt_tokens_details": {"cached_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0},
    }


def _chat_stream(model: str, include_usage: bool) -> bytes:
    """A Chat Completions answer "ok" as ``data:`` chunks, a usage chunk when
    asked for (``stream_options.include_usage``), then ``[DONE]``."""
    chunk_id = f"chatcmpl-dry-run-{int(time.time() * 1000)}"
    chunks = [
        _chat_chunk(chunk_id, model, {"role": "assistant", "content": ""}),
        _chat_chunk(chunk_id, model, {"content": "ok"}),
        _chat_chunk(chunk_id, model, {}, "stop"),
    ]
    if include_usage:
        chunks.append({**_chat_chunk(chunk_id, model, {}), "choices": [], "usage": _chat_usage()})
    return ("".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n").encode()


def _chat_json(model: str) -> dict[str, Any]:
    message = {"role": "assistant", "content": "ok"}
    return {
        "id": f"chatcmpl-dry-run-{int(time.time() * 1000)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
        "usage": _chat_usage(),
    }


#: a Gemini model request: the model and the method
GEMINI_PATH = re.compile(r"/models/([^/:]+):(streamGenerateContent|generateContent|countTokens)$")


def _gemini_answer(model: str, text: str, finish: str | None = "STOP", usage: bool = True) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text}]}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    out: dict[str, Any] = {"candidates": [candidate], "modelVersion": model, "responseId": "dry-run"}
    if usage:
        out["usageMetadata"] = {"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11}
    return out


def _gemini_stream(model: str) -> bytes:
    """ "ok" as two ``data:`` chunks, the usage on the last (``?alt=sse``)."""
    chunks = [_gemini_answer(model, "o", None, usage=False), _gemini_answer(model, "k")]
    return "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks).encode()


def _wire(path: str) -> str | None:
    if GEMINI_PATH.search(path):
        return GEMINI
    if path.endswith("/chat/completions"):
        return CHAT
    return ANTHROPIC if path.endswith("/messages") else RESPONSES if path.endswith("/responses") else None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: FakeAPI

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        encoding = (self.headers.get("Content-Encoding") or "").lower()
        try:
            raw = gzip.decompress(raw) if encoding == "gzip" else zlib.decompress(raw) if encoding == "deflate" else raw
            return json.loads(raw) if raw else None
        except (OSError, ValueError, zlib.error):
            return None

    def _send(self, status: int, payload: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("request-id", "req_dry_run")
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:
        if (self.headers.get("Upgrade") or "").lower() == "websocket":
            self.server.keep(Captured("GET", self.path, None, 426))
            error = {"error": {"type": "invalid_request_error", "message": "no websocket here: use HTTP"}}
            return self._send(426, json.dumps(error).encode())
        found = self.path.split("?")[0].rstrip("/").endswith("/models")
        self.server.keep(Captured("GET", self.path, None, 200 if found else 404))
        body = {"object": "list", "data": [], "models": []} if found else {"error": {"type": "not_found_error"}}
        self._send(200 if found else 404, json.dumps(body).encode())

    def do_POST(self) -> None:
        body = self._body()
        path = self.path.split("?")[0]
        fields = body if isinstance(body, dict) else {}
        model = str(fields.get("model") or "dry-run")
        gemini = GEMINI_PATH.search(path)
        if gemini is not None:
            model = gemini.group(1)
        if path.endswith("/count_tokens") or (gemini is not None and gemini.group(2) == "countTokens"):
            self.server.keep(Captured("POST", self.path, body, 200))
            return self._send(200, b'{"totalTokens": 10}' if gemini else b'{"input_tokens": 10}')
        wire = _wire(path)
        if wire is None:
            self.server.keep(Captured("POST", self.path, body, 404))
            return self._send(404, b'{"error": {"type": "not_found_error"}}')
        found = violations(wire, fields)
        if found:
            message = found[0].message
            self.server.keep(Captured("POST", self.path, body, 400, wire, message))
            error: dict[str, Any] = (
                {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
                if wire == ANTHROPIC
                else {"error": {"message": message, "type": "invalid_request_error", "param": "input", "code": None}}
            )
            if wire == CHAT:
                error["error"]["param"] = f"messages.[{found[0].index}].role"
            if wire == GEMINI:
                error = {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}
            return self._send(400, json.dumps(error).encode())
        self.server.keep(Captured("POST", self.path, body, 200, wire))
        if gemini is not None:
            if gemini.group(2) == "streamGenerateContent":
                return self._send(200, _gemini_stream(model), "text/event-stream")
            return self._send(200, json.dumps(_gemini_answer(model, "ok")).encode())
        if wire == RESPONSES:
            return self._send(200, _responses_stream(model, compacting(fields)), "text/event-stream")
        if wire == CHAT:
            if fields.get("stream"):
                options = fields.get("stream_options")
                usage = isinstance(options, dict) and bool(options.get("include_usage"))
                return self._send(200, _chat_stream(model, usage), "text/event-stream")
            return self._send(200, json.dumps(_chat_json(model)).encode())
        if fields.get("stream"):
            return self._send(200, _anthropic_stream(model), "text/event-stream")
        self._send(200, json.dumps(_anthropic_json(model)).encode())


class FakeAPI(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, listening: socket.socket | None = None) -> None:
        """``listening``: a socket already bound to loopback and listening (one
        made inside a dry run's network namespace); else a new one here."""
        super().__init__((HOST, 0), _Handler, bind_and_activate=listening is None)
        if listening is not None:
            self.socket.close()
            self.socket = listening
            self.server_address = listening.getsockname()
            if self.server_address[0] != HOST:
                raise OSError(f"the fake API's socket is not bound to {HOST}")
        self.captured: list[Captured] = []
        self._lock = threading.Lock()
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}"

    def keep(self, request: Captured) -> None:
        with self._lock:
            self.captured.append(request)

    def requests(self) -> list[Captured]:
        with self._lock:
            return list(self.captured)

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
