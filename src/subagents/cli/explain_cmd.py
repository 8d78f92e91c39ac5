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
    if output_format == "json":
        click.echo(json.dumps(to_dict(rule, expl), indent=2, ensure_ascii=False))
    else:
        click.echo(render_text(rule, expl), nl=False)
