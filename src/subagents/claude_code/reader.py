"""One agent file as Claude Code reads it: loaded or skipped (and why), and with which values.

This is an emulation of Claude Code's own agent loader, written from its behaviour as measured
(``subagents.conformance`` records it from the real CLI; ``docs/conformance.md``) and from
reading its bundled source. It answers "does Claude Code load this file, and what does it make
of it?" so that the registry lists exactly the agents Claude Code lists and ``validate`` can say
where the two disagree. The strict reader (:mod:`subagents.formats`) stays the judge of
positions and portability; this module is the judge of what Claude Code does.

The steps, in Claude Code's order:

1. **Bytes.** Over the profile's size limit (1 MiB in 2.1.330): skipped, with a debug line.
   Invalid UTF-8 becomes U+FFFD and the file still loads. One leading BOM is dropped; CRLF
   stays (the body keeps its ``\\r\\n``).
2. **The block.** The file must start with ``---`` at byte 0 and the block ends at the *first*
   ``---`` anywhere after the opening line, even mid-line (Claude Code's pattern is
   ``^---\\s*\\n([\\s\\S]*?)---\\s*\\n?``). No block: the file is skipped without a word.
3. **YAML**, twice: Bun's parser (:mod:`.bun_yaml`); if that throws, the *lenient second pass*
   quotes each ``key: value`` line at column 0 whose key is letters, ``_`` and ``-`` only and
   whose value holds one of ``{}[]*&#!|>%@``, a backtick or ``": "`` (unless already quoted or a
   flow list), turns leading tabs into two spaces each, and parses again. Failing both, the
   frontmatter is ``{}`` and the file is skipped (logged).
4. **Name and description.** ``name`` a non-empty string (a missing or empty one is skipped
   silently; a number is logged), not starting with ``-``, at most 256 characters, no ``:``
   after NFKC folding; ``description`` a non-empty string. Each literal ``\\n`` in the
   description becomes a newline. Neither is trimmed.
5. **Other fields** are ignored when invalid, never fatal (``maxTurns``, ``background``,
   ``permissionMode``, ``effort``, ``isolation``, ``memory``, ``color``, a non-string
   ``model``, a ``mcpServers`` that is not a list), except malformed hooks that guard tool use
   (``PreToolUse``/``PermissionRequest``), which make the agent unloadable.
6. **Tools.** A string or the strings of a list, split on commas and spaces outside
   parentheses; ``*`` anywhere means all tools. Missing means all tools; present but empty
   (null, ``""``, ``[]``, a map, a number) means **no tools**, although the listing says "All
   tools". Unknown names are listed as written and dropped when the agent is spawned.
7. **Body:** the text after the block, trimmed.

An alias bomb is read as Claude Code 2.1.332 reads it: its first pass throws, and the lenient
second pass quotes every ``key: *alias`` line, so the values are literal text.  The alias guard
of :mod:`.bun_yaml` measures the expansion on the composed nodes before anything is built, so
this never costs more than the text's size.  Deliberate difference: a bomb that survives the
second pass too (aliases on indented lines) is refused as a security finding.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import field, replace
from enum import StrEnum
from itertools import filterfalse

from subagents._dataclass import dataclass
from subagents.claude_code import bun_yaml
from subagents.claude_code.profile import ClaudeCodeProfile, get_profile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "ClaudeCodeView",
    "Note",
    "ParseMode",
    "Skip",
    "SkipKind",
    "as_plugin_agent",
    "lenient_rewrite",  # noqa: F822 - in .lenient, given by the module's __getattr__
    "listing_tools",
    "read_claude_code",
    "split_block",
    "split_tools",
]


# JavaScript's \s (and what String.prototype.trim removes), which is not Python's: no
# \x1c-\x1f or \x85, but U+FEFF. Claude Code's patterns and trims use this set.
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_SPACE_CHARS = "\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff" + "".join(
    chr(c) for c in range(0x2000, 0x200B)
)


_JS_SPACE_SET = frozenset(_JS_SPACE_CHARS)


def js_trim(text: str) -> str:
    """``String.prototype.trim``."""
    return text.strip(_JS_SPACE_CHARS)


class ParseMode(StrEnum):
    NONE = "none"  # no frontmatter block
    YAML = "yaml"  # Bun's parser read it
    LENIENT = "lenient"  # only the second, lenient pass read it
    FAILED = "failed"  # neither pass read it
    REFUSED = "refused"  # we refused it for safety (nesting, alias bomb)


class SkipKind(StrEnum):
    TOO_LARGE = "too-large"
    NO_FRONTMATTER = "no-frontmatter"
    YAML = "yaml"
    REFUSED = "refused"
    NO_NAME = "no-name"
    BAD_NAME = "bad-name"
    NO_DESCRIPTION = "no-description"
    HOOKS = "hooks"


@dataclass(frozen=True, slots=True)
class Skip:
    """Why Claude Code does not load a file, and whether it says so in its debug log."""

    kind: SkipKind
    message: str
    logged: bool
    #: A refusal because YAML aliases expand without bound (an alias bomb, a recursive alias).
    alias: bool = False


@dataclass(frozen=True, slots=True)
class Note:
    """A field Claude Code ignores, or another silent change, with the key it concerns."""

    key: str
    message: str
    rule: str | None = None  # the finding's rule when it is not the key's own
    hint: str | None = None  # the finding's hint when the rule's own does not fit


@dataclass(slots=True)
class ClaudeCodeView:
    """What one Claude Code version makes of one file.

    Read-only by convention, not frozen: a frozen dataclass of this many fields costs four
    times as much to build, and one is built for every file ``validate`` and ``list`` read."""

    profile: ClaudeCodeProfile
    loaded: bool
    skip: Skip | None
    parse: ParseMode
    frontmatter: Mapping[str, Any] = field(default_factory=dict)
    name: str | None = None
    description: str | None = None
    model: str | None = None  # trimmed; "inherit" normalised; None = the parent's
    # None = every tool; () = no tool at all; else the entries as split
    tools: tuple[str, ...] | None = None
    disallowed_tools: tuple[str, ...] | None = None
    body: str = ""
    notes: tuple[Note, ...] = ()
    unknown_keys: tuple[str, ...] = ()
    quoted_keys: tuple[str, ...] = ()  # keys the lenient pass quoted
    block_text: str = ""  # the frontmatter text Claude Code parsed
    block_line: int = 2  # the file line (1-based) where that text starts
    error_line: int | None = None  # the file line of the YAML error that made it skip
    block_cut_inline: bool = False  # the block ended at a `---` that is not a line of its own
    replaced_bytes: bool = False  # invalid UTF-8 was replaced with U+FFFD
    # the frontmatter value came from the caller's parse of the same text (parsed_block)
    shared_parse: bool = False

    @property
    def tools_listing(self) -> str:
        """The ``(Tools: ...)`` text of Claude Code's agent listing."""
        return listing_tools(self.tools, self.disallowed_tools)

    def essentials(self) -> tuple[object, ...]:
        """What Claude Code runs from the file: loaded, name, description, tools, model, body.
        Two readings with equal essentials make the same agent (``fix`` checks its repairs so)."""
        return (
            self.loaded,
            self.name,
            self.description,
            self.tools,
            self.disallowed_tools,
            self.model,
            self.body,
        )

    @property
    def spawn_model(self) -> str | None:
        """The model id a spawned subagent gets (None: the parent's)."""
        return self.profile.resolve_model(self.model)


