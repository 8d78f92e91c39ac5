"""Claude Code and the ``codex-md`` Markdown form, seen through the :class:`Harness` interface.

Claude Code's own reading lives in :mod:`subagents.claude_code` (an emulation of a recorded
version) and its folder layout in :mod:`subagents.harnesses.layout`; this module only adapts
them, so that ``convert``, ``sync`` and the cross-harness listing treat Claude Code like every
other harness.  ``codex-md`` is the Markdown form some Codex tools read from
``.codex/agents/*.md`` (the official Codex CLI reads only ``.toml`` files there and ignores
these); it is read by the strict Markdown reader, with no harness of its own to emulate.

Design notes
------------
* Claude Code is the canonical vocabulary, so reading gives the definition as Claude Code runs
  it (:func:`~subagents.claude_code.definition.definition_from_view`) and writing keeps every
  field, including ``x-<harness>`` blocks parked by other readers (Claude Code ignores unknown
  keys; the other writers restore them).
* Why a file is skipped is Claude Code's own reason (``Skip.message``), with effect ``skip``.
* Claude Code's answers to the reading questions every command asks a harness
  (:class:`~subagents.harnesses.base.Harness`): what loads is its emulation's answer
  (:attr:`LoadResult.claude_code <subagents.harnesses.loader.LoadResult>`), a plugin's file
  loads on terms of its own (:func:`~subagents.claude_code.reader.as_plugin_agent`), and the
  name a skipped file seems to give is the one Claude Code read.  The registry, ``validate``,
  ``convert``, ``fix`` and ``sync`` ask these questions and never test for Claude Code.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from pathlib import Path

from subagents.claude_code.bun_yaml import bun_value
from subagents.claude_code.profile import get_profile
from subagents.claude_code.reader import ParseMode, SkipKind, as_plugin_agent, read_claude_code
from subagents.definition import AgentDefinition, Dialect
from subagents.diagnostics import Diagnostic
from subagents.formats.frontmatter import FrontmatterDocument
from subagents.formats.yamltree import composer_refusal
from subagents.harnesses.loader import LoadResult, parse_agent_text
from subagents.harnesses.reading import Reading
from subagents.harnesses.table import TableHarness, get_spec

TYPE_CHECKING = False
if TYPE_CHECKING:  # the harness types are built only when one is needed (listing, convert)
    from typing import Any

    from subagents.claude_code.profile import ClaudeCodeProfile
    from subagents.claude_code.reader import ClaudeCodeView
    from subagents.harnesses.base import HarnessAgent, Location, WrittenFile

__all__ = ["CODEX_MD", "HARNESS", "ClaudeHarness", "CodexMarkdownHarness"]


# why Claude Code skips a file -> the rule code `validate` reports it under
_SKIP_CODES = {
    SkipKind.TOO_LARGE: "SA002", SkipKind.NO_FRONTMATTER: "SA003", SkipKind.YAML: "SA005",
    SkipKind.REFUSED: "SA005", SkipKind.NO_NAME: "SA102", SkipKind.BAD_NAME: "SA101",
    SkipKind.NO_DESCRIPTION: "SA103", SkipKind.HOOKS: "SA110",
}


def _in_agents_folder(path: Path, dialect: str) -> bool:
    """A Markdown file below the table's agents folder of ``dialect`` (``.claude/agents``)."""
    text = "/" + path.as_posix().lower()
    return text.endswith(".md") and f"/{get_spec(dialect).write_folder}/" in text


def _markdown_locations(project: Path, home: Path, dialect: Dialect) -> list[Location]:
    """The project folders up to the git root (closest first), then the user's folder."""
    from subagents.harnesses.base import Location
    from subagents.harnesses.layout import project_folders, user_folder

    folders = [Location(p, "project", True, (".md",), rank)
               for rank, p in enumerate(project_folders(project, dialect))]
    folders.append(Location(user_folder(home, dialect), "user", True, (".md",), len(folders)))
    return folders




