"""Text shown on a terminal: the one terminal-safe printer.

A string the program did not write itself (a command a model wants to run, a tool's output,
an agent's name or description, an MCP server's tool description) can hold bytes the
terminal obeys: ``\\r`` and an erase-line escape make ``rm -rf ~`` show as ``ls -la`` in a
permission question, OSC 52 writes the clipboard, C1 controls (``\\x9b`` is a one-byte CSI)
do the same on terminals that honour them, bidirectional overrides reorder what is read.
:func:`safe` spells each such character out (``\\x1b``, ``\\r``, ``\\u202e``), so what the
user reads is what is there; :func:`echo` prints through it.

Newlines and tabs stay by default (multi-line output stays readable); ``one_line=True``
escapes them too (the permission question shows a command exactly, on one line).
Standard output that is not a terminal is a program's input: :func:`echo` leaves it as is
there unless asked, so ``run ... > out.txt`` keeps the model's bytes.
"""

from __future__ import annotations

import re
import sys
from typing import IO

__all__ = ["echo", "safe"]

# C0 controls but tab and newline, DEL, C1, the bidirectional controls, the line and
# paragraph separators (which some terminals and editors break lines at).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                     "\u202a-\u202e\u2066-\u2069]")
_UNSAFE_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                              "\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\r": "\\r", "\n": "\\n", "\t": "\\t", "\x1b": "\\x1b"}


def _spell(m: re.Match[str]) -> str:
    ch = m.group()
    named = _NAMED.get(ch)
    if named:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def safe(text: object, *, one_line: bool = False) -> str:
    """``text`` with every character a terminal would obey spelled out; a backslash that
    starts such a spelling is left alone (the text is for reading, not for parsing back)."""
    s = text if isinstance(text, str) else str(text)
    return (_UNSAFE_ONE_LINE if one_line else _UNSAFE).sub(_spell, s)


def echo(text: object = "", *, err: bool = False, nl: bool = True,
         always: bool = False) -> None:
    """Print ``text`` made :func:`safe` — on standard error always (people read it), on
    standard output when it is a terminal or ``always``."""
    import click

    stream: IO[str] = sys.stderr if err else sys.stdout
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    s = text if isinstance(text, str) else str(text)
    click.echo(safe(s) if (err or tty or always) else s, err=err, nl=nl)
