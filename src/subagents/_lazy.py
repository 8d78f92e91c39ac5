"""Lazy re-exports for package namespaces: a name's module is imported on first use.

``import subagents`` and ``import subagents.registry`` must stay cheap (``validate`` must not
pay for the runtime, the providers or the MCP server), yet each namespace offers its public
names.  :func:`lazy_exports` builds the module-level ``__getattr__`` and ``__dir__`` for that.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str],
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``exports`` maps a name to its module."""

    def __getattr__(name: str) -> Any:
        module_name = exports.get(name)
        if module_name is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module_name), name)
        setattr(sys.modules[package], name, value)  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
