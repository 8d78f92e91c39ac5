"""The pygls language server behind ``subagents lsp``.

Design notes
------------
* Diagnostics on open, change and save.  A change waits ``debounce`` seconds (another change
  restarts the wait), then the check runs in one worker thread, so the event loop keeps
  reading the editor's messages (typing, completion, hover) while a rule is slow.  Stale work
  is cancelled: a change during the wait cancels the wait, a check still queued behind another
  is dropped, and the result of a check that finishes after the text changed again is never
  published (the newer check publishes).  One worker: checks never race on a document's copy.
* Positions: findings are in code points on the text split at ``\\n``; they are turned into
  the encoding agreed at ``initialize`` (UTF-16 unless the client offers another) here, on the
  same lines, so a line with emoji or CRLF endings still underlines the right characters.
* Bad input never stops the server and never prints a traceback: text that is not JSON gets a
  ``-32700`` error response (id ``null``), a JSON value that is not a JSON-RPC message
  ``-32600``, a request whose parameters do not fit the method ``-32602`` with its id, an
  unknown request ``-32601`` (pygls); unknown notifications are ignored, as the protocol says.
  pygls's own log goes to stderr as one line per error (no tracebacks), since an editor shows
  stderr to the user.
* A document that is not an agent file (see :func:`subagents.lsp.analysis.agent_dialect`) gets
  no diagnostics, hover or completion; a document larger than the configured
  ``max-file-size`` gets the size finding only (the check stats the copy before reading it),
  and no code actions.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from subagents import __version__
from subagents.definition import Dialect
from subagents.diagnostics import Severity
from subagents.lsp.analysis import Action, Checker, Finding, agent_dialect, code_actions
from subagents.lsp.assist import completions, hover_text

__all__ = ["AgentLanguageServer", "build_server", "serve"]

_SEVERITY = {Severity.ERROR: lsp.DiagnosticSeverity.Error,
             Severity.WARNING: lsp.DiagnosticSeverity.Warning,
             Severity.INFO: lsp.DiagnosticSeverity.Information}
_KINDS = {"field": lsp.CompletionItemKind.Field, "tool": lsp.CompletionItemKind.Function,
          "value": lsp.CompletionItemKind.EnumMember, "event": lsp.CompletionItemKind.Event}
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


class _Rejected:
    """A message that is JSON but does not fit the protocol (in place of the parsed one)."""

    def __init__(self, msg_id: Any, error: JsonRpcException) -> None:
        self.msg_id = msg_id if isinstance(msg_id, (int, str)) and not isinstance(
            msg_id, bool) else None
        self.error = error


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, answering malformed messages instead of only logging them."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            return _Rejected(data.get("id") if "method" in data else None, exc)

    def handle_message(self, message: Any) -> None:
        if isinstance(message, _Rejected):
            if message.msg_id is not None:  # a notification gets no answer, even an error
                self._send_response(message.msg_id, None, message.error.to_response_error())
            return
        if not hasattr(message, "jsonrpc"):  # JSON, but not a JSON-RPC message
            msg_id = message.get("id") if isinstance(message, dict) else None
            self._send_error(msg_id if isinstance(msg_id, (int, str)) else None,
                             INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message")
            return
        super().handle_message(message)

    def _send_error(self, msg_id: int | str | None, code: int, message: str) -> None:
        self._send_data({"jsonrpc": "2.0", "id": msg_id,
                         "error": {"code": code, "message": message}})


class AgentLanguageServer(LanguageServer):
    """The server: the workspace's documents, their last findings, the pending checks."""

    def __init__(self, *, debounce: float = 0.2, strict: bool = False) -> None:
        super().__init__("subagents", __version__, protocol_cls=_Protocol,
                         text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.debounce = debounce
        self.strict = strict
        self.checker = Checker()
        self.findings: dict[str, list[Finding]] = {}
        self._pending: dict[str, asyncio.Task[None]] = {}
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="subagents-check")

    def report_server_error(self, error: Exception, source: Any) -> None:
        # The read loop reports a body it could not even parse with the base class as source.
        if source is JsonRpcException and isinstance(self.protocol, _Protocol):
            self.protocol._send_error(None, PARSE_ERROR, f"Parse error: {_one_line(error)}")
        logging.getLogger("pygls").error("%s", _one_line(error))

    def shutdown(self) -> None:
        super().shutdown()  # type: ignore[no-untyped-call]
        self._worker.shutdown(wait=False, cancel_futures=True)
        self.checker.close()

    # ------------------------------------------------------------------ documents and checks

    def document(self, uri: str) -> tuple[str, Path, Dialect] | None:
        """(text, path, dialect) of an open agent document; None for anything else."""
        doc = self.workspace.text_documents.get(unquote(uri))
        if doc is None:
            return None
        fs_path = to_fs_path(uri)
        dialect = agent_dialect(fs_path) if fs_path else None
        if fs_path is None or dialect is None:
            return None
        return doc.source, Path(fs_path), dialect

    def schedule(self, uri: str, delay: float) -> None:
        old = self._pending.pop(uri, None)
        if old is not None:
            old.cancel()
        self._pending[uri] = asyncio.ensure_future(self._check_later(uri, delay))

    def forget(self, uri: str) -> None:
        old = self._pending.pop(uri, None)
        if old is not None:
            old.cancel()
        self.findings.pop(uri, None)
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri,
                                                                            diagnostics=[]))

    async def _check_later(self, uri: str, delay: float) -> None:
        try:
            await asyncio.sleep(delay)
            doc = self.workspace.text_documents.get(unquote(uri))
            found = self.document(uri)
            if doc is None or found is None:
                return
            text, path, _dialect = found
            version = doc.version
            loop = asyncio.get_running_loop()
            findings = await loop.run_in_executor(
                self._worker, lambda: self.checker.check(path, text, strict=self.strict))
            now = self.workspace.text_documents.get(unquote(uri))
            if now is None or now.version != version or now.source != text:
                return  # stale: a newer check is on its way
            self.findings[uri] = findings
            lines = text.split("\n")
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
                uri=uri, version=version,
                diagnostics=[self._diagnostic(f, lines) for f in findings]))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug in a rule must not stop the server
            logging.getLogger("pygls").error("checking %s failed: %s", uri, _one_line(exc))
        finally:
            if self._pending.get(uri) is asyncio.current_task():
                del self._pending[uri]

    # ------------------------------------------------------------------ positions

    @property
    def _encoding(self) -> str:
        return str(self.workspace.position_encoding or lsp.PositionEncodingKind.Utf16)

    def to_client(self, lines: Sequence[str], line: int, column: int) -> lsp.Position:
        text = lines[line] if 0 <= line < len(lines) else ""
        return lsp.Position(line=line, character=_units(text[:column], self._encoding))

    def from_client(self, lines: Sequence[str], pos: lsp.Position) -> tuple[int, int]:
        """(line, code-point column) of a client position."""
        line = pos.line
        text = lines[line] if 0 <= line < len(lines) else ""
        want, used, column = pos.character, 0, 0
        for ch in text:
            step = _units(ch, self._encoding)
            if used + step > want:
                break
            used += step
            column += 1
        return line, column

    def _diagnostic(self, f: Finding, lines: Sequence[str]) -> lsp.Diagnostic:
        d = f.diagnostic
        message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        return lsp.Diagnostic(
            range=lsp.Range(start=self.to_client(lines, f.line, f.start),
                            end=self.to_client(lines, f.line, f.end)),
            message=message, severity=_SEVERITY[d.severity], code=d.rule, source="subagents",
            data={"rule": d.rule, "line": f.line, "start": f.start})

    def _edit(self, lines: Sequence[str], action: Action) -> lsp.WorkspaceEdit:
        edits = []
        for e in action.edits:
            end = (self.to_client(lines, e.end, e.end_column) if e.end_column is not None
                   else lsp.Position(line=e.end, character=0))
            edits.append(lsp.TextEdit(range=lsp.Range(
                start=lsp.Position(line=e.start, character=0), end=end), new_text=e.text))
        return lsp.WorkspaceEdit(changes={"": edits})


