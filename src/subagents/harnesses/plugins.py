"""Which plugin an agent file belongs to: the plugin manifest's name and agent paths.

Split from :mod:`subagents.harnesses.layout` so that ``validate`` asks "is this file a plugin's
agent?" for every file it reads without importing the scope planner and the folder scan
(``subagents validate one.md`` at the prompt pays for every module it imports).
:mod:`subagents.harnesses.layout` re-exports these names.
"""

from __future__ import annotations

import json
import os
import posixpath
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

__all__ = ["plugin_agent_paths", "plugin_namespace", "plugin_of", "plugins_pinned"]


def _manifest(plugin_dir: Path) -> dict[str, object]:
    try:
        data = json.loads((plugin_dir / ".claude-plugin" / "plugin.json").read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def plugin_namespace(plugin_dir: Path) -> str:
    """A plugin's name: ``.claude-plugin/plugin.json`` ``name`` if readable, else the folder."""
    name = _manifest(plugin_dir).get("name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    return plugin_dir.resolve().name or "plugin"


def plugin_agent_paths(plugin_dir: Path) -> list[Path]:
    """Where a plugin's agents are: ``agents/``, or what the manifest's ``agents`` names.

    Measured on 2.1.332: a manifest ``agents`` entry (a path or a list of paths, relative to the
    plugin folder) *replaces* ``agents/`` -- that folder is then not read at all.
    """
    listed = _manifest(plugin_dir).get("agents")
    entries = [listed] if isinstance(listed, str) else listed if isinstance(listed, list) else None
    if entries is None:
        return [plugin_dir / "agents"]
    return [plugin_dir / e for e in entries if isinstance(e, str) and e.strip()]


# Inside :func:`plugins_pinned` (one ``validate`` run): a file's folder -> the plugin
# folder above it and its agent paths (None: no plugin above), and a plugin folder -> its name.
# ``validate`` asks :func:`plugin_of` for every file, and the files of one folder share the
# walk up to ``/`` (a ``stat`` per parent) and the manifest reads.
_PluginMemo = tuple[dict[str, "tuple[str, tuple[str, ...]] | None"], dict[str, str]]
_PLUGIN_MEMO: ContextVar[_PluginMemo | None] = ContextVar("subagents_plugin_memo", default=None)


@contextmanager
def plugins_pinned() -> Iterator[None]:
    """Within the block, :func:`plugin_of` walks up from each folder and reads each plugin's
    manifest once (a run over many files sees one layout)."""
    if _PLUGIN_MEMO.get() is not None:  # nested: the outer run's answers stand
        yield
        return
    token = _PLUGIN_MEMO.set(({}, {}))
    try:
        yield
    finally:
        _PLUGIN_MEMO.reset(token)


def _plugin_above(folder: str) -> tuple[str, tuple[str, ...]] | None:
    """The nearest folder at or above ``folder`` holding ``.claude-plugin/plugin.json``, with
    its agent paths (absolute), else None."""
    while True:
        if os.path.isfile(os.path.join(folder, ".claude-plugin", "plugin.json")):
            return folder, tuple(os.path.abspath(p) for p in plugin_agent_paths(Path(folder)))
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


_POSIX = os.path is posixpath


def plugin_of(path: Path, absolute: str | None = None) -> str | None:
    """The name of the plugin whose agent ``path`` is (the nearest folder above it holding
    ``.claude-plugin/plugin.json``, when one of its agent paths holds the file), else None.
    ``absolute``: ``os.path.abspath(path)``, when the caller has it (validate does)."""
    # plain strings and os.path: validate asks this for every file it reads
    here = absolute if absolute is not None else os.path.abspath(path)
    memo = _PLUGIN_MEMO.get()
    if memo is None:
        found = _plugin_above(os.path.dirname(here))
    else:
        # keyed by the text up to the last separator, of which ``dirname`` is a function
        # (it strips that text's trailing separators): one slice, not a call, per file
        head = here[: here.rfind("/") + 1] if _POSIX else os.path.dirname(here)
        if head in memo[0]:
            found = memo[0][head]
        else:
            found = memo[0][head] = _plugin_above(os.path.dirname(here))
    if found is None:
        return None
    root, wheres = found
    for where in wheres:
        if here == where or here.startswith(where.rstrip(os.sep) + os.sep):
            if memo is None:
                return plugin_namespace(Path(root))
            name = memo[1].get(root)
            if name is None:
                name = memo[1][root] = plugin_namespace(Path(root))
            return name
    return None
