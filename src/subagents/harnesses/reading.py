"""The plain answers to the reading questions of :class:`~subagents.harnesses.base.Harness`.

A module of its own, with no dataclass to build at import: every Claude file is read through
:class:`~subagents.harnesses.claude.ClaudeHarness`, which derives from :class:`Reading`, and
``validate one.md`` should not pay for the harness types (``harnesses/base.py``) it does not
use.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from subagents.definition import AgentDefinition, Dialect
    from subagents.diagnostics import Diagnostic
    from subagents.formats.frontmatter import FrontmatterDocument
    from subagents.harnesses.loader import LoadResult

__all__ = ["Reading"]


class Reading:
    """:class:`Harness`'s reading questions answered for a harness whose reader decides what
    loads (its definitions are what loads, no plugins, nothing refused later)."""

    def loaded(
        self, result: LoadResult, *, include_body: bool = True
    ) -> tuple[AgentDefinition, ...]:
        return result.definitions

    def for_plugin(self, result: LoadResult, plugin: str) -> LoadResult:
        return result

    def declared_name(self, result: LoadResult) -> str | None:
        document = result.document
        found = document.fields.get("name") if document is not None else None
        value = getattr(found.node, "value", None) if found is not None else None
        return value if isinstance(value, str) and value else None

    def refuses(self, definition: AgentDefinition, display: str) -> Diagnostic | None:
        return None

    def refuses_agents_value(self, text: str, label: str) -> Diagnostic | None:
        return None

    def emulate(
        self, result: LoadResult, data: str | bytes | None, *, text: str | None = None,
        bom: bool = False, crlf: bool = False, size: int | None = None,
        claude_code: str | None = None,
    ) -> LoadResult:
        return result

    def emulate_read(
        self, display: str, dialect: Dialect, definitions: tuple[AgentDefinition, ...],
        diagnostics: tuple[Diagnostic, ...], document: FrontmatterDocument | None,
        file_path: Path | None, data: str | bytes, text: str, bom: bool, crlf: bool,
        claude_code: str | None,
    ) -> LoadResult:
        """The strict reader's result of a Markdown file, given as its parts, with
        :meth:`emulate`'s reading of the same data attached: the loader's one call for every
        file read (a harness that attaches a reading builds the result once)."""
        from subagents.harnesses.loader import LoadResult

        return self.emulate(
            LoadResult(display, dialect, definitions, diagnostics, document, file_path=file_path),
            data, text=text, bom=bom, crlf=crlf, claude_code=claude_code)
