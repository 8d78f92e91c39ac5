"""``subagents route`` and ``subagents test``: where would a request go, and do examples land?

``route "TEXT"`` ranks the agents this directory sees (or the files given with ``--path``) for a
request, with scores and the words that decided.  An explicit mention ("use the X agent",
``@X``) pins X first, as a main thread would.

``test [NAME ...]`` is the offline dispatch test: every usage example
of every agent (or of the named ones) is routed against *all* the agents, and each one that goes
elsewhere is reported with the winner and the words that put it ahead.  Exit 1 if any example
misses.  With ``--provider`` each example is also run through that agent with the runner and the
answer is shown (the routing verdict does not depend on the model).

Design decisions: routing is always over the whole set even when ``NAME`` narrows the test,
because the question is "does this request reach this agent among its neighbours"; an agent
without examples is listed as untested, not failed; the router's ``keywords`` and BM25 are the
same code the Task tool's shortlist uses, so a pass here means the shortlist would keep it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from subagents.cli.options import (
    RegistryOptions,
    format_option,
    option_group,
    report_broken_scopes,
)
from subagents.definition import AgentDefinition, Dialect
from subagents.errors import SubagentError
from subagents.fs import display_path

if TYPE_CHECKING:
    from subagents.dispatch.examples import UsageExample
    from subagents.dispatch.router import RouteMatch, Router

__all__ = ["route", "test"]

_path_option = click.option(
    "--path",
    "paths",
    type=click.Path(exists=True, path_type=Path),
    multiple=True,
    help="Use the agent files in this file or folder (searched recursively) instead of the "
    "agents the directory sees. Repeatable.",
)


def _load_paths(paths: tuple[Path, ...]) -> list[AgentDefinition]:
    from subagents.harnesses.loader import detect_dialect, read_agent_file

    out: list[AgentDefinition] = []
    seen: set[str] = set()
    for root in paths:
        files = (
            [root]
            if root.is_file()
            else sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".md", ".json"))
        )
        for f in files:
            dialect = detect_dialect(f) or (Dialect.JSON if f.suffix == ".json" else Dialect.CLAUDE)
            result = read_agent_file(f, dialect=dialect)
            for d in result.definitions:
                if d.name and d.qualified_name not in seen:
                    seen.add(d.qualified_name)
                    out.append(d)
    return out


def _agents(
    paths: tuple[Path, ...],
    registry: RegistryOptions,
) -> list[AgentDefinition]:
    if paths:
        return _load_paths(paths)
    reg = registry.load()
    report_broken_scopes(reg)
    out = []
    for entry in reg.list(include_builtin=False):
        try:
            out.append(entry.definition)
        except SubagentError:
            out.append(entry.header)  # the body went bad since listing: route on the header
    return out


def _match_json(m: RouteMatch, rank: int) -> dict[str, Any]:
    return {
        "rank": rank,
        "name": m.agent.qualified_name,
        "score": round(m.score, 4),
        "why": list(m.why),
        "source": m.agent.source.value if m.agent.source else None,
        "path": display_path(m.agent.path) if m.agent.path else None,
    }


@click.command(name="route")
@click.argument("text")
@click.option(
    "--top",
    "-k",
    "top",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="How many agents to show.",
)
@_path_option
@option_group(RegistryOptions)
@format_option("text", "json")
def route(
    text: str,
    top: int,
    paths: tuple[Path, ...],
    registry: RegistryOptions,
    output_format: str,
) -> None:
    """Rank the agents for the request TEXT, best first, with scores and why.

    The ranking is lexical (agent keywords, then BM25 over names, descriptions, keywords and,
    weighted lower, system prompts): it shows which agents a request's words point at, as the
    Task tool's shortlist sees them.  "Use the X agent ..." or "@X" in TEXT pins X.

    \b
    Examples:
      subagents route "review my recent changes for security issues"
      subagents route "tune my kafka consumers" --path ./agents --top 3 --format json
    """
    from subagents.dispatch.explicit import parse_explicit
    from subagents.dispatch.router import RouteMatch, Router

    defs = _agents(paths, registry)
    router = Router(defs)
    matches = router.route(text, top=top)
    explicit = parse_explicit(text, [d.qualified_name for d in defs])
    pinned: RouteMatch | None = None
    if explicit is not None and explicit.agent is not None:
        base = router.explain(text, explicit.agent)
        agent = base.agent if base else next(d for d in defs if d.qualified_name == explicit.agent)
        why = (f"explicit: {text[explicit.start : explicit.end]!r}", *(base.why if base else ()))
        pinned = RouteMatch(agent, base.score if base else 0.0, why)
        matches = [pinned, *[m for m in matches if m.agent is not agent][: top - 1]]
    if output_format == "json":
        click.echo(
            json.dumps(
                {
                    "request": text,
                    "agents_considered": len(defs),
                    "pinned": explicit.agent if explicit else None,
                    "unknown_agent": explicit.requested
                    if explicit and explicit.agent is None
                    else None,
                    "agents": [_match_json(m, i + 1) for i, m in enumerate(matches)],
                },
                indent=2,
            )
        )
        return
    if explicit is not None and explicit.agent is None:
        click.echo(
            f"note: the request names an agent {explicit.requested!r} that this "
            "directory does not have; ranking the others",
            err=True,
        )
    if not defs:
        click.echo("no agents found (see `subagents list` / `subagents doctor`)", err=True)
        return
    if not matches:
        click.echo(
            f"no agent matches any word of the request ({len(defs)} considered); "
            "a main thread would keep it or use general-purpose"
        )
        return
    width = max(len(m.agent.qualified_name) for m in matches)
    for i, m in enumerate(matches, 1):
        click.echo(
            f"{i:>2}. {m.agent.qualified_name:<{width}}  {m.score:7.2f}  "
            + ("; ".join(m.why) if m.why else "")
        )


# --------------------------------------------------------------------------- test


def _deciding_words(winner: RouteMatch, expected: RouteMatch | None) -> list[str]:
    """Words that gave the winner more than the expected agent, biggest margin first."""
    theirs = expected.terms if expected else {}
    diffs = [(t, s - theirs.get(t, 0.0)) for t, s in winner.terms.items()]
    return [f"{t} (+{d:.2f})" for t, d in sorted(diffs, key=lambda x: -x[1]) if d > 0][:5]


def _check(router: Router, ex: UsageExample) -> dict[str, Any]:
    ranked = router.route(ex.request, top=3)
    mine = router.explain(ex.request, ex.agent)
    ok = bool(ranked) and ranked[0].agent.qualified_name == ex.agent
    row: dict[str, Any] = {
        "agent": ex.agent,
        "request": ex.request,
        "from": ex.where,
        "ok": ok,
        "score": round(mine.score, 4) if mine else 0.0,
        "top": [m.agent.qualified_name for m in ranked],
    }
    if not ok:
        if ranked:
            w = ranked[0]
            row["winner"] = w.agent.qualified_name
            row["winner_score"] = round(w.score, 4)
            row["decided_by"] = _deciding_words(w, mine)
        else:
            row["winner"] = None
            row["decided_by"] = []
        row["why_not"] = list(mine.why) if mine else []
    return row


async def _run_examples(
    rows: list[dict[str, Any]], defs: dict[str, AgentDefinition], provider: str,
    model: str | None, script: Path | None, cwd: Path | None,
) -> None:
    from subagents.providers import get_provider
    from subagents.runtime.runner import AgentRunner

    options: dict[str, Any] = {"script": str(script)} if provider == "scripted" else {}
    runner = AgentRunner(get_provider(provider, **options), cwd=cwd, transcripts=False)
    for row in rows:
        # One run per example, one after the other: a reader can follow the answers.
        try:
            result = await runner.run(defs[row["agent"]], row["request"], model=model)
            row["answer"] = result.final_text
            row["run_error"] = result.error
        except SubagentError as exc:
            row["answer"] = None
            row["run_error"] = str(exc)


@click.command(name="test")
@click.argument("names", nargs=-1)
@click.option(
    "--provider",
    type=click.Choice(["anthropic", "openai", "scripted"]),
    default=None,
    help="Also run each example through its agent with this provider and show the "
    "answer (needs the provider's API key; routing is checked offline either way).",
)
@click.option("--model", default=None, help="Model for --provider runs (default: the agent's).")
@click.option("--script", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="The JSON reply script for --provider scripted.")
@_path_option
@option_group(RegistryOptions)
@format_option("text", "json")
def test(
    names: tuple[str, ...],
    provider: str | None,
    model: str | None,
    script: Path | None,
    paths: tuple[Path, ...],
    registry: RegistryOptions,
    output_format: str,
) -> None:
    """Check offline that each agent's usage examples route to that agent.

    Examples come from the body's "## Usage Examples" section, <example> blocks (their
    "user:" lines) and an "Examples:" part of the description.  Each is ranked against all
    agents; one that goes elsewhere is reported with the winner and the words that decided,
    which usually means the description is too vague or overlaps another agent's.  NAME limits
    the check to those agents.  Exit status 1 if any example goes elsewhere.

    \b
    Examples:
      subagents test
      subagents test code-reviewer --format json
      subagents test security-auditor --provider anthropic
    """
    import asyncio

    if provider == "scripted" and script is None:
        raise click.UsageError("--provider scripted needs --script FILE (a JSON list of replies)")
    from subagents.dispatch.examples import usage_examples
    from subagents.dispatch.router import Router
    from subagents.dispatch.task_tool import resolve_agent

    defs = _agents(paths, registry)
    selected = defs
    if names:
        selected = []
        for n in names:
            d = resolve_agent(n, defs)
            if d is None:
                known = ", ".join(sorted(x.qualified_name for x in defs)) or "none"
                raise click.UsageError(
                    f"no agent named {n!r} (agents: {known}); see `subagents list`"
                )
            selected.append(d)
    router = Router(defs)
    rows: list[dict[str, Any]] = []
    untested: list[str] = []
    for d in selected:
        exs = usage_examples(d)
        if not exs:
            untested.append(d.qualified_name)
        rows.extend(_check(router, ex) for ex in exs)
    if provider:
        by_name = {d.qualified_name: d for d in defs}
        asyncio.run(_run_examples(rows, by_name, provider, model, script, registry.cwd))
    misses = [r for r in rows if not r["ok"]]
    # a run whose model call failed is a failure too: "ok" means routed *and* answered
    run_failures = [r for r in rows if r.get("run_error")]
    if output_format == "json":
        click.echo(
            json.dumps(
                {
                    "summary": {
                        "agents": len(selected),
                        "examples": len(rows),
                        "passed": len(rows) - len(misses),
                        "failed": len(misses),
                        "untested": len(untested),
                        **({"runs_failed": len(run_failures)} if provider else {}),
                    },
                    "results": rows,
                    "untested": untested,
                },
                indent=2,
            )
        )
    else:
        _print_text(rows, untested, len(selected))
    if misses or run_failures:
        raise click.exceptions.Exit(1)


def _print_text(rows: list[dict[str, Any]], untested: list[str], n_agents: int) -> None:
    for r in rows:
        mark = "ok  " if r["ok"] and not r.get("run_error") else (
            "MISS" if not r["ok"] else "FAIL")
        click.echo(f"{mark} {r['agent']}: {r['request']!r}")
        if not r["ok"]:
            if r.get("winner"):
                click.echo(
                    f"     went to {r['winner']} (score {r['winner_score']:.2f} vs "
                    f"{r['score']:.2f}); decided by: "
                    + (", ".join(r["decided_by"]) or "no single word")
                )
            else:
                click.echo("     no agent matched any word of it")
            if r.get("why_not"):
                click.echo(f"     {r['agent']} matched: " + "; ".join(r["why_not"]))
            else:
                click.echo(
                    f"     {r['agent']} matched none of its words: make the "
                    "description say what this request says"
                )
        if r.get("run_error"):
            click.echo(f"     the run failed: {r['run_error']}")
        elif "answer" in r:
            answer = r["answer"] or "(an empty answer)"
            click.echo("     answer: " + answer.strip().replace("\n", "\n             "))
    failed = sum(not r["ok"] for r in rows)
    ran = [r for r in rows if "answer" in r]
    broken = sum(bool(r.get("run_error")) for r in ran)
    click.echo(
        f"{len(rows)} example(s) of {n_agents} agent(s): {len(rows) - failed} routed "
        f"to their agent, {failed} went elsewhere"
        + (f"; {len(ran) - broken} run(s) answered, {broken} failed" if ran else "")
    )
    if untested:
        click.echo(
            f"{len(untested)} agent(s) have no usage examples (add a '## Usage "
            "Examples' section): " + ", ".join(untested)
        )
