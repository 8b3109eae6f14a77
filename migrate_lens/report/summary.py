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
    "side-effect": "Side effects and host reads inside the model (printing, logging, I/O, .item())",
    "rng": "Random numbers drawn from global state",
    "module-state": "Mutable state held in modules and training objects (buffers, counters, loaded weights, schedulers)",
    "device": "Device placement and multi-device code (CUDA calls, torch.distributed)",
    "layout/numerics": "Tensor layout and numerical differences",
    "ecosystem-dependency": "PyTorch-side libraries and training APIs to replace",
    "other": "Gradient semantics, recompilation risks and APIs without a JAX equivalent (backward(), shapes per batch, ...)",
    "base porting": "Rewriting the code itself as JAX/Flax (original code)",
    "base porting (copies)": "Re-applying a port to copied code",
    "one-off project tasks": "One-off project tasks (training loop, checkpoints, ...)",
}

#: What each unit status means, for the legend on the first screen.
STATUS_PLAIN: dict[str, str] = {
    "pure": "ports as is (plain tensor math)",
    "mechanical": "mechanical edits (API renames, RNG keys, layouts)",
    "redesign": "part must be redesigned for jit (dynamic shapes, state, control flow)",
    "blocked": "has no JAX route yet (custom kernel: Pallas/FFI or a rewrite)",
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
    """Person-days for display: one decimal under 10, whole days from 10 (thousands
    separated), ``"<0.1"`` for small non-zero values."""
    if x is None:
        return "n/a"
    if 0 < x < 0.05:
        return "<0.1"
    return fmt_num(x, 1) if x < 10 else f"{round(x):,}"


def fmt_months(x: float | None) -> str:
    """A duration in months for display: ``"3.5 months"``, ``"12 months"``, or years from 24
    months (``"15.3 years"``); ``None`` -> ``"n/a"``."""
    if x is None:
        return "n/a"
    if x > 24:
        return f"{fmt_num(x / 12, 1)} years"
    return f"{fmt_num(x, 1) if x < 10 else f'{round(x):,}'} months"


def plural(n: int, word: str) -> str:
    """``plural(1, "file")`` -> ``"1 file"``; ``plural(2, "file")`` -> ``"2 files"``;
    ``plural(0, "copy family")`` -> ``"0 copy families"`` (a consonant before the final y)."""
    if n == 1:
        return f"{fmt_num(n)} {word}"
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "i", "o", "u"):
        return f"{fmt_num(n)} {word[:-1]}ies"
    return f"{fmt_num(n)} {word}s"


def fmt_money(x: float | int | None, currency: str = "") -> str:
    """Whole currency units with thousands separators, after the ``currency`` label when one is
    configured (``"EUR 24,805"``); ``None`` -> ``"n/a"``."""
    if x is None:
        return "n/a"
    text = f"{round(x):,}"
    return f"{currency} {text}" if currency else text


@dataclass(frozen=True, slots=True)
class Blocker:
    """One category of findings that block the port or force a redesign, for the first screen.

    ``rules`` are the codes involved (most findings first); ``effort_person_days`` is the sum of
    the category's priced effort from the estimate (``estimate.effort_by_category``: repeats,
    copies and dependencies priced once included), P50 person-days; ``example`` is ``path:line``
    of the first finding of the main rule.
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
    priced = {r["category"]: r["p50"] for r in view["estimate"]["effort_by_category"]}
    in_scope = {m["path"] for m in view["modules"] if m.get("in_scope", True)}
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in view["findings"]:
        if f["path"] not in in_scope:
            continue
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
                effort_person_days=float(priced.get(category, 0.0)),
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
    """The estimate's P50 person-days by kind of work (``estimate.effort_by_category``: base
    porting, copies, each finding category, one-off tasks), largest first, with the number of
    findings of each category and its plain name. The rows add up to the total P50."""
    counts = Counter(f["category"] for f in view["findings"])
    return [{"category": r["category"], "plain": CATEGORY_PLAIN.get(r["category"], r["category"]),
             "count": counts.get(r["category"], 0), "p50": r["p50"]}
            for r in view["estimate"]["effort_by_category"]]


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


def custom_op_rows(view: dict[str, Any]) -> list[dict[str, Any]]:
    """Custom-op rules priced per site (not the libraries priced once, which are
    ``estimate.dependencies``), with findings in scope: name, code, count, ``blocked`` (no JAX
    route: porting ``blocked``), ``route`` (the first sentence of the rule's remedy),
    ``fallback`` (the "fallback in code" cell, from ``estimate.custom_op_sites``); most findings
    first."""
    priced_once = {d["code"] for d in view["estimate"]["dependencies"]}
    in_scope = {m["path"] for m in view["modules"] if m.get("in_scope", True)}
    counts = Counter(f["code"] for f in view["findings"]
                     if f["category"] == "custom-op" and f["code"] not in priced_once and f["path"] in in_scope)
    rules = {r["code"]: r for r in view["rules"]}
    fallbacks = {c["code"]: c for c in view["estimate"].get("custom_op_sites", ())}
    out = []
    for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        r = rules[code]
        fb = fallbacks.get(code, {})
        out.append({"name": r["name"], "code": code, "count": n, "blocked": r["porting"] == "blocked",
                    "route": r["remedy"].strip().split(". ")[0].rstrip("."),
                    "fallback": fallback_text(fb.get("fallback_sites", 0), fb.get("sites", n), fb.get("fallback", ""))})
    return out


def fallback_text(with_fallback: int, sites: int, evidence: str) -> str:
    """The custom-op table's "fallback in code" cell: ``"yes: optional import (2 of 3 sites)"``,
    ``"none found"``."""
    if not with_fallback:
        return "none found"
    part = "" if with_fallback == sites else f" ({with_fallback} of {sites} sites)"
    return f"yes: {evidence}{part}"


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
        "categories": effort_by_category(view),
        "status_plain": STATUS_PLAIN,
        "custom_op_rows": custom_op_rows(view),
        "status_counts": status_counts(view),
        "verdict_plain": VERDICT_PLAIN.get(est["decision"]["verdict"], est["decision"]["verdict"]),
        "category_plain": CATEGORY_PLAIN,
    }
