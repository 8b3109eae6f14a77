"""Effort, risk, return and the decision: pure functions over the project graph's facts. No I/O.

The model (``docs/estimation.md`` gives formulas, defaults, sources and the calibration):

- every task has a three-point effort in hours (optimistic, likely, pessimistic) whose PERT
  mean ((o + 4m + p) / 6) is its point value: a unit's base porting from its *code* lines
  (not blank, comment, docstring or data-table lines) and functions, each finding (applying
  its rule's fix: :data:`REPEAT_FACTOR` of the rule's ``effort_hours``; one charge per source
  position), each rule's first fix once per project (the rest of its effort), each distinct dependency without a JAX twin (a compiled-op library, a model
  class, priced once with its import sites listed), and one-off project tasks fired by calls
  in scope (training loop, data pipeline, distributed training, checkpoints, mixed precision);
- copied code (:mod:`migrate_lens.copies`) is priced at :data:`COPY_FRACTION`, findings in it
  too;
- the sum times the team-experience multiplier times :data:`CALIBRATION_SCALE` is the P50;
  P10/P90 are the P50 divided/multiplied by :data:`BAND_RATIO`. Both constants are fitted to
  real ports (``calibration/ports.tsv``, ``scripts/calibrate.py``);
- risk 0-100 as the sum of weighted, capped components; a not-now / pilot-first / go decision
  from cost, value and risk, naming the figure that decided it; a readiness checklist; return
  on investment as ranges.

Weights live in one place (the constants below) and are documented.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from migrate_lens.analysis.routes import fallback_evidence
from migrate_lens.catalog import Catalog
from migrate_lens.config import Config
from migrate_lens.copies import CopyIndex, find_copies
from migrate_lens.fastinit import fast_init
from migrate_lens.graph import ModuleInfo, Project, is_test_path
from migrate_lens.models import BLOCKING_SEVERITIES, Finding
from migrate_lens.scope import Scope, closure, make_scope, top_level_models

# ---------------------------------------------------------------------------- weights
#: z for the 90th percentile of a normal distribution.
Z90 = 1.2815515655446004

#: Team experience -> effort multiplier, relative to the JAX-fluent teams the model is
#: calibrated on (every row of ``calibration/ports.tsv``). The ratios are COCOMO II.2000's
#: PLEX x LTEX effort multipliers (Boehm et al., COCOMO II Model Definition Manual 2000.0).
#: The calibrated teams rate High (about 3 years on the platform: the ports date from 2021-05
#: to 2023-09, JAX was public from 2018-12 and Flax from 2020, so none could have the 6 years
#: of Very High): expert = High (0.91 x 0.91 = 0.828) is the calibrated 1.0; some = Nominal
#: (1 year: 1.0 / 0.828 = 1.21); none = Very Low (2 months or less: 1.19 x 1.20 / 0.828 =
#: 1.72). The calibration set has no team new to JAX, so the two lower levels are COCOMO's
#: ratios, not fitted.
_CALIBRATED_RATING = 0.91 * 0.91
EXPERIENCE_MULTIPLIER: Mapping[str, float] = {
    "none": round(1.19 * 1.20 / _CALIBRATED_RATING, 2),
    "some": round(1.0 / _CALIBRATED_RATING, 2),
    "expert": 1.0,
}

#: Base porting effort of a unit before calibration, hours: fixed + per code line + per
#: function/method (the likely value; optimistic and pessimistic are BASE_SPREAD of it). The
#: ratios come from hand-written Flax ports of transformers models (corpus/flax_truth); the
#: absolute level is set by CALIBRATION_SCALE.
BASE_FIXED_HOURS = 0.5
BASE_HOURS_PER_LINE = 0.0375
BASE_HOURS_PER_FUNCTION = 0.25
BASE_SPREAD = (0.6, 1.0, 2.0)

#: Repeated findings of one rule in one unit: the first costs its full rule effort, each
#: further one this fraction (the fix is found once, then applied).
REPEAT_FACTOR = 0.5

#: A copy (see :mod:`migrate_lens.copies`) costs this fraction of porting it from scratch:
#: rename, re-run the original's parity test, fix what differs. Fitted with the calibration:
#: row K (FlaxMarian, 1-3 person-days, its code marked ``Copied from`` the already ported
#: Bart) against rows G-J (originals).
COPY_FRACTION = 0.1

#: Calibration of the whole model to real ports (``scripts/calibrate.py`` prints the fit):
#: P50 = CALIBRATION_SCALE x the summed task means; P10 = P50 / BAND_RATIO, P90 = P50 x
#: BAND_RATIO, the narrowest band holding 7 of the 9 ports' actual effort.
CALIBRATION_SCALE = 0.8074
BAND_RATIO = 1.654
#: The calibration set's size range (code lines in scope): beyond it the band is an
#: extrapolation, and the report says so.
CALIBRATED_LINES = (500, 8000)

#: Parallel work: calendar months = person-days / (team_size x working days per month x
#: efficiency), efficiency falling with team size (communication paths, Brooks), never shorter
#: than the critical path.
DAYS_PER_WEEK = 5.0
WORKDAYS_PER_MONTH = 21.0
COORDINATION_LOSS = 0.1  # efficiency = 1 / (1 + loss x (team_size - 1))

#: The decision's payback horizon, months (``payback-horizon-months`` in the configuration).
PAYBACK_HORIZON_MONTHS = 24.0


@dataclass(frozen=True, slots=True)
class OneOff:
    """A project-wide porting task: ``prefixes`` are dotted names; a *call* to a name under one
    of them, from non-test code in scope, is the evidence (an import alone is not: it may be a
    guard or a re-export). Effort in person-days (o, m, p) before calibration."""

    name: str
    prefixes: tuple[str, ...]
    days: tuple[float, float, float]
    #: rule code -> hours per finding once this task is done: rules whose per-site effort
    #: prices the same design change as the task (a collective or a DDP wrapper each priced as
    #: the move to shardings). When the task fires, their findings in scope cost these hours
    #: each (before calibration, times a copy's weight) and their first fix is not charged:
    #: the task is that first fix. Our judgment defaults, like ``days``.
    covers: tuple[tuple[str, float], ...] = ()


#: One-off costs. Figures are our judgment defaults (person-days), to be edited per team.
ONE_OFFS: tuple[OneOff, ...] = (
    OneOff("training loop and optimizers to optax",
           ("torch.optim", "torch.nn.utils.clip_grad", "transformers.optimization", "timm.optim", "timm.scheduler"),
           (2.0, 4.0, 8.0)),
    OneOff("data pipeline (DataLoader to numpy/grain batches)",
           ("torch.utils.data.DataLoader", "torch.utils.data.distributed", "torchvision.datasets",
            "timm.data.create_loader", "datasets.load_dataset"),
           (1.0, 3.0, 6.0)),
    OneOff("distributed training (DDP/FSDP to jax.sharding)",
           ("torch.distributed.init_process_group", "torch.nn.parallel.DistributedDataParallel",
            "torch.distributed.fsdp", "torch.nn.DataParallel", "torch.multiprocessing.spawn",
            "deepspeed.initialize", "fairscale.nn.model_parallel", "fairscale.nn.FullyShardedDataParallel",
            "accelerate.Accelerator", "horovod.torch.init", "horovod.torch.DistributedOptimizer"),
           (3.0, 6.0, 15.0),
           # under jit over a sharded mesh a collective disappears or becomes one lax call in
           # shard_map, a rank query jax.process_index(): ~1 h per site; dropping a DDP wrapper ~0.5 h
           covers=(("ML806", 1.0), ("ML807", 0.5))),
    OneOff("checkpoint conversion (state_dict to Flax params)",
           ("torch.load", "torch.save", "torch.hub.load_state_dict_from_url", "safetensors.torch.load_file",
            "safetensors.torch.save_file", "torch.utils.model_zoo.load_url"),
           (1.0, 3.0, 6.0)),
    OneOff("mixed precision (autocast/GradScaler to dtype policy)",
           ("torch.cuda.amp", "torch.amp", "torch.autocast", "torch.cpu.amp", "apex.amp"),
           (0.5, 1.5, 4.0)),
)

#: Rules whose sites call a kernel of a compiled extension the project builds, and the hours
#: (before calibration) each site costs when the tree also holds native sources
#: (:data:`KERNEL_SOURCE_CODE` findings, which price each kernel's rewrite at its source file):
#: the site is then the wiring of the rewritten kernel (a ``jax.ffi.ffi_call`` with static output
#: shapes, or the call of its jnp/Pallas rewrite), not a second rewrite. Our judgment default:
#: gsplat 1.5.3 calls its 30 native files' kernels from 27 sites, each priced as a rewrite before.
KERNEL_CALL_WIRING_HOURS: Mapping[str, float] = {"ML415": 2.0, "ML416": 2.0}
KERNEL_SOURCE_CODE = "ML412"

#: Third-party packages that exist only for PyTorch (no JAX counterpart to swap in).
TORCH_ONLY_PACKAGES = frozenset({
    "apex", "bitsandbytes", "deepspeed", "detectron2", "fairscale", "flash_attn", "kornia", "lightning",
    "mmcv", "mmdet", "pytorch3d", "pytorch_lightning", "spconv", "torch_geometric", "torch_scatter",
    "torch_sparse", "torchaudio", "torchtext", "triton", "xformers", "torchmetrics", "functorch",
    "horovod", "accelerate", "peft",  # distributed training (PyTorch/TF/MXNet only), HF's torch trainers/adapters
})

#: Categories whose *import* findings name a dependency priced once (not once per import).
DEPENDENCY_CATEGORIES = frozenset({"ecosystem-dependency", "custom-op"})

#: Risk components: name -> (weight in points, cap of the value at which all points are given).
RISK_WEIGHTS: Mapping[str, tuple[float, float]] = {
    "blocker density": (20.0, 10.0),        # high/critical findings per 1000 code lines
    "share of code blocked": (20.0, 0.5),   # code lines in blocked units / code lines in scope
    "custom ops": (20.0, 5.0),              # distinct custom ops: without a JAX route 1, with one 0.25
    "dynamic features": (15.0, 10.0),       # dynamic-control-flow/data-dependent-shape per 1000 code lines
    "ecosystem gaps": (10.0, 5.0),          # distinct dependencies without a JAX twin
    "unknowns": (15.0, 1.0),                # see UNKNOWN_* below: a 0-1 blend
}
#: The unknowns value: half from skipped files (all of it at UNKNOWN_SKIPPED_CAP of the files),
#: half from unresolved project references (all of it at UNKNOWN_UNRESOLVED_CAP per 1000 lines).
UNKNOWN_SKIPPED_CAP = 0.2
UNKNOWN_UNRESOLVED_CAP = 30.0
#: Weight of a custom op that has a JAX route, against 1 for one without.
ROUTED_CUSTOM_OP_WEIGHT = 0.25

#: A plain "go" needs a P90 of at most this many person-days, risk below GO_BELOW, no blocked
#: unit, and (with a spend) payback within the horizon.
GO_MAX_DAYS = 60.0
#: Share of the files a scan could not analyze (syntax errors, unreadable, too large) above which
#: no verdict is a plain go: the figures leave those files out.
UNREAD_NO_GO = 0.25

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
#: Codes that, beyond the data-dependent-shape category, make jit recompile per value.
RECOMPILE_CODES = frozenset({"ML102", "ML103"})


# ---------------------------------------------------------------------------- three-point tasks
@fast_init
@dataclass(frozen=True, slots=True)
class Pert:
    """A sum of three-point tasks in hours or days: ``low``/``likely``/``high`` add the
    optimistic/likely/pessimistic values and ``mean`` the PERT means ((o + 4m + p) / 6), the
    point value the estimate uses."""

    low: float = 0.0
    likely: float = 0.0
    high: float = 0.0
    mean: float = 0.0

    @staticmethod
    def task(o: float, m: float, p: float) -> Pert:
        """One task. Raises ValueError unless 0 <= o <= m <= p."""
        if not 0 <= o <= m <= p:
            raise ValueError(f"three-point estimate needs 0 <= o <= m <= p, got {o}, {m}, {p}")
        return Pert(o, m, p, (o + 4 * m + p) / 6)

    def __add__(self, other: Pert) -> Pert:
        return Pert(self.low + other.low, self.likely + other.likely, self.high + other.high, self.mean + other.mean)

    def scale(self, k: float) -> Pert:
        """Every value times ``k`` >= 0."""
        return Pert(self.low * k, self.likely * k, self.high * k, self.mean * k)


def pert_sum(items: Iterable[Pert]) -> Pert:
    """Sum of tasks."""
    total = Pert()
    for p in items:
        total = total + p
    return total


@fast_init
@dataclass(frozen=True, slots=True)
class Effort:
    """Calibrated effort in person-days: ``p50`` (likely: half the ports of this size took
    less) and the band ``p10``..``p90`` (with 80% confidence), ``p50 / BAND_RATIO`` ..
    ``p50 x BAND_RATIO``. Sums add the P50s (the band is a ratio, so it scales with them)."""

    p50: float = 0.0

    @property
    def p10(self) -> float:
        """P50 / :data:`BAND_RATIO`."""
        return self.p50 / BAND_RATIO

    @property
    def p90(self) -> float:
        """P50 x :data:`BAND_RATIO`."""
        return self.p50 * BAND_RATIO

    def __add__(self, other: Effort) -> Effort:
        return Effort(self.p50 + other.p50)


def effort_sum(items: Iterable[Effort]) -> Effort:
    """Sum of efforts (P50s added)."""
    return Effort(sum(e.p50 for e in items))


# ---------------------------------------------------------------------------- results
@fast_init
@dataclass(frozen=True, slots=True)
class ModuleEstimate:
    """One unit: ``effort`` = ``base`` + ``findings`` (person-days, calibrated), its
    ``code_lines``, the ``copied_lines`` priced as copies, and risk (0-100)."""

    qualname: str
    effort: Effort
    base: Effort
    findings: Effort
    risk: int
    code_lines: int = 0
    copied_lines: int = 0


@dataclass(frozen=True, slots=True)
class DependencyCost:
    """A dependency without a JAX twin, priced once: ``name`` (a library or a model class),
    the rule (``code``, ``rule``, ``category``), ``jax_route`` (True when the rule's porting
    is not ``blocked``: the work has a known JAX route), ``effort``, the ``sites`` (``path:line``,
    sorted) that import it, and the rule's ``porting`` (mechanical: a JAX counterpart to swap in;
    redesign: reimplement in JAX; blocked: a kernel, Pallas or FFI). ``fallback_sites``: how
    many sites have a path without it in their file, ``fallback`` the first such evidence
    (:func:`migrate_lens.analysis.routes.fallback_evidence`: an optional import, a pure-PyTorch
    route), "" when none."""

    name: str
    code: str
    rule: str
    category: str
    jax_route: bool
    effort: Effort
    sites: tuple[str, ...]
    porting: str = "redesign"
    fallback_sites: int = 0
    fallback: str = ""


@dataclass(frozen=True, slots=True)
class CustomOpSites:
    """A custom-op rule priced per site (not a dependency priced once): its findings in scope
    (``sites``), how many have a fallback in their file (``fallback_sites``, see
    :func:`migrate_lens.analysis.routes.fallback_evidence`) and the first such ``fallback``."""

    code: str
    sites: int
    fallback_sites: int
    fallback: str


@dataclass(frozen=True, slots=True)
class OneOffCost:
    """A detected one-off task: calibrated effort, evidence (the first call ``name at
    path:line`` and how many more)."""

    name: str
    effort: Effort
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
    """One of the biggest effort drivers: P50 person-days and share of the total P50."""

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
class ModelEstimate:
    """If only this top-level model were ported: its unit closure's size and effort (units
    only; dependencies and one-off tasks are project-wide)."""

    qualname: str
    units: int
    code_lines: int
    effort: Effort


@dataclass(frozen=True, slots=True)
class Roi:
    """Return on investment, currency of the day rate. ``cost`` is the effort's P10/P50/P90
    times the day rate. With a monthly spend: ``payback_months`` (P50 cost at the high saving,
    P50 cost at the low saving) and ``payback_mid`` (P50 cost at the middle saving), net after 12
    months (low: P90 cost at the low saving; high: P50 cost at the high saving). Without spend
    those are None and ``breakeven_spend`` is the monthly spend that pays the P50 cost back
    within the horizon at the middle saving."""

    monthly_spend: float
    saving_low: float
    saving_high: float
    cost_p10: float
    cost_p50: float
    cost_p90: float
    payback_months: tuple[float | None, float | None]
    payback_mid: float | None
    net_12_months: tuple[float | None, float | None]
    breakeven_spend: float
    horizon_months: float
    note: str


@dataclass(frozen=True, slots=True)
class Estimate:
    """The estimate of one project's scope (effort in calibrated person-days)."""

    modules: Mapping[str, ModuleEstimate]
    one_offs: tuple[OneOffCost, ...]
    total: Effort
    calendar_months: tuple[float, float]
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
    decided_by: str = ""
    dependencies: tuple[DependencyCost, ...] = ()
    by_category: Mapping[str, float] = field(default_factory=dict)
    copies: CopyIndex | None = None
    scope: Scope | None = None
    models: tuple[ModelEstimate, ...] = ()
    models_total: int = 0
    code_lines: int = 0
    currency: str = ""
    #: rule code -> (category, porting) for the codes with findings in scope.
    rule_kinds: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    #: rule code -> P50 person-days of its first fix, charged once per project (the units
    #: pay applying it: :func:`first_fix_hours`).
    first_fixes: Mapping[str, float] = field(default_factory=dict)
    #: unit qualname -> the rule codes of its priced findings (whose first fix it needs).
    unit_codes: Mapping[str, frozenset[str]] = field(default_factory=dict)
    #: custom-op rules priced per site, by code, with their fallbacks in the code.
    custom_op_sites: tuple[CustomOpSites, ...] = ()

    def units_effort(self, units: Iterable[str]) -> Effort:
        """Effort of porting ``units`` alone: their own efforts plus the first fix of every
        rule they have findings of (ported alone, they find each fix themselves)."""
        names = [u for u in units if u in self.modules]
        codes = set().union(*(self.unit_codes.get(u, frozenset()) for u in names))
        # (the codes in sorted order: a float sum in set order depended on the string hash seed)
        return effort_sum(self.modules[u].effort for u in names) + Effort(sum(self.first_fixes.get(c, 0.0) for c in sorted(codes)))

    @property
    def calendar_weeks(self) -> tuple[float, float]:
        """Calendar months as weeks (x 21/5)."""
        return (self.calendar_months[0] * WORKDAYS_PER_MONTH / DAYS_PER_WEEK,
                self.calendar_months[1] * WORKDAYS_PER_MONTH / DAYS_PER_WEEK)


