"""Cases about the fields: name, description, tools, model, the ignored fields, and extra edge
cases of our own."""

from __future__ import annotations

from subagents.conformance.casekit import Case, agent, md, raw

__all__ = ["EXTRA_CASES", "FIELD_CASES"]


def _one(case_id: str, about: str, name: str, front: str, *, spawn: bool = False) -> Case:
    """A one-file case whose frontmatter is ``front`` (``name`` is the agent it may load as)."""
    return Case(case_id, about, {f"{case_id}.md": md(front)}, spawn=(name,) if spawn else ())


def _tools(case_id: str, about: str, tools: str, *, spawn: bool = True) -> Case:
    name = case_id
    return _one(case_id, about, name, f"name: {name}\ndescription: Tools case.\n{tools}",
                spawn=spawn)


def _model(case_id: str, about: str, model: str) -> Case:
    return _one(case_id, about, case_id, f"name: {case_id}\ndescription: Model case.\n{model}",
                spawn=True)


def _field(case_id: str, about: str, line: str) -> Case:
    return _one(case_id, about, case_id, f"name: {case_id}\ndescription: Field case.\n{line}")


_NAME_256 = "n" + "a" * 255
_NAME_257 = "n" + "a" * 256

FIELD_CASES: tuple[Case, ...] = (
    # --- name ------------------------------------------------------------------------------------
    Case("name-underscore", "Code_Reviewer loads as written", {"x.md": agent("Code_Reviewer")}),
    Case("name-space", "'Code Reviewer' loads as written", {"x.md": agent("Code Reviewer")}),
    Case("name-upper", "REVIEWER loads as written", {"x.md": agent("REVIEWER")}),
    Case("name-spaced-quoted", "a quoted name keeps its spaces",
         {"x.md": md('name: "  name-spaced  "\ndescription: Spaced name.\n')}),
    Case("name-colon", "a name with ':' is refused", {"x.md": agent("ns:name-colon")}),
    Case("name-fullwidth-colon", "a full-width colon is ':' after NFKC: refused",
         {"x.md": agent("ns：name-fw")}),
    Case("name-leading-dash", "a name starting with '-' is refused",
         {"x.md": md('name: "-name-dash"\ndescription: Dash first.\n')}),
    Case("name-65", "a 65-character name loads", {"x.md": agent("n" + "b" * 64)}),
    Case("name-256", "a 256-character name loads", {"x.md": agent(_NAME_256)}),
    Case("name-257", "a 257-character name is refused", {"x.md": agent(_NAME_257)}),
    Case("name-missing", "no name: skipped without a log line",
         {"x.md": md("description: No name here.\n")}),
    Case("name-empty", "an empty name: skipped", {"x.md": md("name:\ndescription: Empty name.\n")}),
    Case("name-number", "a number as name", {"x.md": md("name: 12345\ndescription: Numeric.\n")}),
    Case("name-bool", "a boolean as name", {"x.md": md("name: true\ndescription: Boolean.\n")}),
    Case("name-capitalised-keys", "Name:/Description: are not name/description",
         {"x.md": md("Name: name-capital\nDescription: Capital keys.\n")}),
    Case("name-path", "a name with ../ loads as written", {"x.md": agent("../name-path")}),
    Case("name-differs-from-file", "the agent is named by name:, not the file name",
         {"file-name.md": agent("name-not-file")}),
    # --- description -----------------------------------------------------------------------------
    Case("desc-missing", "no description: refused", {"x.md": md("name: desc-missing\n")}),
    Case("desc-number", "a number as description",
         {"x.md": md("name: desc-number\ndescription: 42\n")}),
    Case("desc-empty", "an empty string description",
         {"x.md": md('name: desc-empty\ndescription: ""\n')}),
    Case("desc-list", "a list as description",
         {"x.md": md("name: desc-list\ndescription:\n  - one\n  - two\n")}),
    Case("desc-when-to-use", "when_to_use instead of description",
         {"x.md": md("name: desc-when\nwhen_to_use: Use it for reviews.\n")}),
    Case("desc-long-5000", "a 5,000-character description is listed whole",
         {"x.md": agent("desc-long", "D" + "escription " * 454 + "end.")}),
    Case("desc-literal-backslash-n", "literal \\n in a plain value becomes a newline",
         {"x.md": md("name: desc-bsn\ndescription: First\\nSecond\\n\\nThird\n")}),
    Case("desc-backslash-quote", "\\\" stays a backslash and a quote",
         {"x.md": md('name: desc-bsq\ndescription: Say \\"hi\\" politely\n')}),
    Case("desc-backslash-t", "a literal \\t is not unescaped",
         {"x.md": md("name: desc-bst\ndescription: Tab\\there\n")}),
    Case("desc-trailing-space-quoted", "a quoted description keeps trailing spaces",
         {"x.md": md('name: desc-trail\ndescription: "Ends with spaces   "\n')}),
    # --- tools -----------------------------------------------------------------------------------
    _tools("tools-comma", "comma string with Bash", "tools: Read, Grep, Bash\n"),
    _tools("tools-yaml-list", "YAML block list", "tools:\n  - Read\n  - Grep\n"),
    _tools("tools-flow-list", "YAML flow list", "tools: [Read, Glob]\n"),
    _tools("tools-unknown-mixed", "an unknown name beside a known one", "tools: Read, Teleport\n"),
    _tools("tools-only-unknown", "only unknown names: the spawn is refused",
           "tools: Teleport, Warp\n"),
    _tools("tools-bash-pattern", "a Bash(...) pattern", "tools: Bash(git:*), Read\n"),
    _tools("tools-pattern-space", "a pattern with a space inside parentheses",
           "tools: Bash(git commit:*), Read\n"),
    _tools("tools-agent-pattern", "Agent(worker, reviewer)", "tools: Agent(worker, reviewer)\n"),
    _tools("tools-mcp", "an mcp__ tool name", "tools: mcp__github__create_issue, Read\n"),
    _tools("tools-star", "tools: '*'", 'tools: "*"\n'),
    _tools("tools-null", "tools: with no value", "tools:\n"),
    _tools("tools-empty-string", 'tools: ""', 'tools: ""\n'),
    _tools("tools-empty-list", "tools: []", "tools: []\n"),
    _tools("tools-map", "tools as a map (OpenCode style)", "tools:\n  read: true\n  grep: true\n"),
    _tools("tools-lowercase", "lower-case names are unknown", "tools: read, grep\n"),
    _tools("tools-disallowed-only", "disallowedTools alone", "disallowedTools: Bash, Write\n"),
    _tools("tools-with-disallowed", "tools minus disallowedTools",
           "tools: Read, Grep, Bash\ndisallowedTools: Bash\n"),
    _tools("tools-space-separated", "names separated by spaces", "tools: Read Grep Bash\n"),
    _tools("tools-list-item-spaces", "a list item holding two names", "tools:\n  - Read Grep\n"),
    _tools("tools-grep-glob", "Grep and Glob without Bash", "tools: Grep, Glob\n"),
    # --- model -----------------------------------------------------------------------------------
    _model("model-unknown", "an unknown model is passed through", "model: banana\n"),
    _model("model-haiku", "alias haiku", "model: haiku\n"),
    _model("model-opus", "alias opus", "model: opus\n"),
    _model("model-full-id", "a full model id", "model: claude-3-5-haiku-20241022\n"),
    _model("model-inherit", "inherit: the parent's model", "model: inherit\n"),
    _model("model-inherit-upper", "INHERIT, matched case-insensitively", "model: INHERIT\n"),
    _model("model-sonnet-capital", "Sonnet resolves like sonnet", "model: Sonnet\n"),
    _model("model-spaces", "a quoted model with spaces around it", 'model: "  haiku  "\n'),
    _model("model-missing", "no model", ""),
    _model("model-list", "a list as model", "model:\n  - sonnet\n  - haiku\n"),
    # --- fields that are ignored -----------------------------------------------------------------
    _field("field-permission-mode-bad", "permissionMode: banana", "permissionMode: banana\n"),
    _field("field-color-unknown", "an unknown colour", "color: chartreuse\n"),
    _field("field-color-known", "a known colour", "color: blue\n"),
    _field("field-max-turns-text", 'maxTurns: "ten"', 'maxTurns: "ten"\n'),
    _field("field-max-turns-zero", "maxTurns: 0", "maxTurns: 0\n"),
    _field("field-unknown-keys", "unknown keys: one warning naming all",
           "allowedTools: Read\nversion: 2\ntags: [a, b]\n"),
    _field("field-effort-bad", "effort: extreme", "effort: extreme\n"),
    _field("field-isolation-bad", "isolation: container", "isolation: container\n"),
    _field("field-isolation-remote", "isolation: remote is valid", "isolation: remote\n"),
    _field("field-isolation-worktree", "isolation: worktree is valid", "isolation: worktree\n"),
    _field("field-hooks-unknown-event", "a hook with an unknown event",
           "hooks:\n  NotAnEvent:\n    - hooks:\n        - type: command\n"
           "          command: echo hi\n"),
    _field("field-hooks-guard-not-list", "a PreToolUse hook that is one matcher, not a list",
           "hooks:\n  PreToolUse:\n    matcher: Bash\n    hooks:\n      - type: command\n"
           "        command: echo hi\n"),
    _field("field-hooks-guard-top-level", "PreToolUse at the top level, outside hooks",
           "PreToolUse:\n  - matcher: Bash\n    hooks:\n      - type: command\n"
           "        command: echo hi\n"),
    # measured first on 2.1.332 (older recordings do not hold these)
    _field("field-hooks-string", "hooks written as a string: the agent is not loaded",
           'hooks: "echo hi"\n'),
    _field("field-hooks-list", "hooks written as a list: the agent is not loaded",
           "hooks:\n  - type: command\n    command: echo hi\n"),
    _field("field-hooks-guard-bad-type", "a PreToolUse hook of an unknown type: not loaded",
           "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: teleport\n"
           "          command: echo hi\n"),
    _tools("tools-disallowed-star", "disallowedTools: \"*\" denies nothing",
           'tools: Read, Grep\ndisallowedTools: "*"\n'),
    _tools("tools-disallowed-bash-pattern", "Bash(rm:*) in disallowedTools removes Bash",
           "tools: Read, Bash\ndisallowedTools: Bash(rm:*)\n"),
    _tools("tools-memory-adds-write-edit", "memory with a tools list adds Write and Edit",
           "tools: Read\nmemory: user\n"),
    Case("field-skills-missing", "a skill that does not exist is dropped; the agent loads",
         {"field-skills-missing.md": md("name: field-skills-missing\ndescription: Skills case.\n"
                                        "skills: present-skill, no-such-skill\n")},
         project_files={".claude/skills/present-skill/SKILL.md": md(
             "name: present-skill\ndescription: A skill that exists.\n", "Skill text.\n")},
         spawn=("field-skills-missing",)),
    _one("field-mcp-servers-map", "mcpServers as a mapping: spawned, no server is considered",
         "field-mcp-servers-map", "name: field-mcp-servers-map\ndescription: Field case.\n"
         "mcpServers:\n  probe:\n    command: /bin/true\n", spawn=True),
    _one("field-mcp-servers-list", "mcpServers as a list: spawned, its server is considered",
         "field-mcp-servers-list", "name: field-mcp-servers-list\ndescription: Field case.\n"
         "mcpServers:\n  - probe:\n      command: /bin/true\n", spawn=True),
    _field("field-background-bad", "background: maybe", "background: maybe\n"),
    _field("field-memory-bad", "memory: global", "memory: global\n"),
)

