"""Shell commands judged as bash parses them, for ``Bash(...)`` permission rules.

Permission rules for the ``Bash`` tool are about *commands*, not strings: ``Bash(git diff:*)``
must not cover ``git diff ${x@P}`` (bash expands that prompt string into anything) and
``Bash(rm:*)`` must still catch ``env rm``, ``/bin/rm``, ``X=1 rm``, ``{ rm; }``, ``$'rm'``,
``"rm"``, ``r\\m``, a newline before ``rm`` and ``$(rm ...)``.  So the command line is parsed
into a syntax tree by a real bash grammar and the two kinds of rule ask different questions:

:func:`plain_commands` (allow rules) — the command line as a list of *plain* simple commands
    (lists and pipelines of them), every word a literal after quote removal, or ``None`` as soon
    as anything else is there: a parameter, arithmetic or command expansion, process
    substitution, redirection, here-document, prefix assignment (``GIT_EXTERNAL_DIFF=x git
    diff``), subshell, brace group, control structure, function, unquoted glob or brace
    expansion, a leading ``~``, or a parse error.  An allow rule then matches only if the
    words start with the rule's words and no later argument is one of :data:`DANGEROUS_ARGS`
    (options that write files or run programs: ``git diff --output=/x``, ``find -exec``,
    ``sort -o``, ``rg --pre``...), unless the rule itself names it.

:func:`deny_matches` (deny rules) — does the rule's program appear in *any* command anywhere in
    the tree (lists, pipelines, subshells, brace groups, ``if``/``for``/``case`` bodies,
    functions, command and process substitutions, here-documents)?  The program word is
    unquoted (``"rm"``, ``$'rm'``, ``r\\m``), reduced to its base name (``/bin/rm``), and
    looked for again behind wrappers (``env``, ``command``, ``exec``, ``nice``, ``sudo``,
    ``xargs``, ``timeout``...: every later word is a candidate program, so a wrapper option we
    do not know cannot hide it) and inside strings that are run as code (``bash -c``, ``sh -c``,
    ``eval``, ``env -S``: parsed again, up to :data:`MAX_NESTING` levels).  Whatever cannot be
    resolved counts as a match — fail closed: a program word that is an expansion (``$x``,
    ``$(echo rm)``), contains a glob, a parse error, a string run as code that is not a
    literal.  The rule's further words (``Bash(git push:*)``) must appear in order among the
    arguments (``git -C x push`` is caught); an argument that is not a literal matches any.

Choice of parser: ``tree-sitter`` with the ``tree-sitter-bash`` grammar (both wheels on PyPI,
maintained by the tree-sitter organisation, released 2025 and used by editors and by GitHub's
code navigation on millions of scripts).  ``bashlex`` (a port of bash's own parser) was the
other candidate: it has had no release since 2023, raises on constructs such as ``${x@P}``,
``[[ ]]`` and ``case``, and gives no error-tolerant tree, so a rule check would fail closed on
ordinary commands.  tree-sitter parses in linear time, never raises, and marks what it cannot
parse with ``ERROR``/``MISSING`` nodes, which we turn into "cannot resolve".  The import is
lazy (only the runner judging a ``Bash`` rule pays for it).

What this does not do: deny rules judge the command line, not what a program does with its
arguments — ``python -c 'import os; os.remove(...)'``, a script written earlier, or
``git -c alias.x='!rm ...' x`` are not seen.  That is what the sandbox
(:mod:`subagents.runtime.sandbox`) and asking are for.
"""

from __future__ import annotations

import contextvars
import functools
import os
import re
import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

__all__ = [
    "DANGEROUS_ARGS",
    "MAX_NESTING",
    "allow_matches",
    "deny_matches",
    "plain_commands",
    "rule_words",
]

#: How deep ``bash -c "eval '...'"`` is followed before it counts as a match anyway.
MAX_NESTING = 6

