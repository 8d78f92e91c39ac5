"""The Claude Code emulation (subagents.claude_code): one file, one folder, hostile input.

The expected values here are Claude Code 2.1.330's, as measured from the real CLI (the recorded
cases of subagents.conformance are compared in test_conformance_claude_code.py); these tests pin
each rule on its own so a regression names the rule it broke.
"""

from __future__ import annotations

import itertools
import os
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_helpers import examples
from subagents.claude_code import (
    ParseMode,
    SkipKind,
    code_unit_key,
    read_agents_folder,
    read_claude_code,
    scan_agents_folder,
    split_tools,
)
from subagents.claude_code.bun_yaml import AliasBombError, TooDeepError, parse
from subagents.claude_code.reader import JS_SPACE, lenient_rewrite, split_block

BODY = "You are a test agent.\n"


def fm(lines: str, body: str = BODY) -> bytes:
    return ("---\n" + lines.strip("\n") + "\n---\n" + body).encode()


@pytest.mark.parametrize(
    ("text", "description"),
    [
        ("description: Use this agent when: the user asks. Example: PRs", None),
        ("description: Use it when: asked   ", "Use it when: asked   "),
        ("description: @reviewer for code", None),
        ("description: `code` reviewer", None),
        ("description: [Beta] reviewer of code", None),
        ("description: *bold* reviewer", None),
        ("description: 100% reviewer", None),
        ("description: > quoted reviewer", None),
        ("description: Review: code # not a comment", "Review: code # not a comment"),
        (r'description: Line one\nLine two with \"quotes\"', 'Line one\nLine two with \\"quotes\\"'),
        ("description: 'First\\nSecond'", "First\nSecond"),
        ("description: !important reviewer for code.", "reviewer for code."),
    ],
)
def test_lenient_second_pass_loads_what_claude_code_loads(
    text: str, description: str | None
) -> None:
    view = read_claude_code(fm("name: x\n" + text + "\ntools: Read"))
    assert view.loaded, view.skip
    expected = description if description is not None else text.split(": ", 1)[1]
    assert view.description == expected
    assert view.tools == ("Read",)


@pytest.mark.parametrize(
    "text",
    [
        # a column-0 continuation that is not `word: value`
        "description: Use this agent. Examples:\n<example>\nuser: hi\n</example>",
        # an indented continuation after a value that had to be quoted
        "description: Use it when: asked\n  and more text here",
        # a value ending in `Examples:` (a colon with no space after it)
        "description: Use this agent for migrations. Examples:",
        # a key holding a digit is never quoted
        "description: ok\nx2: note: this",
        # a top-level key indented with a tab
        "description: ok\n\tmodel: haiku",
        # a plain value continued at column 0
        "description: first line\nsecond line",
    ],
)
def test_forms_the_second_pass_cannot_recover_are_skipped_and_logged(text: str) -> None:
    view = read_claude_code(fm("name: x\n" + text))
    assert not view.loaded
    assert view.skip is not None and view.skip.kind is SkipKind.YAML and view.skip.logged
    assert view.parse is ParseMode.FAILED


def test_partial_recovery_keeps_only_the_first_line_of_the_description() -> None:
    view = read_claude_code(
        fm('name: x\ndescription: Reviews code. Examples: below\nuser: "hi"\nassistant: "ok"')
    )
    assert view.loaded and view.parse is ParseMode.LENIENT
    assert view.description == "Reviews code. Examples: below"
    assert set(view.unknown_keys) == {"user", "assistant"}


def test_tab_indented_list_loads_with_tabs_as_spaces() -> None:
    view = read_claude_code(fm("name: x\ndescription: d\ntools:\n\t- Read\n\t- Grep"))
    assert view.loaded and view.tools == ("Read", "Grep")


