"""``subagents explain CODE``: the long documentation of one rule.

Design notes
------------
* The text is :mod:`subagents.lint.rules.explanations` (data beside the catalogue); this module only
  prints it.  A code (``SA104``, any case) or a slug (``unknown-tool``) is accepted.
* Every code is declared in the one registry, another harness's (``GM004``, ``OC001``) too,
  so each has its own text; there is no generic paragraph for a family.
* An unknown code is a usage error: exit 2 with the closest codes or slugs in the hint; under
  ``--format json`` the error is ``{"error": {"message", "hint", "exit_code", "suggestions"}}``
  on stdout, as for every command.
"""

from __future__ import annotations

import json

import click

from subagents.cli.options import fail, format_option


@click.command("explain")
@click.argument("code")
@format_option("text", "json")
def explain(code: str, output_format: str) -> None:
    """Explain one rule: what it checks, why, what Claude Code does, an example and the fix.

    CODE is a rule code (SA104) or its name (unknown-tool); `subagents rules` lists them all.
    """
    from subagents.lint.rules.explanations import (
        explanation_for,
        render_text,
        suggest_codes,
        to_dict,
    )

    found = explanation_for(code)
    if found is None:
        close = suggest_codes(code)
        hint = ("did you mean: " + ", ".join(close) + "? " if close else "") + (
            "`subagents rules` lists every rule")
        fail(output_format, f"no rule {code!r}", hint, 2, suggestions=close)
    rule, expl = found
    extra = _per_version(rule.code)
    if output_format == "json":
        data = to_dict(rule, expl)
        if extra is not None:
            data["claude_code"] = extra
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        click.echo(render_text(rule, expl), nl=False)
        if extra is not None:
            click.echo(_render_version(extra), nl=False)


_KIND_TITLES = {
    "direct": "given directly to a subagent that names them",
    "deferred": "deferred: named to the subagent, loaded through ToolSearch when used",
    "main-thread": "main thread only: a subagent that names them never gets them",
    "published": "published in the release's typings; what a subagent gets was not measured",
}


def _per_version(code: str) -> dict[str, object] | None:
    """What the chosen Claude Code version has for the rules whose answer is per version."""
    if code not in ("SA104", "SA109"):
        return None
    from pathlib import Path

    from subagents.claude_code.profile import get_profile
    from subagents.registry.configured import chosen_claude_code

    profile = get_profile(chosen_claude_code(Path.cwd()))
    if code == "SA109":
        return {"version": profile.version, "hook_events": list(profile.hook_events)}
    kinds: dict[str, list[str]] = {k: [] for k in _KIND_TITLES}
    for name in sorted({*profile.tool_kinds, *profile.published_tools}, key=str.lower):
        kind = profile.tool_kind(name)
        if kind is not None:
            kinds[kind].append(name)
    return {"version": profile.version, "tools": kinds}


def _render_version(extra: dict[str, object]) -> str:
    out = ["", f"In Claude Code {extra['version']} (the chosen version):"]
    if "hook_events" in extra:
        events = extra["hook_events"]
        assert isinstance(events, list)
        out.append(f"  hook events ({len(events)}): " + ", ".join(events))
    tools = extra.get("tools")
    if isinstance(tools, dict):
        if not any(tools.values()):
            out.append("  no tool list was recorded for this version")
        for kind, names in tools.items():
            if names:
                out.append(f"  {_KIND_TITLES[kind]} ({len(names)}): " + ", ".join(names))
    return "\n".join(out) + "\n"
