"""Issue 14 yardstick: annotated fixture packages per kind of understanding the engine needs
(``fixtures/engine-v2/<kind>/<package>``, see :mod:`helpers_engine_v2`). Each package's
reported ``(file, line, code)`` set must equal its ``# expect:`` set for the annotated codes;
``neg_`` packages must produce no finding at all.

Packages the engine does not meet yet are ``xfail(strict=True)`` with ``engine gap: <kind>``:
when an engine change makes one pass, the XPASS fails the suite and the implementer removes
the package from :data:`GAPS` (the gap list lives in /work/notes/engine-gaps.md too).
"""

from __future__ import annotations

import pytest

from helpers_engine_v2 import KINDS, evaluate, packages

#: ``kind/package`` -> the part of issue 14 it waits for (A: bindings, injection, external
#: state; B: value-kind flow, contexts by reachability).
GAPS: dict[str, str] = {
    "bindings/bound_method": "A: bound method stored on self, called from forward",
    "bindings/kernel_fallback": "A: try/except import fallback call, torch.ops alias across files",
    "bindings/patched_forward": "A: monkey-patched forward",
    "bindings/vocoder_wn": "A: module-level and conditional aliases across files",
    "injection/effnet_config": "A: partial(BatchNorm2d, momentum=...) injected as norm_layer",
    "injection/mlp_act_layer": "A: act_layer=nn.GELU defaults and arguments",
    "injection/raft_corr": "A: methods of a constructor-injected object get a traced context",
    "injection/stage_block_default": "A: block = block or CNBlock; non-forward method reached through it",
    "flow/deform_spatial_shapes": "B: tensor argument flowing into a helper in another file, iterated",
    "flow/fixed_point_done": "B: return kinds through calls and tuple unpacking",
    "flow/ragged_lengths": "B: host values through comprehension, branch join and return",
    "contexts/lazy_init_from_forward": "B: _init_* method called from forward is traced",
    "contexts/lightning_step": "B: training_step is a traced entry",
    "contexts/neg_init_and_generate": "B: helper reached only from __init__ is init code",
    "contexts/rl_update": "B: loss + backward + optimizer.step function is a traced entry",
    "contexts/train_step_logger": "B: train step and the helpers it calls across files are traced",
    "external-state/kv_cache": "A: methods of a cache object built in / passed to forward are traced",
    "external-state/token_counter": "A: methods of an object passed into forward are traced",
}


def _params() -> list:
    out = []
    for kind in KINDS:
        for pkg in packages(kind):
            key = f"{kind}/{pkg.name}"
            marks = [pytest.mark.xfail(strict=True, reason=f"engine gap: {kind} ({GAPS[key]})")] if key in GAPS else []
            out.append(pytest.param(pkg, id=key, marks=marks))
    return out


def test_every_kind_has_three_packages_and_a_negative() -> None:
    for kind in KINDS:
        names = [p.name for p in packages(kind)]
        assert sum(not n.startswith("neg_") for n in names) >= 3, (kind, names)
        assert any(n.startswith("neg_") for n in names), (kind, names)


@pytest.mark.parametrize("pkg", _params())
def test_package(catalog, pkg) -> None:
    result = evaluate(pkg, catalog)
    if result.negative:
        assert not result.got, f"findings in a near-miss negative: {result.unexpected}"
        return
    assert result.want, f"{pkg.name}: no expect annotation"
    assert result.got == result.want, f"missing {result.missing}, unexpected {result.unexpected}"
