"""Scan speed benchmark: prints a table, asserts nothing (targets are read off the ratios).

On a copy of a corpus directory, in one run, times wall clock (s), CPU (s, user+sys of the
whole process tree) and peak memory (MB, summed RSS of the process tree, sampled every 50 ms)
of, each as a subprocess:

* ``parse floor``: ``libcst.parse_module`` of every ``.py`` file with the same number of
  processes (a ``multiprocessing`` pool), nothing else: what any libcst-based scan must pay;
* ``scan cold``: ``migrate-lens scan`` with a fresh ``--cache-dir`` (html + json reports);
* ``scan warm``: again with that cache, nothing changed;
* ``scan warm, 1 changed``: again after appending a line to one file;
* ``torchfix``: TorchFix on the same tree with the same ``--jobs`` (a separate venv is fine:
  TorchFix 0.7 pins libcst < 1.6, so pass ``--torchfix /path/to/venv/bin/torchfix``).

The tool's own modules are byte-compiled first (an installed package's are). Medians over ``--runs`` rounds; each round runs every step once, in order, so that a machine
whose speed drifts during the run (a shared VM) skews every step alike. ``--scale N`` adds the corpus copied N times (cold scan only)
and prints time and memory per copy against 1 copy. Other work on the machine skews the
figures; the load average is printed with the table.

    python benchmarks/scan_bench.py /work/corpus/core --jobs 2 --runs 3 --torchfix tfvenv/bin/torchfix
    python benchmarks/scan_bench.py /work/corpus/smoke --scale 8
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]

PARSE_FLOOR = r"""
import gc
import sys
from multiprocessing import Pool
from pathlib import Path
import libcst

gc.disable()  # as the issue measured the floor ("single process, GC off"), and as the scan runs

def parse(path):
    try:
        libcst.parse_module(Path(path).read_bytes().decode("utf-8"))
    except Exception:
        pass
    return 0

if __name__ == "__main__":
    files = sorted(str(p) for p in Path(sys.argv[1]).rglob("*.py"))
    with Pool(int(sys.argv[2])) as pool:
        list(pool.imap_unordered(parse, files, chunksize=4))
"""


@dataclass(frozen=True)
class Sample:
    """One measured run: wall and CPU seconds, peak RSS of the process tree in MB."""

    wall_s: float
    cpu_s: float
    peak_mb: float


def measure(cmd: list[str], env: dict[str, str] | None = None) -> Sample:
    """Run ``cmd`` to completion. Raises ``subprocess.CalledProcessError`` on a non-zero exit
    (TorchFix exits 1 when it finds violations: accepted)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    peak = 0.0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        try:
            root = psutil.Process(proc.pid)
        except psutil.NoSuchProcess:
            return
        while not stop.is_set():
            total = 0
            try:
                for p in [root, *root.children(recursive=True)]:
                    try:
                        total += p.memory_info().rss
                    except psutil.Error:
                        pass
            except psutil.Error:
                pass
            peak = max(peak, total / 2**20)
            stop.wait(0.05)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    _, err = proc.communicate()
    wall = time.perf_counter() - started
    stop.set()
    thread.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise subprocess.CalledProcessError(proc.returncode, cmd, stderr=err)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Sample(wall, cpu, peak)


def median(samples: list[Sample]) -> Sample:
    """Per-column medians."""
    return Sample(statistics.median(s.wall_s for s in samples), statistics.median(s.cpu_s for s in samples),
                  statistics.median(s.peak_mb for s in samples))


def count(tree: Path) -> tuple[int, int]:
    """(.py files, lines) under ``tree``."""
    files = list(tree.rglob("*.py"))
    lines = sum(p.read_bytes().count(b"\n") for p in files)
    return len(files), lines


def scan_cmd(tree: Path, out: Path, jobs: int, cache: Path) -> list[str]:
    return [sys.executable, "-m", "migrate_lens.cli", "scan", str(tree), "--out", str(out), "--format", "html,json",
            "-j", str(jobs), "--cache-dir", str(cache), "-q"]


