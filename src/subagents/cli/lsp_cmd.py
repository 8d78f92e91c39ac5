"""``subagents lsp``: the language server, on stdin and stdout.

Design notes
------------
* The server lives in :mod:`subagents.lsp`; this module only parses the options, and imports
  pygls (through :mod:`subagents.lsp.server`) only when the command runs, so ``subagents
  --help`` and ``subagents validate`` never load it.
* ``--stdio`` is accepted and changes nothing: several editors (VS Code's client library,
  Claude Code plugins written for other servers) pass it by habit.
"""

from __future__ import annotations

import click


@click.command(
    "lsp",
    epilog="Editors start it themselves; the README shows the set-up for VS Code, Neovim, "
    "Zed, JetBrains IDEs and Claude Code.",
)
@click.option("--stdio", is_flag=True, help="Talk over stdin/stdout (the default and only "
              "transport; accepted for editors that pass it).")
@click.option("--strict", is_flag=True, help="Check documents with the --strict profile.")
@click.option("--debounce", type=click.FloatRange(min=0, max=10), default=0.2,
              show_default=True, metavar="SECONDS",
              help="Wait this long after the last change before checking a document.")
def lsp(stdio: bool, strict: bool, debounce: float) -> None:
    """Run the language server: diagnostics, fixes, hover and completion for agent files.

    It checks every harness's agent files with the same rules and configuration as
    `subagents validate`, as you type.
    """
    del stdio
    from subagents.lsp.server import serve

    serve(debounce=debounce, strict=strict)
