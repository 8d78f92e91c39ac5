"""``subagents validate``, ``subagents schema`` and ``subagents rules``.

Design notes
------------
* Contract (DESIGN.md): ``validate [PATH ...] [--strict] [--dialect ...] [--format
  text|json|sarif]``; exit 0 without error diagnostics, 1 with, 2 for a usage error (click's
  own for an unknown flag; :class:`~subagents.errors.UsageError` for a missing path, raised
  as a click usage error so that ``cli.main`` and ``CliRunner`` both exit 2).
* Light on purpose: this module imports click and the validator only; no rich (colour is plain
  ANSI on a TTY, off with ``NO_COLOR``), no provider SDKs.  A test checks ``sys.modules``.
"""

from __future__ import annotations

import json
import os
import sys

import click

from subagents.cli.options import format_option
from subagents.definition import Dialect
from subagents.errors import ConfigError, UsageError

__all__ = ["rules", "schema", "validate"]

_DIALECTS = [d.value for d in Dialect]


class _ConfigProblem(click.ClickException):
    """A broken configuration file: a usage problem, exit 2 (errors.ConfigError.exit_code)."""

    exit_code = ConfigError.exit_code


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for v in values:
        out.extend(s.strip() for s in v.split(",") if s.strip())
    return tuple(out)


def _check_selectors(values: tuple[str, ...], option: str) -> None:
    from subagents.rules.catalog import is_valid_selector

    bad = [v for v in values if not is_valid_selector(v)]
    if bad:
        raise click.BadParameter(
            f"{', '.join(bad)}: not a rule code, prefix (SA2) or name; see `subagents rules`",
            param_hint=option,
        )


@click.command(
    "validate",
    epilog="Examples:\n\n\b\n  subagents validate                       # this project's agents\n"
    "  subagents validate .claude/agents --strict\n"
    "  subagents validate agent.md --format sarif > results.sarif\n"
    "  subagents validate --ignore SA2,SA302 docs/agents\n\n"
    "Configure defaults in pyproject.toml [tool.subagents] or .subagents.toml (select, ignore, "
    "extra-tools, model-aliases, max-file-size, per-file-ignores); silence rules for one file "
    "with a frontmatter comment `# subagents: ignore[SA201]`.",
)
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option(
    "--strict", is_flag=True, help="Judge by the seed's REQ-SUB rules: spec warnings become errors."
)
@click.option(
    "--dialect",
    type=click.Choice(_DIALECTS),
    default=None,
    help="Read every file as this dialect (default: inferred from the location).",
)
@format_option("text", "json", "sarif")
@click.option(
    "--select",
    multiple=True,
    metavar="RULES",
    help="Report only these rules (codes, prefixes like SA2, or names; repeatable, "
    "comma-separated). Replaces `select` from the configuration.",
)
@click.option(
    "--ignore",
    multiple=True,
    metavar="RULES",
    help="Do not report these rules (added to `ignore` from the configuration).",
)
@click.option(
    "--color/--no-color",
    default=None,
    help="Colour the text output (default: on a terminal, unless NO_COLOR is set).",
)
def validate(
    paths: tuple[str, ...],
    strict: bool,
    dialect: str | None,
    output_format: str,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    color: bool | None,
) -> None:
    """Check agent definition files and report every problem with file, line and a fix.

    PATH is an agent file or a folder (searched recursively). With no PATH, exactly the files
    `subagents list` reads: .claude/agents here and in each parent up to the git root,
    ~/.claude/agents, and the managed and plugin folders (SUBAGENTS_MANAGED_DIR,
    SUBAGENTS_PLUGIN_DIRS); an agents folder that is a file is an error.  Exit status: 0 no
    errors, 1 errors found, 2 usage error.
    """
    from subagents.report import render
    from subagents.validate import validate_paths

    sel, ign = _split(select), _split(ignore)
    _check_selectors(sel, "--select")
    _check_selectors(ign, "--ignore")
    sources = None
    if not paths:  # the folders `subagents list` reads (one definition of the project)
        from subagents.cli.options import scope_sources

        sources = scope_sources(dialect=Dialect.CODEX if dialect == "codex" else Dialect.CLAUDE)
    try:
        report = validate_paths(paths, strict=strict, dialect=dialect, select=sel, ignore=ign,
                                sources=sources)
    except UsageError as exc:
        raise click.UsageError(str(exc)) from None
    except ConfigError as exc:
        raise _ConfigProblem(str(exc)) from None
    if color is None:
        color = output_format == "text" and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    click.echo(render(report, output_format, color=bool(color)), nl=False)
    if not paths and report.files == 0 and output_format == "text":
        # An empty result is most often a command run in the wrong folder: say where we looked.
        dot = ".codex" if dialect == "codex" else ".claude"
        click.echo(
            f"no agent files found: looked for {dot}/agents here and in each parent folder up "
            f"to the git root, and in ~/{dot}/agents (give a PATH to check other files)",
            err=True,
        )
    ctx = click.get_current_context()
    ctx.exit(report.exit_code)


@click.command("schema")
@click.option("--indent", type=int, default=2, show_default=True, help="JSON indentation.")
def schema(indent: int) -> None:
    """Print the JSON Schema (draft 2020-12) of the agent frontmatter.

    Save it and point your editor's YAML language server at it, e.g. with the comment
    `# yaml-language-server: $schema=./agent.schema.json` in the frontmatter.
    """
    from subagents.schema import frontmatter_schema

    click.echo(json.dumps(frontmatter_schema(), indent=indent))


@click.command("rules")
@format_option("text", "json")
def rules(output_format: str) -> None:
    """List every rule: code, name, severity by default and under --strict, and its doc."""
    from subagents.known_tools import BUILTIN_TOOLS
    from subagents.rules.catalog import RULES

    if output_format == "json":
        click.echo(
            json.dumps(
                [
                    {
                        "code": r.code,
                        "name": r.name,
                        "category": str(r.category),
                        "doc": r.doc,
                        "default": str(r.default) if r.default else None,
                        "strict": str(r.strict) if r.strict else None,
                        "silenceable": r.silenceable,
                    }
                    for r in RULES.values()
                ],
                indent=2,
            )
        )
        return
    for r in RULES.values():
        sev = f"{r.default or 'off'}/{r.strict or 'off'}"
        click.echo(f"{r.code}  {r.name:<34} {sev:<15} {r.doc}")
    click.echo(
        "\nseverity: default profile / --strict.  Known tools: "
        + ", ".join(sorted(BUILTIN_TOOLS))
        + ", mcp__server__tool, Agent(a, b)."
    )
