"""Markdown + YAML frontmatter agent files for the harnesses that were not run (Cursor, Factory).

Reading goes through :func:`subagents.formats.frontmatter.split_frontmatter` (libyaml events,
a nesting guard before any parse, duplicate keys, anchors and foreign tags refused, positions
kept), so hostile input (huge, binary, deep, not a mapping, duplicate keys) never raises: it
comes back as ``problem`` with a line.  Writing dumps each value as a double-quoted YAML
scalar, so no value can ever hold a raw line break or a ``---`` line that would end the
frontmatter early.  NUL characters are dropped from a written body.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from subagents.formats.frontmatter import split_frontmatter
from subagents.harnesses.base import Effect, Finding

__all__ = ["MAX_BYTES", "MdAgent", "dump_markdown", "read_markdown"]

MAX_BYTES = 1024 * 1024
# issues that leave the frontmatter readable (the opening `---` indented or after blank lines)
_HARMLESS = frozenset(("SA018",))


@dataclass(slots=True)
class MdAgent:
    fields: dict[str, Any] | None  # None: no usable frontmatter
    body: str
    lines: dict[str, int] = field(default_factory=dict)  # key -> 1-based file line
    problem: str | None = None  # why the frontmatter is unusable
    problem_line: int | None = None
    no_frontmatter: bool = False  # the file simply has no `---` block


def read_markdown(text: str) -> MdAgent:
    """Frontmatter fields and body of one Markdown agent file (never raises)."""
    if len(text) > MAX_BYTES:
        return MdAgent(None, "", problem=f"the file is over {MAX_BYTES:,} characters")
    if "\x00" in text:
        return MdAgent(None, "", problem="binary content (NUL byte): not a text file",
                       problem_line=text.count("\n", 0, text.index("\x00")) + 1)
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    doc, issues = split_frontmatter(text)
    bad = [i for i in issues if i.code not in _HARMLESS]
    if doc is None:
        issue = bad[0] if bad else None
        none = issue is not None and issue.code in ("SA003", "SA012")
        return MdAgent(None, text.strip() if none else "", problem=issue.message if issue
                       else "no frontmatter", problem_line=issue.line if issue else None,
                       no_frontmatter=none)
    if bad or doc.root is None or doc.recovered:
        issue = bad[0] if bad else None
        return MdAgent(None, doc.body.strip(),
                       problem=issue.message if issue else "the frontmatter is not YAML",
                       problem_line=issue.line if issue else None)
    fields: dict[str, Any] = {}
    lines: dict[str, int] = {}
    for key, item in doc.fields.items():
        try:
            fields[key] = item.node.to_python()
        except Exception:  # a timestamp out of range, ...: keep the text
            fields[key] = getattr(item.node, "value", None)
        lines[key] = item.key_line
    return MdAgent(fields, doc.body.strip(), lines)


class _Dumper(yaml.SafeDumper):
    pass


def _quoted(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')


_Dumper.add_representer(str, _quoted)


def dump_markdown(front: Mapping[str, Any], body: str) -> str:
    """``---`` + frontmatter + ``---`` + body; every string double-quoted on one line.

    NUL characters are dropped from the body: a file holding one is binary to every reader."""
    text = yaml.dump(dict(front), Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     width=1 << 30, default_flow_style=False)
    return f"---\n{text}---\n{body.replace(chr(0), '')}\n"


def model_findings(
    model: object, line: int | None, *, codes: tuple[str, str], who: str, allowed: str,
) -> tuple[str | None, list[Finding]]:
    """``(model to use, findings)`` for a documented ``model`` field that takes ``inherit`` or
    a model id (Cursor, Factory): not text is ignored, a Claude Code alias is not theirs.
    ``codes``: (the code for a value that is not text, the code for a Claude alias)."""
    from subagents.definition import MODEL_ALIASES

    if model is None:
        return None, []
    if not isinstance(model, str):
        return None, [Finding(codes[0], f"`model` should be {allowed} ({who})",
                              Effect.PORTABILITY, line, "model")]
    alias = model.strip().lower()
    if alias in MODEL_ALIASES and alias != "inherit":
        return model, [Finding(codes[1], f"`{model}` is a Claude Code alias; {who} lists "
                               f"{allowed}", Effect.PORTABILITY, line, "model")]
    return model, []
