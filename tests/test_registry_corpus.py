"""The registry over ~600 real agent files (read from ../shared/corpus, never copied in)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from subagents.definition import Dialect
from subagents.loader import read_agent_file
from subagents.registry import AgentRegistry
from validate_helpers import CORPUS as SHARED_CORPUS

CORPUS = Path(os.environ.get("SUBAGENTS_CORPUS", str(SHARED_CORPUS)))

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not found at {CORPUS}")


@pytest.mark.slow
def test_corpus_as_a_plugin_folder(tmp_path: Path) -> None:
    """Every corpus file is either loaded, shadowed, clashing, or explained by a diagnostic."""
    plugin = tmp_path / "corpus-plugin"
    plugin.mkdir()
    os.symlink(CORPUS, plugin / "agents")
    reg = AgentRegistry(tmp_path, home=tmp_path / "home", plugin_dirs=[plugin]).load_all()
    root = plugin / "agents"
    files = sorted(
        p
        for p in root.rglob("*.md")
        if not any(x.startswith(".") for x in p.relative_to(root).parts)
    )
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
    # the registry loads exactly what the reader says a harness would load
    ok = [p for p in files if read_agent_file(p, dialect=Dialect.CLAUDE, include_body=False).ok]
    assert len(accounted) <= len(ok) and len(accounted) > len(ok) * 0.9
    # plugin ids carry the subfolder segments
    some = reg.list(include_builtin=False)[0]
    assert some.name.startswith("corpus-plugin:")
    # bodies load on demand for every winner
    for entry in reg.list(include_builtin=False)[:50]:
        assert entry.definition.system_prompt.strip()
