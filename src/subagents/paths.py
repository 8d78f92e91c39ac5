"""How a path is printed: one spelling in every command and output format.

Design notes
------------
* Inside the working folder: relative (``.claude/agents/x.md``); under the home folder:
  ``~/...`` (``~/.claude/agents/x.md``); anywhere else: absolute.  No ``../`` chains: they
  change meaning with the working folder and are hard to read.
* The text is for people *and* programs: ``os.path.expanduser`` turns every spelling back
  into a path that opens (:func:`open_path` does it), so JSON consumers, the source snippet
  of ``validate``, baselines and SARIF read the file the path names.
* A path the user typed is printed as typed (``validate agents/x.md``): that is the
  ``validate --format json`` contract, and the user knows that spelling.  This module is for
  paths the program found itself (scope folders, the registry, ``new``, ``fix``, ``convert``).
* Nothing is resolved: a symlinked folder keeps the name the user sees.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["display_path", "open_path"]


def display_path(
    path: str | os.PathLike[str], cwd: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
) -> str:
    """``path`` relative to ``cwd`` when inside it, ``~/...`` under ``home``, else absolute."""
    full = os.path.abspath(os.fspath(path))
    base = os.path.abspath(os.fspath(cwd)) if cwd is not None else os.getcwd()
    if full == base:
        return "."
    if _inside(full, base):
        return os.path.relpath(full, base)
    home_dir = os.fspath(home) if home is not None else (
        os.environ.get("HOME") or str(Path.home()))
    home_dir = os.path.abspath(home_dir) if home_dir else ""
    if home_dir and home_dir != os.sep:
        if full == home_dir:
            return "~"
        if _inside(full, home_dir):
            return "~" + os.sep + os.path.relpath(full, home_dir)
    return full


def open_path(shown: str) -> str:
    """The openable path for a printed one (``~`` expanded)."""
    return os.path.expanduser(shown)


def _inside(path: str, folder: str) -> bool:
    prefix = folder if folder.endswith(os.sep) else folder + os.sep
    return path.startswith(prefix)