# ---------------------------------------------------------------------------- pieces
def base_effort_hours(loc: int, functions: int) -> Pert:
    """Base porting effort (hours, before calibration) of a unit of ``loc`` code lines and
    ``functions`` functions and methods (see the BASE_* constants)."""
    likely = BASE_FIXED_HOURS + BASE_HOURS_PER_LINE * max(0, loc) + BASE_HOURS_PER_FUNCTION * max(0, functions)
    o, m, p = (likely * k for k in BASE_SPREAD)
    return Pert.task(o, m, p)


def one_per_site(findings: Iterable[Finding], catalog: Catalog) -> list[Finding]:
    """``findings`` with one finding per source position (path, line, column): where two rules
    flag the same expression (a ``batched_nms`` call is both a data-dependent shape and a
    compiled torchvision kernel), the one with the largest likely effort is kept (ties: the
    smaller code). Order kept."""
    rules = _rules(catalog)
    best: dict[tuple[str, int, int], Finding] = {}

    def weight(f: Finding) -> tuple[float, str]:
        r = rules.get(f.code)
        return (r.effort.likely if r else 2.0, _neg(f.code))

    for f in findings:
        key = (f.path, f.span.line, f.span.column)
        old = best.get(key)
        if old is None or weight(f) > weight(old):
            best[key] = f
    keep = {id(f) for f in best.values()}
    return [f for f in findings if id(f) in keep]


