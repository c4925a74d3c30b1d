"""A loopback HTTP server that speaks enough of the OpenAI API for the real `openai` SDK:
POST /v1/responses and /v1/chat/completions answer with scripted replies, in order."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


class ScriptedOpenAI:
    def __init__(self) -> None:
        self.replies: deque[tuple[int, dict[str, Any], dict[str, str]]] = deque()
        self.requests: list[tuple[str, dict[str, Any]]] = []
        # Seconds each answer waits, and how many requests were being answered at once.
        self.delay = 0.0
        self.in_flight = 0
        self.most_in_flight = 0
        self._lock = threading.Lock()
        handler = self._handler()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        # A short poll interval: shutdown waits for the next poll.
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def reply(
        self, body: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None
    ) -> None:
        self.replies.append((status, body, headers or {}))

    def _handler(self):
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                with scripted._lock:
                    scripted.in_flight += 1
                    scripted.most_in_flight = max(scripted.most_in_flight, scripted.in_flight)
                    scripted.requests.append(
                        (self.path, json.loads(self.rfile.read(length) or b"{}"))
                    )
                    status, body, headers = (
                        scripted.replies.popleft()
                        if scripted.replies
                        else (500, {"error": {"message": "no scripted reply left"}}, {})
                    )
                time.sleep(scripted.delay)
                with scripted._lock:
                    scripted.in_flight -= 1
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args) -> None:
                pass

        return Handler


def responses_body(
    answer: dict[str, Any] | str, citations=(), searches: int = 1, tokens=(1000, 200)
):
    """A /v1/responses answer whose output text is the answer (JSON unless it is text)."""
    output: list[dict[str, Any]] = [
        {
            "type": "web_search_call",
            "id": f"ws_{n}",
            "status": "completed",
            "action": {"type": "search", "query": "crop facts"},
        }
        for n in range(searches)
    ]
    text = answer if isinstance(answer, str) else json.dumps(answer)
    output.append(
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [
                {
                    "type": "output_text",
                    "text": text,
                    "annotations": [
                        {
                            "type": "url_citation",
                            "url": url,
                            "title": title,
                            "start_index": 0,
                            "end_index": 1,
                        }
                        for url, title in citations
                    ],
                }
            ],
        }
    )
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1700000000,
        "status": "completed",
        "model": "gpt-5-mini",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": tokens[0],
            "output_tokens": tokens[1],
            "total_tokens": sum(tokens),
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def chat_body(content: str, tokens=(500, 100)):
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "local",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
        "usage": {
            "prompt_tokens": tokens[0],
            "completion_tokens": tokens[1],
            "total_tokens": sum(tokens),
        },
    }


def schema_at(schema: dict[str, Any], *keys: str) -> dict[str, Any]:
    """The part of a sent JSON schema at a path of keys, following its $refs into $defs."""
    part = schema
    for key in keys:
        part = part[key]
        while "$ref" in part:
            part = schema["$defs"][part["$ref"].removeprefix("#/$defs/")]
    return part


def openai_settings(instance_path, server: ScriptedOpenAI, **env: str):
    """Settings for the openai provider pointed at the loopback server."""
    from webapp.config import load_settings

    return load_settings(
        {
            "FURROW_INSTANCE_PATH": str(instance_path),
            "FURROW_PROVIDER": "openai",
            "OPENAI_API_KEY": "sk-test",
            "OPENAI_BASE_URL": server.base_url,
            **env,
        }
    )


@pytest.fixture
def openai_server() -> Iterator[ScriptedOpenAI]:
    server = ScriptedOpenAI()
    server.thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


def responses_function_call(name: str, arguments: dict[str, Any], call_id: str = "call_1"):
    """A /v1/responses answer that asks us to run a function tool."""
    return {
        "id": "resp_fc",
        "object": "response",
        "created_at": 1700000000,
        "status": "completed",
        "model": "gpt-5-mini",
        "output": [
            {
                "type": "function_call",
                "id": f"fc_{call_id}",
                "call_id": call_id,
                "name": name,
                "arguments": json.dumps(arguments),
                "status": "completed",
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 300,
            "output_tokens": 20,
            "total_tokens": 320,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def chat_tool_call(name: str, arguments: dict[str, Any], call_id: str = "call_1"):
    """A chat completion that asks us to run a function tool."""
    body = chat_body("")
    body["choices"][0]["finish_reason"] = "tool_calls"
    body["choices"][0]["message"] = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }
    return body
