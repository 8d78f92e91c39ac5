"""Every harness at once: ``list --dialect all`` and ``doctor``'s Harnesses section.

Design notes
------------
* One registry per harness present (:meth:`subagents.cli.options.RegistryOptions.load_every`);
  this module only renders them.  An agent defined for two harnesses is listed twice, once per
  harness that loads it, each tagged with its ``harness`` -- that is the point of the view.
* ``list --dialect all --format json`` keeps ``list``'s contract: ``agents`` (each with its
  ``harness``), ``shadowed`` and ``diagnostics``, the concatenation of every harness's, with
  exact duplicate diagnostics (a file two harnesses judge the same way) kept once.
* Text is grouped by harness and says it the way the harness would: "Gemini CLI 0.61.0 loads 3
  agents from .gemini/agents: ...", then each file it skips and each file that stops it from
  starting, with the rule, the severity (the shared rule: a skip or a refusal is an error) and
  the message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from subagents.diagnostics import Diagnostic, Severity, sort_diagnostics

if TYPE_CHECKING:
    from subagents.registry.core import AgentRegistry
    from subagents.registry.harness_view import HarnessReport

__all__ = ["every_harness_json", "harness_lines", "harness_reports"]


def harness_reports(regs: list[AgentRegistry]) -> list[HarnessReport]:
    from subagents.registry.harness_view import harness_report

    return [harness_report(reg) for reg in regs]


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _first_error(diags: tuple[Diagnostic, ...]) -> Diagnostic | None:
    return next((d for d in diags if d.severity is Severity.ERROR), None)


def harness_lines(report: HarnessReport, *, names: bool = True, indent: int = 0) -> list[str]:
    """``Gemini CLI 0.61.0 loads 2 agents from .gemini/agents: a, b`` and what it skips."""
    pad = " " * indent
    where = f" from {', '.join(report.folders)}" if report.folders else ""
    count = _plural(len(report.loads), "agent")
    if report.fatal:  # it loads nothing at all until the file is fixed
        head = (f"{pad}{report.label} does not start ({_plural(len(report.fatal), 'file')} "
                f"below); once fixed it loads {count}{where}")
    else:
        head = f"{pad}{report.label} loads {count}{where}"
    if names and report.loads:
        head += ": " + ", ".join(e.name for e in report.loads)
    out = [head]
    for rec in report.fatal:
        out.append(f"{pad}  stops {report.label} from starting: {rec.display_path}"
                   f"{_why(rec.diagnostics)}")
    for rec in report.skipped:
        out.append(f"{pad}  skips {rec.display_path}{_why(rec.diagnostics)}")
    return out


def _why(diags: tuple[Diagnostic, ...]) -> str:
    """``:line: error RULE message`` on one line (harness messages may hold newlines)."""
    first = _first_error(diags)
    if first is None:
        return ": error"
    at = f":{first.line}" if first.line else ""
    message = " ".join(first.message.split())
    return f"{at}: {first.severity.value} {first.rule} {message}"


def every_harness_json(regs: list[AgentRegistry], *, include_builtin: bool) -> dict[str, Any]:
    """``list --dialect all --format json``: ``list``'s shape over every harness present."""
    agents: list[dict[str, Any]] = []
    shadowed: list[dict[str, Any]] = []
    diags: list[Diagnostic] = []
    for reg in regs:
        builtin = include_builtin and reg.dialect.value == "claude"
        agents += [e.to_dict() for e in reg.list(include_builtin=builtin)]
        shadowed += [e.to_shadow_dict() for e in reg.shadowed(include_builtin=builtin)]
        diags += reg.diagnostics()
    unique = list(dict.fromkeys(diags))
    return {
        "agents": agents,
        "shadowed": shadowed,
        "diagnostics": [d.to_dict() for d in sort_diagnostics(unique)],
    }
