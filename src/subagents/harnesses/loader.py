"""Loading agent definitions: file -> text -> fields -> :class:`AgentDefinition`.

``read_agent_file`` and ``parse_agent_text`` never raise for bad input: they return a
:class:`LoadResult` whose ``diagnostics`` say what is wrong and where (file lines, 1-based).
``load_agent`` is the strict front door for callers that want a definition or an exception.

Guards, in order (issue "Read, judge and repair"): the size limit is checked with ``stat``
before the file is read, and at most ``max_bytes + 1`` bytes are
ever read; binary content and non-UTF-8 are refused with the line of the first bad byte; a
UTF-8 BOM is stripped and CRLF accepted.  The dialect comes from the location
(:func:`detect_dialect`); another harness's file (Codex TOML, Gemini, OpenCode, Copilot, ...) is
read by that harness's own faithful reader (:mod:`subagents.harnesses`), the one every command
uses: the agents it loads are the definitions, its findings the diagnostics (one severity rule,
:func:`severity_of`).  Claude Code's and codex-md's Markdown is read by the strict reader
(positions); the harness of the dialect then adds its own reading of the same bytes
(:meth:`Harness.emulate <subagents.harnesses.base.Harness.emulate>`: Claude Code's emulation)
and says what loads (:meth:`Harness.loaded <subagents.harnesses.base.Harness.loaded>`, asked
by :attr:`LoadResult.loaded`).  This module never tests for Claude Code.

The severities given here are the readers' defaults; ``subagents.lint.validate`` re-maps every
diagnostic through the rule catalogue for the chosen profile.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from subagents._dataclass import dataclass
from subagents.definition import AgentDefinition, Dialect
from subagents.diagnostics import Diagnostic, Severity
from subagents.errors import DefinitionError
from subagents.formats.frontmatter import FrontmatterDocument, decode_parts
from subagents.formats.jsonfile import read_json_text
from subagents.formats.markdown import read_markdown_text
from subagents.formats.yamltree import YamlIssue
from subagents.harnesses.table import HARNESS_NAMES, OWN_READERS, dialect_of_folder

TYPE_CHECKING = False
if TYPE_CHECKING:  # imported when another harness's file is read
    from subagents.claude_code.reader import ClaudeCodeView
    from subagents.harnesses.base import Effect, Harness, HarnessAgent

__all__ = [
    "DEFAULT_MAX_BYTES",
    "JSON_MAX_BYTES",
    "LoadResult",
    "detect_dialect",
    "harness_diagnostics",
    "load_agent",
    "parse_agent_text",
    "read_agent_file",
    "read_with_harness",
    "severity_of",
]

DEFAULT_MAX_BYTES = 1 << 20
#: The size cap of an ``agents.json`` store (it holds many agents).
JSON_MAX_BYTES = 64 << 20

# Reader codes that are not errors by default.
_READER_SEVERITY = {"SA017": Severity.INFO, "SA018": Severity.WARNING}


@dataclass(frozen=True, slots=True)
class LoadResult:
    """What reading one agent file gave: definitions, diagnostics and the parsed document."""

    path: str
    dialect: Dialect | None
    definitions: tuple[AgentDefinition, ...]
    diagnostics: tuple[Diagnostic, ...]
    document: FrontmatterDocument | None = None
    # What Claude Code makes of the file (Claude dialect Markdown only): the registry loads
    # exactly what this says Claude Code loads, and validate compares it with the strict reading.
    claude_code: ClaudeCodeView | None = None
    # What another harness does with the file, agent by agent (its own reader's answer).
    harness_agents: tuple[HarnessAgent, ...] = ()
    text: str | None = None  # the text another harness's reader was given
    file_path: Path | None = None

    def with_reading(
        self, diagnostics: tuple[Diagnostic, ...], claude_code: ClaudeCodeView | None
    ) -> LoadResult:
        """This result with other diagnostics and Claude Code's reading attached (what
        ``dataclasses.replace`` does, without its per-call look at the fields: one is made for
        every file read; a test checks every other field is carried)."""
        return LoadResult(self.path, self.dialect, self.definitions, diagnostics,
                          self.document, claude_code, self.harness_agents, self.text,
                          self.file_path)

    @property
    def loaded(self) -> tuple[AgentDefinition, ...]:
        """The agents the harness loads from this file, as every command counts them (its
        :meth:`~subagents.harnesses.base.Harness.loaded`): for a Claude file the definition
        Claude Code runs, none when it skips the file; for another harness's file those its
        reader loads; for codex-md the definition when the strict reader found no error; for
        an ``agents.json`` every entry that reads."""
        harness = self.harness
        return harness.loaded(self) if harness is not None else self.definitions

    @property
    def harness(self) -> Harness | None:
        """The harness of this file's dialect (None for ``agents.json``, a format of its own):
        the one every command asks what loads."""
        return None if self.dialect is None else _harness_of(self.dialect)

    @property
    def definition(self) -> AgentDefinition | None:
        return self.definitions[0] if self.definitions else None

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.diagnostics)

    @property
    def ok(self) -> bool:
        """A usable definition and no error: what a harness would load."""
        return bool(self.definitions) and not self.has_errors

    @property
    def recovered(self) -> bool:
        return self.document is not None and self.document.recovered


def detect_dialect(path: str | os.PathLike[str]) -> Dialect | None:
    """The dialect a harness would read this path as; None if it is not an agent file."""
    # Plain string tests on the lower-cased path: this runs once per file of every scan.
    text = "/" + os.fspath(path).replace(os.sep, "/").lower()
    folder = text[: text.rfind("/") + 1]
    name = text[len(folder):]
    if name in ("opencode.json", "opencode.jsonc"):
        return Dialect.OPENCODE
    if text.endswith(".json"):
        return Dialect.JSON
    if text.endswith(".toml"):
        return Dialect.CODEX if "/.codex/agents/" in folder else None
    if not text.endswith(".md"):
        return None
    found = dialect_of_folder(folder)  # the harness table's folders, Claude's first
    if found is not None:
        return Dialect(found)
    if text.endswith(".agent.md"):
        return Dialect.COPILOT
    return Dialect.CLAUDE


def _diag(issue: YamlIssue, display: str) -> Diagnostic:
    return Diagnostic(
        path=display,
        line=issue.line,
        column=issue.column,
        rule=issue.code,
        severity=_READER_SEVERITY.get(issue.code, Severity.ERROR),
        message=issue.message,
        hint=issue.hint,
        key=issue.key,
        subject=issue.subject,
    )


def parse_agent_text(
    data: str | bytes,
    *,
    path: str | os.PathLike[str] = "<string>",
    dialect: Dialect = Dialect.CLAUDE,
    include_body: bool = True,
    file_path: Path | None = None,
    claude_code: str | None = None,
) -> LoadResult:
    """Read a definition from text or bytes already in memory.

    ``claude_code``: the Claude Code version whose reading is attached (default: the newest
    recorded)."""
    display = str(path)
    if type(dialect) is not Dialect:  # (a plain string; Dialect() of a member costs a call)
        dialect = Dialect(dialect)
    if dialect in OWN_READERS:  # (a StrEnum: its value's hash and equality, no `.value` call)
        # another harness's file: its own faithful reader, the same one `validate`, `list`,
        # `convert` and `sync` use (the text as the harness gets it: BOM and CRLF kept)
        raw_text = (data.decode("utf-8", errors="replace") if isinstance(data, bytes)
                    else data)
        return read_with_harness(raw_text, display, dialect, file_path)
    raw = data if isinstance(data, bytes) else None
    # a harness that emulates its own loader beside the strict reader (Claude Code) adds its
    # reading of the same bytes: Harness.emulate
    harness = _harness_of(dialect)
    if raw is not None:
        decoded, issue, bom, crlf = decode_parts(raw)
        if issue is not None or decoded is None:
            assert issue is not None
            unread = LoadResult(display, dialect, (), (_diag(issue, display),))
            return unread if harness is None else harness.emulate(
                unread, data, claude_code=claude_code)
        text = decoded
    else:
        assert isinstance(data, str)
        bom = data.startswith("\ufeff")
        text = data[1:] if bom else data
        crlf = "\r\n" in text
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
    if dialect is Dialect.JSON:
        defs, issues = read_json_text(text, path=file_path)
        found = [_diag(i, display) for i in issues]
        refusal = _agents_flag_refusal(text, display)
        if refusal is not None:  # it replaces the plain finding at the same place
            found = [d for d in found if (d.rule, d.line, d.column) != (
                refusal.rule, refusal.line, refusal.column)] + [refusal]
        return LoadResult(display, dialect, tuple(defs), tuple(found))
    definition, doc, issues = read_markdown_text(
        text, dialect=dialect, path=file_path, bom=bom, crlf=crlf, include_body=include_body
    )
    definitions = (definition,) if definition is not None else ()
    reader_found = tuple([_diag(i, display) for i in issues]) if issues else ()
    if harness is None:
        return LoadResult(display, dialect, definitions, reader_found, doc, file_path=file_path)
    # (the harness builds the one result, with its reading attached)
    return harness.emulate_read(display, dialect, definitions, reader_found, doc, file_path,
                                data, text, bom, crlf, claude_code)


def _harness_of(dialect: Dialect) -> Harness | None:
    try:
        return _HARNESS_OF[dialect]  # asked several times for every file read
    except KeyError:
        pass
    harness = None
    if dialect.value in HARNESS_NAMES:  # (else agents.json: a format of its own)
        from subagents.harnesses import get_harness

        harness = get_harness(dialect.value)
    _HARNESS_OF[dialect] = harness
    return harness


# dialect -> its harness (each harness is one object, made when its module is imported)
_HARNESS_OF: dict[Dialect, Harness | None] = {}


def _agents_flag_refusal(text: str, display: str) -> Diagnostic | None:
    """Agents JSON is also what ``claude --agents`` takes: one bad entry there and Claude Code
    does not start at all (measured on 2.1.332)."""
    if not text.strip():  # empty: SA012 says it
        return None
    from subagents.harnesses.claude import agents_json_refusal

    return agents_json_refusal(text, display, given_as_value=False)


def read_agent_file(
    path: str | os.PathLike[str],
    *,
    dialect: Dialect | None = None,
    include_body: bool = True,
    display_path: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    claude_code: str | None = None,
    on_read: Callable[[bytes, os.stat_result], object] | None = None,
    no_link: bool = False,
) -> LoadResult:
    """Read one agent file (Markdown or JSON).  Never raises for bad input.

    ``on_read`` is given the bytes read and the file's ``fstat`` when the file was read whole
    (not when it was refused before reading, or grew past ``max_bytes`` while read): a caller
    that needs them too (the result cache hashes the bytes, the world-writable rule reads the
    mode) neither reads nor stats the file a second time.

    ``no_link``: the caller has seen that the path is not a symbolic link (a folder's
    listing); it is opened without following one (``O_NOFOLLOW``), so a link put in its place
    since then is refused (``SA015``), never read through."""
    p = path if type(path) is _PATH else Path(path)
    display = display_path if display_path is not None else str(path)
    chosen = dialect or detect_dialect(p) or Dialect.CLAUDE

    if chosen is Dialect.JSON:
        # one agents.json holds many agents (`convert --to json` of a whole collection): the
        # cap is per agent file, so a store gets the room of many
        max_bytes = max(max_bytes, JSON_MAX_BYTES)

    try:
        # O_NONBLOCK: a FIFO named *.md must never hang a scan (it is refused just below).
        fd = os.open(p, _NO_LINK_FLAGS if no_link else _OPEN_FLAGS)
        try:
            st = os.fstat(fd)
            if stat.S_ISDIR(st.st_mode):
                raise IsADirectoryError(p)  # (what opening it as a file object says)
            if not stat.S_ISREG(st.st_mode):
                return _failed(display, chosen, "SA015", "not a regular file")
            if st.st_size > max_bytes:
                big = _failed(
                    display, chosen,
                    "SA002",
                    f"file is {st.st_size:,} bytes; the limit is {max_bytes:,}",
                    "agent definitions are small text files; move reference material into "
                    "skills or separate documents",
                )
                # not read: a harness that reads larger files says what it does from the size
                harness = _harness_of(chosen)
                return big if harness is None else harness.emulate(
                    big, None, size=st.st_size, claude_code=claude_code)
            # Ask for what stat says (+1 to notice growth), not max_bytes: a 1 MiB buffer per
            # small file is measurable when scanning thousands of agents.  Plain os.read on
            # the descriptor (no file object: one per file is measurable too), repeated as a
            # buffered read would until that size or the end of the file.
            data = _read_up_to(fd, min(st.st_size, max_bytes) + 1, st.st_size)
        finally:
            os.close(fd)
    except IsADirectoryError:
        return _failed(display, chosen, "SA015", "is a folder, not a file")
    except FileNotFoundError:
        return _failed(display, chosen, "SA015",
                       "file not found (deleted while it was being read?)")
    except PermissionError:
        return _failed(display, chosen, "SA015", "permission denied",
                       "make the file readable (`chmod u+r`)")
    except OSError as exc:
        if no_link and exc.errno in _LINK_ERRORS and os.path.islink(p):
            return _failed(display, chosen, "SA015",
                           "became a symbolic link while it was being validated; not followed")
        return _failed(display, chosen, "SA015", f"cannot read the file: {exc.strerror or exc}")
    if len(data) > max_bytes:  # grew between stat and read
        return _failed(display, chosen, "SA002",
                       f"file is larger than the limit of {max_bytes:,} bytes")
    if on_read is not None:
        on_read(data, st)
    return parse_agent_text(
        data,
        path=display,
        dialect=chosen,
        include_body=include_body,
        file_path=p,
        claude_code=claude_code,
    )


def _failed(display: str, dialect: Dialect, code: str, message: str,
            hint: str | None = None) -> LoadResult:
    """A file :func:`read_agent_file` could not read: one finding at its first line."""
    issue = YamlIssue(code, message, 1, 1, hint)
    return LoadResult(display, dialect, (), (_diag(issue, display),))


_PATH = type(Path())
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
#: for a path a folder's listing said is not a link: a link put in its place since is refused
_NO_LINK_FLAGS = _OPEN_FLAGS | getattr(os, "O_NOFOLLOW", 0)
#: what ``open`` with ``O_NOFOLLOW`` says of a link (Linux ELOOP, BSD EMLINK or EFTYPE)
_LINK_ERRORS = frozenset({errno.ELOOP, errno.EMLINK, getattr(errno, "EFTYPE", errno.ELOOP)})


def _read_up_to(fd: int, size: int, whole: int = -1) -> bytes:
    """``size`` bytes of ``fd``, fewer only at the end of the file.  ``whole``: the size
    ``fstat`` gave; a first read that returns exactly that much has met the end of the file
    (a regular file's read is short only there), so no second read is made to see it."""
    data = os.read(fd, size)
    if len(data) >= size or not data or len(data) == whole:
        return data
    chunks = [data]
    left = size - len(data)
    while left > 0:
        chunk = os.read(fd, left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def load_agent(path: str | os.PathLike[str], *, dialect: Dialect | None = None) -> AgentDefinition:
    """Load one agent, or raise :class:`DefinitionError` carrying the diagnostics
    (:class:`~subagents.errors.AgentFileNotFound`, also a ``FileNotFoundError``, when there is
    no file at ``path``)."""
    if not os.path.exists(path):
        from subagents.errors import AgentFileNotFound

        raise AgentFileNotFound(path)
    result = read_agent_file(path, dialect=dialect)
    errors = [d for d in result.diagnostics if d.severity is Severity.ERROR]
    if errors or result.definition is None:
        first = errors[0] if errors else None
        detail = f": {first.format_text()}" if first else ""
        raise DefinitionError(
            f"cannot load agent from {result.path}{detail}",
            result.diagnostics,
            hint="run `subagents validate` on the file for every problem",
        )
    if len(result.definitions) > 1:
        raise DefinitionError(
            f"{result.path} defines {len(result.definitions)} agents; "
            "use read_agent_file() to get all of them"
        )
    return result.definition


# ---------------------------------------------------------------- the other harnesses' readers



def severity_of(effect: Effect, *, strict: bool = False) -> Severity:
    """The one severity rule, for every harness."""
    from subagents.harnesses.base import Effect

    if strict and effect in (Effect.PORTABILITY, Effect.STYLE):
        return Severity.ERROR
    if effect in (Effect.SKIP, Effect.FATAL, Effect.DIFFERS):
        return Severity.ERROR
    if effect in (Effect.PORTABILITY, Effect.STYLE):
        return Severity.WARNING
    if effect is Effect.INFO:
        return Severity.INFO
    raise KeyError(effect)


def harness_diagnostics(
    agents: Iterable[HarnessAgent], display: str, label: str, *, strict: bool = False,
) -> list[Diagnostic]:
    """Every finding of every agent in one file, as diagnostics with the shared severity."""
    from subagents.harnesses.base import Effect, Outcome

    out: list[Diagnostic] = []
    for agent in agents:
        for finding in agent.findings:
            hint = finding.hint
            if agent.outcome is Outcome.FATAL and finding.effect is Effect.FATAL and not hint:
                hint = f"{label} refuses to start while this file is there: fix or move it"
            out.append(Diagnostic(
                path=display, line=finding.line or 1, column=1,
                rule=finding.code, severity=severity_of(finding.effect, strict=strict),
                message=finding.message, hint=hint, key=finding.key,
            ))
    return out


def read_with_harness(
    text: str, display: str, dialect: Dialect, file_path: Path | None,
) -> LoadResult:
    """What ``dialect``'s harness makes of ``text``: the agents it loads as definitions, its
    findings as diagnostics.  A file the harness would not read at ``file_path`` (``--from``
    forced the dialect on a file elsewhere) is read as if it were in the harness's folder."""
    from subagents.harnesses import get_harness
    from subagents.harnesses.base import Outcome

    harness = get_harness(dialect.value)
    where = file_path if file_path is None or harness.claims(file_path) else None
    agents = tuple(harness.read_text(text, where))
    if where is None and file_path is not None:
        agents = tuple(dataclasses.replace(a, path=file_path) for a in agents)
    definitions = tuple(
        a.definition.evolve(dialect=dialect, path=file_path) for a in agents
        if a.outcome is Outcome.LOADS and a.definition is not None)
    diagnostics = tuple(harness_diagnostics(agents, display, harness.display_name))
    return LoadResult(display, dialect, definitions, diagnostics, harness_agents=agents,
                      text=text)
