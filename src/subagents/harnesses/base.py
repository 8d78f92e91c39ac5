"""What every harness dialect provides: discovery, a faithful reader, a writer.

A *harness* is a coding-agent CLI that loads subagents from files (Claude Code, Codex, Gemini
CLI, OpenCode, Copilot, Cursor, Qwen Code, Factory Droid).  Each has its own module in this
package that implements :class:`Harness`.  The module is the one home of everything we know
about that harness's format: its folders and precedence, how it parses a file, which keys it
rejects, its tool names, and how to write a file it accepts.  The facts come from running the
harness's own CLI (recorded under ``subagents/conformance/data/``); a test checks each reader
against that recording.

Design notes
------------
* **Reading answers "what will the harness do with these bytes?"**  :meth:`Harness.read_text`
  returns one :class:`HarnessAgent` per agent the text defines (Codex ``config.toml`` and
  ``opencode.json`` may define several).  ``outcome`` says whether the harness loads it, skips
  it, or refuses to start because of it; ``findings`` say why, with the harness's own wording
  where it has one.  The reader never raises for bad input.
* **The canonical definition uses Claude Code's vocabulary.**  ``HarnessAgent.definition`` is an
  :class:`~subagents.definition.AgentDefinition` whose ``tools`` are Claude tool names
  (translated back through :mod:`subagents.harnesses.crosswalk`); native names with no Claude
  equivalent are kept as they are.  Fields the harness has and Claude does not are parked in
  ``definition.extra["x-<harness>"]`` so that a round trip through Claude loses nothing.
* **Writing is bytes out, nothing judged.**  :meth:`Harness.write` turns a definition into one
  file the harness accepts: it renames tools, strips keys the harness rejects, rewrites what
  the harness would misread, and restores ``x-<harness>`` fields.  It does not report losses:
  the converter reads the output back with :meth:`read_text` and compares, so a loss report can
  never drift from what the writer really does.
* **What loads is the harness's answer, asked the same way for every harness.**  Every command
  (the registry, ``validate``, ``convert``, ``fix``, ``sync``, ``list``, ``doctor``) reads a
  file once (:func:`~subagents.harnesses.loader.read_agent_file`) and asks the harness of its
  dialect: :meth:`Harness.loaded` (the agents it loads), :meth:`Harness.for_plugin` (the same
  file in a plugin's folder), :meth:`Harness.declared_name` (the name a file it skips seems to
  give) and :meth:`Harness.refuses`.  :class:`~subagents.harnesses.reading.Reading` is the
  answer of a harness whose reader already decides (every one but Claude Code, whose answer
  is its emulation's); the facts that are data (what one name in two files does, whether
  dot-files are read) are table cells.
* Findings carry an *effect*, and the severity rule maps effects to severities the same way for
  every harness: ``skip``/``fatal``/``differs`` are errors (the harness skips the file, stops
  because of it, or silently does something other than what the file says), ``portability``
  and ``style`` are warnings, ``info`` is information.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from subagents.definition import AgentDefinition

if TYPE_CHECKING:
    from subagents.definition import Dialect
    from subagents.diagnostics import Diagnostic
    from subagents.formats.frontmatter import FrontmatterDocument
    from subagents.harnesses.loader import LoadResult

__all__ = [
    "Effect",
    "Finding",
    "Harness",
    "HarnessAgent",
    "Location",
    "Outcome",
    "WrittenFile",
]


class Outcome(StrEnum):
    """What the harness does with one agent definition."""

    LOADS = "loads"  # the agent is offered to the main agent
    SKIPPED = "skipped"  # the harness ignores this agent (other agents still load)
    FATAL = "fatal"  # the harness refuses to start at all because of this file
    NOT_READ = "not-read"  # the harness never looks at this file (wrong folder, extension, ...)


class Effect(StrEnum):
    """Why a finding matters; the severity rule maps it to error / warning / info."""

    SKIP = "skip"  # this finding alone makes the harness skip the agent
    FATAL = "fatal"  # this finding alone stops the harness from starting
    DIFFERS = "differs"  # loads, but the harness silently does something else than written
    PORTABILITY = "portability"  # fine here, a problem for another harness or a convention
    STYLE = "style"
    INFO = "info"


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the harness does with a file that its author should know."""

    code: str  # a stable code, e.g. "GM001" (prefix per harness, listed in the rule catalogue)
    message: str  # plain words; names the harness and version when it states harness behaviour
    effect: Effect
    line: int | None = None  # 1-based line in the file, when known
    key: str | None = None  # the frontmatter / TOML / JSON key it is about
    hint: str | None = None  # how to fix it


