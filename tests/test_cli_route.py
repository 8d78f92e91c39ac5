"""`subagents route` and `subagents test` through click's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from subagents.cli.main import cli
from subagents.definition import AgentDefinition
from subagents.dispatch.examples import usage_examples

REVIEWER = """\
---
name: code-reviewer
description: |
  Reviews code changes for quality, readability and bugs.
  Examples:
  (1) "Review my recent changes" - analyzes git diff
  (2) "Check this pull request for bugs" - PR review
tools: Read, Grep
---
You review code.
"""

AUDITOR = """\
---
name: security-auditor
description: Deep security analysis, OWASP Top 10 checks, dependency audit, secrets.
---
You audit security.

## Usage Examples

- "Audit the dependencies for known vulnerabilities" - dependency audit
- "Review the code for security problems" - goes to the reviewer: the description is too vague
"""

DEPLOYER = """\
---
name: deployer
description: Ships releases to production.
keywords: [deploy, release train]
---
You deploy.
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "code-reviewer.md").write_text(REVIEWER)
    (agents / "security-auditor.md").write_text(AUDITOR)
    (agents / "deployer.md").write_text(DEPLOYER)
    (tmp_path / ".git").mkdir()
    return tmp_path


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_route_text_ranks_with_scores_and_why(project: Path) -> None:
    rc, out, _ = invoke("route", "please review my recent code changes", "--cwd", str(project))
    assert rc == 0, out
    first = out.splitlines()[0]
    assert first.split()[1] == "code-reviewer"
    assert "name: review" in first


def test_route_json_contract(project: Path) -> None:
    rc, out, _ = invoke("route", "deploy the release train", "--cwd", str(project),
                        "--top", "2", "--format", "json")
    assert rc == 0
    data = json.loads(out)
    assert data["request"] == "deploy the release train"
    assert data["agents_considered"] == 3
    assert data["agents"][0]["name"] == "deployer" and data["agents"][0]["rank"] == 1
    assert any("keyword match" in w for w in data["agents"][0]["why"])
    assert len(data["agents"]) <= 2
    assert data["agents"][0]["source"] == "project"


def test_route_explicit_mention_pins_agent(project: Path) -> None:
    _rc, out, _ = invoke("route", "use the deployer agent to review my code changes",
                        "--cwd", str(project), "--format", "json")
    data = json.loads(out)
    assert data["pinned"] == "deployer"
    assert data["agents"][0]["name"] == "deployer"
    assert data["agents"][0]["why"][0].startswith("explicit:")


def test_route_with_unknown_explicit_agent_says_so(project: Path) -> None:
    rc, _out, err = invoke("route", "use the linter agent on main.py", "--cwd", str(project))
    assert rc == 0 and "'linter'" in err


def test_route_nothing_matches(project: Path) -> None:
    rc, out, _ = invoke("route", "zzzz qqqq", "--cwd", str(project))
    assert rc == 0 and "no agent matches" in out


def test_test_reports_miss_with_winner_and_words(project: Path) -> None:
    rc, out, _ = invoke("test", "--cwd", str(project))
    assert rc == 1, out
    assert "ok   code-reviewer: 'Review my recent changes'" in out
    assert "MISS security-auditor: 'Review the code for security problems'" in out
    assert "went to code-reviewer" in out and "decided by: review" in out
    assert "1 agent(s) have no usage examples" in out and "deployer" in out


def test_test_json_and_name_filter(project: Path) -> None:
    rc, out, _ = invoke("test", "Code Reviewer", "--cwd", str(project), "--format", "json")
    assert rc == 0
    data = json.loads(out)
    assert data["summary"] == {"agents": 1, "examples": 2, "passed": 2, "failed": 0,
                               "untested": 0}
    rc, out, _ = invoke("test", "security-auditor", "--cwd", str(project), "--format", "json")
    assert rc == 1
    miss = [r for r in json.loads(out)["results"] if not r["ok"]]
    assert miss[0]["winner"] == "code-reviewer" and miss[0]["decided_by"]


def test_test_unknown_name_is_usage_error(project: Path) -> None:
    rc, _, err = invoke("test", "nobody", "--cwd", str(project))
    assert rc == 2 and "no agent named 'nobody'" in err


def test_route_over_path(tmp_path: Path) -> None:
    folder = tmp_path / "lib"
    folder.mkdir()
    (folder / "deployer.md").write_text(DEPLOYER)
    rc, out, _ = invoke("route", "deploy now", "--path", str(folder), "--format", "json")
    assert rc == 0 and json.loads(out)["agents"][0]["name"] == "deployer"


