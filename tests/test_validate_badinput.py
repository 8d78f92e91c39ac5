"""Every bad-input case of the issue: the right code at the right line, never a traceback."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest

from subagents.diagnostics import Severity
from subagents.lint.validate import validate_paths
from validate_helpers import GOOD_FRONT, agent, codes, only, write

E, W = Severity.ERROR, Severity.WARNING
CASES: list[tuple[str, bytes, str, int, Severity]] = [
    # name, content, code, line, severity (error: Claude Code 2.1.330 skips or misreads it;
    # warning: it reads it, strict YAML parsers do not)
    ("no-frontmatter.md", b"# Just a heading\n\nSome text.\n", "SA003", 1, E),
    ("blank-then-text.md", b"\n\nplain text\n", "SA003", 1, E),
    ("blank-then-dashes.md", b"\n---\nname: a\ndescription: b\n---\nbody\n", "SA018", 1, E),
    ("unclosed.md", b"---\nname: a\ndescription: b\n\nbody\n", "SA004", 1, E),
    ("list.md", b"---\n- name\n- description\n---\nbody\n", "SA006", 2, E),
    ("scalar.md", b"---\njust words\n---\nbody\n", "SA006", 2, E),
    ("tabs.md", b"---\nname: a\ndescription: b\nhooks:\n\tStop: []\n---\nbody\n", "SA013", 5, W),
    ("binary.md", b"---\nname: a\n---\n\x00\x01\x02binary", "SA011", 4, E),
    ("latin1.md", "---\nname: caf\u00e9\n---\nbody\n".encode("latin-1"), "SA001", 2, E),
    ("empty.md", b"", "SA012", 1, E),
    ("whitespace.md", b"  \n\n", "SA012", 1, E),
    ("dupkey.md", b"---\nname: a\ndescription: b\nname: c\n---\nbody\n", "SA007", 4, E),
    ("tag.md", b"---\nname: !!python/object:os.system a\n---\nbody\n", "SA009", 2, E),
    ("yaml.md", b"---\nname: [unclosed\ndescription: b\n---\nbody\n", "SA010", 2, W),
    ("broken.md", b"---\nname: a\ndescription: b: c\n<example>\n---\nbody\n", "SA005", 4, E),
    ("colon.md", b"---\nname: a\ndescription: Use this: for <example>x</example>\n---\nbody\n",
     "SA010", 3, W),
]


@pytest.mark.parametrize(("name", "content", "code", "line", "severity"), CASES,
                         ids=[c[0] for c in CASES])
def test_bad_input_gets_code_and_line(tmp_path: Path, name: str, content: bytes, code: str,
                                      line: int, severity: Severity) -> None:
    p = write(tmp_path, name, content)
    report = validate_paths([p])
    found = only(report, code)
    assert found, report.diagnostics
    assert found[0].line == line
    assert found[0].severity is severity
    assert report.exit_code == (1 if report.errors else 0)
    assert report.files == 1


def test_bom_and_crlf_are_fine(tmp_path: Path) -> None:
    text = agent(GOOD_FRONT).replace("\n", "\r\n")
    p = write(tmp_path, "crlf.md", b"\xef\xbb\xbf" + text.encode())
    report = validate_paths([p])
    assert report.errors == 0 and report.agents == 1


def test_five_mib_file_is_refused_before_reading(tmp_path: Path) -> None:
    p = write(tmp_path, "big.md", agent(GOOD_FRONT, body="x" * (5 << 20)))
    tracemalloc.start()
    report = validate_paths([p])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    (d,) = only(report, "SA002")
    assert d.line == 1 and "1,048,576" in d.message
    assert peak < 1 << 20  # the 5 MiB were never read


def test_yaml_alias_bomb_is_refused_at_the_first_anchor(tmp_path: Path) -> None:
    lines = ["---", 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev, cur = chr(96 + i), chr(97 + i)
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    lines += ["name: x", "description: y", "---", "body"]
    p = write(tmp_path, "bomb.md", "\n".join(lines) + "\n")
    tracemalloc.start()
    start = time.process_time()
    report = validate_paths([p])
    cpu = time.process_time() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    (d,) = only(report, "SA008")
    assert (d.line, d.column) == (2, 4)
    # bounded: 9**10 strings would need gigabytes and minutes; generous bounds, not timing
    assert peak < 32 << 20 and cpu < 10


@pytest.mark.slow
def test_a_thousand_files_half_broken(tmp_path: Path) -> None:
    folder = tmp_path / ".claude" / "agents"
    for i in range(1000):
        if i % 2:
            write(folder, f"bad{i:04}.md", f"---\nname: bad-{i}\ndescription: x: y\n")
        else:
            write(folder, f"good{i:04}.md", agent(
                f"name: agent-{i}\ndescription: Reviews module {i} for style problems\n"
                "maxTurns: 5"))
    report = validate_paths([folder])
    assert report.files == 1000 and report.agents == 500
    assert codes(report)["SA004"] == 500  # unclosed: each broken file, at its line 1
    assert all(d.line == 1 for d in only(report, "SA004"))
    broken = {d.path for d in report.diagnostics if d.severity is Severity.ERROR}
    assert len(broken) == 500 and all("/bad" in p for p in broken)
    assert report.exit_code == 1


def test_deeply_nested_yaml_never_escapes_as_a_traceback(tmp_path: Path) -> None:
    deep = write(tmp_path, "agents/deep.md",
                 "---\nname: a\ndescription: b\ntools: " + "[" * 5000 + "]" * 5000 + "\n---\nx\n")
    write(tmp_path, "agents/ok.md", agent(GOOD_FRONT))
    report = validate_paths([tmp_path / "agents"])
    errors = [d for d in report.diagnostics if d.path == str(deep)]
    assert [(d.rule, d.line) for d in errors] == [("SA005", 4)]
    assert errors[0].severity is Severity.ERROR and "nested" in errors[0].message
    assert report.agents >= 1 and report.files == 2


def test_unreadable_file_does_not_stop_the_others(tmp_path: Path) -> None:
    import os

    if os.geteuid() == 0:
        pytest.skip("root reads everything")
    bad = write(tmp_path, "agents/locked.md", agent(GOOD_FRONT))
    bad.chmod(0)
    write(tmp_path, "agents/ok.md", agent(GOOD_FRONT.replace("code-reviewer", "other")))
    try:
        report = validate_paths([tmp_path / "agents"])
    finally:
        bad.chmod(0o644)
    assert [d.rule for d in report.diagnostics if d.path.endswith("locked.md")] == ["SA015"]
    assert report.agents == 1
