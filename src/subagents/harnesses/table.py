"""The one harness table: every fact about a harness that more than one module needs.

Each row says, for one dialect: its name on the command line, the harness's display name, the
module that reads and writes it, the version whose behaviour is reproduced, the two letters of
its finding codes, the folders it reads agents from (project-relative and home-relative, in
its own precedence), which file names there are agents, whether subfolders are read, the
files that define agents besides those folders (Codex ``config.toml``, ``opencode.json``),
the rule that turns an agent name into a file name, and the files it reads hooks, MCP servers
and settings from.

Everything else is derived from these rows: the dialect lookup (:func:`get_spec`,
:data:`HARNESS_NAMES`), which dialect a path is (:func:`dialect_of_folder`), the folders
``validate`` walks when given none, the folders ``sync`` writes, the pre-commit hook's file
pattern (:func:`precommit_pattern`) and the paths a run must never let an agent change
without asking (:func:`protected_paths`).

Design notes
------------
* A harness module keeps what cannot be a table cell (Gemini CLI skipping names starting with
  ``_``, Qwen Code not reading the project folder when it is the home folder, OpenCode's
  ``OPENCODE_CONFIG_DIR``); the cells it shares with other modules it reads from here.
* The Claude Code version is a profile (config ``claude-code``), so its row names no version;
  :func:`version_of` asks the profile.
* The name-to-file rules are the harnesses' own: Claude Code takes any file name and reads the
  name inside; Gemini CLI, Qwen Code and Factory want the name itself to be a slug, so the file
  is named after it; Copilot derives the agent id from the file name; OpenCode's id is the path
  below ``agents/`` (``sub/x`` stays nested).  One function per harness, here.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from subagents._dataclass import dataclass
from subagents._lazy_re import lazy_compile
from subagents.harnesses.reading import Reading
from subagents.names import file_stem as _claude_stem

__all__ = [
    "HARNESS_NAMES",
    "OWN_READERS",
    "SPECS",
    "UNICODE_SPACE",
    "HarnessSpec",
    "TableHarness",
    "dialect_of_folder",
    "get_spec",
    "precommit_pattern",
    "protected_paths",
    "same_name_rule",
    "version_of",
]


# --------------------------------------------------------------------------- name -> file


def _as_is_or_slug(name: str) -> str:
    """Claude Code and codex-md: the name when it is a safe file name, else a slug."""
    return _claude_stem(name) or "agent"


_UNSAFE_CODEX = lazy_compile(r"[^A-Za-z0-9._-]+")
UNICODE_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _codex(name: str) -> str:
    """Codex CLI: the name with every run of other characters made ``-``."""
    return _UNSAFE_CODEX.sub("-", name.strip(UNICODE_SPACE)).strip(".-")[:100] or "agent"


def _named_after_slug(name: str) -> str:
    """Gemini CLI, Qwen Code, Factory: the writer has made the name a slug already; the file
    is named after it."""
    return name or "agent"


def _cursor(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name).strip(".-") or "agent"


_COPILOT_SLUG = lazy_compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\Z")


def _copilot(name: str) -> str:
    """Copilot: the agent id is the file name, so keep a plain name as it is."""
    if _COPILOT_SLUG.match(name) and not name.endswith(".md") and len(name) <= 100:
        return name
    slug = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "-" for c in name)
    return re.sub(r"-{2,}", "-", slug).strip("-")[:100] or "agent"


_OPENCODE_SEGMENT = lazy_compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\Z")


def _opencode(name: str) -> str:
    """OpenCode: the id is the path below ``agents/``; every segment a plain file name stays
    (``sub/nested``), else a slug (and the writer adds ``name``)."""
    segments = name.split("/")
    if all(_OPENCODE_SEGMENT.match(s) for s in segments) and len(name) <= 200:
        return name
    stem = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "-" for c in name)
    return stem.strip("-")[:100] or "agent"


# --------------------------------------------------------------------------- the table


@dataclass(frozen=True, slots=True)
class HarnessSpec:
    """One harness's facts (one row of the table)."""

    name: str  # the dialect on the command line
    display_name: str
    module: str  # the module whose ``attribute`` implements :class:`~.base.Harness`
    attribute: str
    code_prefix: str  # the two letters of its finding codes
    version: str | None  # the CLI version reproduced (None: the Claude Code profile decides)
    project_folders: tuple[str, ...]  # project-relative, highest precedence first
    user_folders: tuple[str, ...]  # home-relative
    suffixes: tuple[str, ...]  # file name endings read as agents there
    recursive: bool  # subfolders are read too
    precedence: str  # in words, for documentation and `doctor`
    stem: Callable[[str], str]  # agent name -> file name without the suffix
    config_files: tuple[str, ...] = ()  # project-relative files that define agents too
    hooks: tuple[str, ...] = ()  # project-relative files it reads hook commands from
    mcp: tuple[str, ...] = ()  # ... MCP server commands from
    settings: tuple[str, ...] = ()  # ... settings from (permissions, trust, tools)
    # the code of "this name is already taken, this file is ignored" and of "this file cannot
    # be read" (the harness's own, declared in the rule registry)
    duplicate_code: str = "SA601"
    unreadable_code: str = "SA011"
    # one name in two files of one folder: "first" (the first file read is used), "last"
    # (the last path in code-unit order is used, as Claude Code does) or "neither" (a clash:
    # no file is used)
    same_name: str = "first"
    hidden: bool = False  # dot-files and dot-folders are read too (Claude Code's `rg --hidden`)

    @property
    def write_folder(self) -> str:
        """Where a new agent file goes (the first project folder)."""
        return self.project_folders[0]

    @property
    def dot_dir(self) -> str:
        """The hidden folder of the harness (``.gemini``; ``.github`` for Copilot)."""
        return self.write_folder.split("/", 1)[0]

    def relpath(self, name: str) -> str:
        """The project-relative file an agent called ``name`` is written to."""
        return f"{self.write_folder}/{self.stem(name)}{self.suffixes[0]}"