@functools.cache
def _definition_from_view() -> Callable[..., AgentDefinition]:
    """``definition_from_view``, imported when first asked for (an import statement in a
    function costs a look-up on every call, and this one is asked for every file)."""
    from subagents.claude_code.definition import definition_from_view

    return definition_from_view


class ClaudeHarness(Reading):
    """Claude Code (the version recorded in :mod:`subagents.claude_code.profile`)."""

    name = "claude"
    display_name = get_spec("claude").display_name
    code_prefix = get_spec("claude").code_prefix

    @property
    def version(self) -> str:
        return get_profile().version

    def locations(self, project: Path, home: Path) -> Sequence[Location]:
        return _markdown_locations(project, home, Dialect.CLAUDE)

    def discover(self, project: Path, home: Path) -> Sequence[Path]:
        from subagents.claude_code.scan import scan_agents_folder  # reading one file needs no scan

        out: list[Path] = []
        for location in self.locations(project, home):
            if location.path.is_dir():
                out.extend(scan_agents_folder(location.path))
        return out

    def claims(self, path: Path) -> bool:
        return _in_agents_folder(path, "claude")

    def read_text(self, text: str, path: Path | None = None) -> Sequence[HarnessAgent]:
        from subagents.harnesses.base import Effect, Finding, HarnessAgent, Outcome

        result = parse_agent_text(text, path=str(path or "<string>"), dialect=Dialect.CLAUDE,
                                  file_path=path)
        view = result.claude_code
        if view is None or not view.loaded:
            message = view.skip.message if view is not None and view.skip else "not an agent"
            line = view.error_line if view is not None else None
            code = _SKIP_CODES.get(view.skip.kind, "SA005") if view and view.skip else "SA003"
            finding = Finding(code, f"{view.profile.label if view else 'Claude Code'} skips "
                              f"this file: {message}", Effect.SKIP, line=line)
            return [HarnessAgent(self.name, path, Outcome.SKIPPED, None, findings=(finding,))]
        (definition,) = result.loaded  # the one reading's: what Claude Code runs
        notes = tuple(Finding("SA021", note.message, Effect.DIFFERS, key=note.key)
                      for note in view.notes)
        return [HarnessAgent(
            self.name, path, Outcome.LOADS, view.name, view.description, view.body.strip(),
            view.model, view.tools, dict(view.frontmatter), notes, definition,
        )]

    def write(self, definition: AgentDefinition) -> WrittenFile:
        # writers and layout are imported on use: `validate one.md` reads through this
        # module and needs neither
        from subagents.formats.writers import to_claude_markdown
        from subagents.harnesses.base import WrittenFile

        return WrittenFile(get_spec("claude").relpath(definition.name),
                           to_claude_markdown(definition))

    # ---------------------------------------------- the reading questions: the emulation's answer

    def loaded(
        self, result: LoadResult, *, include_body: bool = True
    ) -> tuple[AgentDefinition, ...]:
        """The definition Claude Code runs (none when it skips the file, or when the file could
        not be read at all)."""
        view = result.claude_code
        if view is None or not view.loaded:
            return ()
        return (_definition_from_view()(view, path=result.file_path, strict=result.definition,
                                        include_body=include_body),)

    def for_plugin(self, result: LoadResult, plugin: str) -> LoadResult:
        """A plugin's agents load on terms of their own (named after the file when the
        frontmatter does not say, ``:`` allowed, ...)."""
        view, path = result.claude_code, result.file_path
        if view is None or path is None:
            return result
        adapted = as_plugin_agent(view, file_stem=path.stem, plugin=plugin.split(":", 1)[0])
        return dataclasses.replace(result, claude_code=adapted)

    def declared_name(self, result: LoadResult) -> str | None:
        view = result.claude_code
        if view is None:
            return super().declared_name(result)
        return view.name if isinstance(view.name, str) and view.name else None

    def refuses_agents_value(self, text: str, label: str) -> Diagnostic | None:
        """One bad entry in ``--agents`` and Claude Code does not start at all (measured on
        2.1.332): the value is refused as a whole, and no agent of it is loaded."""
        return agents_json_refusal(text, label, given_as_value=True)

    def emulate(
        self, result: LoadResult, data: str | bytes | None, *, text: str | None = None,
        bom: bool = False, crlf: bool = False, size: int | None = None,
        claude_code: str | None = None,
    ) -> LoadResult:
        """What Claude Code (the recorded version ``claude_code``) makes of the same bytes,
        attached as ``result.claude_code``; on a file it loads, the YAML findings say what it
        does with the construct."""
        profile = get_profile(claude_code)
        if data is None:  # over our cap, not read: Claude Code's own limit decides
            if size is None or size <= profile.max_file_bytes:
                return result
            return result.with_reading(
                result.diagnostics, read_claude_code(b"", profile=profile, size=size))
        if text is None:  # not decodable: Claude Code reads the bytes its own way
            return result.with_reading(result.diagnostics,
                                       read_claude_code(data, profile=profile))
        return result.with_reading(*_reading(profile, result.diagnostics, result.document,
                                             data, text, bom, crlf))

    def emulate_read(
        self, display: str, dialect: Dialect, definitions: tuple[AgentDefinition, ...],
        diagnostics: tuple[Diagnostic, ...], document: FrontmatterDocument | None,
        file_path: Path | None, data: str | bytes, text: str, bom: bool, crlf: bool,
        claude_code: str | None,
    ) -> LoadResult:
        """:meth:`emulate` of the decoded file's strict reading, the result built once
        (not the strict reader's, then a copy with the reading attached)."""
        found, view = _reading(get_profile(claude_code), diagnostics, document, data, text,
                               bom, crlf)
        return LoadResult(display, dialect, definitions, found, document, view, (), None,
                          file_path)