@pytest.mark.parametrize(
    ("data", "kind", "logged"),
    [
        (b"\n---\nname: x\ndescription: d\n---\nbody", SkipKind.NO_FRONTMATTER, False),
        (b"  ---\nname: x\ndescription: d\n---\nbody", SkipKind.NO_FRONTMATTER, False),
        (b"---\nname: x\ndescription: d\n", SkipKind.NO_FRONTMATTER, False),
        (b"no frontmatter at all", SkipKind.NO_FRONTMATTER, False),
        (fm("description: no name"), SkipKind.NO_NAME, False),
        (fm("name:\ndescription: empty name"), SkipKind.NO_NAME, False),
        (fm("name: 12345\ndescription: d"), SkipKind.NO_NAME, True),
        (fm("name: true\ndescription: d"), SkipKind.NO_NAME, True),
        (fm('name: "-x"\ndescription: d'), SkipKind.BAD_NAME, True),
        (fm('name: "ns:x"\ndescription: d'), SkipKind.BAD_NAME, True),
        (fm("name: ns\uff1ax\ndescription: d"), SkipKind.BAD_NAME, True),
        (fm("name: " + "k" * 257 + "\ndescription: d"), SkipKind.BAD_NAME, True),
        (fm("name: x"), SkipKind.NO_DESCRIPTION, True),
        (fm('name: x\ndescription: ""'), SkipKind.NO_DESCRIPTION, True),
        (fm("name: x\ndescription: 42"), SkipKind.NO_DESCRIPTION, True),
        (fm("name: x\ndescription:\n  - a\n  - b"), SkipKind.NO_DESCRIPTION, True),
        (fm("- a\n- b"), SkipKind.NO_NAME, False),
    ],
)
def test_skips(data: bytes, kind: SkipKind, logged: bool) -> None:
    view = read_claude_code(data)
    assert not view.loaded
    assert view.skip is not None
    assert (view.skip.kind, view.skip.logged) == (kind, logged)


@pytest.mark.parametrize(
    "name", ["Code_Reviewer", "Code Reviewer", "REVIEWER", "../x", "  spaced  ", "j" * 256]
)
def test_names_claude_code_accepts_load_as_written(name: str) -> None:
    view = read_claude_code(fm(f'name: "{name}"\ndescription: d'))
    assert view.loaded and view.name == name


def test_block_ends_at_the_first_dashes_anywhere() -> None:
    view = read_claude_code(fm("name: x\ndescription: Before --- after\ntools: Read"))
    assert view.loaded and view.description == "Before"
    assert view.tools is None and view.tools_listing == "All tools"
    assert view.block_cut_inline
    assert view.body.startswith("after\ntools: Read")


def test_duplicate_keys_last_wins_and_anchors_resolve() -> None:
    view = read_claude_code(fm("name: x\ndescription: FIRST\ndescription: SECOND"))
    assert view.loaded and view.description == "SECOND"
    view = read_claude_code(fm("name: x\nx-text: &d Shared text\ndescription: *d"))
    assert view.loaded and view.description == "Shared text"


@pytest.mark.parametrize(
    ("tools", "spawn", "listing"),
    [
        ("tools: Read, Grep, Bash", ("Read", "Grep", "Bash"), "Read, Grep, Bash"),
        ("tools: [Read, Grep]", ("Read", "Grep"), "Read, Grep"),
        ("tools:\n  - Read\n  - Grep", ("Read", "Grep"), "Read, Grep"),
        ("tools: Read Grep Bash", ("Read", "Grep", "Bash"), "Read, Grep, Bash"),
        ("tools:\n  - Read Grep", ("Read", "Grep"), "Read, Grep"),
        ("tools: Read, Bash(git commit:*)", ("Read", "Bash(git commit:*)"), None),
        ("tools: Agent(worker, reviewer)", ("Agent(worker, reviewer)",), None),
        ('tools: "*"', None, "All tools"),
        ("tools: Read, *", None, "All tools"),
        ("tools:", (), "All tools"),
        ('tools: ""', (), "All tools"),
        ("tools: []", (), "All tools"),
        ("tools:\n  read: true\n  grep: true", (), "All tools"),
        ("tools: 5", (), "All tools"),
        ("disallowedTools: Bash, Write", None, "All tools except Bash, Write"),
        ("tools: Read, Grep, Bash\ndisallowedTools: Bash", ("Read", "Grep", "Bash"), "Read, Grep"),
        ("tools: Bash\ndisallowedTools: Bash", ("Bash",), "None"),
    ],
)
def test_tools(tools: str, spawn: tuple[str, ...] | None, listing: str | None) -> None:
    view = read_claude_code(fm("name: x\ndescription: d\n" + tools))
    assert view.loaded
    assert view.tools == spawn
    assert view.tools_listing == (listing if listing is not None else ", ".join(spawn or ()))