#: Argument forms that make an otherwise harmless command write files or run programs.  A
#: ``--long`` entry matches ``--long`` and ``--long=...``; a ``-x`` entry also matches ``-x...``
#: and bundled short options containing ``x``.  ``"*"`` applies to every program.
DANGEROUS_ARGS: dict[str, tuple[str, ...]] = {
    "*": ("--output", "--output-file", "--log-file", "--exec", "--config-env",
          "--upload-pack", "--receive-pack", "--to-command", "--use-compress-program",
          "--compress-program", "--checkpoint-action", "--open-files-in-pager", "--ext-diff",
          "--pre", "--exec-path", "--git-dir", "--work-tree", "--split-string"),
    "git": ("-O", "-c"),
    "git clone": ("-u",),  # --upload-pack
    "git fetch": ("-u",), "git pull": ("-u",),
    "find": ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0",
             "-fprintf", "-fls"),
    "sort": ("-o",),
    "sed": ("-i", "--in-place"),
    "tar": ("-I", "-x", "--extract", "-c", "--create"),
    "curl": ("-o", "-O", "-K", "--config", "-T", "--upload-file", "--remote-name"),
    "wget": ("-O", "-o", "--output-document", "-P", "--directory-prefix"),
    "xargs": ("*",),
    "env": ("*",),
}

# Programs whose later words are (or may be) another program to run.
_WRAPPERS = frozenset({
    "env", "command", "exec", "builtin", "nice", "nohup", "time", "sudo", "doas", "setsid",
    "stdbuf", "timeout", "ionice", "taskset", "chrt", "xargs", "coproc", "watch", "flock",
    "unbuffer", "strace", "ltrace", "chroot", "runuser", "su", "parallel", "script",
    "busybox", "fakeroot", "proot", "firejail", "systemd-run", "unshare", "nsenter",
    "caffeinate", "torsocks", "proxychains", "proxychains4", "catchsegv", "valgrind",
})
# Programs whose argument (after -c, or all of them for eval) is shell code.
_SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "su",
                     "fish", "rbash", "tcsh", "csh"})

#: Programs whose arguments are code or many ways to run programs (sed's ``e`` and ``w``
#: commands, awk's ``system()``, tar's scripts, find's actions): a prefix or glob allow rule
#: never covers them; only a rule that is the whole command does.
NEVER_PLAIN = frozenset({"sed", "gsed", "awk", "gawk", "mawk", "nawk", "busybox", "tar",
                         "gtar", "bsdtar", "find", "gfind"})

_SAFE_TOKENS = frozenset({";", "&&", "||", "|", "|&", "&", "\n", ";;"})
_LITERAL_LEAVES = frozenset({"word", "number"})
_GLOB = re.compile(r"[*?\[]")


class _Unresolved(Exception):
    """A word or a tree we cannot reduce to literals."""


@functools.cache
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


#: The characters of the command line being judged, one per byte the parser saw.
_SOURCE: contextvars.ContextVar[Sequence[str]] = contextvars.ContextVar("_SOURCE")


def _parse(command: str) -> tuple[Any, contextvars.Token[Sequence[str]]]:
    """The syntax tree of ``command`` (and the token that restores the previous source).

    The grammar's external scanner crashes the process on some non-ASCII input (seen with
    hypothesis: ``{`` followed by a supplementary-plane character and ``¤``), so the parser
    only ever sees ASCII: every other character becomes ``a`` (bash has no non-ASCII
    metacharacters, so they are word characters like ``a``), one byte each, and node texts
    are read back from the original characters by byte offset (:func:`_text`)."""
    ascii_bytes = bytes(ord(ch) if ord(ch) < 128 else 0x61 for ch in command)
    token = _SOURCE.set(command)
    return _parser().parse(ascii_bytes).root_node, token


def _text(node: Any) -> str:
    return "".join(_SOURCE.get()[node.start_byte:node.end_byte])


# --------------------------------------------------------------------------- literal words

_ANSI_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n",
                 "r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_ANSI_RE = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}"
                      r"|c.|.)", re.S)


