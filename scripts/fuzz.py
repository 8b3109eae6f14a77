"""Large fuzz run of the per-file analyzer (not part of CI; ``tests/test_fuzz.py`` is the
bounded version): hypothesmith-generated valid Python and mutated real corpus files, split
over worker processes. Checks the same invariants as the tests (never raises; every finding's
span inside the file) and prints counts, skip reasons and any failure with its input saved.

    python scripts/fuzz.py --examples 10000 --mutations 2000 --jobs 2 [--corpus /work/corpus/smoke] [--out fuzz-failures]
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def _run(kind: str, examples: int, seed: int, corpus: str, out: str) -> tuple[int, dict[str, int], list[str]]:
    from hypothesis import HealthCheck, given, seed as hseed, settings
    from hypothesis import strategies as st

    import warnings

    import hypothesmith
    from test_fuzz import JUNK, MUTATIONS, analyze_and_check, mutate

    warnings.filterwarnings("ignore", category=SyntaxWarning)  # hypothesmith compile()s its output
    count = 0
    reasons: collections.Counter[str] = collections.Counter()
    failures: list[str] = []

    def check(data: bytes) -> None:
        nonlocal count
        count += 1
        try:
            outcome = analyze_and_check(data)
        except BaseException as exc:  # noqa: BLE001 - a fuzz harness records every failure
            path = Path(out) / f"{kind}-{seed}-{len(failures)}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            failures.append(f"{path}: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}")
            return
        if outcome.skipped is not None:
            reasons[outcome.skipped.reason.split(" at ")[0].split(":")[0].split("(")[0].strip()] += 1
        else:
            reasons["analyzed"] += 1

    chunk = 500  # a fresh hypothesis run per chunk: bounded memory, progress lines
    seeds = sorted(Path(corpus).rglob("*.py")) if kind == "mutated" else []
    for start in range(0, examples, chunk):
        n = min(chunk, examples - start)
        cfg = settings(max_examples=n, deadline=None, database=None, derandomize=False,
                       suppress_health_check=list(HealthCheck))
        if kind == "generated":
            @hseed(seed * 100_000 + start)
            @cfg
            @given(hypothesmith.from_grammar())
            def gen(source: str) -> None:
                check(("import torch\n" + source).encode("utf-8", "surrogatepass"))
            gen()
        else:
            @hseed(seed * 100_000 + start)
            @cfg
            @given(st.sampled_from(seeds), MUTATIONS, st.integers(0, 1000), st.integers(0, 1000), JUNK)
            def mut(path: Path, how: str, a: int, b: int, junk: bytes) -> None:
                check(mutate(path.read_bytes(), how, a, b, junk))
            mut()
        print(f"  [{kind} seed {seed}] {count} examples, {len(failures)} failures", flush=True)
    return count, dict(reasons), failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=10_000, help="generated sources (mutations: same number)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--corpus", default="/work/corpus/smoke")
    ap.add_argument("--out", default="fuzz-failures")
    ap.add_argument("--mutations", type=int, default=None, help="mutated corpus files (default: --examples; 0 = none)")
    args = ap.parse_args()
    started = time.perf_counter()
    per = max(1, args.examples // args.jobs)
    tasks = [("generated", per, 1000 + i, args.corpus, args.out) for i in range(args.jobs)]
    mutations = args.examples if args.mutations is None else args.mutations
    if mutations and Path(args.corpus).is_dir():
        tasks += [("mutated", max(1, mutations // args.jobs), 2000 + i, args.corpus, args.out) for i in range(args.jobs)]
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        results = pool.starmap(_run, tasks)
    totals: dict[str, int] = collections.Counter()
    reasons: collections.Counter[str] = collections.Counter()
    failures: list[str] = []
    for (kind, *_), (count, r, f) in zip(tasks, results):
        totals[kind] += count
        reasons.update({f"{kind}: {k}": v for k, v in r.items()})
        failures += f
    print(f"fuzz: {dict(totals)} examples in {time.perf_counter() - started:.0f} s, {len(failures)} failures")
    for k, v in sorted(reasons.items()):
        print(f"  {v:7d}  {k}")
    for f in failures[:20]:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
