"""CI options of `subagents validate`: --format github (GitHub's workflow-command syntax),
--baseline (a round trip), --quiet, --statistics, --max-warnings, globs, the source snippet."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from subagents.cli.main import cli
from subagents.diagnostics import Diagnostic, Severity
from subagents.lint.report import github_escape_data, github_escape_property, render_github
from subagents.lint.validate import ValidationReport

# Descriptions differ word for word: similar descriptions would be a finding of their own.
WORDS = {"good": "Reviews pull requests for style", "typo": "Audits dependencies for licences",
         "typo2": "Drafts release notes from tags", "new": "Profiles slow database queries",
         "warn": "Translates user interface strings", "long": "Summarises meeting transcripts"}
GOOD = "---\nname: {name}\ndescription: {words}.\n---\nBody.\n"
TYPO = "---\nname: {name}\ndescription: {words}.\ntools: Read, Serach\n---\nBody.\n"
# An unknown key: Claude Code ignores it, a warning (SA204).  The tests that count warnings
# select SA204 (and SA104), so they do not depend on which style checks the profile runs.
WARN = "---\nname: {name}\ndescription: {words}.\ncolour: blue\n---\nB.\n"


def agent_text(template: str, name: str) -> str:
    return template.format(name=name, words=WORDS[name])


def invoke(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, ["validate", *args])
    if r.exception and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    (agents / "good.md").write_text(agent_text(GOOD, "good"))
    (agents / "typo.md").write_text(agent_text(TYPO, "typo"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --------------------------------------------------------------------------- github


def _diag(path: str, message: str, *, line: int | None = 3, column: int | None = 5,
          severity: Severity = Severity.ERROR, hint: str | None = None) -> Diagnostic:
    return Diagnostic(path=path, line=line, column=column, rule="SA104", severity=severity,
                      message=message, hint=hint)


def test_github_escaping_follows_the_actions_toolkit() -> None:
    # @actions/core: escapeData: % -> %25, \r -> %0D, \n -> %0A; escapeProperty adds : and ,
    assert github_escape_data("100% done\r\nnext: a, b") == "100%25 done%0D%0Anext: a, b"
    assert github_escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_github_annotation_lines_are_exact() -> None:
    report = ValidationReport(files=1, agents=1, diagnostics=[
        _diag("agents/x.md", "unknown tool 'A,B': 50%", hint="did you mean\n'Grep'?"),
        _diag("odd,name:x.md", "whole file", line=None, column=None,
              severity=Severity.WARNING),
        _diag("agents/y.md", "note", column=None, severity=Severity.INFO),
    ])
    assert render_github(report).splitlines() == [
        "::error file=agents/x.md,line=3,col=5,title=SA104::unknown tool 'A,B': 50%25"
        "%0Ahint: did you mean%0A'Grep'?",
        "::warning file=odd%2Cname%3Ax.md,title=SA104::whole file",
        "::notice file=agents/y.md,line=3,title=SA104::note",
    ]


_COMMAND = re.compile(
    r"^::(error|warning|notice) file=[^,:\r\n]+(,line=\d+)?(,col=\d+)?,title=SA\d{3}::[^\r\n]*$"
)


def test_github_format_from_the_cli(project: Path) -> None:
    code, out, _ = invoke("--format", "github")
    assert code == 1
    lines = out.splitlines()
    assert lines and all(_COMMAND.match(line) for line in lines), lines
    assert any(line.startswith("::error file=.claude/agents/typo.md,line=4,col=14,title=SA104::")
               for line in lines)


# --------------------------------------------------------------------------- baseline


def test_baseline_round_trip(project: Path) -> None:
    base = project / "baseline.json"
    code, _, err = invoke("--baseline", str(base))
    assert code == 0 and "wrote the baseline" in err  # the first run writes it and passes
    doc = json.loads(base.read_text())
    assert doc["version"] == 1 and doc["tool"] == "subagents"
    (entry,) = [f for f in doc["findings"] if f["rule"] == "SA104"]
    assert entry == {"path": ".claude/agents/typo.md", "rule": "SA104",
                     "message": "`tools`: unknown tool 'Serach'; Claude Code 2.1.332 lists it but drops it when "
                     "spawning the agent", "count": 1}
    assert "line" not in entry

    code, out, err = invoke("--baseline", str(base))
    assert code == 0 and "SA104" not in out and "hidden by the baseline" in err

    # lines move: the known finding still matches
    typo = project / ".claude/agents/typo.md"
    typo.write_text(typo.read_text().replace("name: typo\n", "name: typo\ncolor: blue\n"))
    code, out, _ = invoke("--baseline", str(base), "--format", "json")
    assert code == 0 and json.loads(out)["diagnostics"] == []

    # a new finding fails, and only it is reported
    (project / ".claude/agents/new.md").write_text(agent_text(TYPO, "new"))
    code, out, _ = invoke("--baseline", str(base), "--format", "json")
    assert code == 1
    new = json.loads(out)["diagnostics"]
    assert {d["path"] for d in new} == {".claude/agents/new.md"}
    assert [d["rule"] for d in new if d["severity"] == "error"] == ["SA104"]

    # the same finding a second time in one file is new too (counts, not a set)
    typo.write_text(typo.read_text().replace("tools: Read, Serach", "tools: Read, Serach, Serach"))
    code, out, _ = invoke("--baseline", str(base), "--format", "json")
    assert ".claude/agents/typo.md" in {d["path"] for d in json.loads(out)["diagnostics"]}

    # --update-baseline accepts today's findings
    code, _, err = invoke("--baseline", str(base), "--update-baseline")
    assert code == 0 and "wrote the baseline" in err
    code, out, _ = invoke("--baseline", str(base), "--format", "json")
    assert code == 0 and json.loads(out)["diagnostics"] == []


def test_baseline_works_from_another_folder(project: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    base = project / "baseline.json"
    assert invoke("--baseline", str(base))[0] == 0
    monkeypatch.chdir(project / ".claude")
    code, out, _ = invoke("agents", "--baseline", str(base), "--format", "json")
    assert code == 0, out
    assert json.loads(out)["diagnostics"] == []


@pytest.mark.parametrize("content", ["not json", "[]", '{"findings": [{"path": 1}]}',
                                     '{"findings": [{"path": "a", "rule": "b", "message": "c", '
                                     '"count": 0}]}'])
def test_a_broken_baseline_is_a_usage_error(project: Path, content: str) -> None:
    base = project / "baseline.json"
    base.write_text(content)
    code, _, err = invoke("--baseline", str(base))
    assert code == 2 and "baseline" in err and "Traceback" not in err
    assert base.read_text() == content  # never overwritten silently


# --------------------------------------------------------------------------- other options


def test_quiet_reports_errors_only(project: Path) -> None:
    (project / ".claude/agents/warn.md").write_text(agent_text(WARN, "warn"))
    _, out, _ = invoke("--select", "SA104,SA204")
    assert "SA204 warning" in out
    code, out, _ = invoke("--quiet", "--select", "SA104,SA204")
    assert code == 1 and "SA104 error" in out and "SA204" not in out
    (project / ".claude/agents/typo.md").unlink()
    code, out, _ = invoke("-q", "--select", "SA104,SA204")
    assert code == 0 and out == ""


def test_statistics_text_and_json(project: Path) -> None:
    (project / ".claude/agents/typo2.md").write_text(agent_text(TYPO, "typo2"))
    code, out, _ = invoke("--statistics", "--select", "SA104")
    assert code == 1
    assert out.splitlines()[0].split() == ["2", "SA104", "error", "unknown-tool"]
    assert "/typo" not in out  # counts, not findings
    code, out, _ = invoke("--statistics", "--format", "json", "--select", "SA104")
    data = json.loads(out)
    assert data["statistics"] == [{"rule": "SA104", "name": "unknown-tool", "severity": "error",
                                   "count": 2}]
    assert data["summary"]["errors"] == 2
    assert invoke("--statistics", "--format", "sarif")[0] == 2


def test_max_warnings(project: Path) -> None:
    (project / ".claude/agents/typo.md").unlink()
    (project / ".claude/agents/warn.md").write_text(agent_text(WARN, "warn"))
    (project / ".claude/agents/warn2.md").write_text(
        agent_text(WARN, "warn").replace("name: warn", "name: warn2"))
    _, out, _ = invoke("--format", "json", "--select", "SA204")
    assert json.loads(out)["summary"]["warnings"] == 2
    assert invoke("--select", "SA204")[0] == 0
    assert invoke("--select", "SA204", "--max-warnings", "2")[0] == 0
    code, _, err = invoke("--select", "SA204", "--max-warnings", "1")
    assert code == 1 and "2 warnings, more than --max-warnings 1" in err
    # --quiet hides warnings but they still count
    assert invoke("--select", "SA204", "--max-warnings", "1", "-q")[0] == 1


def test_quoted_globs_are_expanded(project: Path) -> None:
    code, out, _ = invoke("--format", "json", ".claude/**/*.md")
    assert code == 1 and json.loads(out)["summary"]["files"] == 2
    code, _, err = invoke("nothing/**/*.md")
    assert code == 2 and "no file matches" in err


def test_text_shows_the_source_line_with_a_caret(project: Path) -> None:
    _, out, _ = invoke()
    lines = out.splitlines()
    at = lines.index(".claude/agents/typo.md:4:14: SA104 error: `tools`: unknown tool 'Serach'; "
                     "Claude Code 2.1.332 lists it but drops it when spawning the agent")
    assert lines[at + 1] == "  4 | tools: Read, Serach"
    assert lines[at + 2] == "    |              ^"
    assert lines[at + 2].index("^") == lines[at + 1].index("Serach")
    assert lines[at + 3].startswith("    hint: ")
    assert "\x1b[" not in out  # not a terminal: no colour
    assert "\x1b[" in invoke("--color")[1]


def test_a_long_line_is_shown_as_a_window_around_the_column(project: Path) -> None:
    long = "x" * 300
    (project / ".claude/agents/long.md").write_text(
        f"---\nname: long\ndescription: {long} Use after edits.\ntools: {'Read, ' * 40}Serach\n"
        "---\nBody.\n")
    _, out, _ = invoke(".claude/agents/long.md")
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if "SA104" in line)
    snippet, caret = lines[at + 1], lines[at + 2]
    assert len(snippet) < 120 and snippet.startswith("  4 | …")
    assert snippet[caret.index("^"):].startswith("Serach")
