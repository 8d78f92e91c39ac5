"""The shortcuts of validate's judging path give what the plain computation gives.

Each speed-up of the per-file judging (``lint/validate.py``, ``lint/rules/``) keeps the
report identical; these tests hold each one to the computation it replaced, on cases built to
tell them apart.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from subagents.formats.yamltree import parse_yaml_tree
from subagents.harnesses import layout
from subagents.lint.validate import validate_paths

_AGENT = "---\nname: {name}\ndescription: Reviews {name} changes for bugs\ntools: Read\n" \
    "permissionMode: plan\n---\nYou review code.\n"


def _plugin_tree(root: Path) -> list[Path]:
    """Agents inside and outside plugins, at several depths, one plugin inside another's
    folder, and a plugin whose manifest lists a folder (its agents/ is then not its own)."""
    files = []

    def agent(path: Path, name: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_AGENT.format(name=name))
        files.append(path)

    def manifest(folder: Path, data: dict[str, object]) -> None:
        (folder / ".claude-plugin").mkdir(parents=True, exist_ok=True)
        (folder / ".claude-plugin" / "plugin.json").write_text(json.dumps(data))

    agent(root / "proj" / ".claude" / "agents" / "plain.md", "plain")
    agent(root / "proj" / ".claude" / "agents" / "deep" / "er" / "nested.md", "nested")
    manifest(root / "plugins" / "acme", {"name": "acme"})
    agent(root / "plugins" / "acme" / "agents" / "guarded.md", "guarded")
    agent(root / "plugins" / "acme" / "other" / "stray.md", "stray")
    manifest(root / "plugins" / "acme" / "inner", {"name": "inner", "agents": ["./listed"]})
    agent(root / "plugins" / "acme" / "inner" / "listed" / "one.md", "one")
    agent(root / "plugins" / "acme" / "inner" / "agents" / "unlisted.md", "unlisted")
    agent(root / "loose" / "agents" / "free.md", "free")
    return files


def test_the_report_is_the_one_of_asking_every_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _plugin_tree(tmp_path)
    fast = validate_paths([tmp_path]).to_dict()
    # without the run's memo every file walks up and reads the manifests itself
    monkeypatch.setattr(layout, "plugins_pinned", contextlib.nullcontext)
    slow = validate_paths([tmp_path]).to_dict()
    assert fast == slow
    # the plugin agents are judged as plugin agents (permissionMode is ignored for them)
    assert any("plugin" in d["message"] and d["path"].endswith("guarded.md")
               for d in fast["diagnostics"]), fast


def test_a_stored_agent_row_is_its_fields_in_order() -> None:
    """The cache writes ``AgentFacts.row()`` where it wrote ``dataclasses.astuple``."""
    import dataclasses

    from subagents.lint.cache import AgentFacts

    for facts in (AgentFacts("a", "does a", "claude", "/p/a.md", "project", 2, 7),
                  AgentFacts("", "", "json", None, None, 1, 1)):
        assert facts.row() == list(dataclasses.astuple(facts))
        assert [f.name for f in dataclasses.fields(AgentFacts)] == [
            "name", "description", "dialect", "path", "source", "line", "column"]


_STYLE_AGENTS = {
    # each breaks rules that are off by default (the checks then not run) and some that are on
    "short.md": "---\nname: short\ndescription: Helps.\ntools: [Read, Grep]\n"
                "disallowedTools: Write\nversion: one\n---\nShort body.\n",
    "Bad_Name.md": "---\nname: Bad_Name\ndescription: Reviews Python changes for security "
                   "issues and reports them\ntools: Read, Bash, Frobnicate\nmodel: gpt-9\n"
                   "maxTurns: 0\n---\n# Role\nYou review.\n",
    "ok.md": "---\nname: ok\ndescription: Writes SQL migrations for Postgres databases safely\n"
             "maxTurns: 5\n---\n" + "## Role\nYou migrate.\n" * 20,
}


@pytest.mark.parametrize("options", [
    {}, {"strict": True}, {"select": ["SA2"]}, {"select": ["description-length", "SA104"]},
    {"ignore": ["SA104", "SA3"]}, {"strict": True, "ignore": ["SA203"]},
    {"select": ["SA107"]}, {"select": ["ALL"]},
])
def test_running_only_the_wanted_checks_reports_what_running_all_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: dict[str, object]
) -> None:
    from subagents.lint import validate
    from subagents.lint.rules import engine

    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    for name, text in _STYLE_AGENTS.items():
        (folder / name).write_text(text)
    fast = validate_paths([folder], **options).to_dict()  # type: ignore[arg-type]
    monkeypatch.setattr(validate._Filter, "checks",
                        lambda _self: engine.wanted_checks(lambda _code: True))
    every = validate_paths([folder], **options).to_dict()  # type: ignore[arg-type]
    assert fast == every
    assert fast["diagnostics"]


def test_the_checks_of_the_default_profile_leave_out_the_rules_that_are_off() -> None:
    from subagents.lint.rules import engine
    from subagents.lint.rules.catalog import Profile
    from subagents.lint.validate import _Filter

    run = {c.__name__ for c, _ in _Filter(Profile.DEFAULT, (), ()).checks()}
    every = {c.__name__ for c, _ in engine.wanted_checks(lambda _code: True)}
    assert "check_sections" not in run and "check_tools" in run and run < every
    strict = {c.__name__ for c, _ in _Filter(Profile.STRICT, (), ()).checks()}
    assert "check_sections" in strict


_PIECE = st.sampled_from(["", ".", "..", "a", "b.md", "/", "//", "x/", "./y", "../z", "a//b",
                          ".claude", "agents", "~", " ", "c/../d"])


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECE, max_size=4).map("".join), st.lists(_PIECE, max_size=4).map("".join),
       st.text(alphabet=st.sampled_from(list("ab.-_ ~")), min_size=1, max_size=6))
def test_a_shown_path_is_the_normalised_join(display: str, rel: str, name: str) -> None:
    """validate builds each file's display path from its folder's, normalised once."""
    import os

    from subagents.lint.targets import _shown

    assume(name not in (".", ".."))
    rel = rel or "."
    base = os.path.normpath(os.path.join(display, rel))
    assert _shown(base, name) == os.path.normpath(os.path.join(display, rel, name))


def test_walking_as_strings_finds_what_iter_agent_files_finds(tmp_path: Path) -> None:
    import os

    from subagents.lint.targets import _walk_agent_files, iter_agent_files

    _plugin_tree(tmp_path)
    (tmp_path / "proj" / ".claude" / "agents" / "README.md").write_text("# not an agent\n")
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (tmp_path / "proj" / ".claude" / "agents" / "linked").symlink_to(outside)
    for display in (str(tmp_path), ".", "some/../where"):
        walked = list(_walk_agent_files(tmp_path, display, report_links=True))
        assert [(Path(f), s, link) for f, s, link, _d, _n in walked] == list(
            iter_agent_files(tmp_path, display, report_links=True))
        assert all(os.path.join(d, n) == f for f, _s, _l, d, n in walked)
        # the display paths as they were built, one normalisation per file
        assert [s for _f, s, _l, _d, _n in walked] == [
            os.path.normpath(os.path.join(display, os.path.relpath(d, tmp_path), n))
            for _f, _s, _l, d, n in walked]
        assert any(link for _f, _s, link, _d, _n in walked)


def test_the_scope_rules_read_the_same_of_a_slim_definition(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Agents with long prompts are kept for the scope rules as the facts they read: the
    duplicate names (Claude Code's last-path rule, with plugin and skills fields about) and the
    similar descriptions come out as from the whole definitions."""
    from subagents.lint import judge

    folder = tmp_path / ".claude" / "agents"
    (folder / "sub").mkdir(parents=True)
    body = "You review code. " * 200  # over 2,000 characters
    texts = {
        "a.md": "name: twin\ndescription: Reviews Rust code for safety and performance\n"
                "skills: checklist\nmodel: sonnet\ntools: Read, Grep",
        "sub/b.md": "name: twin\ndescription: Reviews Rust code for performance and safety "
                    "issues\nmemory: project",
        "c.md": "name: other\ndescription: Deploys services to Kubernetes clusters",
        "d.md": "name: other2\ndescription: Deploys services onto Kubernetes clusters with Helm",
    }
    for name, fm in texts.items():
        (folder / name).write_text(f"---\n{fm}\n---\n{body}\n")
    slim = validate_paths([folder]).to_dict()
    monkeypatch.setattr(judge, "_slim", lambda defn: defn)
    whole = validate_paths([folder]).to_dict()
    assert slim == whole
    rules = {d["rule"] for d in slim["diagnostics"]}
    assert {"SA601", "SA602"} <= rules, rules
    # a file naming skills is never cached (whether they exist is not a fact of the file)
    monkeypatch.undo()
    monkeypatch.setenv("SUBAGENTS_CACHE_DIR", str(tmp_path / "cache"))
    assert validate_paths([folder], cache=True).to_dict() == slim
    (stored,) = (tmp_path / "cache").glob("*.json")
    entries = json.loads(stored.read_text())["entries"]
    assert str(folder / "c.md") in entries and str(folder / "a.md") not in entries


