"""The validate result cache: the same output cold, warm and without it, whatever the cache holds.

Every test points ``SUBAGENTS_CACHE_DIR`` at its own tmp folder.  A warm run is shown to use
the cache (the per-file validator is made to fail), so the comparisons are between a cached
and an uncached answer, not twice the same work.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from corpus_helpers import CORPUS, needs_corpus
from subagents.cli.main import cli
from subagents.lint import cache as cache_mod
from subagents.lint import validate as validate_mod
from subagents.lint.cache import ResultCache

AGENT = """---
name: {name}
description: {description}
tools: Read, Grep{extra}
---
You review code and report problems with file and line.
"""


def _project(root: Path) -> Path:
    """Eight files: the command line opens the cache for eight or more (``CACHE_FILES``)."""
    agents = root / ".claude" / "agents"
    agents.mkdir(parents=True)
    files = {
        "reviewer.md": ("reviewer", "Reviews Python code for bugs and style problems", ""),
        "reviewer-copy.md": ("reviewer", "Reviews Python code for bugs and style problems", ""),
        "checker.md": ("checker", "Reviews Python code for bugs and style issues", ", Bogus"),
        "writer.md": ("writer", "Writes release notes from the git log", ""),
        "planner.md": ("planner", "Plans a change before anyone writes code", ""),
        "tester.md": ("tester", "Runs the test suite and explains each failure", ""),
    }
    for fname, (name, desc, extra) in files.items():
        (agents / fname).write_text(AGENT.format(name=name, description=desc, extra=extra))
    (agents / "broken.md").write_text("---\nname: [unclosed\n---\nbody\n")
    (agents / "quiet.md").write_text(
        "---\nname: quiet\ndescription: Writes release notes from the git log\n"
        "model: gpt-nine  # subagents: ignore[SA105]\n---\nbody\n")
    return agents


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("SUBAGENTS_CACHE_DIR", str(folder))
    return folder


def _run(*args: str) -> dict[str, object]:
    r = CliRunner().invoke(cli, ["validate", "--format", "json", *args])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.output
    assert "Traceback" not in r.output
    data: dict[str, object] = json.loads(r.stdout)
    return data


def _no_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_a: object, **_k: object) -> object:
        raise AssertionError("a file was validated again although unchanged")

    monkeypatch.setattr(validate_mod, "_read_file", fail)


def test_warm_run_uses_the_cache_and_says_the_same(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agents = _project(tmp_path)
    fresh = _run("--no-cache", str(agents))
    assert not cache.exists()  # --no-cache writes nothing
    cold = _run(str(agents))
    assert list(cache.glob("*.json"))
    rules = {d["rule"] for d in fresh["diagnostics"]}  # type: ignore[union-attr,index]
    assert {"SA601", "SA602"} <= rules  # the cross-file rules have something to say
    with monkeypatch.context() as m:
        _no_reading(m)
        warm = _run(str(agents))
    assert fresh == cold == warm


def test_cross_file_rules_follow_an_edit_of_one_file(tmp_path: Path, cache: Path) -> None:
    agents = _project(tmp_path)
    _run(str(agents))
    (agents / "reviewer-copy.md").write_text(
        AGENT.format(name="other", description="Plans database migrations", extra=""))
    warm = _run(str(agents))
    assert warm == _run("--no-cache", str(agents))
    assert "SA601" not in {d["rule"] for d in warm["diagnostics"]}  # type: ignore[union-attr,index]


def test_an_edit_within_the_same_mtime_is_caught_by_the_hash(tmp_path: Path, cache: Path) -> None:
    agents = _project(tmp_path)
    target = agents / "writer.md"
    before = os.stat(target)
    _run(str(agents))
    text = target.read_text()
    edited = text.replace("Grep", "Grap")  # same size, same inode
    assert len(edited) == len(text)
    target.write_text(edited)
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(target)
    assert (after.st_mtime_ns, after.st_size, after.st_ino) == (
        before.st_mtime_ns, before.st_size, before.st_ino)
    warm = _run(str(agents))
    assert warm == _run("--no-cache", str(agents))
    assert any("Grap" in d["message"] for d in warm["diagnostics"])  # type: ignore[union-attr,index]


def test_a_config_change_between_runs(tmp_path: Path, cache: Path) -> None:
    agents = _project(tmp_path)
    first = _run(str(agents))
    (tmp_path / ".subagents.toml").write_text('ignore = ["SA602"]\n')
    second = _run(str(agents))
    assert second == _run("--no-cache", str(agents))
    assert second != first
    assert "SA602" not in {d["rule"] for d in second["diagnostics"]}  # type: ignore[union-attr,index]
    # and the command line's filter is part of the key too
    assert _run("--select", "SA601", str(agents)) == _run("--no-cache", "--select", "SA601",
                                                          str(agents))
    assert _run("--strict", str(agents)) == _run("--no-cache", "--strict", str(agents))


@pytest.mark.parametrize("garbage", [
    b"", b"\x00\xff\xfe", b"{not json", b"[]", b'{"format": 1}',
    "corrupt-entries",
])
def test_a_corrupt_cache_file_is_ignored(
    tmp_path: Path, cache: Path, garbage: bytes | str
) -> None:
    agents = _project(tmp_path)
    expected = _run("--no-cache", str(agents))
    _run(str(agents))
    (path,) = cache.glob("*.json")
    if garbage == "corrupt-entries":  # right version, malformed entries
        data = json.loads(path.read_text())
        for i, key in enumerate(data["entries"]):
            data["entries"][key] = [None, {"k": 1}, {"d": "x"}, 7][i % 4]
        path.write_text(json.dumps(data))
    else:
        assert isinstance(garbage, bytes)
        path.write_bytes(garbage)
    assert _run(str(agents)) == expected
    assert _run(str(agents)) == expected  # and the file it rewrote is good


def test_an_unwritable_cache_folder_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agents = _project(tmp_path)
    expected = _run("--no-cache", str(agents))
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("SUBAGENTS_CACHE_DIR", str(blocker / "cache"))  # fails even as root
    assert _run(str(agents)) == expected
    assert _run(str(agents)) == expected
    read_only = tmp_path / "ro"
    read_only.mkdir()
    monkeypatch.setenv("SUBAGENTS_CACHE_DIR", str(read_only))
    _run(str(agents))
    read_only.chmod(0o500)
    try:
        for f in read_only.iterdir():
            f.chmod(0o400)
        assert _run(str(agents)) == expected
    finally:
        read_only.chmod(0o700)


def test_the_cache_file_is_a_directory(tmp_path: Path, cache: Path) -> None:
    agents = _project(tmp_path)
    expected = _run("--no-cache", str(agents))
    ResultCache([agents]).path.mkdir(parents=True)
    assert _run(str(agents)) == expected


def test_two_runs_at_once(tmp_path: Path, cache: Path) -> None:
    agents = _project(tmp_path)
    for i in range(40):  # enough files that the two runs overlap
        (agents / f"extra-{i}.md").write_text(
            AGENT.format(name=f"extra-{i}", description=f"Does task number {i} well", extra=""))
    expected = _run("--no-cache", str(agents))
    env = {**os.environ, "SUBAGENTS_CACHE_DIR": str(cache)}
    cmd = [sys.executable, "-m", "subagents", "validate", "--format", "json", str(agents)]
    for _ in range(3):
        procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
                 for _ in range(2)]
        for p in procs:
            out, err = p.communicate(timeout=300)
            assert b"Traceback" not in err
            assert json.loads(out) == expected
        (agents / "extra-0.md").write_text(  # change something between rounds
            AGENT.format(name="extra-0", description=f"Changed {_}", extra=""))
        expected = _run("--no-cache", str(agents))
    assert _run(str(agents)) == expected


@needs_corpus
def test_cold_and_warm_agree_on_the_corpus(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = _run("--no-cache", str(CORPUS))
    cold = _run(str(CORPUS))
    with monkeypatch.context() as m:
        _no_reading(m)
        warm = _run(str(CORPUS))
    assert fresh == cold == warm


def _rules(report: dict[str, object]) -> list[tuple[str, str]]:
    return [(d["rule"], d["path"]) for d in report["diagnostics"]]  # type: ignore[attr-defined]


def test_similar_descriptions_follow_an_edit(tmp_path: Path, cache: Path) -> None:
    agents = _project(tmp_path)
    first = _run(str(agents))
    assert any(r == "SA602" and p.endswith("checker.md") for r, p in _rules(first))
    (agents / "checker.md").write_text(
        AGENT.format(name="checker", description="Counts lines of shell scripts", extra=""))
    warm = _run(str(agents))
    assert warm == _run("--no-cache", str(agents))
    assert not any(r == "SA602" and p.endswith("checker.md") for r, p in _rules(warm))


@pytest.mark.parametrize("bad", [7, "x", [[0, 99, 0.9]], [["a", 1, 0.9]], [[0, 1]], {"a": 1}])
def test_corrupt_similar_pairs_are_ignored(tmp_path: Path, cache: Path, bad: object) -> None:
    agents = _project(tmp_path)
    expected = _run("--no-cache", str(agents))
    _run(str(agents))
    (path,) = cache.glob("*.json")
    data = json.loads(path.read_text())
    assert data["similar"]
    data["similar"] = dict.fromkeys(data["similar"], bad)
    path.write_text(json.dumps(data))
    assert _run(str(agents)) == expected


def test_another_harness_duplicate_ids_come_from_cached_facts(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / ".gemini" / "agents"
    folder.mkdir(parents=True)
    for name in ("a", "b"):
        (folder / f"{name}.md").write_text("---\nname: same\ndescription: Does things\n---\nx\n")
    for n in range(6):  # (eight files: the command line's cache needs that many)
        (folder / f"other{n}.md").write_text(
            f"---\nname: other-{n}\ndescription: Does thing number {n}\n---\nx\n")
    cold = _run(str(tmp_path))
    assert [r for r, _ in _rules(cold)] == ["GM012"]
    with monkeypatch.context() as m:
        _no_reading(m)
        assert _run(str(tmp_path)) == cold
    (folder / "b.md").write_text("---\nname: other\ndescription: Does things\n---\nx\n")
    warm = _run(str(tmp_path))
    assert warm == _run("--no-cache", str(tmp_path))
    assert "GM012" not in [r for r, _ in _rules(warm)]


def test_a_skill_created_between_runs_is_seen(tmp_path: Path, cache: Path) -> None:
    agents = _project(tmp_path)
    (agents / "skilled.md").write_text(
        "---\nname: skilled\ndescription: Builds React pages\nskills:\n  - react\n---\nbody\n")
    (tmp_path / ".claude" / "skills").mkdir()
    first = _run(str(agents))
    assert any(r == "SA021" for r, _ in _rules(first))
    skill = tmp_path / ".claude" / "skills" / "react"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: react\ndescription: React\n---\n")
    second = _run(str(agents))
    assert second == _run("--no-cache", str(agents))
    assert not any(r == "SA021" for r, _ in _rules(second))


def _entries(cache: Path) -> dict[str, list[object]]:
    (path,) = cache.glob("*.json")
    data: dict[str, list[object]] = json.loads(path.read_text())["entries"]
    return data


_HASH = 2  # where an entry (a list) holds the hash of the file's bytes


def test_a_cold_run_hashes_the_bytes_the_reader_read(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file the cache knows nothing of is read once (by the reader): the entry records the
    hash of those bytes, the same hash the cache computes when it reads the file itself."""
    import hashlib

    agents = _project(tmp_path)
    opened: list[object] = []
    real_open = open

    def counting(path: object, *a: object, **k: object) -> object:
        if Path(str(path)).parent != cache:
            opened.append(path)
        return real_open(path, *a, **k)  # type: ignore[call-overload]

    with monkeypatch.context() as m:
        m.setattr(cache_mod, "open", counting, raising=False)
        cold = _run(str(agents))
    assert opened == []  # not read a second time to be hashed
    entries = _entries(cache)
    assert len(entries) == 8
    for apath, entry in entries.items():
        expected = hashlib.blake2b(Path(apath).read_bytes(), digest_size=16).hexdigest()
        assert entry[_HASH] == expected == cache_mod.file_digest(Path(apath).read_bytes())
    assert cold == _run("--no-cache", str(agents))


