"""Markdown + YAML frontmatter agents: the ``claude`` and ``codex`` dialects.

Both dialects share the file shape; what differs (Codex's name rule, its list-only ``tools``
and ``keywords``, optional description) is judged by the rules, not here.  The body after the
closing ``---`` is the system prompt, kept verbatim except for the single newline that follows
the delimiter.
"""

from __future__ import annotations

from pathlib import Path

from subagents.definition import AgentDefinition, Dialect, SourceLocation
from subagents.formats.fields import build_from_items
from subagents.formats.frontmatter import FrontmatterDocument, split_frontmatter
from subagents.formats.yamltree import _STR_TAG, YamlIssue, YScalar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from subagents.formats.fields import FieldItem

__all__ = ["read_markdown_text"]


def read_markdown_text(
    text: str,
    *,
    dialect: Dialect,
    path: Path | None,
    bom: bool = False,
    crlf: bool = False,
    include_body: bool = True,
) -> tuple[AgentDefinition | None, FrontmatterDocument | None, list[YamlIssue]]:
    doc, issues = split_frontmatter(text, bom=bom, crlf=crlf)
    if doc is None or doc.root is None:
        return None, doc, issues
    raw: list[FieldItem] = []
    shared = _LOCATIONS
    for f in doc.fields.values():
        node = f.node
        if type(node) is YScalar:
            written: str | None = node.value
            tag = node.tag
            # what `YScalar.to_python` answers first (quoted or block, tagged a string, or
            # resolved as one: the text itself), without a call for each field
            value = (written if node.style or (tag or node.resolved_tag) == _STR_TAG
                     or tag == "!" else node.to_python())
        else:
            written, value = None, node.to_python()
        where = (f.key_line, f.key_column)
        raw.append((f.key, value, shared.get(where) or _location(*where), written,
                    (node.line, node.column)))
    body = doc.body if include_body else ""
    definition, field_issues = build_from_items(
        raw,
        dialect=dialect,
        path=path,
        system_prompt=body,
        body_line=doc.body_line,
        default_location=shared.get((doc.start_line, 1)) or _location(doc.start_line, 1),
    )
    issues.extend(field_issues)
    return definition, doc, issues


def _location(line: int, column: int) -> SourceLocation:
    """``SourceLocation(line, column)``, one object per position: a location is frozen, and
    the same few (a key at column 1 of lines 2 to 20) come back in every file, where building
    one sets each field through ``object.__setattr__``."""
    where = (line, column)
    found = _LOCATIONS.get(where)
    if found is None:
        if len(_LOCATIONS) >= 4096:
            _LOCATIONS.clear()
        found = _LOCATIONS[where] = SourceLocation(line, column)
    return found


_LOCATIONS: dict[tuple[int, int], SourceLocation] = {}
