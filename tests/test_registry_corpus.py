"""The registry over ~600 real agent files (read from ../shared/corpus, never copied in)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from corpus_helpers import CORPUS, needs_corpus
from subagents.claude_code.reader import as_plugin_agent
from subagents.definition import Dialect
from subagents.harnesses.loader import read_agent_file
from subagents.registry.core import AgentRegistry

pytestmark = needs_corpus


@pytest.mark.slow
def test_corpus_as_a_plugin_folder(tmp_path: Path) -> None:
    """Every corpus file is either loaded, shadowed, clashing, or explained by a diagnostic."""
    plugin = tmp_path / "corpus-plugin"
    plugin.mkdir()
    os.symlink(CORPUS, plugin / "agents")
    reg = AgentRegistry(tmp_path, home=tmp_path / "home", plugin_dirs=[plugin]).load_all()
    root = plugin / "agents"
    files = sorted(root.rglob("*.md"))  # hidden folders too, as Claude Code's scan
    accounted: set[Path] = set()
    for entry in [*reg.list(include_builtin=False), *reg.shadowed(include_builtin=False)]:
        assert entry.path is not None
        accounted.add(entry.path)
    for group in reg.clashes().values():
        accounted.update(e.path for e in group if e.path)
    failed = {rec.display_path for rec in reg.failed_files()}
    for path in files:
        if path in accounted:
            continue
        display = reg.display(path)
        assert display in failed, f"{display} neither loaded nor explained"
    # the registry loads exactly what Claude Code loads from a plugin: a plugin agent whose
    # YAML fails or that has no description still loads, named after its file (2.1.330)
    def loads(p: Path) -> bool:
        view = read_agent_file(p, dialect=Dialect.CLAUDE, include_body=False).claude_code
        assert view is not None
        return as_plugin_agent(view, file_stem=p.stem, plugin="corpus-plugin").loaded

    ok = {p for p in files if loads(p)}
    assert accounted == ok
    strict_ok = {p for p in files if read_agent_file(p, dialect=Dialect.CLAUDE).ok}
    assert strict_ok < ok  # more than the strict reader would load
    # plugin ids carry the subfolder segments
    some = reg.list(include_builtin=False)[0]
    assert some.name.startswith("corpus-plugin:")
    # bodies load on demand for every winner
    for entry in reg.list(include_builtin=False)[:50]:
        assert entry.definition.system_prompt.strip()
