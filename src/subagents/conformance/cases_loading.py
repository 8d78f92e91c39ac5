"""Cases about finding files and reading the frontmatter block (discovery, precedence,
duplicates, encodings, the block itself, YAML, and the lenient second YAML pass)."""

from __future__ import annotations

from subagents.conformance.casekit import Case, agent, md, raw

__all__ = ["LOADING_CASES"]

_MIB = 1_048_576


def _sized(name: str, total: int) -> bytes:
    """A valid file of exactly ``total`` bytes (the body is padded)."""
    head = md(f"name: {name}\ndescription: Agent {name}.\n", "x")[:-1]
    pad = total - len(head) - 1
    return head + b"p" * pad + b"\n"


_ESCAPED = (r"Use this agent after code changes. Examples:\n\n<example>\n"
            r"Context: new code was written\n")

LOADING_CASES: tuple[Case, ...] = (
    # --- discovery -------------------------------------------------------------------------------
    Case("baseline", "a plain valid file: tools list, model alias, body",
         {"baseline.md": agent("baseline", "Checks code after edits.",
                               "tools: Read, Grep, Glob\nmodel: sonnet\n")},
         spawn=("baseline",)),
    Case("discovery-subfolders", "files in sub and nested folders load",
         {"sub/one.md": agent("disc-sub-one"), "a/b/c/two.md": agent("disc-sub-two")}),
    Case("discovery-nested-cwd",
         "started in sub/deeper: .claude/agents of every folder up to the git root load, "
         "one beside the path does not; same name at two levels",
         {"root.md": agent("nest-root"), "shared.md": agent("nest-shared", "From the root.")},
         project_files={"sub/.claude/agents/inner.md": agent("nest-inner"),
                        "sub/.claude/agents/shared.md": agent("nest-shared", "From sub."),
                        "other/.claude/agents/side.md": agent("nest-side")},
         cwd="sub/deeper", spawn=("nest-shared",)),
    Case("symlink-file", "a linked file inside .claude/agents is followed",
         {}, project_files={"lib/real.md": agent("link-file")},
         links={".claude/agents/link.md": "../../lib/real.md"}, spawn=("link-file",)),
    Case("symlink-folder", "a linked folder inside .claude/agents is followed",
         {"plain.md": agent("link-plain")},
         project_files={"lib/team/member.md": agent("link-member")},
         links={".claude/agents/team": "../../lib/team"}),
    Case("symlink-broken", "a link to nothing, beside a valid file",
         {"ok.md": agent("link-ok")}, links={".claude/agents/broken.md": "missing.md"}),
    Case("symlink-loop", "a folder link back to its parent (a loop), beside a valid file",
         {"a.md": agent("link-loop")}, links={".claude/agents/again": "."}),
    Case("symlink-twice", "two links to one file: the same name twice in one scope",
         {}, project_files={"lib/one.md": agent("link-twice")},
         links={".claude/agents/first.md": "../../lib/one.md",
                ".claude/agents/second.md": "../../lib/one.md"}),
    Case("symlink-not-md", "a link named .md to a file named .txt",
         {}, project_files={"lib/text.txt": agent("link-txt")},
         links={".claude/agents/t.md": "../../lib/text.txt"}),
    Case("listing-many-agents", "60 agents in one folder: the listing holds every one",
         {f"many-{i:02d}.md": agent(f"many-{i:02d}", f"Agent number {i} of sixty.")
          for i in range(60)}),
    Case("discovery-hidden-folder", "a file inside a dot-folder loads (--hidden)",
         {".hidden/x.md": agent("disc-hidden-folder")}),
    Case("discovery-dotfile", "a dot-file ending in .md loads",
         {".disc-dotfile.md": agent("disc-dotfile")}),
    Case("discovery-extensions", ".MD, .markdown and .txt are not read; .md is",
         {"upper.MD": agent("disc-ext-upper"), "long.markdown": agent("disc-ext-markdown"),
          "text.txt": agent("disc-ext-txt"), "plain.md": agent("disc-ext-plain")}),
    Case("discovery-agent-md", "*.agent.md ends in .md and loads",
         {"reviewer.agent.md": agent("disc-agent-md")}),
    Case("discovery-size-over", "a file over 1,048,576 bytes is skipped",
         {"big.md": _sized("disc-size-over", _MIB + 48), "small.md": agent("disc-size-small")}),
    Case("discovery-size-exact", "a file of exactly 1,048,576 bytes",
         {"exact.md": _sized("disc-size-exact", _MIB)}),
    Case("encoding-latin1", "Latin-1 bytes become U+FFFD and the file loads",
         {"latin.md": raw("---\nname: enc-latin1\ndescription: Caf\xe9 cr\xe8me helper.\n---\n"
                          "Body \xe9.\n", "latin-1")}, spawn=("enc-latin1",)),
    Case("encoding-bom-crlf", "BOM + CRLF: loads, the body keeps CRLF",
         {"bc.md": b"\xef\xbb\xbf" + md("name: enc-bom-crlf\ndescription: BOM and CRLF.\n",
                                        "Line one.\nLine two.\n", newline="\r\n")},
         spawn=("enc-bom-crlf",)),
    Case("encoding-crlf", "CRLF line endings",
         {"c.md": md("name: enc-crlf\ndescription: CRLF only.\n", "Line one.\nLine two.\n",
                     newline="\r\n")}, spawn=("enc-crlf",)),
    Case("encoding-bom", "one UTF-8 BOM is stripped",
         {"b.md": b"\xef\xbb\xbf" + agent("enc-bom")}),
    # --- precedence ------------------------------------------------------------------------------
    Case("precedence-project-over-user", "a project agent beats the user agent of the same name",
         {"shared.md": agent("prec-shared", "Project version.")},
         user_files={"shared.md": agent("prec-shared", "User version."),
                     "only.md": agent("prec-user-only", "Only in the user folder.")},
         spawn=("prec-shared", "prec-user-only")),
    Case("precedence-builtin-override", "project Explore and general-purpose replace the built-ins",
         {"explore.md": agent("Explore", "Project explorer.", "tools: Read\n"),
          "gp.md": agent("general-purpose", "Project general agent.", "model: haiku\n")},
         spawn=("Explore", "general-purpose")),
    Case("names-case-sensitive", "Reviewer and reviewer are two agents",
         {"upper.md": agent("Reviewer", "Upper-case one."),
          "lower.md": agent("reviewer", "Lower-case one.")}),
    # --- duplicates in one scope -----------------------------------------------------------------
    Case("dup-last-wins", "same name in a-dup.md and b-dup.md: the later path wins",
         {"a-dup.md": agent("dup-ab", "From a-dup."), "b-dup.md": agent("dup-ab", "From b-dup.")},
         spawn=("dup-ab",)),
    Case("dup-code-unit-order", "Z.md sorts before a.md (code units), so a.md wins",
         {"Z.md": agent("dup-za", "From Z."), "a.md": agent("dup-za", "From a.")}),
    Case("dup-subfolder-vs-file", "sub/x.md sorts before y.md, so y.md wins",
         {"sub/x.md": agent("dup-sub", "From sub/x."), "y.md": agent("dup-sub", "From y.")}),
    Case("dup-zsub", "a.md sorts before zsub/x.md, so zsub/x.md wins",
         {"a.md": agent("dup-zsub", "From a."), "zsub/x.md": agent("dup-zsub", "From zsub/x.")}),
    # --- the frontmatter block -------------------------------------------------------------------
    Case("block-blank-line-first", "a blank line before the opening --- means no frontmatter",
         {"x.md": b"\n" + agent("block-blank-first")}),
    Case("block-indented-open", "an indented opening --- means no frontmatter",
         {"x.md": b"  " + agent("block-indented")}),
    Case("block-not-closed", "a block that is never closed is skipped silently",
         {"x.md": raw("---\nname: block-open\ndescription: Never closed.\nBody.\n")}),
    Case("block-none", "no frontmatter at all",
         {"x.md": raw("# Just a heading\n\nname: block-none\n")}),
    Case("block-dashes-mid-value", "the first --- anywhere ends the block, even mid-line",
         {"x.md": md("name: block-mid\ndescription: Before --- after\ntools: Read\n")},
         spawn=("block-mid",)),
    Case("block-yaml-comment-dashes", "a '# ---' comment ends the block; what follows is lost",
         {"x.md": md("name: block-comment\n# --- settings ---\ndescription: Has a comment.\n")}),
    Case("block-close-at-eof", "the closing --- is the last line (no body)",
         {"x.md": raw("---\nname: block-eof\ndescription: Closed at the end.\n---")},
         spawn=("block-eof",)),
    # whitespace other than spaces and tabs around a `---` line (Claude Code's block pattern uses
    # JavaScript's \s, which holds form feeds, vertical tabs, NBSP and U+2028)
    Case("block-ff-before-open", "a form feed before the opening --- means no frontmatter",
         {"x.md": b"\f" + agent("block-ff-before")}),
    Case("block-ff-line-first", "a first line holding only a form feed means no frontmatter",
         {"x.md": b"\f\n" + agent("block-ff-line")}),
    Case("block-cr-line-first", "a first line holding only a carriage return",
         {"x.md": b"\r" + agent("block-cr-line")}),
    *(Case(f"block-{tag}-after-{which}", f"{what} after the {which}ing ---",
           {"x.md": raw(f"---{ws if which == 'open' else ''}\nname: block-{tag}-{which}\n"
                        f"description: Odd {which}ing line.\n---{ws if which == 'clos' else ''}"
                        "\nBody.\n")},
           spawn=(f"block-{tag}-{which}",) if which == "clos" else ())
      for tag, ws, what in (("ff", "\f", "a form feed"), ("vt", "\v", "a vertical tab"),
                            ("spff", " \f", "a space and a form feed"),
                            ("nbsp", "\u00a0", "a no-break space"),
                            ("ls", "\u2028", "a line separator (U+2028)"),
                            ("cr", "\r", "a carriage return (that line alone ends in CRLF)"))
      for which in ("open", "clos")),
    Case("block-lone-cr-open", "the opening --- ends in a lone carriage return, the rest in LF",
         {"x.md": raw("---\rname: block-lone-cr-open\ndescription: Lone CR open.\n---\nBody.\n")}),
    Case("block-lone-cr-close", "the closing --- ends in a lone carriage return, the rest in LF",
         {"x.md": raw("---\nname: block-lone-cr-close\ndescription: Lone CR close.\n---\rBody.\n")},
         spawn=("block-lone-cr-close",)),
    Case("block-cr-only-lines", "every line ends in a lone carriage return (old Mac files)",
         {"x.md": raw("---\rname: block-cr-only\rdescription: Lone CR lines.\r---\rBody.\r")}),
    Case("body-trimmed", "the body is trimmed: blank lines and spaces around it go",
         {"x.md": md("name: body-trim\ndescription: Trimmed body.\n",
                     "\n\n   Indented first line.\nLast line.   \n\n\n")},
         spawn=("body-trim",)),
    Case("body-empty", "an empty body loads",
         {"x.md": raw("---\nname: body-empty\ndescription: Nothing below.\n---\n")},
         spawn=("body-empty",)),
    Case("frontmatter-list", "frontmatter that is a YAML list is skipped",
         {"x.md": md("- name: fm-list\n- description: A list.\n")}),
    # --- YAML ------------------------------------------------------------------------------------
    Case("yaml-duplicate-description", "a key given twice: the last one wins",
         {"x.md": md("name: yaml-dup-desc\ndescription: FIRST\ndescription: SECOND\n")}),
    Case("yaml-duplicate-name", "name given twice: the second name is used",
         {"x.md": md("name: yaml-dup-name-1\ndescription: Two names.\nname: yaml-dup-name-2\n")}),
    Case("yaml-anchors", "anchors and aliases work (the anchor key is unknown)",
         {"x.md": md("defaults: &d Read, Grep\nname: yaml-anchor\ndescription: Uses an anchor.\n"
                     "tools: *d\n")}, spawn=("yaml-anchor",)),
    Case("yaml-alias-description", "the description comes from an alias",
         {"x.md": md("text: &t Described through an alias.\nname: yaml-alias\ndescription: *t\n")}),
    Case("yaml-tag", "a tag is accepted and dropped",
         {"x.md": md("name: yaml-tag\ndescription: !important reviewer for code.\n")}),
    Case("yaml-comment", "a valid trailing comment is stripped",
         {"x.md": md("name: yaml-comment\ndescription: C# reviewer # a comment\n")}),
    Case("yaml-indented-plain", "a valid multi-line plain value is folded",
         {"x.md": md("name: yaml-plain\ndescription: First line\n  second line\n  third line\n")}),
    Case("yaml-literal-block", "a | block holding <example> lines",
         {"x.md": md("name: yaml-literal\ndescription: |\n  Reviews code.\n  <example>\n"
                     "  user: \"check it\"\n  </example>\n")}),
    Case("yaml-double-quoted-escapes", "double-quoted value with \\n escapes",
         {"x.md": md('name: yaml-dq\ndescription: "Line one.\\n\\nLine two: quoted."\n')}),
    Case("yaml-block-backslash-n", "a literal \\n inside a | block becomes a newline too",
         {"x.md": md("name: yaml-block-bsn\ndescription: |\n  One\\nTwo\n  Three\n")}),
    Case("yaml-single-quoted-backslash-n", "single-quoted 'First\\nSecond' still gets a newline",
         {"x.md": md("name: yaml-sq\ndescription: 'First\\nSecond'\n")}),
    # --- second YAML pass: recovered ------------------------------------------------------------
    Case("fallback-colon-space", "one-line unquoted description containing ': '",
         {"x.md": md("name: fb-colon\ndescription: Use when: the user asks. Example: PRs\n"
                     "tools: Read\n")}, spawn=("fb-colon",)),
    Case("fallback-escapes-example", "one line with literal \\n escapes and <example> tags",
         {"x.md": md("name: fb-escapes\ndescription: " + _ESCAPED +
                     r'user: \"Review it\"\n<commentary>\nIt applies.\n</commentary>\n</example>'
                     "\ntools: Read, Grep\n")}),
    Case("fallback-user-assistant-keys", "column-0 user:/assistant: lines become extra keys",
         {"x.md": md("name: fb-keys\ndescription: Use this agent: for reviews.\n"
                     'user: "Review my code"\nassistant: "Using fb-keys"\n')}),
    Case("fallback-trailing-spaces", "': ' plus trailing spaces: the spaces are kept",
         {"x.md": md("name: fb-trailing\ndescription: Note: keep these   \n")}),
    Case("fallback-colon-hash", "': ' plus ' #': the #... part is kept",
         {"x.md": md("name: fb-hash\ndescription: Mode: fast # trailing words\n")}),
    Case("fallback-at", "a value starting with @",
         {"x.md": md("name: fb-at\ndescription: @reviewer checks code\n")}),
    Case("fallback-backtick", "a value starting with a backtick",
         {"x.md": md("name: fb-backtick\ndescription: `make test` runner\n")}),
    Case("fallback-bracket", "a value starting with [ that is not a list",
         {"x.md": md("name: fb-bracket\ndescription: [Beta] reviewer of code\n")}),
    Case("fallback-star", "a value starting with *",
         {"x.md": md("name: fb-star\ndescription: *Important* reviewer\n")}),
    Case("fallback-percent", "a value starting with %",
         {"x.md": md("name: fb-percent\ndescription: %TEMP% cleaner\n")}),
    Case("fallback-greater", "a one-line value starting with '> '",
         {"x.md": md("name: fb-greater\ndescription: > quoted reviewer text\n")}),
    Case("fallback-tab-tools", "a tab-indented tools list (tabs become spaces)",
         {"x.md": md("name: fb-tab\ndescription: Tabbed list.\ntools:\n\t- Read\n\t- Grep\n")},
         spawn=("fb-tab",)),
    Case("fallback-context-key-only", "': ' then a column-0 'Context: a: b' line: both quoted",
         {"x.md": md("name: fb-context-key\ndescription: Use it: for reviews.\n"
                     "Context: code: a parser\n")}),
    Case("fallback-examples-line", "a column-0 'Examples:' line and a list",
         {"x.md": md("name: fb-examples\ndescription: Reviews code.\nExamples:\n- one\n- two\n")}),
    # --- second YAML pass: not recovered ---------------------------------------------------------
    Case("fallback-col0-continuation", "column-0 continuation lines that are not 'word: value'",
         {"x.md": md("name: fb-col0\ndescription: " + _ESCAPED + 'user: "Review it"\n'
                     'assistant: "Using fb-col0"\n<commentary>\nIt applies.\n</commentary>\n'
                     "</example>\ntools: Read\n")}),
    Case("fallback-context-line", "a column-0 'Context: x: y' line",
         {"x.md": md("name: fb-context\ndescription: Reviews. Examples:\n<example>\n"
                     "Context: code: a parser\nuser: \"Review\"\n</example>\n")}),
    Case("fallback-plain-col0", "a plain value continued at column 0",
         {"x.md": md("name: fb-plain\ndescription: First part of the text\nsecond part here\n")}),
    Case("fallback-indented-after-quote", "indented lines after a value that had to be quoted",
         {"x.md": md("name: fb-indented\ndescription: Use when: reviewing\n  more: text\n"
                     "  <example>\n")}),
    Case("fallback-ends-examples", "a description ending in 'Examples:'",
         {"x.md": md("name: fb-ends\ndescription: Use this for migrations. Examples:\n")}),
    Case("fallback-digit-key", "a value on a key with a digit is not quoted",
         {"x.md": md("name: fb-digit\ndescription: Digit key.\nx2: note: this\n")}),
    Case("fallback-tab-top-key", "a top-level key indented with a tab",
         {"x.md": md("name: fb-tabkey\n\tdescription: Tab first.\n")}),
    Case("fallback-name-colon", "name 'a: b' is quoted by the second pass, then refused",
         {"x.md": md("name: fb-name: extra\ndescription: Colon in name.\n")}),
)
