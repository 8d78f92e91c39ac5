"""``claude_code_findings`` answers a quiet view without starting its generator.

The shortcut names every reason a finding of Claude Code's reading can have (a flag of the
view, a note, a key the finding needs); a view with none of them gets ``()``.  Here each
reason is turned on alone in a view that is otherwise quiet, and the answer must be the
generator's and not empty; and every real file's answer is the generator's.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from subagents.claude_code.reader import ClaudeCodeView, Note, ParseMode
from subagents.harnesses.loader import read_agent_file
from subagents.lint.rules import claude_code as cc

_QUIET = "---\nname: quiet\ndescription: Reviews diffs for security issues\ntools: Read\n---\nHi.\n"


def _view(tmp_path: Path, text: str, name: str = "a.md") -> tuple[ClaudeCodeView, str, str]:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    view = read_agent_file(path).claude_code
    assert view is not None
    return view, str(path), text


def _both(view: ClaudeCodeView, path: str, text: str | None) -> list[object]:
    fast = list(cc.claude_code_findings(view, path, text))
    assert fast == list(cc._findings(view, path, text))
    return fast


def test_a_quiet_view_says_nothing(tmp_path: Path) -> None:
    view, path, text = _view(tmp_path, _QUIET)
    assert cc.claude_code_findings(view, path, text) == ()  # the shortcut, not the generator
    assert _both(view, path, text) == []


def _variants(view: ClaudeCodeView) -> dict[str, ClaudeCodeView]:
    fm = dict(view.frontmatter)
    r = dataclasses.replace
    memory = view.profile.memories[0]
    return {
        "lenient": r(view, parse=ParseMode.LENIENT, quoted_keys=("description",)),
        "lenient, continuation": r(view, parse=ParseMode.LENIENT, unknown_keys=("user",)),
        "cut inline": r(view, block_cut_inline=True),
        "bad bytes": r(view, replaced_bytes=True),
        "a note": r(view, notes=(Note("maxTurns", "`maxTurns: -1`"),)),
        "no tools": r(view, frontmatter={**fm, "tools": ""}, tools=()),
        "deny all": r(view, frontmatter={**fm, "disallowedTools": "*"}),
        "deny a pattern": r(view, frontmatter={**fm, "disallowedTools": "Bash(rm:*)"},
                            disallowed_tools=("Bash(rm:*)",)),
        "memory": r(view, frontmatter={**fm, "memory": memory}),
    }


_REASONS = ["lenient", "lenient, continuation", "cut inline", "bad bytes", "a note",
            "no tools", "deny all", "deny a pattern", "memory"]


@pytest.mark.parametrize("reason", _REASONS)
def test_each_reason_reaches_the_generator(tmp_path: Path, reason: str) -> None:
    view, path, text = _view(tmp_path, _QUIET)
    variants = _variants(view)
    assert sorted(variants) == sorted(_REASONS)
    assert _both(variants[reason], path, text), f"{reason}: the finding was lost"


def test_a_skipped_file_reaches_the_generator(tmp_path: Path) -> None:
    view, path, text = _view(tmp_path, _QUIET.replace("name: quiet\n", ""))
    assert not view.loaded
    assert _both(view, path, text), "the skip was lost"


def test_a_missing_skill_reaches_the_generator(tmp_path: Path) -> None:
    (tmp_path / ".claude" / "skills").mkdir(parents=True)
    text = _QUIET.replace("tools: Read\n", "skills: nowhere\n")
    view, path, text = _view(tmp_path, text, ".claude/agents/a.md")
    assert _both(view, path, text), "the missing skill was lost"


def test_real_files_agree(corpus: Path) -> None:
    seen = quiet = 0
    for p in sorted(corpus.rglob("*.md")):
        view = read_agent_file(p).claude_code
        if view is None:
            continue
        text = p.read_text(encoding="utf-8", errors="replace")
        _both(view, str(p), text)
        seen += 1
        quiet += cc.claude_code_findings(view, str(p), text) == ()
    assert seen > 300 and 0 < quiet < seen