def _neg(code: str) -> str:
    """A key that sorts codes in reverse (so max() prefers the smaller code on ties)."""
    return "".join(chr(0x10FFFF - ord(ch)) for ch in code)


def _task(catalog: Catalog, code: str) -> Pert:
    """The three-point effort of ``code``'s rule, (1, 2, 4) hours for a code not in the catalog."""
    rule = _rules(catalog).get(code)
    return Pert.task(rule.effort.optimistic, rule.effort.likely, rule.effort.pessimistic) if rule \
        else Pert.task(1.0, 2.0, 4.0)


def findings_effort_hours(findings: Iterable[Finding], catalog: Catalog,
                          weight: Mapping[int, float] | None = None,
                          first_fix: bool = True) -> tuple[Pert, dict[str, Pert]]:
    """Effort of fixing ``findings`` (hours, before calibration): each rule's three-point
    effort, repeats of a rule within the set at :data:`REPEAT_FACTOR`; ``weight`` maps
    ``id(finding)`` to a factor (copies: :data:`COPY_FRACTION`). With ``first_fix=False`` every
    finding costs REPEAT_FACTOR of its rule's effort (applying a fix found elsewhere: the
    estimate charges each rule's first fix once per project, :func:`first_fix_hours`). Returns
    (total, per code). Findings whose code is not in the catalog count as (1, 2, 4) hours."""
    per_code: dict[str, Pert] = {}
    by_code: dict[str, list[Finding]] = defaultdict(list)
    for fd in findings:
        by_code[fd.code].append(fd)
    for code, fs in by_code.items():
        task = _task(catalog, code)
        # the sum of task.scale(k) over the findings, added field by field in the same order
        # as Pert.__add__ would (same floats), without two records per finding
        lo = li = hi = me = 0.0
        for i, fd in enumerate(fs):
            k = (1.0 if i == 0 and first_fix else REPEAT_FACTOR) * (weight.get(id(fd), 1.0) if weight else 1.0)
            lo += task.low * k
            li += task.likely * k
            hi += task.high * k
            me += task.mean * k
        per_code[code] = Pert(lo, li, hi, me)
    return pert_sum(per_code.values()), per_code


def first_fix_hours(code: str, weights: Iterable[float], catalog: Catalog) -> Pert:
    """The once-per-project part of fixing rule ``code`` (hours, before calibration): finding
    the fix, (1 - :data:`REPEAT_FACTOR`) of the rule's effort, times the largest of the
    ``weights`` of its findings (1 for original code, :data:`COPY_FRACTION` when every finding
    is in a copy). With each finding's REPEAT_FACTOR share priced in its unit, a rule with n
    findings of weight 1 costs 1 + REPEAT_FACTOR x (n - 1) of its effort, wherever they are."""
    w = max(weights, default=0.0)
    return _task(catalog, code).scale((1.0 - REPEAT_FACTOR) * w)


def module_risk(module: ModuleInfo) -> int:
    """0-100: points for the module's status plus up to 30 for its own high/critical
    findings per 100 lines."""
    blocking = sum(1 for f in module.findings if f.severity in BLOCKING_SEVERITIES)
    density = blocking * 100.0 / max(module.lines_of_code, 1)
    points = MODULE_STATUS_RISK[module.status] + MODULE_DENSITY_POINTS * min(1.0, density / MODULE_DENSITY_CAP)
    return int(min(100, round(points)))


_DOTTED = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*")


def dependency_name(finding: Finding) -> str:
    """The dependency an import finding names, priced once: a class (``transformers.
    SiglipVisionModel``: the dotted name up to its first CapWords part), a registered op
    (``torch.ops.ns.op``), else the top-level package (``bitsandbytes``). Read from the
    finding's message, whose rules start with ``import of {detail}`` (or ``optional import of
    {detail}``, ML414)."""
    text = finding.message
    at = text.find("import of ")
    if 0 <= at <= len("optional "):
        text = text[at + len("import of "):]
    m = _DOTTED.match(text)
    name = m.group(0) if m else finding.snippet
    parts = name.split(".")
    if parts[:2] == ["torch", "ops"]:
        return ".".join(parts[:4])
    for i, p in enumerate(parts[1:], start=1):
        if p[:1].isupper():
            return ".".join(parts[: i + 1])
    return parts[0]