_CLAUDE_SETTINGS = (".claude/settings.json", ".claude/settings.local.json")

SPECS: tuple[HarnessSpec, ...] = (
    HarnessSpec(
        "claude", "Claude Code", "subagents.harnesses.claude", "HARNESS", "SA", None,
        (".claude/agents",), (".claude/agents",), (".md",), True,
        "managed, --agents, project folders from the current one up to the git root "
        "(closest first), user, plugins; built-ins last", _as_is_or_slug,
        hooks=_CLAUDE_SETTINGS, mcp=(".mcp.json",), settings=_CLAUDE_SETTINGS,
        same_name="last", hidden=True),
    HarnessSpec(
        "codex", "Codex CLI", "subagents.harnesses.codex", "HARNESS", "CX", "0.169.0",
        (".codex/agents",), (".codex/agents",), (".toml",), True,
        "project (trusted projects only), then user; config.toml [agents] beside each",
        _codex, config_files=(".codex/config.toml",), duplicate_code="CX015",
        hooks=(".codex/config.toml",),
        mcp=(".codex/config.toml",), settings=(".codex/config.toml",)),
    HarnessSpec(
        "codex-md", "Codex Markdown agents", "subagents.harnesses.claude", "CODEX_MD", "SA",
        "format", (".codex/agents",), (".codex/agents",), (".md",), True,
        "project folders up to the git root (closest first), then user", _as_is_or_slug,
        same_name="neither"),
    HarnessSpec(
        "gemini", "Gemini CLI", "subagents.harnesses.gemini", "HARNESS", "GM", "0.61.0",
        (".gemini/agents",), (".gemini/agents",), (".md",), False,
        "built-ins, then project (acknowledged files only), then user", _named_after_slug,
        duplicate_code="GM012",
        hooks=(".gemini/settings.json",), mcp=(".gemini/settings.json",),
        settings=(".gemini/settings.json",)),
    HarnessSpec(
        "opencode", "OpenCode", "subagents.harnesses.opencode", "HARNESS", "OC", "1.18.33",
        (".opencode/agents", ".opencode/agent", ".opencode/mode", ".opencode/modes"),
        (".config/opencode/agents", ".config/opencode/agent", ".config/opencode/mode",
         ".config/opencode/modes"), (".md",), True,
        "project .opencode, $OPENCODE_CONFIG_DIR, then ~/.config/opencode; opencode.json "
        "beside each", _opencode, config_files=("opencode.json", "opencode.jsonc"),
        mcp=("opencode.json", "opencode.jsonc"), settings=("opencode.json", "opencode.jsonc"),
        unreadable_code="OC013"),
    HarnessSpec(
        "copilot", "Copilot CLI", "subagents.harnesses.copilot", "HARNESS", "CP", "1.0.102",
        (".github/agents",), (".copilot/agents",), (".agent.md", ".md"), True,
        "user, then project .github/agents, then project .claude/agents", _copilot,
        unreadable_code="CP011"),
    HarnessSpec(
        "cursor", "Cursor", "subagents.harnesses.cursor", "HARNESS", "CU", "docs",
        (".cursor/agents",), (".cursor/agents",), (".md",), False,
        "project, then user (top-level files only)", _cursor,
        hooks=(".cursor/hooks.json",), mcp=(".cursor/mcp.json",),
        settings=(".cursor/cli.json",),
        unreadable_code="CU011"),
    HarnessSpec(
        "qwen", "Qwen Code", "subagents.harnesses.qwen", "HARNESS", "QW", "0.24.4",
        (".qwen/agents",), (".qwen/agents",), (".md",), False,
        "built-ins, then project (unless it is the home folder), then user",
        _named_after_slug, duplicate_code="QW021", hooks=(".qwen/settings.json",),
        mcp=(".qwen/settings.json",),
        settings=(".qwen/settings.json",)),
    HarnessSpec(
        "factory", "Factory Droid", "subagents.harnesses.factory", "HARNESS", "FD", "0.215.0",
        (".factory/droids",), (".factory/droids",), (".md",), False,
        "project, then user (top-level files only)", _named_after_slug,
        hooks=(".factory/settings.json",), mcp=(".factory/mcp.json",),
        settings=(".factory/settings.json",),
        unreadable_code="FD010"),
)

