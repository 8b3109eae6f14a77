"""Wall time of ``migrate-lens check`` (the pre-commit path) next to ``ruff check`` and ``torchfix``.

Each tool runs as a fresh process, as pre-commit runs it, on one typical model file and on 20
files of ``/work/corpus/core`` (spread evenly over the sorted file list), several times; the
table shows the median in seconds and the ratio of migrate-lens's median to each tool's.
Nothing is asserted: speed is reported, not tested.

    python benchmarks/check_bench.py [--corpus DIR] [--runs 7] [--torchfix PATH]

``torchfix`` pins ``libcst<1.6`` while migrate-lens needs a newer libcst, so it is usually
installed in its own virtualenv: pass its executable with ``--torchfix`` (default: ``torchfix``
on PATH, then ``/tmp/torchfix-venv/bin/torchfix``). A missing tool is shown as ``n/a``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ONE_FILE = "torchvision/models/resnet.py"


def pick_files(corpus: Path, n: int) -> list[str]:
    """``n`` ``.py`` files spread evenly over the sorted list under ``corpus`` (relative paths)."""
    files = sorted(p.relative_to(corpus).as_posix() for p in corpus.rglob("*.py") if p.stat().st_size > 2000)
    if len(files) < n:
        raise SystemExit(f"{corpus}: only {len(files)} Python files, need {n}")
    step = len(files) / n
    return [files[int(i * step)] for i in range(n)]


def time_runs(cmd: list[str], cwd: Path, runs: int) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system of the child and its children), in
    seconds, of ``runs`` executions of ``cmd``, after one warm-up run that fills the OS file
    cache. CPU time is the fairer figure on a busy machine. Exit codes 0 and 1 (findings) are
    fine; others abort."""

    def once() -> tuple[float, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(cmd, check=False, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd[:3])}... exited {proc.returncode}: {proc.stderr.strip()[:300]}")
        return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    once()
    samples = [once() for _ in range(runs)]
    return statistics.median(w for w, _ in samples), statistics.median(c for _, c in samples)


def find_torchfix(given: str | None) -> str | None:
    for candidate in (given, shutil.which("torchfix"), "/tmp/torchfix-venv/bin/torchfix"):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpus/core"))
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--torchfix", default=None, help="torchfix executable")
    args = parser.parse_args()
    corpus: Path = args.corpus.resolve()
    bindir = Path(sys.executable).parent
    ml = shutil.which("migrate-lens", path=str(bindir)) or shutil.which("migrate-lens")
    ml_cmd = [ml] if ml else [sys.executable, "-c", "from migrate_lens.cli import main; main()"]
    ruff = shutil.which("ruff", path=str(bindir)) or shutil.which("ruff")
    torchfix = find_torchfix(args.torchfix)

    tools: list[tuple[str, list[str] | None]] = [
        ("migrate-lens check", [*ml_cmd, "check", "--no-baseline"]),
        ("ruff check", [ruff, "check", "--no-cache", "--isolated", "--quiet"] if ruff else None),
        ("torchfix", [torchfix] if torchfix else None),
    ]
    sets = {"1 file": [ONE_FILE], "20 files": pick_files(corpus, 20)}
    lines = sum(len((corpus / f).read_text(encoding="utf-8", errors="replace").splitlines()) for f in sets["20 files"])
    one_lines = len((corpus / ONE_FILE).read_text(encoding="utf-8").splitlines())
    print(
        f"corpus {corpus}; 1 file = {ONE_FILE} ({one_lines} lines); 20 files = {lines} lines; "
        f"median of {args.runs} runs, fresh process each; python {sys.version.split()[0]}\n"
    )

    results: dict[str, dict[str, tuple[float, float] | None]] = {}
    for name, cmd in tools:
        results[name] = {}
        for label, files in sets.items():
            results[name][label] = time_runs([*cmd, *files], corpus, args.runs) if cmd else None

    base = results["migrate-lens check"]
    print(
        "| tool | 1 file: wall s | 1 file: CPU s | 20 files: wall s | 20 files: CPU s "
        "| migrate-lens / tool (wall, 1 file) | migrate-lens / tool (wall, 20 files) |"
    )
    print("|" + "---|" * 7)
    for name, row in results.items():
        cells = [name]
        for label in sets:
            v = row[label]
            cells += ["n/a", "n/a"] if v is None else [f"{v[0]:.3f}", f"{v[1]:.3f}"]
        for label in sets:
            v, b = row[label], base[label]
            cells.append("n/a" if v is None or b is None else f"{b[0] / v[0]:.2f}x")
        print("| " + " | ".join(cells) + " |")
    print(f"\nload average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