def ecosystem_gaps(project: Project, findings: Sequence[Finding], deps: Sequence[DependencyCost],
                   catalog: Catalog) -> list[str]:
    """Sorted names of the torch ecosystem pieces the port must replace or rebuild: the priced
    ``ecosystem-dependency`` imports (``deps``), the imported :data:`TORCH_ONLY_PACKAGES` not
    priced, and the top-level packages of the other ``ecosystem-dependency`` findings in
    ``findings`` whose rule is a redesign or blocked (``timm.create_model`` building a pretrained
    backbone inside a model, a torchvision op kernel: open_clip's 78 timm towers were "0 gaps"
    because only imports were counted), when that package is one the project imports (not
    ``torch`` itself: ``.backward()`` is a training idiom, not a dependency). Info findings do
    not count."""
    rules = _rules(catalog)
    names = {d.name for d in deps if d.category == "ecosystem-dependency"}
    names |= {p for p in project.external_imports if p in TORCH_ONLY_PACKAGES} - {d.name.split(".")[0] for d in deps}
    for f in findings:
        rule = rules.get(f.code)
        if rule is not None and rule.category == "ecosystem-dependency" and rule.porting in ("redesign", "blocked") \
                and f.severity != "info" and not _is_dependency(f, catalog):
            top = dependency_name(f).split(".")[0]
            if top in project.external_imports and top != "torch":  # a package, not a training idiom
                names.add(top)
    return sorted(names)


def _is_dependency(f: Finding, catalog: Catalog) -> bool:
    rule = _rules(catalog).get(f.code)
    return bool(rule and rule.category in DEPENDENCY_CATEGORIES and rule.matcher.kind == "import")


def _one_off_evidence(project: Project, units: frozenset[str] | None) -> dict[int, list[tuple[str, int, str]]]:
    """ONE_OFFS index -> (path, line, callee) of the calls that fire it, from non-test files,
    by callers in ``units`` (None: anywhere)."""
    owner: dict[str, int] = {}
    for index, item in enumerate(ONE_OFFS):
        for p in item.prefixes:
            owner.setdefault(p, index)
    depth = max(p.count(".") + 1 for p in owner)
    memo: dict[str, int | None] = {}
    hits: dict[int, set[tuple[str, int, str]]] = defaultdict(set)
    unit_of = project.unit_of
    for f in project.files:
        if is_test_path(f.path):
            continue
        # the file's distinct callees first (core: 82k calls, almost none under a prefix),
        # then its calls only when one of them is
        firing: dict[str, int] = {}
        for name in {c.callee for c in f.calls}:
            if name in memo:
                i = memo[name]
            else:
                i = None
                parts = name.split(".", depth)
                for k in range(min(len(parts), depth), 0, -1):
                    i = owner.get(".".join(parts[:k]))
                    if i is not None:
                        break
                memo[name] = i
            if i is not None:
                firing[name] = i
        if not firing:
            continue
        for c in f.calls:
            i = firing.get(c.callee)
            if i is None or (units is not None and unit_of.get(c.caller, c.caller) not in units):
                continue
            hits[i].add((f.path, c.line, c.callee))
    return {i: sorted(v) for i, v in hits.items()}


def detect_one_offs(project: Project, multiplier: float = 1.0, units: frozenset[str] | None = None) -> tuple[OneOffCost, ...]:
    """One-off tasks whose evidence (a call under one of its prefixes, from non-test code of
    ``units``; None = anywhere) is in the project, in :data:`ONE_OFFS` order. P50 person-days:
    the PERT mean times ``multiplier``."""
    hits = _one_off_evidence(project, units)
    out: list[OneOffCost] = []
    for i, item in enumerate(ONE_OFFS):
        ordered = hits.get(i)
        if not ordered:
            continue
        path, line, name = ordered[0]
        more = f" and {len(ordered) - 1} more" if len(ordered) > 1 else ""
        out.append(OneOffCost(item.name, Effort(Pert.task(*item.days).mean * multiplier), f"{name} at {path}:{line}{more}"))
    return tuple(out)


def covered_site_hours(one_offs: Iterable[OneOffCost]) -> dict[str, float]:
    """Rule code -> hours per finding (before calibration) for the rules whose design change
    one of the detected ``one_offs`` prices (:attr:`OneOff.covers`); the smallest figure when
    two tasks cover one code."""
    by_name = {item.name: item for item in ONE_OFFS}
    out: dict[str, float] = {}
    for o in one_offs:
        item = by_name.get(o.name)
        for code, hours in item.covers if item else ():
            out[code] = min(hours, out.get(code, hours))
    return out


def _n(count: int, noun: str) -> str:
    """``"1 file"``, ``"2 files"``, ``"2 dependencies"``."""
    if count == 1:
        return f"{count:,} {noun}"
    plural = noun[:-1] + "ies" if noun.endswith("y") and noun[-2:-1] not in "aeiou" else noun + "s"
    return f"{count:,} {plural}"


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


def _kernel_bodies(f: Any, shapes: Mapping[str, Any], body_codes: frozenset[str]) -> dict[str, int]:
    """Shaped functions and methods of file ``f`` whose body is a GPU kernel priced by its own
    finding (a rule with matcher param ``prices_body``: ``@triton.jit``, ``@T.prim_func``; the
    nearest shaped function around the finding's symbol, a ``@tilelang.jit`` factory around its
    ``prim_func``): qualname -> code lines. Their lines are the kernel's rewrite (8-40 hours
    each), not base porting on top of it."""
    out: dict[str, int] = {}
    if not body_codes:
        return out
    for fd in f.findings:
        if fd.code not in body_codes:
            continue
        q = fd.symbol
        while q:
            sh = shapes.get(q)
            if sh is not None:
                if sh.kind in ("function", "method"):
                    out[sh.qualname] = sh.code_lines
                break
            q = q.rpartition(".")[0]
    # (a kernel nested in another counted one is inside its lines)
    return {q: n for q, n in out.items() if not any(q.startswith(o + ".") for o in out)}


def _code_lines(project: Project, copies: CopyIndex,
                body_codes: frozenset[str] = frozenset()) -> dict[str, tuple[int, int]]:
    """unit qualname -> (code lines, copied code lines). A class unit counts the code lines of
    its class (from the file's shapes); a file unit its file's code lines less those of the
    class units in it (outermost ones). Physical lines when the file has no counts. Lines of
    kernel bodies priced by their own finding (:func:`_kernel_bodies`) are left out of the
    unit that holds them."""
    files = {f.path: f for f in project.files}
    out: dict[str, tuple[int, int]] = {}
    by_path: dict[str, list[ModuleInfo]] = defaultdict(list)
    for m in project.modules:
        by_path[m.path].append(m)
    for path, units in by_path.items():
        f = files.get(path)
        shapes = {s.qualname: s for s in f.shapes} if f is not None else {}
        kernels = _kernel_bodies(f, shapes, body_codes) if f is not None else {}
        classes = sorted((m for m in units if m.kind != "file"), key=lambda m: (m.line, -m.end_line))
        outer: list[ModuleInfo] = []
        end = 0
        for m in classes:
            if m.line > end:
                outer.append(m)
                end = m.end_line
        for m in classes:
            sh = shapes.get(m.qualname)
            code = sh.code_lines if sh is not None else m.lines_of_code
            if kernels:
                code = max(0, code - sum(n for q, n in kernels.items() if q.startswith(m.qualname + ".")))
            inner = sum(copies.copied_lines_in(path, c.line, c.end_line) for c in classes
                        if c is not m and m.line <= c.line and c.end_line <= m.end_line)
            copied = min(code, copies.copied_lines_in(path, m.line, m.end_line) - inner)
            out[m.qualname] = (code, max(0, copied))
        for m in units:
            if m.kind != "file":
                continue
            if f is not None and f.code_lines >= 0:
                code = max(0, f.code_lines - sum(out[c.qualname][0] for c in outer) - sum(
                    n for q, n in kernels.items() if not any(q.startswith(c.qualname + ".") for c in outer)))
            else:
                code = m.lines_of_code
            copied = sum(c.code_lines for c in copies.by_path.get(path, ())
                         if not any(o.line <= c.line and c.end_line <= o.end_line for o in outer))
            out[m.qualname] = (code, min(code, copied))
    return out