@dataclass(frozen=True, slots=True)
class HarnessAgent:
    """One agent as a harness sees it."""

    harness: str  # Harness.name
    path: Path | None
    outcome: Outcome
    agent_id: str | None  # the id the harness's delegation tool uses (None when not loaded)
    description: str | None = None
    prompt: str | None = None  # the system prompt the harness gives the agent
    model: str | None = None  # as the harness passes it on (None = inherit)
    native_tools: tuple[str, ...] | None = None  # the harness's own names; None = all inherited
    native: Mapping[str, object] = field(default_factory=dict)  # every key as the harness read it
    findings: tuple[Finding, ...] = ()
    definition: AgentDefinition | None = None  # canonical form (Claude vocabulary)
    # False when the agent loads but the delegation tool does not offer it (OpenCode
    # `mode: primary`, Copilot `disable-model-invocation: true`): it can only be picked by hand
    delegable: bool = True


@dataclass(frozen=True, slots=True)
class Location:
    """A folder (or file) the harness reads agents from."""

    path: Path
    scope: str  # "project" | "user" | "extension" | ...
    recursive: bool
    suffixes: tuple[str, ...]  # file name endings read, e.g. (".md",) or (".toml",)
    rank: int  # lower wins a name clash (the harness's own precedence)


@dataclass(frozen=True, slots=True)
class WrittenFile:
    """A file a writer produced, relative to the project root (or user home for user scope)."""

    relpath: str  # e.g. ".gemini/agents/reviewer.md"
    text: str
    notes: tuple[str, ...] = ()  # things the user must do that no file can say
    # e.g. "Gemini CLI loads a project agent only after you acknowledge it"


@runtime_checkable
class Harness(Protocol):
    """A harness dialect: discovery, reader, writer.  One module per harness implements it."""

    name: str  # dialect name used on the command line: "gemini", "codex", ...
    display_name: str  # "Gemini CLI"
    version: str  # the CLI version whose behaviour this module reproduces (recorded)
    code_prefix: str  # two letters for its finding codes, e.g. "GM"

    def locations(self, project: Path, home: Path) -> Sequence[Location]:
        """Where this harness looks for agents, in precedence order."""
        ...

    def discover(self, project: Path, home: Path) -> Sequence[Path]:
        """Every file this harness would read, ordered as the harness reads them."""
        ...

    def claims(self, path: Path) -> bool:
        """True when ``path`` is in a place and has a name this harness reads agents from."""
        ...

    def read_text(self, text: str, path: Path | None = None) -> Sequence[HarnessAgent]:
        """What the harness does with this text (never raises for bad input)."""
        ...

    def write(self, definition: AgentDefinition) -> WrittenFile:
        """One file this harness loads, holding ``definition`` as faithfully as it can."""
        ...

    def loaded(
        self, result: LoadResult, *, include_body: bool = True
    ) -> tuple[AgentDefinition, ...]:
        """The agents this harness loads from one file's reading, as every command counts
        them (``include_body=False``: the body may be left out, as discovery does)."""
        ...

    def for_plugin(self, result: LoadResult, plugin: str) -> LoadResult:
        """The same reading, for a file in the agents folder of ``plugin``."""
        ...

    def declared_name(self, result: LoadResult) -> str | None:
        """The name a file seems to declare (for "why is my agent missing" when it loads
        none); None when it gives none."""
        ...

    def refuses(self, definition: AgentDefinition, display: str) -> Diagnostic | None:
        """Why the harness would still not load a definition its reading gave (None: it
        would); for the registry, which reads front matter only."""
        ...

    def refuses_agents_value(self, text: str, label: str) -> Diagnostic | None:
        """Why the harness refuses to start with this inline agents JSON (``--agents``) as a
        whole (None: it reads it entry by entry)."""
        ...

    def emulate(
        self, result: LoadResult, data: str | bytes | None, *, text: str | None = None,
        bom: bool = False, crlf: bool = False, size: int | None = None,
        claude_code: str | None = None,
    ) -> LoadResult:
        """The strict reader's ``result`` for a file the Markdown reader reads, with this
        harness's own reading of the same ``data`` added when it emulates its loader (Claude
        Code: :attr:`LoadResult.claude_code`).  ``data`` None: the file was not read (over our
        size cap), only its ``size`` is known; ``text``: the decoded text the strict reader
        read (BOM stripped, line ends made LF); ``claude_code``: the recorded version."""
        ...

    def emulate_read(
        self, display: str, dialect: Dialect, definitions: tuple[AgentDefinition, ...],
        diagnostics: tuple[Diagnostic, ...], document: FrontmatterDocument | None,
        file_path: Path | None, data: str | bytes, text: str, bom: bool, crlf: bool,
        claude_code: str | None,
    ) -> LoadResult:
        """:meth:`emulate` of the strict reader's result given as its parts (``LoadResult``'s
        first fields, and ``file_path``): the result is built once."""
        ...