# --------------------------------------------------------------------------- the block


def split_block(text: str) -> tuple[str, str, int] | None:
    """``(frontmatter text, rest, start offset of the text)`` as Claude Code splits a file.

    Claude Code matches ``^---\\s*\\n([\\s\\S]*?)---\\s*\\n?``; this is the same match done
    with ``str.find`` (the regex's lazy group tries every position; this is measurably
    cheaper on every file): the text starts after the last newline of the whitespace that
    follows the opening ``---`` and ends at the next ``---``, wherever it is.  ``text`` has
    its BOM already removed; the rest is not trimmed here.
    """
    bounds = _block_bounds(text)
    if bounds is None:
        return None
    start, end, rest = bounds
    return text[start:end], text[rest:], start


def _block_bounds(text: str) -> tuple[int, int, int] | None:
    """:func:`split_block` as offsets: where the frontmatter text starts and ends, and where
    the rest starts (after the whitespace that follows the closing ``---``)."""
    # (one search for the close, from the block's start: a search from the opening first,
    # to give up early, looked through the block twice on every file)
    if text[:4] == "---\n" and text[4:5] not in _JS_SPACE_SET:
        start = 4  # (nearly every file: the opening line is `---` alone, then a key)
    else:
        if not text.startswith("---"):
            return None
        i = 3
        while i < len(text) and text[i] in _JS_SPACE_SET:
            i += 1
        newline = text.rfind("\n", 3, i)
        if newline < 0:
            return None
        start = newline + 1
    end = text.find("---", start)
    if end < 0:
        return None
    j = end + 3
    n = len(text)
    while j < n and text[j] in _JS_SPACE_SET:
        j += 1
    return start, end, j