@pytest.mark.skipif(not hasattr(__import__("os"), "symlink"), reason="symlinks")
def test_the_walk_is_os_walk_with_the_links_it_lists(tmp_path: Path) -> None:
    """``targets._walk`` yields what ``os.walk(followlinks=False)`` yields, folder by folder
    (pruned by the caller the same way), and the file names it calls links are exactly those
    ``os.path.islink`` calls links."""
    import os

    from subagents.lint.targets import _walk

    (tmp_path / "a" / "b" / "skip").mkdir(parents=True)
    (tmp_path / "c").mkdir()
    for rel in ("x.md", "a/y.md", "a/b/z.md", "a/b/skip/w.md", "c/v.md"):
        (tmp_path / rel).write_text("---\nname: n\n---\n")
    (tmp_path / "a" / "to-file.md").symlink_to(tmp_path / "x.md")
    (tmp_path / "a" / "broken.md").symlink_to(tmp_path / "nowhere.md")
    (tmp_path / "a" / "to-dir").symlink_to(tmp_path / "c")
    (tmp_path / "c" / "loop").symlink_to(tmp_path)
    (tmp_path / "fifo.md").touch()

    def prune(dirs: list[str]) -> None:
        dirs[:] = sorted(d for d in dirs if d != "skip")

    plain = []
    for top, dirs, files in os.walk(tmp_path, followlinks=False):
        prune(dirs)
        plain.append((top, list(dirs), sorted(files),
                      frozenset(f for f in files if os.path.islink(os.path.join(top, f)))))
    ours = []
    for top, dirs, files, links in _walk(os.fspath(tmp_path)):
        prune(dirs)
        ours.append((top, list(dirs), sorted(files), links))
    assert ours == plain
    assert any(links == {"to-file.md", "broken.md"} for *_rest, links in ours)
    assert list(_walk(os.fspath(tmp_path / "missing"))) == []


