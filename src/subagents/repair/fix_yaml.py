"""Repair a frontmatter that strict YAML rejects, judged by what Claude Code reads (``fix``).

:mod:`subagents.repair.fix` calls :func:`repair_frontmatter` when PyYAML (or the strict reader,
:mod:`subagents.formats`) rejects a frontmatter.  The result is strict YAML that PyYAML and
Claude Code (emulated by :func:`subagents.claude_code.read_claude_code`) read identically.

Fields, as the author wrote them
--------------------------------
The frontmatter is cut into fields line-wise: a line at column 0 of the form ``key:`` starts a
field, every other line continues the one before.  A ``key:`` line is *not* a field when its key
is one of the words of an example conversation (``user``, ``assistant``, ``Context``,
``Example``, ``Examples``, ``commentary``... see :data:`CONVERSATION_WORDS`, compared without
case): those lines are text of the value above them, as are ``<example>`` lines and sentences.
Any other key counts as a field, known to Claude Code or not, so a key the author meant is never
swallowed by a description.

Which text each field gets
--------------------------
* A field whose lines parse as YAML on their own is left byte for byte as it is (a field
  indented with tabs gets each leading tab replaced by two spaces, Claude Code's own rule),
  provided Claude Code reads the same value from it.
* **Claude Code reads the field whole** (its first YAML pass, or the lenient second pass that
  quotes ``key: value`` lines and turns tabs into spaces): the repaired value is exactly the
  value Claude Code read, as raw YAML text.  A literal ``\\n`` in a description stays the two
  characters ``\\n``: Claude Code turns them into a line break when it reads the file, before
  and after the repair alike.
* **Claude Code cuts the field** (the lenient pass read only the first line of a description and
  made keys of its ``user:``/``assistant:`` lines) **or skips the file** (neither pass parses):
  the repaired value is the whole text the author wrote up to the next field: the text after
  ``key:`` on the first line, then the continuation lines with their common indentation removed,
  line breaks kept, trailing spaces and trailing blank lines dropped.
* A field Claude Code reads whole whose own lines YAML reads differently (``model: sonnet #
  best``: Claude Code's second pass keeps ``# best``, YAML drops it as a comment) is not guessed
  at: the file is reported unrepairable, with both readings.

Refusals (nothing is written): text before the first field, a real key defined twice, a ``#``
line inside a value that would be re-written (text or comment? a person decides), a value that
starts with a quote or a block indicator and does not parse, and a continuation line that looks
like a mangled field — ``tools`` indented, ``tools Read`` without its colon, ``Tools:`` in the
wrong case.  Absorbing such a line into a description would lift the agent's tool limit.

Verification, after the repair and before anything is written: the new frontmatter parses with
PyYAML and with Claude Code's first pass (no lenient pass needed); both see exactly the fields
found above (none absorbed, none dropped); Claude Code reads every field as decided above;
PyYAML and Claude Code agree on ``name``, ``description``, ``tools`` and ``model``; the body is
unchanged.  Any failure leaves the file untouched and says why.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml

from subagents.claude_code import ClaudeCodeProfile, ParseMode, bun_yaml, read_claude_code
from subagents.claude_code.reader import split_block

__all__ = [
    "CONVERSATION_WORDS",
    "Edit",
    "Unfixable",
    "content",
    "emit_quoted",
    "emit_string_field",
    "ending",
    "is_blank",
    "needs_repair",
    "pyyaml_load",
    "repair_frontmatter",
    "verify",
]

# Words that start lines of example conversations inside descriptions: at column 0 they look
# like keys (``user: "..."``), but they are text.  Compared in lower case.
CONVERSATION_WORDS = frozenset(
    {
        "user",
        "assistant",
        "human",
        "ai",
        "claude",
        "system",
        "context",
        "example",
        "examples",
        "commentary",
        "note",
        "notes",
        "input",
        "output",
        "response",
        "reasoning",
        "result",
        "answer",
        "question",
    }
)

# Fields whose mangled spelling inside a text must stop a repair (Claude Code's own fields).
_AGENT_FIELDS = (
    "name",
    "description",
    "tools",
    "disallowedTools",
    "model",
    "color",
    "permissionMode",
    "maxTurns",
    "hooks",
    "skills",
    "mcpServers",
    "memory",
    "background",
    "effort",
    "isolation",
    "initialPrompt",
)
# Fields whose value is a text: tabs that would turn one into a list or a map are not
# taken for indentation.
_TEXT_FIELDS = frozenset({"name", "description", "model", "initialPrompt", "color"})
# The fields PyYAML and Claude Code must read identically after a repair.
_AGREE = ("name", "description", "tools", "model")

_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]|$)")
_INDENTED_FIELD = re.compile(r"^[ \t]+(" + "|".join(_AGENT_FIELDS) + r")[ \t]*:(?:[ \t]|$)")
_NO_COLON_FIELD = re.compile(r"^(" + "|".join(_AGENT_FIELDS) + r")(?:[ \t]*=|[ \t]+\S|[ \t]*$)")
_LEADING_TABS = re.compile(r"^\t+")


class Unfixable(Exception):
    """Stop and leave the file untouched (``line``: 1-based, in the text being repaired)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace ``lines[start:stop]`` (0-based) by ``new``; ``blank_after``: whitespace-only
    lines from ``stop`` on that must become empty (they would be text of a block scalar)."""

    start: int
    stop: int
    new: tuple[str, ...]
    code: str
    message: str
    blank_after: bool = False
    changes_meaning: bool = False  # Claude Code cut this value or skipped the file before


# --------------------------------------------------------------------------- lines


def content(line: str) -> str:
    return line.rstrip("\r\n")


def ending(line: str, default: str) -> str:
    return line[len(content(line)) :] or default


def is_blank(line: str) -> bool:
    return not line.strip()


def _strip_cr(line: str) -> str:
    return content(line).rstrip("\r")


# --------------------------------------------------------------------------- YAML


_Missing = object()


def pyyaml_load(text: str) -> Any:
    """``yaml.safe_load`` behind the nesting guard (a deep document can crash the C parser).

    Raises ``yaml.YAMLError`` (or :class:`bun_yaml.BunYamlError` when too deep)."""
    if bun_yaml.nesting_depth(text) > bun_yaml.MAX_DEPTH:
        raise bun_yaml.TooDeepError("nested too deeply")
    return yaml.safe_load(text)


def _both(text: str) -> tuple[Any, Any]:
    """(Claude Code's first-pass value, PyYAML's value) of a YAML text; ``_Missing`` for a
    parser that rejects it.  Claude Code's parser runs first: it refuses alias bombs and deep
    nesting before PyYAML could see them."""
    try:
        bun = bun_yaml.parse(text)
    except (bun_yaml.BunYamlError, ValueError, TypeError):
        return _Missing, _Missing
    try:
        py = yaml.safe_load(text)
    except (yaml.YAMLError, ValueError, TypeError):
        py = _Missing
    return bun, py


def needs_repair(block_text: str) -> bool:
    """True when PyYAML (behind the guards) rejects the frontmatter text."""
    try:
        bun_yaml.parse(block_text)
    except (bun_yaml.TooDeepError, bun_yaml.AliasBombError):
        return False  # a hostile file: the readers refuse it; nothing for fix to do
    except bun_yaml.BunYamlError:
        return True
    try:
        yaml.safe_load(block_text)
    except yaml.YAMLError:
        return True
    return False


# --------------------------------------------------------------------------- emitters


def _emit_block_scalar(key: str, value: str, nl: str) -> list[str] | None:
    """``key: |-`` followed by the value indented two spaces; None if no block can hold it."""
    if not value or any(ch in value for ch in "\r\x85\u2028\u2029\ufeff"):
        return None
    if any((ord(ch) < 32 and ch not in "\t\n") or ord(ch) == 127 for ch in value):
        return None
    body = value
    if value.endswith("\n"):
        stripped = value.rstrip("\n")
        chomp = "" if len(value) - len(stripped) == 1 else "+"
        body = stripped
    else:
        chomp = "-"
    lines = body.split("\n")
    # An explicit indentation indicator when the text itself starts with a space or with
    # blank lines (YAML would otherwise guess the indentation from the first text line).
    indicator = "2" if value[:1] in (" ", "\t", "\n") or not lines[0] else ""
    head = f"{key}: |{indicator}{chomp}{nl}"
    return [head] + [(f"  {line}" if line else "") + nl for line in lines]


def emit_quoted(key: str, value: str, nl: str) -> list[str]:
    dumped = yaml.safe_dump(
        value, default_style='"', width=1 << 30, allow_unicode=True, explicit_end=False
    )
    dumped = dumped.rstrip("\n")
    if dumped.endswith("\n..."):
        dumped = dumped[: -len("\n...")]
    return [f"{key}: {dumped}{nl}"]


def emit_string_field(
    key: str, value: str, nl: str, check: Callable[[list[str]], bool], *, short: bool = False
) -> list[str]:
    """The field as a literal block (readable diff) or, failing that, a double-quoted string.

    ``short``: a double-quoted string first (a one-line ``name``, ``model``...)."""
    if short and "\n" not in value:
        quoted = emit_quoted(key, value, nl)
        if check(quoted):
            return quoted
    block = _emit_block_scalar(key, value, nl)
    if block is not None and check(block):
        return block
    quoted = emit_quoted(key, value, nl)
    if check(quoted):
        return quoted
    raise Unfixable(f"cannot write `{key}` so that it reads back unchanged")


def _emit_list_field(key: str, items: list[str], nl: str) -> list[str]:
    out = [f"{key}:{nl}"]
    for item in items:
        out.append(f"  - {emit_quoted('x', item, '')[0][len('x: ') :]}{nl}")
    return out


# --------------------------------------------------------------------------- fields


@dataclass
class _Field:
    key: str  # as written
    start: int  # 0-based index of the key line in the file's lines
    stop: int  # exclusive; trailing blank and comment lines excluded
    lines: list[str]  # contents (no line endings) of lines[start:stop]
    tail_comments: bool = False  # comment lines follow before the next field
    decision: str = "keep"
    value: Any = _Missing  # what Claude Code must read after the repair
    py_value: Any = None  # what PyYAML read, when it differs (``name: yes``)


@dataclass
class _Plan:
    fields: list[_Field] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)


def _is_real_key(key: str) -> bool:
    return key.lower() not in CONVERSATION_WORDS


def _segment(lines: list[str], first: int, close: int) -> list[_Field]:
    fields: list[_Field] = []
    for i in range(first, close):
        text = _strip_cr(lines[i])
        m = _KEY_LINE.match(text)
        if m and _is_real_key(m.group(1)):
            fields.append(_Field(m.group(1), i, i + 1, [text]))
        elif fields:
            fields[-1].lines.append(text)
        elif text.strip() and not text.lstrip().startswith("#"):
            raise Unfixable("text before the first field of the frontmatter", i + 1)
    for f in fields:
        # trailing blank lines and comment lines stay where they are, outside the field
        n = len(f.lines)
        while n > 1 and (not f.lines[n - 1].strip() or f.lines[n - 1].startswith("#")):
            if f.lines[n - 1].startswith("#"):
                f.tail_comments = True
            n -= 1
        f.lines = f.lines[:n]
        f.stop = f.start + n
    seen: dict[str, int] = {}
    for f in fields:
        if f.key in seen:
            raise Unfixable(
                f"`{f.key}` is defined twice (lines {seen[f.key]} and {f.start + 1}); "
                "delete one of them",
                f.start + 1,
            )
        seen[f.key] = f.start + 1
    return fields


def _chunk_value(f: _Field, lines: list[str], *, judge: bool = True) -> tuple[Any, Any] | None:
    """(Claude Code's value, PyYAML's value) of one field's lines read on their own, or None
    when they are not YAML.  ``judge``: when Claude Code's parser reads them and PyYAML does
    not (or the other way round), refuse the file: which reading is meant is a guess."""
    bun, py = _both("\n".join(lines) + "\n")
    if bun is _Missing and py is _Missing:
        return None
    if bun is _Missing or py is _Missing:
        if not judge:
            return None
        raise Unfixable(
            f"Claude Code's YAML parser and PyYAML disagree on whether `{f.key}` (line "
            f"{f.start + 1}) is valid YAML; quote it by hand",
            f.start + 1,
        )
    if not (isinstance(bun, dict) and isinstance(py, dict) and len(bun) == 1 and len(py) == 1):
        return None
    if f.key not in bun:
        return None
    return bun[f.key], next(iter(py.values()))


def _untabbed(lines: list[str]) -> list[str]:
    return [_LEADING_TABS.sub(lambda m: "  " * len(m.group(0)), line) for line in lines]


def _intended_text(f: _Field) -> str:
    """The whole text the author wrote for a broken value, up to the next field."""
    first = f.lines[0].split(":", 1)[1].strip()
    if first[:1] in ("'", '"', "|", ">"):
        raise Unfixable(
            f"the `{f.key}` value starts like a quoted or block value but does not parse; "
            "it is unclear which text is meant: repair it by hand",
            f.start + 1,
        )
    rest = _untabbed(f.lines[1:])  # a leading tab indents like two spaces (Claude Code's rule)
    indents = [len(r) - len(r.lstrip(" ")) for r in rest if r.strip()]
    cut = min(indents) if indents else 0
    tail = [r[cut:].rstrip() if r.strip() else "" for r in rest]
    return "\n".join([first, *tail]) if first else "\n".join(tail)


def _check_continuation(f: _Field) -> None:
    """Refuse to turn into text a line that looks like a mangled field."""
    for offset, line in enumerate(f.lines[1:], start=1):
        where = f.start + offset + 1
        if line.lstrip().startswith("#"):
            raise Unfixable(
                f"a `#` line inside the broken `{f.key}` value (line {where}): is it text or a "
                "comment? Quote the value by hand",
                where,
            )
        m = _INDENTED_FIELD.match(line)
        if m:
            raise Unfixable(
                f"line {where} looks like the `{m.group(1)}` field, indented: it would become "
                f"text of `{f.key}`; un-indent it (or quote the text) by hand",
                where,
            )
        m = _NO_COLON_FIELD.match(line)
        if m:
            raise Unfixable(
                f"line {where} looks like the `{m.group(1)}` field without its `:`; it would "
                f"become text of `{f.key}`: repair it by hand",
                where,
            )


def _show(value: Any) -> str:
    if not isinstance(value, str):
        return repr(value)
    return repr(value if len(value) <= 60 else value[:57] + "...")


Reading = Literal["whole", "cut", "skipped"]


def _agreeing(f: _Field, decision: str, parsed: tuple[Any, Any]) -> str:
    """``rewrite-quote`` when PyYAML would read a text field differently (``name: yes``)."""
    bun, py = parsed
    if f.key in _AGREE and isinstance(bun, str) and py != bun:
        f.py_value = py
        return "rewrite-quote"
    return decision


def _decide(f: _Field, reading: Reading, cc_fm: Mapping[str, Any], cut_keys: set[str]) -> None:
    """Set ``f.decision`` (keep, untab, rewrite) and ``f.value`` (what Claude Code must read)."""
    as_is = _chunk_value(f, f.lines)
    has_tabs = any(_LEADING_TABS.match(line) for line in f.lines)
    untabbed = _chunk_value(f, _untabbed(f.lines)) if as_is is None and has_tabs else None
    if untabbed is not None and f.key in _TEXT_FIELDS and not isinstance(untabbed[0], str):
        untabbed = None  # the tabs were not indentation of a text: it is text itself
    parsed, decision = (as_is, "keep") if as_is is not None else (untabbed, "untab")
    cut_here = any(
        (m := _KEY_LINE.match(line)) is not None and m.group(1) in cut_keys for line in f.lines[1:]
    )
    if reading == "whole" or (reading == "cut" and not cut_here):
        if f.key not in cc_fm:
            raise Unfixable(
                f"Claude Code does not read `{f.key}` as a field here; repair it by hand",
                f.start + 1,
            )
        cc_value = cc_fm[f.key]
        if parsed is not None:
            if parsed[0] != cc_value:
                raise Unfixable(
                    f"Claude Code reads `{f.key}` as {_show(cc_value)} (its second, lenient "
                    f"YAML pass), YAML reads {_show(parsed[0])}: decide which is meant and "
                    "quote it by hand",
                    f.start + 1,
                )
            f.decision, f.value = _agreeing(f, decision, parsed), cc_value
            return
        if not isinstance(cc_value, str):
            raise Unfixable(
                f"cannot re-write `{f.key}` (Claude Code reads {_show(cc_value)}) as strict YAML",
                f.start + 1,
            )
        _check_continuation(f)
        f.decision, f.value = "rewrite-same", cc_value
        return
    if parsed is not None:
        f.decision, f.value = _agreeing(f, decision, parsed), parsed[0]
        return
    _check_continuation(f)
    f.decision = "rewrite-cut" if reading == "cut" else "rewrite-skipped"
    f.value = _intended_text(f)


# --------------------------------------------------------------------------- the repair


def _reading(
    text: str, profile: ClaudeCodeProfile | None
) -> tuple[Reading, Mapping[str, Any], set[str]]:
    view = read_claude_code(text, profile=profile)
    if view.parse not in (ParseMode.YAML, ParseMode.LENIENT) or not view.frontmatter:
        return "skipped", {}, set()
    return "whole", view.frontmatter, set()


def repair_frontmatter(
    lines: list[str], close: int, profile: ClaudeCodeProfile | None = None
) -> tuple[list[Edit], dict[str, Any]]:
    """The edits that make ``lines[1:close]`` strict YAML (``lines[0]`` is the opening ``---``),
    and every field with the value Claude Code must read from it afterwards (for :func:`verify`).

    Raises :class:`Unfixable` with the reason when that cannot be done safely."""
    text = "".join(lines)
    block = split_block(text)
    closing = lines[close] if close < len(lines) else ""
    ours = "".join(lines[1:close]) + closing[: len(closing) - len(closing.lstrip(" \t"))]
    if block is None or block[0] != ours:
        cc_end = (
            text.count("\n", 0, text.rfind("---", 0, len(text) - len(block[1]))) + 1
            if block is not None
            else None
        )
        where = f"on line {cc_end}" if cc_end is not None else "nowhere"
        raise Unfixable(
            f"Claude Code ends the frontmatter {where}, not at the closing line {close + 1} "
            "(its frontmatter ends at the first `---` anywhere, and never at `...`): "
            "repair it by hand",
            close + 1,
        )
    fields = _segment(lines, 1, close)
    if not fields:
        raise Unfixable("the frontmatter has no `key: value` fields")
    real = [f.key for f in fields]
    reading, cc_fm, _ = _reading(text, profile)
    cut_keys: set[str] = set()
    if reading == "whole":
        extra = set(cc_fm) - set(real)
        missing = [k for k in real if k not in cc_fm]
        if missing:
            raise Unfixable(
                "Claude Code does not read these fields: "
                + ", ".join(f"`{k}`" for k in missing)
                + "; repair the frontmatter by hand"
            )
        odd = sorted(k for k in extra if k.lower() not in CONVERSATION_WORDS)
        if odd:
            raise Unfixable(
                "Claude Code reads fields that are not on lines of their own here: "
                + ", ".join(f"`{k}`" for k in odd)
                + "; repair the frontmatter by hand"
            )
        if extra:
            reading, cut_keys = "cut", extra
    for f in fields:
        _decide(f, reading, cc_fm, cut_keys)
    edits: list[Edit] = []
    for f in fields:
        nl = ending(lines[f.start], "\n")
        if f.decision == "keep":
            continue
        if f.decision == "untab":
            new = [
                _LEADING_TABS.sub(lambda m: "  " * len(m.group(0)), content(line))
                + ending(line, nl)
                for line in lines[f.start : f.stop]
            ]
            edits.append(
                Edit(
                    f.start,
                    f.stop,
                    tuple(new),
                    "tabs",
                    f"replaced the tab indentation of `{f.key}` with spaces (YAML allows only "
                    + (
                        "spaces; Claude Code reads it the same way)"
                        if reading != "skipped"
                        else "spaces; Claude Code could not read the frontmatter and skipped "
                        "the file)"
                    ),
                    changes_meaning=reading == "skipped",
                )
            )
            continue
        if f.tail_comments and f.decision != "rewrite-same":
            raise Unfixable(
                f"a `#` line follows the broken `{f.key}` value: is it text or a comment? "
                "Quote the value by hand",
                f.stop + 1,
            )
        edits.append(_rewrite(f, nl, cut_keys))
    if not edits:
        raise Unfixable("could not find which field breaks the YAML; repair it by hand")
    return edits, {f.key: f.value for f in fields}


def _rewrite(f: _Field, nl: str, cut_keys: set[str]) -> Edit:
    value = f.value
    key = f.key

    def reads_back(candidate: list[str]) -> bool:
        got = _chunk_value(f, [content(c) for c in candidate], judge=False)
        return got is not None and got[0] == value and got[1] == value

    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        new = _emit_list_field(key, value, nl)
        if not reads_back(new):
            raise Unfixable(f"cannot write `{key}` so that it reads back unchanged", f.start + 1)
        style = "a YAML list"
    elif isinstance(value, str):
        new = emit_string_field(
            key, value, nl, reads_back, short=key not in ("description", "initialPrompt")
        )
        style = (
            "a block scalar (`|`)"
            if new[0].rstrip("\r\n").endswith(("|-", "|", "|+", "|2-", "|2", "|2+"))
            else "a quoted string"
        )
    else:
        raise Unfixable(f"cannot re-write `{key}` as strict YAML", f.start + 1)
    n = len(value)
    unit = "characters" if isinstance(value, str) else "entries"
    if f.decision == "rewrite-quote":
        why = f"PyYAML read it as {_show(f.py_value)}, Claude Code as text"
    elif f.decision == "rewrite-same":
        why = f"Claude Code reads the same value as before ({n} {unit})"
    elif f.decision == "rewrite-cut":
        lines = list(
            dict.fromkeys(
                m.group(1)
                for line in f.lines[1:]
                if (m := _KEY_LINE.match(line)) and m.group(1) in cut_keys
            )
        )
        why = (
            "Claude Code read only its first line and took the lines "
            + ", ".join(f"`{k}:`" for k in lines)
            + f" as fields of their own; it now reads the whole text, up to the next field "
            f"({n} {unit})"
        )
    else:
        why = (
            "Claude Code could not read the frontmatter and skipped the file; the value is the "
            f"whole text written, up to the next field ({n} {unit})"
        )
    return Edit(
        f.start,
        f.stop,
        tuple(new),
        "SA010",
        f"re-wrote `{key}` as {style}: {why}",
        blank_after=True,
        changes_meaning=f.decision != "rewrite-same",
    )


# --------------------------------------------------------------------------- verification


def verify(
    before: str,
    lines: list[str],
    close: int,
    expected: Mapping[str, Any],
    profile: ClaudeCodeProfile | None = None,
) -> None:
    """Re-read the repaired lines; raise :class:`Unfixable` unless they read exactly as planned.

    ``close``: the index of the closing ``---``; ``expected``: every field (as written) and the
    value Claude Code must read from it."""
    after = "".join(lines)
    block = "".join(_strip_cr(line) + "\n" for line in lines[1:close])
    try:
        py = pyyaml_load(block)
    except (yaml.YAMLError, bun_yaml.BunYamlError) as exc:
        raise Unfixable(f"PyYAML cannot read the repaired frontmatter: {exc}") from exc
    view = read_claude_code(after, profile=profile)
    if view.parse is not ParseMode.YAML:
        raise Unfixable("Claude Code would still need its lenient second pass to read the repair")
    if not isinstance(py, dict):
        raise Unfixable("PyYAML does not read the repaired frontmatter as fields")
    fm = view.frontmatter
    if list(fm) != list(expected) or len(py) != len(expected):
        raise Unfixable(
            "the repair would change which fields Claude Code sees: "
            f"{', '.join(expected)} before, {', '.join(fm)} after"
        )
    for key, value in expected.items():
        if fm[key] != value:
            raise Unfixable(f"the repair would change what Claude Code reads in `{key}`")
    for key in _AGREE:
        if key in fm and py.get(key, _Missing) != fm[key]:
            raise Unfixable(f"PyYAML and Claude Code would read `{key}` differently")
    old_block, new_block = split_block(before), split_block(after)
    if old_block is None or new_block is None or old_block[1] != new_block[1]:
        raise Unfixable("the repair would change the body")