def _reading(
    profile: ClaudeCodeProfile, found: tuple[Diagnostic, ...],
    document: FrontmatterDocument | None, data: str | bytes, text: str, bom: bool, crlf: bool,
) -> tuple[tuple[Diagnostic, ...], ClaudeCodeView]:
    """Claude Code's reading of a decoded file and the strict reader's findings ``found`` as
    they read beside it (see :meth:`ClaudeHarness.emulate`)."""
    shared = (None if found and any(d.rule == "SA007" for d in found)
              else _parsed_block(document, crlf))
    # the text is already decoded: Claude Code reads the same characters unless the
    # file has CRLF line ends (it keeps them; the strict reader normalised them)
    same_text = isinstance(data, bytes) and b"\r" not in data
    source: str | bytes = ("\ufeff" + text if bom else text) if same_text else data
    view = read_claude_code(source, profile=profile, parsed_block=shared,
                            size=len(data) if isinstance(data, bytes) else None)
    diagnostics = found
    if view.loaded and found:  # (nothing to reword in a file without findings)
        label = view.profile.label
        lenient = view.parse is ParseMode.LENIENT
        diagnostics = tuple(_say_what_claude_code_does(d, label, lenient)
                            for d in diagnostics)
    return diagnostics, view


class CodexMarkdownHarness(TableHarness, dialect="codex-md"):
    """The Markdown agent form in ``.codex/agents/*.md`` (not the official Codex CLI)."""

    def loaded(
        self, result: LoadResult, *, include_body: bool = True
    ) -> tuple[AgentDefinition, ...]:
        """The strict reader is the format's reader: a file with an error loads nothing."""
        return result.definitions if result.ok else ()

    def refuses(self, definition: AgentDefinition, display: str) -> Diagnostic | None:
        from subagents.harnesses.layout import harness_skip

        return harness_skip(definition, display, Dialect.CODEX_MD)

    def locations(self, project: Path, home: Path) -> Sequence[Location]:
        return _markdown_locations(project, home, Dialect.CODEX_MD)

    def discover(self, project: Path, home: Path) -> Sequence[Path]:
        out: list[Path] = []
        for location in self.locations(project, home):
            if location.path.is_dir():
                out.extend(p for p in sorted(location.path.rglob("*.md")) if p.is_file())
        return out

    def claims(self, path: Path) -> bool:
        return _in_agents_folder(path, "codex-md")

    def read_text(self, text: str, path: Path | None = None) -> Sequence[HarnessAgent]:
        from subagents.harnesses.base import Effect, Finding, HarnessAgent, Outcome

        result = parse_agent_text(text, path=str(path or "<string>"), dialect=Dialect.CODEX_MD,
                                  file_path=path)
        errors = tuple(Finding(d.rule, d.message, Effect.SKIP, line=d.line, hint=d.hint)
                       for d in result.diagnostics if d.severity.value == "error")
        if not result.definitions or errors:
            return [HarnessAgent(self.name, path, Outcome.SKIPPED, None,
                                 findings=errors or (Finding("SA003", "not an agent file",
                                                             Effect.SKIP),))]
        definition = result.definitions[0]
        return [HarnessAgent(
            self.name, path, Outcome.LOADS, definition.name, definition.description,
            definition.system_prompt.strip(), definition.model, definition.tools, {}, (),
            definition,
        )]

    def write(self, definition: AgentDefinition) -> WrittenFile:
        from subagents.formats.writers import to_codex_markdown
        from subagents.harnesses.base import WrittenFile

        return WrittenFile(get_spec("codex-md").relpath(definition.name),
                           to_codex_markdown(definition))


