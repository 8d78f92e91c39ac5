"""JSONL transcript of a run: one JSON object per line, written and flushed per event.

Design notes
------------
* One file per run: ``<folder>/<run_id>.jsonl``.  Subagent runs get their own file in the same
  folder; their ``start`` event names the ``parent_run_id`` so a tree can be rebuilt.
* Every event is written with one ``write`` + ``flush`` so an interrupted process (Ctrl-C, a
  killed parent) loses nothing already said.  No fsync: the OS has the bytes once flushed, and
  an fsync per event would cost more than the whole loop (bench_runtime measures it).
* Events: ``start`` (agent, model, cwd, tools offered, system prompt), ``message`` (role and
  content blocks, exactly what the model sees), ``tool`` (name, duration, executed, is_error),
  ``stop`` (stop_reason, turns, usage, error).  Every event has ``ts`` (Unix time) and ``run``.
* The folder defaults to ``$SUBAGENTS_TRANSCRIPT_DIR`` or ``~/.subagents/transcripts``; files
  are created owner-only (0600), since they hold everything the agent read.
* Secrets: the transcript holds the conversation, never API keys (providers never pass them).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from subagents.providers.base import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)

__all__ = ["Transcript", "default_transcript_dir", "message_to_json"]


def default_transcript_dir() -> Path:
    env = os.environ.get("SUBAGENTS_TRANSCRIPT_DIR")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".subagents" / "transcripts"


def message_to_json(message: Message) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = []
    for b in message.content:
        if isinstance(b, TextBlock):
            blocks.append({"type": "text", "text": b.text})
        elif isinstance(b, ThinkingBlock):
            # kept whole: a resumed conversation must send it back (teams/turns.py reads it)
            think: dict[str, Any] = {"type": "thinking", "thinking": b.thinking,
                                     "signature": b.signature}
            if b.redacted is not None:
                think["redacted"] = b.redacted
            blocks.append(think)
        elif isinstance(b, ToolUseBlock):
            use: dict[str, Any] = {"type": "tool_use", "id": b.id, "name": b.name,
                                   "input": dict(b.input)}
            if b.arguments_error is not None:  # arguments that were not a JSON object
                use["raw_arguments"] = b.raw_arguments
                use["arguments_error"] = b.arguments_error
            blocks.append(use)
        elif isinstance(b, ToolResultBlock):
            blocks.append(
                {
                    "type": "tool_result",
                    "tool_use_id": b.tool_use_id,
                    "content": b.content,
                    "is_error": b.is_error,
                }
            )
    return {"role": message.role, "content": blocks}


class Transcript:
    """An append-only JSONL file; ``None`` path means "record nothing"."""

    def __init__(self, path: Path | None, run_id: str) -> None:
        self.path = path
        self.run_id = run_id
        self._fh: IO[str] | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Owner-only (0600): a transcript holds whatever the agent read, secrets included.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            # Line-buffered text file; we still flush explicitly after every event.
            self._fh = os.fdopen(fd, "a", encoding="utf-8", buffering=1)

    def event(self, type_: str, data: Mapping[str, Any] | None = None) -> None:
        if self._fh is None:
            return
        record: dict[str, Any] = {"type": type_, "ts": round(time.time(), 6), "run": self.run_id}
        if data:
            record.update(data)
        self._fh.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        self._fh.flush()

    def message(self, message: Message, **extra: Any) -> None:
        if self._fh is None:
            return
        self.event("message", {**message_to_json(message), **extra})

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    @property
    def closed(self) -> bool:
        return self._fh is None
