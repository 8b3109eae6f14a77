"""Effort and risk: pure functions over the project graph's facts. No I/O.

The model (``docs/estimation.md`` gives formulas, defaults and sources):

- every task has a three-point effort in hours (optimistic, likely, pessimistic): a module's
  base porting effort from its size and complexity, each finding (its rule's
  ``effort_hours``), and one-off project costs detected from imports and calls (training loop
  to optax, data pipeline, distributed training, checkpoint conversion, mixed precision);
- PERT per task (mean = (o + 4m + p) / 6, sd = (p - o) / 6); sums add means, and variances
  with a common correlation (:data:`CORRELATION`, 0 = independent tasks); P50/P90 from the
  normal approximation (P90 = mean + 1.2816 sd);
- a team-experience multiplier on every task (COCOMO II platform and tool experience);
- risk 0-100 as the sum of weighted, capped components; a go / pilot-first / not-now
  decision with its reasons; a readiness checklist; return on investment as ranges.

Weights live in one place (the constants below) and are documented.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from migrate_lens.catalog import Catalog
from migrate_lens.config import Config
from migrate_lens.graph import ModuleInfo, Project, is_test_path
from migrate_lens.models import BLOCKING_SEVERITIES, Finding

# ---------------------------------------------------------------------------- weights
#: z for the 90th percentile of a normal distribution.
Z90 = 1.2815515655446004

#: Team experience -> effort multiplier. COCOMO II.2000 post-architecture effort multipliers
#: PLEX (platform experience) x LTEX (language and tool experience), JAX/XLA being the new
#: platform and toolchain: none = Very Low (1.19 x 1.20), some = Nominal (1.00 x 1.00),
#: expert = Very High (0.85 x 0.84). Source: Boehm et al., COCOMO II Model Definition Manual
#: 2000.0, table of effort multipliers.
EXPERIENCE_MULTIPLIER: Mapping[str, float] = {
    "none": round(1.19 * 1.20, 4),
    "some": 1.0,
    "expert": round(0.85 * 0.84, 4),
}

#: Base porting effort of a module, hours: fixed + per physical line + per function/method,
#: likely value; optimistic and pessimistic are these factors of it. Our calibration on
#: hand-written Flax ports of transformers models (corpus/flax_truth): a 100-line pure module
#: with 3 methods takes about half a day including a numerical parity test.
BASE_FIXED_HOURS = 0.5
BASE_HOURS_PER_LINE = 0.025
BASE_HOURS_PER_FUNCTION = 0.25
BASE_SPREAD = (0.6, 1.0, 2.0)

#: Repeated findings of one rule in one module: the first costs its full rule effort, each
#: further one this fraction (the fix is found once, then applied).
REPEAT_FACTOR = 0.5

#: Parallel work: calendar weeks = person-days / (team_size x 5 x efficiency), efficiency
#: falling with team size (communication paths, Brooks), never shorter than the critical path.
DAYS_PER_WEEK = 5.0
COORDINATION_LOSS = 0.1  # efficiency = 1 / (1 + loss x (team_size - 1))


@dataclass(frozen=True, slots=True)
class OneOff:
    """A project-wide porting task detected from imports/calls: ``prefixes`` are dotted
    names (an import of, or a call to, any name starting with one counts as evidence);
    effort in person-days (o, m, p)."""

    name: str
    prefixes: tuple[str, ...]
    days: tuple[float, float, float]


#: One-off costs. Figures are our judgment defaults (person-days), to be edited per team.
ONE_OFFS: tuple[OneOff, ...] = (
    OneOff("training loop and optimizers to optax",
           ("torch.optim", "torch.nn.utils.clip_grad", "transformers.optimization", "timm.optim", "timm.scheduler"),
           (2.0, 4.0, 8.0)),
    OneOff("data pipeline (DataLoader to numpy/grain batches)",
           ("torch.utils.data", "torchvision.datasets", "torchvision.transforms", "timm.data", "datasets"),
           (1.0, 3.0, 6.0)),
    OneOff("distributed training (DDP/FSDP to jax.sharding)",
           ("torch.distributed", "torch.nn.parallel", "torch.multiprocessing", "torch.nn.DataParallel",
            "deepspeed", "fairscale", "accelerate"),
           (3.0, 6.0, 15.0)),
    OneOff("checkpoint conversion (state_dict to Flax params)",
           ("torch.load", "torch.save", "torch.hub.load_state_dict_from_url", "safetensors",
            "torch.utils.model_zoo"),
           (1.0, 3.0, 6.0)),
    OneOff("mixed precision (autocast/GradScaler to dtype policy)",
           ("torch.cuda.amp", "torch.amp", "torch.autocast", "torch.cpu.amp", "apex.amp"),
           (0.5, 1.5, 4.0)),
)

#: Third-party packages that exist only for PyTorch (no JAX counterpart to swap in).
TORCH_ONLY_PACKAGES = frozenset({
    "apex", "bitsandbytes", "deepspeed", "detectron2", "fairscale", "flash_attn", "kornia", "lightning",
    "mmcv", "mmdet", "pytorch3d", "pytorch_lightning", "spconv", "torch_geometric", "torch_scatter",
    "torch_sparse", "torchaudio", "torchtext", "triton", "xformers", "torchmetrics", "functorch",
})

#: Risk components: name -> (weight in points, cap of the value at which all points are given).
RISK_WEIGHTS: Mapping[str, tuple[float, float]] = {
    "blocker density": (20.0, 10.0),        # high/critical findings per 1000 analyzed lines
    "share of code blocked": (20.0, 0.5),   # lines in blocked modules / analyzed lines
    "custom ops": (20.0, 5.0),              # custom-op findings
    "dynamic features": (15.0, 10.0),       # dynamic-control-flow/data-dependent-shape per 1000 lines
    "ecosystem gaps": (10.0, 5.0),          # ecosystem findings + PyTorch-only packages
    "unknowns": (15.0, 1.0),                # see UNKNOWN_* below: a 0-1 blend
}
#: The unknowns value: half from skipped files (all of it at UNKNOWN_SKIPPED_CAP of the files),
#: half from unresolved project references (all of it at UNKNOWN_UNRESOLVED_CAP per 1000 lines).
#: Per line, not per reference, so that removing a resolved reference never raises risk.
UNKNOWN_SKIPPED_CAP = 0.2
UNKNOWN_UNRESOLVED_CAP = 30.0

#: Largest migration (P90 person-days) that may get a plain "go": beyond it, pilot first.
GO_MAX_DAYS = 60.0

#: Per-module risk: base points by status, plus up to MODULE_DENSITY_POINTS for high/critical
#: findings per 100 lines (all points at MODULE_DENSITY_CAP).
MODULE_STATUS_RISK = {"pure": 0, "mechanical": 10, "redesign": 40, "blocked": 70}
MODULE_DENSITY_POINTS = 30.0
MODULE_DENSITY_CAP = 5.0

#: Decision thresholds on the risk score.
GO_BELOW = 35
NOT_NOW_FROM = 70

_DYNAMIC = frozenset({"dynamic-control-flow", "data-dependent-shape"})
_STATE = frozenset({"module-state", "in-place-mutation", "side-effect"})
#: Codes that, beyond the data-dependent-shape category, make jit recompile per value
#: (host values that must become static arguments).
RECOMPILE_CODES = frozenset({"ML102", "ML103"})


# ---------------------------------------------------------------------------- PERT
#: Correlation assumed between any two tasks' effort. Independent sums (rho = 0) shrink the
#: relative spread of a total with the square root of the task count, so a 6000-module total
#: would get a P90 a fraction of a percent above its P50; estimation errors share causes (the
#: team, the tooling, the codebase's style), and cost-risk practice uses a positive default
#: correlation (around 0.2-0.3) when it is not measured (Book, "Estimating Probable System
#: Cost", Aerospace Crosslink 2001). Set 0.0 for the textbook independent PERT sum.
CORRELATION = 0.3


@dataclass(frozen=True, slots=True)
class Pert:
    """A sum of three-point tasks: ``low``/``likely``/``high`` add the optimistic/likely/
    pessimistic values; ``mean`` adds the PERT means ((o + 4m + p) / 6); ``var`` adds the PERT
    variances (sd = (p - o) / 6) and ``sd_sum`` the standard deviations, so that the spread
    of the sum is sqrt((1 - rho) var + rho sd_sum^2) with rho = :data:`CORRELATION`. Units are
    the caller's (hours or days)."""

    low: float = 0.0
    likely: float = 0.0
    high: float = 0.0
    mean: float = 0.0
    var: float = 0.0
    sd_sum: float = 0.0

    @staticmethod
    def task(o: float, m: float, p: float) -> Pert:
        """One task. Raises ValueError unless 0 <= o <= m <= p."""
        if not 0 <= o <= m <= p:
            raise ValueError(f"three-point estimate needs 0 <= o <= m <= p, got {o}, {m}, {p}")
        sd = (p - o) / 6
        return Pert(o, m, p, (o + 4 * m + p) / 6, sd * sd, sd)

    def __add__(self, other: Pert) -> Pert:
        return Pert(self.low + other.low, self.likely + other.likely, self.high + other.high,
                    self.mean + other.mean, self.var + other.var, self.sd_sum + other.sd_sum)

    def scale(self, k: float) -> Pert:
        """Every value times ``k`` >= 0 (variance times k squared)."""
        return Pert(self.low * k, self.likely * k, self.high * k, self.mean * k, self.var * k * k, self.sd_sum * k)

    @property
    def sd(self) -> float:
        """Standard deviation of the sum under :data:`CORRELATION`."""
        return math.sqrt(max(0.0, (1 - CORRELATION) * self.var + CORRELATION * self.sd_sum ** 2))

    @property
    def p50(self) -> float:
        """Median under the normal approximation (= mean)."""
        return self.mean

    @property
    def p90(self) -> float:
        """90th percentile under the normal approximation: mean + 1.2816 sd."""
        return self.mean + Z90 * self.sd


