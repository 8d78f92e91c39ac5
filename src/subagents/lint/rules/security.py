"""SA4xx: security - errors in every profile, and never silenced by a comment in the file.

Design notes
------------
* ``SA401`` world-writable file: anyone on the machine could rewrite the agent's
  instructions.  ``SA402``: the file, or a symlink on the way to it, resolves
  outside the agents folder it was found in; :mod:`subagents.lint.validate` checks it *before*
  reading, so a link to ``/etc/shadow`` is reported, never read.  ``SA403``: a ``name`` with a
  path separator, ``..`` or a NUL could traverse when a tool derives a file name from it.
* ``SA404`` credentials: token shapes with fixed vendor prefixes (GitHub ``ghp_``/``github_pat_``,
  AWS ``AKIA``/``ASIA`` + a secret-key assignment, Anthropic ``sk-ant-``, OpenAI ``sk-``/
  ``sk-proj-``, Slack ``xox?-`` and webhook URLs) and PEM private-key blocks *with a body*.
  To stay quiet on security-review agents that talk about these things, a match must look like
  a real secret: long enough, not a placeholder (``xxxx``, ``your``, ``example``, ``<...>``,
  ``...``; words count in one natural case only, so ``fAke`` inside random data does not hide
  a real key), and with the character mix of random data.  ``${VAR}`` references never match.
  Decision: AWS's *documented* example keys (``AKIAIOSFODNN7EXAMPLE``, ``wJalrXUtnFEMI/...
  EXAMPLEKEY``) are placeholders, not findings: they appear in docs and security agents and
  grant nothing.  A private-key block is judged on its whole body (an OpenSSH key's first line
  is a fixed header) and only explicit placeholders excuse it (DER bodies hold runs of ``A``).
  The message names the kind and masks the value (first 4 characters, then its length): the
  secret must not be echoed into CI logs.
* ``SA405``/``SA406``: prompt injection, judged by :mod:`subagents.lint.rules.injection`
  (normalised text, hidden views, several languages).  ``SA405`` (an error; ``run`` refuses
  the agent unless ``--allow-flagged-prompt``) when it is sure: a takeover of the model's
  instructions together with another signal, exfiltration with concealment, or any signal
  hidden in a comment, an encoded run or disguised by invisible or look-alike characters.
  ``SA406`` (a warning quoting the rates measured on held-out text) for one signal alone.
"""

from __future__ import annotations

import importlib
import math
import os
import re
import stat
import sys
from collections import Counter
from collections.abc import Iterator

from subagents._dataclass import dataclass
from subagents._lazy_re import lazy_compile
from subagents.definition import AgentDefinition
from subagents.definition import Dialect as D
from subagents.diagnostics import Diagnostic
from subagents.lint.config import SILENCER_MARK
from subagents.lint.rules.base import (
    DefinitionRule,
    FileContext,
    FileRule,
    RuleContext,
    make_diagnostic,
)
from subagents.lint.rules.catalog import check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["DEFINITION_RULES", "FILE_RULES", "detect_injection", "find_secrets", "mask",
           "path_escapes"]


@dataclass(frozen=True, slots=True)
class _SecretKind:
    """One kind of credential: its label and the pattern that finds it."""

    label: str
    pattern: re.Pattern[str]
    group: int = 0  # which group holds the secret itself
    min_entropy: float = 3.0
    #: Every match *starts* with one of these literals: find them with ``str.find`` (C speed,
    #: several times faster than the regex engine's own scan) and ``match`` only there.
    prefixes: tuple[str, ...] = ()
    #: Every match *contains* one of these (for case-insensitive patterns without a literal
    #: prefix): search a small window around each occurrence.
    anchors: tuple[str, ...] = ()
    #: Instead of ``prefixes``: a small regex for where a match can start, for prefixes that
    #: ``str.find`` scans slowly (``gh`` is common; ``A[KS]IA`` is one pass instead of two).
    scan: str | None = None
    #: How many of lowercase / uppercase / digits random key material of this kind shows at
    #: least (``ghp_`` + 36 alphanumerics: 2; an AWS key id, uppercase and digits: 1).
    classes: int = 2