def _after_blank_lines(parsed: str, block_text: str) -> bool:
    """Whether ``parsed`` is ``block_text`` after empty lines only (``---``, a blank line,
    then the keys: Claude Code's block starts after the blank lines, the strict reader's text
    at them); YAML reads empty lines before a document as nothing, so the value is the same."""
    extra = len(parsed) - len(block_text)
    return (extra > 0 and parsed.endswith(block_text)
            and parsed.count("\n", 0, extra) == extra)


def _trimmed_rest(text: str, at: int) -> str:
    """``js_trim(text[at:])`` for an ``at`` that :func:`_block_bounds` gave (no whitespace
    starts the rest), copying the body once instead of twice: the whitespace at its end is
    counted from the end; a long run of it is left to ``js_trim``."""
    end = len(text)
    stop = max(at, end - 64)
    while end > stop and text[end - 1] in _JS_SPACE_SET:
        end -= 1
    if end == stop and end > at:
        return js_trim(text[at:end])
    return text[at:end]


#: Why a file that starts with ``---`` has no block when that line never ends (a skip message).
OPENING_NOT_ENDED = (
    "the opening `---` is not followed by a line break (only whitespace may follow it on its "
    "line, and a lone carriage return does not end a line)"
)


def _opening_line_ends(text: str) -> bool:
    """Whether the ``---`` at the start of ``text`` is followed by whitespace holding a line
    feed, as Claude Code's block pattern needs (then only a missing close can stop it)."""
    i = 3
    while i < len(text) and text[i] in _JS_SPACE_SET:
        if text[i] == "\n":
            return True
        i += 1
    return False


# --------------------------------------------------------------------------- tools


def _split_item(item: str) -> list[str]:
    """Claude Code's character loop: commas and spaces split, except inside parentheses."""
    out: list[str] = []
    current = ""
    inside = False
    for ch in item:
        if ch == "(":
            inside = True
            current += ch
        elif ch == ")":
            inside = False
            current += ch
        elif ch == "," and not inside:
            if js_trim(current):
                out.append(js_trim(current))
            current = ""
        elif ch == " " and not inside:
            if js_trim(current):
                out.append(js_trim(current))
                current = ""
        elif current or js_trim(ch):
            current += ch
    if js_trim(current):
        out.append(js_trim(current))
    return out


def split_tools(value: Any) -> tuple[str, ...] | None:
    """``tools``/``disallowedTools`` as Claude Code reads them (None = every tool)."""
    if type(value) is str and "(" not in value and value.isprintable():
        # (the usual `Read, Grep`) printable text holds no whitespace but the space (every
        # other character Python or JavaScript counts as whitespace is a control or
        # separator character, not printable): commas and spaces split it, and no piece
        # has anything to trim
        tools = value.replace(",", " ").split()
        return None if "*" in tools else tuple(tools)
    if value is None:
        return ()
    if not value and not isinstance(value, (list, dict)):
        return ()  # "", 0, false
    if isinstance(value, str):
        items = [value]
    elif isinstance(value, list):
        items = [v for v in value if isinstance(v, str)]
    else:
        return ()  # a map, a number, true
    if not items:
        return ()
    out: list[str] = []
    for item in items:
        if not item:
            continue
        if "(" not in item and item.isprintable():
            out.extend(item.replace(",", " ").split())  # (as for text above)
        elif "(" not in item:
            # no parentheses: every comma and space splits, each piece trimmed (the same
            # result as the character loop, which only parentheses make necessary; the
            # same pieces as splitting on `[, ]`)
            for piece in item.replace(",", " ").split(" "):
                tool = piece.strip(_JS_SPACE_CHARS)
                if tool:
                    out.append(tool)
        else:
            out.extend(_split_item(item))
    if "*" in out:
        return None
    return tuple(out)


def listing_tools(tools: tuple[str, ...] | None, disallowed: tuple[str, ...] | None) -> str:
    """The ``(Tools: ...)`` text Claude Code shows for an agent."""
    if tools and disallowed:
        left = [t for t in tools if t not in set(disallowed)]
        return ", ".join(left) if left else "None"
    if tools:
        return ", ".join(tools)
    if disallowed:
        return "All tools except " + ", ".join(disallowed)
    return "All tools"