def pert_sum(items: Iterable[Pert]) -> Pert:
    """Sum of independent tasks."""
    total = Pert()
    for p in items:
        total = total + p
    return total


# ---------------------------------------------------------------------------- results
@dataclass(frozen=True, slots=True)
class ModuleEstimate:
    """Effort (person-days, experience applied) and risk (0-100) of one module unit."""

    qualname: str
    effort: Pert
    base: Pert
    findings: Pert
    risk: int


@dataclass(frozen=True, slots=True)
class OneOffCost:
    """A detected one-off task: effort in person-days (experience applied), evidence as the
    first ``path:line`` and the number of places."""

    name: str
    effort: Pert
    evidence: str


@dataclass(frozen=True, slots=True)
class RiskComponent:
    """One term of the risk score: ``value`` (its unit in ``detail``), ``weight`` (max
    points), ``points`` = weight x min(1, value / cap)."""

    name: str
    value: float
    weight: float
    points: float
    detail: str


@dataclass(frozen=True, slots=True)
class Driver:
    """One of the biggest effort drivers: mean person-days and share of the total mean."""

    label: str
    days: float
    share: float


@dataclass(frozen=True, slots=True)
class ChecklistItem:
    """A readiness item: ``status`` ok | warn | fail."""

    item: str
    status: str
    detail: str


