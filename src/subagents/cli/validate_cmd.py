"""``subagents validate``, ``subagents schema`` and ``subagents rules``.

Design notes
------------
* Contract: ``validate [PATH ...] [--strict] [--dialect ...] [--format
  text|json|sarif|github]``; exit 0 without error diagnostics, 1 with, 2 for a usage error (click's
  own for an unknown flag; :class:`~subagents.errors.UsageError` for a missing path, raised
  as a click usage error so that ``cli.main`` and ``CliRunner`` both exit 2).
* CI options: ``--quiet`` (errors only), ``--statistics`` (counts by rule, text or json),
  ``--max-warnings N`` (exit 1 above N), ``--baseline FILE`` (:mod:`subagents.lint.baseline`),
  ``--format github`` (workflow annotations, :func:`subagents.lint.report.render_github`).
  Notes about the run (baseline written, warnings over the limit, nothing found) go to
  stderr, so stdout stays exactly the chosen format.  ``--max-warnings`` counts the warnings
  left after the baseline, before ``--quiet`` hides them.
* Quoted globs in PATH are expanded here (``glob`` with ``recursive=True``), so
  ``'agents/**/*.md'`` works in any shell and in pre-commit/CI configurations.
* Light on purpose: this module imports click and the validator only; no rich (colour is plain
  ANSI on a TTY, off with ``NO_COLOR``), no provider SDKs.  A test checks ``sys.modules``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import click

from subagents.cli.options import format_option, option_group
from subagents.definition import Dialect
from subagents.errors import ConfigError, UsageError
from subagents.harnesses.table import OWN_READERS

__all__ = ["expand_globs", "rules", "schema", "validate"]

_DIALECTS = [d.value for d in Dialect]


def _harness_files(dialect: str) -> list[str]:
    """With no PATH and a harness dialect: :func:`subagents.harnesses.agent_files` for the
    project (the git root, else here) and the home folder."""
    from subagents.harnesses import agent_files, get_harness
    from subagents.harnesses.layout import find_git_root

    cwd = Path.cwd().absolute()
    home = Path(os.environ.get("HOME") or Path.home())
    return [str(p) for p in agent_files(get_harness(dialect), find_git_root(cwd) or cwd, home)]


class _ConfigProblem(click.ClickException):
    """A broken configuration file: a usage problem, exit 2 (errors.ConfigError.exit_code)."""

    exit_code = ConfigError.exit_code


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for v in values:
        out.extend(s.strip() for s in v.split(",") if s.strip())
    return tuple(out)


def _jobs(value: str) -> int | None:
    """``--jobs``: a whole number of processes (1 or more), or ``auto`` (None)."""
    text = str(value).strip().lower()
    if text == "auto":
        return None
    if text.isdigit() and 1 <= int(text) <= 64:
        return int(text)
    raise click.BadParameter(f"{value!r} is not a number of processes (1 to 64) or 'auto'",
                             param_hint="'--jobs'")


def _check_selectors(values: tuple[str, ...], option: str) -> None:
    from subagents.lint.rules.catalog import selector_problem

    bad = [p for p in map(selector_problem, values) if p is not None]
    if bad:
        raise click.BadParameter(
            "; ".join(bad) + " (`subagents rules` lists every code and name)",
            param_hint=option,
        )


@dataclass(frozen=True, slots=True)
class ReadingOptions:
    """How the files are read: --no-cache, --jobs."""

    param: ClassVar[str] = "reading"
    click_options: ClassVar[tuple[Callable[[Any], Any], ...]] = (
        click.option(
            "--no-cache",
            is_flag=True,
            help="Read every file again instead of reusing the findings of files unchanged "
            "since the last run (a run of eight files or more uses the cache; it lives in "
            "$XDG_CACHE_HOME/subagents/validate, default ~/.cache/subagents/validate; delete "
            "that folder to clear it).",
        ),
        click.option(
            "--jobs",
            "-j",
            default="auto",
            metavar="N|auto",
            callback=lambda _ctx, _param, value: _jobs(value),
            help="Processes for the files to read (default auto: two when at least 100 files "
            "need reading and a core is idle, else one). The output is the same, in the same "
            "order.",
        ),
    )
    no_cache: bool = False
    jobs: int | None = None


@click.command(
    "validate",
    epilog="Examples:\n\n\b\n  subagents validate                       # this project's agents\n"
    "  subagents validate .claude/agents --strict\n"
    "  subagents validate 'agents/**/*.md'          # globs are expanded, quoted or not\n"
    "  subagents validate agent.md --format sarif > results.sarif\n"
    "  subagents validate --format github           # annotations in a GitHub workflow\n"
    "  subagents validate --baseline .subagents-baseline.json   # fail only on new findings\n"
    "  subagents validate --statistics              # counts by rule\n"
    "  subagents validate --ignore SA2,SA302 docs/agents\n\n"
    "Configure defaults in pyproject.toml [tool.subagents] or .subagents.toml (select, ignore, "
    "extra-tools, model-aliases, max-file-size, per-file-ignores); silence rules for one file "
    "with a frontmatter comment `# subagents: ignore[SA201]`.",
)
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option(
    "--strict",
    is_flag=True,
    help="Also apply the subagent format specification: its checks are reported and its "
    "warnings become errors.",
)
@click.option(
    "--dialect",
    type=click.Choice(_DIALECTS),
    default=None,
    help="Read every file as this dialect (default: inferred from the location).",
)
@format_option(
    "text",
    "json",
    "sarif",
    "github",
    help="Output format: text, json, sarif, or github (GitHub Actions annotations).",
)
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
@click.option("--quiet", "-q", is_flag=True, help="Report errors only (no warnings, no summary "
              "when there is no error).")
@click.option("--statistics", is_flag=True,
              help="Print how many findings each rule has instead of the findings.")
@click.option(
    "--max-warnings",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Also exit 1 when there are more than N warnings.",
)
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="Known findings: if FILE does not exist, write every current finding to it and pass; "
    "afterwards report and fail only on findings it does not list (matched by file, rule and "
    "message, so moved lines still match).",
)
@click.option(
    "--update-baseline",
    is_flag=True,
    help="With --baseline: rewrite FILE from the current findings and pass.",
)
@click.option(
    "--color/--no-color",
    default=None,
    help="Colour the text output (default: on a terminal, unless NO_COLOR is set).",
)
@option_group(ReadingOptions)
def validate(
    paths: tuple[str, ...],
    strict: bool,
    dialect: str | None,
    output_format: str,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    quiet: bool,
    statistics: bool,
    max_warnings: int | None,
    baseline: Path | None,
    update_baseline: bool,
    color: bool | None,
    reading: ReadingOptions,
) -> None:
    """Check agent definition files and report every problem with file, line and a fix.

    PATH is an agent file, a folder (searched recursively) or a glob (`'agents/**/*.md'`).
    With no PATH, exactly the files `subagents list` reads: .claude/agents here and in each
    parent up to the git root, ~/.claude/agents, and the managed and plugin folders
    (SUBAGENTS_MANAGED_DIR, SUBAGENTS_PLUGIN_DIRS); an agents folder that is a file is an
    error.

    Exit status: 0 no errors (and no more warnings than --max-warnings), 1 errors found,
    2 usage error.
    """
    from subagents.lint.report import render, render_statistics
    from subagents.lint.validate import validate_paths

    sel, ign = _split(select), _split(ignore)
    _check_selectors(sel, "--select")
    _check_selectors(ign, "--ignore")
    if update_baseline and baseline is None:
        raise click.UsageError("--update-baseline needs --baseline FILE")
    if statistics and output_format not in ("text", "json"):
        raise click.UsageError("--statistics prints text or json; drop --format "
                               f"{output_format} or --statistics")
    expanded = expand_globs(paths)
    sources = None
    if not paths and dialect in OWN_READERS:
        expanded = _harness_files(dialect)  # the files that harness reads here and in home
    elif not paths:  # the folders `subagents list` reads (one definition of the project)
        from subagents.registry.configured import scope_sources

        sources = scope_sources(dialect=Dialect(dialect) if dialect else Dialect.CLAUDE)
    try:
        report = validate_paths(expanded, strict=strict, dialect=dialect, select=sel,
                                ignore=ign, sources=sources,
                                cache=False if reading.no_cache else "auto",
                                jobs=reading.jobs)
    except UsageError as exc:
        raise click.UsageError(str(exc)) from None
    except ConfigError as exc:
        raise _ConfigProblem(str(exc)) from None
    for warning in report.config_warnings:
        click.echo(f"warning: {warning}", err=True)
    notes: list[str] = []
    if baseline is not None:
        from subagents.lint.baseline import apply_baseline

        try:
            result = apply_baseline(baseline, report.diagnostics, update=update_baseline)
        except UsageError as exc:
            raise click.UsageError(str(exc)) from None
        report.diagnostics = result.kept
        if result.written:
            notes.append(f"wrote the baseline {baseline} ({_count(result.hidden, 'finding')}); "
                         "later runs report only findings it does not list")
        elif result.hidden:
            notes.append(f"{_count(result.hidden, 'known finding')} hidden by the baseline "
                         f"{baseline}")
    warnings = report.warnings
    if quiet:
        from subagents.diagnostics import Severity

        report.diagnostics = [d for d in report.diagnostics if d.severity is Severity.ERROR]
    if color is None:
        color = output_format == "text" and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    if statistics:
        click.echo(render_statistics(report, output_format), nl=False)
    else:
        summary = not quiet or report.errors > 0
        # color=True: click would strip the codes when stdout is not a terminal (--color)
        click.echo(render(report, output_format, color=bool(color), source=True,
                          summary=summary), nl=False, color=bool(color) or None)
    if not paths and report.files == 0 and output_format == "text":
        # An empty result is most often a command run in the wrong folder: say where we looked.
        if dialect in OWN_READERS:
            notes.append(f"no agent files found where {dialect} looks for them in this project "
                         "and your home folder (give a PATH to check other files)")
        else:
            dot = ".codex" if dialect == "codex-md" else ".claude"
            notes.append(
                f"no agent files found: looked for {dot}/agents here and in each parent folder "
                f"up to the git root, and in ~/{dot}/agents (give a PATH to check other files)"
            )
    exit_code = report.exit_code
    if max_warnings is not None and warnings > max_warnings:
        notes.append(f"{_count(warnings, 'warning')}, more than --max-warnings {max_warnings}")
        exit_code = max(exit_code, 1)
    for note in notes:
        click.echo(note, err=True)
    ctx = click.get_current_context()
    ctx.exit(exit_code)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


_GLOB_CHARS = frozenset("*?[")


def expand_globs(paths: tuple[str, ...]) -> list[str]:
    """PATHs with glob patterns expanded (``**`` matches any depth), for shells that pass
    them quoted (or on Windows).  A path that exists is taken as it is, even with ``*`` in
    its name; a pattern that matches nothing is a usage error.  Hidden folders match too:
    agents live in `.claude/agents`."""
    import glob

    out: list[str] = []
    for p in paths:
        if os.path.lexists(p) or not (_GLOB_CHARS & set(p)):
            out.append(p)
            continue
        matches = sorted(glob.glob(os.path.expanduser(p), recursive=True, include_hidden=True))
        if not matches:
            raise click.UsageError(f"no file matches {p!r}")
        out.extend(matches)
    return out


@click.command("schema")
@click.option("--indent", type=int, default=2, show_default=True, help="JSON indentation.")
def schema(indent: int) -> None:
    """Print the JSON Schema (draft 2020-12) of the agent frontmatter.

    Save it and point your editor's YAML language server at it, e.g. with the comment
    `# yaml-language-server: $schema=./agent.schema.json` in the frontmatter.
    """
    from subagents.lint.schema import frontmatter_schema

    click.echo(json.dumps(frontmatter_schema(), indent=indent))


@click.command("rules")
@format_option("text", "json")
def rules(output_format: str) -> None:
    """List every rule: code, name, severity by default and under --strict, and its doc.

    `subagents explain CODE` prints one rule's full documentation.
    """
    from subagents.known_tools import BUILTIN_TOOLS
    from subagents.lint.rules.catalog import RULES

    if output_format == "json":
        from subagents.lint.rules.explanations import rule_fields

        click.echo(json.dumps([rule_fields(r) for r in RULES.values()], indent=2))
        return
    for r in RULES.values():
        sev = f"{r.default or 'off'}/{r.strict or 'off'}"
        click.echo(f"{r.code}  {r.name:<34} {sev:<15} {r.doc}")
    click.echo(
        "\nseverity: default profile / --strict.  `subagents explain CODE` explains a rule, "
        "with an example and the fix.\nKnown tools: "
        + ", ".join(sorted(BUILTIN_TOOLS))
        + ", mcp__server__tool, Agent(a, b)."
    )
