"""The migration plan: module units ordered in waves (leaves first, cycles condensed), the
effort of each wave, and a recommended pilot.

Waves: the unit dependency graph (``ModuleInfo.depends_on``: composition, calls,
inheritance) is condensed into strongly connected components; a component's wave is one more
than the latest wave among what it depends on, so wave 1 holds the modules that depend on
nothing else in the project. Units of one cycle share a wave.

Pilot: a small subtree (days, not weeks) that tests the plan: a root unit plus everything it
needs (so it can be ported and tested alone), chosen for the top blocker kinds in scope it
exercises (the categories of redesign/blocked findings with the most effort: its data-dependent
shapes, its custom op, its numerics traps), how many units depend on it, its size (big
enough to exercise parity tests) and whether it holds weights (a loss or a parameter-free head
cannot prove the weight conversion: :data:`PILOT_NO_WEIGHTS_FACTOR`). The pilot says which
risks it retires.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import math

from migrate_lens.estimate import Effort, Estimate, effort_sum
from migrate_lens.graph import STATUSES, Project, strongly_connected

#: Pilot scoring: status factor (a blocked subtree, with no JAX route, is a research task more
#: than a pilot), the line count at which a subtree counts as big enough, the number of top
#: blocker kinds a pilot is scored on, and the largest pilot effort in person-days: 5% of the
#: module effort, at least PILOT_MIN_DAYS, at most PILOT_MAX_DAYS.
PILOT_STATUS_FACTOR = {"pure": 1.0, "mechanical": 1.0, "redesign": 1.0, "blocked": 0.3}
PILOT_TOP_KINDS = 3
PILOT_FULL_LINES = 100
PILOT_MIN_DAYS = 3.0
PILOT_MAX_DAYS = 15.0
PILOT_SHARE = 0.05
#: Score factor of a pilot whose units hold no learnable parameters (a loss, a pooling head):
#: it cannot prove the weight conversion (state_dict -> nnx parameters, layouts), the part of
#: the conversion path every later wave reuses, so it ranks below one that does.
PILOT_NO_WEIGHTS_FACTOR = 0.25

#: ``torch.nn`` classes whose instances hold learnable parameters (the layers whose PyTorch
#: reference lists ``weight``/``bias`` or other ``Parameter`` attributes; parameter-free ones,
#: activations, dropout, pooling, padding, losses, ``Identity``, are left out), plus
#: ``nn.Parameter`` itself. A unit holding one, directly or through a unit it needs, has
#: weights to convert.
PARAMETERIZED_TORCH = frozenset(f"torch.nn.{n}" for n in (
    "Parameter", "ParameterList", "ParameterDict", "Linear", "Bilinear", "LazyLinear",
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
    "LazyConv1d", "LazyConv2d", "LazyConv3d", "Embedding", "EmbeddingBag",
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LazyBatchNorm1d", "LazyBatchNorm2d",
    "LayerNorm", "GroupNorm", "RMSNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
    "MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder",
    "TransformerEncoderLayer", "TransformerDecoderLayer", "RNN", "LSTM", "GRU", "RNNCell",
    "LSTMCell", "GRUCell", "PReLU"))


@dataclass(frozen=True, slots=True)
class Wave:
    """One wave: ``index`` (1 = first), unit qualnames (sorted), summed effort (person-days)."""

    index: int
    modules: tuple[str, ...]
    effort: Effort


@dataclass(frozen=True, slots=True)
class Pilot:
    """The recommended pilot: ``root`` unit, ``modules`` (root plus what it needs, sorted),
    ``dependents`` (units that need the root), summed ``effort`` (person-days), ``reason``,
    ``retires`` (the blocker kinds in scope it exercises, as ``category: rule names``)."""

    root: str
    modules: tuple[str, ...]
    dependents: int
    status: str
    lines_of_code: int
    effort: Effort
    reason: str
    retires: tuple[str, ...] = ()


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


def _parameterized(name: str) -> bool:
    """``name`` (a resolved dotted name) is one of :data:`PARAMETERIZED_TORCH`, in any of
    torch's spellings (``torch.nn.Linear``, ``torch.nn.modules.linear.Linear``)."""
    return name.startswith("torch.nn.") and f"torch.nn.{name.rsplit('.', 1)[-1]}" in PARAMETERIZED_TORCH


def holds_weights(project: Project) -> set[str]:
    """Qualnames of the classes with learnable parameters of their own: holding a parameterized
    ``torch.nn`` layer or ``nn.Parameter`` (:data:`PARAMETERIZED_TORCH`), or subclassing such a
    layer (open_clip's ``LayerNorm(nn.LayerNorm)`` holds no submodule but has weight and bias)."""
    out = {s.owner for f in project.files for s in f.submodules if _parameterized(s.target)}
    out.update(c.qualname for f in project.files for c in f.classes if any(_parameterized(b) for b in c.bases))
    return out


def make_plan(project: Project, estimate: Estimate) -> Plan:
    """Order ``project``'s units in waves and pick a pilot. Effort comes from ``estimate``
    (per-module person-days). Deterministic: ties break by qualname."""
    scope = estimate.scope
    units = [m for m in project.modules if scope is None or m.qualname in scope.units]
    names = sorted(m.qualname for m in units)
    inside = set(names)
    adj = {m.qualname: tuple(d for d in m.depends_on if d in inside) for m in units}
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
        Wave(i, tuple(sorted(grouped[i])), effort_sum(estimate.modules[n].effort for n in grouped[i]))
        for i in sorted(grouped)
    )
    return Plan(waves=waves, pilot=_pilot(project, estimate, comps, comp_of, adj, names), wave_of=wave_of)