@pytest.mark.parametrize(
    ("model", "kept", "spawned"),
    [
        ("sonnet", "sonnet", "claude-sonnet-5-5"),
        ("Sonnet", "Sonnet", "claude-sonnet-5-5"),
        ("  haiku  ", "haiku", "claude-haiku-5-5"),
        ("INHERIT", "inherit", None),
        ("banana", "banana", "banana"),
        ("claude-opus-4-1-20250805", "claude-opus-4-1-20250805", "claude-opus-4-1-20250805"),
        ("[sonnet, haiku]", None, None),
    ],
)
def test_model(model: str, kept: str | None, spawned: str | None) -> None:
    view = read_claude_code(fm(f"name: x\ndescription: d\nmodel: {model}"))
    assert view.loaded and view.model == kept and view.spawn_model == spawned


@pytest.mark.parametrize(
    "field",
    [
        "maxTurns: ten",
        "maxTurns: 0",
        "background: maybe",
        "permissionMode: banana",
        "effort: extreme",
        "isolation: container",
        "memory: global",
        "color: chartreuse",
        "mcpServers:\n  github: {command: gh}",
    ],
)
def test_bad_optional_fields_are_ignored_not_fatal(field: str) -> None:
    view = read_claude_code(fm("name: x\ndescription: d\n" + field))
    assert view.loaded
    key = field.split(":", 1)[0]
    assert [n.key for n in view.notes] == [key]


def test_valid_optional_fields_give_no_notes() -> None:
    view = read_claude_code(
        fm(
            "name: x\ndescription: d\nmaxTurns: 5\nbackground: true\npermissionMode: plan\n"
            "effort: high\nisolation: remote\nmemory: project\ncolor: blue\nmcpServers: [github]"
        )
    )
    assert view.loaded and view.notes == ()


def test_hooks_guarding_tool_use_must_be_well_formed() -> None:
    bad = read_claude_code(fm("name: x\ndescription: d\nhooks:\n  PreToolUse: {matcher: Bash}"))
    assert not bad.loaded and bad.skip is not None and bad.skip.kind is SkipKind.HOOKS
    top = read_claude_code(fm("name: x\ndescription: d\nPreToolUse:\n  - matcher: Bash"))
    assert not top.loaded
    unknown = read_claude_code(fm("name: x\ndescription: d\nhooks:\n  OnBanana: []"))
    assert unknown.loaded and unknown.notes[0].key == "hooks"


def test_bytes_bom_crlf_latin1_and_size() -> None:
    crlf = b"\xef\xbb\xbf---\r\nname: x\r\ndescription: d\r\n---\r\nline one\r\nline two\r\n"
    view = read_claude_code(crlf)
    assert view.loaded and view.body == "line one\r\nline two"
    latin = read_claude_code(fm("name: x\ndescription: Caf\xe9").replace(b"\xc3\xa9", b"\xe9"))
    assert latin.loaded and latin.description == "Caf\ufffd" and latin.replaced_bytes
    big = read_claude_code(b"x", size=1_048_577)
    assert not big.loaded and big.skip is not None and big.skip.kind is SkipKind.TOO_LARGE


def test_crlf_lines_are_never_quoted_by_the_second_pass() -> None:
    view = read_claude_code(b"---\r\nname: x\r\ndescription: When: asked\r\n---\r\nbody")
    assert not view.loaded and view.parse is ParseMode.FAILED