_KINDS: tuple[_SecretKind, ...] = (
    _SecretKind("GitHub token", lazy_compile(r"(gh[pousr]_[A-Za-z0-9]{36,255})\b"), 1,
                scan=r"gh[pousr]_"),
    _SecretKind("GitHub token", lazy_compile(r"(github_pat_[A-Za-z0-9_]{50,255})\b"), 1,
                prefixes=("github_pat_",)),
    # An AWS key id is uppercase letters and digits 2-7 only: one character class is enough
    # (a real id without a digit is ~4% of ids); placeholders are caught by the word check.
    _SecretKind("AWS access key id", lazy_compile(r"((?:AKIA|ASIA)[0-9A-Z]{16})\b"), 1, 2.8,
                scan=r"A[KS]IA", classes=1),
    _SecretKind(
        "AWS secret access key",
        lazy_compile(
            r"(?i)aws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        1,
        3.5,
        anchors=("ecret", "ECRET"),
    ),
    _SecretKind("Anthropic API key", lazy_compile(r"(sk-ant-[A-Za-z0-9_-]{32,})"), 1,
                prefixes=("sk-",)),
    _SecretKind(
        "OpenAI API key",
        lazy_compile(r"(sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,})"),
        1,
        prefixes=("sk-",),
    ),
    _SecretKind("Slack token", lazy_compile(r"(xox[abposr]-[0-9A-Za-z-]{20,})"), 1,
                prefixes=("xox",)),
    _SecretKind(
        "Slack webhook URL",
        lazy_compile(r"(https://hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,})"),
        1,
        3.0,
        prefixes=("https://hooks.slack.com/",),
    ),
)
# Kinds grouped by literal prefix: each prefix is searched for once (``str.find`` over the
# whole text is the cost of this rule), and every kind that starts with it is tried there.
_BY_PREFIX: tuple[tuple[str, tuple[_SecretKind, ...]], ...] = tuple(
    (prefix, tuple(k for k in _KINDS if prefix in k.prefixes))
    for prefix in dict.fromkeys(p for k in _KINDS for p in k.prefixes)
)
_ANCHORED: tuple[_SecretKind, ...] = tuple(k for k in _KINDS if k.anchors)
_SCANNED: tuple[tuple[re.Pattern[str], _SecretKind], ...] = tuple(
    (lazy_compile(k.scan), k) for k in _KINDS if k.scan)
_PRIVATE_KEY_RE = lazy_compile(
    r"-----BEGIN ((?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?)-----"
    # the body: up to 4 header lines (``Proc-Type: ...``), one line of 40+ base64 characters,
    # then the following base64 lines, so that the entropy is measured over the key material
    # and not only over an OpenSSH key's fixed first line
    r"[ \t]*\n((?:[ \t]*[A-Za-z0-9+/=:\-, ]*\n){0,4}?[ \t]*[A-Za-z0-9+/=]{40,}"
    r"(?:\n[ \t]*[A-Za-z0-9+/=]{4,}){0,400})"
)
# Placeholder words count in one natural case only (``your``, ``Your``, ``YOUR``): matched
# case-insensitively they turn up by chance inside random key material (``fAke``), which hid
# about one real token in a thousand.
_WORDS = ("your", "example", "sample", "dummy", "fake", "placeholder", "redacted", "changeme")
_WORD_ALTERNATIVES = "|".join(w for word in _WORDS for w in (word, word.title(), word.upper()))
_PLACEHOLDER_RE = lazy_compile(
    r"x{4,}|X{4,}|\*{3,}|\.\.\.|<|>|" + _WORD_ALTERNATIVES
    + r"|0{8,}|1234567|abcdef|ABCDEF|(.)\1{5,}"
)
# A key block is base64 of DER/OpenSSH structures, which hold long runs of ``A`` (zero bytes)
# and other repeats: only the explicit placeholders count there, never the repeat heuristics.
_PEM_PLACEHOLDER_RE = lazy_compile(r"x{4,}|X{4,}|\*{3,}|\.\.\.|<|>|" + _WORD_ALTERNATIVES)
# (the ``string`` module's constants, written out: importing it compiles a pattern)
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGIT = frozenset("0123456789")


def _entropy(s: str) -> float:
    counts = Counter(s)
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _looks_real(secret: str, kind: _SecretKind) -> bool:
    body = secret.split("_", 1)[-1] if secret.startswith(("gh", "github_pat")) else secret
    if _PLACEHOLDER_RE.search(body):
        return False
    chars = set(body)
    classes = (not chars.isdisjoint(_LOWER)) + (not chars.isdisjoint(_UPPER)) + (
        not chars.isdisjoint(_DIGIT))
    if classes < kind.classes:
        return False
    return _entropy(body) >= kind.min_entropy


def mask(secret: str) -> str:
    """``ghp_…(40 chars)``: enough to find it, never enough to use it."""
    return f"{secret[:4]}…({len(secret)} chars)"


def _candidates(
    text: str, held: frozenset[str] | None = None
) -> Iterator[tuple[_SecretKind, re.Match[str]]]:
    """Every match of every kind; ``held``: the scan patterns, prefixes and anchors the text
    holds (:meth:`_Gate.held`), the others not searched for (None: all of them)."""
    for scan, kind in _SCANNED:
        if held is not None and kind.scan not in held:
            continue
        for hit in scan.finditer(text):
            m = kind.pattern.match(text, hit.start())
            if m is not None:
                yield kind, m
    for prefix, kinds in _BY_PREFIX:
        if held is not None and prefix not in held:
            continue
        pos = text.find(prefix)
        while pos != -1:
            for kind in kinds:
                m = kind.pattern.match(text, pos)
                if m is not None:
                    yield kind, m
            pos = text.find(prefix, pos + 1)
    for kind in _ANCHORED:
        done = -1
        for anchor in kind.anchors:
            if held is not None and anchor not in held:
                continue
            pos = text.find(anchor)
            while pos != -1:
                found = kind.pattern.search(text, max(0, pos - 16, done), pos + 120)
                if found is not None and found.start() <= pos:
                    done = found.end()
                    yield kind, found
                pos = text.find(anchor, pos + 1)


# What every finding of the scan below holds, ``(is a pattern, text)``: each kind's ``scan``
# pattern (a regular expression), its ``prefixes`` and ``anchors`` (the scan looks nowhere
# else) and a private key's header.
_GATE_PATTERNS: tuple[tuple[bool, str], ...] = tuple(dict.fromkeys((
    *((True, k.scan) for k in _KINDS if k.scan),
    *((False, x) for k in _KINDS for x in (*k.prefixes, *k.anchors)),
    (False, "PRIVATE KEY"),
    # not a secret: an in-file silencer's marker (``config.inline_ignores`` looks for it
    # first), so that a file the gate has read needs no second pass to rule silencers out
    (False, SILENCER_MARK),
    # conditions that narrow a literal down (:data:`_NARROWED`)
    (True, r"sk-[A-Za-z0-9_-]{32}"),
    (True, r"[aA][wW](?:[sS]|\xc5\xbf)_?(?:[sS]|\xc5\xbf)[eE][cC][rR][eE][tT]"),
)))
#: ``(literal, condition)``: the literal counts as held only when the text also holds a match
#: of the condition, a pattern of the gate that every finding started from the literal holds.
#: Words such as ``task-`` and ``secret`` are common in agent files; a key is rarer.
#: * ``sk-``: both OpenAI and Anthropic keys are ``sk-`` and then 32 or more of
#:   ``[A-Za-z0-9_-]`` (case-sensitive, ASCII only).
#: * ``ecret`` / ``ECRET``: an AWS secret key's pattern starts with ``aws_?secret`` matched
#:   case-insensitively, where Python's ``re`` also takes U+017F for ``s`` (its UTF-8 is in
#:   the condition; tests/test_secrets_gate.py checks every letter against every code point).
#: Neither condition holds ``\r`` or ``\n``, so it reads the file's bytes as it reads the text.
_NARROWED: tuple[tuple[str, str], ...] = (
    ("sk-", _GATE_PATTERNS[-2][1]), ("ecret", _GATE_PATTERNS[-1][1]),
    ("ECRET", _GATE_PATTERNS[-1][1]))
_CONDITIONS = frozenset(c for _, c in _NARROWED)
#: Characters the plain scan reads in a process before the gate is compiled (a command that
#: judges one file or a few never imports Hyperscan or RE2 for it).
_GATE_AFTER = 16_000
_NOTHING: frozenset[str] = frozenset()


class _Gate:
    """One pass (Hyperscan, else an RE2 set) that says whether a text holds any of
    :data:`_GATE_PATTERNS`: most agent files hold none, and the scan then costs one pass
    instead of nine searches.  Built once a process has scanned :data:`_GATE_AFTER`
    characters; without either (or if neither builds) every text is scanned in full."""

    read = 0
    match: Any = None
    failed = False

    @classmethod
    def held(cls, text: str, data: bytes | None = None) -> frozenset[str] | None:
        """The texts of :data:`_GATE_PATTERNS` found in ``text`` (None: not known, so the
        scan looks for every one).  ``data``: UTF-8 bytes that hold the same patterns as
        ``text`` (the file's bytes the text was decoded from), scanned instead of encoding
        the text again."""
        match = cls.match
        if match is None:
            if cls.failed or cls.read < _GATE_AFTER:
                cls.read += len(text)
                return None
            match = cls._build()
            if match is None:
                return None
        # Latin-1 bytes: every byte is a character (the literals are ASCII), so surrogates
        # and any other code point pass as bytes that never start a literal of their own
        found = match(text.encode("utf-8", "surrogatepass") if data is None else data)
        return _narrowed(frozenset([_GATE_PATTERNS[i][1] for i in found])) if found else _NOTHING

    @classmethod
    def may_hold(cls, text: str) -> bool:
        return cls.held(text) != _NOTHING

    @classmethod
    def _build(cls) -> Any:
        # Hyperscan where its wheel is installed (about three times faster over a text than
        # RE2's set: literals found with vector instructions), else RE2's set; the two name
        # the same patterns for every text (tests/test_secrets_gate.py compares them)
        cls.match = _hyperscan_gate() or _re2_gate()
        cls.failed = cls.match is None
        return cls.match


def _narrowed(held: frozenset[str]) -> frozenset[str]:
    """The gate's patterns found, less each literal whose condition was not found
    (:data:`_NARROWED`), less the conditions themselves."""
    for literal, condition in _NARROWED:
        if literal in held and condition not in held:
            held = held - {literal}
    return held - _CONDITIONS or _NOTHING


def _re2_gate() -> Any:
    """The gate as one RE2 set (None: RE2 missing or failing)."""
    try:
        import re2  # type: ignore[import-untyped]

        options = re2.Options()
        options.encoding = re2.Options.Encoding.LATIN1
        options.log_errors = False
        found = re2.Set.SearchSet(options)
        for is_pattern, text in _GATE_PATTERNS:
            found.Add(text if is_pattern else re2.escape(text))
        found.Compile()
        return found._set.Match  # (the compiled set: it takes bytes as they are)
    except Exception:  # fail closed: every text is scanned in full
        return None


def _hyperscan_gate() -> Any:
    """The gate as one Hyperscan database, compiled here (nine short patterns: about a
    millisecond, once a process), with a scratch space per thread; a scan that fails answers
    "every pattern", so the text is scanned in full (None: no Hyperscan)."""
    try:
        import threading

        import hyperscan as hs  # type: ignore[import-untyped, import-not-found, unused-ignore]

        db = hs.Database(mode=hs.HS_MODE_BLOCK)
        # bytes as they are (no UTF-8 flag), as the RE2 set's Latin-1 reads them
        sources = [(text if is_pattern else re.escape(text)).encode()
                   for is_pattern, text in _GATE_PATTERNS]
        db.compile(expressions=sources, ids=list(range(len(sources))),
                   elements=len(sources), flags=[hs.HS_FLAG_SINGLEMATCH] * len(sources))
        local = threading.local()
        local.scratch = hs.Scratch(db)
    except Exception:
        return None
    every = list(range(len(_GATE_PATTERNS)))

    def on_match(i: int, _start: int, _end: int, _flags: int, found: Any) -> None:
        found.append(i)  # (returns nothing: the scan goes on)

    def match(data: bytes) -> list[int]:
        found: list[int] = []
        try:
            scratch = getattr(local, "scratch", None)
            if scratch is None:
                scratch = local.scratch = hs.Scratch(db)
            # (by position: scan(data, match_event_handler, flags, context, scratch); the
            # binding's keywords cost about 0.7 µs a call, a fifth of the whole gate)
            db.scan(data, on_match, 0, found, scratch)
        except Exception:  # fail closed: the text is scanned for everything
            return every
        return found

    return match


def find_secrets(text: str, data: bytes | None = None) -> Iterator[tuple[int, str, str]]:
    """``(offset, kind, masked)`` for every credential-looking string in ``text``; ``data``:
    the UTF-8 bytes ``text`` was decoded from (:attr:`FileContext.data`: the gate reads them
    instead of encoding the text)."""
    return _found(text, _Gate.held(text, data))


def _found(text: str, held: frozenset[str] | None) -> Iterator[tuple[int, str, str]]:
    """:func:`find_secrets` given the gate's answer for ``text``."""
    if held is _NOTHING:
        return
    seen: set[int] = set()
    for kind, m in _candidates(text, held):
        secret = m.group(kind.group)
        start = m.start(kind.group)
        # the word boundary is checked here rather than as a leading \b in the pattern
        if start and (text[start - 1].isalnum() or text[start - 1] == "_"):
            continue
        if start in seen or not _looks_real(secret, kind):
            continue
        seen.add(start)
        yield start, kind.label, mask(secret)
    if (held is not None and "PRIVATE KEY" not in held) or "PRIVATE KEY" not in text:
        return
    for m in _PRIVATE_KEY_RE.finditer(text):
        body = re.sub(r"\s", "", m.group(2))
        if _PEM_PLACEHOLDER_RE.search(body) or _entropy(body) < 4.0:
            continue
        yield m.start(), m.group(1).lower(), "-----BEGIN …-----"


@check("SA404")
def check_secrets(ctx: FileContext) -> Iterator[Diagnostic]:
    text = ctx.text
    if not text:
        return
    # the gate's answer is kept for the file's other passes (its silencers)
    held = ctx.literals = _Gate.held(text, ctx.data)
    if held is _NOTHING:
        return
    # positions are computed walking forward through the sorted offsets: a file stuffed with
    # thousands of tokens must not cost one scan from the top of the file per finding
    line, line_start, counted = 1, 0, 0
    for offset, kind, masked in sorted(_found(text, held)):
        line += text.count("\n", counted, offset)
        line_start = text.rfind("\n", line_start, offset) + 1 or line_start
        counted = offset
        yield make_diagnostic(
            "SA404",
            ctx.path,
            (line, offset - line_start + 1),
            f"hard-coded {kind} ({masked})",
            "revoke it now, then reference it from the environment, e.g. "
            '`GITHUB_TOKEN: "${GITHUB_TOKEN}"` in mcpServers env',
        )


@check("SA401")
def check_world_writable(ctx: FileContext) -> Iterator[Diagnostic]:
    if ctx.file_path is None or os.name == "nt":
        return
    mode = ctx.mode  # (the reader's fstat of the file it read: no second stat)
    if mode is None:
        try:
            mode = os.stat(ctx.file_path).st_mode
        except OSError:
            return
    if mode & stat.S_IWOTH:
        yield make_diagnostic(
            "SA401",
            ctx.path,
            (1, 1),
            f"the file is world-writable (mode {stat.S_IMODE(mode):o}): anyone on this machine "
            "can change the agent's instructions",
            f"chmod o-w {ctx.path}",
        )


def path_escapes(file_path: os.PathLike[str] | str, root: os.PathLike[str] | str) -> bool:
    """Does ``file_path`` (following every symlink) resolve outside ``root``?"""
    try:
        real = os.path.realpath(file_path)
        base = os.path.realpath(root)
    except (OSError, ValueError):
        return True
    return os.path.commonpath([real, base]) != base


@check("SA402")
def check_path_escape(ctx: FileContext) -> Iterator[Diagnostic]:
    if ctx.file_path is None or ctx.agents_root is None:
        return
    if path_escapes(ctx.file_path, ctx.agents_root):
        yield make_diagnostic(
            "SA402",
            ctx.path,
            (1, 1),
            f"this path resolves to {os.path.realpath(ctx.file_path)}, outside the agents folder "
            f"{ctx.agents_root}; it was not read",
            "keep agent files inside the agents folder; replace the symlink by the file",
        )


_TRAVERSAL_RE = lazy_compile(r"[/\\\x00]|\.\.|^~")
_NAME_IS_FILE_NAME = frozenset({D.CLAUDE, D.CODEX_MD, D.JSON})


def _traverses(name: str) -> bool:
    """``_TRAVERSAL_RE.search(name)`` as a truth value, by five C searches (a name is short:
    the pattern's set-up cost more than the searches; tests/test_judge_shortcuts.py compares
    them)."""
    return ("/" in name or "\\" in name or "\x00" in name or ".." in name
            or name.startswith("~"))


@check("SA403")
def check_name_traversal(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    # In the other harnesses' files the name is a display id (Copilot's `C#/.NET Janitor`) and
    # every writer makes a file name of its own from it; here it is the file name.
    if defn.dialect in _NAME_IS_FILE_NAME and _traverses(defn.name):
        yield ctx.diag(
            "SA403",
            ctx.value_pos(defn, "name") if defn.dialect is not D.JSON
            else ctx.fallback_pos(defn),
            f"`name` {defn.name!r} contains a path separator or `..`; a tool that names files "
            "after the agent could write outside its folder",
            "use lowercase letters, digits and hyphens only",
        )
    # Skill names become paths too (`.claude/skills/<name>/SKILL.md`).
    for i, skill in enumerate(defn.skills):
        if _traverses(skill):
            yield ctx.diag(
                "SA403",
                ctx.item_pos(defn, "skills", i, skill),
                f"skill name {skill!r} contains a path separator or `..`; loading it could read "
                "outside the skills folder",
                "name the skill, not its path: `skills: security-checklist`",
            )


def detect_injection(text: str) -> tuple[int, tuple[str, ...]] | None:
    """(offset, signal kinds) of the strongest sign of a prompt injection in ``text``, at any
    confidence, else ``None`` (see :mod:`subagents.lint.rules.injection`;
    :func:`~subagents.lint.rules.injection.assess_injection` says how sure it is)."""
    from subagents.lint.rules.injection import assess_injection

    found = assess_injection(text)
    return None if found is None else (found.offset, found.signals)


_SIGNAL_WORDS = {
    "override": "override its instructions", "jailbreak": "drop its restrictions",
    "fake-role": "obey a forged system or assistant turn", "leak": "reveal its instructions",
    "exfil": "send secrets or files to an address", "secret": "read secrets",
    "destructive": "run something destructive", "conceal": "hide what it does from the user",
    "beacon": "load an address that carries data out", "roleplay": "play a role to get secrets",
    "trigger": "act on a hidden trigger",
}


def _rates() -> str:
    from subagents.lint.rules.injection import HELDOUT_RATES

    if HELDOUT_RATES is None:
        return ""
    precision, recall = HELDOUT_RATES
    return (f" (this check is heuristic: on held-out text it was right {precision:.0%} of the "
            f"times it warned, and found {recall:.0%} of the injections)")


_DETECTOR = "subagents.lint.rules.injection"


@check("SA405", "SA406")
def check_injection(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    """SA405 (an error, and ``run`` refuses the agent) when the detector is sure, SA406 (a
    warning quoting the measured rates) when it only suspects."""
    # the detector module, imported on first use (an import statement per definition costs
    # more than a look-up; its attribute is read at each call, as the statement read it)
    detector = sys.modules.get(_DETECTOR) or importlib.import_module(_DETECTOR)
    for key, text in (("system_prompt", defn.system_prompt), ("description", defn.description),
                      ("initial_prompt", defn.initial_prompt or "")):
        found = detector.assess_injection(text) if text else None
        if found is None:
            continue
        if key == "system_prompt" and defn.dialect is not D.JSON:
            pos = ctx.body_pos(defn, min(found.offset, len(text)))
        else:
            pos = ctx.value_pos(defn, key)
        said = ", ".join(_SIGNAL_WORDS.get(k, k) for k in found.signals)
        where = "" if found.view in ("text", "squeezed") else f" (hidden in {found.view} text)"
        if found.confidence == "high":
            yield ctx.diag(
                "SA405", pos,
                f"the prompt reads like a prompt injection{where}: it tells the model to {said}",
                "remove these instructions; if this file came from someone else, do not use it")
        else:
            yield ctx.diag(
                "SA406", pos,
                f"the prompt may hold a prompt injection{where}: it seems to tell the model to "
                f"{said}{_rates()}",
                "read the passage; if it is an instruction you did not write, remove it")
        return


FILE_RULES: tuple[FileRule, ...] = (check_world_writable, check_secrets)
DEFINITION_RULES: tuple[DefinitionRule, ...] = (check_name_traversal, check_injection)
