"""Registry speed: cold load, warm reload, watch latency, memory per agent.

Run: ``.venv/bin/python bench/bench_registry.py [--corpus DIR] [--sizes 1000,10000]``

Corpus files are copied into temporary scope folders at run time (never into the repository):
half the copies get a unique ``name:`` (``<name>-<i>``), the other half share names in groups
of four, one per scope folder (project cwd, project parent, user, plugin), so precedence and
shadowing are part of the work.
Files of the corpus that do not load stay broken in the copies (they exercise the diagnostics
path too); the figures say how many loaded.

Baselines, measured in the same run on the same files: reading the bytes (``open().read()``)
and the reader alone (``read_agent_file(include_body=False)`` in a loop).  Targets (issue 3):
warm reload with nothing changed <= 10 ms for 1,000 agents; write -> ``modified`` event median
<= 300 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

from subagents.harnesses.loader import read_agent_file
from subagents.registry.core import AgentRegistry

PAST = 1_600_000_000
_NAME = re.compile(r"(?m)^name:[ \t]*['\"]?([^'\"\n]*?)['\"]?[ \t]*$")


def corpus_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.md") if p.is_file())


def build_tree(base: Path, corpus: list[Path], n: int) -> dict[str, Path]:
    """N agent files spread over scope folders; returns the folders."""
    home = base / "home"
    project = base / "project"
    cwd = project / "pkg"
    (project / ".git").mkdir(parents=True)
    cwd.mkdir(parents=True)
    folders = [
        cwd / ".claude" / "agents",
        project / ".claude" / "agents",
        home / ".claude" / "agents",
        base / "plugin" / "agents",
    ]
    for f in folders:
        f.mkdir(parents=True)
    for i in range(n):
        src = corpus[i % len(corpus)]
        text = src.read_bytes().decode("utf-8", "replace")

        # Even files: a name of their own.  Odd files: groups of four share one name, one per
        # scope folder, so shadowing (and plugin namespacing) is exercised too.
        def rename(m: re.Match[str], i: int = i) -> str:
            return f"name: shared-{i // 8}" if i % 2 else f"name: {m.group(1) or 'agent'}-{i}"

        text, count = _NAME.subn(rename, text, 1)
        if not count:
            text = text.replace("---\n", f"---\nname: agent-{i}\n", 1)
        folder = folders[(i // 2) % len(folders)]
        sub = folder / f"g{i % 10}"  # a little nesting, as real trees have
        sub.mkdir(exist_ok=True)
        path = sub / f"a{i:05d}.md"
        path.write_text(text, encoding="utf-8")
        os.utime(path, (PAST, PAST))
    for folder in folders:
        for d in [folder, *folder.iterdir()]:
            os.utime(d, (PAST, PAST))
    return {"home": home, "cwd": cwd, "plugin": base / "plugin", "root": base}


def all_files(tree: dict[str, Path]) -> list[Path]:
    return sorted(tree["root"].rglob("*.md"))


def timed(fn: object, repeat: int = 1) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        out.append(time.perf_counter() - t0)
    return out


def registry_for(tree: dict[str, Path]) -> AgentRegistry:
    return AgentRegistry(tree["cwd"], home=tree["home"], plugin_dirs=[tree["plugin"]])


def bench_size(corpus: list[Path], n: int, watch_samples: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-registry-") as tmp:
        tree = build_tree(Path(tmp), corpus, n)
        files = all_files(tree)
        raw = min(timed(lambda: [p.read_bytes() for p in files], 3))
        reader = min(timed(lambda: [read_agent_file(p, include_body=False) for p in files], 3))
        cold_runs = timed(lambda: registry_for(tree).load_all(), 3)
        cold = min(cold_runs)
        reg = registry_for(tree).load_all()
        loaded = len(reg.list(include_builtin=False))
        shadow = len(reg.shadowed(include_builtin=False))
        failed = len(reg.failed_files())
        reg.reload()
        warm = timed(reg.reload, 20)
        warm_med = statistics.median(warm)
        stat_base = min(timed(lambda: [os.stat(p) for p in files], 5))

        print(
            f"\n== {n:,} agent files ({loaded:,} loaded, {shadow} shadowed, "
            f"{failed} failed to load) =="
        )
        print(f"baseline read bytes       {raw * 1e3:9.1f} ms")
        print(f"baseline reader loop      {reader * 1e3:9.1f} ms  ({reader / raw:5.1f}x bytes)")
        print(
            f"cold load_all()           {cold * 1e3:9.1f} ms  ({cold / reader:5.2f}x reader, "
            f"{cold / n * 1e6:6.1f} us/file)"
        )
        print(f"baseline stat() loop      {stat_base * 1e3:9.2f} ms")
        print(
            f"warm reload(), unchanged  {warm_med * 1e3:9.2f} ms median "
            f"(min {min(warm) * 1e3:.2f}, {warm_med / stat_base:4.1f}x stat loop)"
            + ("  [target <= 10 ms]" if n == 1000 else "")
        )

        # memory per agent, bodies not loaded vs loaded
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        reg2 = registry_for(tree).load_all()
        after = tracemalloc.take_snapshot()
        headers = sum(s.size_diff for s in after.compare_to(before, "filename"))
        for entry in reg2.list(include_builtin=False):
            _ = entry.definition
        full = tracemalloc.take_snapshot()
        bodies = sum(s.size_diff for s in full.compare_to(after, "filename"))
        tracemalloc.stop()
        per = headers / max(1, loaded + shadow)
        print(f"memory, no bodies         {headers / 1024:9.0f} KiB  ({per / 1024:5.2f} KiB/agent)")
        print(
            f"memory added by bodies    {bodies / 1024:9.0f} KiB  "
            f"({bodies / max(1, loaded) / 1024:5.2f} KiB/agent loaded on demand)"
        )
        del reg2

        if watch_samples:
            lat = asyncio.run(watch_latency(reg, files, watch_samples))
            for kind, target in (
                ("modified", "  [target median <= 300 ms]"),
                ("added", ""),
                ("removed", ""),
            ):
                got = sorted(lat[kind])
                print(
                    f"watch -> {kind:<9}        {statistics.median(got) * 1e3:9.1f} ms median, "
                    f"p90 {got[max(0, int(len(got) * 0.9) - 1)] * 1e3:.1f} ms, "
                    f"max {got[-1] * 1e3:.1f} ms over {len(got)} changes{target}"
                )


async def watch_latency(
    reg: AgentRegistry, files: list[Path], samples: int
) -> dict[str, list[float]]:
    """Seconds from a write to its event: appends to visible agents (``modified``), new files
    with new names (``added``), then deleting those (``removed``)."""
    loaded = {e.path: e.name for e in reg.list(include_builtin=False) if e.path}
    targets = [p for p in files if p in loaded][:samples]
    folder = targets[0].parent
    out: dict[str, list[float]] = {"modified": [], "added": [], "removed": []}
    stream = reg.watch()

    async def until(kind: str, name: str, t0: float) -> None:
        while True:
            ev = await asyncio.wait_for(stream.__anext__(), 10)
            if ev.event == kind and ev.name == name:
                out[kind].append(time.perf_counter() - t0)
                return

    try:
        await stream.__anext__()  # ready
        for i, path in enumerate(targets):
            await asyncio.sleep(0.05)
            t0 = time.perf_counter()
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(f"\n<!-- touch {i} -->\n")
            await until("modified", loaded[path], t0)
        fresh = []
        for i in range(max(3, samples // 3)):
            await asyncio.sleep(0.05)
            name = f"bench-fresh-{i}"
            path = folder / f"{name}.md"
            t0 = time.perf_counter()
            path.write_text(f"---\nname: {name}\ndescription: Fresh. Use it.\n---\nBody.\n")
            await until("added", name, t0)
            fresh.append((name, path))
        for name, path in fresh:
            await asyncio.sleep(0.05)
            t0 = time.perf_counter()
            path.unlink()
            await until("removed", name, t0)
    finally:
        await stream.aclose()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    corpus = Path(__file__).resolve().parents[2] / "shared" / "corpus"
    ap.add_argument("--corpus", type=Path, default=corpus)
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--watch-samples", type=int, default=30)
    args = ap.parse_args()
    corpus = corpus_files(args.corpus)
    if not corpus:
        raise SystemExit(f"no corpus files under {args.corpus}")
    print(f"corpus: {len(corpus)} files from {args.corpus}")
    for n in (int(s) for s in args.sizes.split(",")):
        bench_size(corpus, n, args.watch_samples if n <= 1000 else 10)


if __name__ == "__main__":
    main()
