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
  Both tools are *egress*, not read-only (issue 12): what the model puts in a URL or a query
  leaves the machine, so each call needs permission (a ``WebFetch(domain:...)`` rule or the
  user's answer) and plan mode refuses them.  Every redirect hop of ``WebFetch`` is checked
  again: the agent's rules must allow the new URL, and a hop to another host is followed only
  if an allow rule covers it (otherwise the model is told where it leads, and may fetch that
  URL itself, which asks again).
* ``WebSearch`` has no built-in engine: pass ``backend`` — a callable ``(query) -> list of
  {"title", "url", "snippet"}`` — to enable it.
"""

from __future__ import annotations

import html
import re
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from typing import Any
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


class _RedirectRefused(Exception):
    pass


class _CheckedRedirects(urllib.request.HTTPRedirectHandler):
    """Each redirect hop is a new request: the domain rules judge it again."""

    def __init__(self, url: str, ctx: ToolContext) -> None:
        self.origin = (urlparse(url).hostname or "").lower()
        self.ctx = ctx

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> Any:
        target = urlparse(newurl)
        host = (target.hostname or "").lower()
        if target.scheme not in ("http", "https"):
            raise _RedirectRefused(f"the server redirected to {newurl!r}, which is not http(s); "
                                   "not followed")
        policy = self.ctx.policy
        if policy is not None:
            reason = policy.tools.refusal("WebFetch", {"url": newurl}, self.ctx.cwd)
            if reason:
                raise _RedirectRefused(f"the server redirected to {newurl}, which the rules do "
                                       f"not allow ({reason}); not followed")
            if host != self.origin and not policy.covers_url(newurl, self.ctx.cwd):
                raise _RedirectRefused(
                    f"the server redirected to another host: {newurl}; not followed (no allow "
                    "rule covers it). Fetch that URL itself if you need it: that asks again.")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class WebFetchTool(BlockingTool):
    name = "WebFetch"
    description = (
        "Fetch an http(s) URL and return its text content (HTML converted to text, capped). "
        "prompt says what you are looking for."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "url": {"type": "string", "minLength": 1},
            "prompt": {"type": "string"},
        },
        "required": ["url"],
        "additionalProperties": False,
    }
    read_only = False  # egress

    def __init__(self, *, timeout: float = 20.0) -> None:
        self.timeout = timeout

    def call(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        url = input["url"]
        if urlparse(url).scheme not in ("http", "https"):
            return ToolOutput.error(f"only http and https URLs can be fetched, not {url!r}")
        req = urllib.request.Request(url, headers={"User-Agent": "subagents-webfetch/1"})
        opener = urllib.request.build_opener(_CheckedRedirects(url, ctx))
        try:
            with opener.open(req, timeout=self.timeout) as resp:
                data = resp.read(MAX_DOWNLOAD + 1)
                ctype = resp.headers.get("Content-Type", "")
                charset = resp.headers.get_content_charset() or "utf-8"
        except _RedirectRefused as exc:
            return ToolOutput.error(str(exc))
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
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 2},
            "allowed_domains": {"type": "array", "items": {"type": "string"}},
            "blocked_domains": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    read_only = False  # egress: the query leaves the machine

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