# ---------------------------------------------------------------------------- the estimate
def estimate(project: Project, catalog: Catalog, config: Config, *, skipped: int = 0,
             entries: Sequence[str] | None = None) -> Estimate:
    """Effort, risk, ROI, decision and checklist for ``project``'s scope: the units reached
    from ``entries`` (default ``config.entries``; none = the whole project).

    ``skipped``: files that could not be analyzed (counted as unknowns). Effort is in
    calibrated person-days (``config.hours_per_day`` hours) times the team-experience
    multiplier. Raises KeyError for an unknown ``config.team_experience`` and
    :class:`migrate_lens.scope.EntryError` for an entry naming nothing.
    """
    mult = EXPERIENCE_MULTIPLIER[config.team_experience]
    hpd = config.hours_per_day or 8.0
    to_days = mult * CALIBRATION_SCALE / hpd
    scope = make_scope(project, tuple(entries if entries is not None else getattr(config, "entries", ())))
    in_scope = [m for m in project.modules if m.qualname in scope.units]
    copies = find_copies(project.files)
    lines = _code_lines(project, copies, frozenset(
        r.code for r in catalog.rules if dict(r.matcher.params).get("prices_body") is True))
    rules = _rules(catalog)

    one_offs = detect_one_offs(project, mult * CALIBRATION_SCALE, scope.units if scope.roots else None)
    # a site of a rule whose design a detected one-off prices costs the task's site hours
    site_hours = covered_site_hours(one_offs)
    if any(f.code == KERNEL_SOURCE_CODE for m in in_scope for f in m.findings):
        for code, hours in KERNEL_CALL_WIRING_HOURS.items():
            site_hours[code] = min(hours, site_hours.get(code, hours))
    covered = {code: hours / (REPEAT_FACTOR * _task(catalog, code).mean) for code, hours in site_hours.items()}
    modules: dict[str, ModuleEstimate] = {}
    by_category: dict[str, float] = defaultdict(float)
    code_effort: dict[str, float] = defaultdict(float)
    base_by_top: dict[str, float] = defaultdict(float)
    base_lines: Counter[str] = Counter()
    dep_sites: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    fix_weights: dict[str, list[float]] = defaultdict(list)
    unit_codes: dict[str, frozenset[str]] = {}
    files = {f.path: f for f in project.files}
    op_sites: dict[str, list[str]] = defaultdict(list)
    unit_sites: dict[str, list[Finding]] = {}  # unit -> one_per_site of its findings (read three times)
    for m in project.modules:
        code, copied = lines[m.qualname]
        full = base_effort_hours(code, m.functions)
        own_share = (code - copied) / code if code else 1.0
        copy_share = COPY_FRACTION * copied / code if code else 0.0
        base_h = full.scale(own_share + copy_share)
        findings = []
        weight: dict[int, float] = {}
        unit_sites[m.qualname] = one = one_per_site(m.findings, catalog)
        for f in one:
            if _is_dependency(f, catalog):
                if m.qualname in scope.units:
                    dep_sites[(f.code, dependency_name(f))].append(f)
                continue
            findings.append(f)
            w = COPY_FRACTION if copies.copy_at(f.path, f.span.line) is not None else 1.0
            w *= covered.get(f.code, 1.0)
            if w != 1.0:
                weight[id(f)] = w
        fe_h, per_code = findings_effort_hours(findings, catalog, weight, first_fix=False)
        unit_codes[m.qualname] = frozenset(per_code)
        base = Effort(base_h.mean * to_days)
        fe = Effort(fe_h.mean * to_days)
        modules[m.qualname] = ModuleEstimate(m.qualname, base + fe, base, fe, module_risk(m), code, copied)
        if m.qualname not in scope.units:
            continue
        for fd in findings:
            if fd.code not in covered:  # (a covering one-off task is that rule's first fix)
                fix_weights[fd.code].append(weight.get(id(fd), 1.0))
            if fd.code in rules and rules[fd.code].category == "custom-op" and fd.severity != "info":
                op_sites[fd.code].append(_fallback(fd, files, ""))
        by_category["base porting"] += full.mean * own_share * to_days
        by_category["base porting (copies)"] += full.mean * copy_share * to_days
        for c, p in per_code.items():
            d = p.mean * to_days
            code_effort[c] += d
            by_category[rules[c].category if c in rules else "other"] += d
        top = "/".join(m.path.split("/")[:-1][:2]) or "."
        base_by_top[top] += base.p50
        base_lines[top] += code

    # each rule's first fix, once per project (its units pay applying it)
    first_fixes: dict[str, float] = {}
    for code in sorted(fix_weights):
        d = first_fix_hours(code, fix_weights[code], catalog).mean * to_days
        first_fixes[code] = d
        code_effort[code] += d
        by_category[rules[code].category if code in rules else "other"] += d
    deps: list[DependencyCost] = []
    for (code, name), fs in dep_sites.items():
        rule = rules.get(code)
        task = Pert.task(rule.effort.optimistic, rule.effort.likely, rule.effort.pessimistic) if rule else Pert.task(1, 2, 4)
        sites = tuple(sorted({f"{f.path}:{f.span.line}" for f in fs}))
        where = {f"{f.path}:{f.span.line}": _fallback(f, files, name.split(".")[0]) for f in fs}
        routes = [where[s] for s in sites if where[s]]
        deps.append(DependencyCost(name, code, rule.name if rule else "unknown rule",
                                   rule.category if rule else "other", bool(rule and rule.porting != "blocked"),
                                   Effort(task.mean * to_days), sites, rule.porting if rule else "redesign",
                                   len(routes), routes[0] if routes else ""))
        code_effort[code] += task.mean * to_days
        by_category[rule.category if rule else "other"] += task.mean * to_days
    deps.sort(key=lambda d: (-d.effort.p50, d.name, d.code))
    for o in one_offs:
        by_category["one-off project tasks"] += o.effort.p50
    total = effort_sum(modules[m.qualname].effort for m in in_scope) + effort_sum(d.effort for d in deps) \
        + effort_sum(o.effort for o in one_offs) + Effort(sum(first_fixes.values()))

    # Calendar: parallel work with a coordination loss, never below the critical path.
    critical = _critical_path_days(in_scope, modules)
    efficiency = 1.0 / (1.0 + COORDINATION_LOSS * (config.team_size - 1))
    per_month = WORKDAYS_PER_MONTH * config.team_size * efficiency
    months = (max(total.p50 / per_month, critical / WORKDAYS_PER_MONTH),
              max(total.p90 / per_month, critical / WORKDAYS_PER_MONTH))

    code_in_scope = sum(lines[m.qualname][0] for m in in_scope)
    components = _risk_components(project, in_scope, catalog, skipped, deps, code_in_scope, unit_sites)
    risk = int(min(100, round(sum(c.points for c in components))))
    drivers = _drivers(catalog, code_effort, base_by_top, base_lines, one_offs, total)
    roi = _roi(config, total)
    checklist = _checklist(project, in_scope, catalog, skipped, deps, unit_sites)
    verdict, headline, reasons, decided_by = _decide(project, in_scope, risk, components, roi, total, checklist,
                                                     code_in_scope, skipped)
    models, n_models = _models(project, scope, modules, unit_codes, first_fixes)
    return Estimate(
        modules=modules, one_offs=one_offs, total=total, calendar_months=months, risk_score=risk,
        risk_components=components, drivers=drivers, roi=roi, verdict=verdict, headline=headline,
        reasons=reasons, checklist=checklist, team_experience=config.team_experience, team_size=config.team_size,
        day_rate=config.day_rate, hours_per_day=hpd, multiplier=mult, critical_path_days=critical,
        decided_by=decided_by, dependencies=tuple(deps),
        by_category={k: v for k, v in sorted(by_category.items()) if v > 0},
        copies=copies, scope=scope, models=models, models_total=n_models, code_lines=code_in_scope,
        currency=getattr(config, "currency", ""),
        rule_kinds={c: (rules[c].category, rules[c].porting) for c in sorted(
            {f.code for m in in_scope for f in m.findings} & set(rules))},
        first_fixes=first_fixes, unit_codes=unit_codes,
        custom_op_sites=tuple(CustomOpSites(c, len(v), sum(1 for x in v if x), next((x for x in v if x), ""))
                              for c, v in sorted(op_sites.items())),
    )