# --------------------------------------------------------------------------- fields


def _name_problem(name: str, profile: ClaudeCodeProfile) -> str | None:
    if name.startswith("-"):
        return f"`name` {_show(name)!r} starts with `-`"
    if len(name) > profile.max_name_length:
        return (
            f"`name` is {len(name)} characters long; the limit is {profile.max_name_length}"
        )
    if ":" in name:
        return f"`name` {_show(name)!r} contains `:` (kept for plugin namespaces)"
    # (NFKC leaves ASCII text as it is: only a name with other characters can fold to `:`)
    if not name.isascii() and ":" in unicodedata.normalize("NFKC", name):
        return (
            f"`name` {_show(name)!r} contains a character that Unicode folds to `:` "
            "(kept for plugin namespaces)"
        )
    return None


def _positive_int(value: Any) -> int | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value if value > 0 else None
    if isinstance(value, float):
        return int(value) if value.is_integer() and value > 0 else None
    try:
        number = float(str(value).strip())
    except ValueError:
        return None
    return int(number) if number.is_integer() and number > 0 else None


def _effort_ok(value: Any, profile: ClaudeCodeProfile) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value > 0
    text = str(value).lower()
    if text in profile.efforts:
        return True
    try:
        return int(text) > 0
    except ValueError:
        return False


#: the fields :func:`_field_notes` judges
_NOTED_KEYS = frozenset({"model", "background", "memory", "isolation", "effort",
                         "permissionMode", "maxTurns", "color", "mcpServers"})
_NOTED_BUT_MODEL = _NOTED_KEYS - {"model"}
_MODEL_IGNORED = "it is not a model name, so the agent runs on the parent's model"


def _field_notes(fm: Mapping[str, Any], profile: ClaudeCodeProfile) -> list[Note]:
    """Values Claude Code ignores (it logs a debug line and loads the agent without them)."""
    notes: list[Note] = []
    if _NOTED_KEYS.isdisjoint(fm):  # (none of the fields judged below: nothing to say)
        return notes
    model = fm.get("model")
    if "model" in fm and not (isinstance(model, str) and model.strip()):
        notes.append(Note("model", f"`model: {_show(model)}`: {_MODEL_IGNORED}"))
    if _NOTED_BUT_MODEL.isdisjoint(fm):  # (`model` alone, the common case: nothing more)
        return notes

    def ignored(key: str, why: str) -> None:
        notes.append(Note(key, f"`{key}: {_show(fm[key])}`: {why}"))

    bg = fm.get("background")
    if "background" in fm and bg not in (True, False, "true", "false"):
        ignored("background", "it must be true or false")
    for key, allowed in (("memory", profile.memories), ("isolation", profile.isolations)):
        if key in fm and fm[key] not in allowed:
            ignored(key, "valid values are " + ", ".join(allowed))
    if "effort" in fm and fm["effort"] is not None and not _effort_ok(fm["effort"], profile):
        ignored("effort", "valid values are " + ", ".join(profile.efforts) + " or an integer")
    mode = fm.get("permissionMode")
    if mode and mode not in profile.permission_modes:
        ignored("permissionMode", "valid values are " + ", ".join(profile.permission_modes))
    if "maxTurns" in fm and fm["maxTurns"] is not None and _positive_int(fm["maxTurns"]) is None:
        ignored("maxTurns", "it must be a positive integer")
    color = fm.get("color")
    if "color" in fm and not (isinstance(color, str) and color in profile.colors):
        ignored("color", "valid colours are " + ", ".join(profile.colors))
    servers = fm.get("mcpServers")
    if "mcpServers" in fm and servers is not None and not isinstance(servers, list):
        ignored("mcpServers", "it must be a list (of server names or `name: {config}` items)")
    elif isinstance(servers, list):
        from subagents.claude_code.launch import server_config

        # (a `name: {config}` item without a command or url is SA111's, with its position)
        dropped = [_show(item) for item in servers if server_config(item) is None and not (
            isinstance(item, dict) and len(item) == 1
            and isinstance(next(iter(item.values())), dict))]
        if dropped:
            notes.append(Note("mcpServers", "`mcpServers` items that are not servers: "
                              f"{', '.join(dropped)}; the agent runs without them"))
    return notes


