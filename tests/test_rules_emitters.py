"""Every convert (CV) and store (ST) code of the rule registry is really emitted, with the
registry's wording and severity: the registry lists no code that nothing can produce."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from subagents.cli.main import cli
from subagents.definition import AgentDefinition
from subagents.diagnostics import Diagnostic, Severity
from subagents.lint.rules.catalog import RULES, Emitter
from subagents.repair.convert import convert_definitions, field_losses
from subagents.store.core import validate_entry

_AGENT = "---\nname: {name}\ndescription: Reviews diffs for bugs.\n---\nYou review diffs.\n"


def _codes(diags: list[Diagnostic]) -> set[str]:
    return {d.rule for d in diags}


def test_every_store_code_is_emitted_with_the_registry_severity() -> None:
    ok = {"name": "a-b", "description": "Reviews.", "prompt": "You review."}
    cases = [
        validate_entry(42, ok["description"], ok["prompt"]),
        validate_entry("", ok["description"], ok["prompt"]),
        validate_entry("Bad Name", ok["description"], ok["prompt"]),
        validate_entry("x" * 1000, ok["description"], ok["prompt"]),
        validate_entry("a-b", " ", ok["prompt"]),
        validate_entry("a-b", ok["description"], ""),
        validate_entry("a-b", ok["description"], ok["prompt"], model="gpt-4"),
        validate_entry("a-b", ok["description"], ok["prompt"], tools="Read, Grep"),
        validate_entry("a-b", ok["description"], ok["prompt"], tools=["Read", 3]),
        validate_entry("a-b", ok["description"], ok["prompt"], tools=["Nope"]),
        validate_entry("a-b", ok["description"], "x" * 300_000),
        validate_entry("a-b", ok["description"], ok["prompt"], model=5),
        validate_entry("a-b", ok["description"], ok["prompt"], tools=["Read", "Read"]),
    ]
    seen: set[str] = set()
    for diags in cases:
        assert diags
        for d in diags:
            assert d.severity is RULES[d.rule].default, d
            seen.add(d.rule)
    declared = {c for c, r in RULES.items() if r.emitter is Emitter.STORE}
    assert seen == declared
    empty = validate_entry("", "Reviews.", "You review.")
    assert [d.message for d in empty] == ["name is empty"]


def test_every_convert_code_is_emitted(tmp_path: Path) -> None:
    hooked = AgentDefinition(name="Bad Name", description="Reviews.", system_prompt="You review.",
                             hooks={"Stop": []}, color="red", extra={"x-team": 1})
    seen = _codes(convert_definitions([hooked], "codex-md").diagnostics)
    twice = hooked.evolve(name="reviewer")
    seen |= _codes(convert_definitions([twice, twice], "json").diagnostics)
    assert {"CV003", "CV004"} <= seen
    ok = AgentDefinition(name="reviewer", description="Reviews.", system_prompt="You review.",
                         color="red", extra={"x-team": 1})
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                                                            "command": "true"}]}]}
    dropped = convert_definitions([ok.evolve(hooks=hooks)], "codex-md").diagnostics
    seen |= _codes(dropped)
    assert "CV001" in seen
    # the official Codex TOML: notes the file cannot carry (trusted projects), as information
    notes = [d for d in convert_definitions([ok], "codex").diagnostics if d.rule == "CV007"]
    assert notes and all(d.severity is Severity.INFO for d in notes)
    assert any("trusted project" in d.message for d in notes)
    seen.add("CV007")
    # a target that cannot hold the agent at all: Copilot's 30,000-character prompt limit
    huge = ok.evolve(system_prompt="x" * 30_001)
    result = convert_definitions([huge, ok.evolve(name="small")], "copilot")
    (refused,) = [d for d in result.diagnostics if d.rule == "CV008"]
    assert refused.severity is Severity.ERROR and result.converted == ("small",)
    seen.add("CV008")
    changed = field_losses(ok, ok.evolve(description="Other."), "codex")
    assert [d.message for d in changed] == [
        "`description` changed in codex: 'Reviews.' became 'Other.'"]
    unreadable = field_losses(ok, None, "codex")
    assert unreadable[0].severity is Severity.ERROR and unreadable[0].rule == "CV002"
    seen |= _codes(changed)
    skipped = convert_definitions([ok.evolve(name="a:b")], "claude").diagnostics
    assert (skipped[0].rule, skipped[0].severity) == ("CV003", Severity.WARNING)

    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "broken.md").write_text("---\nname: [unclosed\n", encoding="utf-8")
    out = CliRunner().invoke(cli, ["convert", str(folder / "broken.md"), "--to", "json"])
    assert "CV005" in out.output
    seen.add("CV005")
    (folder / "ok.md").write_text(_AGENT.format(name="reviewer"), encoding="utf-8")
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "reviewer.md").write_text("mine\n", encoding="utf-8")
    out = CliRunner().invoke(cli, ["convert", str(folder / "ok.md"), "--to", "claude",
                                   "--out", str(dest)])
    assert "CV006" in out.output and (dest / "reviewer.md").read_text() == "mine\n"
    seen.add("CV006")
    assert seen == {c for c, r in RULES.items() if r.emitter is Emitter.CONVERT}


def test_every_fix_code_is_emitted(tmp_path: Path) -> None:
    """`fix` reports the files it leaves alone under declared codes, never a pseudo-code."""
    from subagents.definition import Dialect
    from subagents.repair.fix import FixStatus, fix_file, fix_text

    seen: dict[str, Diagnostic] = {}
    other = fix_text("name = 'a'\n", dialect=Dialect.CODEX)
    deep = fix_text("---\nname: a\nx: " + "[" * 200 + "]" * 200 + "\n---\nPrompt.\n")
    target = tmp_path / "real.md"
    target.write_text(_AGENT.format(name="a"), encoding="utf-8")
    (tmp_path / "link.md").symlink_to(target)
    link = fix_file(tmp_path / "link.md")
    assert (other.status, deep.status, link.status) == (
        FixStatus.SKIPPED, FixStatus.UNFIXABLE, FixStatus.SKIPPED)
    for result in (other, deep, link):
        for d in result.problems:
            assert d.severity is RULES[d.rule].default, d
            seen[d.rule] = d
    assert set(seen) == {c for c, r in RULES.items() if r.emitter is Emitter.FIX}
    assert "not rewritten by fix" in other.problems[0].message
    assert "symbolic link" in link.problems[0].message