def _ansi_c(body: str) -> str:
    """The value of ``$'...'`` (bash's ANSI-C quoting)."""
    def sub(m: re.Match[str]) -> str:
        esc = m.group(1)
        head = esc[0]
        if head in "xuU" and len(esc) > 1:
            return chr(int(esc[1:], 16))
        if head in "01234567":
            return chr(int(esc, 8) & 0xFF)
        if head == "c" and len(esc) == 2:
            return chr(ord(esc[1]) & 0x1F)
        return _ANSI_ESCAPES.get(esc, "\\" + esc)
    return _ANSI_RE.sub(sub, body)


def _unquote_bare(text: str, *, strict: bool) -> str:
    """An unquoted word after quote removal; glob/tilde/brace forms raise when ``strict``."""
    if "$" in text or "`" in text:
        raise _Unresolved(text)
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            if i + 1 < len(text):
                if text[i + 1] != "\n":  # backslash-newline is a line continuation
                    out.append(text[i + 1])
                i += 2
                continue
            i += 1
            continue
        if strict and _GLOB.match(ch):
            raise _Unresolved(text)
        out.append(ch)
        i += 1
    return "".join(out)


def _literal(node: Any, *, strict: bool) -> str:
    """The value of a word node if it is a literal (raises :class:`_Unresolved` otherwise).

    ``strict`` (allow rules) also refuses unquoted globs, ``~`` at the start and brace
    expansion; deny rules call it with ``strict=False`` and check globs themselves."""
    kind = node.type
    if kind in _LITERAL_LEAVES:
        text = _text(node)
        if strict and text.startswith("~"):
            raise _Unresolved(text)
        return _unquote_bare(text, strict=strict)
    if kind == "raw_string":
        return _text(node)[1:-1]
    if kind == "ansi_c_string":
        return _ansi_c(_text(node)[2:-1])
    if kind in ("string", "translated_string"):
        parts: list[str] = []
        for child in node.children:
            if child.type in ('"', "$\""):
                continue
            if child.type != "string_content":
                raise _Unresolved(_text(node))
            parts.append(re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n"
                                else m.group(1), _text(child)))
        return "".join(parts)
    if kind == "concatenation":
        children = list(node.children)
        texts = [_text(c) for c in children]
        if strict and "{" in texts and any("," in t or ".." in t for t in texts):
            raise _Unresolved(_text(node))  # brace expansion {a,b} / {1..9}
        if strict and texts and texts[0].startswith("~") and children[0].type == "word":
            raise _Unresolved(_text(node))
        return "".join(_literal(c, strict=strict) for c in children)
    raise _Unresolved(_text(node))


# --------------------------------------------------------------------------- allow side

_ARG_KINDS = frozenset({"word", "number", "raw_string", "ansi_c_string", "string",
                        "translated_string", "concatenation"})


def _plain_words(cmd: Any) -> list[str]:
    words: list[str] = []
    for child in cmd.children:
        if child.type == "command_name":
            inner = child.children
            if len(inner) != 1:
                raise _Unresolved(_text(child))
            words.append(_literal(inner[0], strict=True))
        elif child.type in _ARG_KINDS:
            words.append(_literal(child, strict=True))
        elif child.type == "comment":
            continue
        else:  # variable_assignment, file_redirect, herestring, expansions...
            raise _Unresolved(_text(child))
    return words


def plain_commands(command: str) -> list[list[str]] | None:
    """The simple commands of a plain command line (see the module docstring), else ``None``."""
    if "\x00" in command:
        return None
    try:
        root, token = _parse(command)
    except Exception:  # the parser must never be the way in
        return None
    try:
        return _plain(root)
    finally:
        _SOURCE.reset(token)


def _plain(root: Any) -> list[list[str]] | None:
    if root.has_error:
        return None
    out: list[list[str]] = []

    def walk(node: Any) -> None:
        for child in node.children:
            if child.type in ("list", "pipeline"):
                walk(child)
            elif child.type == "command":
                words = _plain_words(child)
                if not words:
                    raise _Unresolved(_text(child))
                out.append(words)
            elif child.type == "comment" or (not child.is_named and child.type in _SAFE_TOKENS):
                continue
            else:
                raise _Unresolved(_text(child))

    try:
        walk(root)
    except _Unresolved:
        return None
    return out or None


