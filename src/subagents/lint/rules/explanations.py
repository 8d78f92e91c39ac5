"""The long documentation of every rule: what it checks, why, what Claude Code does, an example
and the fix.  ``subagents explain CODE`` prints it;
``python -m subagents.lint.rules.docs`` writes the rules list of ``docs/rules.md`` from it.

Design notes
------------
* The text is data (``explanations.toml`` beside this module, shipped as package data), keyed
  by the codes of the registry (:mod:`subagents.lint.rules.catalog`) and checked against it
  when it is loaded: a declared rule without a table, or a table without a declared rule, is
  a :class:`ValueError` (so ``explain`` and the docs generator fail loudly, and the tests with
  them).  An example that stops producing its code fails the tests (they run every bad example
  through ``validate`` in the profile it names, and every fixed example too).
* Statements about Claude Code say "Measured" only for behaviour recorded from the real CLI
  (the conformance data in :mod:`subagents.conformance`).
* The TOML is parsed on first use only (``tomllib``, standard library): ``validate`` never
  pays for it.
"""

from __future__ import annotations

import difflib
import functools
import textwrap
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from subagents.lint.rules.catalog import RULES, Rule, get_rule

__all__ = [
    "Explanation",
    "check_against_registry",
    "explanation_for",
    "explanations",
    "harness_label",
    "render_text",
    "rule_fields",
    "suggest_codes",
    "to_dict",
]

_SETUPS = frozenset(
    {"latin1", "oversize", "nul", "world-writable", "symlink-outside", "project"}
)
DEFAULT_PATH = ".claude/agents/example.md"


@dataclass(frozen=True, slots=True)
class Explanation:
    """The documentation of one rule (see the header of ``explanations.toml``)."""

    code: str
    checks: str
    why: str
    fix: str
    claude_code: str | None = None
    #: what another harness does with such a file (its own codes: GM, OC, CX, ...)
    harness: str | None = None
    example: str | None = None
    fixed: str | None = None
    files: Mapping[str, str] = field(default_factory=dict)
    fixed_files: Mapping[str, str] = field(default_factory=dict)
    path: str = DEFAULT_PATH
    fixed_path: str | None = None
    dialect: str = "claude"
    profile: str = "default"
    setup: str | None = None
    fix_command: str | None = None
    no_example: str | None = None

    @property
    def bad_files(self) -> dict[str, str]:
        """path -> text of the bad example (one file or several)."""
        if self.files:
            return dict(self.files)
        return {self.path: self.example} if self.example is not None else {}

    @property
    def good_files(self) -> dict[str, str]:
        """path -> text of the fixed example."""
        if self.fixed_files:
            return dict(self.fixed_files)
        if self.fixed is None:
            return {}
        return {self.fixed_path or self.path: self.fixed}


_FAMILIES = frozenset(code[:2] for code in RULES)
_KEYS = frozenset(Explanation.__slots__) - {"code"}


def _build(code: str, raw: Mapping[str, Any]) -> Explanation:
    unknown = set(raw) - _KEYS
    if unknown:
        raise ValueError(f"explanations.toml [{code}]: unknown keys {sorted(unknown)}")
    setup = raw.get("setup")
    if setup is not None and setup not in _SETUPS:
        raise ValueError(f"explanations.toml [{code}]: unknown setup {setup!r}")
    return Explanation(code=code, **raw)


def check_against_registry(codes: Iterable[str]) -> None:
    """Raise ValueError unless ``codes`` are exactly the declared rule codes."""
    given = set(codes)
    missing = sorted(set(RULES) - given)
    unknown = sorted(given - set(RULES))
    if missing or unknown:
        raise ValueError(
            "explanations.toml does not match the rule registry: "
            + (f"no documentation for {', '.join(missing)}" if missing else "")
            + ("; " if missing and unknown else "")
            + (f"documentation for undeclared codes {', '.join(unknown)}" if unknown else ""))


@functools.cache
def explanations() -> Mapping[str, Explanation]:
    """Every explanation by code, in the order of the file (checked against the registry)."""
    text = (resources.files("subagents.lint.rules") / "explanations.toml").read_text("utf-8")
    data = tomllib.loads(text)
    check_against_registry(data)
    return {code: _build(code, raw) for code, raw in data.items()}


def explanation_for(code_or_slug: str) -> tuple[Rule, Explanation] | None:
    """The rule and its explanation for a code (``SA104``, ``sa104``) or slug
    (``unknown-tool``); None when there is no such rule."""
    rule = get_rule(code_or_slug.strip())
    if rule is None:
        return None
    return rule, explanations()[rule.code]


