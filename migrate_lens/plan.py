"""The migration plan: module units ordered in waves (leaves first, cycles condensed), the
effort of each wave, and a recommended pilot.

Waves: the unit dependency graph (``ModuleInfo.depends_on``: composition, calls,
inheritance) is condensed into strongly connected components; a component's wave is one more
than the latest wave among what it depends on, so wave 1 holds the modules that depend on
nothing else in the project. Units of one cycle share a wave.

Pilot: a small, self-contained, low-risk subtree that many others depend on: a root unit
plus everything it needs (so it can be ported and tested alone), scored by how many units
depend on it, its size (big enough to exercise weights and parity tests), and its status.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from migrate_lens.estimate import Estimate, Pert, pert_sum
from migrate_lens.graph import STATUSES, Project, strongly_connected

#: Pilot scoring: status factor (blocked subtrees are never piloted), the line count at which
#: a subtree counts as big enough, and the largest pilot effort in person-days: 5% of the
#: module effort, at least PILOT_MIN_DAYS, at most PILOT_MAX_DAYS.
PILOT_STATUS_FACTOR = {"pure": 1.0, "mechanical": 0.8, "redesign": 0.3, "blocked": 0.0}
PILOT_FULL_LINES = 100
PILOT_MIN_DAYS = 3.0
PILOT_MAX_DAYS = 15.0
PILOT_SHARE = 0.05


@dataclass(frozen=True, slots=True)
class Wave:
    """One wave: ``index`` (1 = first), unit qualnames (sorted), summed effort (person-days)."""

    index: int
    modules: tuple[str, ...]
    effort: Pert


@dataclass(frozen=True, slots=True)
class Pilot:
    """The recommended pilot: ``root`` unit, ``modules`` (root plus what it needs, sorted),
    ``dependents`` (units that need the root), summed ``effort`` (person-days), ``reason``."""

    root: str
    modules: tuple[str, ...]
    dependents: int
    status: str
    lines_of_code: int
    effort: Pert
    reason: str


@dataclass(frozen=True)
class Plan:
    """Waves in order, the pilot (None when no unit qualifies), and unit -> wave index."""

    waves: tuple[Wave, ...]
    pilot: Pilot | None
    wave_of: Mapping[str, int] = field(default_factory=dict)


def _short(project: Project, qualname: str) -> str:
    """A class's name, or a file unit's dotted module."""
    m = project.module(qualname)
    return qualname if m.kind == "file" else qualname.rsplit(".", 1)[-1]


def make_plan(project: Project, estimate: Estimate) -> Plan:
    """Order ``project``'s units in waves and pick a pilot. Effort comes from ``estimate``
    (per-module person-days). Deterministic: ties break by qualname."""
    names = sorted(m.qualname for m in project.modules)
    adj = {m.qualname: tuple(d for d in m.depends_on) for m in project.modules}
    comps = strongly_connected(names, adj)  # dependencies come first
    comp_of = {n: i for i, c in enumerate(comps) for n in c}
    wave_of_comp: list[int] = []
    for i, comp in enumerate(comps):
        before = [wave_of_comp[comp_of[d]] for n in comp for d in adj.get(n, ()) if comp_of.get(d, i) != i]
        wave_of_comp.append(1 + max(before, default=0))
    wave_of = {n: wave_of_comp[comp_of[n]] for n in names}
    grouped: dict[int, list[str]] = defaultdict(list)
    for n in names:
        grouped[wave_of[n]].append(n)
    waves = tuple(
        Wave(i, tuple(sorted(grouped[i])), pert_sum(estimate.modules[n].effort for n in grouped[i]))
        for i in sorted(grouped)
    )
    return Plan(waves=waves, pilot=_pilot(project, estimate, comps, comp_of, adj), wave_of=wave_of)


def _pilot(project: Project, estimate: Estimate, comps: list[list[str]], comp_of: Mapping[str, int],
           adj: Mapping[str, tuple[str, ...]]) -> Pilot | None:
    if not comps:
        return None
    info = {m.qualname: m for m in project.modules}
    names = sorted(info)
    index = {n: i for i, n in enumerate(names)}
    # Closures as bitmasks over units (Python ints: unions and popcounts run in C), so a large
    # cycle does not make this quadratic. fwd: what a component needs; rev: what needs it.
    comp_bits = [sum(1 << index[n] for n in comp) for comp in comps]
    needs_comp: list[set[int]] = [set() for _ in comps]
    for i, comp in enumerate(comps):
        for n in comp:
            for d in adj.get(n, ()):
                j = comp_of.get(d, i)
                if j != i:
                    needs_comp[i].add(j)
    fwd: list[int] = []
    for i in range(len(comps)):  # dependencies come first
        mask = comp_bits[i]
        for j in needs_comp[i]:
            mask |= fwd[j]
        fwd.append(mask)
    needed_by: list[list[int]] = [[] for _ in comps]
    for i, js in enumerate(needs_comp):
        for j in js:
            needed_by[j].append(i)
    rev = [0] * len(comps)
    for i in reversed(range(len(comps))):  # dependents first
        mask = comp_bits[i]
        for k in needed_by[i]:
            mask |= rev[k]
        rev[i] = mask
    # Members of one cycle do not count as each other's dependents.
    dependents = {n: rev[comp_of[n]].bit_count() - len(comps[comp_of[n]]) for n in names}
    total = sum(e.effort.p50 for e in estimate.modules.values())
    cap = min(PILOT_MAX_DAYS, max(PILOT_MIN_DAYS, PILOT_SHARE * total))

    def members_within_cap(mask: int) -> list[str] | None:
        out: list[str] = []
        days = 0.0
        while mask:
            low = mask & -mask
            name = names[low.bit_length() - 1]
            mask ^= low
            days += estimate.modules[name].effort.p50
            if days > cap or info[name].is_test:
                return None
            out.append(name)
        return out

    best: tuple[float, int, str] | None = None
    for n in names:
        m = info[n]
        if m.is_test or m.kind != "nn.Module" or dependents[n] == 0:
            continue
        members = members_within_cap(fwd[comp_of[n]])
        if members is None:
            continue
        worst = max(STATUSES.index(info[x].status) for x in members)
        lines = sum(info[x].lines_of_code for x in members)
        score = dependents[n] * min(1.0, lines / PILOT_FULL_LINES) * PILOT_STATUS_FACTOR[STATUSES[worst]]
        if score > 0 and (best is None or (score, -len(members)) > (best[0], best[1])):
            best = (score, -len(members), n)
    if best is None:
        return None
    root = best[2]
    members = members_within_cap(fwd[comp_of[root]]) or [root]
    worst_status = STATUSES[max(STATUSES.index(info[x].status) for x in members)]
    lines = sum(info[x].lines_of_code for x in members)
    effort = pert_sum(estimate.modules[x].effort for x in members)
    n_dep = dependents[root]
    others = len(members) - 1
    needs = f" and the {others} module{'s' if others != 1 else ''} it needs" if others else ""
    reason = (
        f"{_short(project, root)}{needs} ({lines} lines, {worst_status}) can be ported and tested on its own, "
        f"and {n_dep} other module{'s' if n_dep != 1 else ''} depend on it: porting it first proves the "
        f"conversion path (weights, numerical parity tests) on code the rest reuses, "
        f"for {_days(effort.p50)}-{_days(effort.p90)} person-days (P50-P90)."
    )
    return Pilot(root, tuple(sorted(members)), n_dep, worst_status, lines, effort, reason)


def _days(x: float) -> str:
    return f"{x:.1f}" if x >= 1 else f"{x:.2f}"


def _p(p: Pert) -> dict[str, float]:
    return {"p50": round(p.p50, 2), "p90": round(p.p90, 2)}


def plan_view(plan: Plan) -> dict[str, Any]:
    """report.json ``plan``: waves (index, modules, effort P50/P90 person-days) and pilot."""
    pilot = None
    if plan.pilot is not None:
        pilot = {"modules": list(plan.pilot.modules), "root": plan.pilot.root, "reason": plan.pilot.reason,
                 "effort_person_days": _p(plan.pilot.effort)}
    return {
        "waves": [{"index": w.index, "modules": list(w.modules), "effort_person_days": _p(w.effort)} for w in plan.waves],
        "pilot": pilot,
    }
