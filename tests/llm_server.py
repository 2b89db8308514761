"""A real local OpenAI-compatible HTTP server for tests: scripted faults, latency, request counts, and
``stream: true`` answered as the OpenAI API answers it (``data: {chat.completion.chunk}`` events over chunked
transfer encoding, a usage chunk when ``stream_options.include_usage`` asks, then ``data: [DONE]``), each
piece ``token_delay_s`` apart; ``streams`` records how far each stream got before its client went away."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.http_reply import send_json


@dataclass
class Reply:
    content: str
    delay_s: float = 0.0


@dataclass
class Streamed:
    """One streamed reply: how many pieces it had, how many reached the client, whether the client left."""

    total: int
    sent: int = 0
    cancelled: bool = False
    done: threading.Event = field(default_factory=threading.Event)


def pieces_of(content: str, size: int = 6) -> list[str]:
    """The reply cut as a model's tokens come: a few characters at a time."""
    return [content[i : i + size] for i in range(0, len(content), size)] or [""]


@dataclass
class Status:
    code: int
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "scripted failure"


def kind_of(body: dict[str, Any]) -> str:
    system = next((m["content"] for m in body.get("messages", []) if m.get("role") == "system"), "")
    if "content analysis assistant" in system:
        return "enrich"
    if "opening map" in system:
        return "summary"
    if "numbered sources" in system:
        return "answer"
    if "standalone question" in system:
        return "condense"
    if "passage" in system:
        return "hyde"
    return "other"


def smart_reply(body: dict[str, Any]) -> str:
    """Well-formed replies for each prompt kind, derived from the request (what a good model would send)."""
    kind = kind_of(body)
    user = body["messages"][-1]["content"]
    if kind == "enrich":
        text = user.split("Text:\n", 1)[-1]
        system = body["messages"][0]["content"]
        products = re.search(r'"product": "([^"]+)"', system)
        vocab = products.group(1).split("|") if products else ["general"]
        product = next((p for p in vocab if p != "general" and p in text.lower()), "general")
        words = [w.lower() for w in re.findall(r"[^\W\d_]{4,}", text)][:8] or ["texto"]
        first = re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0][:200]
        return json.dumps(
            {
                "summary": f"LLM summary: {first}",
                "keywords": words,
                "questions": [f"LLM question about {words[0]}?", "LLM second question?"],
                "context": f"LLM context: this is part of {_path(user)}.",
                "product": product,
                "content_type": "overview",
            },
            ensure_ascii=False,
        )
    if kind == "answer":
        source = user.split("[Source 1:", 1)[-1]
        body_text = source.split("\n", 3)[-1].split("\n\n[Source 2:")[0]
        sentence = re.split(r"(?<=[.!?])\s", body_text.strip(), maxsplit=1)[0].strip()
        return json.dumps(
            {"answer": f"{sentence} [1]", "citations": [{"source": 1, "quote": sentence}]}, ensure_ascii=False
        )
    if kind == "condense":  # a model that finds the last message clear as it is
        return json.dumps({"question": user.rsplit("Last message: ", 1)[-1]}, ensure_ascii=False)
    if kind == "summary":  # plain text, as the prompt asks, naming the first source's title
        title = re.search(r"\[Source 1: ([^\]|]+)", user)
        return f"LLM map: this domain covers {title.group(1).strip() if title else 'the sources'}."
    if kind == "hyde":
        return "Hypothetical passage: the plan costs 49 euros per agent per month, billed monthly."
    return "ok"


def _path(user: str) -> str:
    found = re.search(r"^Path: (.+)$", user, re.M) or re.search(r"^Title: (.+)$", user, re.M)
    return found.group(1) if found else "the document"


def chunk(body: dict[str, Any], delta: dict[str, str], finish: str | None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model", "test-model"),
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def usage_chunk(body: dict[str, Any], content: str) -> dict[str, Any]:
    prompt = sum(len(m.get("content", "")) for m in body.get("messages", [])) // 4
    completion = max(1, len(content) // 4)
    return {
        **chunk(body, {}, None),
        "choices": [],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


class LLMTestServer:
    """Serves POST /v1/chat/completions on 127.0.0.1; ``enqueue`` scripts the next replies (FIFO)."""

    def __init__(
        self,
        latency_s: float = 0.0,
        responder: Callable[[dict[str, Any]], str] = smart_reply,
        token_delay_s: float = 0.0,
    ) -> None:
        self.latency_s = latency_s
        self.responder = responder
        self.token_delay_s = token_delay_s
        self.script: list[Reply | Status] = []
        self.requests: list[dict[str, Any]] = []
        self.streams: list[Streamed] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return None

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append(body)
                    step = server.script.pop(0) if server.script else None
                if server.latency_s:
                    time.sleep(server.latency_s)
                if isinstance(step, Status):
                    payload = json.dumps(
                        {"error": {"message": step.message, "type": "test", "code": step.code}}
                    )
                    self._send(step.code, payload, step.headers)
                    return
                if isinstance(step, Reply) and step.delay_s:
                    time.sleep(step.delay_s)
                content = step.content if isinstance(step, Reply) else server.responder(body)
                if body.get("stream"):
                    self._stream(body, content)
                    return
                prompt = sum(len(m.get("content", "")) for m in body.get("messages", [])) // 4
                completion = max(1, len(content) // 4)
                payload = json.dumps(
                    {
                        "id": "chatcmpl-test",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "test-model"),
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": content},
                            }
                        ],
                        "usage": {
                            "prompt_tokens": prompt,
                            "completion_tokens": completion,
                            "total_tokens": prompt + completion,
                        },
                    }
                )
                self._send(200, payload, {})

            def _send(self, code: int, payload: str, headers: dict[str, str]) -> None:
                send_json(self, code, payload, headers)

            def _stream(self, body: dict[str, Any], content: str) -> None:
                pieces = pieces_of(content)
                streamed = Streamed(total=len(pieces))
                with server._lock:
                    server.streams.append(streamed)
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for n, piece in enumerate(pieces):
                        last = n == len(pieces) - 1
                        self._event(chunk(body, {"content": piece}, "stop" if last else None))
                        streamed.sent += 1
                        if server.token_delay_s and not last:
                            time.sleep(server.token_delay_s)
                    if (body.get("stream_options") or {}).get("include_usage"):
                        self._event(usage_chunk(body, content))
                    self._chunk(b"data: [DONE]\n\n")
                    self._chunk(b"")
                except (BrokenPipeError, ConnectionResetError):
                    streamed.cancelled = True  # the client hung up: the rest is never generated
                    self.close_connection = True
                finally:
                    streamed.done.set()

            def _event(self, data: dict[str, Any]) -> None:
                self._chunk(f"data: {json.dumps(data, ensure_ascii=False)}\n\n".encode())

            def _chunk(self, data: bytes) -> None:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def enqueue(self, *steps: Reply | Status) -> None:
        with self._lock:
            self.script.extend(steps)

    def count(self, kind: str | None = None) -> int:
        with self._lock:
            return sum(1 for r in self.requests if kind is None or kind_of(r) == kind)

    def __enter__(self) -> LLMTestServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