EXTRA_CASES: tuple[Case, ...] = (
    Case("extra-dashes-in-quoted-value", "--- inside a quoted value still ends the block",
         {"x.md": md('name: extra-dq-dashes\ndescription: "Before --- after"\n')}),
    Case("extra-dots-closing", "'...' does not close the block",
         {"x.md": raw("---\nname: extra-dots\ndescription: Dots close.\n...\nBody.\n")}),
    Case("extra-tools-trailing-comma", "tools with a trailing comma",
         {"x.md": md("name: extra-trailing-comma\ndescription: Comma.\ntools: Read, Grep,\n")},
         spawn=("extra-trailing-comma",)),
    Case("extra-desc-only-newline", "a description that is only a literal \\n",
         {"x.md": md("name: extra-only-nl\ndescription: \\n\n")}),
    Case("extra-desc-only-spaces", "a description of spaces only",
         {"x.md": md('name: extra-only-spaces\ndescription: "   "\n')}),
    Case("extra-crlf-fallback", "CRLF file whose description needs the second pass",
         {"x.md": md("name: extra-crlf-fb\ndescription: Use when: CRLF endings\n",
                     newline="\r\n")}),
    Case("extra-tab-continuation", "a plain description continued on a tab-indented line",
         {"x.md": md("name: extra-tab-cont\ndescription: First part\n\tsecond part\n")}),
    Case("extra-key-with-digits", "a valid unknown key with digits",
         {"x.md": md("name: extra-digits\ndescription: Digits.\nv2: yes\n")}),
    Case("extra-unicode-name", "a non-ASCII name loads as written",
         {"x.md": agent("réviseur-ü")}),
    Case("extra-fullwidth-letters", "full-width letters (NFKC is only used for the ':' check)",
         {"x.md": agent("ｒｅｖｉｅｗｅｒ")}),
    Case("extra-emoji-name", "an emoji in the name", {"x.md": agent("rocket-🚀")}),
    Case("extra-name-unquoted-trailing", "unquoted name with trailing spaces (YAML trims)",
         {"x.md": md("name: extra-trim   \ndescription: Trimmed.\n")}),
    Case("extra-name-slash", "a name with a slash", {"x.md": agent("team/extra-slash")}),
    Case("extra-open-trailing-space", "an opening '--- ' with trailing spaces",
         {"x.md": raw("---   \nname: extra-open-space\ndescription: Spaces.\n---\nBody.\n")}),
    Case("extra-open-four-dashes", "'----' is not an opening line",
         {"x.md": raw("----\nname: extra-four\ndescription: Four.\n---\nBody.\n")}),
    Case("extra-close-with-text", "a closing '--- end' line: the rest goes to the body",
         {"x.md": raw("---\nname: extra-close-text\ndescription: Close.\n--- end\nBody.\n")},
         spawn=("extra-close-text",)),
    Case("extra-bom-twice", "two BOMs: only one is stripped",
         {"x.md": b"\xef\xbb\xbf\xef\xbb\xbf" + agent("extra-bom2")}),
    Case("extra-empty-frontmatter", "an empty block", {"x.md": raw("---\n---\nBody.\n")}),
    Case("extra-desc-folded-block", "a >- folded description",
         {"x.md": md("name: extra-folded\ndescription: >-\n  One\n  two.\n")}),
    Case("extra-tools-no-spaces", "tools: Read,Grep without spaces",
         {"x.md": md("name: extra-no-spaces\ndescription: Tight.\ntools: Read,Grep\n")},
         spawn=("extra-no-spaces",)),
    Case("extra-tools-repeated", "a tool named twice",
         {"x.md": md("name: extra-repeat\ndescription: Repeat.\ntools: Read, Read, Grep\n")},
         spawn=("extra-repeat",)),
    Case("extra-tools-star-in-list", "['*'] as a list",
         {"x.md": md('name: extra-star-list\ndescription: Star list.\ntools: ["*"]\n')},
         spawn=("extra-star-list",)),
    Case("extra-model-empty", "model: with no value",
         {"x.md": md("name: extra-model-empty\ndescription: Empty model.\nmodel:\n")},
         spawn=("extra-model-empty",)),
    Case("extra-single-quote-escape", "a single-quoted value with ''",
         {"x.md": md("name: extra-sq\ndescription: 'It''s fine'\n")}),
    Case("extra-cr-only", "old Mac line endings (CR only)",
         {"x.md": raw("---\rname: extra-cr\rdescription: CR.\r---\rBody.\r")}),
    Case("extra-user-only", "an agent only in the user folder",
         {}, user_files={"u.md": agent("extra-user-only", "From the user folder.",
                                       "tools: Read\n")}, spawn=("extra-user-only",)),
    Case("extra-user-duplicate", "the same name twice in the user folder",
         {}, user_files={"a.md": agent("extra-user-dup", "From a."),
                         "b.md": agent("extra-user-dup", "From b.")}),
    Case("extra-not-found-spawn", "launching a name that did not load",
         {"x.md": md("name: extra-not-loaded\n")}, spawn=("extra-not-loaded",)),
    Case("extra-description-hash-quoted", "a # inside a quoted value is kept",
         {"x.md": md('name: extra-hash\ndescription: "C# and F# # not a comment"\n')}),
)