_BY_NAME = {spec.name: spec for spec in SPECS}
#: Every dialect with a harness, in the order of listings and ``sync``.
HARNESS_NAMES: tuple[str, ...] = tuple(_BY_NAME)
#: The harnesses whose own reader judges their files under their own codes (not the SA rules
#: of Claude Code's Markdown form): ``validate`` and ``list --dialect`` read them that way.
OWN_READERS: frozenset[str] = frozenset(s.name for s in SPECS if s.code_prefix != "SA")


def get_spec(name: str) -> HarnessSpec:
    """The row of a dialect name (``KeyError`` for an unknown one: callers check first)."""
    return _BY_NAME[name]


def same_name_rule(dialect: str) -> str:
    """What one name in two files of one folder does (the row's ``same_name``); a format
    without a harness of its own (``agents.json``): ``neither``."""
    spec = _BY_NAME.get(dialect)
    return spec.same_name if spec is not None else "neither"


class TableHarness(Reading):
    """A harness class whose name, display name, version and code prefix are its table row:
    ``class GeminiHarness(TableHarness, dialect="gemini")``; its reading questions have the
    plain answers of :class:`~subagents.harnesses.base.Reading` unless it overrides them."""

    name: str
    display_name: str
    version: str
    code_prefix: str

    def __init_subclass__(cls, *, dialect: str, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        spec = get_spec(dialect)
        cls.name, cls.display_name, cls.code_prefix = spec.name, spec.display_name, spec.code_prefix
        cls.version = version_of(spec)


def version_of(spec: HarnessSpec) -> str:
    if spec.version is not None:
        return spec.version
    from subagents.claude_code.profile import get_profile

    return get_profile().version


# --------------------------------------------------------------------------- derived


def _folder_markers() -> tuple[tuple[str, str], ...]:
    """``("/.gemini/agents/", "gemini")`` for every folder of every row; Markdown readers
    only (Codex TOML is told by its suffix), Claude first, longer folders before shorter."""
    out: list[tuple[str, str]] = []
    for spec in SPECS:
        if spec.name == "codex":
            continue
        for folder in (*spec.project_folders, *spec.user_folders):
            marker = f"/{folder}/"
            if all(marker != m for m, _ in out):
                out.append((marker, spec.name))
    return tuple(sorted(out, key=lambda m: (m[1] != "claude", -len(m[0]))))


_MARKERS = _folder_markers()


def dialect_of_folder(folder: str) -> str | None:
    """The Markdown dialect of a file in ``folder`` (``/``-separated, lower case, ending in
    ``/``, with a leading ``/``), or None when no harness reads Markdown agents there."""
    for marker, name in _MARKERS:
        if marker in folder:
            return name
    return None


def precommit_pattern() -> str:
    """The ``files:`` pattern of the pre-commit hooks: every harness's agent folders with its
    suffixes, its agent-defining config files, and ``agents.json`` stores."""
    folders: dict[str, set[str]] = {}
    for spec in SPECS:
        for folder in spec.project_folders:
            folders.setdefault(folder, set()).update(spec.suffixes)
    suffixes = sorted({s for found in folders.values() for s in found}, key=lambda s: (len(s), s))
    alternatives = "|".join(re.escape(f) for f in sorted(folders))
    ends = "|".join(re.escape(s) for s in suffixes)
    configs = sorted({c for spec in SPECS for c in spec.config_files})
    named = "|".join(re.escape(c) for c in configs)
    return (f"(^|/)({alternatives})/.*({ends})$|(^|/)({named})$"
            r"|(^|/)agents\.json$|\.agents\.json$")


def protected_paths() -> dict[str, str]:
    """Project-relative paths whose change becomes execution in some harness (agents, hooks,
    MCP servers, settings), each with why: an agent may not change them without asking."""
    out: dict[str, str] = {}
    for spec in SPECS:
        for folder in spec.project_folders:
            out.setdefault(folder, f"{spec.display_name}'s agents")
        for path in spec.config_files:
            out.setdefault(path, f"{spec.display_name}'s agent definitions")
        for path in spec.hooks:
            out.setdefault(path, f"{spec.display_name}'s hook commands")
        for path in spec.mcp:
            out.setdefault(path, f"{spec.display_name}'s MCP server commands")
        for path in spec.settings:
            out.setdefault(path, f"{spec.display_name}'s settings")
    return out
