"""`show` and `test` list the same usage examples for a file: one extraction serves both."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from subagents.cli.main import cli
from subagents.harnesses.loader import read_agent_file


def test_show_and_test_give_the_same_examples_for_corpus_files(
    corpus: Path, tmp_path: Path
) -> None:
    files = sorted(p for p in corpus.rglob("*.md") if "agents" in p.parts)
    with_examples = 0
    for i, path in enumerate(files):  # until 25 files with examples: two CLI runs per file
        loaded = read_agent_file(path)
        if len(loaded.definitions) != 1 or not loaded.definitions[0].name:
            continue
        name = loaded.definitions[0].name
        project = tmp_path / f"p{i}"
        agents = project / ".claude" / "agents"
        agents.mkdir(parents=True)
        shutil.copyfile(path, agents / path.name)  # a temporary copy, deleted with tmp_path
        runner = CliRunner()
        shown = runner.invoke(cli, ["show", name, "--cwd", str(project), "--format", "json"])
        tested = runner.invoke(cli, ["test", name, "--cwd", str(project), "--format", "json"])
        if shown.exit_code != 0 or tested.exit_code not in (0, 1):
            continue  # a name that does not load as written: not this test's business
        show_examples = json.loads(shown.stdout)["examples"]
        test_examples = [r["request"] for r in json.loads(tested.stdout)["results"]]
        assert show_examples == test_examples, path
        with_examples += bool(show_examples)
        if with_examples >= 25:
            break
    assert with_examples >= 10, f"only {with_examples} corpus files with usage examples"