def test_an_alias_bomb_is_read_as_claude_code_reads_it_expanding_nothing() -> None:
    """Claude Code 2.1.332 loads an alias bomb: its first pass throws, its second pass quotes
    every `key: *alias` line (recorded case yaml-alias-bomb).  So do we, without expanding: a
    bomb of 9**40 leaves finishes (an exponential reading would never return)."""
    def bomb(levels: int) -> str:
        # keys of letters only: the second pass quotes `key: value` lines of such keys
        names = ["k" + chr(97 + i // 26) + chr(97 + i % 26) for i in range(levels)]
        return "kaa: &kaa [x, x, x, x, x, x, x, x, x]\n" + "".join(
            f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
            for p, c in itertools.pairwise(names)
        ) + f"tools: *{names[-1]}\n"
    with pytest.raises(AliasBombError):
        parse(bomb(9))
    view = read_claude_code(fm("name: x\ndescription: d\n" + bomb(9)))
    assert view.loaded and view.parse is ParseMode.LENIENT
    assert view.tools == ("*kai",) and view.frontmatter["kab"] == (
        "&kab [" + ", ".join(["*kaa"] * 9) + "]")
    huge = read_claude_code(fm("name: x\ndescription: d\n" + bomb(40)))
    assert huge.loaded and huge.tools == ("*kbn",)
    # aliases the second pass does not quote (indented lines) stay a bomb: refused, not expanded
    nested = "root:\n  a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"  {c}: &{c} [" + ", ".join([f"*{p}"] * 9) + "]\n"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True))
    refused = read_claude_code(fm("name: x\ndescription: d\n" + nested))
    assert not refused.loaded and refused.parse is ParseMode.REFUSED
    assert refused.skip is not None and refused.skip.alias


def test_hostile_yaml_is_refused_not_expanded() -> None:
    with pytest.raises(TooDeepError):
        parse("a: " + "[" * 30_000 + "]" * 30_000)
    deep = read_claude_code(fm("name: x\ndescription: d\nx: " + "[" * 30_000 + "]" * 30_000))
    assert not deep.loaded and deep.parse is ParseMode.REFUSED
    with pytest.raises(AliasBombError):
        parse("a: &a [*a]")


def test_yaml_1_2_scalars() -> None:
    assert parse("a: yes\nb: on\nc: 2024-01-01\nd: 0o17\ne: true\nf: ~\ng: 1.5") == {
        "a": "yes",
        "b": "on",
        "c": "2024-01-01",
        "d": 15,
        "e": True,
        "f": None,
        "g": 1.5,
    }
    assert read_claude_code(fm("name: yes\ndescription: no")).name == "yes"


def test_folder_order_and_duplicates(tmp_path: Path) -> None:
    def write(rel: str, name: str, text: str) -> None:
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(fm(f"name: {name}\ndescription: {text}"))

    write("a-dup.md", "dup", "from a")
    write("b-dup.md", "dup", "from b")
    write("Z.md", "case", "from Z")
    write("a.md", "case", "from a")
    write("y.md", "deep", "from y")
    write("sub/x.md", "deep", "from sub")
    write(".hidden/h.md", "hidden", "hidden folder")
    write(".dot.md", "dot", "dot file")
    write("skip.MD", "upper", "not read")
    write("skip.markdown", "md2", "not read")
    write("copilot.agent.md", "copilot", "read as a Claude agent")
    reading = read_agents_folder(tmp_path)
    names = {n: p.name for n, p in reading.winners.items()}
    assert names["dup"] == "b-dup.md" and names["case"] == "a.md" and names["deep"] == "y.md"
    assert {"hidden", "dot", "copilot"} <= set(names) and not {"upper", "md2"} & set(names)
    assert sorted((loser.name, n) for loser, n, _w in reading.duplicates) == [
        ("Z.md", "case"),
        ("a-dup.md", "dup"),
        ("x.md", "deep"),
    ]


def test_a_fifo_never_blocks_the_scan(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "ok.md").write_bytes(fm("name: ok\ndescription: d"))
    reading = read_agents_folder(tmp_path)
    assert list(reading.winners) == ["ok"]


def test_code_unit_order_differs_from_code_point_order() -> None:
    # U+FF5E (BMP, above the surrogates) sorts after U+1F600 (astral) in UTF-16 code units.
    a, b = "\uff5e.md", "\U0001f600.md"
    assert sorted([a, b]) == [a, b]
    assert sorted([a, b], key=code_unit_key) == [b, a]
    assert scan_agents_folder("/nonexistent/folder") == []


# --------------------------------------------------------------------------- fuzzing

_line = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
    max_size=40,
)


JS_WHITESPACE = frozenset(
    "\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
)


def _reference_block(text: str) -> str | None:
    """Reference model of the block split, written without the production regex."""
    if not text.startswith("---") or text.find("---", 3) < 0:
        return None
    i = 3
    while i < len(text) and text[i] in JS_WHITESPACE:
        i += 1
    # the opening run of whitespace must contain a newline (backtracking: the last one)
    opening = text[3:i]
    if "\n" not in opening:
        return None
    start = 3 + opening.rindex("\n") + 1
    end = text.find("---", start)
    return None if end < 0 else text[start:end]


def _reference_name_ok(name: str) -> bool:
    return (
        bool(name)
        and not name.startswith("-")
        and len(name) <= 256
        and ":" not in unicodedata.normalize("NFKC", name)
    )


# Claude Code's own pattern, with JavaScript's \s spelled out (Python's differs).
_CLAUDE_CODE_BLOCK = re.compile(f"---[{JS_SPACE}]*\n([\\s\\S]*?)---[{JS_SPACE}]*\n?")


@settings(max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_line, max_size=8), st.text(max_size=60))
def test_fuzz_block_split_matches_the_reference_model(lines: list[str], body: str) -> None:
    text = "---\n" + "\n".join(lines) + "\n---\n" + body
    got = split_block(text)
    expected = _reference_block(text)
    assert (got[0] if got else None) == expected
    m = _CLAUDE_CODE_BLOCK.match(text) if text.find("---", 3) >= 0 else None
    assert got == ((m.group(1), text[m.end():], m.start(1)) if m else None)


