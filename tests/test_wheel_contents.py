"""The wheel ships the product and not the development tools: the conformance recorder
(``subagents.conformance``: its cases, CLI runners and recordings) stays in the repository,
where ``python -m subagents.conformance`` runs from a checkout; the data the product reads at
run time (each Claude Code version's profile, the templates, the rules' documentation,
``py.typed``) is in the wheel, and the product runs from the wheel alone."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "subagents"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout, built from a copy in a temporary folder (a build writes
    build/ and *.egg-info next to the sources; the checkout is left alone)."""
    work = tmp_path_factory.mktemp("wheel")
    shutil.copytree(ROOT / "src", work / "src", ignore=shutil.ignore_patterns(
        "__pycache__", "*.egg-info", "*.pyc", "*.so"))  # (the build compiles its own)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, work / name)
    out = work / "dist"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(out),
         str(work)], capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = out.glob("subagents-*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel(built: Path) -> zipfile.ZipFile:
    return zipfile.ZipFile(built)


def test_the_recorder_is_not_in_the_wheel(wheel: zipfile.ZipFile) -> None:
    recorder = [n for n in wheel.namelist() if n.startswith("subagents/conformance/")
                and not n.startswith("subagents/conformance/data/claude-code-")]
    assert recorder == []
    assert not [n for n in wheel.namelist() if n.startswith("subagents/conformance/")
                and n.endswith(".py")]


def test_the_product_and_its_data_are_in_the_wheel(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    wanted = {f"subagents/{p.relative_to(PACKAGE).as_posix()}" for p in PACKAGE.rglob("*.py")
              if "conformance" not in p.relative_to(PACKAGE).parts}
    assert wanted - names == set()
    for data in ("subagents/py.typed", "subagents/lint/rules/explanations.toml"):
        assert data in names, data
    templates = {f"subagents/templates/{p.name}" for p in (PACKAGE / "templates").glob("*.md")}
    assert templates and templates <= names
    # what claude_code/profile.py reads: every recorded version's profile
    profiles = {f"subagents/conformance/data/{p.name}"
                for p in (PACKAGE / "conformance" / "data").glob("claude-code-*-profile.json")}
    assert profiles and profiles <= names


def test_nothing_in_the_wheel_imports_the_recorder(wheel: zipfile.ZipFile) -> None:
    """The recorder left the wheel, so no shipped module may import it (not even lazily)."""
    for name in wheel.namelist():
        if not name.endswith(".py"):
            continue
        tree = ast.parse(wheel.read(name).decode("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("subagents.conformance"), name
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("subagents.conformance")
                               for a in node.names), name


def test_the_product_runs_from_the_wheel_alone(wheel: zipfile.ZipFile, tmp_path: Path) -> None:
    """Unpacked on its own (the dependencies from this environment): validate and explain
    work, reading the Claude Code profile from the wheel; the recorder is not there."""
    site = tmp_path / "site"
    wheel.extractall(site)
    agent = tmp_path / ".claude" / "agents" / "reviewer.md"
    agent.parent.mkdir(parents=True)
    agent.write_text("---\nname: reviewer\ndescription: Reviews diffs for bugs.\n"
                     "tools: Read, Nope\n---\nYou review diffs.\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(site)}
    env.pop("SUBAGENTS_CLAUDE_CODE_DATA", None)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=120, check=False)

    where = run("-c", "import subagents; print(subagents.__file__)")
    assert where.stdout.strip().startswith(str(site)), where.stdout + where.stderr
    checked = run("-m", "subagents", "validate", str(agent))
    assert checked.returncode == 1 and "SA104" in checked.stdout, checked.stdout + checked.stderr
    assert "Claude Code 2.1." in checked.stdout  # the message names the profile's version
    assert run("-m", "subagents", "explain", "GM004").returncode == 0
    # only the profiles' data folder is there: no recorder to run or import
    gone = run("-m", "subagents.conformance", "--help")
    assert gone.returncode != 0 and "subagents.conformance" in gone.stderr
    assert run("-c", "from subagents.conformance import cases").returncode != 0


def test_the_recorder_runs_from_a_checkout() -> None:
    done = subprocess.run([sys.executable, "-m", "subagents.conformance", "--help"],
                          capture_output=True, text=True, timeout=120, check=False, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert done.returncode == 0, done.stderr
    assert "record" in done.stdout


def test_the_compiled_collapse_is_in_the_wheel_where_it_builds(wheel: zipfile.ZipFile) -> None:
    """Where this checkout's own install compiled the optional extension (a C compiler and
    the Python headers are here), the wheel built from the same sources carries it too."""
    import importlib.util

    if importlib.util.find_spec("subagents._speedups") is None:
        pytest.skip("this install has no compiled extension (no C compiler when it was made)")
    assert [n for n in wheel.namelist()
            if n.startswith("subagents/_speedups") and n.endswith(".so")]