def suggest_codes(query: str, n: int = 3) -> list[str]:
    """Codes or slugs close to ``query`` (for a did-you-mean)."""
    q = query.strip()
    up = q.upper()
    if up[:2] in _FAMILIES:
        same_family = [c for c in RULES if up[2:3] and c.startswith(up[:3])]
        close = difflib.get_close_matches(up, list(RULES), n=n, cutoff=0.6)
        ordered = list(dict.fromkeys([*close, *same_family]))
        return ordered[:n]
    names = {r.name: r.code for r in RULES.values()}
    found = difflib.get_close_matches(q.lower(), list(names), n=n, cutoff=0.5)
    if not found:
        found = [name for name in names if q.lower() and q.lower() in name][:n]
    return found


def harness_label(code: str) -> str | None:
    """``"Gemini CLI 0.61.0"`` for a code of another harness's reader (the version its
    behaviour was taken from); None for the codes of ``subagents`` itself."""
    from subagents.lint.rules.catalog import harness_family

    family = harness_family(code)
    if family is None:
        return None
    from subagents.harnesses import get_harness

    harness = get_harness(family[0])
    version = "" if harness.version in ("docs", "format") else f" {harness.version}"
    documented = " (documented behaviour)" if harness.version == "docs" else ""
    return f"{harness.display_name}{version}{documented}"


def _severity(rule: Rule, profile: str) -> str:
    sev = rule.severity(profile)
    return str(sev) if sev is not None else "off"


def rule_fields(rule: Rule, doc_key: str = "doc") -> dict[str, Any]:
    """A rule as ``subagents rules --format json`` lists it (its one-line doc under
    ``doc_key``); ``explain --format json`` starts with the same fields."""
    return {
        "code": rule.code,
        "name": rule.name,
        "category": str(rule.category),
        doc_key: rule.doc,
        "default": str(rule.default) if rule.default else None,
        "strict": str(rule.strict) if rule.strict else None,
        "silenceable": rule.silenceable,
    }


def to_dict(rule: Rule, expl: Explanation) -> dict[str, Any]:
    """The JSON form of ``subagents explain --format json``."""
    return {
        **rule_fields(rule, "summary"),
        "checks": expl.checks,
        "why": expl.why,
        "claude_code": expl.claude_code,
        "harness": harness_label(rule.code),
        "harness_does": expl.harness,
        "example": [{"path": p, "text": t} for p, t in expl.bad_files.items()],
        "fixed": [{"path": p, "text": t} for p, t in expl.good_files.items()],
        "fix": expl.fix,
        "fix_command": expl.fix_command,
        "example_profile": expl.profile,
        "example_dialect": expl.dialect,
    }


def _para(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width=width, initial_indent="  ", subsequent_indent="  ",
                         break_on_hyphens=False, break_long_words=False) or [""]


def _block(text: str) -> list[str]:
    if not text:
        return ["    (an empty file)"]
    return ["    " + line if line else "" for line in text.rstrip("\n").split("\n")]


def render_text(rule: Rule, expl: Explanation, width: int = 88) -> str:
    """The text ``subagents explain`` prints."""
    silence = "" if rule.silenceable else "; cannot be silenced in a file"
    what = harness_label(rule.code) or str(rule.category)  # "Gemini CLI 0.61.0" for GM codes
    out = [
        f"{rule.code} {rule.name} ({what}; default: {_severity(rule, 'default')}, "
        f"--strict: {_severity(rule, 'strict')}{silence})",
        "",
        *textwrap.wrap(rule.doc, width=width),
        "",
        "What it checks",
        *_para(expl.checks, width),
    ]
    if expl.why:
        out += ["", "Why it matters", *_para(expl.why, width)]
    if expl.claude_code:
        out += ["", "What Claude Code does", *_para(expl.claude_code, width)]
    if expl.harness:
        out += ["", f"What {harness_label(rule.code) or 'the harness'} does",
                *_para(expl.harness, width)]
    bad, good = expl.bad_files, expl.good_files
    if bad:
        where = " under --strict" if expl.profile == "strict" else ""
        out += ["", f"Example (reported{where})"]
        for path, text in bad.items():
            out += [f"  {path}:", *_block(text)]
    elif expl.no_example:
        out += ["", "Example", *_para(expl.no_example, width)]
    if good:
        out += ["", "Fixed"]
        for path, text in good.items():
            out += [f"  {path}:", *_block(text)]
    if expl.fix:
        out += ["", "How to fix", *_para(expl.fix, width)]
    return "\n".join(out) + "\n"