def test_usage_example_shapes() -> None:
    d = AgentDefinition(
        name="x",
        description='Use when... <example>Context: a. user: "Check my login code" '
        'assistant: "I will" <commentary>c</commentary></example>',
        system_prompt="## Usage Examples\n\nuser: Audit the login flow\nassistant: ok\n\n## Next\n"
        "- not an example here",
    )
    assert [(e.request, e.where) for e in usage_examples(d)] == [
        ("Audit the login flow", "body"),
        ("Check my login code", "description-example"),
    ]


def test_real_collection_examples_route(corpus: Path) -> None:
    folder = corpus / "catlog22__Claude-Code-Workflow" / "files" / ".claude"
    rc, out, _ = invoke("test", "--path", str(folder), "--format", "json")
    data = json.loads(out)
    assert data["summary"]["examples"] >= 10
    assert rc == (1 if data["summary"]["failed"] else 0)
    assert data["summary"]["passed"] >= data["summary"]["examples"] // 2


def test_test_with_provider_runs_each_example(project: Path, tmp_path: Path) -> None:
    script = tmp_path / "replies.json"
    script.write_text(json.dumps(["Looks fine to me.", "Two bugs on line 3.",
                                  "No known vulnerabilities.", "Nothing found."]))
    rc, out, _ = invoke("test", "code-reviewer", "--cwd", str(project), "--provider", "scripted",
                        "--script", str(script))
    assert rc == 0, out
    assert "answer: Looks fine to me." in out and "answer: Two bugs on line 3." in out
    rc, _, err = invoke("test", "--cwd", str(project), "--provider", "scripted")
    assert rc == 2 and "--script" in err


def test_test_with_provider_fails_when_every_model_call_failed(
    project: Path, tmp_path: Path
) -> None:
    """It used to print `ok` and exit 0 when no run got an answer."""
    script = tmp_path / "empty.json"
    script.write_text("[]")
    rc, out, _ = invoke("test", "code-reviewer", "--cwd", str(project), "--provider", "scripted",
                        "--script", str(script))
    assert rc == 1, out
    assert "ok  " not in out and "FAIL code-reviewer" in out and "the run failed: " in out
    assert "0 run(s) answered" in out
    rc, out, _ = invoke("test", "code-reviewer", "--cwd", str(project), "--provider", "scripted",
                        "--script", str(script), "--format", "json")
    assert rc == 1
    summary = json.loads(out)["summary"]
    assert summary["runs_failed"] == summary["examples"] > 0


def test_test_with_anthropic_provider_against_loopback(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from subagents.testing import text
    from subagents.testing.server import FakeLLMServer

    with FakeLLMServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        server.add(text("First answer."), text("Second answer."))
        rc, out, _ = invoke("test", "code-reviewer", "--cwd", str(project), "--provider",
                            "anthropic", "--format", "json")
        assert rc == 0, out
        rows = json.loads(out)["results"]
        assert [r["answer"] for r in rows] == ["First answer.", "Second answer."]
        sent = [r.json["messages"][0]["content"] for r in server.requests]
        assert "Review my recent changes" in json.dumps(sent[0])
        assert server.requests[0].json["system"].startswith("You review code.")


def test_usage_examples_with_user_and_response_lines() -> None:
    d = AgentDefinition(
        name="x", description="d",
        system_prompt="## Usage Examples\n\n**Example 1: one**\nUser: Review my recent changes\n"
        "Response: Read the diff\n\n**Example 2: two**\nUser: Check the PR\nResponse: ok\n",
    )
    assert [e.request for e in usage_examples(d)] == ["Review my recent changes", "Check the PR"]


def test_examples_folder_is_tested(monkeypatch: pytest.MonkeyPatch) -> None:
    demo = Path(__file__).resolve().parents[1] / "examples" / "demo-project"
    if not (demo / ".claude" / "agents").is_dir():
        pytest.skip("examples/demo-project is not there")
    rc, out, _ = invoke("test", "--cwd", str(demo), "--format", "json")
    data = json.loads(out)
    assert data["summary"]["examples"] >= 10
    assert rc == (1 if data["summary"]["failed"] else 0)
    for row in data["results"]:
        assert not row["request"].lower().startswith(("response", "user"))
