"""`fix` over the whole shared corpus (copied to a temporary folder): nothing strict YAML rejects
is left, and Claude Code reads every file it loaded exactly as before."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from corpus_helpers import CORPUS, needs_corpus
from subagents.claude_code import read_claude_code
from subagents.harnesses.loader import detect_dialect, parse_agent_text
from subagents.repair.fix import FixStatus, fix_file

_SYNTAX = {"SA005", "SA010", "SA013"}


def _block(text: str) -> str | None:
    """The frontmatter as the strict reader splits it (first `---` line to the next)."""
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").split("\n")
    first = 0
    while first < len(lines) and not lines[first].strip():
        first += 1
    if first >= len(lines) or lines[first].strip() != "---":
        return None
    for i in range(first + 1, len(lines)):
        if lines[i].strip() == "---" or lines[i].rstrip() == "...":
            return "\n".join(lines[first + 1 : i])
    return None


def _strict_rejects(path: Path) -> bool:
    data = path.read_bytes()
    block = _block(data.decode("utf-8", "replace"))
    if block is None:
        return False
    try:
        yaml.safe_load(block)
    except yaml.YAMLError:
        return True
    result = parse_agent_text(data, path=str(path), dialect=detect_dialect(path))
    return any(d.rule in _SYNTAX for d in result.diagnostics)



@pytest.mark.slow
@needs_corpus
def test_fix_leaves_no_strict_yaml_failure_and_keeps_claude_codes_reading(
    tmp_path: Path,
) -> None:
    copy = tmp_path / "corpus"
    for collection in sorted(p for p in CORPUS.iterdir() if (p / "files").is_dir()):
        shutil.copytree(collection / "files", copy / collection.name)
    files = sorted(copy.rglob("*.md"))
    assert len(files) >= 592

    before = {p: p.read_bytes() for p in files}
    views = {p: read_claude_code(data) for p, data in before.items()}
    broken = {p for p in files if _strict_rejects(p)}
    assert broken, "the corpus has frontmatters strict YAML rejects"

    statuses = {p: fix_file(p).status for p in files}

    # every file strict YAML rejected is repaired, and none is left
    assert {p for p in broken if statuses[p] is not FixStatus.FIXED} == set()
    assert [p for p in files if _strict_rejects(p)] == []
    # files that were not touched are byte for byte the same
    for p in files:
        if statuses[p] is not FixStatus.FIXED:
            assert p.read_bytes() == before[p], p
    # Claude Code reads every file it loaded exactly as before
    changed = [
        p
        for p in files
        if views[p].loaded and read_claude_code(p.read_bytes()).essentials() != views[p].essentials()
    ]
    assert changed == []
    # a second run has nothing left to do
    assert {fix_file(p, write=False).status for p in broken} == {FixStatus.UNCHANGED}