def test_a_read_that_meets_the_end_is_not_repeated(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader reads a file once when the first read returns the size ``fstat`` gave, and
    goes on reading when a read is short of it (as a buffered read would)."""
    import os

    from subagents.harnesses import loader

    path = tmp_path / "a.md"
    path.write_text("---\nname: a\ndescription: d\n---\nbody\n")
    calls: list[int] = []
    real_read = os.read

    def counting(fd: int, n: int) -> bytes:
        calls.append(n)
        return real_read(fd, n)

    monkeypatch.setattr(loader.os, "read", counting)
    whole = loader.read_agent_file(path)
    assert len(calls) == 1 and whole.definition is not None
    calls.clear()

    def short(fd: int, n: int) -> bytes:  # a file system that hands out 7 bytes at a time
        calls.append(n)
        return real_read(fd, min(n, 7))

    monkeypatch.setattr(loader.os, "read", short)
    again = loader.read_agent_file(path)
    assert len(calls) > 2 and again.definition == whole.definition
    assert again.diagnostics == whole.diagnostics


def test_world_writable_from_the_readers_fstat_or_a_stat(tmp_path: Path) -> None:
    """SA401 reads the mode the reader's fstat saw; a context without it asks the file."""
    import os

    from subagents.lint.config import Config
    from subagents.lint.rules.base import FileContext
    from subagents.lint.rules.security import check_world_writable

    path = tmp_path / ".claude" / "agents" / "a.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\nname: a\ndescription: Reviews code\n---\nbody\n")
    path.chmod(0o666)
    assert [d.rule for d in validate_paths([path]).diagnostics if d.rule == "SA401"] == ["SA401"]
    ctx = FileContext(path="a.md", file_path=path, dialect=None, config=Config())
    assert [d.rule for d in check_world_writable(ctx)] == ["SA401"]
    ctx.mode = os.stat(path).st_mode & ~0o002  # what the reader saw wins over the file
    assert list(check_world_writable(ctx)) == []
    path.chmod(0o644)
    assert [d for d in validate_paths([path]).diagnostics if d.rule == "SA401"] == []


