"""Per-phase CPU seconds of a scan: prints a table, asserts nothing.

Wall-clock benchmarks (``scan_bench.py``) are noisy on a shared machine; CPU seconds of one
process are much steadier. Two modes, both in this one process:

* **files** (default): the per-file stage (:func:`migrate_lens.onefile.analyze_file`, exactly
  what a pool worker runs, GC paused per file as there) over a fixed subset of a corpus: every
  ``--every``-th ``.py`` file in sorted order. Each file is also parsed by the stock
  ``libcst.parse_module`` (the floor that ``scan_bench.py`` measures) in a clean child process
  (stock libcst, nothing of ours imported), before and after our pass, so that a machine whose
  speed drifts skews both alike. (Not in this process: :func:`migrate_lens.analysis.walk.parse_cst`
  installs faster node constructors for good, and a stock parse in the same process then runs
  ~18% faster than in a clean one, as it never does in ``scan_bench.py``'s floor.) Phases are *self* times (a nested
  phase's time is not counted in its caller's): ``libcst parse``, ``ast parse``, ``walk +
  visitor`` (the traversal and the visitor's own work), ``rules (emit)`` (matching every site,
  building findings), ``positions`` (``Positions`` lookups, ``positions codegen`` the units
  generated for exact columns), ``snippets``, ``post-walk`` (suppressions, folding, the facts),
  ``copies (shape digests)``, ``serialize`` (the cache encoding a worker returns) and ``other``
  (decoding, the pre-filter). The ratio printed last, per-file total / floor parse, is what
  the 2-process cold scan / parse floor of ``scan_bench.py`` converges to when the pool
  dominates.
* **project** (``--project``): the main process of a whole scan of the tree with a warm cache
  (filled first by a cold scan with ``--jobs`` processes, not timed): cache reads, filters,
  graph, estimate, plan, view and each renderer (json, html). These steps are the same in a cold
  scan.

    python benchmarks/phase_bench.py /work/corpus/core --every 8
    python benchmarks/phase_bench.py /work/corpus/core --project
    python benchmarks/phase_bench.py /work/corpus/core --every 8 --profile /tmp/p.prof   # cProfile instead of phases
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


_CLEAN_FLOOR = r"""
import gc, json, sys, time
import libcst
gc.disable()  # as scan_bench's floor
t = time.process_time()
for p in json.loads(sys.stdin.read()):
    try:
        libcst.parse_module(open(p, "rb").read().decode("utf-8"))
    except Exception:  # the floor ignores files libcst refuses, as scan_bench's does
        pass
print(time.process_time() - t)
"""


def clean_floor(files: list[Path]) -> float:
    """CPU seconds of stock ``libcst.parse_module`` over ``files`` in a fresh interpreter (only
    libcst imported; reading the files included, as in ``scan_bench.py``'s floor). Raises
    ``subprocess.CalledProcessError`` if that process fails."""
    import json
    import subprocess

    out = subprocess.run([sys.executable, "-c", _CLEAN_FLOOR], input=json.dumps([str(p) for p in files]),
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


class Phases:
    """Exclusive CPU time per phase (``time.process_time``): entering a phase charges the time
    since the last switch to the phase that was running."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.stack: list[str] = ["(outside)"]
        self.last = time.process_time()

    def _switch(self) -> None:
        now = time.process_time()
        self.seconds[self.stack[-1]] += now - self.last
        self.last = now

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        self._switch()
        self.stack.append(name)
        self.calls[name] += 1
        try:
            yield
        finally:
            self._switch()
            self.stack.pop()

    def wrap(self, owner: Any, attr: str, name: str) -> None:
        """Replace ``owner.attr`` (a function or method) by a version timed as ``name``."""
        fn = getattr(owner, attr)
        phases = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            phases._switch()
            phases.stack.append(name)
            phases.calls[name] += 1
            try:
                return fn(*args, **kwargs)
            finally:
                phases._switch()
                phases.stack.pop()

        timed.__wrapped__ = fn  # type: ignore[attr-defined]
        setattr(owner, attr, timed)


def instrument(ph: Phases) -> None:
    """Time the per-file stage's parts (see the module docstring)."""
    from migrate_lens import cache, onefile
    from migrate_lens.analysis import engine, walk

    ph.wrap(engine, "parse_cst", "libcst parse")
    ph.wrap(engine, "fast_visit", "walk + visitor")
    ph.wrap(engine, "_snippet", "snippets")
    ph.wrap(walk.Positions, "__getitem__", "positions")
    ph.wrap(walk.Positions, "lines", "positions")
    ph.wrap(walk.Positions, "_generate", "positions codegen")
    ph.wrap(onefile, "shape_facts", "copies (shape digests)")
    ph.wrap(onefile, "parse_ast", "ast parse")
    ph.wrap(walk, "parse_ast", "ast parse")
    ph.wrap(onefile, "analyze_source", "post-walk")
    ph.wrap(cache, "encode", "serialize")
    visitor_cls = engine.FileVisitor

    def make_visitor(*args: Any, emit: Callable[[Any], None], **kwargs: Any) -> Any:
        def timed_emit(site: Any) -> None:
            with ph.phase("rules (emit)"):
                emit(site)
        return visitor_cls(*args, emit=timed_emit, **kwargs)

    engine.FileVisitor = make_visitor  # type: ignore[assignment, misc]


def files_mode(args: argparse.Namespace) -> None:
    import libcst

    from migrate_lens import cache
    from migrate_lens.discover import module_name
    from migrate_lens.gctools import gc_paused
    from migrate_lens.onefile import analyze_file
    from migrate_lens.worker import catalog_and_index, forget_ast

    root: Path = args.corpus.resolve()
    files = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)[:: args.every]
    catalog, index = catalog_and_index(())
    from migrate_lens.analysis.walk import keep_fast_constructors

    keep_fast_constructors()  # as worker.init_worker does (the floor runs in a clean process)
    ph = Phases()
    if not args.profile:  # (the timers would dominate a cProfile)
        instrument(ph)
    floor = 0.0
    total = 0.0
    lines = 0
    root_is_pkg = (root / "__init__.py").is_file()
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    gc.freeze()
    floor += clean_floor(files)
    for path in files:
        data = path.read_bytes()
        rel = path.relative_to(root).as_posix()
        lines += data.count(b"\n")
        with gc_paused():
            t0 = time.process_time()
            ph._switch()
            ph.stack.append("other")
            if profiler is not None:
                profiler.enable()
            try:
                cache.encode(analyze_file(data, rel, module_name(rel, root_is_pkg, root.name), catalog, index))
            finally:
                if profiler is not None:
                    profiler.disable()
                forget_ast()
                ph._switch()
                ph.stack.pop()
            total += time.process_time() - t0
        gc.collect()
    floor = (floor + clean_floor(files)) / 2
    print(f"{len(files)} files (every {args.every}th of {root}), {lines:,} lines; one process; "
          f"load {os.getloadavg()[0]:.1f}")
    print("\n| phase | CPU s | share | / floor parse |\n| --- | ---: | ---: | ---: |")
    for name, sec in sorted(ph.seconds.items(), key=lambda kv: -kv[1]):
        if name == "(outside)":
            continue
        print(f"| {name} | {sec:.2f} | {sec / total:.1%} | {sec / floor:.2f} |")
    print(f"| **per-file total** | {total:.2f} | 100% | {total / floor:.2f} |")
    print(f"| floor: stock libcst.parse_module | {floor:.2f} | | 1.00 |")
    beyond = total - ph.seconds["libcst parse"]
    print(f"\nper-file analysis / floor parse: {total / floor:.2f}x; beyond our own parse: {beyond:.2f} s = "
          f"{beyond / floor:.2f}x the floor parse")
    if profiler is not None:
        profiler.dump_stats(args.profile)
        print(f"cProfile written to {args.profile}")


