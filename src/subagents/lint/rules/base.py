"""What every rule receives, and how a rule points at the offending key or value.

Design notes
------------
* A *definition rule* is ``(AgentDefinition, RuleContext) -> Iterator[Diagnostic]``; a *file
  rule* is ``(FileContext) -> Iterator[Diagnostic]`` and runs once per file (a JSON file holds
  many definitions; its text is scanned for secrets once).
* Findings are built from the declared rule (:meth:`~subagents.lint.rules.catalog.Rule.diagnostic`
  via :func:`make_diagnostic`), so an undeclared code cannot be built.
* Rules emit the catalogue's default severity; :mod:`subagents.lint.validate` re-maps every
  diagnostic for the profile, so a rule never decides its own severity.
* Positions: a rule asks the context for the key (:meth:`RuleContext.key_pos`), the value
  (:meth:`value_pos`), an item of a list-valued field (:meth:`item_pos`, which also finds an
  item inside a one-line comma string), or an offset in the file text (:func:`text_pos`).
  Everything falls back to the opening ``---`` (or line 1), so every diagnostic has a line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import field
from pathlib import Path

from subagents._dataclass import dataclass
from subagents.definition import FIELD_ALIASES, AgentDefinition, Dialect
from subagents.diagnostics import Diagnostic
from subagents.formats.frontmatter import FrontmatterDocument
from subagents.formats.yamltree import YMap, YNode, YScalar, YSeq
from subagents.lint.config import Config
from subagents.lint.rules.catalog import rule

__all__ = [
    "APPLIES",
    "QUIET",
    "Applies",
    "DefinitionRule",
    "FileContext",
    "FileRule",
    "RuleContext",
    "applies",
    "make_diagnostic",
    "quiet_when",
    "text_pos",
]

Pos = tuple[int | None, int | None]


def make_diagnostic(
    code: str, path: str, pos: Pos, message: str, hint: str | None = None
) -> Diagnostic:
    """A finding of the declared rule ``code`` (an undeclared code raises KeyError)."""
    return rule(code).diagnostic(path, pos[0], pos[1], message, hint)


def text_pos(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset."""
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


class Applies:
    """For which definitions a definition check can say anything at all (:func:`applies`).
    (A plain class: a dataclass costs the one-file command its making at import.)"""

    __slots__ = ("never", "on_claude_code", "only")

    def __init__(self, only: tuple[Dialect, ...] | None, never: tuple[Dialect, ...],
                 on_claude_code: bool) -> None:
        #: the dialects it judges (None: every dialect)
        self.only = only
        #: dialects it never judges
        self.never = never
        #: False: silent on a Claude definition judged on Claude Code's reading (its own
        #: rules decide, rules/claude_code.py)
        self.on_claude_code = on_claude_code


#: The declared :class:`Applies` of each definition check that has one.
APPLIES: dict[Callable[..., Iterator[Diagnostic]], Applies] = {}


def applies(*, only: tuple[Dialect, ...] | None = None, never: tuple[Dialect, ...] = (),
            on_claude_code: bool = True) -> Callable[[DefinitionRule], DefinitionRule]:
    """Declare the dialects the decorated definition check judges: the engine does not call
    it for a definition of another (it would only return at once).  The check keeps its own
    test of the same condition (it may be called directly); ``tests/test_engine_dialects.py``
    runs every check on definitions outside its declaration and expects silence."""
    declared = Applies(only, never, on_claude_code)

    def register(fn: DefinitionRule) -> DefinitionRule:
        APPLIES[fn] = declared
        return fn

    return register


#: The declared :func:`quiet_when` of each definition check that has one: field names and the
#: values for which the check says nothing.
QUIET: dict[Callable[..., Iterator[Diagnostic]], tuple[tuple[str, ...], tuple[object, ...]]] = {}


