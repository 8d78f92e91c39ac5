"""What the editor shows for one document: its diagnostics and the code actions that fix them.

Design notes
------------
* Plain Python, no pygls: positions are 0-based lines and code-point columns; the server turns
  them into the client's units.
* Diagnostics are ``subagents validate FILE`` on the editor's text (see the package docstring):
  the text goes to a private copy under one temporary folder per server, at a path that keeps
  the file's name and its harness folder (``.codex/agents/x.toml``), and the copy is validated
  with the dialect the *real* path has and the configuration found from the real folder.  The
  copy's path is replaced by the real one in messages.  One copy per document, so two
  documents can be checked at once.
* A configuration file that does not load is one diagnostic on the first line (with the
  reason), and the document is still checked with the defaults: a typo in ``.subagents.toml``
  must not hide every finding.
* Code actions come from ``subagents fix`` (:func:`subagents.repair.fix.fix_text`, the same
  repair, verified the same way): the whole repair as ``source.fixAll``, the same repair as a
  quick fix on each diagnostic whose rule names a repair, the two ``tools`` spellings for the
  rule that is about them, and "silence this rule in this file" (a frontmatter comment) for a
  rule that may be silenced; and, for a finding whose hint says "did you mean X?" about a value
  its message quotes (a misspelt tool, key or hook event), X in its place.  Edits are minimal
  line replacements (difflib), so the cursor and the undo history stay where they were.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from subagents.definition import Dialect
from subagents.diagnostics import Diagnostic, Severity
from subagents.errors import SubagentError
from subagents.harnesses.loader import detect_dialect

if TYPE_CHECKING:
    from subagents.lint.config import Config

__all__ = [
    "Action",
    "Checker",
    "Finding",
    "LineEdit",
    "agent_dialect",
    "code_actions",
    "line_edits",
]

# Markdown files a folder walk never takes for agents (as `validate` walks a folder).
_NOT_AGENTS = frozenset({"readme.md", "changelog.md", "contributing.md", "license.md",
                         "code_of_conduct.md", "security.md", "claude.md", "agents.md",
                         "skill.md", "gemini.md"})
# harness folders, as path parts: the copy keeps the path from the first of these on
_HARNESS_ROOTS = frozenset({".claude", ".codex", ".github", ".opencode", ".gemini", ".qwen",
                            ".cursor", ".factory", ".copilot"})
_AGENT_FOLDERS = frozenset({"agents", "agent", "droids"})
# dialects whose files `fix` repairs and whose frontmatter takes a `# subagents: ignore` line
_MARKDOWN_FIXABLE = (Dialect.CLAUDE, Dialect.CODEX_MD)


def agent_dialect(path: str | os.PathLike[str]) -> Dialect | None:
    """The dialect ``validate`` reads ``path`` as, when it is an agent file; None for any other
    file (a README, a ``package.json``, a Markdown file outside every agents folder)."""
    p = Path(path)
    low = p.name.lower()
    parts = [part.lower() for part in p.parent.parts]
    if low in ("opencode.json", "opencode.jsonc"):
        return Dialect.OPENCODE
    if low == "agents.json" or low.endswith(".agents.json"):
        return Dialect.JSON
    if low.endswith(".toml"):
        return detect_dialect(p)  # only .codex/agents/*.toml is an agent file
    if not low.endswith(".md") or low in _NOT_AGENTS:
        return None
    in_agents_folder = any(part in _AGENT_FOLDERS for part in parts)
    if in_agents_folder or low.endswith(".agent.md"):
        return detect_dialect(p) or Dialect.CLAUDE
    return None


@dataclass(frozen=True, slots=True)
class Finding:
    """A diagnostic with the 0-based range it underlines (code-point columns)."""

    diagnostic: Diagnostic
    line: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class LineEdit:
    """Replace lines ``[start, end)`` (0-based) by ``text``; with ``end_column``, replace from
    the start of line ``start`` to column ``end_column`` of line ``end`` instead (an edit that
    runs to the end of a last line that has no line break)."""

    start: int
    end: int
    text: str
    end_column: int | None = None


@dataclass(frozen=True, slots=True)
class Action:
    title: str
    kind: str  # "quickfix" or "source.fixAll"
    edits: tuple[LineEdit, ...]
    diagnostics: tuple[Finding, ...] = ()
    preferred: bool = False


def _shadow_tail(path: Path) -> Path:
    """The part of ``path`` the copy keeps: from the harness folder (or agents folder) on."""
    parts = path.parts
    for i, part in enumerate(parts[:-1]):
        if part.lower() in _HARNESS_ROOTS:
            return Path(*parts[i:])
    for i in range(len(parts) - 2, -1, -1):
        if parts[i].lower() in _AGENT_FOLDERS:
            return Path(*parts[i:])
    return Path(path.name)


@dataclass
class Checker:
    """Validates editor text as ``subagents validate FILE`` would the file.  Thread-safe for
    different documents (each has its own copy); the server checks one document at a time."""

    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="subagents-lsp-")))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def settings(self, path: Path) -> tuple[Config, str | None]:
        """The configuration for a file at ``path`` and, when its file is broken, why."""
        from subagents.lint.config import Config, find_config, load_config

        try:
            found = find_config(path)
            return (load_config(found) if found is not None else Config()), None
        except SubagentError as exc:
            return Config(), f"the subagents configuration is not used: {exc}"
        except OSError as exc:
            return Config(), f"the subagents configuration cannot be read: {exc}"

    def check(self, path: Path, text: str, *, strict: bool = False) -> list[Finding]:
        """The findings for ``text`` as the content of ``path`` (empty for a non-agent file)."""
        from subagents.lint.validate import validate_paths

        dialect = agent_dialect(path)
        if dialect is None:
            return []
        config, problem = self.settings(path)
        folder = self.root / hashlib.sha256(str(path).encode("utf-8", "surrogatepass")
                                            ).hexdigest()[:16]
        copy = folder / _shadow_tail(path)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(text.encode("utf-8", "surrogatepass"))
        report = validate_paths([str(copy)], strict=strict, dialect=dialect, config=config,
                                ignore=config.ignores_for(path))
        lines = text.split("\n")
        shown, real = str(copy), str(path)
        out: list[Finding] = []
        if problem is not None:
            out.append(_place(Diagnostic(path=real, line=1, column=1, rule="config",
                                         severity=Severity.WARNING, message=problem), lines))
        for d in report.diagnostics:
            out.append(_place(dataclasses.replace(
                d, path=real, message=d.message.replace(shown, real),
                hint=d.hint.replace(shown, real) if d.hint else None), lines))
        return out


def _place(d: Diagnostic, lines: Sequence[str]) -> Finding:
    """The range a diagnostic underlines: from its column to the end of its line's text (the
    whole first line for a finding about the file)."""
    line = max(0, min((d.line or 1) - 1, len(lines) - 1)) if lines else 0
    text = lines[line].rstrip("\r") if lines else ""
    end = len(text.rstrip()) or len(text)
    start = max(0, (d.column or 1) - 1) if d.line is not None else 0
    if start >= end:
        start = min(start, len(text))
        end = min(start + 1, len(text)) if start < len(text) else start
    return Finding(d, line, start, end)


def line_edits(old: str, new: str) -> tuple[LineEdit, ...]:
    """The smallest line replacements that turn ``old`` into ``new``."""
    import difflib

    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    out: list[LineEdit] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        end_column = None
        end = i2
        if i2 == len(a) and a and not a[-1].endswith(("\n", "\r")):
            end, end_column = i2 - 1, len(a[-1])  # runs to the end of an unterminated line
        out.append(LineEdit(i1, end, "".join(b[j1:j2]), end_column))
    return tuple(out)


def _silence_edit(text: str, code: str) -> LineEdit | None:
    """A ``# subagents: ignore[CODE]`` line just after the opening ``---``."""
    first, sep, _rest = text.partition("\n")
    if first.rstrip("\r").rstrip() != "---" or not sep:
        return None
    ending = "\r\n" if first.endswith("\r") else "\n"
    return LineEdit(1, 1, f"# subagents: ignore[{code}]{ending}")