def _show(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _hooks_problems(
    fm: Mapping[str, Any], profile: ClaudeCodeProfile
) -> tuple[list[str], list[Note]]:
    """(reasons the agent cannot load, hook entries ignored)."""
    fatal: list[str] = []
    notes: list[Note] = []
    if "hooks" not in fm and fm.keys().isdisjoint(profile.guard_events):
        return fatal, notes  # (no hooks and no guard event: what the checks below find)
    guards = set(profile.guard_events)
    for key in guards:
        if fm.get(key) not in (None, [], {}):
            fatal.append(f"{key} is declared at the frontmatter top level, outside `hooks`")
    hooks = fm.get("hooks")
    if hooks is None:
        return fatal, notes
    looks_like_matcher = isinstance(hooks, dict) and ("hooks" in hooks or "matcher" in hooks)
    # a string or a list: 2.1.332 does not load the agent (measured; "Unknown parsing error")
    if isinstance(hooks, list | str) or looks_like_matcher:
        fatal.append("`hooks` must map event names to lists of matchers")
        return fatal, notes
    if not isinstance(hooks, dict):
        notes.append(Note("hooks", "`hooks`: it is not a mapping of events"))
        return fatal, notes
    events = set(profile.hook_events)
    for event, entry in hooks.items():
        if event not in events:
            notes.append(Note("hooks", f"`hooks.{event}`: it is not a hook event"))
        elif not isinstance(entry, list):
            if event in guards and entry is not None:
                fatal.append(f"hooks.{event} must be a list of matchers")
            else:
                notes.append(Note("hooks", f"`hooks.{event}`: it must be a list of matchers"))
        elif event in guards and (problem := _guard_entry_problem(entry)):
            fatal.append(f"hooks.{event}: {problem}")
    return fatal, notes


_HOOK_TYPES = ("command", "prompt", "agent", "http")


def _guard_entry_problem(matchers: list[Any]) -> str | None:
    """Why a guard event's hook cannot load (2.1.332 then does not load the agent: an unknown
    hook type, or a command hook without a command), or None."""
    for group in matchers:
        hooks = group.get("hooks") if isinstance(group, dict) else None
        for hook in hooks if isinstance(hooks, list) else ():
            if not isinstance(hook, dict):
                continue
            kind = hook.get("type")
            if kind not in _HOOK_TYPES:
                return f"unknown hook type {kind!r}"
            if kind == "command" and not (isinstance(hook.get("command"), str)
                                          and hook["command"].strip()):
                return "a command hook without a command"
    return None


# --------------------------------------------------------------------------- the reader


def _decode(data: bytes | str) -> tuple[str, bool]:
    if isinstance(data, str):
        return data, False
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), True


def _refused(
    profile: ClaudeCodeProfile,
    exc: bun_yaml.BunYamlError,
    block_text: str,
    block_line: int,
    replaced: bool,
) -> ClaudeCodeView:
    """A frontmatter we refuse to parse (too deep, an alias bomb): a deliberate difference."""
    return ClaudeCodeView(
        profile,
        False,
        Skip(SkipKind.REFUSED, str(exc), True, alias=isinstance(exc, bun_yaml.AliasBombError)),
        ParseMode.REFUSED,
        block_text=block_text,
        block_line=block_line,
        error_line=block_line + exc.line - 1 if exc.line else None,
        replaced_bytes=replaced,
    )


_STR_ONLY = frozenset({str})


