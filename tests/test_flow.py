"""Contexts by reachability and value kinds that flow, on the small packages of
``fixtures/flow`` (see its README): the hazard sits in another file than ``forward`` or the
training step that reaches it. Each package is analyzed file by file and combined by the
project graph, as a scan does; the expectations are exact (path, line, code) sets over the
codes below, read from the ``# expect: CODE, CODE`` markers.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from migrate_lens.analysis.engine import analyze_source, local_contexts
from migrate_lens.catalog import Catalog
from migrate_lens.config import Config
from migrate_lens.discover import module_name
from migrate_lens.graph import build_project
from migrate_lens.interproc import function_contexts, static_inputs
from migrate_lens.models import CallFlow, FileFacts, FunctionSummary

FLOW = Path(__file__).resolve().parent.parent / "fixtures" / "flow"
#: the codes the fixtures pin: tensor/host-value branches and loop bounds, host reads, state
#: written on self, global RNG
CHECKED = frozenset({"ML101", "ML102", "ML103", "ML105", "ML203", "ML209", "ML210", "ML506", "ML509", "ML601"})
_MARK = re.compile(r"#\s*expect:\s*(ML\d+(?:\s*,\s*ML\d+)*)")


def _analyze(root: Path, catalog: Catalog) -> list[FileFacts]:
    """FileFacts of the package ``root`` (paths and modules relative to ``fixtures/flow``)."""
    out = []
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(FLOW).as_posix()
        out.append(analyze_source(p.read_text(encoding="utf-8"), rel, module_name(rel), catalog))
    return out


def _expected(root: Path) -> set[tuple[str, int, str]]:
    want = set()
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(FLOW).as_posix()
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1):
            m = _MARK.search(line)
            if m:
                want.update((rel, i, c.strip()) for c in m.group(1).split(","))
    return want


@pytest.mark.parametrize("package", sorted(p.name for p in FLOW.iterdir() if p.is_dir()))
def test_package_findings_are_exactly_the_marked_ones(catalog: Catalog, package: str) -> None:
    project = build_project(_analyze(FLOW / package, catalog), catalog, Config())
    # a finding reports the hazards folded into it too (one site, one finding: tests/test_fold.py)
    got = {(f.path, f.span.line, c) for f in project.findings for c in (f.code, *f.folds) if c in CHECKED}
    want = _expected(FLOW / package)
    assert got == want, {"missing": sorted(want - got), "unexpected": sorted(got - want)}


def test_contexts_follow_reachability_not_names(catalog: Catalog) -> None:
    project = build_project(_analyze(FLOW / "ctxpkg", catalog), catalog, Config())
    by_symbol = {f.symbol: f.context for f in project.findings}
    assert by_symbol["ctxpkg.model.Rope._init_cache"] == "traced"  # init-named, called from forward
    assert by_symbol["ctxpkg.model.Rope.generate"] == "host"  # generation glue
    assert by_symbol["ctxpkg.metrics.log_scalar"] == "traced"  # reached from a training step
    assert "ctxpkg.metrics.summarize" not in by_symbol  # called after the epoch loop: host
    assert "ctxpkg.model._relative_index" not in by_symbol  # reachable only from __init__: init


def test_local_contexts_match_the_project_within_one_file(catalog: Catalog) -> None:
    facts = {f.path: f for f in _analyze(FLOW / "ctxpkg", catalog)}
    ctx = local_contexts(facts["ctxpkg/model.py"])
    assert ctx["ctxpkg.model.Rope._init_cache"] == "traced"
    assert ctx["ctxpkg.model._relative_index"] == "init"
    assert ctx["ctxpkg.model.Rope.generate"] == "host"
    train = local_contexts(facts["ctxpkg/train.py"])
    assert train["ctxpkg.train.train_step"] == "traced"
    assert train["ctxpkg.train.compute_loss"] == "traced"  # called inside the epoch loop
    assert train["ctxpkg.train.fit"] == "host"


def test_function_contexts_priorities() -> None:
    """traced beats host beats init beats the name's guess; host glue is not entered from
    traced code; a train loop seeds only what it calls inside its loop."""
    guess = {"m.A.forward": "traced", "m.A._init_x": "init", "m.A.__init__": "init", "m.h": "function",
             "m.g": "function", "m.loop": "function", "m.step": "function", "m.after": "function",
             "m.A.generate": "function"}
    edges = {"m.A.forward": ["m.A._init_x", "m.A.generate"], "m.A.__init__": ["m.A._init_x", "m.h"],
             "m.loop": ["m.step", "m.after"], "m.A.generate": ["m.g"]}
    roles = {"m.loop": "train-loop", "m.A.generate": "generation"}
    ctx = function_contexts(guess, roles, [], lambda q: edges.get(q, []), {"m.loop": frozenset({"step"})})
    assert ctx == {"m.A.forward": "traced", "m.A._init_x": "traced", "m.A.__init__": "init", "m.h": "init",
                   "m.g": "host", "m.loop": "host", "m.step": "traced", "m.after": "host",
                   "m.A.generate": "host"}


def test_a_hazard_folded_into_a_trace_only_finding_stands_in_host_code(catalog: Catalog) -> None:
    """``torchvision.ops.nms`` folds ML1013 (no JAX kernel) into ML211 (data-dependent box
    count) at its site. In host glue (a predictor's loop calling the model) ML211 does not apply,
    the missing kernel still does: ML1013 stands on its own there; in forward it stays ML211."""
    project = build_project(_analyze(FLOW / "hostnms", catalog), catalog, Config())
    at = {(f.symbol.rsplit(".", 1)[-1], f.code): f for f in project.findings if f.span.line in (7, 28)}
    assert set(at) == {("postprocess", "ML1013"), ("forward", "ML211")}
    host = at[("postprocess", "ML1013")]
    assert host.context == "host" and host.message.startswith("torchvision.ops.nms is a compiled torchvision kernel")
    assert "ML1013" in at[("forward", "ML211")].folds


_OPTIMIZER_LOOPS = '''
import torch

class Trainer:
    def optimizers_step(self):
        for opt in self.optimizers.values():
            self.scaler.step(opt)
        self.scaler.update()
        for name, opt in self.optimizers.items():
            opt.zero_grad()

    def fit(self, loader):
        for batch in loader:
            loss = self.model(batch).sum()
            loss.backward()
            for opt in self.optimizers:
                opt.step()

    def warmup(self, n):
        for _ in range(n):
            self.optimizer.step()
'''


def test_a_loop_over_the_optimizers_is_one_step_not_a_training_loop(catalog: Catalog) -> None:
    """``for opt in optimizers: scaler.step(opt)`` steps every optimizer once: the function is a
    training step (traced after the port), not an epoch loop keeping only its loop body traced.
    Around a batch loop holding ``backward()``, that batch loop stays the step loop; a loop that
    steps the one optimizer again and again (not the loop's variable) stays a training loop."""
    facts = analyze_source(_OPTIMIZER_LOOPS, "m.py", "m", catalog)
    roles = {s.qualname: (s.role, s.loop_calls) for s in facts.summaries}
    assert roles["m.Trainer.optimizers_step"] == ("train-step", ())
    assert roles["m.Trainer.fit"][0] == "train-loop"
    assert roles["m.Trainer.warmup"][0] == "train-loop"


def _flag_summaries(**calls: tuple[CallFlow, ...]) -> dict[str, FunctionSummary]:
    """``m.A.gate(x, keep, shift=None)`` with assumed ``keep``/``shift``, ``m.A.route(x, keep)``
    passing ``keep`` on, ``m.A.state()`` returning ``(y, flag)`` with a static flag, and
    callers ``m.A.<name>`` making the given calls."""
    out = {
        "m.A.gate": FunctionSummary("m.A.gate", params=("x", "keep", "shift"), assumed=("keep", "shift"),
                                    defaults=("shift",)),
        "m.A.route": FunctionSummary("m.A.route", params=("x", "keep"), assumed=("keep",),
                                     calls=(CallFlow("self.gate", static=("", "a:keep")),)),
        "m.A.state": FunctionSummary("m.A.state", static_items=("", "S")),
    }
    for name, flows in calls.items():
        out[f"m.A.{name}"] = FunctionSummary(f"m.A.{name}", calls=flows)
    return out


def _proven(summaries: dict[str, FunctionSummary]) -> set[tuple[str, str]]:
    def targets(caller: str, callee: str) -> tuple[str, ...]:
        t = f"m.A.{callee[5:]}" if callee.startswith("self.") else ""
        return (t,) if t in summaries else ()

    callers: dict[str, list[tuple[str, str]]] = {}
    for fn, s in summaries.items():
        for c in s.calls:
            for t in targets(fn, c.callee):
                if (fn, c.callee) not in callers.setdefault(t, []):
                    callers[t].append((fn, c.callee))
    return set(static_inputs(summaries, targets, callers))


@pytest.mark.parametrize(("calls", "want"), [
    # literal, returned static item, omitted static default; `route` passes its flag on
    ({"forward": (CallFlow("self.route", static=("", "S")), CallFlow("self.gate", static=("", "r:self.state#1")))},
     {("m.A.gate", "keep"), ("m.A.gate", "shift"), ("m.A.route", "keep")}),
    # a tensor passed to route: neither route's flag nor gate's (through route) is static
    ({"forward": (CallFlow("self.route", static=("", "")), CallFlow("self.gate", static=("", "S")))},
     {("m.A.gate", "shift")}),
    # the returned item that is not static, and a keyword argument that is
    ({"forward": (CallFlow("self.route", static=("", "r:self.state#0")),
                  CallFlow("self.gate", static=("", "S"), static_kw=(("shift", "S"),)))},
     {("m.A.gate", "shift")}),
    # gate also handed on (`checkpoint(self.gate, ...)`): its arguments are unknown
    ({"forward": (CallFlow("self.route", static=("", "S")),), "hand": (CallFlow("self.gate", spread=True),)},
     {("m.A.route", "keep")}),
    # `self.gate(*args)`: the flag may come from the splat; shift's default is no proof either
    ({"forward": (CallFlow("self.route", static=("", "S")), CallFlow("self.gate", static=("",), spread=True))},
     {("m.A.route", "keep")}),
    # nobody calls route: its flag (and gate's, passed on by route alone) keep the assumption;
    # route omits gate's `shift=None`
    ({}, {("m.A.gate", "shift")}),
])
def test_static_inputs_need_every_call_static(calls: dict[str, tuple[CallFlow, ...]],
                                              want: set[tuple[str, str]]) -> None:
    """A module method's assumed parameter is proven static only when every resolved call
    passes a static value (or omits one with a static default), through parameters passed on
    and returned items; anything unknown keeps the tensor assumption."""
    assert _proven(_flag_summaries(**calls)) == want


def test_static_inputs_not_for_a_method_taken_as_a_value() -> None:
    """A method its file references without calling it (``fns = [self.gate]``) may run with
    any arguments: static calls prove nothing for it."""
    summaries = _flag_summaries(forward=(CallFlow("self.route", static=("", "S")), CallFlow("self.gate", static=("", "S"))))
    assert _proven(summaries) == {("m.A.gate", "keep"), ("m.A.gate", "shift"), ("m.A.route", "keep")}
    summaries["m.A.gate"] = replace(summaries["m.A.gate"], escapes=True)
    assert _proven(summaries) == {("m.A.route", "keep")}


def test_static_inputs_through_recursion_is_the_greatest_fixed_point() -> None:
    """A flag a method passes to itself is static when its outside callers pass static values."""
    rec = FunctionSummary("m.A.walk", params=("x", "deep"), assumed=("deep",),
                          calls=(CallFlow("self.walk", static=("", "a:deep")),))
    outside = {"forward": (CallFlow("self.walk", static=("", "S")),)}
    assert ("m.A.walk", "deep") in _proven({**_flag_summaries(**outside), "m.A.walk": rec})
    tensor = {"forward": (CallFlow("self.walk", static=("", "")),)}
    assert ("m.A.walk", "deep") not in _proven({**_flag_summaries(**tensor), "m.A.walk": rec})


def test_method_of_an_argument_attribute_is_resolved_by_name(catalog: Catalog) -> None:
    """``trainer.model.initial_inference(obs)`` in a training step handed the trainer: the method
    is the network's (the only project class that defines it), so the network's inference runs
    under the trace too, not only on the host where the tree search calls it
    (fixtures/engine-v2/contexts/argument_attribute_method, after muzero-general)."""
    from helpers_engine_v2 import ROOT, scan_package

    project = scan_package(ROOT / "contexts" / "argument_attribute_method", catalog)
    item = [f for f in project.findings if f.path.endswith("models.py") and f.code == "ML509"]
    assert [(f.span.line, f.context, f.severity) for f in item] == [(17, "traced", "high")]


def test_input_pipeline_functions_are_host_code(catalog: Catalog) -> None:
    """Free functions that collate batches or build a ``DataLoader`` run on the host (the
    ``data-pipeline`` role): a seeded local ``torch.Generator`` is a low host note, not a medium
    finding of undecided code, and a NumPy generator there is no finding at all (it stays NumPy
    in a port: ML614 reports NumPy generators in model code only) (batch 19's padded-GCN and
    SpecAugment negatives, batch 25's session batching), while the training step beside them
    keeps its RNG finding (fixtures/engine-v2/contexts/data_pipeline_builder)."""
    from helpers_engine_v2 import ROOT, scan_package

    project = scan_package(ROOT / "contexts" / "data_pipeline_builder", catalog)
    got = sorted((f.span.line, f.code, f.context, f.severity) for f in project.findings if f.code in ("ML605", "ML601"))
    assert got == [(28, "ML605", "host", "low"), (34, "ML601", "traced", "high")]


def test_batched_inference_loop_is_no_decoding_loop(catalog: Catalog) -> None:
    """``for start in trange(0, len(sentences), batch_size, desc=...)`` around one model call
    per batch is a loop over data (sentence-transformers' ``encode``), not a decoding loop: no
    "decoding or sampling loop" host note on its read-back, while forward's own ``.item()``
    stays a traced finding (fixtures/engine-v2/contexts/batched_inference_loop)."""
    from helpers_engine_v2 import ROOT, scan_package

    project = scan_package(ROOT / "contexts" / "batched_inference_loop", catalog)
    assert not [f for f in project.findings if "decoding or sampling loop" in f.message]
    assert [(f.span.line, f.code, f.context) for f in project.findings if f.code == "ML106"] == [(18, "ML106", "traced")]


def test_a_device_query_asked_several_times_on_a_line_is_one_site(catalog: Catalog) -> None:
    """``x.device.type`` read three times in one expression (every Hugging Face rotary
    embedding) and ``x.is_cuda and y.is_cuda`` are one device-query site per line each (the
    core review at fbded9d found 110 lines carrying ML809 two or three times); a query on the
    next line is its own site."""
    src = (
        "import torch.nn as nn\n\n\n"
        "class Rotary(nn.Module):\n"
        "    def forward(self, x, y):\n"
        "        device_type = x.device.type if isinstance(x.device.type, str) and x.device.type != 'mps' else 'cpu'\n"
        "        fast = x.is_cuda and y.is_cuda\n"
        "        again = x.is_cuda\n"
        "        return x if fast and again else y, device_type\n"
    )
    from helpers_analysis import findings

    got = sorted(f.span.line for f in findings(src, catalog, path="rot.py", module="rot") if f.code == "ML809")
    assert got == [6, 7, 8]