def test_a_file_the_reader_does_not_read_is_hashed_by_the_cache(
    tmp_path: Path, cache: Path
) -> None:
    """Over the size limit the reader refuses the file unread.  Named on the command line (the
    look-up took its ``lstat``), the cache reads and hashes it itself; found by the walk (no
    ``lstat``: the entry would record the reader's ``fstat``, and there is none) it is not
    stored, and is refused again each run (an open and an ``fstat``, cheaper than hashing
    it).  Every run says the same."""
    import hashlib

    agents = _project(tmp_path)
    big = agents / "big.md"
    big.write_text("---\nname: big\ndescription: d\n---\n" + "x" * (2 << 20))
    named = [str(p) for p in sorted(agents.iterdir())]
    cold = _run(*named)
    assert "SA002" in {d["rule"] for d in cold["diagnostics"]}  # type: ignore[union-attr,index]
    entry = _entries(cache)[os.path.abspath(big)]
    assert entry[_HASH] == hashlib.blake2b(big.read_bytes(), digest_size=16).hexdigest()
    assert _run(*named) == cold == _run("--no-cache", *named)
    for folder in cache.iterdir():
        folder.unlink()
    walked = _run(str(agents))
    entries = _entries(cache)
    assert os.path.abspath(big) not in entries and len(entries) == 8
    assert _run(str(agents)) == walked == _run("--no-cache", str(agents))