def __getattr__(name: str) -> Any:
    """``lenient_rewrite`` lives in :mod:`.lenient` (imported when first asked for)."""
    if name == "lenient_rewrite":
        from subagents.claude_code.lenient import lenient_rewrite

        return lenient_rewrite
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def read_claude_code(
    data: bytes | str,
    *,
    profile: ClaudeCodeProfile | None = None,
    size: int | None = None,
    parsed_block: tuple[str, Any] | None = None,
) -> ClaudeCodeView:
    """What Claude Code does with these file contents (``size``: the file's size on disk).

    ``parsed_block``: ``(frontmatter text, value)`` when a caller has already parsed that text
    the way Bun would (the loader converts the strict reader's tree): when Claude Code's block
    is exactly that text, it is not parsed a second time.  The value may be the exception
    libyaml's composer raised on that text: the first parse's answer, given without it.
    The value is the caller's no more: a mapping becomes the view's ``frontmatter`` as it is
    (not copied).
    """
    profile = profile or get_profile()
    nbytes = size if size is not None else (len(data) if isinstance(data, bytes) else None)
    if nbytes is not None and nbytes > profile.max_file_bytes:
        return ClaudeCodeView(
            profile,
            False,
            Skip(
                SkipKind.TOO_LARGE,
                f"the file is {nbytes:,} bytes, over its limit of {profile.max_file_bytes:,}",
                True,
            ),
            ParseMode.NONE,
        )
    if type(data) is str:  # (the loader's text: no call to find that out)
        text, replaced = data, False
    else:
        text, replaced = _decode(data)
    if text[:1] == "\ufeff":
        text = text[1:]
    bounds = _block_bounds(text)
    if bounds is None:
        if not text.startswith("---"):
            why = "the file does not start with `---` at its very first byte"
        elif _opening_line_ends(text):
            why = "its frontmatter block is never closed with `---`"
        else:
            # `---x`, or `---` ended by a lone carriage return (recorded case
            # block-lone-cr-open): the pattern wants whitespace, then a line feed
            why = OPENING_NOT_ENDED
        return ClaudeCodeView(
            profile,
            False,
            Skip(SkipKind.NO_FRONTMATTER, why, False),
            ParseMode.NONE,
            body=js_trim(text),
            replaced_bytes=replaced,
        )
    start, end, rest_at = bounds
    block_text = text[start:end]
    block_line = 2 if start == 4 else text.count("\n", 0, start) + 1  # (4: after `---\n`)
    cut_inline = not (block_text == "" or block_text.endswith("\n"))
    quoted: tuple[str, ...] = ()
    try:
        shared = parsed_block is not None and (
            parsed_block[0] == block_text or _after_blank_lines(parsed_block[0], block_text))
        if parsed_block is not None and shared:
            parsed = parsed_block[1]
            if isinstance(parsed, Exception):
                # what libyaml's composer raised on the caller's text (no value of a parse
                # is an exception): the answer of this block's first parse when it is that
                # very text, not the text after blank lines (its lines would differ)
                shared = False
                parsed = bun_yaml.parse(
                    block_text, parsed if parsed_block[0] == block_text else None)
        else:
            parsed = bun_yaml.parse(block_text)
        mode = ParseMode.YAML
    except bun_yaml.TooDeepError as exc:
        return _refused(profile, exc, block_text, block_line, replaced)
    except bun_yaml.BunYamlError as first:
        # an alias bomb too: Claude Code's first pass throws on it and the second pass quotes
        # each `key: *alias` line, so the values are literal text (2.1.332, yaml-alias-bomb);
        # the guard measured the expansion on the composed nodes, nothing was expanded
        from subagents.claude_code.lenient import lenient_rewrite

        rewritten, quoted = lenient_rewrite(block_text)
        try:
            parsed = bun_yaml.parse(rewritten)
            mode = ParseMode.LENIENT
        except (bun_yaml.TooDeepError, bun_yaml.AliasBombError) as exc:
            return _refused(profile, exc, block_text, block_line, replaced)
        except bun_yaml.BunYamlError as second:
            failed = second if second.line else first
            line = block_line + failed.line - 1 if failed.line else None
            where = f" at line {line}" if line else ""
            return ClaudeCodeView(
                profile,
                False,
                Skip(
                    SkipKind.YAML,
                    "its frontmatter is not YAML, even for the lenient second "
                    f"pass: {failed}{where}",
                    True,
                ),
                ParseMode.FAILED,
                body=_trimmed_rest(text, rest_at),
                block_text=block_text,
                block_line=block_line,
                error_line=line,
                quoted_keys=quoted,
                block_cut_inline=cut_inline,
                replaced_bytes=replaced,
            )
    fm: dict[str, Any] = parsed if isinstance(parsed, dict) else {}
    # every key a string (nearly always): the mapping itself (it was built for this call, by
    # the parse or the caller's parse of the block), else a copy with each key as its text
    if not _STR_ONLY.issuperset(map(type, fm)):
        fm = {str(k): v for k, v in fm.items()}
    # one view, filled in below as far as the reading gets (a skip, or every field): the
    # fields every outcome shares are set once, not passed on through a mapping
    # (every field given in order, none by keyword: a third of the cost of the call, made
    # for every file; tests/test_claude_code_shared_reading.py holds the order to this call)
    view = ClaudeCodeView(
        profile, False, None, mode, fm,
        None, None, None, None, None,  # name, description, model, tools, disallowed_tools
        _trimmed_rest(text, rest_at), (), (), quoted,  # body, notes, unknown and quoted keys
        block_text, block_line, None,  # block_text, block_line, error_line
        cut_inline, replaced, mode is ParseMode.YAML and shared,  # block_cut_inline,
    )  # replaced_bytes, shared_parse
    name = fm.get("name")
    if not name or not isinstance(name, str):
        logged = bool(name)  # a number or `true`: a debug line; missing/empty: nothing
        if "name" not in fm:
            why = "`name` is missing"
        elif not name:
            why = "`name` is empty"
        else:
            why = f"`name` is not a string ({_show(name)})"
        if not fm and block_text.strip():
            why = "its frontmatter is not a mapping of `key: value` fields"
        view.skip = Skip(SkipKind.NO_NAME, why, logged)
        return view
    view.name = name
    # (the usual name: ASCII, no `:`, no leading `-`, short; _name_problem finds nothing)
    problem = None if (name.isascii() and ":" not in name and name[0] != "-"
                       and len(name) <= profile.max_name_length) else _name_problem(name, profile)
    if problem is not None:
        view.skip = Skip(SkipKind.BAD_NAME, problem, True)
        return view
    description = fm.get("description")
    if not description or not isinstance(description, str):
        if "description" not in fm:
            why = "`description` is missing"
        elif description == "" or description is None:
            why = "`description` is empty"
        else:
            why = f"`description` is not text ({_show(description)})"
        view.skip = Skip(SkipKind.NO_DESCRIPTION, why, True)
        return view
    return _judged_fields(view, fm, description)


