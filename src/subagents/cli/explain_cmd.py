"""``subagents explain CODE``: the long documentation of one rule.

Design notes
------------
* The text is :mod:`subagents.lint.rules.explanations` (data beside the catalogue); this module only
  prints it.  A code (``SA104``, any case) or a slug (``unknown-tool``) is accepted.
* An unknown code is a usage error: exit 2 with the closest codes or slugs in the hint; under
  ``--format json`` the error is ``{"error": {"message", "hint", "exit_code", "suggestions"}}``
  on stdout, as for every command.
"""

from __future__ import annotations

import json

import click

from subagents.cli.options import fail, format_option


def _explain_harness_code(code: str, output_format: str) -> bool:
    """A finding of another harness's own reader (``GM004``, ``OC001``...): what the family
    means and where its behaviour comes from.  False when ``code`` is not one."""
    from subagents.lint.rules.catalog import harness_family

    family = harness_family(code)
    if family is None or len(code.strip()) != 5:
        return False
    from subagents.harnesses import get_harness

    dialect, _title = family
    harness = get_harness(dialect)
    label = f"{harness.display_name} {harness.version}".strip()
    text = (
        f"{code.strip().upper()}: a finding of {label}'s own reading of a file in its folders "
        f"(dialect `{dialect}`).\n\n"
        f"The message says what {harness.display_name} does with the file, in its own words "
        "where it has them. The severity follows one rule for every harness: an error when "
        "the harness skips the agent, refuses to start because of the file, or silently does "
        "something other than what the file says; a warning for portability and style; "
        "information otherwise.\n\n"
        f"What {harness.display_name} does was measured by running its command-line tool "
        "offline and recorded in the project (docs/conformance.md) where it can be run; "
        "messages about a harness that cannot be run say they come from its documentation. "
        "docs/harnesses.md describes every harness.\n"
    )
    if output_format == "json":
        click.echo(json.dumps({"code": code.strip().upper(), "harness": dialect,
                               "measured": label, "text": text}, indent=2))
    else:
        click.echo(text, nl=False)
    return True


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
    if found is None and _explain_harness_code(code, output_format):
        return
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