def _fallback(f: Finding, files: Mapping[str, Any], library: str) -> str:
    """:func:`migrate_lens.analysis.routes.fallback_evidence` for ``f`` from its file's facts."""
    facts = files.get(f.path)
    return fallback_evidence(f, facts.imports, facts.functions, library) if facts is not None else ""


def _models(project: Project, scope: Scope, modules: Mapping[str, ModuleEstimate],
            unit_codes: Mapping[str, frozenset[str]] | None = None,
            first_fixes: Mapping[str, float] | None = None) -> tuple[tuple[ModelEstimate, ...], int]:
    """The top-level models in scope, largest first (at most 15), and how many there are. A
    model's units are its class units and what they need, with the file-level code they call
    counted but not followed further (a file unit's dependencies are those of every function
    in the file, most of which the model never runs). Its effort is its units' plus the first
    fix (``first_fixes``, P50 person-days by code) of each rule its units have findings of
    (``unit_codes``): ported alone, it finds every fix itself."""
    unit_codes = unit_codes or {}
    first_fixes = first_fixes or {}
    adj = {m.qualname: (m.depends_on if m.kind != "file" else ()) for m in project.modules}
    out: list[ModelEstimate] = []
    tops = [m for m in top_level_models(project) if m.qualname in scope.units]
    for m in tops:
        # sums in sorted order: a float sum in set order depended on the string hash seed
        units = sorted(closure([m.qualname], adj))
        codes = sorted(set().union(*(unit_codes.get(u, frozenset()) for u in units)))
        fixes = Effort(sum(first_fixes.get(c, 0.0) for c in codes))
        out.append(ModelEstimate(m.qualname, len(units), sum(modules[u].code_lines for u in units if u in modules),
                                 effort_sum(modules[u].effort for u in units if u in modules) + fixes))
    out.sort(key=lambda x: (-x.effort.p50, x.qualname))
    return tuple(out[:15]), len(tops)


def _critical_path_days(units: Sequence[ModuleInfo], modules: Mapping[str, ModuleEstimate]) -> float:
    """Longest chain of dependent units (sum of P50 person-days), cycles condensed."""
    from migrate_lens.graph import strongly_connected

    adj = {m.qualname: m.depends_on for m in units}
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
    """Physical lines of the analyzed files."""
    return sum(f.lines for f in project.files)


def _risk_components(project: Project, units: Sequence[ModuleInfo], catalog: Catalog, skipped: int,
                     deps: Sequence[DependencyCost], code_lines: int,
                     sites: Mapping[str, list[Finding]] | None = None) -> tuple[RiskComponent, ...]:
    """``sites``: unit -> :func:`one_per_site` of its findings, where already made."""
    sites = sites or {}
    findings = [f for m in units for f in (sites.get(m.qualname) or one_per_site(m.findings, catalog))]
    kloc = max(code_lines, 1) / 1000.0
    blocking = [f for f in findings if f.severity in BLOCKING_SEVERITIES]
    rules = _rules(catalog)
    cats = {f.code: _category(catalog, f.code) for f in findings}
    dynamic = [f for f in findings if cats[f.code] in _DYNAMIC and f.severity != "info"]
    # custom ops: each priced dependency once, plus the per-site custom-op findings by rule
    custom_deps = [d for d in deps if d.category == "custom-op"]
    site_ops = {f.code for f in findings if cats[f.code] == "custom-op" and f.severity != "info"
                and not _is_dependency(f, catalog)}
    no_route = sum(1 for d in custom_deps if not d.jax_route) + sum(1 for c in site_ops if rules[c].porting == "blocked")
    routed = len(custom_deps) + len(site_ops) - no_route
    lines_blocked = sum(m.lines_of_code for m in units if m.status == "blocked")
    physical = sum(m.lines_of_code for m in units) or 1
    share_blocked = min(1.0, lines_blocked / physical)
    n_files = len(project.files) + skipped
    skipped_share = skipped / n_files if n_files else 0.0
    unresolved_density = project.unresolved / max(analyzed_lines(project) / 1000.0, 0.001)
    unknown = 0.5 * min(1.0, skipped_share / UNKNOWN_SKIPPED_CAP) + 0.5 * min(1.0, unresolved_density / UNKNOWN_UNRESOLVED_CAP)
    names = ecosystem_gaps(project, findings, deps, catalog)
    values = {
        "blocker density": (len(blocking) / kloc,
                            f"{len(blocking):,} high/critical findings in {code_lines:,} code lines"
                            + f" ({len(blocking) / kloc:.2f} per 1000)"),
        "share of code blocked": (share_blocked, f"{share_blocked:.0%} of the lines are in blocked units"),
        "custom ops": (no_route + ROUTED_CUSTOM_OP_WEIGHT * routed,
                       f"{_n(no_route + routed, 'custom op or compiled library')}: {no_route} without a JAX route"
                       f" (Pallas/FFI kernel or rewrite), {routed} with one"),
        "dynamic features": (len(dynamic) / kloc,
                             f"{len(dynamic):,} data-dependent control-flow/shape findings"
                             + f" ({len(dynamic) / kloc:.2f} per 1000 code lines)"),
        "ecosystem gaps": (float(len(names)),
                           f"{_n(len(names), 'dependency')} without a JAX twin"
                           + (f": {', '.join(names[:5])}{' and more' if len(names) > 5 else ''}" if names else "")),
        "unknowns": (unknown,
                     f"{skipped} of {n_files} files skipped; {project.unresolved} project references unresolved"
                     + _missing_modules(project.missing_modules, short=True)),
    }
    out = []
    for name, (weight, cap) in RISK_WEIGHTS.items():
        value, detail = values[name]
        out.append(RiskComponent(name, round(value, 4), weight, _cap(weight, cap, value), detail))
    return tuple(out)


def _drivers(catalog: Catalog, code_effort: Mapping[str, float], base_by_top: Mapping[str, float],
             base_lines: Mapping[str, int], one_offs: tuple[OneOffCost, ...], total: Effort) -> tuple[Driver, ...]:
    rules = _rules(catalog)
    cands: list[tuple[float, str]] = []
    for code, d in code_effort.items():
        name = rules[code].name if code in rules else "unknown rule"
        cands.append((d, f"{code} {name}"))
    for top, d in base_by_top.items():
        cands.append((d, f"base porting of {top}/ ({base_lines[top]:,} code lines)" if top != "." else
                      f"base porting of top-level files ({base_lines[top]:,} code lines)"))
    for o in one_offs:
        cands.append((o.effort.p50, f"one-off: {o.name}"))
    cands.sort(key=lambda c: (-c[0], c[1]))
    denom = total.p50 or 1.0
    return tuple(Driver(label, round(days, 2), round(min(1.0, days / denom), 4)) for days, label in cands[:5] if days > 0)


def _roi(config: Config, total: Effort) -> Roi:
    rate = config.day_rate
    c10, c50, c90 = total.p10 * rate, total.p50 * rate, total.p90 * rate
    spend = config.monthly_spend
    horizon = float(getattr(config, "payback_horizon_months", PAYBACK_HORIZON_MONTHS) or PAYBACK_HORIZON_MONTHS)
    mid = (config.saving_low + config.saving_high) / 2
    breakeven = c50 / (horizon * mid) if mid > 0 else math.inf
    if spend <= 0:
        return Roi(spend, config.saving_low, config.saving_high, c10, c50, c90, (None, None), None, (None, None),
                   breakeven, horizon, "no monthly accelerator spend configured (monthly-spend): no payback figure")
    save_lo, save_hi, save_mid = spend * config.saving_low, spend * config.saving_high, spend * mid
    payback = (c50 / save_hi if save_hi > 0 else None, c50 / save_lo if save_lo > 0 else None)
    net = (12 * save_lo - c90, 12 * save_hi - c50)
    return Roi(spend, config.saving_low, config.saving_high, c10, c50, c90, payback,
               c50 / save_mid if save_mid > 0 else None, net, breakeven, horizon,
               f"a saving of {config.saving_low:.0%}-{config.saving_high:.0%} of the monthly spend is an assumption")


