"""Issue 20 (round two): Bash permission rules fail closed.

Allow rules: any prefix of a dangerous long option is dangerous (getopt takes unambiguous
abbreviations), ``git clone -u`` is ``--upload-pack``, and programs whose arguments are code
(sed's ``e``/``w``, awk, tar, find) are never covered by a prefix rule.  Deny rules: bash
reading code from stdin, a here-string or a process substitution, and the builtins that run
a string (``trap``, ``mapfile -C``, ``compgen -C``, ``alias``) count as running it."""

from __future__ import annotations

import pytest

from subagents.runtime.shellparse import allow_matches, deny_matches, plain_commands


def covered(rule: str, command: str) -> bool:
    cmds = plain_commands(command)
    return cmds is not None and all(allow_matches(rule, c) for c in cmds)


@pytest.mark.parametrize(("rule", "command"), [
    ("git fetch:*", "git fetch --upload-pa=touch${IFS}/tmp/x origin"),
    ("git fetch:*", "git fetch --upload-p='sh -c id' origin"),
    ("sort:*", "sort --out=/home/u/.bashrc data.txt"),
    ("sort:*", "sort --o=x data.txt"),
    ("git log:*", "git log --outp=/tmp/x"),
    ("git clone:*", "git clone -u 'sh -c id' https://example.invalid/r.git"),
    ("git clone:*", "git clone -uid https://example.invalid/r.git"),
    ("sed:*", "sed -n '1e id' file.txt"),
    ("sed -n:*", "sed -n 'w /home/u/.bashrc' file.txt"),
    ("sed:*", "sed 's/a/b/e' file.txt"),
    ("awk:*", "awk 'BEGIN{system(\"id\")}'"),
    ("tar:*", "tar -tf a.tar --to-comm=id"),
    ("tar -tf:*", "tar -tf a.tar -F script.sh"),
    ("find:*", "find . -name x -fprint /tmp/out"),
])
def test_allow_rules_fail_closed(rule: str, command: str) -> None:
    assert not covered(rule, command), (rule, command)


@pytest.mark.parametrize(("rule", "command"), [
    ("git log:*", "git log --oneline -5"),
    ("git status:*", "git status --short"),
    ("sort:*", "sort -n data.txt"),
    ("git push:*", "git push -u origin main"),
    ("sed -n 1p file.txt", "sed -n 1p file.txt"),  # a rule that is the whole command
])
def test_ordinary_commands_stay_covered(rule: str, command: str) -> None:
    assert covered(rule, command), (rule, command)


@pytest.mark.parametrize("command", [
    "echo 'rm -rf x' | bash",
    "bash <<< 'rm -rf x'",
    "bash -s < script.txt",
    "bash <(echo rm -rf x)",
    "sh < /dev/stdin",
    "source <(echo rm -rf x)",
    ". <(printf 'rm -rf x')",
    "trap 'rm -rf x' EXIT; true",
    "mapfile -C 'rm -rf x' -c 1 arr < list.txt",
    "readarray -C'rm -rf' arr < f",
    "compgen -C 'rm -rf x' y",
    "alias ll='rm -rf x'; ll",
])
def test_deny_rules_see_code_from_anywhere(command: str) -> None:
    assert deny_matches("rm:*", command), command


@pytest.mark.parametrize("command", [
    "ls -la", "bash -c 'ls'", "bash build.sh", "trap 'echo bye' EXIT", "alias ll='ls -l'",
    "mapfile -t lines < f",
])
def test_deny_rules_leave_unrelated_commands(command: str) -> None:
    assert not deny_matches("rm:*", command), command
