"""``WebFetch{url, prompt}`` and ``WebSearch{query, ...}``: present, but off unless configured.

Design notes
------------
* A run must not reach the network behind a user's back, so :func:`subagents.runtime.tools.
  builtin_tools` leaves these two out unless ``web=True`` (``WebFetch``) or a search backend
  (``WebSearch``) is configured.  Not offered means refused: a call is answered with
  ``is_error`` ("not available to this agent") and nothing is fetched.
* ``WebFetch`` uses the standard library (no extra dependency), only ``http``/``https``, a
  timeout, a 2 MiB download cap and a crude HTML-to-text pass; it returns the page text (capped
  at 50,000 characters) rather than asking a small model about it as Claude Code does; the
  ``prompt`` field is accepted and echoed so prompts written for Claude Code still validate.
  Both tools count as read-only (they change nothing locally).
* ``WebSearch`` has no built-in engine: pass ``backend`` — a callable ``(query) -> list of
  {"title", "url", "snippet"}`` — to enable it.
"""

from __future__ import annotations

import html
import re
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar
from urllib.parse import urlparse

from subagents.runtime.tools.base import BlockingTool, ToolContext, ToolOutput

__all__ = ["SearchBackend", "WebFetchTool", "WebSearchTool"]

MAX_DOWNLOAD = 2 * 1024 * 1024
MAX_OUTPUT_CHARS = 50_000

SearchBackend = Callable[[str], Sequence[Mapping[str, str]]]


def _html_to_text(text: str) -> str:
    text = re.sub(r"(?is)<(script|style|noscript)\b.*?</\1>", " ", text)
    text = re.sub(r"(?i)<br\s*/?>|</(p|div|li|h[1-6]|tr)>", "\n", text)
    text = re.sub(r"(?s)<[^>]+>", " ", text)
    text = html.unescape(text)
    text = re.sub(r"[ \t\r\f\v]+", " ", text)
    return re.sub(r"\n\s*\n+", "\n\n", text).strip()


class WebFetchTool(BlockingTool):
    name = "WebFetch"
    description = (
        "Fetch an http(s) URL and return its text content (HTML converted to text, capped). "
        "prompt says what you are looking for."
    )
    input_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {
            "url": {"type": "string", "minLength": 1},
            "prompt": {"type": "string"},
        },
        "required": ["url"],
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, *, timeout: float = 20.0) -> None:
        self.timeout = timeout

    def call(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        url = input["url"]
        if urlparse(url).scheme not in ("http", "https"):
            return ToolOutput.error(f"only http and https URLs can be fetched, not {url!r}")
        req = urllib.request.Request(url, headers={"User-Agent": "subagents-webfetch/1"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                data = resp.read(MAX_DOWNLOAD + 1)
                ctype = resp.headers.get("Content-Type", "")
                charset = resp.headers.get_content_charset() or "utf-8"
        except urllib.error.HTTPError as exc:
            return ToolOutput.error(f"{url} answered HTTP {exc.code} {exc.reason}")
        except (urllib.error.URLError, OSError, ValueError) as exc:
            return ToolOutput.error(f"cannot fetch {url}: {getattr(exc, 'reason', exc)}")
        text = data[:MAX_DOWNLOAD].decode(charset, errors="replace")
        if "html" in ctype:
            text = _html_to_text(text)
        if len(text) > MAX_OUTPUT_CHARS or len(data) > MAX_DOWNLOAD:
            text = text[:MAX_OUTPUT_CHARS] + "\n[content truncated]"
        head = f"Fetched {url}" + (f" (looking for: {input['prompt']})" if input.get("prompt")
                                   else "")
        return ToolOutput(f"{head}\n\n{text}")


class WebSearchTool(BlockingTool):
    name = "WebSearch"
    description = "Search the web; returns titles, URLs and snippets."
    input_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 2},
            "allowed_domains": {"type": "array", "items": {"type": "string"}},
            "blocked_domains": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, backend: SearchBackend | None = None) -> None:
        self.backend = backend

    def call(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        if self.backend is None:
            return ToolOutput.error("WebSearch has no search backend configured")
        allowed = [d.lower() for d in input.get("allowed_domains") or ()]
        blocked = [d.lower() for d in input.get("blocked_domains") or ()]
        lines: list[str] = []
        for hit in self.backend(input["query"]):
            host = (urlparse(hit.get("url", "")).hostname or "").lower()
            if allowed and not any(host == d or host.endswith("." + d) for d in allowed):
                continue
            if any(host == d or host.endswith("." + d) for d in blocked):
                continue
            lines.append(f"- {hit.get('title', '')} <{hit.get('url', '')}>\n  "
                         f"{hit.get('snippet', '')}")
        return ToolOutput("\n".join(lines) if lines else "No results")