def _checklist(project: Project, units: Sequence[ModuleInfo], catalog: Catalog, skipped: int,
               deps: Sequence[DependencyCost],
               sites: Mapping[str, list[Finding]] | None = None) -> tuple[ChecklistItem, ...]:
    """``sites``: unit -> :func:`one_per_site` of its findings, where already made."""
    sites = sites or {}
    active = [f for m in units for f in (sites.get(m.qualname) or one_per_site(m.findings, catalog))
              if f.severity != "info"]
    by_cat: dict[str, list[Finding]] = defaultdict(list)
    for f in active:
        by_cat[_category(catalog, f.code)].append(f)
    rules = _rules(catalog)
    items: list[ChecklistItem] = []
    dyn = by_cat["dynamic-control-flow"] + by_cat["data-dependent-shape"]
    items.append(ChecklistItem("dynamic features", "ok" if not dyn else "warn",
                               f"{len(dyn):,} data-dependent control-flow/shape findings"
                               + (f", most in {_where(dyn)}" if dyn else "")))
    custom_deps = [d for d in deps if d.category == "custom-op"]
    custom_sites = [f for f in by_cat["custom-op"] if not _is_dependency(f, catalog)]
    no_route = [d.name for d in custom_deps if not d.jax_route] + sorted(
        {f.code for f in custom_sites if f.code in rules and rules[f.code].porting == "blocked"})
    n_custom = len(custom_deps) + len({f.code for f in custom_sites})
    items.append(ChecklistItem(
        "custom ops", "ok" if not n_custom else ("fail" if no_route else "warn"),
        "no custom ops" if not n_custom else
        f"{_n(n_custom, 'custom op or compiled library')}, {len(no_route)} with no JAX route"
        f" (a Pallas/XLA kernel or a rewrite)"))
    recompile = [f for f in active if _category(catalog, f.code) == "data-dependent-shape" or f.code in RECOMPILE_CODES]
    items.append(ChecklistItem("recompilation risk", "ok" if not recompile else "warn",
                               f"{len(recompile):,} places where shapes or host values change per call"
                               + (f", most in {_where(recompile)}" if recompile else "")))
    eco = ecosystem_gaps(project, active, deps, catalog)
    items.append(ChecklistItem("ecosystem gaps", "ok" if not eco else "warn",
                               f"{_n(len(eco), 'dependency')} without a JAX twin"
                               + (f": {', '.join(eco[:5])}{' and more' if len(eco) > 5 else ''}" if eco else "")))
    state = [f for f in active if _category(catalog, f.code) in _STATE]
    items.append(ChecklistItem("mutable state", "ok" if not state else "warn",
                               f"{len(state):,} in-place updates, module state writes or side effects"
                               + (f", most in {_where(state)}" if state else "")))
    tests = [f.path for f in project.files if is_test_path(f.path)]
    items.append(ChecklistItem("test coverage", "ok" if tests else "warn",
                               f"{_n(len(tests), 'test file')} found (numerical parity tests can start from them)" if tests
                               else "no test files found (tests/, test_*.py): parity tests must be written first"))
    refs = project.resolved + project.unresolved
    missing = project.missing_modules
    items.append(ChecklistItem(
        "unknowns", "ok" if skipped == 0 and project.unresolved <= 0.1 * max(refs, 1) and not missing else "warn",
        f"{_n(skipped, 'file')} skipped; {project.unresolved} of {refs} project references unresolved"
        + _missing_modules(missing)))
    return tuple(items)


def _missing_modules(missing: Sequence[tuple[str, int]], short: bool = False) -> str:
    """The clause naming the project's own modules that the code imports and the tree lacks
    (:attr:`Project.missing_modules`, most imported first), "" when there are none; ``short``
    for a risk reason (names only)."""
    if not missing:
        return ""
    more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
    if short:
        return (f"; {_n(len(missing), 'module')} of the project's namespace imported but not in the tree, "
                f"so not estimated: {', '.join(name for name, _ in missing[:3])}{more}")
    names = ", ".join(f"{name} ({_n(count, 'import')})" for name, count in missing[:3])
    return (f"; the code imports {_n(len(missing), 'module')} of its own namespace that the tree does not "
            f"hold: {names}{more} (a sibling distribution or files left out: scan them with the project)")


def days_text(days: float) -> str:
    """Person-days as the report prints them: one decimal under 10, whole days above, with
    thousands separators."""
    return f"{days:.1f}" if days < 10 else f"{days:,.0f}"


def months_text(months: float) -> str:
    """A duration in months, or years above 24 months (``"7.5 months"``, ``"3.1 years"``)."""
    if months > 24:
        return f"{months / 12:.1f} years"
    return f"{months:.1f} months" if months < 10 else f"{months:.0f} months"


def _decide(project: Project, units: Sequence[ModuleInfo], risk: int, components: tuple[RiskComponent, ...],
            roi: Roi, total: Effort, checklist: tuple[ChecklistItem, ...],
            code_lines: int, skipped: int = 0) -> tuple[str, str, tuple[str, ...], str]:
    """(verdict, headline, reasons, decided_by). The first rule that applies decides:
    nothing to assess; payback beyond the horizon; no 12-month return at the high saving;
    risk >= NOT_NOW_FROM or more than half the code blocked (all: not-now); go when small
    (P90 <= GO_MAX_DAYS), low-risk (< GO_BELOW), nothing blocked and, with a spend, paying back
    within the horizon; else pilot-first."""
    blocked = [m for m in units if m.status == "blocked"]
    share = next(c.value for c in components if c.name == "share of code blocked")
    reasons: list[str] = []
    if not any(not f.module.startswith("native:") for f in project.files) or not units:
        return "not-now", "Not now: nothing to assess (no Python code in scope was analyzed)", (
            "the scanned path (or the entries' scope) holds no analyzable Python code: check the path, the entries "
            "and the include/exclude settings",), "nothing to assess"
    horizon = roi.horizon_months
    pay_mid = roi.payback_mid
    if pay_mid is None:
        reasons.append(f"no monthly spend given: the likely cost pays back within {horizon:g} months if the monthly "
                       f"accelerator spend is at least {roi.breakeven_spend:,.0f} (break-even, at a "
                       f"{(roi.saving_low + roi.saving_high) / 2:.0%} saving)")
    top = sorted(components, key=lambda c: (-c.points, c.name))
    for c in top[:3]:
        if c.points > 0:
            reasons.append(f"{c.name}: {c.points:g} of {c.weight:g} risk points ({c.detail})")
    if blocked:
        reasons.append(f"{len(blocked)} units are blocked (custom ops with no JAX equivalent), {share:.0%} of the lines")
    fails = [c.item for c in checklist if c.status == "fail"]
    if fails:
        reasons.append(f"checklist failures: {', '.join(fails)}")
    if code_lines > CALIBRATED_LINES[1]:
        reasons.append(f"the scope is larger than the {CALIBRATED_LINES[0]:,}-{CALIBRATED_LINES[1]:,}-code-line ports the "
                       "range is calibrated on: the band is an extrapolation (scope it with entries to get a calibrated figure)")
    if pay_mid is not None and pay_mid > horizon:
        reasons.insert(0, f"decided by the payback: at a {(roi.saving_low + roi.saving_high) / 2:.0%} saving the likely "
                          f"cost takes longer than the {horizon:g}-month horizon to pay back")
        return ("not-now", f"Not now: the payback is beyond the {horizon:g}-month horizon", tuple(reasons), "payback")
    if roi.net_12_months[1] is not None and roi.net_12_months[1] < 0:
        reasons.insert(0, "decided by the 12-month return: negative even at the high saving")
        return ("not-now", f"Not now: no 12-month return even at a {roi.saving_high:.0%} saving", tuple(reasons),
                "12-month return")
    if risk >= NOT_NOW_FROM:
        return "not-now", f"Not now: the risk score is {NOT_NOW_FROM} or more", tuple(reasons), "risk"
    if share > 0.5:
        return "not-now", "Not now: more than half of the code is blocked", tuple(reasons), "blocked share"
    n_files = len(project.files) + skipped
    if skipped and skipped > UNREAD_NO_GO * n_files:
        # the figures leave the unread files out: no plain go on them (a tree mostly unparsable)
        reasons.insert(0, f"{skipped} of {n_files} files could not be analyzed (listed as skipped): the effort and "
                          "risk leave them out; fix or exclude them, then scan again")
        return ("pilot-first", f"Pilot first: {skipped} of {n_files} files could not be analyzed", tuple(reasons),
                "unanalyzed files")
    if risk < GO_BELOW and not blocked and total.p90 <= GO_MAX_DAYS:
        return ("go", f"Go: small (at most {GO_MAX_DAYS:g} person-days with 90% confidence), low-risk"
                + (" and paying back within the horizon" if pay_mid is not None else ""), tuple(reasons), "size and risk")
    if risk < GO_BELOW and not blocked:
        reasons.insert(0, f"low risk, but more than {GO_MAX_DAYS:g} person-days with 90% confidence: prove the "
                          "conversion path on a pilot before committing")
        return "pilot-first", f"Pilot first: low risk, but too large for a plain go", tuple(reasons), "size"
    reasons.insert(0, f"decided by the risk: {risk}/100 is between the go ({GO_BELOW}) and not-now ({NOT_NOW_FROM}) "
                      "thresholds" if risk >= GO_BELOW else "decided by the blocked units: a pilot must prove their route")
    return "pilot-first", "Pilot first: prove the riskiest parts on a small pilot before committing", tuple(reasons), \
        "risk" if risk >= GO_BELOW else "blocked units"


