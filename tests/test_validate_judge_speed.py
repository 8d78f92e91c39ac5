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


def test_a_stored_agent_row_is_its_fields_in_order() -> None:
    """The cache writes ``AgentFacts.row()`` where it wrote ``dataclasses.astuple``."""
    import dataclasses

    from subagents.lint.cache import AgentFacts

    for facts in (AgentFacts("a", "does a", "claude", "/p/a.md", "project", 2, 7),
                  AgentFacts("", "", "json", None, None, 1, 1)):
        assert facts.row() == list(dataclasses.astuple(facts))
        assert [f.name for f in dataclasses.fields(AgentFacts)] == [
            "name", "description", "dialect", "path", "source", "line", "column"]


_STYLE_AGENTS = {
    # each breaks rules that are off by default (the checks then not run) and some that are on
    "short.md": "---\nname: short\ndescription: Helps.\ntools: [Read, Grep]\n"
                "disallowedTools: Write\nversion: one\n---\nShort body.\n",
    "Bad_Name.md": "---\nname: Bad_Name\ndescription: Reviews Python changes for security "
                   "issues and reports them\ntools: Read, Bash, Frobnicate\nmodel: gpt-9\n"
                   "maxTurns: 0\n---\n# Role\nYou review.\n",
    "ok.md": "---\nname: ok\ndescription: Writes SQL migrations for Postgres databases safely\n"
             "maxTurns: 5\n---\n" + "## Role\nYou migrate.\n" * 20,
}


@pytest.mark.parametrize("options", [
    {}, {"strict": True}, {"select": ["SA2"]}, {"select": ["description-length", "SA104"]},
    {"ignore": ["SA104", "SA3"]}, {"strict": True, "ignore": ["SA203"]},
    {"select": ["SA107"]}, {"select": ["ALL"]},
])
def test_running_only_the_wanted_checks_reports_what_running_all_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: dict[str, object]
) -> None:
    from subagents.lint import validate
    from subagents.lint.rules import engine

    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    for name, text in _STYLE_AGENTS.items():
        (folder / name).write_text(text)
    fast = validate_paths([folder], **options).to_dict()  # type: ignore[arg-type]
    monkeypatch.setattr(validate._Filter, "checks",
                        lambda _self: engine.wanted_checks(lambda _code: True))
    every = validate_paths([folder], **options).to_dict()  # type: ignore[arg-type]
    assert fast == every
    assert fast["diagnostics"]


def test_the_checks_of_the_default_profile_leave_out_the_rules_that_are_off() -> None:
    from subagents.lint.rules import engine
    from subagents.lint.rules.catalog import Profile
    from subagents.lint.validate import _Filter

    run = {c.__name__ for c, _ in _Filter(Profile.DEFAULT, (), ()).checks()}
    every = {c.__name__ for c, _ in engine.wanted_checks(lambda _code: True)}
    assert "check_sections" not in run and "check_tools" in run and run < every
    strict = {c.__name__ for c, _ in _Filter(Profile.STRICT, (), ()).checks()}
    assert "check_sections" in strict
