"""Read-only digests of the report view shared by the renderers (HTML, Markdown, terminal).

Nothing here parses code or re-estimates: it only groups and ranks what the view already holds
(docs/report-json.md), so every format shows the same figures. All functions are pure and
deterministic (ties broken by name/path).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from migrate_lens.models import CATEGORIES, PORTING_KINDS, SEVERITIES  # the report's vocabulary

STATUSES: tuple[str, ...] = ("pure", "mechanical", "redesign", "blocked")
PORTING_RANK: dict[str, int] = {kind: rank for rank, kind in enumerate(PORTING_KINDS)}

#: What each category means to someone who does not read the code.
CATEGORY_PLAIN: dict[str, str] = {
    "dynamic-control-flow": "Python branches and loops that depend on tensor values",
    "data-dependent-shape": "Array shapes that depend on the data",
    "in-place-mutation": "In-place updates of tensors",
    "custom-op": "Custom operators (CUDA/C++ kernels, autograd functions)",
    "side-effect": "Side effects inside the model (printing, logging, I/O)",
    "rng": "Random numbers drawn from global state",
    "module-state": "Mutable state held in modules (buffers, counters)",
    "device": "Explicit device placement",
    "layout/numerics": "Tensor layout and numerical differences",
    "ecosystem-dependency": "Libraries with no JAX counterpart",
    "other": "Other patterns the analysis could not classify",
}

VERDICT_PLAIN: dict[str, str] = {
    "go": "Go",
    "pilot-first": "Pilot first",
    "not-now": "Not now",
}


def fmt_num(x: float | int | None, nd: int = 1) -> str:
    """``12`` -> ``"12"``, ``12.345`` -> ``"12.3"`` (``nd`` decimals, trailing zeros dropped),
    thousands separated by commas; ``None`` -> ``"n/a"``."""
    if x is None:
        return "n/a"
    if float(x).is_integer():
        return f"{int(x):,}"
    text = f"{x:,.{nd}f}".rstrip("0").rstrip(".")
    return text or "0"


def fmt_days(x: float | None) -> str:
    """Person-days for display: one decimal, ``"<0.1"`` for small non-zero values."""
    if x is None:
        return "n/a"
    if 0 < x < 0.05:
        return "<0.1"
    return fmt_num(x, 1)


def plural(n: int, word: str) -> str:
    """``plural(1, "file")`` -> ``"1 file"``; ``plural(2, "file")`` -> ``"2 files"``."""
    return f"{fmt_num(n)} {word}{'' if n == 1 else 's'}"


def fmt_money(x: float | int | None) -> str:
    """Whole currency units with thousands separators; ``None`` -> ``"n/a"``."""
    if x is None:
        return "n/a"
    return f"{round(x):,}"


@dataclass(frozen=True, slots=True)
class Blocker:
    """One category of findings that block the port or force a redesign, for the first screen.

    ``rules`` are the codes involved (most findings first); ``effort_person_days`` is the sum of
    the findings' likely effort (hours / hours_per_day); ``example`` is ``path:line`` of the
    first finding of the main rule.
    """

    category: str
    plain: str
    porting: str
    severity: str
    count: int
    files: int
    rules: tuple[str, ...]
    example: str
    effort_person_days: float


def blockers(view: dict[str, Any], top: int = 3) -> list[Blocker]:
    """The ``top`` biggest blockers: findings whose porting is ``blocked`` or ``redesign`` or whose
    severity is high/critical, grouped by category (what a PM can act on), ranked by worst
    porting kind, then total likely effort, then count, then category."""
    hpd = float(view["estimate"]["assumptions"]["hours_per_day"])
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in view["findings"]:
        if f["porting"] in ("blocked", "redesign") or f["severity"] in ("high", "critical"):
            groups[f["category"]].append(f)
    out: list[Blocker] = []
    for category, fs in groups.items():
        worst = max(fs, key=lambda f: (PORTING_RANK[f["porting"]], SEVERITIES.index(f["severity"])))
        by_rule = Counter(f["code"] for f in fs)
        rules = tuple(sorted(by_rule, key=lambda c: (-by_rule[c], c)))
        first = next(f for f in fs if f["code"] == rules[0])
        out.append(
            Blocker(
                category=category,
                plain=CATEGORY_PLAIN.get(category, category),
                porting=worst["porting"],
                severity=worst["severity"],
                count=len(fs),
                files=len({f["path"] for f in fs}),
                rules=rules,
                example=f"{first['path']}:{first['line']}",
                effort_person_days=round(sum(f["effort_hours"]["likely"] for f in fs) / hpd, 2),
            )
        )
    out.sort(key=lambda b: (-PORTING_RANK[b.porting], -b.effort_person_days, -b.count, b.category))
    return out[:top]


class OwnerIndex:
    """Maps a finding to the qualname of the view module that owns it: the longest module
    qualname equal to the finding's symbol or a dotted prefix of it; else the ``file`` module of
    its path; else the finding's path. Build once per view (O(modules))."""

    def __init__(self, view: dict[str, Any]) -> None:
        self._quals = {m["qualname"] for m in view["modules"]}
        self._files = {m["path"]: m["qualname"] for m in view["modules"] if m["kind"] == "file"}

    def owner(self, finding: dict[str, Any]) -> str:
        """The owning module's qualname (see the class docstring)."""
        sym = finding["symbol"]
        while sym:
            if sym in self._quals:
                return str(sym)
            if "." not in sym:
                break
            sym = sym.rsplit(".", 1)[0]
        return self._files.get(finding["path"], finding["path"])


