"""`subagents explain` and the rule documentation it prints cannot drift from the rules.

* every code of the catalogue has an explanation (a code added without one fails here);
* every bad example really produces its code in the profile it names, through
  ``validate_paths`` on a real project folder, and every fixed example does not;
* where the documentation says `subagents fix` repairs the example, running the repair on the
  bad example removes the finding;
* the CLI prints the text and the JSON, accepts slugs, and refuses an unknown code with exit 2
  and a did-you-mean.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from subagents.cli.main import cli
from subagents.lint.rules.catalog import RULES, Category
from subagents.lint.rules.explanations import Explanation, explanation_for, explanations
from subagents.lint.validate import validate_paths, validate_text
from subagents.repair.fix import FixStatus, fix_text

EXPLAINED = explanations()
WITH_EXAMPLE = sorted(code for code, e in EXPLAINED.items() if e.bad_files)


def test_every_catalogued_code_is_explained() -> None:
    assert set(EXPLAINED) == set(RULES), (
        "missing: " + ", ".join(sorted(set(RULES) - set(EXPLAINED)))
        + "; unknown: " + ", ".join(sorted(set(EXPLAINED) - set(RULES))))
    for code, e in EXPLAINED.items():
        assert e.checks.strip() and e.why.strip() and e.fix.strip(), code
        # a rule either shows a file that triggers it, or says why no file can; another
        # harness's codes say what that harness does instead (examples are optional there)
        if RULES[code].category is Category.HARNESS:
            assert e.harness and not e.no_example, code
        else:
            assert bool(e.bad_files) != bool(e.no_example), code
        if e.bad_files:
            assert e.good_files, f"{code}: an example without its fixed form"
        assert e.profile in ("default", "strict"), code
        assert RULES[code].severity(e.profile) is not None, (
            f"{code}: the example's profile {e.profile!r} has the rule off")
        if e.claude_code and "easured" in e.claude_code:
            assert "2.1.330" in e.claude_code, code  # measured behaviour names its version


def test_the_examples_cover_every_rule_a_file_can_trigger() -> None:
    without = sorted(code for code, e in EXPLAINED.items() if not e.bad_files)
    # rules about the tool itself, file permissions, folder trees and files being written
    # (convert and store codes are not validate's: each has its own test of being emitted);
    # SA017 is the library reader's pointer to a harness reader, which validate always uses
    assert [c for c in without if c.startswith("SA")] == [
        "SA000", "SA015", "SA017", "SA603", "SA604", "SA606"]


def _write(root: Path, files: dict[str, str], setup: str | None) -> list[Path]:
    """Write the example into a project at ``root``; the paths to validate."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    targets: list[Path] = []
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        if setup == "latin1":
            data = text.encode("latin-1")
        elif setup == "oversize":
            data += b"build step 12 failed: exit status 1\n" * 32_000
            assert len(data) > 1 << 20
        elif setup == "nul":
            data += b"\x00\n"
        if setup == "symlink-outside":
            outside = root / "elsewhere" / path.name
            outside.parent.mkdir(parents=True, exist_ok=True)
            outside.write_bytes(data)
            path.symlink_to(outside)
            targets.append(path.parent)
            continue
        path.write_bytes(data)
        if setup == "world-writable":
            path.chmod(0o666)
        else:
            path.chmod(0o644)
        targets.append(path)
    return targets


def _codes(root: Path, files: dict[str, str], e: Explanation, setup: str | None,
           monkeypatch: pytest.MonkeyPatch) -> set[str]:
    targets = _write(root, files, setup)
    strict = e.profile == "strict"
    if e.setup == "project":
        monkeypatch.chdir(root)
        report = validate_paths(strict=strict)
    else:
        report = validate_paths(targets, strict=strict)
    return {d.rule for d in report.diagnostics}