class _Later:
    """``time`` as the cache sees it, a minute ahead: every file looks old when hashed, so
    only a changed stat (not the racy window) can make the next run read a file again."""

    def __getattr__(self, name: str) -> object:
        import time

        return getattr(time, name)

    @staticmethod
    def time_ns() -> int:
        import time

        return time.time_ns() + 60 * 10**9


def _validated(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The paths of the files validated from now on (not answered by the cache)."""
    read: list[object] = []
    real = validate_mod._read_file

    def counting(t: object, *a: object, **k: object) -> object:
        read.append(getattr(t, "path", None))
        return real(t, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(validate_mod, "_read_file", counting)
    return read


@pytest.mark.parametrize("when", ["after", "before"])
def test_a_file_changed_while_validated_is_validated_again(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """Written after the look-up's stat, before or after the reader read it: the entry holds
    the look-up's stat and the hash of the bytes the outcome came from; the write changed the
    stat, so the next run reads the file and compares hashes (edited after the read: they
    differ, and the file is validated again; before: its entry describes what it holds).
    Every file is made to look long unchanged, so the racy window plays no part."""
    agents = _project(tmp_path)
    target = agents / "writer.md"
    real = validate_mod._read_file

    def edit(t: object, *a: object, **k: object) -> object:
        if when == "before" and getattr(t, "path", None) == target:
            target.write_text(target.read_text().replace("Grep", "Grap, Glob"))
        result = real(t, *a, **k)  # type: ignore[arg-type]
        if when == "after" and getattr(t, "path", None) == target:
            target.write_text(target.read_text().replace("Grep", "Grap, Glob"))
        return result

    with monkeypatch.context() as m:
        m.setattr(validate_mod, "_read_file", edit)
        m.setattr(cache_mod, "time", _Later())
        _run(str(agents))
    assert os.path.abspath(target) in _entries(cache)
    with monkeypatch.context() as m:
        m.setattr(cache_mod, "time", _Later())
        validated = _validated(m)
        warm = _run(str(agents))
    assert validated == ([target] if when == "after" else [])
    assert warm == _run("--no-cache", str(agents))
    assert any("Grap" in d["message"] for d in warm["diagnostics"])  # type: ignore[union-attr,index]


def _quick(*args: str) -> str:
    """What ``subagents validate ARGS`` prints through the click-free path (cli/quick.py)."""
    import contextlib
    import io

    from subagents.cli.quick import quick_validate

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = quick_validate(["validate", *args])
    assert code is not None  # (answered there, not handed to click)
    return out.getvalue()


def test_the_command_line_opens_the_cache_for_eight_files_or_more(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``subagents validate DIR`` (no option: the click-free path) and the click command both
    use the cache once a run reads eight files; fewer (a pre-commit hook's staged files)
    never open it."""
    assert validate_mod.CACHE_FILES == 8
    agents = _project(tmp_path)
    files = sorted(agents.glob("*.md"))
    assert len(files) == 8
    few = [str(f) for f in files[:7]]
    _quick(*few)
    _run(*few)
    assert not cache.exists()
    fresh = _quick(str(agents))
    assert list(cache.glob("*.json"))
    expected = _run("--no-cache", str(agents))
    with monkeypatch.context() as m:
        _no_reading(m)
        assert _quick(str(agents)) == fresh
        assert _run(str(agents)) == expected


def test_the_cache_choice_is_checked() -> None:
    with pytest.raises(ValueError, match="auto"):
        validate_mod.validate_paths([], cache="yes")  # type: ignore[arg-type]