def quiet_when(**values: object) -> Callable[[DefinitionRule], DefinitionRule]:
    """Declare that the decorated definition check says nothing about a definition whose
    fields equal ``values`` (``color=None``: no colour given), whatever else the definition and
    the context hold: the engine then answers it by one comparison instead of a call (most
    definitions leave most fields unset).  The check keeps its own test (it may be called
    directly); ``tests/test_engine_quiet.py`` runs every check on definitions given these
    values and expects silence."""
    declared = (tuple(values), tuple(values.values()))

    def register(fn: DefinitionRule) -> DefinitionRule:
        QUIET[fn] = declared
        return fn

    return register


@dataclass(slots=True)
class FileContext:
    """One file: its display path, the text the reader normalised, the config."""

    path: str
    file_path: Path | None
    dialect: Dialect | None
    config: Config
    text: str | None = None
    document: FrontmatterDocument | None = None
    #: The folder the file belongs to (for SA402, a path leading out of it); None for text
    #: given in memory.
    agents_root: Path | None = None
    #: The file's ``st_mode`` as the reader saw it when it opened the file (None: not read;
    #: the rules that need it ask the file system)
    mode: int | None = None
    #: The UTF-8 bytes ``text`` was decoded from, when it differs from them only by a BOM
    #: and line breaks (CRLF or CR made LF): both hold the same ASCII words that hold no line
    #: break, so the secrets scan's gate reads these instead of encoding the text again.
    data: bytes | None = None
    #: The secrets gate's answer for ``text`` (which of its literals the text holds; None:
    #: not asked, or not known), kept for the file's silencer look-up.
    literals: frozenset[str] | None = None


@dataclass(slots=True)
class RuleContext:
    """One definition inside one file.  (``judge._judge`` passes the first nine fields by
    position, in this order.)"""

    path: str
    config: Config
    dialect: Dialect
    document: FrontmatterDocument | None = None
    text: str | None = None
    #: ``(code, line)`` of the reader's findings, so a rule can stay quiet where the reader
    #: already explained the problem (a list where a string belongs is not also "empty").
    reader_findings: frozenset[tuple[str, int | None]] = field(default_factory=frozenset)
    #: True when Claude Code's own reading was judged for this file (rules/claude_code.py):
    #: rules that restate Claude Code's load rules then stay quiet.
    claude_code: bool = False
    #: Does the caller keep findings of this code?  A rule whose only code is off in the
    #: profile (and not selected) skips its work: the style rules scan the whole prompt.
    wants: Callable[[str], bool] = field(default=lambda _code: True, repr=False)
    #: The definition checks to run with the codes each registered (``engine.wanted_checks``
    #: of ``wants``); None: every check.
    checks: tuple[tuple[Callable[..., Iterator[Diagnostic]], frozenset[str]], ...] | None = \
        field(default=None, repr=False)
    _prompt_lower: str | None = None
    #: Entry start offsets of one-line comma strings, per node: computed once, not once per
    #: entry (a `tools:` line with thousands of unknown entries was quadratic).
    #: (None until a rule asks: most definitions never do, and a dict each cost their making)
    _starts: dict[int, list[int]] | None = None

    def prompt_lower(self, defn: AgentDefinition) -> str:
        """The system prompt lower-cased, computed once for all the rules that search it."""
        if self._prompt_lower is None:
            self._prompt_lower = defn.system_prompt.lower()
        return self._prompt_lower

    def type_error_at(self, defn: AgentDefinition, key: str) -> bool:
        """Did the reader report the value of ``key`` as being of the wrong type?"""
        loc = defn.location_of(key)
        if loc is None:
            return False
        from subagents.formats.fields import TYPE_ERROR_CODES

        return any((code, loc.line) in self.reader_findings
                   for code in ("SA014", TYPE_ERROR_CODES.get(key, "SA014")))

    def diag(self, code: str, pos: Pos, message: str, hint: str | None = None) -> Diagnostic:
        return make_diagnostic(code, self.path, pos, message, hint)

    # -- positions ----------------------------------------------------------------------------
    def fallback_pos(self, defn: AgentDefinition) -> tuple[int, int]:
        if self.document is not None:
            return self.document.start_line, 1
        if defn.locations:
            first = min(defn.locations.values(), key=lambda loc: (loc.line, loc.column))
            return first.line, first.column
        return 1, 1

    def key_pos(self, defn: AgentDefinition, key: str) -> tuple[int, int]:
        loc = defn.location_of(key)
        if loc is not None:
            return loc.line, loc.column
        return self.fallback_pos(defn)

    def node(self, defn: AgentDefinition, key: str) -> YNode | None:
        if self.document is None:
            return None
        fields = self.document.fields
        for k in _NODE_KEYS.get(key) or (key,):
            f = fields.get(k)
            if f is not None:
                return f.node
        return None

    def value_pos(self, defn: AgentDefinition, key: str) -> tuple[int, int]:
        node = self.node(defn, key)
        if node is not None:
            return node.line, node.column
        return self.key_pos(defn, key)

    def item_pos(self, defn: AgentDefinition, key: str, index: int, item: str) -> tuple[int, int]:
        """Where the ``index``-th entry (text ``item``) of a list field is written."""
        node = self.node(defn, key)
        if isinstance(node, YSeq):
            if 0 <= index < len(node.items):
                it = node.items[index]
                return it.line, it.column
            return node.line, node.column
        if isinstance(node, YScalar):
            known = self._starts
            if known is None:
                known = self._starts = {}
            starts = known.get(id(node))
            if starts is None:
                starts = known[id(node)] = _entry_starts(node.value)
            return _pos_in_scalar(node, item, index, starts)
        return self.value_pos(defn, key)

    def body_pos(self, defn: AgentDefinition, offset: int | None = None) -> tuple[int, int]:
        """A position in the system prompt (Markdown body)."""
        line = defn.body_line
        if line is None:
            return self.key_pos(defn, "system_prompt")
        if offset is None:
            return line, 1
        rel_line, col = text_pos(defn.system_prompt, offset)
        return line + rel_line - 1, col

    def map_key_pos(self, defn: AgentDefinition, key: str, sub: str) -> tuple[int, int]:
        """Position of ``sub`` inside the mapping value of ``key`` (e.g. a hook event)."""
        node = self.node(defn, key)
        if isinstance(node, YMap):
            for k, _ in node.pairs:
                if k.value == sub:
                    return k.line, k.column
        return self.value_pos(defn, key)


