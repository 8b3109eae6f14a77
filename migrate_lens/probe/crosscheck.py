"""Hold a probe's runtime facts against a scan's static findings: the report's ``probe`` section.

Pure data in, data out (no torch; ``scan --probe-results`` uses it). Keyed by
``(path, line, category)``:

- ``confirmed``: a static finding whose line (or span) holds a runtime fact of a kind that shows
  the finding's category (:data:`migrate_lens.probe.kinds.KINDS`); a fact also counts at its
  ``also_at`` lines, where the library modules it ran in were built (static rules flag
  ``nn.Dropout(p)`` where it is constructed);
- ``static-only``: a finding in a category the probe observes with no such fact. It is NOT
  refuted: ``reason`` says "not seen at runtime on these inputs", and whether the line ran at all
  (``line_ran``, from the probe's ``lines_run``);
- ``runtime-only``: a runtime fact with no static finding of a matching category at its lines:
  what the static scan missed, reported in the fact kind's own category.

Findings in categories no runtime event shows (layout/numerics, ecosystem-dependency, other)
are counted in ``summary.not_observable``, and findings in files where the probe ran no line in
``summary.in_files_not_run``: neither is confirmed nor static-only.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import PurePosixPath
from typing import Any

from migrate_lens.probe.kinds import KINDS, OBSERVABLE_CATEGORIES, categories

STATUSES = ("confirmed", "static-only", "runtime-only")
NOT_SEEN = "not seen at runtime on these inputs"


def rebase(facts_root: str, scan_root: str, path: str) -> str | None:
    """``path`` (relative to the probe's root) made relative to the scan's root, or None when
    the file is outside the scanned tree. Both roots are absolute POSIX-style strings."""
    probe_root, scan = PurePosixPath(facts_root), PurePosixPath(scan_root)
    full = probe_root / path if path else probe_root
    if scan.suffix == ".py":  # a single-file scan: findings name the file itself
        return full.name if full == scan else None
    try:
        return full.relative_to(scan).as_posix()
    except ValueError:
        return None


def _fact_lines(fact: dict[str, Any]) -> list[tuple[str, int]]:
    return [(fact["path"], fact["line"]), *((a["path"], a["line"]) for a in fact.get("also_at") or ())]


def crosscheck(view: dict[str, Any], probe: dict[str, Any]) -> dict[str, Any]:
    """The ``probe`` section of report.json for scan ``view`` and probe results ``probe``
    (``probe.json``). Deterministic: entries sorted by (path, line, category, status)."""
    scan_root = str(view["root"])
    facts = []
    outside_scan = 0
    for f in probe["facts"]:
        path = rebase(probe["root"], scan_root, f["path"])
        if path is None:
            outside_scan += 1
            continue
        also = [{"path": ap, "line": a["line"]} for a in f.get("also_at") or ()
                if (ap := rebase(probe["root"], scan_root, a["path"])) is not None]
        facts.append({**f, "path": path, "also_at": also})
    lines_run: set[tuple[str, int]] = set()
    for p, lines in probe.get("lines_run", {}).items():
        rp = rebase(probe["root"], scan_root, p)
        if rp is not None:
            lines_run.update((rp, n) for n in lines)

    by_line: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for f in facts:
        for key in _fact_lines(f):
            by_line[key].append(f)

    entries: dict[tuple[str, int, str, str], dict[str, Any]] = {}
    finding_status: dict[str, str] = {}
    matched_facts: set[int] = set()
    not_observable = not_run = 0
    files_run = {p for p, _ in lines_run} | {p for f in facts for p, _ in _fact_lines(f)}
    for finding in view["findings"]:
        cat = finding["category"]
        if cat not in OBSERVABLE_CATEGORIES:
            not_observable += 1
            continue
        if finding["path"] not in files_run:
            not_run += 1
            continue
        hits = [f for line in range(finding["line"], max(finding["line"], finding.get("end_line", finding["line"])) + 1)
                for f in by_line.get((finding["path"], line), ()) if cat in _categories_of(f)]
        status = "confirmed" if hits else "static-only"
        finding_status[finding["fingerprint"]] = status
        for f in hits:
            matched_facts.add(id(f))
        key = (finding["path"], finding["line"], cat, status)
        entry = entries.setdefault(key, {
            "path": finding["path"], "line": finding["line"], "category": cat, "status": status,
            "codes": [], "kinds": [], "ops": [], "detail": "", "reason": "", "line_ran": None,
        })
        entry["codes"] = sorted({*entry["codes"], finding["code"]})
        entry["kinds"] = sorted({*entry["kinds"], *(f["kind"] for f in hits)})
        entry["ops"] = sorted({*entry["ops"], *(f["op"] for f in hits)})[:8]
        if status == "static-only":
            ran = (finding["path"], finding["line"]) in lines_run
            entry["line_ran"] = ran
            entry["reason"] = f"{NOT_SEEN} (the line {'ran' if ran else 'did not issue a tensor op'})"
    for f in facts:
        if id(f) in matched_facts:
            continue
        key = (f["path"], f["line"], f["category"], "runtime-only")
        entry = entries.setdefault(key, {
            "path": f["path"], "line": f["line"], "category": f["category"], "status": "runtime-only",
            "codes": [], "kinds": [], "ops": [], "detail": "", "reason": "", "line_ran": True,
        })
        entry["kinds"] = sorted({*entry["kinds"], f["kind"]})
        entry["ops"] = sorted({*entry["ops"], f["op"]})[:8]
        details = [d for d in entry["detail"].split("; ") if d]
        if f["detail"] and f["detail"] not in details and len(details) < 4:
            entry["detail"] = "; ".join([*details, f["detail"]])[:400]
        entry["reason"] = KINDS[f["kind"]][0] if not entry["reason"] else entry["reason"]
    ordered = sorted(entries.values(), key=lambda e: (e["path"], e["line"], e["category"], e["status"]))
    return {
        "source": {"root": probe["root"], "torch_version": probe.get("torch_version", ""),
                   "modes": probe.get("modes", []), "tool_version": probe.get("tool", {}).get("version", "")},
        "examples": probe["examples"],
        "summary": _summary(ordered, facts, matched_facts, not_observable, not_run, outside_scan),
        "entries": ordered,
        "finding_status": dict(sorted(finding_status.items())),
        "module_status": _module_status(view, finding_status),
    }


def _categories_of(fact: dict[str, Any]) -> tuple[str, ...]:
    # a graph break confirms its reason's category (and "other" breaks nothing in particular)
    if fact["kind"] == "graph-break":
        return (fact["category"],)
    return categories(fact["kind"])


def _summary(entries: list[dict[str, Any]], facts: list[dict[str, Any]], matched: set[int],
             not_observable: int, not_run: int, outside_scan: int) -> dict[str, Any]:
    counts = {s: sum(1 for e in entries if e["status"] == s) for s in STATUSES}
    by_kind: dict[str, dict[str, int]] = {}
    for f in facts:
        row = by_kind.setdefault(f["kind"], {"sites": 0, "confirmed": 0})
        row["sites"] += 1
        row["confirmed"] += id(f) in matched
    sites = {(f["path"], f["line"]) for f in facts}
    confirmed_sites = {(f["path"], f["line"]) for f in facts if id(f) in matched}
    static_total = counts["confirmed"] + counts["static-only"]
    return {
        **counts,
        "not_observable": not_observable,
        "in_files_not_run": not_run,
        "facts": len(facts),
        "facts_outside_scan": outside_scan,
        "runtime_sites": len(sites),
        # share of runtime hazard lines the static scan flagged in a matching category
        "static_recall": round(len(confirmed_sites) / len(sites), 4) if sites else None,
        # share of observable static (path, line, category) keys seen at runtime
        "runtime_confirmation": round(counts["confirmed"] / static_total, 4) if static_total else None,
        "by_kind": dict(sorted(by_kind.items())),
    }


def _module_status(view: dict[str, Any], finding_status: dict[str, str]) -> dict[str, str]:
    """Per module qualname: ``confirmed`` when one of its findings (by path and line span) was
    confirmed, ``static-only`` when it has observable findings and none was."""
    spans: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for m in view["modules"]:
        spans[m["path"]].append((m["line"], m.get("end_line", m["line"]), m["qualname"]))
    out: dict[str, str] = {}
    for f in view["findings"]:
        status = finding_status.get(f["fingerprint"])
        if status is None:
            continue
        inner = [s for s in spans.get(f["path"], ()) if s[0] <= f["line"] <= s[1]]
        if not inner:
            continue
        qual = max(inner, key=lambda s: s[0])[2]  # innermost: the latest start containing the line
        if out.get(qual) != "confirmed":
            out[qual] = status
    return dict(sorted(out.items()))


def runtime_only_kinds(section: dict[str, Any]) -> dict[str, int]:
    """Kind -> number of runtime-only entries holding it (what the static scan missed)."""
    out: dict[str, int] = defaultdict(int)
    for e in section["entries"]:
        if e["status"] == "runtime-only":
            for k in e["kinds"]:
                out[k] += 1
    return dict(sorted(out.items()))