def rule_words(spec: str) -> tuple[list[str], bool] | None:
    """``git diff:*`` → (``["git", "diff"]``, prefix=True); ``None`` if it does not split."""
    spec = spec.strip()
    prefix = spec.endswith(":*")
    try:
        words = shlex.split(spec[:-2] if prefix else spec)
    except ValueError:
        return None
    return words, prefix


def _dangerous(program: str, arg: str, named: Sequence[str], sub: str = "") -> bool:
    base = os.path.basename(program)
    forms = (*DANGEROUS_ARGS["*"], *DANGEROUS_ARGS.get(base, ()),
             *DANGEROUS_ARGS.get(f"{base} {sub}", ()))
    for form in forms:
        if form == "*":
            return True
        if any(n == form or n.startswith(form + "=") for n in named):
            continue  # the rule names this option itself
        if form.startswith("--"):
            # getopt takes any unambiguous prefix (--upload-pa=, --out=): every prefix counts
            name = arg[2:].split("=", 1)[0] if arg.startswith("--") else ""
            if name and form[2:].startswith(name):
                return True
        elif len(form) > 2:
            if arg == form or arg.startswith(form + "="):
                return True
        elif arg.startswith(form) or (arg.startswith("-") and not arg.startswith("--")
                                      and form[1] in arg[1:]):
            return True
    return False


def allow_matches(spec: str, words: Sequence[str]) -> bool:
    """Does an allow rule's specifier cover one plain command (from :func:`plain_commands`)?"""
    parsed = rule_words(spec)
    if parsed is None or not words:
        return False
    rule, prefix = parsed
    if not rule:
        return False
    if "*" in spec.removesuffix(":*"):  # a glob rule such as ``npm run *``
        if not fnmatchcase(" ".join(words), spec.strip().removesuffix(":*")):
            return False
        fixed = []
        for w in rule:
            if "*" in w:
                break
            fixed.append(w)
        rest = words[len(fixed):]
        if rest and os.path.basename(words[0]) in NEVER_PLAIN:
            return False
        return not any(_dangerous(words[0], a, rule, _sub(words)) for a in rest)
    if prefix:
        if list(words[: len(rule)]) != rule:
            return False
        rest = words[len(rule):]
        if rest and os.path.basename(words[0]) in NEVER_PLAIN:
            return False
        return not any(_dangerous(words[0], a, rule, _sub(words)) for a in rest)
    return list(words) == rule


def _sub(words: Sequence[str]) -> str:
    """The subcommand of ``git clone ...`` (the first word after the program that is not an
    option), for :data:`DANGEROUS_ARGS` entries such as ``"git clone"``."""
    return next((w for w in words[1:] if not w.startswith("-")), "")


# --------------------------------------------------------------------------- deny side


@dataclass(frozen=True, slots=True)
class _Word:
    value: str | None  # None: an expansion or anything else we cannot resolve
    node: Any = None


def _deny_word(node: Any) -> _Word:
    try:
        return _Word(_literal(node, strict=False), node)
    except _Unresolved:
        return _Word(None, node)