def _units(text: str, encoding: str) -> int:
    if encoding == lsp.PositionEncodingKind.Utf32:
        return len(text)
    if encoding == lsp.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:300]


class _OneLine(logging.Handler):
    """pygls's log on stderr, one line per record, never a traceback."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            first = record.getMessage().strip().splitlines()
            sys.stderr.write(f"subagents lsp: {first[0] if first else record.levelname}\n")
            sys.stderr.flush()
        except Exception:  # logging must never be the thing that fails
            pass


def _quiet_logs(level: int = logging.ERROR) -> None:
    for name in ("pygls", "lsprotocol", "asyncio"):
        log = logging.getLogger(name)
        log.handlers[:] = [_OneLine(level)]
        log.propagate = False
        log.setLevel(level)


def build_server(*, debounce: float = 0.2, strict: bool = False) -> AgentLanguageServer:
    """A server with every feature registered (not started)."""
    server = AgentLanguageServer(debounce=debounce, strict=strict)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: AgentLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: AgentLanguageServer,
                         params: lsp.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, ls.debounce)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: AgentLanguageServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)  # the configuration may have changed too

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: AgentLanguageServer,
                        params: lsp.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: AgentLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
        found = ls.document(params.text_document.uri)
        if found is None:
            return None
        text, path, dialect = found
        lines = text.split("\n")
        line, column = ls.from_client(lines, params.position)
        config, _problem = ls.checker.settings(path)
        value = hover_text(lines, line, column, dialect,
                           ls.findings.get(params.text_document.uri, ()),
                           version=config.claude_code)
        if value is None:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=value))

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION,
                    lsp.CompletionOptions(trigger_characters=[":", " ", "-", ","]))
    def completion(ls: AgentLanguageServer,
                   params: lsp.CompletionParams) -> lsp.CompletionList | None:
        found = ls.document(params.text_document.uri)
        if found is None:
            return None
        text, path, dialect = found
        lines = text.split("\n")
        line, column = ls.from_client(lines, params.position)
        config, _problem = ls.checker.settings(path)
        items = completions(lines, line, column, dialect, version=config.claude_code,
                            extra_tools=config.extra_tools)
        return lsp.CompletionList(is_incomplete=False, items=[
            lsp.CompletionItem(label=c.label, kind=_KINDS[c.kind], detail=c.detail or None,
                               documentation=lsp.MarkupContent(
                                   kind=lsp.MarkupKind.Markdown, value=c.documentation)
                               if c.documentation else None)
            for c in items])

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(
        code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.SourceFixAll]))
    async def code_action(ls: AgentLanguageServer,
                          params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
        uri = params.text_document.uri
        found = ls.document(uri)
        if found is None:
            return None
        text, path, _dialect = found
        config, _problem = ls.checker.settings(path)
        if len(text) > config.max_file_size:
            return []  # too large to read is too large to repair
        lines = text.split("\n")
        first = ls.from_client(lines, params.range.start)[0]
        last = ls.from_client(lines, params.range.end)[0]
        here = [f for f in ls.findings.get(uri, ()) if first <= f.line <= last]
        loop = asyncio.get_running_loop()
        actions = await loop.run_in_executor(
            None, lambda: code_actions(path, text, here, claude_code=config.claude_code))
        wanted = params.context.only
        out: list[lsp.CodeAction] = []
        for a in actions:
            kind = (lsp.CodeActionKind.SourceFixAll if a.kind == "source.fixAll"
                    else lsp.CodeActionKind.QuickFix)
            if wanted and not any(kind.value.startswith(getattr(w, "value", w)) for w in wanted):
                continue
            edit = ls._edit(lines, a)
            edit.changes = {uri: edit.changes[""]} if edit.changes else None
            out.append(lsp.CodeAction(title=a.title, kind=kind, edit=edit,
                                      is_preferred=a.preferred or None,
                                      diagnostics=[ls._diagnostic(f, lines)
                                                   for f in a.diagnostics] or None))
        return out

    return server


def serve(*, debounce: float = 0.2, strict: bool = False) -> None:
    """Run the server on stdin/stdout until the client says ``exit`` (or closes stdin)."""
    _quiet_logs()
    server = build_server(debounce=debounce, strict=strict)
    server.start_io()