def effort_by_category(view: dict[str, Any]) -> list[dict[str, Any]]:
    """Per category: findings count and summed finding effort in person-days
    (``optimistic``/``likely``/``pessimistic``), in :data:`CATEGORIES` order, zero rows kept."""
    hpd = float(view["estimate"]["assumptions"]["hours_per_day"])
    acc = {c: [0, 0.0, 0.0, 0.0] for c in CATEGORIES}
    for f in view["findings"]:
        row = acc.setdefault(f["category"], [0, 0.0, 0.0, 0.0])
        row[0] += 1
        row[1] += f["effort_hours"]["optimistic"]
        row[2] += f["effort_hours"]["likely"]
        row[3] += f["effort_hours"]["pessimistic"]
    return [
        {"category": c, "count": n, "optimistic": o / hpd, "likely": li / hpd, "pessimistic": p / hpd}
        for c, (n, o, li, p) in acc.items()
    ]


def module_category_matrix(view: dict[str, Any], top: int = 20) -> tuple[list[str], list[list[int]]]:
    """Rows: the ``top`` riskiest modules that have findings (risk desc, findings desc,
    qualname); columns: :data:`CATEGORIES`; cells: finding counts. Returns (row names, matrix)."""
    index = OwnerIndex(view)
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for f in view["findings"]:
        counts[index.owner(f)][f["category"]] += 1
    mods = [m for m in view["modules"] if m["qualname"] in counts]
    mods.sort(key=lambda m: (-m["risk"], -sum(counts[m["qualname"]].values()), m["qualname"]))
    rows = [m["qualname"] for m in mods[:top]]
    return rows, [[counts[r][c] for c in CATEGORIES] for r in rows]


def status_counts(view: dict[str, Any]) -> dict[str, int]:
    """Number of view modules per status, in :data:`STATUSES` order."""
    c = Counter(m["status"] for m in view["modules"])
    return {s: c.get(s, 0) for s in STATUSES}


def digest(view: dict[str, Any], top: int = 10) -> dict[str, Any]:
    """Everything the summary formats show, precomputed: blockers (top 3), hard modules
    (redesign/blocked, riskiest first, at most ``top``), category rows, status counts."""
    hard = [m for m in view["modules"] if m["status"] in ("redesign", "blocked")]
    hard.sort(key=lambda m: (m["status"] != "blocked", -m["risk"], m["qualname"]))
    est = view["estimate"]
    return {
        "blockers": blockers(view, 3),
        "hard_modules": hard[:top],
        "hard_more": max(0, len(hard) - top),
        "categories": [r for r in effort_by_category(view) if r["count"]],
        "status_counts": status_counts(view),
        "verdict_plain": VERDICT_PLAIN.get(est["decision"]["verdict"], est["decision"]["verdict"]),
        "category_plain": CATEGORY_PLAIN,
    }
