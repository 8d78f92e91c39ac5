"""SA2xx: the format specification's rules (``docs/spec.md``) that real files commonly break,
and SA3xx: anti-patterns.

Design notes
------------
* REFERENCE.md measured real files: 48% of descriptions exceed 200 characters, 15% of bodies
  exceed 10,000, none has all five prompt sections.  Claude Code loads them all, so these are
  warnings by default and errors only under ``--strict`` (the catalogue decides).
* Sections are found in Markdown headings only, case-insensitively, by the
  specification's five words and their stems ("Core Capabilities" counts; "Approach" does not).
* ``SA301``: a role is read-only when its *name* says reviewer/auditor/researcher (the
  specification's three roles); write access means ``Write``/``Edit``/``MultiEdit``/
  ``NotebookEdit`` reachable after ``disallowedTools`` - an omitted ``tools`` inherits them
  all.  ``Bash`` is not counted: the reviewer and auditor templates hold it.
* ``SA304`` vague description: very short (< 4 words) or a generic catch-all phrase; kept
  narrow on purpose, because a false "vague" on a good description is noise.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

from subagents._lazy_re import lazy_compile
from subagents.definition import AgentDefinition
from subagents.definition import Dialect as D
from subagents.diagnostics import Diagnostic
from subagents.formats.yamltree import YScalar, YSeq
from subagents.lint.rules.base import DefinitionRule, RuleContext, applies, quiet_when
from subagents.lint.rules.catalog import check
from subagents.names import PORTABLE_NAME

__all__ = ["DOCUMENTED_COLORS", "KNOWN_KEYS", "RULES", "SECTION_NAMES"]

DOCUMENTED_COLORS = frozenset(
    # Claude Code 2.1.330's subagent colours (from its source; any other is dropped)
    {"red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan"}
)
# Keys the Codex and JSON dialects define besides Claude's (FIELD_ALIASES covers Claude's).
KNOWN_KEYS = frozenset({"keywords", "prompt"})

# the marker of an ATX heading line: up to 3 spaces, 1-6 `#`, a space or tab
_HEADING_PREFIX_RE = lazy_compile(r" {0,3}#{1,6}[ \t]")
# section, the stem a heading must hold (lower case), must the stem end a word?
SECTION_NAMES: tuple[tuple[str, str, bool], ...] = (
    ("Role", "role", True),
    ("Capabilities", "capabilit", False),
    ("Methodology", "methodolog", False),
    ("Communication Style", "communication", True),
    ("Constraints", "constraint", False),
)
_READ_ONLY_ROLE_RE = lazy_compile(r"(?:^|[-_])(review|reviewer|auditor|audit|researcher|research)"
                                r"(?:$|[-_])")
# a word, as the vague check counts them
_WORD_RE = lazy_compile(r"[A-Za-z0-9]+")
_WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
_VAGUE_RE = lazy_compile(
    r"^(?:use (?:this|the) agent |an? agent |agent )?(?:for |to (?:help with|handle|do) |"
    r"that (?:helps with|handles|does) |helps with |handles )?(?:all |any |general |various |"
    r"misc(?:ellaneous)? |common |everyday )?(?:development|coding|programming|software|"
    r"general|everything|anything|any|all|stuff|things|tasks?|work)(?: tasks?| work| stuff)?"
    r"\.?$",
    re.I,
)

#: The most characters :data:`_VAGUE_RE` matches (each of its characters matches one; checked
#: against the pattern's own width in tests/test_judge_shortcuts.py)
_VAGUE_WIDTH = 63


def _chars(n: int) -> str:
    return f"{n:,} character" + ("" if n == 1 else "s")


@applies(never=(D.CODEX_MD,))
@check("SA201")
def check_description_length(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    if not ctx.wants("SA201"):
        return
    text = defn.description.strip()
    if not text or defn.dialect is D.CODEX_MD:
        return
    n = len(text)
    if 10 <= n <= 200:
        return
    yield ctx.diag(
        "SA201",
        ctx.value_pos(defn, "description"),
        f"`description` is {_chars(n)}; the format specification wants 10-200",
        "move examples into the body's `## Usage Examples` section and keep the description "
        "to one or two sentences" if n > 200 else "say what the agent does and when to use it",
    )


@applies(never=(D.CODEX_MD,))
@check("SA202")
def check_prompt_length(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    if not ctx.wants("SA202"):
        return
    text = defn.system_prompt.strip()
    if not text or defn.dialect is D.CODEX_MD:
        return  # empty: SA114; Codex instructions have no length rule
    n = len(text)
    if 100 <= n <= 10_000:
        return
    yield ctx.diag(
        "SA202",
        ctx.body_pos(defn) if defn.dialect is not D.JSON else ctx.key_pos(defn, "system_prompt"),
        f"the system prompt is {_chars(n)}; the format specification wants 100-10,000",
        "move reference material into skills" if n > 10_000
        else "describe the role, method and constraints in a few paragraphs",
    )


def _headings(low: str) -> str:
    """The text of every ATX heading (``## Core Capabilities`` -> ``core capabilities``) of a
    lower-cased prompt, one per line.

    Jumps from ``#`` to ``#`` with ``str.find`` (memchr speed; a prompt has a few dozen) and
    looks at most 3 characters back for the line start, instead of running a multi-line regex
    over the whole prompt.  After any ``#`` the scan resumes at the next line (only a line's
    first ``#`` can open a heading), so the work stays linear even for a line full of ``#``.
    The section stems are then searched in this short text.
    """
    text = "\n" + low
    out: list[str] = []
    pos = text.find("#")
    while pos != -1:
        end = text.find("\n", pos)
        if end == -1:
            end = len(text)
        start = text.rfind("\n", max(0, pos - 4), pos) + 1
        if start and not text[start:pos].strip(" "):
            m = _HEADING_PREFIX_RE.match(text, start, end)
            if m is not None:
                out.append(text[m.end():end])
        pos = text.find("#", end)
    return "\n".join(out)


def _has_section(headings: str, stem: str, word_end: bool) -> bool:
    """Does a heading hold ``stem`` at the start of a word (and as a whole word if asked)?"""
    pos = headings.find(stem)
    while pos != -1:
        end = pos + len(stem)
        if (pos == 0 or not headings[pos - 1].isalnum()) and (
            not word_end or end >= len(headings) or not headings[end].isalnum()
        ):
            return True
        pos = headings.find(stem, end)
    return False


@applies(only=(D.CLAUDE,))
@check("SA203")
def check_sections(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    if not ctx.wants("SA203"):
        return
    text = defn.system_prompt
    if not text.strip() or defn.dialect is not D.CLAUDE:
        return
    headings = _headings(ctx.prompt_lower(defn))
    missing = [name for name, stem, word in SECTION_NAMES
               if not _has_section(headings, stem, word)]
    if missing:
        yield ctx.diag(
            "SA203",
            ctx.body_pos(defn),
            "the system prompt has no " + ", ".join(f"`## {m}`" for m in missing)
            + " section" + ("s" if len(missing) > 1 else ""),
            "add the missing headings: Role, Capabilities, Methodology, Communication Style, "
            "Constraints",
        )


@quiet_when(extra={}, keywords=())
@check("SA204")
def check_unknown_keys(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    for key in defn.extra:
        if defn.dialect is D.CODEX_MD and key in KNOWN_KEYS:
            continue
        close = _close_key(key)
        yield ctx.diag(
            "SA204",
            ctx.key_pos(defn, key),
            f"unknown key {key!r}; {'Codex' if defn.dialect is D.CODEX_MD else 'Claude Code'} "
            "ignores it",
            f"did you mean `{close}`?" if close
            else "check the spelling against `subagents schema`, or remove it",
        )
    if defn.keywords and defn.dialect is D.CLAUDE:
        yield ctx.diag(
            "SA204",
            ctx.key_pos(defn, "keywords"),
            "`keywords` is a Codex field; Claude Code ignores it",
            "routing in Claude Code uses the description",
        )


# Keys people write for a field (other harnesses' spellings): the closest spelling is not
# always the meaning (`allowedTools` is closest to `disallowedTools`, and means `tools`).
_KEY_WORDS = {
    "allowedtools": "tools",
    "tool": "tools",
    "desc": "description",
    "whentouse": "description",
}


def _close_key(key: str) -> str | None:
    import difflib  # only for unknown keys

    from subagents.definition import FIELD_ALIASES

    known: dict[str, str] = {}
    for k in FIELD_ALIASES:  # the documented (camelCase) spelling comes first and wins
        if k != "prompt":
            known.setdefault(k.lower().replace("-", "").replace("_", ""), k)
    norm = key.lower().replace("-", "").replace("_", "")
    if norm in _KEY_WORDS:
        return _KEY_WORDS[norm]
    if norm in known:
        return known[norm]
    found = difflib.get_close_matches(norm, list(known), n=1, cutoff=0.8)
    return known[found[0]] if found else None


@quiet_when(color=None)
@check("SA205")
def check_color(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    if defn.color is not None and defn.color.strip().lower() not in DOCUMENTED_COLORS:
        yield ctx.diag(
            "SA205",
            ctx.value_pos(defn, "color"),
            f"`color` {defn.color!r} is not a documented colour",
            "use one of: " + ", ".join(sorted(DOCUMENTED_COLORS)),
        )


@applies(only=(D.CLAUDE,))
@check("SA206")
def check_name_format(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    name = defn.name
    if defn.dialect is not D.CLAUDE or not name.strip() or ":" in name or name.startswith("-"):
        return
    if PORTABLE_NAME.matches(name):
        return
    suggestion = PORTABLE_NAME.suggest(name)
    yield ctx.diag(
        "SA206",
        ctx.value_pos(defn, "name"),
        f"`name` {name!r} is not lowercase-with-hyphens of at most 50 characters; other "
        "harnesses (Gemini CLI, Codex, OpenCode) refuse it",
        f"rename it, e.g. `name: {suggestion}`" if suggestion else None,
    )


@applies(only=(D.CLAUDE,))
@check("SA207")
def check_tools_list(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    """SA207: a YAML list in ``tools``; some Claude Code versions read it as no tools at all
    (anthropics/claude-code#13331, REFERENCE.md), which silently disarms the agent."""
    if not ctx.wants("SA207"):
        return
    if defn.dialect is not D.CLAUDE:
        return  # Codex and agents.json define lists as their form
    from subagents.claude_code.profile import get_profile

    label = get_profile(ctx.config.claude_code).label
    for key, spelled in (("tools", "tools"), ("disallowed_tools", "disallowedTools")):
        node = ctx.node(defn, key)
        if isinstance(node, YSeq) and node.items:
            joined = ", ".join(str(i.value) for i in node.items if isinstance(i, YScalar))
            if len(joined) > 60:
                joined = joined[:57] + "..."
            yield ctx.diag(
                "SA207",
                ctx.key_pos(defn, key),
                f"`{spelled}` is a YAML list; {label} reads it like a comma string, but older "
                "Claude Code versions were reported to read a list as no tools "
                "(anthropics/claude-code#13331)",
                "the documented form is a comma string: `subagents fix --tools-style comma` "
                f"rewrites it as `{spelled}: {joined}`",
            )


# --- anti-patterns ---------------------------------------------------------------------------


@applies(never=(D.CODEX_MD,))
@check("SA301")
def check_read_only_role(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    if defn.dialect is D.CODEX_MD:
        return
    name = defn.name.lower()
    # (each role word holds one of these: most names hold none, and skip the pattern)
    if "review" not in name and "audit" not in name and "research" not in name:
        return
    m = _READ_ONLY_ROLE_RE.search(name)
    if not m or defn.permission_mode == "plan":  # plan mode: no mutations
        return
    denied = set(defn.disallowed_tools or ())
    allowed = set(_WRITE_TOOLS) if defn.tools is None else set(defn.tools)
    writes = [t for t in _WRITE_TOOLS if t in allowed and t not in denied]
    if not writes:
        return
    how = "inherits every tool" if defn.tools is None else "has " + ", ".join(writes)
    yield ctx.diag(
        "SA301",
        ctx.key_pos(defn, "tools") if defn.tools is not None else ctx.key_pos(defn, "name"),
        f"{defn.name!r} is {_article(m.group(1))} role but {how}: it can modify files "
        "(an agent that reviews should not change what it reviews)",
        "give it `tools: Read, Grep, Glob` or add `disallowedTools: Write, Edit, MultiEdit`",
    )


def _article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


@applies(never=(D.CODEX_MD,))
@check("SA302")
def check_max_turns_present(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    if not ctx.wants("SA302"):
        return
    # present but of the wrong type (`maxTurns: true`, `1.5`) is SA108's finding, not "no maxTurns"
    if (defn.max_turns is None and defn.dialect is not D.CODEX_MD
            and defn.location_of("max_turns") is None and ctx.node(defn, "max_turns") is None):
        yield ctx.diag(
            "SA302",
            ctx.fallback_pos(defn),
            "no `maxTurns`: a confused agent can loop without limit",
            "add e.g. `maxTurns: 30` sized to the task",
        )


@quiet_when(skills=())
@check("SA303")
def check_skills(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    if len(defn.skills) > 3:
        yield ctx.diag(
            "SA303",
            ctx.key_pos(defn, "skills"),
            f"{len(defn.skills)} skills load into the context before the agent starts "
            "(keep it to 2-3)",
            "split the agent, or load the rarely used skills on demand",
        )


@applies(never=(D.CODEX_MD,))
@check("SA304")
def check_vague(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    if not defn.description or defn.dialect is D.CODEX_MD or len(defn.description) > 160:
        return  # a long description is many things, but not vague in this sense
    text = " ".join(defn.description.split())
    # (the pattern matches whole texts of at most _VAGUE_WIDTH characters: a longer one is
    # not asked; "Use this agent when ..." made it try many alternatives before failing)
    if not text or (_four_words(text) and (len(text) > _VAGUE_WIDTH
                                           or not _VAGUE_RE.match(text))):
        return
    yield ctx.diag(
        "SA304",
        ctx.value_pos(defn, "description"),
        f"the description {text[:60]!r} is too generic to route on",
        "say what it does, for which code, and when to use it: \"Use when implementing "
        "TypeScript features with Prisma in src/features\"",
    )


def _four_words(text: str) -> bool:
    """Does ``text`` hold four words or more?  (The fourth word found, not a list of every
    word; the pattern is the one the count was made with, so that ``validate one.md``
    compiles nothing more.)"""
    return next(islice(_WORD_RE.finditer(text), 3, None), None) is not None


RULES: tuple[DefinitionRule, ...] = (
    check_description_length,
    check_prompt_length,
    check_sections,
    check_unknown_keys,
    check_color,
    check_name_format,
    check_tools_list,
    check_read_only_role,
    check_max_turns_present,
    check_skills,
    check_vague,
)
