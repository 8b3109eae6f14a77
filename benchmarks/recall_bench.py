"""Recall benchmark: prints tables, asserts nothing (issue 14's targets are read off them).

Two yardsticks, both analyzed the way ``scan`` analyzes code (never imported or run):

* **cases** (``--cases DIR``, default ``fixtures/cases``; the shared set is
  ``/work/shared/cases``): real-world hazard snippets with the header convention of
  ``tests/test_cases.py``. A ``P`` file's expected pairs are its ``(category, line)`` pairs; a
  pair is recalled when the line carries at least one finding of that category. ``N`` files
  must stay silent: every finding there is a false finding. Single-file analysis with
  ``traced_only`` findings resolved from the file alone (as ``tests/test_cases.py`` does).
* **engine-v2 fixtures** (``fixtures/engine-v2/<kind>/<package>``, see
  ``tests/helpers_engine_v2.py``): per kind, recall of the ``(file, line, code)`` sites marked
  ``# expect:``, unexpected findings of annotated codes in positive packages, and every
  finding in ``neg_`` packages (false findings on near-miss negatives). Project-level analysis
  over each package (cross-file bindings, calls, reachability).

    python benchmarks/recall_bench.py --cases /work/shared/cases
    python benchmarks/recall_bench.py --cases /work/shared/cases --verbose   # list the misses
    PYTHONPATH=/work/wt/other python benchmarks/recall_bench.py              # another tree's engine
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.append(str(REPO))  # after PYTHONPATH: `PYTHONPATH=/other/tree` measures that tree's engine

from helpers_analysis import findings  # noqa: E402
from helpers_engine_v2 import KINDS, evaluate, packages  # noqa: E402
from test_cases import _expectations  # noqa: E402

from migrate_lens.catalog import load_catalog  # noqa: E402


def bench_cases(folder: Path, catalog, verbose: bool) -> None:
    """Per-category recall of the P files and false findings on the N files of ``folder``.

    ``recall`` counts a finding's own category and those of the findings folded into it (one
    site, one finding: ``x[~m] = v`` is one ML204 finding that names the ML304 write), as
    ``tests/test_cases.py`` does; ``strict`` counts the kept finding's own category only."""
    rules = catalog.by_code()
    hit: dict[str, int] = defaultdict(int)
    strict: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    false_on_neg = 0
    neg_files = 0
    misses: list[str] = []
    for path in sorted(folder.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        clean, wanted = _expectations(text)
        found = findings(text, catalog, path=path.name, module=path.stem)
        if clean:
            neg_files += 1
            false_on_neg += len(found)
            misses += [f"  FALSE {path.name}:{f.span.line} {f.code} {f.snippet[:60]!r}" for f in found]
            continue
        got: dict[int, set[str]] = defaultdict(set)
        own: dict[int, set[str]] = defaultdict(set)
        for f in found:
            own[f.span.line].add(rules[f.code].category)
            got[f.span.line].update(rules[c].category for c in (f.code, *f.folds))
        for line, cats in sorted(wanted.items()):
            for cat in sorted(cats):
                total[cat] += 1
                strict[cat] += cat in own[line]
                if cat in got[line]:
                    hit[cat] += 1
                    if cat not in own[line]:
                        misses.append(f"  FOLD  {path.name}:{line} {cat} (named by a folded finding only)")
                else:
                    misses.append(f"  MISS  {path.name}:{line} {cat}")
    print(f"cases: {folder}")
    print(f"  {'category':24} {'recall':>8} {'hit/total':>10} {'strict':>8}")
    for cat in sorted(total):
        print(f"  {cat:24} {hit[cat] / total[cat]:8.0%} {hit[cat]:>4}/{total[cat]:<5} {strict[cat] / total[cat]:8.0%}")
    all_hit, all_total, all_strict = sum(hit.values()), sum(total.values()), sum(strict.values())
    print(f"  {'ALL':24} {all_hit / max(all_total, 1):8.0%} {all_hit:>4}/{all_total:<5} "
          f"{all_strict / max(all_total, 1):8.0%}")
    print(f"  false findings on {neg_files} negative files: {false_on_neg}")
    if verbose:
        print("\n".join(misses))


def bench_fixtures(catalog, verbose: bool) -> None:
    """Per-kind recall, unexpected findings and negative-package findings of engine-v2."""
    print("engine-v2 fixtures (fixtures/engine-v2)")
    print(f"  {'kind':16} {'recall':>8} {'hit/total':>10} {'unexpected':>11} {'neg findings':>13} {'pkgs ok':>8}")
    lines: list[str] = []
    sums = [0, 0, 0, 0, 0, 0]
    for kind in KINDS:
        hit = total = unexpected = neg = ok = n = 0
        for pkg in packages(kind):
            r = evaluate(pkg, catalog)
            n += 1
            ok += r.got == r.want
            if r.negative:
                neg += len(r.got)
                lines += [f"  FALSE {kind}/{s[0]}:{s[1]} {s[2]}" for s in r.unexpected]
                continue
            total += len(r.want)
            hit += len(r.want & r.got)
            unexpected += len(r.unexpected)
            lines += [f"  MISS  {kind}/{s[0]}:{s[1]} {s[2]}" for s in r.missing]
            lines += [f"  EXTRA {kind}/{s[0]}:{s[1]} {s[2]}" for s in r.unexpected]
        for i, v in enumerate((hit, total, unexpected, neg, ok, n)):
            sums[i] += v
        print(f"  {kind:16} {hit / max(total, 1):8.0%} {hit:>4}/{total:<5} {unexpected:>11} {neg:>13} {ok:>4}/{n:<3}")
    hit, total, unexpected, neg, ok, n = sums
    print(f"  {'ALL':16} {hit / max(total, 1):8.0%} {hit:>4}/{total:<5} {unexpected:>11} {neg:>13} {ok:>4}/{n:<3}")
    if verbose:
        print("\n".join(lines))


def gaps_markdown(catalog) -> str:
    """Markdown list of every engine-v2 package and status expectation the engine misses:
    fixture ``file:line``, expected vs got, and the part of issue 14 it waits for (the
    ``GAPS`` / ``STATUS_GAPS`` tables of ``tests/test_engine_v2.py``)."""
    import test_engine_v2 as T
    from helpers_engine_v2 import ROOT, scan_package

    part = {"bindings": "A", "injection": "A", "external-state": "A", "flow": "B", "contexts": "B"}
    out: list[str] = []
    for kind in KINDS:
        out.append(f"\n### {kind} (part {part[kind]})\n")
        for pkg in packages(kind):
            r = evaluate(pkg, catalog)
            key = f"{kind}/{pkg.name}"
            if r.got == r.want:
                out.append(f"- `{key}`: passes" + (" (listed in GAPS: un-mark it)" if key in T.GAPS else ""))
                continue
            out.append(f"- `{key}`: {T.GAPS.get(key, '(NOT in GAPS: a regression)')}")
            out += [f"  - missing `fixtures/engine-v2/{kind}/{f}:{n}`: expected {c}, got none" for f, n, c in r.missing]
            out += [f"  - unexpected `fixtures/engine-v2/{kind}/{f}:{n}`: got {c}, expected none" for f, n, c in r.unexpected]
    out.append("\n### statuses (fixtures/engine-v2/statuses/zoo)\n")
    mods = {m.qualname: m for m in scan_package(ROOT / "statuses" / "zoo", catalog).modules}
    for unit, (op, want, real, why) in T.EXPECTED_STATUS.items():
        m = mods[f"zoo.{unit}"]
        ok = T._CMP[op](T._ORDER[m.status], T._ORDER[want])
        tag = "passes" if ok else f"got {m.status}, expected {op} {want}"
        gap = T.STATUS_GAPS.get(unit, "")
        if ok and gap:
            tag += " (listed in STATUS_GAPS: un-mark it)"
        out.append(f"- `{unit}` ({real}): {tag}" + (f"; waits for {gap}" if gap and not ok else "") + (f"; {why}" if not ok else ""))
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=Path, default=REPO / "fixtures" / "cases")
    ap.add_argument("--verbose", action="store_true", help="list every miss and false finding")
    ap.add_argument("--gaps-md", action="store_true", help="print the engine-v2 gap list as Markdown and stop")
    args = ap.parse_args()
    catalog = load_catalog()
    if args.gaps_md:
        print(gaps_markdown(catalog), end="")
        return
    bench_cases(args.cases, catalog, args.verbose)
    print()
    bench_fixtures(catalog, args.verbose)


if __name__ == "__main__":
    main()
