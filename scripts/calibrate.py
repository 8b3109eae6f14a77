"""Calibrate the effort model against real PyTorch-to-JAX ports (``calibration/ports.tsv``).

For every row whose source is available, scan exactly the files (and entries) the port covered,
with the team experience of the calibration teams (``expert``: every team was JAX-fluent), and
print the estimate against the actual effort. Then fit the model's two calibration constants:

- ``CALIBRATION_SCALE``: the P50 is the scale times the summed task means (the raw estimate);
- ``BAND_RATIO``: P10 = P50 / ratio, P90 = P50 x ratio.

The fit is the narrowest band that holds ``INSIDE`` of the rows (7 of 9: an 80% band): in log
space, the shortest window holding that many of the rows' log(actual / raw) values; the scale is
its centre and the ratio its half-width. "Actual" is the geometric middle of the row's
low-high effort evidence.

Sources: ``pypi:PKG==VER`` rows are fetched with ``pip download --no-deps`` (unless
``--offline``) into ``--sources`` (default ``.calibration-sources``) and unpacked; other rows
(``github:owner/repo@commit``) are used when ``--sources/<id>`` holds the checkout.

Usage::

    python scripts/calibrate.py                  # fetch PyPI rows, scan, print the table and fit
    python scripts/calibrate.py --offline        # only rows already under --sources
    python scripts/calibrate.py --write          # also store calibration/summaries.json

``calibration/summaries.json`` holds each scanned row's raw estimate, so the unit test
(tests/test_calibration.py) checks the fit without network or sources.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PORTS = REPO / "calibration" / "ports.tsv"
SUMMARIES = REPO / "calibration" / "summaries.json"
#: Rows that must fall inside the fitted P10-P90 band (7 of 9: an 80% band).
INSIDE = 7


@dataclass(frozen=True)
class Port:
    """One row of ports.tsv: id, actual person-days (low, high), where its source is, the
    files and entries the port covered."""

    id: str
    port: str
    actual_low: float
    actual_high: float
    source: str
    root: str
    include: tuple[str, ...]
    entries: tuple[str, ...]

    @property
    def actual(self) -> float:
        """Geometric middle of the effort evidence."""
        return math.sqrt(self.actual_low * self.actual_high)


def load_ports(path: Path = PORTS) -> list[Port]:
    """The rows of ``path``."""
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    return [Port(r["id"], r["port"], float(r["actual_person_days_low"]), float(r["actual_person_days_high"]),
                 r["scan_source"], r["scan_root"], tuple(x for x in r["scan_include"].split(",") if x),
                 tuple(x for x in r["scan_entries"].split(",") if x)) for r in rows]


def fetch(port: Port, sources: Path, offline: bool) -> Path | None:
    """The folder holding ``port``'s source (None when it is not available). Raises
    ``subprocess.CalledProcessError`` when ``pip download`` fails (no network, no index)."""
    kind, _, spec = port.source.partition(":")
    if kind != "pypi":
        here = sources / port.id
        return here if here.is_dir() else None
    name = spec.replace("==", "-")
    unpacked = sources / name
    if unpacked.is_dir():
        return unpacked
    wheels = sorted(sources.glob(f"{spec.split('==')[0].replace('-', '_')}-{spec.split('==')[1]}-*.whl"))
    if not wheels and not offline:
        sources.mkdir(parents=True, exist_ok=True)
        # short timeout and one retry: on a machine without network this fails in seconds
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--timeout", "20",
                        "--retries", "1", "-d", str(sources), spec], check=True)
        wheels = sorted(sources.glob(f"{spec.split('==')[0].replace('-', '_')}-{spec.split('==')[1]}-*.whl"))
    if not wheels:
        return None
    with zipfile.ZipFile(wheels[0]) as zf:
        zf.extractall(unpacked)
    return unpacked


def raw_estimate(port: Port, folder: Path) -> dict[str, float]:
    """Scan ``port``'s files: the raw P50 (calibration scale 1) and the scope's size."""
    from migrate_lens import estimate as est_mod
    from migrate_lens.config import Config
    from migrate_lens.pipeline import scan

    root = folder / port.root
    config = Config(include=port.include, entries=port.entries, team_experience="expert")
    result = scan(root, config, jobs=1, use_cache=False)
    est = result.estimate
    copied = sum(m.copied_lines for q, m in est.modules.items() if est.scope is None or q in est.scope.units)
    return {"raw_p50": round(est.total.p50 / est_mod.CALIBRATION_SCALE, 4), "code_lines": est.code_lines,
            "copied_code_lines": copied, "units": len(est.scope.units) if est.scope else len(est.modules)}


def fit(actual: dict[str, float], raw: dict[str, float], inside: int = INSIDE) -> tuple[float, float]:
    """(scale, band ratio): the narrowest window in log space holding ``inside`` of the rows'
    log(actual / raw); ties: the window whose centre is nearest the median. Raises ValueError
    with fewer rows than ``inside``."""
    logs = sorted(math.log(actual[k] / raw[k]) for k in raw)
    if len(logs) < inside:
        raise ValueError(f"need at least {inside} rows, got {len(logs)}")
    median = logs[len(logs) // 2] if len(logs) % 2 else (logs[len(logs) // 2 - 1] + logs[len(logs) // 2]) / 2
    best = min(range(len(logs) - inside + 1),
               key=lambda i: (round(logs[i + inside - 1] - logs[i], 9), abs((logs[i] + logs[i + inside - 1]) / 2 - median)))
    lo, hi = logs[best], logs[best + inside - 1]
    return math.exp((lo + hi) / 2), math.exp((hi - lo) / 2)


def table(ports: list[Port], raw: dict[str, float], scale: float, band: float) -> list[dict[str, object]]:
    """Per scanned row: actual, P10/P50/P90 under (scale, band), inside the band."""
    out = []
    for p in ports:
        if p.id not in raw:
            continue
        p50 = raw[p.id] * scale
        out.append({"id": p.id, "actual": f"{p.actual_low:g}-{p.actual_high:g}", "actual_mid": round(p.actual, 2),
                    "p10": round(p50 / band, 1), "p50": round(p50, 1), "p90": round(p50 * band, 1),
                    "inside": p50 / band <= p.actual <= p50 * band})
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line: see the module docstring. Exit 1 when fewer than INSIDE rows fall inside
    the band of the constants in migrate_lens/estimate.py."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sources", type=Path, default=REPO / ".calibration-sources")
    ap.add_argument("--offline", action="store_true", help="do not download; use what --sources holds")
    ap.add_argument("--write", action="store_true", help="store calibration/summaries.json")
    ap.add_argument("--from-summaries", action="store_true", help="fit calibration/summaries.json, scan nothing")
    args = ap.parse_args(argv)
    from migrate_lens import estimate as est_mod

    ports = load_ports()
    summaries: dict[str, dict[str, float]] = {}
    if args.from_summaries:
        summaries = json.loads(SUMMARIES.read_text(encoding="utf-8"))["rows"]
    else:
        for p in ports:
            try:
                folder = fetch(p, args.sources, args.offline)
            except subprocess.CalledProcessError:
                folder = None  # pip said why; the row is skipped
            if folder is None:
                print(f"{p.id}: source {p.source} not available, skipped", file=sys.stderr)
                continue
            summaries[p.id] = raw_estimate(p, folder)
    raw = {k: v["raw_p50"] for k, v in summaries.items()}
    actual = {p.id: p.actual for p in ports}
    print(f"{'row':4} {'code':>6} {'copied':>6} {'raw P50':>8} {'actual':>8} {'P10':>7} {'P50':>7} {'P90':>7} inside")
    rows = table(ports, raw, est_mod.CALIBRATION_SCALE, est_mod.BAND_RATIO)
    for r in rows:
        s = summaries[str(r["id"])]
        print(f"{r['id']:4} {s['code_lines']:>6} {s['copied_code_lines']:>6} {s['raw_p50']:>8.1f} {r['actual']:>8} "
              f"{r['p10']:>7} {r['p50']:>7} {r['p90']:>7} {'yes' if r['inside'] else 'no'}")
    n_in = sum(1 for r in rows if r["inside"])
    print(f"inside the P10-P90 band of the shipped constants (scale {est_mod.CALIBRATION_SCALE}, "
          f"ratio {est_mod.BAND_RATIO}): {n_in} of {len(rows)}")
    if len(raw) >= INSIDE:
        scale, band = fit({k: actual[k] for k in raw}, raw, min(INSIDE, len(raw)))
        print(f"fit: CALIBRATION_SCALE = {scale:.3f}, BAND_RATIO = {band:.3f} (narrowest band holding {INSIDE} rows)")
    if args.write:
        SUMMARIES.write_text(json.dumps({"note": "raw estimates (calibration scale 1) of scripts/calibrate.py",
                                         "rows": summaries}, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    needed = min(INSIDE, len(rows))
    return 0 if n_in >= needed else 1


if __name__ == "__main__":
    sys.exit(main())
