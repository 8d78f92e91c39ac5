"""Concurrent writers on one agents.json through real MCP stdio clients (issue 6 reliability).

8 client processes, each with its own ``subagents serve-mcp`` server (official MCP SDK over
stdio), make 100 ``define_agent`` calls each on ONE group store, while a reader samples the
file in a tight loop.  Checks and prints:

* all 800 definitions present at the end (nothing lost to a racing writer);
* every sample the reader took parsed as a JSON object (the file was never half-written);
* the worst time any write waited for the store lock (must be <= 1 s), as the server reports
  it in each result (``lock_wait_ms``);
* throughput (calls/s) and call latency (also without each writer's first call, which
  carries the client's own start-up: all 8 start together after a barrier), with the
  ratio to a baseline measured in the same run: the same 800 defines made in-process by
  one ``AgentStore`` with no MCP and no contention.

Usage:  .venv/bin/python bench/bench_store.py [--procs 8] [--calls 100] [--prompt-bytes 400]
Exit status 1 if an invariant fails.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import sys
import tempfile
import threading
import time
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any


def _prompt(worker: int, i: int, size: int) -> str:
    base = f"You are agent {worker}-{i}. Check facts carefully and cite sources. "
    return (base * (size // len(base) + 1))[:size]


async def _client(
    group: str, worker: int, calls: int, size: int, barrier: Barrier, out: Any
) -> None:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "subagents.cli.main", "serve-mcp", "--group-dir", group],
    )
    waits: list[float] = []
    holds: list[float] = []
    latencies: list[float] = []
    errors: list[str] = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await anyio.to_thread.run_sync(barrier.wait)  # everyone starts writing together
        for i in range(calls):
            started = time.perf_counter()
            result = await session.call_tool(
                "define_agent",
                {
                    "name": f"w{worker}-agent-{i}",
                    "description": f"Agent {i} of writer {worker}. Use it for bench checks.",
                    "prompt": _prompt(worker, i, size),
                    "tools": ["Read", "WebSearch"],
                    "model": "haiku",
                },
            )
            latencies.append(time.perf_counter() - started)
            if result.is_error:
                errors.append(str(result.content[0]))
            else:
                waits.append(float(result.structured_content["lock_wait_ms"]))
                holds.append(float(result.structured_content["lock_held_ms"]))
    out.put(
        {
            "worker": worker,
            "waits_ms": waits,
            "holds_ms": holds,
            "latencies": latencies,
            "errors": errors,
        }
    )


def _worker(group: str, worker: int, calls: int, size: int, barrier: Barrier, out: Any) -> None:
    import anyio

    anyio.run(_client, group, worker, calls, size, barrier, out)


def _sampler(path: Path, stop: threading.Event, stats: dict[str, Any]) -> None:
    samples = bad = 0
    versions: set[int] = set()
    while not stop.is_set():
        time.sleep(0.001)  # leave the (few) CPUs to the writers; still thousands of samples
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            continue  # before the first write
        samples += 1
        try:
            data = json.loads(raw)
            if not isinstance(data, dict):
                raise ValueError("not an object")
            versions.add(len(data))
        except ValueError as exc:
            bad += 1
            stats.setdefault("first_bad", f"{exc} ({len(raw)} bytes)")
    stats.update(samples=samples, bad=bad, versions=len(versions))


def _baseline(n: int, size: int) -> float:
    from subagents.store.core import AgentStore

    with tempfile.TemporaryDirectory() as tmp:
        store = AgentStore(None, tmp)
        started = time.perf_counter()
        for i in range(n):
            store.define(
                f"agent-{i}",
                f"Agent {i}. Use it for bench checks.",
                _prompt(0, i, size),
                tools=["Read", "WebSearch"],
                model="haiku",
            )
        return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--procs", type=int, default=8)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--prompt-bytes", type=int, default=400)
    args = parser.parse_args()
    total = args.procs * args.calls

    baseline = _baseline(total, args.prompt_bytes)

    with tempfile.TemporaryDirectory() as tmp:
        group = Path(tmp) / "group"
        store_path = group / "agents.json"
        ctx = mp.get_context("spawn")
        barrier = ctx.Barrier(args.procs + 1)
        out = ctx.Queue()
        procs = [
            ctx.Process(
                target=_worker, args=(str(group), w, args.calls, args.prompt_bytes, barrier, out)
            )
            for w in range(args.procs)
        ]
        for p in procs:
            p.start()
        stop = threading.Event()
        stats: dict[str, Any] = {}
        sampler = threading.Thread(target=_sampler, args=(store_path, stop, stats))
        barrier.wait(timeout=120)  # every client connected and initialised
        sampler.start()
        started = time.perf_counter()
        results = [out.get(timeout=600) for _ in procs]
        elapsed = time.perf_counter() - started
        stop.set()
        sampler.join()
        for p in procs:
            p.join(timeout=60)
        final = json.loads(store_path.read_text(encoding="utf-8"))
        final_bytes = store_path.stat().st_size
        strays = [p.name for p in group.iterdir() if p.name.endswith(".tmp")]

    waits = [w for r in results for w in r["waits_ms"]]
    holds = [h for r in results for h in r["holds_ms"]]
    latencies = sorted(x for r in results for x in r["latencies"])
    warm = max(x for r in results for x in r["latencies"][1:])  # without each first call
    errors = [e for r in results for e in r["errors"]]
    expected = {f"w{w}-agent-{i}" for w in range(args.procs) for i in range(args.calls)}
    missing = expected - set(final)
    throughput = total / elapsed
    base_rate = total / baseline

    print(
        f"writers: {args.procs} processes x {args.calls} define_agent calls "
        f"over MCP stdio (one server each), prompt {args.prompt_bytes} B"
    )
    print(
        f"definitions present at the end: {len(expected & set(final))}/{total} "
        f"(missing {len(missing)}), file {final_bytes:,} bytes, stray temp files {len(strays)}"
    )
    print(f"tool errors: {len(errors)}" + (f" (first: {errors[0][:200]})" if errors else ""))
    print(
        f"reader samples: {stats['samples']:,}, invalid JSON seen: {stats['bad']}, "
        f"distinct versions seen: {stats['versions']}"
        + (f" (first bad: {stats['first_bad']})" if stats.get("first_bad") else "")
    )
    print(
        f"lock wait: max {max(waits):.1f} ms, p99 "
        f"{statistics.quantiles(waits, n=100)[98]:.1f} ms, median "
        f"{statistics.median(waits):.2f} ms"
    )
    print(f"lock held per write: median {statistics.median(holds):.1f} ms, max {max(holds):.1f} ms")
    print(
        f"call latency: median {statistics.median(latencies) * 1000:.1f} ms, p99 "
        f"{latencies[int(len(latencies) * 0.99) - 1] * 1000:.1f} ms, "
        f"max {latencies[-1] * 1000:.1f} ms (without each writer's first call: "
        f"{warm * 1000:.1f} ms)"
    )
    print(f"throughput: {throughput:.0f} calls/s over {elapsed:.2f} s")
    print(
        f"baseline (same {total} defines in-process, one writer, no MCP): "
        f"{base_rate:.0f} defines/s over {baseline:.2f} s; ratio MCP-concurrent/baseline "
        f"= {throughput / base_rate:.2f}"
    )

    ok = (
        not missing
        and not errors
        and stats["bad"] == 0
        and max(waits) <= 1000.0
        and not strays
        and stats["samples"] > 0
    )
    print("RESULT:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