def main() -> int:
    ap = argparse.ArgumentParser(description="migrate-lens scan benchmark (prints a table)")
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--torchfix", default=shutil.which("torchfix") or "", help="torchfix executable ('' = skip)")
    ap.add_argument("--scale", type=int, default=0, help="also scan the corpus copied N times (cold)")
    ap.add_argument("--skip", default="", help="comma-separated steps to skip: floor,cold,warm,changed,torchfix")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    # Every step runs the tool from byte-compiled modules, as an installed package does (pip
    # compiles at install; a checkout writes them on first import). In a shell with
    # PYTHONDONTWRITEBYTECODE=1, or after an edit, each scan would otherwise compile the changed
    # modules again (0.25-0.35 s a scan measured on this VM: over 10% of a warm rescan).
    # libcst, the floor's only code, comes compiled from its wheel.
    compileall.compile_dir(REPO / "migrate_lens", quiet=1)
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    work = Path(tempfile.mkdtemp(prefix="scan-bench-"))
    try:
        tree = work / "tree"
        shutil.copytree(args.corpus, tree, ignore=shutil.ignore_patterns("__pycache__", ".git"))
        nfiles, nlines = count(tree)
        floor_script = work / "parse_floor.py"
        floor_script.write_text(PARSE_FLOOR, encoding="utf-8")
        steps: list[tuple[str, Callable[[int], list[str]]]] = []

        def run(name: str, make: Callable[[int], list[str]]) -> None:
            if name.split()[0] not in skip:
                steps.append((name, make))

        load_before = os.getloadavg()[0]
        print(f"corpus {args.corpus}: {nfiles} files, {nlines} lines; jobs {args.jobs}; runs {args.runs}; "
              f"load before {load_before:.1f}", flush=True)
        run("floor (libcst parse)", lambda i: [sys.executable, str(floor_script), str(tree), str(args.jobs)])
        run("cold scan", lambda i: scan_cmd(tree, work / "out", args.jobs, work / f"cache-cold-{i}"))
        warm_cache = work / "cache-warm"
        if not {"warm", "changed"} <= skip:
            measure(scan_cmd(tree, work / "out", args.jobs, warm_cache), env)  # populate
        run("warm scan", lambda i: scan_cmd(tree, work / "out", args.jobs, warm_cache))
        victim = sorted(p for p in tree.rglob("*.py") if b"torch" in p.read_bytes())[0]

        def changed(i: int) -> list[str]:
            with victim.open("a", encoding="utf-8") as fh:
                fh.write(f"\n# benchmark edit {i} {time.time()}\n")
            return scan_cmd(tree, work / "out", args.jobs, warm_cache)

        run("changed (warm, 1 file)", changed)
        if args.torchfix:
            run("torchfix", lambda i: [args.torchfix, "-j", str(args.jobs), str(tree)])
        # Rounds interleave the steps so that a machine that speeds up or slows down during the
        # run skews every step alike, not one; odd rounds run them in reverse (floor, cold, warm,
        # changed | changed, warm, cold, floor | ...), so a steady drift cancels out of the
        # per-round ratios (an ABBA design) instead of always favouring the step that runs first.
        samples: dict[str, list[Sample]] = {name: [] for name, _ in steps}
        for i in range(args.runs):
            for name, make in (steps if i % 2 == 0 else steps[::-1]):
                samples[name].append(measure(make(i), env))
                s = samples[name][-1]
                print(f"  round {i + 1} {name:<24} wall {s.wall_s:7.1f} s  cpu {s.cpu_s:7.1f} s  peak {s.peak_mb:6.0f} MB",
                      flush=True)
        rows: list[tuple[str, Sample]] = [(name, median(samples[name])) for name, _ in steps]
        load_after = os.getloadavg()[0]
        floor = dict(rows).get("floor (libcst parse)")
        cold = dict(rows).get("cold scan")
        print()
        print("| step | wall s | CPU s | peak MB | lines/s | wall / floor | wall / cold |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for name, s in rows:
            r_floor = f"{s.wall_s / floor.wall_s:.2f}" if floor else "-"
            r_cold = f"{s.wall_s / cold.wall_s:.2f}" if cold else "-"
            print(f"| {name} | {s.wall_s:.1f} | {s.cpu_s:.1f} | {s.peak_mb:.0f} | {nlines / s.wall_s:,.0f} | {r_floor} | {r_cold} |")
        print(f"\nload average: before {load_before:.1f}, after {load_after:.1f}")
        if floor and cold:
            # the same ratios per round: adjacent runs share the machine's speed of the moment
            per_round = [(samples["cold scan"][i].wall_s / samples["floor (libcst parse)"][i].wall_s)
                         for i in range(args.runs)]
            print("cold / floor per round: " + ", ".join(f"{r:.2f}" for r in per_round)
                  + f"; median {statistics.median(per_round):.2f}")
            for name in ("warm scan", "changed (warm, 1 file)"):
                if name in samples:
                    ratios = [samples[name][i].wall_s / samples["cold scan"][i].wall_s for i in range(args.runs)]
                    print(f"{name} / cold per round: " + ", ".join(f"{r:.1%}" for r in ratios)
                          + f"; median {statistics.median(ratios):.1%}")
        if args.scale > 1:
            big = work / "scaled"
            for k in range(args.scale):
                shutil.copytree(tree, big / f"copy_{k}")
            one = median([measure(scan_cmd(tree, work / "o1", args.jobs, work / f"c1-{i}"), env) for i in range(args.runs)])
            many = median([measure(scan_cmd(big, work / "oN", args.jobs, work / f"cN-{i}"), env) for i in range(args.runs)])
            print("\n| scale | wall s | per copy s | peak MB |\n| --- | ---: | ---: | ---: |")
            print(f"| 1 copy | {one.wall_s:.1f} | {one.wall_s:.1f} | {one.peak_mb:.0f} |")
            print(f"| {args.scale} copies | {many.wall_s:.1f} | {many.wall_s / args.scale:.1f} | {many.peak_mb:.0f} |")
            print(f"time per copy at {args.scale}x / at 1x: {many.wall_s / args.scale / one.wall_s:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