@dataclass(frozen=True, slots=True)
class Roi:
    """Return on investment. ``cost`` is currency (P50/P90); ``payback_months`` and
    ``net_12_months`` are (low, high) ranges, ``None`` when ``monthly_spend`` is 0."""

    monthly_spend: float
    saving_low: float
    saving_high: float
    cost_p50: float
    cost_p90: float
    payback_months: tuple[float | None, float | None]
    net_12_months: tuple[float | None, float | None]
    note: str


@dataclass(frozen=True, slots=True)
class Estimate:
    """The estimate of one project (all effort in person-days, experience applied)."""

    modules: Mapping[str, ModuleEstimate]
    one_offs: tuple[OneOffCost, ...]
    total: Pert
    calendar_weeks: tuple[float, float]
    risk_score: int
    risk_components: tuple[RiskComponent, ...]
    drivers: tuple[Driver, ...]
    roi: Roi
    verdict: str
    headline: str
    reasons: tuple[str, ...]
    checklist: tuple[ChecklistItem, ...]
    team_experience: str
    team_size: int
    day_rate: float
    hours_per_day: float
    multiplier: float
    critical_path_days: float


# ---------------------------------------------------------------------------- pieces
def base_effort_hours(loc: int, functions: int) -> Pert:
    """Base porting effort of a module of ``loc`` physical lines and ``functions`` functions
    and methods, in hours (see the BASE_* constants)."""
    likely = BASE_FIXED_HOURS + BASE_HOURS_PER_LINE * max(0, loc) + BASE_HOURS_PER_FUNCTION * max(0, functions)
    o, m, p = (likely * k for k in BASE_SPREAD)
    return Pert.task(o, m, p)