_FIELD_VALUES = {
    "name": st.text(max_size=8), "description": st.text(max_size=8),
    "system_prompt": st.text(max_size=8), "model": st.none() | st.text(max_size=5),
    "tools": st.none() | st.tuples(st.text(max_size=4)), "max_turns": st.none() | st.integers(),
    "hooks": st.just({}), "skills": st.tuples(st.text(max_size=4)),
    "extra": st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    "path": st.none() | st.just(Path("/a/b.md")), "plugin": st.none() | st.text(max_size=4),
    "locations": st.just({}), "body_line": st.none() | st.integers(1, 9),
    "background": st.none() | st.booleans(), "keywords": st.tuples(st.text(max_size=4)),
}


@settings(max_examples=200, deadline=None)
@given(st.fixed_dictionaries({}, optional=_FIELD_VALUES),
       st.fixed_dictionaries({}, optional=_FIELD_VALUES))
def test_evolve_is_dataclasses_replace(base: dict[str, object], changes: dict[str, object]
                                       ) -> None:
    """``AgentDefinition.evolve`` sets the slots directly: every field (compared or not) and
    the repr are what ``dataclasses.replace`` gives, and the copy is as frozen."""
    import dataclasses

    from subagents.definition import AgentDefinition

    assume("name" in base)
    original = AgentDefinition(**base)  # type: ignore[arg-type]
    ours = original.evolve(**changes)
    plain = dataclasses.replace(original, **changes)
    assert type(ours) is AgentDefinition
    assert [getattr(ours, f.name) for f in dataclasses.fields(AgentDefinition)] == [
        getattr(plain, f.name) for f in dataclasses.fields(AgentDefinition)]
    assert ours == plain and repr(ours) == repr(plain) and hash(ours.name) == hash(plain.name)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ours.name = "x"  # type: ignore[misc]


def test_evolve_sets_slots_only_while_init_only_assigns() -> None:
    import dataclasses

    from subagents import definition

    fields = dataclasses.fields(definition.AgentDefinition)
    assert definition._SLOTS is not None
    assert [name for name, _get, _set in definition._SLOTS] == [f.name for f in fields]
    assert not hasattr(definition.AgentDefinition, "__post_init__")
    with pytest.raises(TypeError):
        definition.AgentDefinition(name="a").evolve(nonsense=1)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["Read", " Grep", "Bash(git:*)", ",", ", ", " ", "(", ")",
                                 "Agent(a, b)", "\t", "\u3000", "mcp__x__y", "", ",,"]),
                max_size=8).map("".join))