#: the keys of most files (all four known to Claude Code, none a hook key): see _judged_fields
_PLAIN_KEYS = frozenset({"name", "description", "model", "tools"})
#: id of a profile -> (the profile, the plain keys it knows that are not hook keys)
_PLAIN_OF: dict[int, tuple[ClaudeCodeProfile, frozenset[str]]] = {}
#: a ``model`` text -> (the model Claude Code runs, whether its field note says it is ignored)
_MODELS: dict[str, tuple[str | None, bool]] = {}


def _plain_keys(profile: ClaudeCodeProfile) -> frozenset[str]:
    """The keys of :data:`_PLAIN_KEYS` that ``profile`` knows and that are not hook keys."""
    entry = _PLAIN_OF.get(id(profile))
    if entry is None or entry[0] is not profile:
        keys = _PLAIN_KEYS.intersection(profile.known_keys).difference(
            profile.guard_events, ("hooks",))
        if len(_PLAIN_OF) >= 64:  # (a process reads a few profiles)
            _PLAIN_OF.clear()
        entry = _PLAIN_OF[id(profile)] = (profile, keys)
    return entry[1]


def _judged_model(value: str) -> tuple[str | None, bool]:
    """What Claude Code makes of a ``model`` text: trimmed (None when nothing is left,
    ``inherit`` in any case as ``inherit``), and whether its field note says it is ignored
    (nothing left by Python's trim, as :func:`_field_notes` tests); remembered for short
    texts (a few names repeat across files)."""
    judged = _MODELS.get(value)
    if judged is not None:
        return judged
    model: str | None = js_trim(value)
    if not model:
        model = None
    elif model.lower() == "inherit":
        model = "inherit"
    judged = (model, not value.strip())
    if len(value) <= 64 and len(_MODELS) < 1024:
        _MODELS[value] = judged
    return judged