def _say_what_claude_code_does(d: Diagnostic, label: str, lenient: bool = False) -> Diagnostic:
    """A YAML finding on a file Claude Code loads, saying what Claude Code makes of it (the
    YAML reader is dialect-neutral; the Claude reading knows).  The YAML reader passes the
    duplicate key and the construct it refuses along with the finding (``key``, ``subject``)."""
    if d.rule == "SA007" and d.key is not None:
        message = f"{d.message}; {label} silently keeps the last value"
    elif d.rule == "SA008" and d.subject is not None and lenient:
        message = (f"{d.subject}: {label} cannot read this frontmatter as YAML; its lenient "
                   "second pass keeps each `*alias` value as literal text")
    elif d.rule == "SA008" and d.subject is not None:
        message = (f"{d.subject}: {label} resolves anchors and aliases, but many YAML tools "
                   "and other harnesses refuse them")
    elif d.rule == "SA009" and d.subject is not None:
        message = f"{d.subject}: {label} silently drops it and reads the rest of the value"
    else:
        return d
    return dataclasses.replace(d, message=message)


def _parsed_block(doc: FrontmatterDocument | None, crlf: bool) -> tuple[str, Any] | None:
    """The strict reader's parse as Bun's (no second parse of the same text), when it applies:
    a tree that parsed as it stands (not recovered), read from LF text, opened at line 1; or,
    for a text libyaml's composer refused (a recovered frontmatter), what it raised."""
    if doc is None or crlf or doc.start_line != 1:
        return None
    if doc.root is None or doc.recovered:
        refused = composer_refusal(doc.yaml_text)
        return None if refused is None else (doc.yaml_text, refused)
    return doc.yaml_text, bun_value(doc.root)


HARNESS = ClaudeHarness()
CODEX_MD = CodexMarkdownHarness()


def agents_json_refusal(text: str, path: str, *, given_as_value: bool) -> Diagnostic | None:
    """What Claude Code does with agents JSON holding one bad entry: it refuses to start.
    ``given_as_value``: the ``--agents`` value itself (the registry); else a file of agents
    JSON that may be given to it (``validate``)."""
    from subagents.claude_code.agents_flag import agents_flag_problem
    from subagents.diagnostics import Severity

    problem = agents_flag_problem(text)
    if problem is None:
        return None
    rules = ("every agent needs a `description` and a `prompt`; `tools` is a list; names do "
             "not start with '-'")
    if given_as_value:
        message = (f"Claude Code refuses to start with this --agents value: {problem.message}; "
                   "nothing runs, and no agent of it is loaded")
        hint = f"fix the entry ({rules}), or leave it out"
    else:
        message = (f"given to Claude Code with --agents, this JSON makes it refuse to start: "
                   f"{problem.message}; nothing runs")
        hint = rules
    return Diagnostic(path=path, line=problem.line, column=problem.column, rule=problem.rule,
                      severity=Severity.ERROR, message=message, hint=hint)