def project_mode(args: argparse.Namespace) -> None:
    """Times the main process's phases of a warm scan of ``args.corpus`` (CPU seconds; prints a table)."""
    root: Path = args.corpus.resolve()
    with tempfile.TemporaryDirectory(prefix="phase-bench-") as tmp:  # a cache and reports of ~60 MB each run
        _project_run(args, root, Path(tmp))


def _project_run(args: argparse.Namespace, root: Path, work: Path) -> None:
    """The measured project-mode scan; ``work`` holds its cache and reports and is removed by the caller."""
    from migrate_lens import estimate as estimate_mod
    from migrate_lens import graph, pipeline, plan
    from migrate_lens.config import load_config
    from migrate_lens.gctools import gc_paused
    from migrate_lens.report import render_all
    from migrate_lens.report import view as view_mod

    cache_dir = args.cache_dir or work / "cache"
    config = load_config(root)
    t0 = time.perf_counter()
    pipeline.scan(root, config, jobs=args.jobs, cache_dir=cache_dir)  # fills the cache (not timed)
    print(f"scan to fill the cache: {time.perf_counter() - t0:.1f} s wall")
    ph = Phases()
    ph.wrap(pipeline, "load_catalog", "catalog")
    ph.wrap(pipeline, "discover", "discover")
    ph.wrap(pipeline, "analyze_files", "read + hash + cache decode")
    ph.wrap(pipeline, "apply_config", "filters")
    ph.wrap(graph, "build_project", "graph (build_project)")
    ph.wrap(estimate_mod, "estimate", "estimate")
    ph.wrap(plan, "make_plan", "plan")
    from migrate_lens.report import chartset

    chartset.use_memo(None)  # charts drawn, as in a cold scan
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    with gc_paused():
        start = time.process_time()
        ph._switch()
        ph.stack.append("other (scan)")
        if profiler is not None:
            profiler.enable()
        result = pipeline.scan(root, config, jobs=args.jobs, cache_dir=cache_dir)
        with ph.phase("view"):
            view = view_mod.build_view(result)
        for fmt in ("json", "html"):
            with ph.phase(f"render {fmt}"):
                render_all(view, work / "out", (fmt,))
        if profiler is not None:
            profiler.disable()
        ph._switch()
        ph.stack.pop()
        total = time.process_time() - start
    if profiler is not None:
        profiler.dump_stats(args.profile)
        print(f"cProfile written to {args.profile}")
    print(f"{len(result.files)} files; cache hits {result.cache_hits}; load {os.getloadavg()[0]:.1f}")
    print("\n| phase (main process) | CPU s |\n| --- | ---: |")
    for name, sec in sorted(ph.seconds.items(), key=lambda kv: -kv[1]):
        if name != "(outside)":
            print(f"| {name} | {sec:.2f} |")
    print(f"| **total** | {total:.2f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description="per-phase CPU seconds of a scan (prints a table)")
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--every", type=int, default=8, help="files mode: every N-th .py file (sorted)")
    ap.add_argument("--project", action="store_true", help="project mode: the main process after the pool")
    ap.add_argument("--jobs", type=int, default=2, help="project mode: processes of the cache-filling scan")
    ap.add_argument("--profile", default="", help="write a cProfile of the measured stage here (files mode: instead of phases)")
    ap.add_argument("--cache-dir", type=Path, default=None, help="project mode: reuse this cache folder (default: a fresh one)")
    args = ap.parse_args()
    if args.project:
        project_mode(args)
    else:
        files_mode(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