@pytest.mark.parametrize("code", WITH_EXAMPLE)
def test_the_bad_example_is_reported_and_the_fixed_one_is_not(
    code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    e = EXPLAINED[code]
    bad = _codes(tmp_path / "bad", e.bad_files, e, e.setup, monkeypatch)
    assert code in bad, f"{code}: the bad example gives {sorted(bad)}"
    fixed_setup = None if e.setup in ("latin1", "oversize", "nul", "world-writable",
                                      "symlink-outside") else e.setup
    good = _codes(tmp_path / "good", e.good_files, e, fixed_setup, monkeypatch)
    assert code not in good, f"{code}: the fixed example still gives it ({sorted(good)})"


@pytest.mark.parametrize("code", WITH_EXAMPLE)
def test_the_fixed_example_is_clean_by_default(
    code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fixed example shows a file to copy: nothing at all to report in the default profile
    (strict examples may still lack what other strict rules ask for)."""
    e = EXPLAINED[code]
    targets = _write(tmp_path, e.good_files, None if e.setup != "project" else "project")
    if e.setup == "project":
        monkeypatch.chdir(tmp_path)
        report = validate_paths()
    else:
        report = validate_paths(targets)
    assert report.diagnostics == [], [d.format_text() for d in report.diagnostics]


@pytest.mark.parametrize("code", sorted(c for c, e in EXPLAINED.items()
                                        if len(e.bad_files) == 1 and e.setup is None))
def test_validate_text_agrees_on_single_file_examples(code: str) -> None:
    """The library entry point sees the same as `validate` on a file."""
    e = EXPLAINED[code]
    from subagents.definition import Dialect

    (path, text), = e.bad_files.items()
    dialect = Dialect(e.dialect) if not path.startswith(".github/") else Dialect.COPILOT
    got = {d.rule for d in validate_text(text, path=path, dialect=dialect,
                                         strict=e.profile == "strict")}
    assert code in got, (code, got)


@pytest.mark.parametrize("code", sorted(c for c, e in EXPLAINED.items() if e.fix_command))
def test_fix_repairs_what_the_documentation_says(code: str) -> None:
    e = EXPLAINED[code]
    assert e.fix_command is not None and e.fix_command.startswith("subagents fix")
    assert e.fix_command in e.fix  # the prose names the command the test runs
    style = "comma" if "--tools-style comma" in e.fix_command else None
    (path, text), = e.bad_files.items()
    result = fix_text(text, path=path, tools_style=style)  # type: ignore[arg-type]
    assert result.status is FixStatus.FIXED, (code, result.problems)
    repaired = result.fixed.decode("utf-8")
    got = {d.rule for d in validate_text(repaired, path=path, strict=e.profile == "strict")}
    assert code not in got, (code, repaired, got)


# --- the command -----------------------------------------------------------------------------


def test_explain_prints_every_part() -> None:
    r = CliRunner().invoke(cli, ["explain", "SA020"])
    assert r.exit_code == 0, r.output
    out = r.output
    assert out.startswith("SA020 tools-empty (fields; default: error, --strict: error)")
    for heading in ("What it checks", "Why it matters", "What Claude Code does",
                    "Example (reported)", "Fixed", "How to fix"):
        assert f"\n{heading}\n" in out, heading
    assert "    tools: []" in out and "All tools" in out


@pytest.mark.parametrize("code", sorted(RULES))
def test_explain_works_for_every_code_and_slug(code: str) -> None:
    runner = CliRunner()
    by_code = runner.invoke(cli, ["explain", code.lower()])
    by_slug = runner.invoke(cli, ["explain", RULES[code].name])
    assert by_code.exit_code == 0 and by_slug.exit_code == 0, by_code.output
    assert by_code.output == by_slug.output
    assert by_code.output.startswith(f"{code} {RULES[code].name} ")
    assert EXPLAINED[code].fix.split()[0] in by_code.output


def test_explain_json() -> None:
    r = CliRunner().invoke(cli, ["explain", "unknown-tool", "--format", "json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["code"] == "SA104" and data["name"] == "unknown-tool"
    assert data["default"] == "error" and data["strict"] == "error"
    assert data["example"] == [{"path": ".claude/agents/example.md",
                                "text": EXPLAINED["SA104"].example}]
    assert data["fixed"][0]["text"] == EXPLAINED["SA104"].fixed
    assert {"checks", "why", "claude_code", "fix", "summary", "category"} <= set(data)
    assert data["example_profile"] == "default" and data["example_dialect"] == "claude"


def test_explain_unknown_code_suggests_and_exits_2() -> None:
    r = CliRunner().invoke(cli, ["explain", "SA1044"])
    assert r.exit_code == 2
    assert "no rule 'SA1044'" in r.output and "did you mean: SA104" in r.output
    r = CliRunner().invoke(cli, ["explain", "unknown-tol"])
    assert r.exit_code == 2 and "did you mean: unknown-tool" in r.output


def test_explain_unknown_code_json_is_json_on_stdout() -> None:
    r = CliRunner().invoke(cli, ["explain", "SA999", "--format", "json"])
    assert r.exit_code == 2
    error = json.loads(r.stdout)["error"]
    assert error["message"] == "no rule 'SA999'" and error["exit_code"] == 2
    assert isinstance(error["suggestions"], list) and "subagents rules" in error["hint"]


def test_rules_mentions_explain() -> None:
    r = CliRunner().invoke(cli, ["rules"])
    assert r.exit_code == 0 and "subagents explain CODE" in r.output


def test_explanation_for_slug_and_code() -> None:
    found = explanation_for("Unknown-Tool")
    assert found is not None and found[0].code == "SA104"
    assert explanation_for("nope") is None
    assert os.fspath(Path(EXPLAINED["SA016"].path)) == "agents.json"


# --- the documentation pages -----------------------------------------------------------------

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_docs_rules_md_is_what_the_generator_prints() -> None:
    from subagents.lint.rules.docs import main, render, splice

    page = (DOCS / "rules.md").read_text(encoding="utf-8")
    assert splice(page, render()) == page, (
        "docs/rules.md is out of date: python -m subagents.lint.rules.docs --write docs/rules.md")
    assert main(["--check", str(DOCS / "rules.md")]) == 0
    for code in RULES:
        assert f"| {code} |" in page and f"**{code} `" in page, code


def test_docs_check_fails_on_a_stale_page(tmp_path: Path) -> None:
    from subagents.lint.rules.docs import BEGIN, END, main

    stale = tmp_path / "rules.md"
    stale.write_text(f"# Rules\n\n{BEGIN}\nold list\n{END}\n", encoding="utf-8")
    assert main(["--check", str(stale)]) == 1
    assert main(["--write", str(stale)]) == 0 and main(["--check", str(stale)]) == 0
    assert stale.read_text(encoding="utf-8").startswith("# Rules\n\n")


def test_the_specification_cites_every_rule() -> None:
    spec = (DOCS / "spec.md").read_text(encoding="utf-8")
    missing = [code for code in RULES if code.startswith("SA") and code not in spec]
    assert missing == []


def test_messages_say_what_claude_code_does_with_yaml_it_accepts() -> None:
    """Duplicate keys, anchors and tags on a file Claude Code loads: the message says what it
    makes of them, as the catalogue does."""
    def one(text: str, code: str) -> str:
        found = [d for d in validate_text(text, path="a.md") if d.rule == code]
        assert len(found) == 1, found
        return found[0].message

    assert one(EXPLAINED["SA007"].example or "", "SA007").endswith(
        "Claude Code 2.1.332 silently keeps the last value")
    assert "Claude Code 2.1.332 resolves anchors" in one(EXPLAINED["SA008"].example or "",
                                                         "SA008")
    assert "Claude Code 2.1.332 silently drops it" in one(EXPLAINED["SA009"].example or "",
                                                          "SA009")
    isolation = EXPLAINED["SA116"].fixed or ""
    assert [d for d in validate_text(isolation.replace("worktree", "remote"), path="a.md")
            if d.rule == "SA116"] == []  # measured: `remote` is valid in 2.1.330