def _commands(node: Any) -> Iterator[Any]:
    """Every ``command`` node anywhere below ``node`` (substitutions included)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "command":
            yield n
        stack.extend(reversed(n.children))


def _program_matches(pattern: str, word: _Word) -> bool:
    if word.value is None:
        return True  # an expansion in program position could be anything
    value = word.value
    if _GLOB.search(value) and word.node is not None and word.node.type in ("word",
                                                                           "concatenation"):
        return True  # an unquoted glob could expand to the program
    base = os.path.basename(value.rstrip("/")) or value
    want = os.path.basename(pattern) or pattern
    return fnmatchcase(base, want) if "*" in want else base == want


_SHORT_BUNDLE = re.compile(r"-[A-Za-z0-9]+")

#: GNU long spellings of the short options deny rules name most (``rm --recursive --force``
#: is ``rm -rf``), by program (``git clean`` by subcommand).  A command's ``--name`` counts as
#: the letter when it is a prefix of ``name`` (getopt_long accepts unambiguous prefixes; an
#: ambiguous one only makes a deny rule match more).  Letters that mean the same are folded
#: (``rm -R`` is ``rm -r``).
_LONG_OPTIONS: dict[str, dict[str, str]] = {
    "rm": {"recursive": "r", "force": "f", "dir": "d", "verbose": "v"},
    "chmod": {"recursive": "R", "verbose": "v", "changes": "c", "silent": "f", "quiet": "f"},
    "chown": {"recursive": "R", "verbose": "v", "changes": "c", "silent": "f", "quiet": "f"},
    "chgrp": {"recursive": "R", "verbose": "v", "changes": "c", "silent": "f", "quiet": "f"},
    "git clean": {"force": "f", "dry-run": "n", "quiet": "q"},
}
_SAME_LETTER: dict[str, dict[str, str]] = {"rm": {"R": "r"}}


def _option_table(program: str, rule_rest: Sequence[str]) -> str:
    base = os.path.basename(program)
    if base == "git":
        sub = next((w for w in rule_rest if not w.startswith("-")), "")
        return f"git {sub}"
    return base


def _letters(value: str, table: str) -> str:
    """The short-option letters ``value`` stands for under ``table`` ("" if none)."""
    fold = _SAME_LETTER.get(table, {})
    if _SHORT_BUNDLE.fullmatch(value):
        return "".join(fold.get(ch, ch) for ch in value[1:])
    if value.startswith("--") and len(value) > 2:
        name = value[2:].split("=", 1)[0].casefold()
        hits = {letter for long, letter in _LONG_OPTIONS.get(table, {}).items()
                if long.startswith(name)}
        return "".join(sorted(hits))
    return ""


def _args_match(rule_rest: Sequence[str], args: Sequence[_Word], program: str = "") -> bool:
    """Do the rule's further words appear, in order, among ``args``?

    A short option or bundle of the rule (``-r``, ``-rf``) matches however the command spells
    the same letters (``-r -f``, ``-fr``, ``-rfv``, and for the programs of
    :data:`_LONG_OPTIONS` ``--recursive --force``, ``--rec``, ``-R``): each of its letters
    must be among the command's options, wherever they stand.  An argument we cannot resolve
    matches anything."""
    table = _option_table(program, rule_rest)
    letters: set[str] = set()
    unknown = False
    for arg in args:
        if arg.value is None:
            unknown = True
        else:
            letters.update(_letters(arg.value, table))
    words = []
    for word in rule_rest:
        wanted = _letters(word, table)
        if wanted and (_SHORT_BUNDLE.fullmatch(word) or word.startswith("--")):
            if not (unknown or set(wanted) <= letters):
                return False
        else:
            words.append(word)
    i = 0
    for arg in args:
        if i == len(words):
            break
        if arg.value is None or fnmatchcase(arg.value, words[i]) or arg.value == words[i]:
            i += 1
    return i == len(words)


def _code_strings(program: str, args: Sequence[_Word]) -> list[_Word]:
    """Arguments that a shell-like program runs as code (``bash -c X``, ``eval X``)."""
    base = os.path.basename(program)
    if base == "eval":
        if any(a.value is None for a in args):
            return [_Word(None)]
        return [_Word(" ".join(a.value or "" for a in args))]
    if base in _SHELLS:
        for i, a in enumerate(args):
            if a.value is None:
                return [_Word(None)]
            if a.value.startswith("-") and not a.value.startswith("--") and "c" in a.value:
                return list(args[i + 1: i + 2]) or [_Word(None)]
    if base in _SHELLS and base not in ("busybox", "su"):
        # no -c (handled above): code comes from stdin (a pipe, a here-string, -s) or from a
        # file named by the first operand; only the file is out of the command line's sight
        # (the sandbox holds there), stdin is code we cannot read: it counts as a match
        operands = [a for a in args if a.value is None or not a.value.startswith("-")]
        if not operands or any(a.value in ("-s", "--") for a in args) \
                or operands[0].value is None:
            return [_Word(None)]
        return []
    if base in (".", "source"):
        return [_Word(None)] if any(a.value is None for a in args[:1]) else []
    if base == "trap":
        first = next((a for a in args if a.value is None or not a.value.startswith("-")), None)
        return [first] if first is not None else []
    if base in ("mapfile", "readarray", "compgen", "complete"):
        for i, a in enumerate(args):
            if a.value is None:
                return [_Word(None)]
            if a.value == "-C":
                return list(args[i + 1: i + 2]) or [_Word(None)]
            if a.value.startswith("-C"):
                return [_Word(a.value[2:])]
        return []
    if base == "alias":
        out: list[_Word] = []
        for a in args:
            if a.value is None:
                return [_Word(None)]
            if "=" in a.value:
                out.append(_Word(a.value.split("=", 1)[1]))
        return out
    if base == "env":
        for i, a in enumerate(args):
            if a.value is None:
                return [_Word(None)]
            if a.value in ("-S", "--split-string"):
                return list(args[i + 1: i + 2]) or [_Word(None)]
            if a.value.startswith(("-S", "--split-string=")):
                return [_Word(a.value.split("=", 1)[1] if a.value.startswith("--")
                              else a.value[2:])]
    return []


def _deny_in(rule: Sequence[str], command: str, depth: int) -> bool:
    if depth > MAX_NESTING or "\x00" in command:
        return True
    try:
        root, token = _parse(command)
    except Exception:
        return True
    try:
        return _deny_tree(rule, root, depth)
    finally:
        _SOURCE.reset(token)


def _deny_tree(rule: Sequence[str], root: Any, depth: int) -> bool:
    if root.has_error:
        return True
    for cmd in _commands(root):
        words: list[_Word] = []
        for child in cmd.children:
            if child.type == "command_name":
                inner = child.children
                words.append(_deny_word(inner[0]) if len(inner) == 1 else _Word(None))
            elif child.type in _ARG_KINDS or child.type.endswith(("expansion", "substitution")):
                words.append(_deny_word(child))
        if not words:
            continue
        if _deny_words(rule, words, depth):
            return True
    return False


def _deny_words(rule: Sequence[str], words: Sequence[_Word], depth: int) -> bool:
    """One simple command: the program, and behind wrappers every later word, is a candidate.

    One pass over the words (no recursion over suffixes, so ``xargs xargs xargs ...`` stays
    linear); strings run as code are parsed again (bounded by :data:`MAX_NESTING`)."""
    scan = False  # after a wrapper, every later word may be the program it runs
    for i, word in enumerate(words):
        if i > 0 and not scan:
            prev = words[i - 1].value
            if not (prev in _FIND_EXEC and _is_find(words)):
                continue
        if word.value is None:
            return True  # an expansion where a program may stand
        if _program_matches(rule[0], word) and _args_match(rule[1:], words[i + 1:],
                                                             rule[0]):
            return True
        if i > 0 and any(ch.isspace() for ch in word.value) and _deny_in(
                rule, word.value, depth + 1):
            return True  # ``watch 'rm x'``, ``xargs -I{} sh -c '...'``
        for code in _code_strings(word.value, words[i + 1:]):
            if code.value is None or _deny_in(rule, code.value, depth + 1):
                return True
        base = os.path.basename(word.value)
        if base in _WRAPPERS or base in _SHELLS:
            scan = True
    return False


_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def _is_find(words: Sequence[_Word]) -> bool:
    return any(w.value is not None and os.path.basename(w.value) == "find" for w in words[:1])


def deny_matches(spec: str, command: str) -> bool:
    """Does a deny rule's specifier (``rm:*``, ``git push:*``, ``rm -rf /``) bite on
    ``command``?  Fails closed: anything unresolvable is a match."""
    parsed = rule_words(spec)
    if parsed is None:
        return True
    rule, _prefix = parsed
    if not rule or spec.strip() in ("*", ":*"):
        return True
    return _deny_in(rule, command, 0)