def findings_effort_hours(findings: Iterable[Finding], catalog: Catalog) -> tuple[Pert, dict[str, Pert]]:
    """Effort of fixing ``findings`` (hours): each rule's three-point effort, repeats of a
    rule within the same set at :data:`REPEAT_FACTOR`. Returns (total, per-code totals).
    Findings whose code is not in the catalog count as (1, 2, 4) hours."""
    rules = _rules(catalog)
    per_code: dict[str, Pert] = {}
    for code, count in Counter(fd.code for fd in findings).items():  # codes in order of first finding
        rule = rules.get(code)
        o, m, p = (rule.effort.optimistic, rule.effort.likely, rule.effort.pessimistic) if rule else (1.0, 2.0, 4.0)
        total = Pert.task(o, m, p)
        if count > 1:
            repeat = Pert.task(o * REPEAT_FACTOR, m * REPEAT_FACTOR, p * REPEAT_FACTOR)
            for _ in range(count - 1):
                total = total + repeat
        per_code[code] = total
    return pert_sum(per_code.values()), per_code


def module_risk(module: ModuleInfo) -> int:
    """0-100: points for the module's status plus up to 30 for its own high/critical
    findings per 100 lines."""
    blocking = sum(1 for f in module.findings if f.severity in BLOCKING_SEVERITIES)
    density = blocking * 100.0 / max(module.lines_of_code, 1)
    points = MODULE_STATUS_RISK[module.status] + MODULE_DENSITY_POINTS * min(1.0, density / MODULE_DENSITY_CAP)
    return int(min(100, round(points)))


def _references(project: Project) -> list[tuple[str, str, int]]:
    """(dotted name, path, line) of every import and call in the project."""
    out: list[tuple[str, str, int]] = []
    for f in project.files:
        for imp in f.imports:
            name = f"{imp.module}.{imp.name}" if imp.name and imp.name != "*" and imp.module else (imp.module or imp.name)
            out.append((name, f.path, imp.line))
        for c in f.calls:
            out.append((c.callee, f.path, c.line))
    return out


def detect_one_offs(project: Project, multiplier: float = 1.0) -> tuple[OneOffCost, ...]:
    """One-off tasks whose evidence (an import or call under one of its prefixes) is in the
    project, in :data:`ONE_OFFS` order. Effort in person-days times ``multiplier``."""
    owner: dict[str, int] = {}
    for index, item in enumerate(ONE_OFFS):
        for p in item.prefixes:
            owner.setdefault(p, index)
    depth = max(p.count(".") + 1 for p in owner)
    memo: dict[str, int | None] = {}
    hits: dict[int, set[tuple[str, int, str]]] = defaultdict(set)
    for name, path, line in _references(project):
        i: int | None
        if name in memo:
            i = memo[name]
        else:
            i = None
            parts = name.split(".", depth)
            for k in range(1, min(len(parts), depth) + 1):
                i = owner.get(".".join(parts[:k]))
                if i is not None:
                    break
            memo[name] = i
        if i is not None:
            hits[i].add((path, line, name))
    out: list[OneOffCost] = []
    for i, item in enumerate(ONE_OFFS):
        if not hits[i]:
            continue
        ordered = sorted(hits[i])
        path, line, name = ordered[0]
        more = f" and {len(ordered) - 1} more" if len(ordered) > 1 else ""
        out.append(OneOffCost(item.name, Pert.task(*item.days).scale(multiplier), f"{name} at {path}:{line}{more}"))
    return tuple(out)