def test_a_tool_list_without_parentheses_is_split_as_the_loop_splits_it(text: str) -> None:
    from subagents.known_tools import _split_by_characters, split_tool_list

    assert split_tool_list(text) == _split_by_characters(text)
    plain = text.replace("(", "").replace(")", "")
    assert split_tool_list(plain) == _split_by_characters(plain)


def test_the_resolved_tags_of_plain_words_are_remembered() -> None:
    """Each plain scalar's tag is resolved once a process (a function of its text alone)."""
    from subagents.formats import yamltree

    yamltree._PLAIN_TAGS.clear()
    yamltree._KEYS.clear()  # (key scalars already built answer without asking the tags)
    first = parse_yaml_tree("name: yes\ntools: no\nnote: 1\n")
    # (every plain scalar that some implicit type could start: `name`, `tools`, `note` too)
    assert yamltree._PLAIN_TAGS == {
        "name": "tag:yaml.org,2002:str", "tools": "tag:yaml.org,2002:str",
        "note": "tag:yaml.org,2002:str", "yes": "tag:yaml.org,2002:bool",
        "no": "tag:yaml.org,2002:bool", "1": "tag:yaml.org,2002:int"}
    again = parse_yaml_tree("name: yes\ntools: no\nnote: 1\n")
    assert again == first
    assert [v.to_python() for _k, v in first.root.pairs] == [True, False, 1]  # type: ignore[union-attr]


_SILENCED = [
    "---\nname: Bad_Name  # subagents: ignore[SA206]\ndescription: Reviews code changes for "
    "bugs in the parser\ntools: Read, Nope\n---\nYou review code.\n",
    "---\nname: Bad_Name\ndescription: helps\n# subagents: ignore\n---\nYou review code.\n",
    "---\nname: Bad_Name\ndescription: helps\n---\n# subagents: ignore[SA206]\nbody\n",
    "---\nname: Bad_Name\ndescription: helps\n---\nx <!-- subagents: ignore[SA304] -->\n",
    "---\nname: Bad_Name\ndescription: helps\n---\nx <!-- Subagents: ignore[SA304] -->\n",
    "---\r\nname: Bad_Name # subagents: ignore[SA206]\r\ndescription: helps\r\n---\r\nbody\r\n",
    "\ufeff---\nname: Bad_Name # subagents:ignore[SA206, SA304]\ndescription: helps\n---\n",
    "---\nname: Bad_Name\ndescription: helps\n---\nsubagents\r: ignore\n",
    "---\nname: ok-name\ndescription: Reviews code changes for bugs in the parser\n---\n"
    "aws_secret_access_key = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzzzzzzzzz' subagents: ignore\n",
]


@pytest.mark.parametrize("gate", [True, False])
def test_silencers_found_through_the_secrets_gate_are_the_plain_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gate: bool
) -> None:
    """The file's silencers are looked for only when the secrets gate saw their mark (or
    was not asked): the report is the one of looking in every file."""
    from subagents.lint.rules import security

    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    for i, text in enumerate(_SILENCED):
        (folder / f"a{i}.md").write_bytes(text.encode())
    monkeypatch.setattr(security._Gate, "match", None)
    monkeypatch.setattr(security._Gate, "failed", not gate)
    monkeypatch.setattr(security._Gate, "read", security._GATE_AFTER)
    shortcut = validate_paths([folder], cache=False).to_dict()
    assert (security._Gate.match is not None) is gate
    # the plain way: every text's silencers looked for
    monkeypatch.setattr(security._Gate, "held", classmethod(lambda cls, text, data=None: None))
    plain = validate_paths([folder], cache=False).to_dict()
    assert shortcut == plain
    found = {(Path(d["path"]).name, d["rule"]) for d in plain["diagnostics"]}
    # the silencers did silence (and only as written: `Subagents:` is no silencer)
    assert ("a0.md", "SA206") not in found and ("a2.md", "SA206") in found
    assert not any(name == "a1.md" for name, _ in found)
    assert ("a3.md", "SA304") not in found and ("a4.md", "SA304") in found
    assert ("a6.md", "SA206") not in found and ("a5.md", "SA206") not in found
