"""The scripted model server, driven with plain http.client (real CLIs: test_agents_e2e.py)."""

from __future__ import annotations

import http.client
import json
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import pytest

from ralph_verify.testing.server import (
    EXHAUSTED_TEXT,
    Fail,
    ModelServer,
    RecordedRequest,
    Reply,
    aider_whole,
    claude_write,
    codex_exec,
    text,
    tool,
)


def post(url: str, path: str, body: Any, raw: bytes | None = None,
         connection: http.client.HTTPConnection | None = None
         ) -> tuple[int, str, bytes]:
    parts = urlsplit(url)
    conn = connection or http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    payload = raw if raw is not None else json.dumps(body).encode()
    conn.request("POST", path, body=payload, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    data = response.read()
    if connection is None:
        conn.close()
    return response.status, response.getheader("Content-Type") or "", data


def sse_events(data: bytes) -> list[dict[str, Any]]:
    """The ``data:`` payloads of a server-sent event stream (``[DONE]`` dropped)."""
    events = []
    for line in data.decode().splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            events.append(json.loads(line[len("data: "):]))
    return events


def test_refuses_to_bind_anything_but_loopback() -> None:
    for host in ("0.0.0.0", "::", "localhost", "192.168.1.10"):
        with pytest.raises(ValueError, match=r"only to 127\.0\.0\.1"):
            ModelServer(host=host)
    with ModelServer() as server:
        assert server.url.startswith("http://127.0.0.1:")
        assert not server.url.endswith(":0")


def test_anthropic_json_reply_and_request_log(model_server: ModelServer) -> None:
    model_server.script(text("hello there"))
    status, ctype, data = post(model_server.url, "/v1/messages",
                               {"model": "m1", "max_tokens": 5,
                                "messages": [{"role": "user", "content": "hi"}]})
    assert (status, ctype) == (200, "application/json")
    message = json.loads(data)
    assert message["type"] == "message" and message["model"] == "m1"
    assert message["content"] == [{"type": "text", "text": "hello there"}]
    assert message["stop_reason"] == "end_turn"
    assert message["usage"]["input_tokens"] > 0 and message["usage"]["output_tokens"] > 0
    [request] = model_server.requests
    assert (request.api, request.step, request.path, request.error) == (
        "anthropic", 0, "/v1/messages", None)
    assert request.body["messages"][0]["content"] == "hi"
    assert request.last_user_text() == "hi"
    assert model_server.steps_left == 0


def test_anthropic_stream_tool_use_with_cwd_from_system_prompt(model_server: ModelServer) -> None:
    model_server.script(claude_write("src/app.py", "x = '{cwd}'\n"))
    body = {
        "model": "claude-x", "stream": True,
        "system": [{"type": "text", "text": "You are...\nPrimary working directory: /w/proj\n"}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "go"}]},
                     # Claude Code sends system messages mid-conversation: accepted as is.
                     {"role": "system", "content": "a reminder"}],
    }
    status, ctype, data = post(model_server.url, "/v1/messages?beta=true", body)
    assert (status, ctype) == (200, "text/event-stream")
    events = sse_events(data)
    kinds = [event["type"] for event in events]
    assert kinds == ["message_start", "content_block_start", "content_block_delta",
                     "content_block_stop", "message_delta", "message_stop"]
    block = events[1]["content_block"]
    assert block["type"] == "tool_use" and block["name"] == "Write"
    arguments = json.loads(events[2]["delta"]["partial_json"])
    assert arguments == {"file_path": "/w/proj/src/app.py", "content": "x = '/w/proj'\n"}
    assert events[4]["delta"]["stop_reason"] == "tool_use"
    [request] = model_server.requests
    assert request.query == "beta=true" and request.stream and request.cwd == "/w/proj"
    assert "a reminder" in request.text


def test_responses_stream_function_call_and_text(model_server: ModelServer) -> None:
    model_server.script(codex_exec("cd {cwd} && pytest -q"), text("done"))
    user = {"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "<environment_context>\n  <cwd>/p/q</cwd>\n"},
        {"type": "input_text", "text": "fix it"}]}
    status, ctype, data = post(model_server.url, "/v1/responses",
                               {"model": "gpt-x", "stream": True, "input": [user]})
    assert (status, ctype) == (200, "text/event-stream")
    events = sse_events(data)
    assert events[0]["type"] == "response.created"
    assert events[-1]["type"] == "response.completed"
    assert events[-1]["response"]["usage"]["total_tokens"] > 0
    [done] = [event for event in events if event["type"] == "response.output_item.done"]
    assert done["item"]["type"] == "function_call" and done["item"]["name"] == "exec_command"
    assert json.loads(done["item"]["arguments"]) == {"cmd": "cd /p/q && pytest -q"}
    assert done["item"]["call_id"]
    assert model_server.requests[0].last_user_text() == (
        "<environment_context>\n  <cwd>/p/q</cwd>\n\nfix it")

    status, _, data = post(model_server.url, "/v1/responses",
                           {"model": "gpt-x", "input": [user], "stream": False})
    response = json.loads(data)
    assert response["object"] == "response" and response["status"] == "completed"
    assert response["output"][0]["content"][0]["text"] == "done"