def _entry_starts(value: str) -> list[int]:
    """Offsets where each top-level comma-separated entry of ``value`` starts."""
    starts: list[int] = []
    depth, fresh = 0, True
    for i, ch in enumerate(value):
        if fresh and not ch.isspace() and ch != ",":
            starts.append(i)
            fresh = False
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif ch == "," and depth == 0:
            fresh = True
    return starts


def _pos_in_scalar(node: YScalar, item: str, index: int,
                   starts: list[int] | None = None) -> tuple[int, int]:
    """Where the ``index``-th top-level comma-separated entry of a one-line scalar starts."""
    if (node.end_line and node.end_line != node.line) or node.style in ("|", ">"):
        return node.line, node.column
    quote = 1 if node.style in ("'", '"') else 0
    if starts is None:
        starts = _entry_starts(node.value)
    if 0 <= index < len(starts) and node.value.startswith(item[:1], starts[index]):
        return node.line, node.column + quote + starts[index]
    found = node.value.find(item) if item else -1
    if found >= 0:
        return node.line, node.column + quote + found
    return node.line, node.column


_SPELLINGS: dict[str, tuple[str, ...]] = {}
for _spelled, _attr in FIELD_ALIASES.items():
    _SPELLINGS[_attr] = (*_SPELLINGS.get(_attr, ()), _spelled)
# the frontmatter keys :meth:`RuleContext.node` tries for an attribute, in order (the
# attribute's own name, then each spelling): built once, not once per call
_NODE_KEYS: dict[str, tuple[str, ...]] = {
    attr: (attr, *spellings) for attr, spellings in _SPELLINGS.items()}


DefinitionRule = Callable[[AgentDefinition, RuleContext], Iterator[Diagnostic]]
FileRule = Callable[[FileContext], Iterator[Diagnostic]]
