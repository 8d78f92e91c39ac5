"""The ``scripted`` provider: replies from a JSON script, for offline runs of the CLI.

``subagents run --provider scripted --script replies.json "..."`` drives a whole agent loop with
no network and no key.  The script is a JSON list (or ``{"replies": [...]}``); each entry is one
model reply::

    [
      {"tool": "Read", "input": {"file_path": "README.md"}, "say": "Reading it."},
      {"tool_calls": [{"name": "Grep", "input": {"pattern": "TODO"}},
                      {"name": "Glob", "input": {"pattern": "*.py"}}]},
      {"content": [], "stop_reason": "end_turn"},
      {"error": "connection", "message": "scripted outage"},
      "The README says hello."
    ]

A plain string (or ``{"text": ...}``) ends the turn with that text; ``tool``/``tool_calls``
call tools; ``content`` gives raw blocks (``text`` / ``tool_use``); ``error`` raises a provider
error (``connection``, ``response``, ``credentials``).  Any entry may carry ``usage``
(``{"input_tokens": n, "output_tokens": n}``) and ``id`` for a tool call.

Design decisions: it reuses :class:`subagents.providers.queue.ScriptedModel` (one implementation of
"a queue of replies"); a malformed script is a :class:`~subagents.errors.UsageError` that names
the reply and what is wrong with it; running out of replies is a
:class:`~subagents.errors.ProviderResponseError` (a clean CLI error, not an AssertionError
traceback).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from subagents.errors import (
    MissingCredentialsError,
    ProviderConnectionError,
    ProviderError,
    ProviderResponseError,
    UsageError,
)
from subagents.providers.base import (
    ModelRequest,
    ModelResponse,
    StopReason,
    TextBlock,
    ToolUseBlock,
    Usage,
)
from subagents.providers.queue import ScriptedModel, ScriptedReply, text

__all__ = ["ScriptModel", "load_script", "parse_script", "scripted_provider"]

_STOPS: frozenset[str] = frozenset(
    {"end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "error"}
)
_ERRORS: dict[str, type[ProviderError]] = {
    "connection": ProviderConnectionError,
    "response": ProviderResponseError,
    "credentials": MissingCredentialsError,
}


class ScriptModel(ScriptedModel):
    """A :class:`ScriptedModel` whose exhaustion is a clean provider error."""

    def __init__(
        self, replies: Iterable[ScriptedReply] = (), *, delay: float = 0.0, source: str = "script"
    ) -> None:
        super().__init__(replies, delay=delay)
        self.source = source
        self._total = self.remaining

    async def complete(self, request: ModelRequest) -> ModelResponse:
        if not self.remaining:
            raise ProviderResponseError(
                f"the scripted provider ran out of replies at request {len(self.requests) + 1} "
                f"({self.source} has {self._total})",
                hint="add replies to the script, or lower --max-turns",
            )
        return await super().complete(request)


def _fail(source: str, index: int | None, message: str) -> UsageError:
    where = f"{source}, reply {index + 1}" if index is not None else source
    return UsageError(
        f"bad script ({where}): {message}",
        hint="see `docs/providers.md` for the script format, e.g. "
        '[{"tool": "Read", "input": {"file_path": "a.txt"}}, "done"]',
    )


def _usage(entry: Mapping[str, Any], source: str, index: int) -> Usage | None:
    raw = entry.get("usage")
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise _fail(source, index, "`usage` must be an object")
    try:
        return Usage(int(raw.get("input_tokens", 0)), int(raw.get("output_tokens", 0)))
    except (TypeError, ValueError):
        raise _fail(source, index, "`usage` token counts must be whole numbers") from None


def _tool_input(value: Any, source: str, index: int) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _fail(source, index, "a tool call's `input` must be an object")
    return dict(value)


def _entry(entry: Any, source: str, index: int) -> ScriptedReply:
    if isinstance(entry, str):
        return text(entry)
    if not isinstance(entry, Mapping):
        raise _fail(source, index, f"expected a string or an object, got {type(entry).__name__}")
    usage = _usage(entry, source, index)
    if "error" in entry:
        kind = str(entry["error"])
        if kind not in _ERRORS:
            raise _fail(source, index, f"`error` must be one of {sorted(_ERRORS)}, not {kind!r}")
        return _ERRORS[kind](str(entry.get("message") or f"scripted {kind} error"))
    if "text" in entry:
        if not isinstance(entry["text"], str):
            raise _fail(source, index, "`text` must be a string")
        return text(entry["text"], usage=usage)
    if "tool" in entry:
        call_id = entry.get("id")
        calls = [{"name": entry["tool"], "input": entry.get("input"), "id": call_id}]
        return _calls(calls, str(entry.get("say") or ""), usage, source, index)
    if "tool_calls" in entry:
        raw_calls = entry["tool_calls"]
        if not isinstance(raw_calls, list) or not raw_calls:
            raise _fail(source, index, "`tool_calls` must be a non-empty list")
        return _calls(raw_calls, str(entry.get("say") or ""), usage, source, index)
    if "content" in entry:
        return _content(entry, usage, source, index)
    raise _fail(
        source, index, "an entry needs one of `text`, `tool`, `tool_calls`, `content`, `error`"
    )


def _calls(
    calls: list[Any], say: str, usage: Usage | None, source: str, index: int
) -> ModelResponse:
    blocks: list[TextBlock | ToolUseBlock] = [TextBlock(say)] if say else []
    for n, call in enumerate(calls):
        if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
            raise _fail(source, index, "each tool call needs a `name` string")
        # ids are deterministic (reply and call position) so transcripts diff cleanly
        call_id = str(call.get("id") or f"toolu_script_{index + 1}_{n + 1}")
        blocks.append(
            ToolUseBlock(call_id, call["name"], _tool_input(call.get("input"), source, index))
        )
    return ModelResponse(content=tuple(blocks), stop_reason="tool_use", usage=usage or Usage(10, 5))


def _content(
    entry: Mapping[str, Any], usage: Usage | None, source: str, index: int
) -> ModelResponse:
    raw = entry["content"]
    if not isinstance(raw, list):
        raise _fail(source, index, "`content` must be a list of blocks")
    blocks: list[TextBlock | ToolUseBlock] = []
    for n, block in enumerate(raw):
        kind = block.get("type") if isinstance(block, Mapping) else None
        if kind == "text" and isinstance(block.get("text"), str):
            blocks.append(TextBlock(block["text"]))
        elif kind == "tool_use" and isinstance(block.get("name"), str):
            call_id = str(block.get("id") or f"toolu_script_{index + 1}_{n + 1}")
            blocks.append(
                ToolUseBlock(call_id, block["name"], _tool_input(block.get("input"), source, index))
            )
        else:
            raise _fail(source, index, f"content block {n + 1} is not a text or tool_use block")
    has_calls = any(isinstance(b, ToolUseBlock) for b in blocks)
    stop = str(entry.get("stop_reason") or ("tool_use" if has_calls else "end_turn"))
    if stop not in _STOPS:
        raise _fail(source, index, f"`stop_reason` must be one of {sorted(_STOPS)}")
    stop_reason: StopReason = stop  # type: ignore[assignment]  # checked just above
    return ModelResponse(content=tuple(blocks), stop_reason=stop_reason, usage=usage or Usage())


def parse_script(data: Any, *, source: str = "script") -> list[ScriptedReply]:
    """A decoded JSON script -> replies for :class:`ScriptedModel` (UsageError if malformed)."""
    if isinstance(data, Mapping) and "replies" in data:
        data = data["replies"]
    if not isinstance(data, list):
        raise _fail(source, None, 'a script is a JSON list of replies (or {"replies": [...]})')
    return [_entry(entry, source, i) for i, entry in enumerate(data)]


def load_script(path: str | Path) -> list[ScriptedReply]:
    """Read and parse a JSON script file."""
    file = Path(path)
    try:
        raw = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(
            f"cannot read the script {file}: {exc.strerror or exc}",
            hint="pass --script with the path of a JSON list of replies",
        ) from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"the script {file} is not valid JSON: {exc.msg} at line {exc.lineno}, "
            f"column {exc.colno}"
        ) from None
    return parse_script(data, source=str(file))


def scripted_provider(
    *,
    script: str | Path | list[Any] | None = None,
    replies: Iterable[ScriptedReply] | None = None,
    delay: float = 0.0,
) -> ScriptModel:
    """The ``scripted`` provider: from a script file path, a decoded script list, or replies.

    ``script`` and ``replies`` may be combined (the script's replies come first).
    """
    queue: list[ScriptedReply] = []
    source = "script"
    if isinstance(script, (str, Path)):
        queue.extend(load_script(script))
        source = str(script)
    elif script is not None:
        queue.extend(parse_script(script))
    if replies is not None:
        queue.extend(replies)
    if script is None and replies is None:
        raise UsageError(
            "the scripted provider needs a script",
            hint="pass --script replies.json (a JSON list of replies; see docs/providers.md)",
        )
    return ScriptModel(queue, delay=delay, source=source)
