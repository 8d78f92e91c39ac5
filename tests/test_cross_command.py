"""Every command counts the same agents and the same duplicates, for every harness.

For each harness of the table, a small project is made in a tmp folder: three agents written by
the harness's own writer into its project folder, and (where the harness names agents by a
``name`` field) a second file defining one of the names again.  ``validate``, ``list``,
``doctor``, ``convert`` and ``fix`` must count the same agents and the same duplicates;
``sync`` writes the Claude agents into the harness's folder and the harness's commands count
them again.  The same comparison runs on the shared corpus (slow, marked ``corpus``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from corpus_helpers import CORPUS, needs_corpus
from subagents.cli.main import cli
from subagents.definition import AgentDefinition
from subagents.harnesses import get_harness
from subagents.harnesses.gemini import agent_hash
from subagents.harnesses.table import SPECS, HarnessSpec

NAMES = ("alpha", "beta", "gamma")
# harnesses whose agent id is the file's path (a second file cannot repeat a name)
ID_FROM_PATH = frozenset({"opencode", "copilot"})
DUPLICATE_CODES = frozenset(spec.duplicate_code for spec in SPECS)


def run(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(cli, [*args, "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    return data


def _definition(name: str) -> AgentDefinition:
    return AgentDefinition(name=name, description=f"The {name} agent reviews code for bugs.",
                           system_prompt=f"You are {name}. Review the code you are given.")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root, home = tmp_path / "project", tmp_path / "home"
    (root / ".git").mkdir(parents=True)
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in ("XDG_CONFIG_HOME", "OPENCODE_CONFIG_DIR", "CODEX_HOME",
                "SUBAGENTS_MANAGED_DIR", "SUBAGENTS_PLUGIN_DIRS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(root)
    return root


def _write_agents(root: Path, spec: HarnessSpec) -> int:
    """The three agents, and a copy of the first under another file name; the number of files
    ignored for their name (one; both under codex-md's clash rule, which loads neither)."""
    harness = get_harness(spec.name)
    texts: list[tuple[Path, str]] = []
    for name in NAMES:
        written = harness.write(_definition(name))
        texts.append((root / written.relpath, written.text))
    duplicates = 0
    if spec.name not in ID_FROM_PATH:
        first_path, first_text = texts[0]
        # a later path in the folder's order: the harness (Claude Code: the last path; the
        # others: the first) uses one and ignores the other
        copy = first_path.with_name(f"zz-copy{spec.suffixes[0]}")
        if spec.recursive:
            copy = first_path.parent / "nested" / "agents" / first_path.name
        texts.append((copy, first_text))
        duplicates = 2 if spec.name == "codex-md" else 1
    for path, text in texts:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    home = Path.home()
    if spec.name == "gemini":  # Gemini CLI loads a project agent only once acknowledged
        acks = {str(root): {p.stem: agent_hash(t) for p, t in texts}}
        ack = home / ".gemini" / "acknowledgments" / "agents.json"
        ack.parent.mkdir(parents=True)
        ack.write_text(json.dumps(acks))
    if spec.name == "codex":  # Codex reads project agents only in a trusted project
        (home / ".codex").mkdir()
        (home / ".codex" / "config.toml").write_text(
            f'[projects."{root}"]\ntrust_level = "trusted"\n')
    return duplicates


def _counts(spec: HarnessSpec, folder: str) -> dict[str, tuple[int, int]]:
    """(agents loaded, duplicates ignored) as each command reports them (``validate`` and
    ``convert`` count every definition they read: the ignored duplicates are taken off)."""
    dialect = ["--dialect", spec.name]
    out: dict[str, tuple[int, int]] = {}
    validated = run("validate", folder, *dialect)
    dups = sum(d["rule"] in DUPLICATE_CODES for d in validated["diagnostics"])
    out["validate"] = (validated["summary"]["agents"] - dups, dups)
    listed = run("list", *dialect)
    out["list"] = (sum(a["source"] == "project" for a in listed["agents"]),
                   sum(d["rule"] in DUPLICATE_CODES for d in listed["diagnostics"]))
    doctor = run("doctor", *dialect)
    out["doctor"] = (doctor["summary"]["agents"],
                     sum(d["rule"] in DUPLICATE_CODES for d in doctor["diagnostics"]))
    converted = run("convert", folder, "--from", spec.name, "--to", "json")
    out["convert"] = (converted["summary"]["converted"],
                      sum(d["rule"] in ("CV004", *DUPLICATE_CODES)
                          for d in converted["diagnostics"]))
    return out


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_command_counts_the_same(project: Path, spec: HarnessSpec) -> None:
    duplicates = _write_agents(project, spec)
    counts = _counts(spec, spec.write_folder)
    loaded = len(NAMES) - (spec.name == "codex-md")  # a clash loads neither of the two
    assert set(counts.values()) == {(loaded, duplicates)}, counts
    fixed = run("fix", "--check", spec.write_folder)
    assert fixed["summary"]["files"] == len(NAMES) + (spec.name not in ID_FROM_PATH)
    assert fixed["summary"]["unfixable"] == 0


@pytest.mark.parametrize("spec", [s for s in SPECS if s.name != "claude"], ids=lambda s: s.name)
def test_sync_writes_what_every_command_counts(project: Path, spec: HarnessSpec) -> None:
    claude = get_harness("claude")
    for name in NAMES:
        written = claude.write(_definition(name))
        (project / written.relpath).parent.mkdir(parents=True, exist_ok=True)
        (project / written.relpath).write_text(written.text, encoding="utf-8")
    synced = run("sync", "--to", spec.name)
    assert synced["summary"]["sources"] == len(NAMES)
    assert synced["summary"]["written"] == len(NAMES), synced
    validated = run("validate", spec.write_folder, "--dialect", spec.name)
    assert validated["summary"]["agents"] == len(NAMES)
    converted = run("convert", spec.write_folder, "--from", spec.name, "--to", "json")
    assert converted["summary"]["converted"] == len(NAMES)


# --------------------------------------------------------------------------- the corpus


@needs_corpus
@pytest.mark.slow
def test_corpus_every_command_counts_the_same_claude_agents(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """The corpus's Markdown agents, read as Claude agents: validate, list, doctor, convert
    and fix count the same files, agents and duplicates (a copy of the corpus in a project's
    .claude/agents, so list and doctor see it as Claude Code would)."""
    import shutil

    root, home = tmp_path / "project", tmp_path / "home"
    (root / ".git").mkdir(parents=True)
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(root)
    agents = root / ".claude" / "agents"
    for collection in sorted(p for p in CORPUS.iterdir() if (p / "files").is_dir()):
        for source in sorted((collection / "files").rglob("*.md")):
            if source.name.lower() in ("readme.md", "license.md", "skill.md"):
                continue
            dest = agents / collection.name / source.relative_to(collection / "files")
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest)
    spec = next(s for s in SPECS if s.name == "claude")
    counts = _counts(spec, ".claude/agents")
    assert len(set(counts.values())) == 1, counts
    agents_count, duplicates = counts["validate"]
    assert agents_count > 400 and duplicates > 0, counts
    fixed = run("fix", "--check", ".claude/agents")
    validated = run("validate", ".claude/agents")
    assert fixed["summary"]["files"] == validated["summary"]["files"]
