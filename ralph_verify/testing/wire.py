"""Wire formats of the scripted model server: one :class:`Reply` rendered for Anthropic
Messages, OpenAI Responses, OpenAI Chat Completions and Gemini, as JSON or streamed events
(sent whole, with a length). Token counts are a deterministic estimate (4 bytes a token)."""

from __future__ import annotations

import itertools
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ralph_verify.testing.script import Reply

SSE = "text/event-stream"
JSON = "application/json"
_ids = itertools.count(1)


def api_of(method: str, path: str) -> str | None:
    """Which model API a request path is, or None."""
    if method != "POST":
        return None
    if path.endswith("/messages"):
        return "anthropic"
    if path.endswith("/responses"):
        return "responses"
    if path.endswith("/chat/completions"):
        return "chat"
    if path.endswith((":generateContent", ":streamGenerateContent")):
        return "gemini"
    return None


def count_tokens(data: bytes | str) -> int:
    return max(1, len(data) // 4)


def render(api: str, reply: Reply, body: dict[str, Any], raw: bytes,
           path: str = "", query: str = "") -> tuple[str, bytes]:
    """``(content type, payload)`` answering ``body`` with ``reply``."""
    model = str(body.get("model") or "ralph-test-model")
    usage = (count_tokens(raw), count_tokens(reply.text + "".join(
        json.dumps(call.arguments) for call in reply.tool_calls)))
    stream = bool(body.get("stream"))
    if api == "gemini":
        model = path.rsplit("/", 1)[-1].split(":", 1)[0] or model
        response = _gemini_response(reply, model, usage)
        if not path.endswith(":streamGenerateContent"):
            return JSON, json_bytes(response)
        if "alt=sse" in query:
            return SSE, f"data: {json.dumps(response)}\r\n\r\n".encode()
        return JSON, json_bytes([response])
    whole, events = _FORMATS[api]
    answer = whole(reply, model, usage)
    return (SSE, events(answer)) if stream else (JSON, json_bytes(answer))


def render_error(api: str, status: int, message: str) -> bytes:
    """An error body as the API sends it."""
    kind = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
            404: "not_found_error", 429: "rate_limit_error",
            529: "overloaded_error"}.get(status, "api_error")
    if api == "anthropic":
        return json_bytes({"type": "error", "error": {"type": kind, "message": message}})
    if api == "gemini":
        return json_bytes({"error": {"code": status, "message": message, "status": {
            400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
            404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED"}.get(status, "INTERNAL")}})
    return json_bytes({"error": {"message": message, "type": kind, "param": None, "code": None}})


def json_bytes(value: Any) -> bytes:
    return json.dumps(value).encode("utf-8")


def _sse(events: list[dict[str, Any]], named: bool = True) -> bytes:
    lines = []
    for event in events:
        if named:
            lines.append(f"event: {event['type']}")
        lines.append(f"data: {json.dumps(event)}\n")
    return ("\n".join(lines) + "\n").encode("utf-8")


# --- Anthropic Messages ------------------------------------------------------------------


def _anthropic_message(reply: Reply, model: str, usage: tuple[int, int]) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.text or not reply.tool_calls:
        content.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        content.append({"type": "tool_use", "id": f"toolu_ralph{next(_ids):06d}",
                        "name": call.name, "input": call.arguments})
    return {
        "id": f"msg_ralph{next(_ids):06d}", "type": "message", "role": "assistant",
        "model": model, "content": content,
        "stop_reason": "tool_use" if reply.tool_calls else "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1],
                  "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
    }


def _anthropic_events(message: dict[str, Any]) -> bytes:
    start = {**message, "content": [], "stop_reason": None,
             "usage": {**message["usage"], "output_tokens": 1}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            events.append({"type": "content_block_start", "index": index,
                           "content_block": {"type": "text", "text": ""}})
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            events.append({"type": "content_block_start", "index": index,
                           "content_block": {**block, "input": {}}})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})
    events.append({"type": "message_delta",
                   "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                   "usage": {"output_tokens": message["usage"]["output_tokens"]}})
    events.append({"type": "message_stop"})
    return _sse(events)


# --- OpenAI Responses --------------------------------------------------------------------


def _responses_response(reply: Reply, model: str, usage: tuple[int, int]) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    if reply.text or not reply.tool_calls:
        output.append({"type": "message", "id": f"msg_ralph{next(_ids):06d}", "role": "assistant",
                       "status": "completed",
                       "content": [{"type": "output_text", "text": reply.text,
                                    "annotations": []}]})
    for call in reply.tool_calls:
        number = next(_ids)
        output.append({"type": "function_call", "id": f"fc_ralph{number:06d}",
                       "call_id": f"call_ralph{number:06d}", "name": call.name,
                       "arguments": json.dumps(call.arguments), "status": "completed"})
    return {
        "id": f"resp_ralph{next(_ids):06d}", "object": "response", "status": "completed",
        "model": model, "output": output,
        "usage": {"input_tokens": usage[0], "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": usage[1], "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": usage[0] + usage[1]},
    }


def _responses_events(response: dict[str, Any]) -> bytes:
    created = {key: value for key, value in response.items() if key not in ("output", "usage")}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**created, "status": "in_progress"}}]
    for index, item in enumerate(response["output"]):
        events.append({"type": "response.output_item.added", "output_index": index,
                       "item": {**item, "status": "in_progress"}})
        if item["type"] == "message":
            events.append({"type": "response.output_text.delta", "output_index": index,
                           "item_id": item["id"], "content_index": 0,
                           "delta": item["content"][0]["text"]})
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append({"type": "response.completed", "response": response})
    return _sse(events)


# --- OpenAI Chat Completions -------------------------------------------------------------


def _chat_completion(reply: Reply, model: str, usage: tuple[int, int]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": f"call_ralph{next(_ids):06d}", "type": "function",
             "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}
            for call in reply.tool_calls]
    return {
        "id": f"chatcmpl-ralph{next(_ids):06d}", "object": "chat.completion", "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                  "total_tokens": usage[0] + usage[1]},
    }


def _chat_chunks(completion: dict[str, Any]) -> bytes:
    choice = completion["choices"][0]
    base = {key: completion[key] for key in ("id", "created", "model")}
    base["object"] = "chat.completion.chunk"
    delta: dict[str, Any] = {"role": "assistant", "content": choice["message"]["content"]}
    if "tool_calls" in choice["message"]:
        delta["tool_calls"] = [{**call, "index": i}
                               for i, call in enumerate(choice["message"]["tool_calls"])]
    chunks = [
        {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}],
         "usage": completion["usage"]},
    ]
    data = b"".join(f"data: {json.dumps(chunk)}\n\n".encode() for chunk in chunks)
    return data + b"data: [DONE]\n\n"


# --- Gemini API ------------------------------------------------------------------------


def _gemini_response(reply: Reply, model: str, usage: tuple[int, int]) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    if reply.text or not reply.tool_calls:
        parts.append({"text": reply.text})
    for call in reply.tool_calls:
        parts.append({"functionCall": {"id": f"call_ralph{next(_ids):06d}", "name": call.name,
                                       "args": call.arguments}})
    return {
        "candidates": [{"content": {"role": "model", "parts": parts},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": usage[0], "candidatesTokenCount": usage[1],
                          "totalTokenCount": usage[0] + usage[1]},
        "modelVersion": model, "responseId": f"resp_ralph{next(_ids):06d}",
    }


#: Each API but Gemini's: its whole answer, and that answer as streamed events.
_FORMATS = {"anthropic": (_anthropic_message, _anthropic_events),
            "responses": (_responses_response, _responses_events),
            "chat": (_chat_completion, _chat_chunks)}
