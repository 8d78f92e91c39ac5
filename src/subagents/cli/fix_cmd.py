"""``subagents fix``: repair agent files in place (see :mod:`subagents.repair.fix`).

Design notes
------------
* Paths: a file is fixed whatever its location; a folder is searched recursively for ``*.md``
  agent files exactly as ``validate`` searches it (``subagents.lint.validate.iter_agent_files``:
  README/CLAUDE/SKILL.md and ``skills/`` folders are not agents), so both count the same files.
  A file *found in a folder* that has no frontmatter at all, or that is not Markdown, is
  counted and reported as skipped with the reason (it used to be left out silently, so ``fix``
  counted fewer files than ``validate``); named explicitly, a file without frontmatter is an
  error.
  No path means exactly the folders ``validate`` and ``list`` read
  (``subagents.registry.configured.scope_sources``: ``.claude/agents`` here and in each parent up to
  the git root, ``~/.claude/agents``, managed and plugin folders; ``.codex/agents`` with
  ``--dialect codex-md``).  An agents folder that is a file is reported (exit 1).
* The summary counts exactly: a file fix leaves as it is but that ``validate`` still finds
  errors in (an unknown tool, say) is "with errors fix does not repair", not "already fine".
* ``--diff`` prints a unified diff on stdout (``git apply``-able, ``a/`` and ``b/`` prefixes) and
  the per-file report on stderr, so the diff can be piped; nothing is written.
* ``--check`` writes nothing and exits 1 if any file would change (for CI and pre-commit).
* Exit codes: 0 every file is fine (or was fixed); 1 a file cannot be repaired (reader errors
  remain; it is left untouched) or, with ``--check``, a file would change; 2 usage errors.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from subagents.cli.options import dialect_option, format_option
from subagents.definition import Dialect
from subagents.diagnostics import Diagnostic
from subagents.registry.configured import chosen_claude_code
from subagents.repair.fix import FixResult, FixStatus, ToolsStyle, fix_files, fix_targets


def _display(path: Path) -> str:
    from subagents.fs import display_path

    return display_path(path)


def _scope_targets(dialect: Dialect | None) -> tuple[list[Path], list[FixResult]]:
    """With no PATH: the Markdown folders ``validate`` and ``list`` read for this directory
    (``subagents.registry.configured.scope_sources``), and a result for each that is not a
    folder."""
    from subagents.harnesses.layout import SourceKind
    from subagents.lint.validate import source_roots
    from subagents.registry.configured import scope_sources

    chosen = Dialect.CODEX_MD if dialect is Dialect.CODEX_MD else Dialect.CLAUDE
    folders = [s for s in scope_sources(dialect=chosen) if s.kind is SourceKind.FOLDER]
    roots, problems = source_roots(folders)
    broken = [
        FixResult(path=d.path, status=FixStatus.UNFIXABLE, original=b"", fixed=b"",
                  problems=(d,))
        for d in problems
    ]
    return roots, broken


def _collect(
    paths: tuple[Path, ...], dialect: Dialect | None
) -> tuple[list[tuple[Path, bool]], list[FixResult]]:
    """(file, named explicitly) pairs, each file once; and the scope folders that are broken."""
    broken: list[FixResult] = []
    if paths:
        targets = list(paths)
    else:
        targets, broken = _scope_targets(dialect)
    return fix_targets(targets), broken


@click.command(name="fix")
@click.argument("patterns", metavar="[PATHS]...", nargs=-1, type=click.Path(path_type=str))
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff; write nothing.")
@click.option(
    "--check", is_flag=True, help="Write nothing; exit 1 if any file would change (for CI)."
)
@click.option(
    "--tools-style",
    type=click.Choice(["comma", "list"]),
    default=None,
    help="Also rewrite `tools`/`disallowedTools` as a comma string or a YAML list "
    "(both are valid; without this flag their style is kept).",
)
@dialect_option(
    "claude", "codex-md", "codex", default=None,
    help="Read files as this dialect instead of guessing from their location: claude or "
    "codex-md (.codex/agents/*.md). fix repairs Markdown agents only.",
)
@format_option("text", "json", help="Report format.")
@click.pass_context
def fix(
    ctx: click.Context,
    *,
    patterns: tuple[str, ...],
    show_diff: bool,
    check: bool,
    tools_style: str | None,
    dialect: Dialect | None,
    output_format: str,
) -> None:
    """Repair agent files without changing what they mean.

    \b
    Repairs:
      * a `description` (or other text field) that breaks YAML because of an
        unquoted `: ` or `<example>` blocks: re-written as a block scalar
        (`description: |-`), its text kept exactly -- strict YAML parsers reject
        such files, and Claude Code skips some of them or cuts their description;
      * a UTF-8 byte order mark; blank lines or indentation before the opening `---`;
        trailing spaces after a `---` delimiter;
      * with --tools-style, the style of `tools` / `disallowedTools`.
    Line endings, comments and every other byte stay as they are.  Each repair is
    verified by reading the result back; a file that cannot be repaired is left
    untouched and reported (exit 1).  Writes are atomic and keep the file mode.

    \b
    Examples:
      subagents fix                      # the agents `subagents list` sees
      subagents fix --diff agent.md      # show the change, write nothing
      subagents fix --check .claude/     # CI: exit 1 if anything would change
      subagents fix '.claude/**/*.md'    # globs are expanded, quoted or not
    """
    from subagents.cli.validate_cmd import expand_globs

    paths = tuple(Path(p) for p in expand_globs(patterns))
    missing = [str(p) for p in paths if not p.exists() and not p.is_symlink()]
    if missing:
        raise click.UsageError(f"no such file or folder: {', '.join(missing)}")
    style: ToolsStyle | None = (
        "comma" if tools_style == "comma" else ("list" if tools_style == "list" else None)
    )
    if dialect is Dialect.CODEX:
        raise click.UsageError(
            "fix repairs Markdown agents; the Codex CLI's TOML agents are checked by "
            "`subagents validate --dialect codex`. For .codex/agents/*.md use --dialect codex-md")
    chosen = dialect
    write = not (show_diff or check)
    targets, results = _collect(paths, chosen)
    run = fix_files(targets, write=write, tools_style=style, dialect=chosen, display=_display,
                    claude_code=lambda path: chosen_claude_code(path.parent))
    results += run.results
    remaining = run.remaining

    fixed = [r for r in results if r.status is FixStatus.FIXED]
    unfixable = [r for r in results if r.status is FixStatus.UNFIXABLE]
    if output_format == "json":
        n_unchanged = sum(r.status is FixStatus.UNCHANGED for r in results)
        payload = {
            "summary": {
                "files": len(results),
                "fixed": len(fixed),
                "unfixable": len(unfixable),
                "unchanged": n_unchanged,
                # of the unchanged: files whose errors are not fix's to repair
                "unchanged_with_errors": len(remaining),
                "skipped": sum(r.status is FixStatus.SKIPPED for r in results),
                "written": write,
            },
            "files": [
                {
                    **r.to_dict(),
                    **({"diff": r.diff()} if show_diff else {}),
                    **(
                        {"errors": [d.to_dict() for d in remaining[r.path]]}
                        if r.path in remaining
                        else {}
                    ),
                }
                for r in results
            ],
        }
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        _report_text(results, remaining, show_diff=show_diff, write=write)
    if unfixable or (check and fixed):
        ctx.exit(1)


def _report_text(
    results: list[FixResult],
    remaining: dict[str, list[Diagnostic]],
    *,
    show_diff: bool,
    write: bool,
) -> None:
    # With --diff the diff owns stdout; the report goes to stderr.
    def say(text: str) -> None:
        click.echo(text, err=show_diff)

    verb = "fixed" if write else "would fix"
    for r in results:
        if r.status is FixStatus.FIXED:
            if show_diff:
                click.echo(r.diff(), nl=False)
            say(f"{verb}: {r.path}")
            for c in r.changes:
                where = f"line {c.line}: " if c.line else ""
                say(f"    {where}{c.message}")
        elif r.status is FixStatus.UNFIXABLE:
            say(f"cannot repair (left untouched): {r.path}")
            if r.why is not None:
                say(f"    why: {r.why}")
            for p in r.problems:
                say("    " + p.format_text().replace("\n", "\n    "))
        elif r.path in remaining:
            codes = ", ".join(dict.fromkeys(d.rule for d in remaining[r.path]))
            say(f"nothing to repair, but errors remain: {r.path} ({codes}; "
                f"`subagents validate {r.path}` explains)")
        elif r.status is FixStatus.SKIPPED:
            reason = r.why or (r.problems[0].message if r.problems
                               else "not a Markdown agent file (fix repairs those only)")
            say(f"skipped: {r.path}: {reason}")
        for note in r.notes:
            say(f"    note: {note}")
    n_fixed = sum(r.status is FixStatus.FIXED for r in results)
    n_bad = sum(r.status is FixStatus.UNFIXABLE for r in results)
    n_same = sum(r.status is FixStatus.UNCHANGED and r.path not in remaining for r in results)
    parts = [f"{n_fixed} {verb}", f"{n_bad} cannot be repaired"]
    if remaining:
        parts.append(f"{len(remaining)} with errors fix does not repair")
    parts.append(f"{n_same} already fine")
    n_skipped = sum(r.status is FixStatus.SKIPPED for r in results)
    if n_skipped:
        parts.append(f"{n_skipped} skipped")
    say(f"{len(results)} file(s): " + ", ".join(parts))

