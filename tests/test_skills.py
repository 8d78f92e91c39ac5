"""Skills referenced by an agent are found and loaded into its context (runtime/skills.py)."""

from __future__ import annotations

from pathlib import Path

from subagents.runtime.skills import load_skills, skill_search_path


def write_skill(root: Path, folder: str, text: str) -> Path:
    path = root / ".claude" / "skills" / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_project_skill_wins_over_user_skill(tmp_path: Path, home: Path) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    write_skill(project, "owasp", "---\nname: owasp\ndescription: OWASP list\n---\nCheck A01.\n")
    write_skill(home, "owasp", "---\nname: owasp\n---\nUser version.\n")
    write_skill(home, "style", "Use tabs.\n")
    loaded = load_skills(["owasp", "style"], project, home=home)
    assert [s.name for s in loaded.skills] == ["owasp", "style"]
    assert loaded.skills[0].instructions == "Check A01.\n"
    assert loaded.skills[1].instructions == "Use tabs.\n"
    section = loaded.prompt_section()
    assert "# Skill: owasp" in section and "_OWASP list_" in section and "Use tabs." in section


def test_skill_found_by_its_declared_name(tmp_path: Path, home: Path) -> None:
    write_skill(tmp_path, "some-folder", "---\nname: adr-template\n---\nWrite an ADR.\n")
    loaded = load_skills(["adr-template"], tmp_path, home=home)
    assert [s.name for s in loaded.skills] == ["adr-template"]


def test_missing_and_unsafe_names_are_reported_not_fatal(tmp_path: Path, home: Path) -> None:
    loaded = load_skills(["nope", "../etc"], tmp_path, home=home)
    assert loaded.skills == []
    assert loaded.missing == ["nope", "../etc"]
    assert any("not found" in w for w in loaded.warnings)
    assert any("not a plain name" in w for w in loaded.warnings)
    assert loaded.prompt_section() == ""


def test_search_path_stops_at_the_repository_root(tmp_path: Path, home: Path) -> None:
    repo = tmp_path / "repo"
    sub = repo / "a" / "b"
    sub.mkdir(parents=True)
    (repo / ".git").mkdir()
    path = skill_search_path(sub, home)
    assert path[0] == sub.resolve() / ".claude" / "skills"
    assert repo.resolve() / ".claude" / "skills" in path
    assert tmp_path.resolve() / ".claude" / "skills" not in path
    assert path[-1] == home / ".claude" / "skills"


def test_binary_skill_is_skipped_with_a_warning(tmp_path: Path, home: Path) -> None:
    p = write_skill(tmp_path, "bin", "")
    p.write_bytes(b"\x00\x01\x02")
    loaded = load_skills(["bin"], tmp_path, home=home)
    assert loaded.missing == ["bin"]
    assert any("not UTF-8" in w for w in loaded.warnings)