def _n(count: int, noun: str) -> str:
    """``"1 file"``, ``"2 files"``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _cap(weight: float, cap: float, value: float) -> float:
    return round(weight * min(1.0, max(0.0, value) / cap), 2) if cap > 0 else 0.0


def _where(findings: list[Finding], limit: int = 3) -> str:
    by_path = Counter(f.path for f in findings)
    top = sorted(by_path.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    return ", ".join(f"{p} ({n})" for p, n in top)


def _category(catalog: Catalog, code: str) -> str:
    rule = _rules(catalog).get(code)
    return rule.category if rule else "other"


_RULES_CACHE: dict[int, tuple[Catalog, dict[str, Any]]] = {}


def _rules(catalog: Catalog) -> dict[str, Any]:
    """``catalog.by_code()``, built once per catalog."""
    hit = _RULES_CACHE.get(id(catalog))
    if hit is None or hit[0] is not catalog:
        hit = (catalog, catalog.by_code())
        _RULES_CACHE.clear()
        _RULES_CACHE[id(catalog)] = hit
    return hit[1]


# ---------------------------------------------------------------------------- the estimate
def estimate(project: Project, catalog: Catalog, config: Config, *, skipped: int = 0) -> Estimate:
    """Effort, risk, ROI, decision and checklist for ``project``.

    ``skipped``: files that could not be analyzed (counted as unknowns). Effort is in
    person-days (``config.hours_per_day`` hours) times the team-experience multiplier.
    Raises KeyError for an unknown ``config.team_experience``.
    """
    mult = EXPERIENCE_MULTIPLIER[config.team_experience]
    hpd = config.hours_per_day or 8.0
    to_days = mult / hpd
    modules: dict[str, ModuleEstimate] = {}
    code_effort: dict[str, Pert] = defaultdict(Pert)
    base_by_top: dict[str, Pert] = defaultdict(Pert)
    base_lines: Counter[str] = Counter()
    for m in project.modules:
        base = base_effort_hours(m.lines_of_code, m.functions).scale(to_days)
        fe, per_code = findings_effort_hours(m.findings, catalog)
        for code, p in per_code.items():
            code_effort[code] = code_effort[code] + p.scale(to_days)
        fe = fe.scale(to_days)
        modules[m.qualname] = ModuleEstimate(m.qualname, base + fe, base, fe, module_risk(m))
        top = "/".join(m.path.split("/")[:-1][:2]) or "."
        base_by_top[top] = base_by_top[top] + base
        base_lines[top] += m.lines_of_code
    one_offs = detect_one_offs(project, mult)
    total = pert_sum(e.effort for e in modules.values()) + pert_sum(o.effort for o in one_offs)

    # Calendar: parallel work with a coordination loss, never below the critical path.
    critical = _critical_path_days(project, modules)
    efficiency = 1.0 / (1.0 + COORDINATION_LOSS * (config.team_size - 1))
    per_week = DAYS_PER_WEEK * config.team_size * efficiency
    weeks = (max(total.p50 / per_week, critical / DAYS_PER_WEEK), max(total.p90 / per_week, critical / DAYS_PER_WEEK))

    components = _risk_components(project, catalog, skipped)
    risk = int(min(100, round(sum(c.points for c in components))))
    drivers = _drivers(catalog, code_effort, base_by_top, base_lines, one_offs, total)
    roi = _roi(config, total)
    checklist = _checklist(project, catalog, skipped)
    verdict, headline, reasons = _decide(project, risk, components, roi, total, checklist)
    return Estimate(
        modules=modules, one_offs=one_offs, total=total, calendar_weeks=weeks, risk_score=risk,
        risk_components=components, drivers=drivers, roi=roi, verdict=verdict, headline=headline,
        reasons=reasons, checklist=checklist, team_experience=config.team_experience, team_size=config.team_size,
        day_rate=config.day_rate, hours_per_day=hpd, multiplier=mult, critical_path_days=critical,
    )


def _critical_path_days(project: Project, modules: Mapping[str, ModuleEstimate]) -> float:
    """Longest chain of dependent modules (sum of P50 person-days), cycles condensed."""
    from migrate_lens.graph import strongly_connected

    adj = {m.qualname: m.depends_on for m in project.modules}
    names = sorted(adj)
    comps = strongly_connected(names, adj)
    comp_of = {n: i for i, c in enumerate(comps) for n in c}
    longest: list[float] = []
    for i, comp in enumerate(comps):  # dependencies come first
        own = sum(modules[n].effort.p50 for n in comp if n in modules)
        before = max((longest[comp_of[d]] for n in comp for d in adj.get(n, ()) if comp_of.get(d, i) != i), default=0.0)
        longest.append(own + before)
    return max(longest, default=0.0)


def analyzed_lines(project: Project) -> int:
    """Physical lines of the analyzed files (the denominator of densities and shares)."""
    return sum(f.lines for f in project.files)


def _risk_components(project: Project, catalog: Catalog, skipped: int) -> tuple[RiskComponent, ...]:
    findings = project.findings
    lines = analyzed_lines(project)
    kloc = max(lines, 1) / 1000.0
    blocking = [f for f in findings if f.severity in BLOCKING_SEVERITIES]
    cats = {f.code: _category(catalog, f.code) for f in findings}
    rules = catalog.by_code()
    custom = [f for f in findings if cats[f.code] == "custom-op" and f.severity != "info"]
    dynamic = [f for f in findings if cats[f.code] in _DYNAMIC and f.severity != "info"]
    eco = [f for f in findings if cats[f.code] == "ecosystem-dependency" and f.severity != "info"]
    gaps = sorted(p for p in project.external_imports if p in TORCH_ONLY_PACKAGES)
    lines_blocked = sum(m.lines_of_code for m in project.modules if m.status == "blocked")
    share_blocked = min(1.0, lines_blocked / lines) if lines else 0.0
    n_files = len(project.files) + skipped
    skipped_share = skipped / n_files if n_files else 0.0
    unresolved_density = project.unresolved / kloc
    unknown = 0.5 * min(1.0, skipped_share / UNKNOWN_SKIPPED_CAP) + 0.5 * min(1.0, unresolved_density / UNKNOWN_UNRESOLVED_CAP)
    no_route = sum(1 for f in custom if (rules.get(f.code) and rules[f.code].porting == "blocked"))
    values = {
        "blocker density": (len(blocking) / kloc,
                            f"{len(blocking)} high/critical findings in {lines} lines"
                            + f" ({len(blocking) / kloc:.2f} per 1000 lines)"),
        "share of code blocked": (share_blocked,
                                  f"{lines_blocked} of {lines} lines are in blocked modules"),
        "custom ops": (float(len(custom)),
                       f"{_n(len(custom), 'custom-op finding')}, {no_route} without a JAX route"),
        "dynamic features": (len(dynamic) / kloc,
                             f"{len(dynamic)} data-dependent control-flow/shape findings"
                             + f" ({len(dynamic) / kloc:.2f} per 1000 lines)"),
        "ecosystem gaps": (float(len(eco) + len(gaps)),
                           f"{len(eco)} ecosystem findings; PyTorch-only packages: {', '.join(gaps) or 'none'}"),
        "unknowns": (unknown,
                     f"{skipped} of {n_files} files skipped; {project.unresolved} project references unresolved"
                     + f" ({unresolved_density:.1f} per 1000 lines, of {project.resolved + project.unresolved})"),
    }
    out = []
    for name, (weight, cap) in RISK_WEIGHTS.items():
        value, detail = values[name]
        out.append(RiskComponent(name, round(value, 4), weight, _cap(weight, cap, value), detail))
    return tuple(out)


def _drivers(catalog: Catalog, code_effort: Mapping[str, Pert], base_by_top: Mapping[str, Pert],
             base_lines: Mapping[str, int], one_offs: tuple[OneOffCost, ...], total: Pert) -> tuple[Driver, ...]:
    rules = catalog.by_code()
    cands: list[tuple[float, str]] = []
    for code, p in code_effort.items():
        name = rules[code].name if code in rules else "unknown rule"
        cands.append((p.mean, f"{code} {name}"))
    for top, p in base_by_top.items():
        cands.append((p.mean, f"base porting of {top}/ ({base_lines[top]} lines)" if top != "." else
                      f"base porting of top-level files ({base_lines[top]} lines)"))
    for o in one_offs:
        cands.append((o.effort.mean, f"one-off: {o.name}"))
    cands.sort(key=lambda c: (-c[0], c[1]))
    denom = total.mean or 1.0
    return tuple(Driver(label, round(days, 2), round(min(1.0, days / denom), 4)) for days, label in cands[:5] if days > 0)


def _roi(config: Config, total: Pert) -> Roi:
    cost50, cost90 = total.p50 * config.day_rate, total.p90 * config.day_rate
    spend = config.monthly_spend
    if spend <= 0:
        return Roi(spend, config.saving_low, config.saving_high, cost50, cost90, (None, None), (None, None),
                   "no monthly accelerator spend configured (monthly-spend): no ROI figure")
    save_lo, save_hi = spend * config.saving_low, spend * config.saving_high
    payback = (cost50 / save_hi if save_hi > 0 else None, cost90 / save_lo if save_lo > 0 else None)
    net = (12 * save_lo - cost90, 12 * save_hi - cost50)
    return Roi(spend, config.saving_low, config.saving_high, cost50, cost90, payback, net,
               f"saving {config.saving_low:.0%}-{config.saving_high:.0%} of {spend:g} per month is an assumption")


def _checklist(project: Project, catalog: Catalog, skipped: int) -> tuple[ChecklistItem, ...]:
    rules = catalog.by_code()
    active = [f for f in project.findings if f.severity != "info"]
    by_cat: dict[str, list[Finding]] = defaultdict(list)
    for f in active:
        by_cat[_category(catalog, f.code)].append(f)
    items: list[ChecklistItem] = []

    dyn = by_cat["dynamic-control-flow"] + by_cat["data-dependent-shape"]
    items.append(ChecklistItem("dynamic features", "ok" if not dyn else "warn",
                               f"{len(dyn)} data-dependent control-flow/shape findings"
                               + (f", most in {_where(dyn)}" if dyn else "")))
    custom = by_cat["custom-op"]
    no_route = [f for f in custom if f.code in rules and rules[f.code].porting == "blocked"]
    items.append(ChecklistItem(
        "custom ops", "ok" if not custom else ("fail" if no_route else "warn"),
        "no custom ops" if not custom else
        f"{_n(len(custom), 'custom-op finding')} ({len(no_route)} with no JAX equivalent: a Pallas/XLA kernel or a "
        f"rewrite), in {_where(custom)}"))
    recompile = [f for f in active if _category(catalog, f.code) == "data-dependent-shape" or f.code in RECOMPILE_CODES]
    items.append(ChecklistItem("recompilation risk", "ok" if not recompile else "warn",
                               f"{len(recompile)} places where shapes or host values change per call "
                               f"(each distinct value recompiles under jax.jit)"
                               + (f", most in {_where(recompile)}" if recompile else "")))
    eco = by_cat["ecosystem-dependency"]
    gaps = sorted(p for p in project.external_imports if p in TORCH_ONLY_PACKAGES)
    items.append(ChecklistItem("ecosystem gaps", "ok" if not (eco or gaps) else "warn",
                               f"{len(eco)} ecosystem findings; PyTorch-only packages imported: "
                               f"{', '.join(gaps) or 'none'}"))
    state = [f for f in active if _category(catalog, f.code) in _STATE]
    items.append(ChecklistItem("mutable state", "ok" if not state else "warn",
                               f"{len(state)} in-place updates, module state writes or side effects"
                               + (f", most in {_where(state)}" if state else "")))
    tests = [f.path for f in project.files if is_test_path(f.path)]
    items.append(ChecklistItem("test coverage", "ok" if tests else "warn",
                               f"{_n(len(tests), 'test file')} found (numerical parity tests can start from them)" if tests
                               else "no test files found (tests/, test_*.py): parity tests must be written first"))
    refs = project.resolved + project.unresolved
    items.append(ChecklistItem(
        "unknowns", "ok" if skipped == 0 and project.unresolved <= 0.1 * max(refs, 1) else "warn",
        f"{_n(skipped, 'file')} skipped; {project.unresolved} of {refs} project references unresolved"))
    return tuple(items)


def _days_text(days: float) -> str:
    """Person-days as the report prints them: one decimal under 10, whole days above."""
    return f"{days:.1f}" if days < 10 else f"{days:.0f}"


def _decide(project: Project, risk: int, components: tuple[RiskComponent, ...], roi: Roi, total: Pert,
            checklist: tuple[ChecklistItem, ...]) -> tuple[str, str, tuple[str, ...]]:
    blocked = [m for m in project.modules if m.status == "blocked"]
    share = next(c.value for c in components if c.name == "share of code blocked")
    reasons: list[str] = []
    top = sorted(components, key=lambda c: (-c.points, c.name))
    for c in top[:3]:
        if c.points > 0:
            reasons.append(f"{c.name}: {c.points:g} of {c.weight:g} risk points ({c.detail})")
    if blocked:
        reasons.append(f"{len(blocked)} modules are blocked (custom ops with no JAX equivalent), "
                       f"{share:.0%} of the analyzed lines")
    days = f"{_days_text(total.p50)}-{_days_text(total.p90)} person-days"
    if not any(not f.module.startswith("native:") for f in project.files):
        return "not-now", "Not now: nothing to assess (no Python files were analyzed)", (
            "the scanned path holds no analyzable Python file: check the path and the include/exclude settings",)
    if risk >= NOT_NOW_FROM or share > 0.5:
        verdict = "not-now"
        headline = f"Not now: risk {risk}/100" + (f", {share:.0%} of the code blocked" if share > 0.5 else "")
    elif risk < GO_BELOW and not blocked and total.p90 <= GO_MAX_DAYS:
        verdict = "go"
        headline = f"Go: risk {risk}/100, {days}"
    else:
        verdict = "pilot-first"
        if risk < GO_BELOW and not blocked:
            reasons.insert(0, f"low risk, but {total.p90:.0f} person-days (P90) is more than {GO_MAX_DAYS:g}: "
                              "prove the conversion path on a pilot before committing")
        headline = f"Pilot first: risk {risk}/100, {days}"
    if roi.payback_months[0] is None:
        reasons.append(roi.note)
    else:
        lo, hi = roi.payback_months
        reasons.append(f"payback {lo:.1f}-{hi:.1f} months at {roi.saving_low:.0%}-{roi.saving_high:.0%} compute saving")
        if roi.net_12_months[1] is not None and roi.net_12_months[1] < 0:
            reasons.append("no positive 12-month return even at the high saving")
    fails = [c.item for c in checklist if c.status == "fail"]
    if fails:
        reasons.append(f"checklist failures: {', '.join(fails)}")
    return verdict, headline, tuple(reasons)


# ---------------------------------------------------------------------------- views
def _r(x: float) -> float:
    return round(x, 2)


def _five(p: Pert) -> dict[str, float]:
    return {"low": _r(p.low), "likely": _r(p.likely), "high": _r(p.high), "p50": _r(p.p50), "p90": _r(p.p90)}


def estimate_view(est: Estimate) -> dict[str, Any]:
    """report.json ``estimate`` (person-days, weeks, currency of the day rate)."""
    roi = est.roi
    return {
        "effort_person_days": _five(est.total),
        "calendar_weeks": {"p50": _r(est.calendar_weeks[0]), "p90": _r(est.calendar_weeks[1])},
        "risk_score": est.risk_score,
        "risk_components": [{"name": c.name, "value": c.value, "weight": c.weight, "points": c.points,
                             "detail": c.detail} for c in est.risk_components],
        "drivers": [{"label": d.label, "effort_person_days": d.days, "share": d.share} for d in est.drivers],
        "one_off_costs": [{"name": o.name, "effort_person_days": {"low": _r(o.effort.low), "likely": _r(o.effort.likely),
                                                                  "high": _r(o.effort.high)},
                           "evidence": o.evidence} for o in est.one_offs],
        "roi": {
            "monthly_spend": roi.monthly_spend,
            "saving_fraction": {"low": roi.saving_low, "high": roi.saving_high},
            "cost": {"p50": _r(roi.cost_p50), "p90": _r(roi.cost_p90)},
            "payback_months": {"low": None if roi.payback_months[0] is None else _r(roi.payback_months[0]),
                               "high": None if roi.payback_months[1] is None else _r(roi.payback_months[1])},
            "net_12_months": {"low": None if roi.net_12_months[0] is None else _r(roi.net_12_months[0]),
                              "high": None if roi.net_12_months[1] is None else _r(roi.net_12_months[1])},
            "note": "" if roi.monthly_spend else "no monthly accelerator spend configured (monthly-spend): no payback or net figure",
        },
        "decision": {"verdict": est.verdict, "headline": est.headline, "reasons": list(est.reasons)},
        "checklist": [{"item": c.item, "status": c.status, "detail": c.detail} for c in est.checklist],
        "assumptions": {"team_experience": est.team_experience, "team_size": est.team_size,
                        "day_rate": est.day_rate, "hours_per_day": est.hours_per_day},
    }


def modules_view(project: Project, est: Estimate, plan: Any) -> list[dict[str, Any]]:
    """report.json ``modules``, sorted by qualname; ``wave`` from ``plan`` (None if absent)."""
    waves: Mapping[str, int] = getattr(plan, "wave_of", {}) if plan is not None else {}
    out = []
    for m in sorted(project.modules, key=lambda m: m.qualname):
        e = est.modules[m.qualname]
        out.append({
            "qualname": m.qualname, "path": m.path, "line": m.line, "end_line": m.end_line, "kind": m.kind,
            "lines_of_code": m.lines_of_code, "pure": m.pure, "status": m.status,
            "explanation": list(m.explanation), "findings": len(m.findings),
            "effort_person_days": _five(e.effort), "risk": e.risk, "wave": waves.get(m.qualname),
        })
    return out

