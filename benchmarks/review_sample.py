"""Seeded samples of a scan's findings for a hand review (issue 14/15 "no new noise" targets).

Reads a ``report.json`` and prints, for a reproducible random sample (``random.Random(seed)``
over the active findings sorted as the report sorts them), each finding with its code, severity,
context, ``path:line``, snippet, message and the source lines around it (read from ``--root``,
the scanned tree). ``--high`` samples only ``high``/``critical`` findings. Prints a Markdown
table skeleton (``--table``) to paste into ``docs/reviews/`` and fill the verdicts.

    python benchmarks/review_sample.py out/report.json --root /work/corpus/core --seed 20261201 -n 100
    python benchmarks/review_sample.py out/report.json --root /work/corpus/core --seed 20261202 -n 50 --high
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path


def sample(report: dict, n: int, seed: int, high: bool) -> list[dict]:
    """``n`` findings drawn without replacement with ``random.Random(seed).sample`` from the
    report's active (not suppressed) findings, optionally only ``high``/``critical``."""
    pool = [f for f in report["findings"] if not f.get("suppressed")]
    if high:
        pool = [f for f in pool if f["severity"] in ("high", "critical")]
    return random.Random(seed).sample(pool, min(n, len(pool)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", type=Path)
    ap.add_argument("--root", type=Path, required=True, help="the scanned tree (for source context)")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("-n", type=int, default=100)
    ap.add_argument("--high", action="store_true", help="only high/critical findings")
    ap.add_argument("--context", type=int, default=4, help="source lines shown around each finding")
    ap.add_argument("--table", action="store_true", help="print a Markdown table skeleton instead")
    args = ap.parse_args()
    report = json.loads(args.report.read_text(encoding="utf-8"))
    picked = sample(report, args.n, args.seed, args.high)
    if args.table:
        print("| # | code | severity | file:line | snippet | verdict | reason |")
        print("|---|---|---|---|---|---|---|")
        for i, f in enumerate(picked, 1):
            snip = f["snippet"].replace("|", "\\|").replace("\n", " ")[:70]
            print(f"| {i} | {f['code']} | {f['severity']} | {f['path']}:{f['line']} | `{snip}` |  |  |")
        return
    for i, f in enumerate(picked, 1):
        print(f"=== #{i} {f['code']} {f['severity']} ctx={f['context']} {f['path']}:{f['line']} sym={f['symbol']}")
        print(f"    {f['message']}")
        try:
            lines = (args.root / f["path"]).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            lines = []
        lo, hi = max(0, f["line"] - 1 - args.context), min(len(lines), f["line"] + args.context)
        for k in range(lo, hi):
            print(f"    {'>' if k + 1 == f['line'] else ' '}{k + 1:5} {lines[k]}")


if __name__ == "__main__":
    main()
