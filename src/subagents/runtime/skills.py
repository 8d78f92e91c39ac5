"""Skills an agent references, loaded into its context at activation.

``skills: security-checklist, style-guide`` names skills; each is a folder holding a
``SKILL.md`` (YAML frontmatter with ``name``/``description``, then instructions), looked up the
way Claude Code does, closest first: ``.claude/skills/<name>/SKILL.md`` in the working folder
and its parents up to the repository root, then ``~/.claude/skills/<name>/SKILL.md``.  A skill
may also be matched by the ``name`` field of its SKILL.md when the folder is named otherwise.

The instructions are appended to the agent's system prompt under a ``# Skill: name`` heading, so
the agent "pays the token cost of loaded skills" exactly once per run.  A skill that cannot be
found or read is reported in ``missing``/``warnings`` and the run goes on without it (a missing
skill must not stop an agent, but the user must be told).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from subagents.formats.frontmatter import decode_bytes, split_frontmatter

__all__ = ["LoadedSkills", "Skill", "load_skills", "skill_search_path"]

MAX_SKILL_BYTES = 256 * 1024


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    description: str
    instructions: str
    path: Path


@dataclass(slots=True)
class LoadedSkills:
    skills: list[Skill] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def prompt_section(self) -> str:
        """The text appended to the system prompt (empty when there are no skills)."""
        parts = []
        for skill in self.skills:
            header = f"# Skill: {skill.name}"
            if skill.description:
                header += f"\n\n_{skill.description}_"
            parts.append(f"{header}\n\n{skill.instructions.strip()}")
        return "\n\n".join(parts)


def skill_search_path(cwd: Path, home: Path | None = None) -> list[Path]:
    """Folders that may hold skills, closest first."""
    folders: list[Path] = []
    here = cwd.resolve()
    for folder in (here, *here.parents):
        folders.append(folder / ".claude" / "skills")
        if (folder / ".git").exists():
            break
    home = home or Path(os.path.expanduser("~"))
    folders.append(home / ".claude" / "skills")
    return folders


def load_skills(
    names: Sequence[str], cwd: Path, *, home: Path | None = None, extra_dirs: Iterable[Path] = ()
) -> LoadedSkills:
    result = LoadedSkills()
    folders = [*extra_dirs, *skill_search_path(cwd, home)]
    for name in names:
        if not _safe_name(name):
            result.warnings.append(f"skill name {name!r} is not a plain name; skipped")
            result.missing.append(name)
            continue
        skill = _find(name, folders, result.warnings)
        if skill is None:
            result.missing.append(name)
            result.warnings.append(
                f"skill {name!r} not found in " + ", ".join(str(f) for f in folders)
            )
        else:
            result.skills.append(skill)
    return result


def _safe_name(name: str) -> bool:
    return bool(name) and "/" not in name and "\\" not in name and name not in (".", "..")


def _find(name: str, folders: Sequence[Path], warnings: list[str]) -> Skill | None:
    for folder in folders:
        candidate = folder / name / "SKILL.md"
        if candidate.is_file():
            return _read(candidate, name, warnings)
    # A folder named differently whose SKILL.md declares this name.
    for folder in folders:
        if not folder.is_dir():
            continue
        for candidate in sorted(folder.glob("*/SKILL.md")):
            skill = _read(candidate, None, warnings)
            if skill is not None and skill.name == name:
                return skill
    return None


def _read(path: Path, expected: str | None, warnings: list[str]) -> Skill | None:
    try:
        if path.stat().st_size > MAX_SKILL_BYTES:
            warnings.append(f"{path}: skill larger than {MAX_SKILL_BYTES:,} bytes; skipped")
            return None
        data = path.read_bytes()
    except OSError as exc:
        warnings.append(f"{path}: cannot read skill ({exc.strerror or exc})")
        return None
    decoded = decode_bytes(data)
    if decoded.text is None:
        warnings.append(f"{path}: skill is not UTF-8 text; skipped")
        return None
    doc, _issues = split_frontmatter(decoded.text)
    if doc is None or doc.root is None:
        # No frontmatter: the whole file is the instructions.
        return Skill(expected or path.parent.name, "", decoded.text, path)
    meta = doc.root.to_python()
    name = meta.get("name") if isinstance(meta.get("name"), str) else None
    description = meta.get("description") if isinstance(meta.get("description"), str) else ""
    return Skill(name or expected or path.parent.name, description or "", doc.body, path)
