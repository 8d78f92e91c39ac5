"""The curated public namespace (httpx-style guard): every exported name resolves, nothing else
leaks, and importing the package stays cheap."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import subagents

HEAVY = ("anthropic", "openai", "mcp", "watchfiles", "rich", "bm25s", "claude_agent_sdk")


def test_all_is_sorted_and_complete() -> None:
    assert subagents.__all__ == sorted(subagents.__all__)
    assert set(subagents.__all__) == set(subagents._EXPORTS)


def test_every_public_name_resolves() -> None:
    for name in subagents.__all__:
        value = getattr(subagents, name)
        assert value is not None, name
        module = getattr(value, "__module__", "")
        assert module.startswith("subagents"), (name, module)


def test_documented_entry_points() -> None:
    from subagents import AgentDefinition, AgentRegistry, load_agent, validate_paths

    assert callable(load_agent) and callable(validate_paths)
    assert AgentDefinition.__name__ == "AgentDefinition"
    assert AgentRegistry.__name__ == "AgentRegistry"


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        subagents.NoSuchThing  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")


@pytest.mark.slow
def test_import_and_reader_do_not_pull_heavy_dependencies() -> None:
    code = (
        "import sys, subagents\n"
        "from subagents import load_agent, AgentDefinition, validate_paths\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_scripted_model_names_unused_replies() -> None:
    import pytest

    from subagents.testing import ScriptedModel, text, tool_call

    model = ScriptedModel([tool_call("Read", {"file_path": "x"}), text("the end")])
    with pytest.raises(AssertionError, match=r"2 scripted replies were not used: tool Read, 'the end'"):
        model.assert_complete()


@pytest.mark.slow
def test_python_dash_m_runs_the_cli() -> None:
    out = subprocess.run([sys.executable, "-m", "subagents", "--version"], capture_output=True,
                         text=True, check=True)
    assert "subagents" in out.stdout and "0.1.0" in out.stdout


def test_types_users_meet_are_public() -> None:
    """Names a library user meets in signatures and results are importable from `subagents`."""
    for name in ("ToolContext", "ToolOutput", "ChangeEvent", "FixResult", "validate_text",
                 "AgentFileNotFound"):
        assert name in subagents.__all__, name
    from subagents import FixResult, validate_text
    from subagents.repair.fix import fix_file

    assert fix_file.__annotations__["return"] in ("FixResult", FixResult)
    assert validate_text("---\nname: x\ndescription: An agent that checks things.\n---\nBody\n",
                         path="x.md") is not None


# Modules that moved into packages keep their old import paths, as the very same module.
_MOVED_SAMPLES = [
    ("subagents.validate", "subagents.lint.validate", "validate_paths"),
    ("subagents.fix", "subagents.repair.fix", "fix_file"),
    ("subagents.convert", "subagents.repair.convert", "convert_definitions"),
    ("subagents.loader", "subagents.harnesses.loader", "parse_agent_text"),
    ("subagents.discovery", "subagents.harnesses.layout", "plan_sources"),
    ("subagents.rules.catalog", "subagents.lint.rules.catalog", "RULES"),
    ("subagents.testing_server", "subagents.testing.server", "FakeLLMServer"),
    ("subagents.runtime.teams", "subagents.dispatch.teams", "run_team"),
    ("subagents.runtime.orchestrator", "subagents.dispatch.main_thread", "run_main_thread"),
    ("subagents.paths", "subagents.fs", "display_path"),
    ("subagents.fsread", "subagents.fs", "read_regular"),
    ("subagents.store_file", "subagents.store.file", "atomic_write_bytes"),
    ("subagents.watching", "subagents.registry.watch", "ChangeEvent"),
]


@pytest.mark.parametrize(("old", "new", "name"), _MOVED_SAMPLES)
def test_old_module_paths_are_the_same_modules(old: str, new: str, name: str) -> None:
    import importlib

    old_module = importlib.import_module(old)
    assert old_module is importlib.import_module(new)
    assert getattr(old_module, name) is getattr(importlib.import_module(new), name)


def test_every_moved_path_resolves() -> None:
    import importlib

    from subagents._moved import MOVED

    for old, new in MOVED.items():
        assert importlib.import_module(old) is importlib.import_module(new), old


def test_documented_imports_from_the_docs_work() -> None:
    """Every ``from subagents... import ...`` line in README.md and docs/ runs."""
    import re

    root = Path(__file__).resolve().parents[1]
    lines = set()
    for page in [root / "README.md", *(root / "docs").glob("*.md")]:
        for match in re.finditer(r"^\s*(from subagents[\w.]* import [^\n(]+)$",
                                 page.read_text(encoding="utf-8"), re.M):
            lines.add(match.group(1).split("#")[0].strip())
    assert lines, "no documented imports found: the scan is broken"
    for line in sorted(lines):
        exec(line, {})


@pytest.mark.slow
def test_old_module_runs_with_dash_m() -> None:
    done = subprocess.run([sys.executable, "-m", "subagents.testing_server", "--help"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "--script" in done.stdout


def test_old_paths_leave_the_modules_their_own_spec() -> None:
    """Importing an old path must not give the module the alias's spec: importlib.resources
    (the rule explanations of `explain` and of the language server's hover) reads files
    through it."""
    import subprocess
    import sys

    code = ("import importlib\nfrom subagents._moved import MOVED\n"
            "for old in MOVED:\n    importlib.import_module(old)\n"
            "import subagents.lint.rules as r\n"
            "from subagents.lint.rules.explanations import explanation_for\n"
            "print(r.__spec__.name, explanation_for('SA104')[0].code)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False, timeout=120)
    assert out.stdout.split() == ["subagents.lint.rules", "SA104"], out.stderr
