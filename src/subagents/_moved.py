"""Old module paths keep working after the package re-layout.

Modules that used to sit flat at the top of the package now live in packages that say what
they own (``subagents.validate`` is ``subagents.lint.validate``, ``subagents.fix`` is
``subagents.repair.fix``, ...).  Code written against the old paths, and the documented
imports, must keep working, and must get *the same module object* (a second copy would have
its own classes, so ``isinstance`` and ``except`` would silently stop matching).

A meta-path finder does it: asked for an old name (or anything below an old package), it
imports the new module and hands back that very object, so ``sys.modules`` holds one module
under both names.  Nothing is imported until an old name is asked for, and no file is left at
the old place.  ``tests/test_public_api.py`` checks every entry.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
from collections.abc import Sequence
from types import CodeType, ModuleType
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

__all__ = ["MOVED", "install"]

# old dotted name -> new dotted name (a package entry covers its submodules)
MOVED: dict[str, str] = {
    "subagents.baseline": "subagents.lint.baseline",
    "subagents.config": "subagents.lint.config",
    "subagents.convert": "subagents.repair.convert",
    "subagents.discovery": "subagents.harnesses.layout",
    "subagents.fix": "subagents.repair.fix",
    "subagents.fix_yaml": "subagents.repair.fix_yaml",
    "subagents.fsread": "subagents.fs",
    "subagents.loader": "subagents.harnesses.loader",
    "subagents.mcp_server": "subagents.store.mcp_server",
    "subagents.paths": "subagents.fs",
    "subagents.registry_records": "subagents.registry.records",
    "subagents.report": "subagents.lint.report",
    "subagents.rules": "subagents.lint.rules",
    "subagents.runtime.orchestrator": "subagents.dispatch.main_thread",
    "subagents.runtime.pipeline": "subagents.dispatch.pipeline",
    "subagents.runtime.teams": "subagents.dispatch.teams",
    "subagents.runtime.trust": "subagents.lint.trust",
    "subagents.schema": "subagents.lint.schema",
    "subagents.store_file": "subagents.store.file",
    "subagents.testing_server": "subagents.testing.server",
    "subagents.validate": "subagents.lint.validate",
    "subagents.watching": "subagents.registry.watch",
}


def _target(fullname: str) -> str | None:
    if fullname in MOVED:
        return MOVED[fullname]
    head, _, _ = fullname.rpartition(".")
    while head:
        if head in MOVED:
            return MOVED[head] + fullname[len(head):]
        head, _, _ = head.rpartition(".")
    return None


class _Alias:
    """A loader (duck-typed: ``importlib.abc`` costs ~10 ms of start-up to import)."""

    def __init__(self, target: str) -> None:
        self.target = target
        self._spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.target)
        self._spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """The module ran when it was imported under its own name.  The import system has
        just given it the alias's spec: give its own back, or ``importlib.resources`` (the
        rule explanations, the templates) cannot find its files any more."""
        if self._spec is not None:
            module.__spec__ = self._spec

    def get_code(self, fullname: str) -> CodeType | None:
        """For ``python -m old.name``: the new module's code, run as ``__main__``."""
        import importlib.util

        spec = importlib.util.find_spec(self.target)
        loader = spec.loader if spec is not None else None
        get_code = getattr(loader, "get_code", None)
        return get_code(self.target) if get_code is not None else None


class _MovedFinder:
    """A meta-path finder (duck-typed, for the same reason)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        new = _target(fullname)
        if new is None:
            return None
        module = sys.modules.get(new)
        is_package = module is not None and hasattr(module, "__path__")
        loader = cast("Loader", _Alias(new))  # a Loader in all but the base class
        return importlib.machinery.ModuleSpec(fullname, loader, is_package=is_package)


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())