@settings(max_examples=examples(300))
@given(st.text(alphabet="-\n \t\x1f\u00a0ab:\r", max_size=30))
def test_fuzz_block_split_equals_claude_codes_regex_on_any_text(text: str) -> None:
    m = _CLAUDE_CODE_BLOCK.match(text) if text.find("---", 3) >= 0 else None
    assert split_block(text) == ((m.group(1), text[m.end():], m.start(1)) if m else None)


@settings(max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow])
@given(_line, _line)
def test_fuzz_one_line_values_load_as_written(name: str, description: str) -> None:
    """Any one-line name and description: never a crash, and Claude Code's rules hold."""
    text = f"---\nname: {name}\ndescription: {description}\n---\nbody"
    view = read_claude_code(text.encode("utf-8", "surrogatepass"))
    if view.loaded:
        assert view.name is not None and _reference_name_ok(view.name)
        assert view.description and "\\n" not in view.description
    _rewritten, quoted = lenient_rewrite(f"description: {description}")
    assert set(quoted) <= {"description"}


@settings(max_examples=examples(200), suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_fuzz_arbitrary_bytes_never_raise(data: bytes) -> None:
    view = read_claude_code(b"---\n" + data)
    assert view.loaded == (view.skip is None)


@settings(max_examples=examples(200))
@given(st.lists(st.text(alphabet="Read Grep,()*: \t", max_size=12), max_size=4))
def test_fuzz_split_tools(items: list[str]) -> None:
    out = split_tools(items)
    if out is not None:
        assert all(t and t == t.strip() for t in out)
        assert "*" not in out


@settings(max_examples=examples(400))
@given(st.text(alphabet="ReadGp,) \t\u00a0\x1f*", max_size=20))
def test_fuzz_split_fast_path_equals_claude_codes_character_loop(item: str) -> None:
    from subagents.claude_code.reader import _split_item

    assert "(" not in item
    fast = split_tools(item)
    slow = _split_item(item)
    assert fast == (None if "*" in slow else tuple(slow))
