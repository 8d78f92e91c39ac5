"""The package layers have one direction, and no two packages import each other.

Layers, highest first (``|`` separates packages of one layer, which must not import each
other).  A module may import its own package and any lower layer, never a higher one.  Every
import counts, including the lazy ones inside functions and those under ``TYPE_CHECKING``:
a lazy back-edge is still a back-edge a refactor trips over.  ``docs/architecture.md`` draws
the same picture.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "subagents"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("__main__",),
    ("cli", "conformance"),
    ("store", "dispatch", "lsp", "batch"),
    ("runtime",),
    ("providers", "registry", "repair", "testing"),
    ("lint",),
    ("harnesses",),
    ("claude_code",),
    ("formats",),
    ("definition", "diagnostics", "errors", "names", "fs", "fs_beneath", "known_tools", "_deps",
     "_lazy", "_lazy_re", "_dataclass", "_deferred_import", "_dataclass_code",
     "_dataclass_codegen", "_yaml_start", "templates", "terminal",
     "_speedups", "_native"),  # (the optional C extension: imported by name, `from subagents._speedups`)
)
# Pairs that share a layer yet may depend one way (a package of its own layer is independent
# unless it is listed here).
ALLOWED_SIDEWAYS: frozenset[tuple[str, str]] = frozenset({
    ("conformance", "cli"),  # the recorder reuses nothing of the CLI, but may print like it
    ("testing", "providers"),  # the testing kit is built on the provider interface only
    ("definition", "errors"), ("diagnostics", "errors"), ("errors", "diagnostics"),
    ("_deps", "errors"), ("fs", "errors"), ("fs", "fs_beneath"), ("known_tools", "errors"), ("_lazy", "errors"),
    # the cheaper dataclass decorator (subagents/_dataclass.py) for the modules of `validate`
    ("definition", "_dataclass"), ("diagnostics", "_dataclass"), ("names", "_dataclass"),
    ("known_tools", "_dataclass"), ("_dataclass", "_dataclass_code"),
    ("_dataclass_codegen", "_dataclass_code"), ("_dataclass_codegen", "fs"),
    # module-level patterns compiled on first use (subagents/_lazy_re.py)
    ("names", "_lazy_re"), ("known_tools", "_lazy_re"),
})
# What the testing kit may import: the provider interface and the core, nothing else.
TESTING_MAY_IMPORT = frozenset({"providers", "errors", "diagnostics", "definition", "testing"})


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _is_unit(root: Path, name: str) -> bool:
    return (root / f"{name}.py").exists() or (root / name / "__init__.py").exists()


@functools.lru_cache(maxsize=8)
def import_graph(root: Path = SRC) -> dict[tuple[str, str], list[str]]:
    """(importer unit, imported unit) -> the modules where that import is written."""
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in root.rglob("*.py"):
        rel = path.relative_to(root.parent).with_suffix("")
        module = ".".join(rel.parts)
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        module = module.removesuffix(".__init__")
        source_unit = _unit(module)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    names = [".".join([*base, *([node.module] if node.module else [])])]
                else:
                    names = [node.module or ""]
                if names == ["subagents"]:  # from subagents import x: a module, or a name
                    names = [f"subagents.{alias.name}" if _is_unit(root, alias.name)
                             else "subagents" for alias in node.names]
            for name in names:
                if name.startswith("subagents."):
                    target = _unit(name)
                    if target != source_unit:
                        edges[(source_unit, target)].append(module)
    return edges


def layer_of(unit: str) -> int:
    for index, layer in enumerate(LAYERS):
        if unit in layer:
            return index
    raise KeyError(unit)


def back_edges(edges: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Imports that go up a layer, or sideways without being allowed."""
    bad = []
    for importer, imported in edges:
        if "__init__" in (importer, imported):
            continue  # the curated namespace re-exports every layer, lazily
        a, b = layer_of(importer), layer_of(imported)
        if a > b or (a == b and (importer, imported) not in ALLOWED_SIDEWAYS):
            bad.append((importer, imported))
    return sorted(bad)


def cycles(edges: Mapping[tuple[str, str], object]) -> list[tuple[str, str]]:
    pairs = set(edges)
    return sorted((a, b) for a, b in pairs if (b, a) in pairs and a < b)


def test_every_package_has_a_layer() -> None:
    units = {unit for edge in import_graph() for unit in edge} - {"__init__"}
    on_disk = {p.stem if p.is_file() else p.name for p in SRC.iterdir()
               if (p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists()))}
    missing = [u for u in sorted(units | (on_disk - {"__init__"}))
               if not any(u in layer for layer in LAYERS)]
    assert missing == []


def test_imports_follow_the_layers() -> None:
    edges = import_graph()
    found = {edge: sorted(set(edges[edge])) for edge in back_edges(edges)}
    assert found == {}


def test_no_two_packages_import_each_other() -> None:
    assert cycles(import_graph()) == []


def test_the_testing_kit_imports_only_the_provider_interface() -> None:
    used = {imported for importer, imported in import_graph() if importer == "testing"}
    assert used <= TESTING_MAY_IMPORT, used - TESTING_MAY_IMPORT


@pytest.mark.parametrize(("importer", "imported"), [
    ("formats", "cli"),  # a reader reaching for the command line
    ("runtime", "dispatch"),  # one run reaching for the thing that composes runs
    ("lint", "registry"),  # a rule reaching for the registry
    ("providers", "runtime"),
])
def test_a_back_edge_would_fail(tmp_path: Path, importer: str, imported: str) -> None:
    """The check is not vacuous: a tree with one planted back-edge fails it."""
    root = tmp_path / "subagents"
    for unit in (importer, imported):
        (root / unit).mkdir(parents=True)
        (root / unit / "__init__.py").write_text("")
    (root / "__init__.py").write_text("")
    (root / importer / "bad.py").write_text(
        f"def later():\n    from subagents.{imported} import x\n")
    edges = import_graph(root)
    assert back_edges(edges) == [(importer, imported)]
