"""Cases for the finer facts first measured on 2.1.332 (names, descriptions, YAML, files,
memory, effort, permissionMode, colour, disallowedTools): each fact of
``BEHAVIOUR-2.1.332.md`` that no older case already held.  Inputs only; every file is ours."""

from __future__ import annotations

from subagents.conformance.casekit import Case, agent, md, raw

__all__ = ["DETAIL_CASES"]


def _named(case_id: str, about: str, names: list[str], *, spawn: tuple[str, ...] = ()) -> Case:
    """One file per name (``n0.md``, ``n1.md``, ...), each a plain valid agent."""
    files = {f"n{i}.md": md(f'name: "{n}"\ndescription: Name case {i}.\n') for i, n in
             enumerate(names)}
    return Case(case_id, about, files, spawn=spawn)


def _front(case_id: str, about: str, front: str, *, body: str = "",
           spawn: bool = False) -> Case:
    return Case(case_id, about, {f"{case_id}.md": md(front, body)},
                spawn=(case_id,) if spawn else ())


_CAFE_NFC = "caf\u00e9"
_CAFE_NFD = "cafe\u0301"

DETAIL_CASES: tuple[Case, ...] = (
    # --- names -----------------------------------------------------------------------------------
    _named("name-forms-load", "dots, a ligature (not folded), café in NFC and NFD (two agents) "
           "and a zero-width space load as written",
           ["Code.Reviewer.V2", "\ufb01xer", _CAFE_NFC, _CAFE_NFD, "zero\u200bwidth"]),
    _named("name-spaces-launch", "'Data Pipeline Agent' loads and is launched by that name",
           ["Data Pipeline Agent"], spawn=("Data Pipeline Agent",)),
    _named("name-nfkc-colons", "U+FE13 and U+FE55 are ':' after NFKC: refused; U+A789 loads",
           ["presentation\ufe13colon", "small\ufe55colon", "modifier\ua789colon"]),
    Case("name-yaml12-scalars", "YAML 1.2: yes, off and 1_000 are strings; 0o17 is a number",
         {"yes.md": md("name: yes\ndescription: Yes name.\n"),
          "off.md": md("name: off\ndescription: Off name.\n"),
          "under.md": md("name: 1_000\ndescription: Underscore number.\n"),
          "octal.md": md("name: 0o17\ndescription: Octal name.\n")}),
    # --- descriptions ----------------------------------------------------------------------------
    Case("desc-yaml12-scalars", "a date and yes are strings; ~ is no description",
         {"date.md": md("name: desc-date\ndescription: 2024-01-01\n"),
          "yes.md": md("name: desc-yes\ndescription: yes\n"),
          "tilde.md": md("name: desc-tilde\ndescription: ~\n")}),
    Case("desc-huge", "a 100,001-character description and a 3,000-character CJK one are "
         "listed whole",
         {"long.md": agent("desc-100001", "d" * 100_001),
          "cjk.md": agent("desc-cjk", "\u6f22" * 3_000)}),
    # --- YAML ------------------------------------------------------------------------------------
    _front("yaml-keep-block", "|+ keeps its trailing newlines",
           "name: yaml-keep-block\ndescription: |+\n  Kept.\n\n\nmodel: haiku\n"),
    _front("yaml-folded", "> folds lines",
           "name: yaml-folded\ndescription: >\n  One\n  two.\n"),
    _front("yaml-merge-key", "a <<: *base merge supplies description and model",
           "base: &base\n  description: From the base.\n  model: haiku\n"
           "name: yaml-merge-key\n<<: *base\n", spawn=True),
    Case("yaml-key-forms", "quoted keys, 'name : x', a tab after the colon, '? description', a "
         "frontmatter that is one flow mapping",
         {"quoted.md": md('"name": yaml-quoted-keys\n\'description\': Quoted keys.\n'),
          "space.md": md("name : yaml-space-colon\ndescription : Space before colon.\n"),
          "tab.md": md("name:\tyaml-tab-colon\ndescription:\tTab after colon.\n"),
          "qmark.md": md("name: yaml-question\n? description\n: Explicit key.\n"),
          "flow.md": md("{name: yaml-flow-map, description: One flow mapping.}\n")}),
    _front("yaml-block-comment", "a comment outside a block goes; inside a | block it is text",
           "name: yaml-block-comment # gone\ndescription: |\n  Line one.\n  # kept\n"),
    _front("yaml-dq-two-lines", "a double-quoted value over two lines",
           'name: yaml-dq-two-lines\ndescription: "First half\n  second half."\n'),
    _front("yaml-tools-twice", "tools given twice: the last wins",
           "name: yaml-tools-twice\ndescription: Tools twice.\ntools: Bash\ntools: Read\n",
           spawn=True),
    # --- files -----------------------------------------------------------------------------------
    Case("files-odd-paths", "a folder named team.md/, a file 8 folders down, a file named "
         "just .md",
         {"team.md/inner.md": agent("files-team-md"),
          "a/b/c/d/e/f/g/h/deep.md": agent("files-deep"),
          ".md": agent("files-bare-md")}),
    Case("files-links-case", "x.md -> real.MD loads; y.MD -> real2.md, a.Md and b.mD do not",
         {"a.Md": agent("files-a-Md"), "b.mD": agent("files-b-mD")},
         project_files={"lib/real.MD": agent("files-link-to-MD"),
                        "lib/real2.md": agent("files-link-from-MD")},
         links={".claude/agents/x.md": "../../lib/real.MD",
                ".claude/agents/y.MD": "../../lib/real2.md"}),
    Case("files-agents-folder-link", ".claude/agents as a link to another folder",
         {}, project_files={"shared-agents/linked.md": agent("files-folder-link")},
         links={".claude/agents": "../shared-agents"}),
    Case("files-user-folder-link", "~/.claude/agents as a link to another folder of HOME, "
         "written with an absolute target",
         {}, home_files={"shared-agents/mine.md": agent("files-user-link")},
         home_links={".claude/agents": "{HOME}/shared-agents"}),
    Case("files-empty-utf16", "an empty file and a UTF-16 file are skipped without a log line",
         {"empty.md": b"", "utf16.md": agent("files-utf16").decode().encode("utf-16"),
          "ok.md": agent("files-plain")}),
    Case("files-bom-lenient", "a BOM plus a description that needs the second pass",
         {"b.md": b"\xef\xbb\xbf" + md("name: files-bom-lenient\n"
                                      "description: Use when: a BOM is there\n")}),
    Case("files-crlf-block", "CRLF with a | block gives 'One.\\nTwo.\\n'",
         {"c.md": md("name: files-crlf-block\ndescription: |\n  One.\n  Two.\n",
                     newline="\r\n")}),
    Case("files-empty-bodies", "a CRLF empty body and a whitespace-only body: an empty prompt",
         {"crlf.md": raw("---\r\nname: files-crlf-empty\r\ndescription: CRLF empty.\r\n---\r\n"),
          "space.md": raw("---\nname: files-space-body\ndescription: Spaces.\n---\n  \n\t\n")},
         spawn=("files-crlf-empty", "files-space-body")),
    Case("files-second-block", "a body holding a second --- block keeps it as text",
         {"s.md": md("name: files-second-block\ndescription: Two blocks.\n",
                     "---\nname: other\n---\nBody.\n")}, spawn=("files-second-block",)),
    # --- fields ----------------------------------------------------------------------------------
    Case("field-memory-scopes", "memory user and local add a memory section to the prompt; "
         "memory: Project is ignored",
         {"u.md": agent("memory-user", extra="memory: user\n"),
          "l.md": agent("memory-local", extra="memory: local\n"),
          "p.md": agent("memory-project-cap", extra="memory: Project\n")},
         spawn=("memory-user", "memory-local", "memory-project-cap")),
    Case("field-effort-values", "effort high and low are sent as written, HIGH as high, none as "
         "medium; effort: 42 sends no effort at all",
         {"h.md": agent("effort-high", extra="effort: high\n"),
          "l.md": agent("effort-low", extra="effort: low\n"),
          "u.md": agent("effort-upper", extra="effort: HIGH\n"),
          "n.md": agent("effort-none"),
          "x.md": agent("effort-number", extra="effort: 42\n")},
         spawn=("effort-high", "effort-low", "effort-upper", "effort-none", "effort-number"),
         request_params=("output_config",)),
    Case("field-permission-modes", "plan, bypassPermissions and manual load silently; "
         "AcceptEdits is ignored (logged)",
         {"p.md": agent("perm-plan", extra="permissionMode: plan\n"),
          "b.md": agent("perm-bypass", extra="permissionMode: bypassPermissions\n"),
          "m.md": agent("perm-manual", extra="permissionMode: manual\n"),
          "a.md": agent("perm-accept-cap", extra="permissionMode: AcceptEdits\n")}),
    Case("field-colors", "Blue, '#ff8800' and gray load without a log line",
         {"b.md": agent("color-blue-cap", extra="color: Blue\n"),
          "h.md": agent("color-hex", extra='color: "#ff8800"\n'),
          "g.md": agent("color-gray", extra="color: gray\n")}),
    _front("tools-disallowed-unknown", "an unknown name in disallowedTools is listed; the known "
           "one is removed",
           "name: tools-disallowed-unknown\ndescription: Disallowed unknown.\n"
           "disallowedTools: Teleport, Write\n", spawn=True),
)
