"""``subagents validate FILE ...`` without click: the pre-commit case, at start-up cost.

Design notes
------------
* A pre-commit hook runs ``subagents validate`` with the staged file names, once per batch,
  often on one file: there the interpreter start and the imports are most of the time, and
  click (with what it imports: ``uuid``, ``platform``, ``datetime``...) is about a tenth of it.
  This module answers exactly that command line -- ``validate``, then existing paths, with
  ``--strict`` allowed anywhere -- and returns ``None`` for anything else, so that the click
  command (:mod:`subagents.cli.validate_cmd`) handles it.
* It is the click command's own path, not a second implementation of it: the same
  :func:`~subagents.lint.validate.validate_paths` call with the defaults the command passes,
  the same :func:`~subagents.lint.report.render` call, the same stderr lines, the same exit
  code (tests/test_quick_validate.py compares the two on many inputs).  Whatever could make
  the command say something else -- a path that does not exist or needs glob expansion, a
  broken configuration, an option -- falls back to click before anything is printed.
* Text goes to stdout as ``click.echo`` writes it: ANSI sequences are dropped when stdout is
  not a terminal (a file's own escape sequences included), and colour is used only on a
  terminal without ``NO_COLOR``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from subagents._lazy_re import lazy_compile

__all__ = ["quick_validate"]

# click.termui's ANSI pattern: what click.echo strips when stdout is not a terminal
_ANSI = lazy_compile(r"\033\[[;?0-9]*[a-zA-Z]")


def quick_validate(args: Sequence[str]) -> int | None:
    """The exit code of ``subagents validate`` for ``args`` when it is a plain list of
    existing paths (output written); ``None`` when the click command must handle it."""
    if len(args) < 2 or args[0] != "validate":
        return None
    strict = False
    paths: list[str] = []
    for arg in args[1:]:
        if arg == "--strict":
            strict = True
        elif arg.startswith("-") or not arg or not os.path.lexists(arg):
            return None
        else:
            paths.append(arg)
    if not paths:
        return None
    import gc

    from subagents._deferred_import import import_deferring
    from subagents.errors import SubagentError

    try:
        # Importing the validator builds thousands of long-lived objects and no garbage: the
        # cyclic collector would walk them again and again for nothing.  Off while importing,
        # then those objects are set aside (frozen) so later collections skip them.
        gc.disable()
        try:
            # dataclasses and urllib.parse (for pathlib) without what they need only in a rare
            # case: inspect (with ast, dis, tokenize), ipaddress (see the module)
            import_deferring("dataclasses", "inspect")
            import_deferring("urllib.parse", "ipaddress")
            # (the injection detector too: the first prompt would import it with the collector on)
            import subagents.lint.rules.injection  # noqa: F401
            from subagents.lint.report import render
            from subagents.lint.validate import validate_paths
        finally:
            gc.freeze()
            gc.enable()

        # jobs as the command's --jobs auto (one file never imports the parallel module),
        # and its result cache (opened for eight files or more: one file never imports it)
        report = validate_paths(paths, strict=strict, dialect=None, select=(), ignore=(),
                                sources=None, jobs=None, cache="auto")
    except (SubagentError, ImportError):
        return None  # the click command says it, as it always has
    for warning in report.config_warnings:
        sys.stderr.write(f"warning: {warning}\n")
    sys.stderr.flush()
    tty = sys.stdout.isatty()
    color = tty and not os.environ.get("NO_COLOR")
    text = render(report, "text", color=color, source=True, summary=True)
    if not tty:
        text = _ANSI.sub("", text)
    sys.stdout.write(text)
    sys.stdout.flush()
    return report.exit_code
