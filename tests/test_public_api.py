"""The curated public namespace (httpx-style guard): every exported name resolves, nothing else
leaks, and importing the package stays cheap."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import subagents

HEAVY = ("anthropic", "openai", "mcp", "watchfiles", "rich", "bm25s", "claude_agent_sdk", "dbos",
         "sqlalchemy")


#: The whole public surface: these names, from these two namespaces.  Adding one is a
#: decision (a change here, and in CHANGELOG.md); everything else is the implementation.
PUBLIC = {
    "subagents": [
        "AgentDefinition", "AgentDispatcher", "AgentEntry", "AgentFileNotFound",
        "AgentNotFoundError", "AgentRegistry", "AgentResult", "AgentRunner", "AgentStore",
        "ChangeEvent", "ConfigError", "DefinitionError", "Diagnostic", "Dialect", "FixResult",
        "FixStatus", "HookCommand", "HookMatcher", "LoadResult", "McpServerSpec", "Message",
        "Model", "ModelRequest", "ModelResponse", "PermissionPolicy", "ProviderError", "Router",
        "RunHooks", "RunInterrupted", "Scope", "Severity", "SubagentError", "TeamLayout",
        "TeamLimits", "TeamOutcome", "Tool", "ToolContext", "ToolOutput", "ValidationReport",
        "apply_sync", "convert_definitions", "fix_file", "fix_text", "get_provider",
        "load_agent", "parse_agent_text", "plan_sync", "read_agent_file", "resolve_targets",
        "run_main_thread", "run_pipeline", "run_team", "to_sdk_agent_definitions",
        "validate_paths", "validate_text",
    ],
    "subagents.testing": [
        "FakeLLMServer", "Fault", "ScriptedModel", "ScriptedReply", "raw_tool_call", "text",
        "tool_call", "tool_calls",
    ],
    "subagents.batch": [
        "BatchOutcome", "BatchSettings", "Job", "JobProblem", "JobStatus", "QueueLimits",
        "cancel", "job_statuses", "jobs_over", "read_jobs", "run_batch", "serve",
    ],
}
#: a development tool documented in docs/conformance.md (not in the wheel)
DEV_TOOLS = ("subagents.conformance",)


def test_the_public_surface_is_exactly_the_curated_names() -> None:
    import importlib

    for namespace, names in PUBLIC.items():
        module = importlib.import_module(namespace)
        assert sorted(module.__all__) == sorted(names), (
            f"{namespace}.__all__ changed: a public name is a decision; list it in PUBLIC here "
            "and say it in CHANGELOG.md")
        for name in names:
            assert getattr(module, name) is not None, (namespace, name)


def test_the_docs_import_only_from_the_public_namespaces() -> None:
    """A user who copies the README or docs never imports an internal module."""
    import re

    root = Path(__file__).resolve().parents[1]
    pages = [root / "README.md", *(root / "docs").glob("*.md"), *(root / "examples").rglob("*.md")]
    found = []
    for page in pages:
        for match in re.finditer(r"^\s*from (subagents[\w.]*) import ([^\n(]+)",
                                 page.read_text(encoding="utf-8"), re.M):
            found.append((page.name, match.group(1)))
    assert found, "no documented imports found: the scan is broken"
    private = [(page, ns) for page, ns in found if ns not in PUBLIC and ns not in DEV_TOOLS]
    assert private == [], (
        "the docs import from internal modules: export the names from `subagents` (list them "
        "in PUBLIC here and in CHANGELOG.md) and import them from there")


def test_there_are_no_compatibility_aliases() -> None:
    """0.x: the old module paths (`subagents.validate`, `subagents.fix`, ...) are gone rather
    than aliased (the alias finder broke importlib.reload and hid them from mypy)."""
    import importlib

    for old in ("subagents.validate", "subagents.fix", "subagents.loader", "subagents.paths",
                "subagents.runtime.teams", "subagents.testing_server"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(old)
    assert not any(type(f).__module__.startswith("subagents") for f in sys.meta_path)


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