_BAD = re.compile(r"'([^'\n]+)'")
_GOOD = re.compile(r"did you mean [`']?([^`'?\s]+)[`']?\?")


def _suggestion(text: str, f: Finding) -> Action | None:
    """A finding whose hint says "did you mean X?" about a value its message quotes: write X
    in place of the value (a misspelt tool, key or hook event)."""
    d = f.diagnostic
    bad, good = _BAD.search(d.message), _GOOD.search(d.hint or "")
    if bad is None or good is None:
        return None
    lines = text.split("\n")
    if not 0 <= f.line < len(lines):
        return None
    line = lines[f.line]
    at = line.find(bad.group(1), f.start)
    if at < 0:
        at = line.find(bad.group(1))
    if at < 0:
        return None
    new = line[:at] + good.group(1) + line[at + len(bad.group(1)):]
    ending = "\n" if f.line < len(lines) - 1 else ""
    edit = (LineEdit(f.line, f.line + 1, new + ending) if ending
            else LineEdit(f.line, f.line, new, len(line)))
    return Action(f"Write {good.group(1)!r} instead of {bad.group(1)!r}", "quickfix", (edit,),
                  (f,), True)


def code_actions(path: Path, text: str, findings: Sequence[Finding],
                 *, claude_code: str | None = None) -> list[Action]:
    """The code actions for ``findings`` (those under the cursor) in a document."""
    from subagents.claude_code import get_profile
    from subagents.lint.rules.catalog import get_rule
    from subagents.repair.fix import FixStatus, fix_text

    dialect = agent_dialect(path)
    if dialect is None:
        return []
    actions = [a for f in findings if (a := _suggestion(text, f)) is not None]
    if dialect not in _MARKDOWN_FIXABLE:
        return actions
    try:
        profile = get_profile(claude_code)
    except SubagentError:
        profile = get_profile()
    repaired = fix_text(text, path=str(path), dialect=dialect, claude_code=profile)
    repair_edits: tuple[LineEdit, ...] = ()
    if repaired.status is FixStatus.FIXED:
        fixed = repaired.fixed.decode("utf-8", "surrogatepass")
        repair_edits = line_edits(text, fixed)
        what = "; ".join(dict.fromkeys(c.message for c in repaired.changes)) or "repair"
        actions.append(Action(f"Repair this file (subagents fix): {what}", "source.fixAll",
                              repair_edits))
    for f in findings:
        rule = get_rule(f.diagnostic.rule)
        if rule is None:
            continue
        if rule.fix == "tools-style":
            styles: tuple[Literal["comma"], Literal["list"]] = ("comma", "list")
            for style in styles:
                restyled = fix_text(text, path=str(path), dialect=dialect,
                                    tools_style=style,
                                    claude_code=profile)
                if restyled.status is FixStatus.FIXED:
                    new = restyled.fixed.decode("utf-8", "surrogatepass")
                    label = "a comma-separated string" if style == "comma" else "a YAML list"
                    actions.append(Action(f"Write the tools as {label}", "quickfix",
                                          line_edits(text, new), (f,), style == "comma"))
        elif rule.fix is not None and repair_edits:
            actions.append(Action(f"Repair {rule.code} (subagents fix)", "quickfix",
                                  repair_edits, (f,), True))
        if rule.silenceable:
            edit = _silence_edit(text, rule.code)
            if edit is not None:
                actions.append(Action(f"Silence {rule.code} ({rule.name}) in this file",
                                      "quickfix", (edit,), (f,)))
    return actions