def _judged_fields(view: ClaudeCodeView, fm: dict[str, Any], description: str) -> ClaudeCodeView:
    """``view`` (its frontmatter ``fm``, its name set) completed for a file whose name and
    description passed: hooks, model, tools, notes."""
    profile = view.profile
    if _plain_keys(profile).issuperset(fm):
        # (most files) no key but name, description, model and tools, all known: no hook, no
        # unknown key, no `memory` to add tools, no field noted but `model`; one test of
        # the keys instead of one for each (the steps below give the same view)
        model_value = fm.get("model")
        if isinstance(model_value, str):
            judged = _judged_model(model_value)
            view.model = judged[0]
            if judged[1]:
                view.notes = (Note("model", f"`model: {_show(model_value)}`: {_MODEL_IGNORED}"),)
        elif "model" in fm:
            view.notes = (Note("model", f"`model: {_show(model_value)}`: {_MODEL_IGNORED}"),)
        if "tools" in fm:
            view.tools = split_tools(fm["tools"])
        view.loaded = True
        view.description = description.replace("\\n", "\n")
        return view
    if "hooks" in fm or not fm.keys().isdisjoint(profile.guard_events):
        fatal, hook_notes = _hooks_problems(fm, profile)
        if fatal:
            view.skip = Skip(SkipKind.HOOKS, "; ".join(fatal), True)
            return view
    else:  # (no hooks and no guard event: nothing for the hook checks to find)
        hook_notes = []
    model_value = fm.get("model")
    if isinstance(model_value, str):
        view.model = _judged_model(model_value)[0]
    if "tools" in fm:
        tools = split_tools(fm["tools"])
        if tools and fm.get("memory") in profile.memories:
            # an agent with memory keeps it with Write and Edit: Claude Code adds them to a
            # tools list (listed and launched; measured on 2.1.332)
            tools = (*tools, *(t for t in ("Write", "Edit") if t not in tools))
        view.tools = tools
    if "disallowedTools" in fm:
        view.disallowed_tools = split_tools(fm["disallowedTools"]) or None
    if not _NOTED_KEYS.isdisjoint(fm):
        view.notes = (*_field_notes(fm, profile), *hook_notes)
    elif hook_notes:
        view.notes = tuple(hook_notes)
    view.unknown_keys = tuple(filterfalse(profile.known_keys.__contains__, fm))
    view.loaded = True
    view.description = description.replace("\\n", "\n")
    return view


def as_plugin_agent(view: ClaudeCodeView, *, file_stem: str, plugin: str) -> ClaudeCodeView:
    """The same file as Claude Code loads it from a plugin's ``agents/`` folder.

    Measured on 2.1.332 (recorded cases ``plugin-*``): a plugin agent whose frontmatter fails
    to parse, or that has no name or description, still loads -- named after the file,
    described as ``Agent from <plugin> plugin`` -- and a ``:`` in its name is allowed;
    ``permissionMode``, ``hooks`` and ``mcpServers`` are ignored (so hooks that would keep a
    project's agent out do not keep it out).  A file over the size limit and one we refuse for
    safety stay out.
    """
    if view.skip is not None and view.skip.kind in _PLUGIN_STILL_SKIPS:
        return view
    if view.loaded:
        return _without_plugin_ignored(view)
    if view.skip is None:
        return view
    fm = dict(view.frontmatter)
    name = fm.get("name")
    if not (isinstance(name, str) and name) or name.startswith("-"):
        name = file_stem
    description = fm.get("description")
    if not (isinstance(description, str) and description):
        description = f"Agent from {plugin} plugin"
    fm["name"], fm["description"] = name, description
    ignored = _plugin_ignored_notes(fm)
    for key in PLUGIN_IGNORED:
        fm.pop(key, None)
    plugin_view = ClaudeCodeView(
        view.profile, False, None, view.parse, fm,
        name=name,
        block_text=view.block_text,
        block_line=view.block_line,
        quoted_keys=view.quoted_keys,
        block_cut_inline=view.block_cut_inline,
        replaced_bytes=view.replaced_bytes,
        body=view.body,
    )
    judged = _judged_fields(plugin_view, fm, description)
    judged.notes = (*ignored, *judged.notes)
    return judged


# Fields Claude Code ignores in a plugin's agent, with a warning in its debug log only
# ("... which is ignored for plugin agents"; measured on 2.1.332, plugin-ignored-fields).
PLUGIN_IGNORED = ("permissionMode", "hooks", "mcpServers")


def _plugin_ignored_notes(fm: Mapping[str, Any]) -> tuple[Note, ...]:
    return tuple(
        Note(key, f"`{key}` in a plugin's agent: the agent runs without it (only an agent "
             "of .claude/agents may set it)", rule="SA021",
             hint="remove the field, or copy the agent into .claude/agents/ where it applies")
        for key in PLUGIN_IGNORED if key in fm)


def _without_plugin_ignored(view: ClaudeCodeView) -> ClaudeCodeView:
    """A loaded plugin agent without the fields Claude Code ignores for plugin agents."""
    notes = _plugin_ignored_notes(view.frontmatter)
    if not notes:
        return view
    fm = {k: v for k, v in view.frontmatter.items() if k not in PLUGIN_IGNORED}
    kept = tuple(n for n in view.notes if n.key not in PLUGIN_IGNORED)
    return replace(view, frontmatter=fm, notes=(*notes, *kept))


# (hooks that would keep a project's agent out do not: a plugin's hooks are ignored, 2.1.332
# plugin-broken-hooks)
_PLUGIN_STILL_SKIPS = frozenset({SkipKind.TOO_LARGE, SkipKind.REFUSED})
