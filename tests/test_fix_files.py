"""``fix`` over many files is the library's (:func:`subagents.repair.fix.fix_files`): the CLI
only parses, calls and prints, so a script gets the same counts as ``subagents fix``."""

from __future__ import annotations

from pathlib import Path

from subagents.repair.fix import FixStatus, fix_files, fix_targets


def test_fix_files_counts_as_the_command_does(tmp_path: Path) -> None:
    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "notes.md").write_text("just notes\n", encoding="utf-8")
    (folder / "broken.md").write_text(
        "---\nname: broken\ndescription: Use when: reviewing\n---\nReview.\n", encoding="utf-8")
    (folder / "tool.md").write_text(
        "---\nname: tool\ndescription: Reviews diffs\ntools: Reed\n---\nReview.\n",
        encoding="utf-8")
    targets = fix_targets([folder, folder / "tool.md"])  # each file once
    assert sorted(p.name for p, _ in targets) == ["broken.md", "notes.md", "tool.md"]
    run = fix_files(targets, write=False)
    status = {Path(r.path).name: r.status for r in run.results}
    assert status == {"broken.md": FixStatus.FIXED, "notes.md": FixStatus.SKIPPED,
                      "tool.md": FixStatus.UNCHANGED}
    (errors,) = run.remaining.values()  # the unknown tool is not fix's to repair
    assert [d.rule for d in errors] and all(d.severity.value == "error" for d in errors)
    assert (folder / "broken.md").read_text(encoding="utf-8").count("Use when: reviewing") == 1


def test_a_file_named_without_frontmatter_stays_an_error(tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("just notes\n", encoding="utf-8")
    (result,) = fix_files(fix_targets([notes]), write=False).results
    assert result.status is FixStatus.UNFIXABLE