def test_chat_completions_json_and_stream(model_server: ModelServer) -> None:
    model_server.script(aider_whole("calc.py", "def add(a, b):\n    return a + b"),
                        Reply(text="calling", tool_calls=()), text("streamed"))
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "fix"}]
    _, ctype, data = post(model_server.url, "/v1/chat/completions",
                          {"model": "gpt-y", "messages": messages})
    assert ctype == "application/json"
    completion = json.loads(data)
    content = completion["choices"][0]["message"]["content"]
    assert content == "calc.py\n```\ndef add(a, b):\n    return a + b\n```\n"
    assert completion["choices"][0]["finish_reason"] == "stop"
    assert completion["usage"]["prompt_tokens"] > 0

    post(model_server.url, "/v1/chat/completions", {"model": "gpt-y", "messages": messages})
    _, ctype, data = post(model_server.url, "/v1/chat/completions",
                          {"model": "gpt-y", "messages": messages, "stream": True})
    assert ctype == "text/event-stream" and data.endswith(b"data: [DONE]\n\n")
    chunks = sse_events(data)
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks) == "streamed"
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert [r.step for r in model_server.requests] == [0, 1, 2]


def test_fail_steps_answer_api_errors_in_each_shape(model_server: ModelServer) -> None:
    model_server.script(Fail(400, "too long"), Fail(429, "slow down"), lambda _: Fail(500))
    status, _, data = post(model_server.url, "/v1/messages", {"model": "m", "messages": []})
    assert status == 400
    assert json.loads(data) == {"type": "error", "error": {
        "type": "invalid_request_error", "message": "too long"}}
    status, _, data = post(model_server.url, "/v1/responses", {"model": "m", "input": []})
    assert status == 429 and json.loads(data)["error"]["type"] == "rate_limit_error"
    status, _, data = post(model_server.url, "/v1/chat/completions", {"messages": []})
    assert status == 500 and json.loads(data)["error"]["message"] == "scripted failure"
    assert [r.step for r in model_server.requests] == [0, 1, 2]


def test_callable_step_sees_the_request(model_server: ModelServer) -> None:
    def answer(request: RecordedRequest) -> Reply:
        return text(f"you said {request.last_user_text()!r} in {{cwd}}")

    model_server.cwd = "/fallback"
    model_server.script(answer)
    _, _, data = post(model_server.url, "/v1/messages",
                      {"model": "m", "messages": [{"role": "user", "content": "ping"}]})
    assert json.loads(data)["content"][0]["text"] == "you said 'ping' in /fallback"


def test_exhausted_script_unknown_paths_and_bad_json_are_recorded(
        model_server: ModelServer) -> None:
    _, _, data = post(model_server.url, "/v1/messages",
                      {"model": "m", "messages": [{"role": "user", "content": "more?"}]})
    assert json.loads(data)["content"][0]["text"] == EXHAUSTED_TEXT
    status, _, data = post(model_server.url, "/v1/messages/count_tokens", {"messages": []})
    assert status == 200 and json.loads(data)["input_tokens"] >= 1
    status, _, _ = post(model_server.url, "/v1/models", {})
    assert status == 404
    status, _, _ = post(model_server.url, "/v1/messages", None, raw=b"{not json")
    assert status == 400
    errors = [request.error for request in model_server.errors]
    assert errors == ["no more scripted steps (request 1)",
                      "not a model endpoint: POST /v1/models",
                      "the request body is not a JSON object"]
    assert [r.api for r in model_server.model_requests()] == ["anthropic", "anthropic"]


def test_stop_closes_keep_alive_connections_and_joins_threads() -> None:
    before = threading.active_count()
    server = ModelServer([text("one"), text("two")]).start()
    parts = urlsplit(server.url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    body = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
    post(server.url, "/v1/messages", body, connection=conn)
    post(server.url, "/v1/messages", body, connection=conn)  # the same connection, kept alive
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 5
    assert threading.active_count() == before
    with pytest.raises(OSError):
        post(f"http://127.0.0.1:{parts.port}", "/v1/messages", body)
    conn.close()
    server.stop()  # a second stop is harmless
    with pytest.raises(RuntimeError, match="not started"):
        _ = server.url



def test_gemini_generate_content_in_its_three_shapes(model_server: ModelServer) -> None:
    """Gemini CLI streams with ``alt=sse``; the API also answers a JSON array (stream without
    SSE) and a single ``GenerateContentResponse``; the model comes from the path."""
    model_server.script(text("hi"), tool("write_file", file_path="{cwd}/a.py", content="x"),
                        text("done"), Fail(404, "models/nope is not found"))
    body = {"contents": [{"role": "user", "parts": [{"text": "go"}]}],
            "systemInstruction": {"parts": [{"text": "- **Workspace Directories:**\n  - /w\n"}]}}
    base = "/v1beta/models/gemini-x"
    status, kind, data = post(model_server.url, f"{base}:generateContent", body)
    assert (status, kind) == (200, "application/json")
    reply = json.loads(data)
    assert reply["candidates"][0]["content"]["parts"] == [{"text": "hi"}]
    assert reply["modelVersion"] == "gemini-x" and reply["usageMetadata"]["totalTokenCount"] > 0
    status, kind, data = post(model_server.url, f"{base}:streamGenerateContent?alt=sse", body)
    assert (status, kind) == (200, "text/event-stream")
    event = json.loads(data.decode().split("data: ", 1)[1])
    call = event["candidates"][0]["content"]["parts"][0]["functionCall"]
    assert call["name"] == "write_file" and call["args"] == {"file_path": "/w/a.py",
                                                             "content": "x"}
    status, kind, data = post(model_server.url, f"{base}:streamGenerateContent", body)
    assert json.loads(data)[0]["candidates"][0]["content"]["parts"] == [{"text": "done"}]
    status, _, data = post(model_server.url, f"{base}:streamGenerateContent?alt=sse", body)
    assert status == 404 and json.loads(data)["error"]["status"] == "NOT_FOUND"
    status, _, data = post(model_server.url, f"{base}:countTokens", body)
    assert status == 200 and json.loads(data)["totalTokens"] > 0
    requests = model_server.model_requests("gemini")
    assert len(requests) == 4 and requests[0].last_user_text() == "go"
    assert requests[1].cwd == "/w"