# ---------------------------------------------------------------------------- views
def _r(x: float) -> float:
    return round(x, 2)


def effort_view(e: Effort) -> dict[str, float]:
    """``{"p10", "p50", "p90"}`` person-days, rounded to 0.01."""
    return {"p10": _r(e.p10), "p50": _r(e.p50), "p90": _r(e.p90)}


def _opt(x: float | None) -> float | None:
    return None if x is None else _r(x)


def estimate_view(est: Estimate) -> dict[str, Any]:
    """report.json ``estimate`` (calibrated person-days, calendar months, currency of the day
    rate)."""
    roi = est.roi
    scope = est.scope
    copies = est.copies
    return {
        "effort_person_days": effort_view(est.total),
        "calendar_months": {"p50": _r(est.calendar_months[0]), "p90": _r(est.calendar_months[1])},
        "code_lines": est.code_lines,
        "calibration": {"scale": CALIBRATION_SCALE, "band_ratio": BAND_RATIO, "copy_fraction": COPY_FRACTION,
                        "calibrated_lines": list(CALIBRATED_LINES),
                        "within_calibration": CALIBRATED_LINES[0] <= est.code_lines <= CALIBRATED_LINES[1]},
        "effort_by_category": [{"category": k, "p50": _r(v)} for k, v in
                               sorted(est.by_category.items(), key=lambda kv: (-kv[1], kv[0]))],
        "risk_score": est.risk_score,
        "risk_components": [{"name": c.name, "value": c.value, "weight": c.weight, "points": c.points,
                             "detail": c.detail} for c in est.risk_components],
        "drivers": [{"label": d.label, "effort_person_days": d.days, "share": d.share} for d in est.drivers],
        "dependencies": [{"name": d.name, "code": d.code, "rule": d.rule, "category": d.category,
                          "jax_route": d.jax_route, "porting": d.porting, "effort_person_days": _r(d.effort.p50),
                          "sites": list(d.sites), "fallback_sites": d.fallback_sites, "fallback": d.fallback}
                         for d in est.dependencies],
        "custom_op_sites": [{"code": c.code, "sites": c.sites, "fallback_sites": c.fallback_sites,
                             "fallback": c.fallback} for c in est.custom_op_sites],
        "first_fixes": [{"code": c, "effort_person_days": _r(d)} for c, d in
                        sorted(est.first_fixes.items(), key=lambda kv: (-kv[1], kv[0]))],
        "one_off_costs": [{"name": o.name, "effort_person_days": _r(o.effort.p50), "evidence": o.evidence}
                          for o in est.one_offs],
        "copies": {
            "fraction": COPY_FRACTION,
            "copied_code_lines": sum(m.copied_lines for q, m in est.modules.items()
                                     if scope is None or q in scope.units),
            "families": [] if copies is None else [
                {"original": f.original, "path": f.path, "code_lines": f.code_lines, "copied_code_lines": f.copied_lines,
                 "copies": [{"qualname": c.qualname, "path": c.path, "line": c.line, "code_lines": c.code_lines,
                             "evidence": c.evidence} for c in f.copies[:50]],
                 "copies_total": len(f.copies)}
                for f in copies.families[:30]],
            "families_total": 0 if copies is None else len(copies.families),
        },
        "scope": {
            "entries": [] if scope is None else list(scope.entries),
            "roots": [] if scope is None else list(scope.roots),
            "units_in_scope": len(est.modules) if scope is None else len(scope.units),
            "out_of_scope": [] if scope is None else list(scope.out_of_scope[:200]),
            "out_of_scope_total": 0 if scope is None else len(scope.out_of_scope),
        },
        "top_level_models": [{"qualname": m.qualname, "units": m.units, "code_lines": m.code_lines,
                              "effort_person_days": effort_view(m.effort)} for m in est.models],
        "top_level_models_total": est.models_total,
        "roi": {
            "monthly_spend": roi.monthly_spend,
            "currency": est.currency,
            "saving_fraction": {"low": roi.saving_low, "high": roi.saving_high},
            "cost": {"p10": _r(roi.cost_p10), "p50": _r(roi.cost_p50), "p90": _r(roi.cost_p90)},
            "payback_months": {"low": _opt(roi.payback_months[0]), "high": _opt(roi.payback_months[1]),
                               "mid": _opt(roi.payback_mid)},
            "net_12_months": {"low": _opt(roi.net_12_months[0]), "high": _opt(roi.net_12_months[1])},
            "horizon_months": roi.horizon_months,
            "breakeven_monthly_spend": None if math.isinf(roi.breakeven_spend) else _r(roi.breakeven_spend),
            "note": roi.note,
        },
        "decision": {"verdict": est.verdict, "headline": est.headline, "decided_by": est.decided_by,
                     "reasons": list(est.reasons)},
        "checklist": [{"item": c.item, "status": c.status, "detail": c.detail} for c in est.checklist],
        "assumptions": {"team_experience": est.team_experience, "team_size": est.team_size,
                        "day_rate": est.day_rate, "hours_per_day": est.hours_per_day,
                        "experience_multiplier": est.multiplier},
    }


def modules_view(project: Project, est: Estimate, plan: Any) -> list[dict[str, Any]]:
    """report.json ``modules``, sorted by qualname; ``wave`` from ``plan`` (None if absent or
    out of scope)."""
    waves: Mapping[str, int] = getattr(plan, "wave_of", {}) if plan is not None else {}
    scope = est.scope
    out = []
    for m in sorted(project.modules, key=lambda m: m.qualname):
        e = est.modules[m.qualname]
        out.append({
            "qualname": m.qualname, "path": m.path, "line": m.line, "end_line": m.end_line, "kind": m.kind,
            "lines_of_code": m.lines_of_code, "code_lines": e.code_lines, "copied_code_lines": e.copied_lines,
            "pure": m.pure, "status": m.status, "in_scope": scope is None or m.qualname in scope.units,
            "explanation": list(m.explanation), "findings": len(m.findings),
            "effort_person_days": effort_view(e.effort), "risk": e.risk, "wave": waves.get(m.qualname),
        })
    return out