def top_blocker_kinds(estimate: Estimate) -> list[str]:
    """Categories of the redesign/blocked findings in scope, most effort first (at most
    :data:`PILOT_TOP_KINDS`)."""
    hard = {cat for cat, porting in estimate.rule_kinds.values() if porting in ("redesign", "blocked")}
    ranked = sorted(hard, key=lambda c: (-estimate.by_category.get(c, 0.0), c))
    return ranked[:PILOT_TOP_KINDS]


def _kinds(info: Mapping[str, Any], members: list[str], estimate: Estimate) -> dict[str, set[str]]:
    """category -> rule codes of the redesign/blocked findings of ``members``."""
    out: dict[str, set[str]] = defaultdict(set)
    for x in members:
        for f in info[x].findings:
            kind = estimate.rule_kinds.get(f.code)
            if kind and kind[1] in ("redesign", "blocked"):
                out[kind[0]].add(f.code)
    return out


def _pilot(project: Project, estimate: Estimate, comps: list[list[str]], comp_of: Mapping[str, int],
           adj: Mapping[str, tuple[str, ...]], names: list[str]) -> Pilot | None:
    if not comps:
        return None
    wanted = set(names)  # (built once: inside the comprehension it was rebuilt per module, O(n^2))
    info = {m.qualname: m for m in project.modules if m.qualname in wanted}
    top_kinds = top_blocker_kinds(estimate)
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
    total = sum(estimate.modules[n].effort.p50 for n in names)
    cap = min(PILOT_MAX_DAYS, max(PILOT_MIN_DAYS, PILOT_SHARE * total))

    weighted = holds_weights(project)
    first_fixes = estimate.first_fixes
    unit_codes = estimate.unit_codes

    def members_within_cap(mask: int) -> list[str] | None:
        """The units of ``mask`` when their effort, with the first fix of each rule they need
        (the pilot finds them), stays within the cap and none is a test; else None."""
        out: list[str] = []
        days = 0.0
        seen: set[str] = set()
        while mask:
            low = mask & -mask
            name = names[low.bit_length() - 1]
            mask ^= low
            days += estimate.modules[name].effort.p50
            for c in unit_codes.get(name, ()):
                if c not in seen:
                    seen.add(c)
                    days += first_fixes.get(c, 0.0)
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
        covered = sum(1 for k in _kinds(info, members, estimate) if k in top_kinds)
        score = (1 + 2 * covered) * math.log2(1 + dependents[n]) * min(1.0, lines / PILOT_FULL_LINES) \
            * PILOT_STATUS_FACTOR[STATUSES[worst]] \
            * (1.0 if any(x in weighted for x in members) else PILOT_NO_WEIGHTS_FACTOR)
        if score > 0 and (best is None or (score, -len(members)) > (best[0], best[1])):
            best = (score, -len(members), n)
    if best is None:
        return None
    root = best[2]
    members = members_within_cap(fwd[comp_of[root]]) or [root]
    worst_status = STATUSES[max(STATUSES.index(info[x].status) for x in members)]
    lines = sum(info[x].lines_of_code for x in members)
    effort = estimate.units_effort(members)
    n_dep = dependents[root]
    others = len(members) - 1
    needs = f" and the {others} module{'s' if others != 1 else ''} it needs" if others else ""
    kinds = _kinds(info, members, estimate)
    retires = tuple(f"{k}: {', '.join(sorted(kinds[k]))}" for k in top_kinds if k in kinds) + tuple(
        f"{k}: {', '.join(sorted(v))}" for k, v in sorted(kinds.items()) if k not in top_kinds)
    missed = [k for k in top_kinds if k not in kinds]
    tests = (f"it exercises {', '.join(k for k in top_kinds if k in kinds)} (of the top blocker kinds in scope: "
             f"{', '.join(top_kinds)})" if len(missed) < len(top_kinds) else
             "no unit small enough exercises the top blocker kinds in scope")
    proves = ("the conversion path (weights, numerical parity tests)" if any(x in weighted for x in members) else
              "the conversion path (numerical parity tests; it holds no weights, so the weight conversion is "
              "proven with the first module that has them)")
    reason = (
        f"{_short(project, root)}{needs} ({lines} lines, {worst_status}) can be ported and tested on its own, "
        f"{n_dep} other module{' depends' if n_dep == 1 else 's depend'} on it, and {tests}: porting it first proves "
        f"{proves} on code the rest reuses, "
        f"for {_days(effort.p50)} person-days likely, {_days(effort.p90)} with 90% confidence."
        + (f" Not retired by it: {', '.join(missed)}." if missed and len(missed) < len(top_kinds) else "")
    )
    return Pilot(root, tuple(sorted(members)), n_dep, worst_status, lines, effort, reason, retires)


def _days(x: float) -> str:
    return f"{x:.1f}" if x >= 1 else f"{x:.2f}"


def _p(p: Effort) -> dict[str, float]:
    return {"p10": round(p.p10, 2), "p50": round(p.p50, 2), "p90": round(p.p90, 2)}


def plan_view(plan: Plan) -> dict[str, Any]:
    """report.json ``plan``: waves (index, modules, effort P50/P90 person-days) and pilot."""
    pilot = None
    if plan.pilot is not None:
        pilot = {"modules": list(plan.pilot.modules), "root": plan.pilot.root, "reason": plan.pilot.reason,
                 "effort_person_days": _p(plan.pilot.effort), "retires": list(plan.pilot.retires)}
    return {
        "waves": [{"index": w.index, "modules": list(w.modules), "effort_person_days": _p(w.effort)} for w in plan.waves],
        "pilot": pilot,
    }
