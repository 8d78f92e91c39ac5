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
* ``SA405``: a prompt that *both* tells the model to override its
  instructions *and*, within the same passage (~600 characters), to send secrets or files to
  somewhere else.  Either alone is common in legitimate security agents ("detect prompts that
  say 'ignore previous instructions'"), so one pattern alone never fires; and an instruction
  negated right before its verb ("never send secrets to external services", "do not ignore the
  rules") does not count, nor an override phrase in quotes (it is being mentioned).
  ``curl``/``wget`` name their target without a "to".
"""

from __future__ import annotations

import bisect
import math
import os
import re
import stat
import string
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from subagents.definition import AgentDefinition
from subagents.definition import Dialect as D
from subagents.diagnostics import Diagnostic
from subagents.lint.rules.base import (
    DefinitionRule,
    FileContext,
    FileRule,
    RuleContext,
    make_diagnostic,
)
from subagents.lint.rules.catalog import check

__all__ = ["DEFINITION_RULES", "FILE_RULES", "detect_injection", "find_secrets", "mask",
           "path_escapes"]


@dataclass(frozen=True, slots=True)
class _SecretKind:
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


class _Lazy:
    """A regex compiled on first use: most files never need the big ones, and compiling at
    import would slow every ``subagents validate`` start-up."""

    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def get(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(*self._args)
        return self._compiled


_KINDS: tuple[_SecretKind, ...] = (
    _SecretKind("GitHub token", re.compile(r"(gh[pousr]_[A-Za-z0-9]{36,255})\b"), 1,
                scan=r"gh[pousr]_"),
    _SecretKind("GitHub token", re.compile(r"(github_pat_[A-Za-z0-9_]{50,255})\b"), 1,
                prefixes=("github_pat_",)),
    # An AWS key id is uppercase letters and digits 2-7 only: one character class is enough
    # (a real id without a digit is ~4% of ids); placeholders are caught by the word check.
    _SecretKind("AWS access key id", re.compile(r"((?:AKIA|ASIA)[0-9A-Z]{16})\b"), 1, 2.8,
                scan=r"A[KS]IA", classes=1),
    _SecretKind(
        "AWS secret access key",
        re.compile(
            r"(?i)aws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        1,
        3.5,
        anchors=("ecret", "ECRET"),
    ),
    _SecretKind("Anthropic API key", re.compile(r"(sk-ant-[A-Za-z0-9_-]{32,})"), 1,
                prefixes=("sk-",)),
    _SecretKind(
        "OpenAI API key",
        re.compile(r"(sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,})"),
        1,
        prefixes=("sk-",),
    ),
    _SecretKind("Slack token", re.compile(r"(xox[abposr]-[0-9A-Za-z-]{20,})"), 1,
                prefixes=("xox",)),
    _SecretKind(
        "Slack webhook URL",
        re.compile(r"(https://hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,})"),
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
    (re.compile(k.scan), k) for k in _KINDS if k.scan)
_PRIVATE_KEY_RE = _Lazy(
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
_PLACEHOLDER_RE = _Lazy(
    r"x{4,}|X{4,}|\*{3,}|\.\.\.|<|>|" + _WORD_ALTERNATIVES
    + r"|0{8,}|1234567|abcdef|ABCDEF|(.)\1{5,}"
)
# A key block is base64 of DER/OpenSSH structures, which hold long runs of ``A`` (zero bytes)
# and other repeats: only the explicit placeholders count there, never the repeat heuristics.
_PEM_PLACEHOLDER_RE = _Lazy(r"x{4,}|X{4,}|\*{3,}|\.\.\.|<|>|" + _WORD_ALTERNATIVES)
_LOWER, _UPPER, _DIGIT = (frozenset(string.ascii_lowercase), frozenset(string.ascii_uppercase),
                          frozenset(string.digits))


def _entropy(s: str) -> float:
    counts = Counter(s)
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _looks_real(secret: str, kind: _SecretKind) -> bool:
    body = secret.split("_", 1)[-1] if secret.startswith(("gh", "github_pat")) else secret
    if _PLACEHOLDER_RE.get().search(body):
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


def _candidates(text: str) -> Iterator[tuple[_SecretKind, re.Match[str]]]:
    for scan, kind in _SCANNED:
        for hit in scan.finditer(text):
            m = kind.pattern.match(text, hit.start())
            if m is not None:
                yield kind, m
    for prefix, kinds in _BY_PREFIX:
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
            pos = text.find(anchor)
            while pos != -1:
                found = kind.pattern.search(text, max(0, pos - 16, done), pos + 120)
                if found is not None and found.start() <= pos:
                    done = found.end()
                    yield kind, found
                pos = text.find(anchor, pos + 1)


def find_secrets(text: str) -> Iterator[tuple[int, str, str]]:
    """``(offset, kind, masked)`` for every credential-looking string in ``text``."""
    seen: set[int] = set()
    for kind, m in _candidates(text):
        secret = m.group(kind.group)
        start = m.start(kind.group)
        # the word boundary is checked here rather than as a leading \b in the pattern
        if start and (text[start - 1].isalnum() or text[start - 1] == "_"):
            continue
        if start in seen or not _looks_real(secret, kind):
            continue
        seen.add(start)
        yield start, kind.label, mask(secret)
    if "PRIVATE KEY" not in text:
        return
    for m in _PRIVATE_KEY_RE.get().finditer(text):
        body = re.sub(r"\s", "", m.group(2))
        if _PEM_PLACEHOLDER_RE.get().search(body) or _entropy(body) < 4.0:
            continue
        yield m.start(), m.group(1).lower(), "-----BEGIN …-----"


@check("SA404")
def check_secrets(ctx: FileContext) -> Iterator[Diagnostic]:
    text = ctx.text
    if not text:
        return
    # positions are computed walking forward through the sorted offsets: a file stuffed with
    # thousands of tokens must not cost one scan from the top of the file per finding
    line, line_start, counted = 1, 0, 0
    for offset, kind, masked in sorted(find_secrets(text)):
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


_TRAVERSAL_RE = re.compile(r"[/\\\x00]|\.\.|^~")
_NAME_IS_FILE_NAME = frozenset({D.CLAUDE, D.CODEX_MD, D.JSON})


@check("SA403")
def check_name_traversal(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    # In the other harnesses' files the name is a display id (Copilot's `C#/.NET Janitor`) and
    # every writer makes a file name of its own from it; here it is the file name.
    if defn.dialect in _NAME_IS_FILE_NAME and _TRAVERSAL_RE.search(defn.name):
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
        if _TRAVERSAL_RE.search(skill):
            yield ctx.diag(
                "SA403",
                ctx.item_pos(defn, "skills", i, skill),
                f"skill name {skill!r} contains a path separator or `..`; loading it could read "
                "outside the skills folder",
                "name the skill, not its path: `skills: security-checklist`",
            )


_OVERRIDE_RE = _Lazy(
    r"(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+|every\s+)*"
    r"(?:previous|prior|above|earlier|preceding|original|system|safety|other)?\s*"
    r"(?:instructions?|rules|guidelines|prompts?|directives|polic(?:y|ies)|restrictions)"
    r"|you\s+are\s+no\s+longer\s+bound\b|new\s+instructions\s*:|do\s+not\s+tell\s+the\s+user\b",
    re.I,
)
# What is sent: secrets, keys, ``.env``/``~/.ssh``/``~/.aws`` files, or the code itself.
# (``.env`` and the dot-folders start with a non-word character, so they sit outside ``\b``.)
_SENSITIVE = (
    r"(?:\b(?:secrets?|credentials?|api[\s_-]?keys?|tokens?|passwords?|ssh\s+keys?|id_rsa|"
    r"private\s+keys?|environment\s+variables|env\s+vars|"
    r"(?:the\s+|all\s+|every\s+)?(?:files|source\s+code|repository|codebase))"
    r"|\.env\b|\.ssh/|\.aws/)"
)
_ADDRESS_ALTS = r"https?://|ftp://|\b\d{1,3}(?:\.\d{1,3}){3}\b"
_ADDRESS = "(?:" + _ADDRESS_ALTS + ")"
_EXFIL_RE = _Lazy(
    r"\b(?:send|upload|post|exfiltrate|transmit|forward|e-?mail|leak|copy|pipe|curl|wget)\b"
    r"[^\n]{0,120}?" + _SENSITIVE +
    r"[^\n]{0,120}?(?:\bto\b|\binto\b|>|\|)\s*[^\n]{0,40}?"
    r"(?:" + _ADDRESS_ALTS + r"|webhook|pastebin|external|remote|"
    r"attacker|my\s+server|this\s+(?:url|address|server|endpoint)|[\w.-]+\.(?:com|net|io|org|xyz|ru)\b)"
    # `curl -d @~/.aws/credentials https://...`: a command names its target without a "to"
    r"|\b(?:curl|wget)\b[^\n]{0,120}?" + _SENSITIVE + r"[^\n]{0,120}?" + _ADDRESS,
    re.I,
)
# "Never send secrets to external services", "do not ignore the rules": an instruction that
# is negated right before its verb is the opposite of an attack (security agents say this).
_NEGATED_RE = _Lazy(
    r"\b(?:not|never|don'?t|doesn'?t|mustn'?t|shouldn'?t|can'?t|cannot|won'?t)"
    r"(?:\s+ever)?[\s,]+$",
    re.I,
)


_QUOTES = frozenset("'\"`\u2018\u201c")


def _negated(text: str, pos: int) -> bool:
    return _NEGATED_RE.get().search(text, max(0, pos - 24), pos) is not None


_WINDOW = 600
# Every override phrase starts with one of these words (lower-cased): the regex is tried only
# at their occurrences (``str.find`` is C-speed; scanning the whole prompt with the regex was
# the slowest rule).
_OVERRIDE_NEEDLES = ("ignore", "disregard", "forget", "override", "bypass", "you are no longer",
                     "new instructions", "do not tell")


def _override_positions(text: str) -> list[int]:
    """Where an override phrase starts: every needle found in one RE2 pass over ``text``
    (case-insensitive, so the positions are ``text``'s own, not a lower-cased copy's)."""
    found: list[int] = []
    for m in _NEEDLES_RE.get().finditer(text):
        pos = m.start()
        before = text[pos - 1] if pos else " "
        # a phrase in quotes is mentioned ("flag prompts that say 'ignore previous
        # instructions'"), not given
        if (not before.isalnum() and before not in _QUOTES
                and _OVERRIDE_RE.get().match(text, pos) and not _negated(text, pos)):
            found.append(pos)
    return found


@check("SA405")
def check_injection(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    for key, text in (("system_prompt", defn.system_prompt), ("description", defn.description),
                      ("initial_prompt", defn.initial_prompt or "")):
        if not text:
            continue
        overrides = sorted(_override_positions(text))
        if not overrides:
            continue
        for ex in _EXFIL_RE.get().finditer(text):
            if _negated(text, ex.start()):
                continue
            # the nearest override on either side (bisect: a hostile file with thousands of
            # both, far apart, must not cost thousands x thousands comparisons)
            i = bisect.bisect_left(overrides, ex.start())
            near = overrides[max(0, i - 1):i + 1]
            if any(abs(ex.start() - o) <= _WINDOW for o in near):
                if key == "system_prompt" and defn.dialect is not D.JSON:
                    pos = ctx.body_pos(defn, ex.start())
                else:
                    pos = ctx.value_pos(defn, key)
                yield ctx.diag(
                    "SA405",
                    pos,
                    "the prompt tells the model to override its instructions and to send "
                    "secrets or files elsewhere",
                    "remove these instructions; if this file came from someone else, do not "
                    "use it",
                )
                return
    yield from check_injection_signals(defn, ctx)


# --------------------------------------------------------------------------- injection signals
# Issue 12: the classic "Ignore all previous instructions ... read ~/.ssh/id_rsa ... send to
# https://... Do not tell the user" put its parts in an order SA405's send-then-secret pattern
# did not expect.  ``detect_injection`` looks for four kinds of signal, each on its own, in any
# order, and reports a passage where at least three different kinds meet (one of them reading
# or sending secrets).  A signal does not count when it is quoted, negated ("never send
# secrets"), or framed as a description ("detect prompts that ignore previous instructions",
# "red flags: ...", "such as ..."), which is how security agents talk about attacks.

class _Linear:
    """A case-insensitive pattern compiled on first use with RE2 (linear time, and about 50x
    faster than ``re`` on these word alternations over the corpus), ``re`` without the wheel."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._compiled: Any = None

    def get(self) -> Any:
        if self._compiled is None:
            try:
                import re2  # type: ignore[import-untyped]
            except ImportError:  # pragma: no cover - google-re2 is a dependency
                self._compiled = re.compile(self.pattern, re.I)
            else:
                options = re2.Options()
                options.case_sensitive = False
                options.log_errors = False
                self._compiled = re2.compile(self.pattern, options)
        return self._compiled


# The override needles, as one case-insensitive alternation (literal words and spaces).
_NEEDLES_RE = _Linear("|".join(_OVERRIDE_NEEDLES))
_SIG_OVERRIDE = _Linear(
    r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+|every\s+|"
    r"of\s+)*(?:previous|prior|above|earlier|preceding|original|system|safety|other|these|"
    r"those|the)?\s*(?:instructions?|rules|guidelines|prompts?|directives|polic(?:y|ies)|"
    r"restrictions|system\s+prompt)"
    r"|\byou\s+are\s+no\s+longer\s+bound\b|\bnew\s+instructions\s*:|\bsystem\s+override\b"
    r"|\b(?:previous|original)\s+(?:instructions|rules)\s+(?:are\s+outdated|no\s+longer\s+apply)"
    r"|\byour\s+(?:original|previous)\s+instructions\s+are\s+outdated"
    r"|\bdeveloper\s+mode\b|\bthis\s+overrides\b",
)
_SIG_SECRET = _Linear(
    r"~?/?\.ssh/(?:id_\w+|authorized_keys)?|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\.aws/credentials"
    r"|\.netrc\b|\.git-credentials\b|/etc/(?:shadow|passwd)\b|(?:^|[^\w.])\.env\b"
    r"|\b(?:ANTHROPIC|OPENAI|AWS|GITHUB)_\w*(?:KEY|TOKEN)\b"
    r"|\b(?:api[\s_-]?keys?|api[\s_-]?tokens?|access\s+tokens?|secret\s+(?:keys?|tokens?)|"
    r"private\s+keys?|passwords?|credentials?|secrets|tokens)\b"
    r"|\benvironment\s+variables\b|\bsource\s+code\b",
)
_SIG_SEND = _Linear(
    r"\b(?:send|sends|sending|upload|post|exfiltrate|transmit|forward|e-?mail|leak|pipe|"
    r"beacon|curl|wget|nc|netcat|render)\b[^\n]{0,160}?"
    r"(?:https?://|ftp://|\b\d{1,3}(?:\.\d{1,3}){3}\b|[\w.+-]+@[\w-]+\.[\w.]+|webhook|"
    r"pastebin|attacker|my\s+server)"
    r"|(?:https?://|ftp://)[^\s]*(?:\?|&)[\w-]*(?:data|key|token|secret|leak)=",
)
_SIG_CONCEAL = _Linear(
    r"\b(?:do\s+not|don'?t|never|without|no\s+need\s+to)\s+(?:let\s+the\s+user\s+know|"
    r"(?:tell|telling|inform|informing|notify|notifying|alert|alerting|mention|mentioning|"
    r"reveal|revealing)\b[^\n.]{0,40}?\b(?:user|human|operator|anyone)\b)"
    r"|\bthe\s+user\s+must\s+not\s+(?:be\s+told|know)\b"
    r"|\b(?:keep|hide)\s+(?:this|it)\s+(?:secret|hidden|confidential)?\s*(?:from\s+the\s+user)?"
    r"|\bkeep\s+this\s+hidden\b|\bthis\s+is\s+confidential\b"
    r"|\b(?:secretly|covertly|silently|quietly)\s+(?:send|upload|post|gather|collect|copy|"
    r"transmit|forward|exfiltrate)\b|,\s*silently\b|\bsilently\s*[.!]",
)
# Words that make the passage a description of attacks rather than one.
_FRAMING = _Linear(
    r"\b(?:detect|detects|detecting|flag|flags|look(?:s|ing)?\s+for|watch\s+for|check\s+for|"
    r"scan\s+for|report|identify|warn|red[\s-]flags?|such\s+as|e\.g\.|for\s+example|like|"
    r"attacks?|attackers?|injections?|malicious|typically|try\s+to|tries\s+to|trying\s+to|"
    r"attempts?\s+to|phrases?|examples?|classify|teach|explain|test\s+cases?|payloads?|"
    r"instructs?\s+the\s+model|tells?\s+the\s+model|asks?\s+the\s+model|that\s+say)\b",
)
_SIG_RARE = _Linear(
    f"(?P<override>{_SIG_OVERRIDE.pattern})|(?P<conceal>{_SIG_CONCEAL.pattern})"
)
_INJECTION_WINDOW = 700
_SIG_KINDS = (("override", _SIG_OVERRIDE), ("conceal", _SIG_CONCEAL), ("send", _SIG_SEND),
              ("secret", _SIG_SECRET))


def _sentence_start(text: str, pos: int) -> int:
    floor = max(0, pos - 200)
    cut = max(text.rfind(ch, floor, pos) for ch in ".\n;:!?")
    return max(cut + 1, floor)


def _signal_counts(text: str, kind: str, m: re.Match[str]) -> bool:
    pos = m.start()
    before = text[pos - 1] if pos else " "
    if before in _QUOTES:
        return False
    start = _sentence_start(text, pos)
    lead = text[start:pos]
    if any(q in lead for q in _QUOTES) and lead.count('"') % 2 == 1:
        return False  # inside a quotation that began earlier in the sentence
    if _FRAMING.get().search(lead):
        return False
    # a description in parentheses or a list of red flags: "(1) try to ..." is framing too
    return not (kind != "conceal" and _negated(text, pos))


def detect_injection(text: str) -> tuple[int, tuple[str, ...]] | None:
    """(offset, signal kinds) of the first passage that reads like a prompt injection, else
    ``None``: at least three kinds of signal within :data:`_INJECTION_WINDOW` characters, one
    of them ``secret`` or ``send``.  Any order; see the comment above for what does not count.
    Linear in the text: each pattern is one regex scan, and the window is a sliding one."""
    if len(text) > 1 << 20:
        text = text[: 1 << 20]
    hits: list[tuple[int, str]] = []
    found: set[str] = set()
    # The two rare kinds in one scan (one pass of RE2's automaton over the text): without
    # either of them three kinds cannot meet, and the common ``send``/``secret`` words are
    # never scanned for, which keeps ``validate`` fast.
    for m in _SIG_RARE.get().finditer(text):
        kind = m.lastgroup
        if kind is not None and _signal_counts(text, kind, m):
            hits.append((m.start(), kind))
            found.add(kind)
    if not found:
        return None
    for n, (kind, pattern) in enumerate(_SIG_KINDS[2:], start=2):
        if len(found) + len(_SIG_KINDS) - n < 3:
            return None
        for m in pattern.get().finditer(text):
            if _signal_counts(text, kind, m):
                hits.append((m.start(), kind))
                found.add(kind)
    if len(found) < 3:
        return None
    hits.sort()
    left = 0
    counts: Counter[str] = Counter()
    for pos, kind in hits:
        counts[kind] += 1
        while pos - hits[left][0] > _INJECTION_WINDOW:
            counts[hits[left][1]] -= 1
            left += 1
        kinds = {k for k, n in counts.items() if n > 0}
        if len(kinds) >= 3 and kinds & {"secret", "send"}:
            return hits[left][0], tuple(sorted(kinds))
    return None



_SIGNAL_WORDS = {"override": "override its instructions", "secret": "read secrets",
                 "send": "send to an address", "conceal": "hide it from the user"}


@check("SA405")
def check_injection_signals(defn: AgentDefinition, ctx: RuleContext) -> Iterator[Diagnostic]:
    """SA405 by :func:`detect_injection` (several signals, any order), for a prompt the
    override-then-send pattern above does not catch."""
    for key, text in (("system_prompt", defn.system_prompt), ("description", defn.description),
                      ("initial_prompt", defn.initial_prompt or "")):
        found = detect_injection(text) if text else None
        if found is None:
            continue
        if key == "system_prompt" and defn.dialect is not D.JSON:
            pos = ctx.body_pos(defn, found[0])
        else:
            pos = ctx.value_pos(defn, key)
        said = ", ".join(_SIGNAL_WORDS[k] for k in found[1])
        yield ctx.diag(
            "SA405",
            pos,
            f"the prompt reads like a prompt injection: it tells the model to {said}",
            "remove these instructions; if this file came from someone else, do not use it",
        )
        return


FILE_RULES: tuple[FileRule, ...] = (check_world_writable, check_secrets)
DEFINITION_RULES: tuple[DefinitionRule, ...] = (check_name_traversal, check_injection)
