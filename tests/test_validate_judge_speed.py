"""The shortcuts of validate's judging path give what the plain computation gives.

Each speed-up of the per-file judging (``lint/validate.py``, ``lint/rules/``) keeps the
report identical; these tests hold each one to the computation it replaced, on cases built to
tell them apart.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from subagents.harnesses import layout
from subagents.lint.validate import validate_paths

_AGENT = "---\nname: {name}\ndescription: Reviews {name} changes for bugs\ntools: Read\n" \
    "permissionMode: plan\n---\nYou review code.\n"


def _plugin_tree(root: Path) -> list[Path]:
    """Agents inside and outside plugins, at several depths, one plugin inside another's
    folder, and a plugin whose manifest lists a folder (its agents/ is then not its own)."""
    files = []

    def agent(path: Path, name: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_AGENT.format(name=name))
        files.append(path)

    def manifest(folder: Path, data: dict[str, object]) -> None:
        (folder / ".claude-plugin").mkdir(parents=True, exist_ok=True)
        (folder / ".claude-plugin" / "plugin.json").write_text(json.dumps(data))

    agent(root / "proj" / ".claude" / "agents" / "plain.md", "plain")
    agent(root / "proj" / ".claude" / "agents" / "deep" / "er" / "nested.md", "nested")
    manifest(root / "plugins" / "acme", {"name": "acme"})
    agent(root / "plugins" / "acme" / "agents" / "guarded.md", "guarded")
    agent(root / "plugins" / "acme" / "other" / "stray.md", "stray")
    manifest(root / "plugins" / "acme" / "inner", {"name": "inner", "agents": ["./listed"]})
    agent(root / "plugins" / "acme" / "inner" / "listed" / "one.md", "one")
    agent(root / "plugins" / "acme" / "inner" / "agents" / "unlisted.md", "unlisted")
    agent(root / "loose" / "agents" / "free.md", "free")
    return files


def test_the_report_is_the_one_of_asking_every_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _plugin_tree(tmp_path)
    fast = validate_paths([tmp_path]).to_dict()
    # without the run's memo every file walks up and reads the manifests itself
    monkeypatch.setattr(layout, "plugins_pinned", contextlib.nullcontext)
    slow = validate_paths([tmp_path]).to_dict()
    assert fast == slow
    # the plugin agents are judged as plugin agents (permissionMode is ignored for them)
    assert any("plugin" in d["message"] and d["path"].endswith("guarded.md")
               for d in fast["diagnostics"]), fast
