"""Migration plan: waves (leaves first, cycles condensed), wave effort, and the pilot, on the
fixture project ``fixtures/projects/layered`` and on small hand-made unit graphs."""

from __future__ import annotations

import json

import jsonschema
import pytest
from test_graph import LAYERED, REPO, analyze_tree, fixture_catalog

from migrate_lens.config import Config
from migrate_lens.estimate import Estimate, estimate, effort_sum
from migrate_lens.graph import ModuleInfo, Project, build_project
from migrate_lens.plan import Plan, make_plan, plan_view


@pytest.fixture(scope="module")
def built() -> tuple[Project, Estimate, Plan]:
    catalog = fixture_catalog()
    project = build_project(analyze_tree(LAYERED, catalog), catalog, Config())
    est = estimate(project, catalog, Config())
    return project, est, make_plan(project, est)


def test_waves_put_leaves_first_and_cycles_together(built: tuple[Project, Estimate, Plan]) -> None:
    _, _, plan = built
    assert [(w.index, w.modules) for w in plan.waves] == [
        (1, ("proj.base.Base", "proj.cyc_a", "proj.cyc_b.B", "proj.hooks", "proj.hooks.Probed",
             "proj.layers.mlp.Mlp", "proj.leaf", "proj.ops", "proj.train")),
        (2, ("proj.layers.attn.Attention", "proj.middle.Middle", "tests.test_proj")),
        (3, ("proj.blocks.Block", "proj.leaf.Leaf")),
        (4, ("proj.blocks.Stack",)),
    ]
    # proj.cyc_a builds cyc_b.B and B calls cyc_a.helper_a: one cycle, one wave.
    assert plan.wave_of["proj.cyc_a"] == plan.wave_of["proj.cyc_b.B"] == 1


def test_every_dependency_is_in_an_earlier_wave_or_the_same_cycle(built: tuple[Project, Estimate, Plan]) -> None:
    project, _, plan = built
    for m in project.modules:
        for d in m.depends_on:
            assert plan.wave_of[d] < plan.wave_of[m.qualname] or m.qualname in project.module(d).depends_on


def test_wave_effort_is_the_sum_of_its_modules(built: tuple[Project, Estimate, Plan]) -> None:
    _, est, plan = built
    for w in plan.waves:
        expected = effort_sum(est.modules[n].effort for n in w.modules)
        assert w.effort.p50 == pytest.approx(expected.p50)
        assert w.effort.p90 == pytest.approx(expected.p90)
    assert sum(w.effort.p50 for w in plan.waves) == pytest.approx(sum(e.effort.p50 for e in est.modules.values()))


def test_pilot_is_the_pure_module_most_others_need(built: tuple[Project, Estimate, Plan]) -> None:
    _, est, plan = built
    pilot = plan.pilot
    assert pilot is not None
    # Mlp is needed by Block, Leaf, Stack (through Block) and the test file; it is pure.
    assert (pilot.root, pilot.modules, pilot.dependents, pilot.status) == (
        "proj.layers.mlp.Mlp", ("proj.layers.mlp.Mlp",), 4, "pure")
    assert pilot.effort.p50 == pytest.approx(est.units_effort(["proj.layers.mlp.Mlp"]).p50)  # with its first fixes
    assert pilot.reason.startswith("Mlp (8 lines, pure) can be ported and tested on its own, 4 other modules depend on it")


def _unit(name: str, deps: tuple[str, ...] = (), status: str = "pure", loc: int = 100, kind: str = "nn.Module") -> ModuleInfo:
    return ModuleInfo(qualname=name, path=f"{name.replace('.', '/')}.py", line=1, end_line=loc, kind=kind,
                      lines_of_code=loc, status=status, explanation=(), findings=(), depends_on=deps,
                      functions=2, is_test=False)


def _plan_of(units: list[ModuleInfo]) -> Plan:
    from migrate_lens.catalog import load_catalog

    project = Project(findings=(), modules=tuple(sorted(units, key=lambda u: u.qualname)),
                      unresolved=0)
    return make_plan(project, estimate(project, load_catalog(), Config()))


def test_pilot_never_blocked_and_takes_its_dependencies_along() -> None:
    units = [
        _unit("p.Kernel", status="blocked"),
        _unit("p.Attn", ("p.Kernel",), status="blocked"),
        _unit("p.Norm"),
        _unit("p.Block", ("p.Norm", "p.Mlp")),
        _unit("p.Mlp", ("p.Norm",), status="mechanical"),
        *[_unit(f"p.Model{i}", ("p.Block", "p.Attn")) for i in range(3)],
    ]
    plan = _plan_of(units)
    assert plan.pilot is not None
    # Norm: 5 dependents, pure; Mlp's subtree: 4 dependents, mechanical (x0.8); Kernel is blocked.
    assert (plan.pilot.root, plan.pilot.modules) == ("p.Norm", ("p.Norm",))
    units[2] = _unit("p.Norm", loc=10)  # too small to exercise much: Mlp, which needs Norm, wins
    plan = _plan_of(units)
    assert plan.pilot is not None
    assert (plan.pilot.root, plan.pilot.modules, plan.pilot.status) == ("p.Mlp", ("p.Mlp", "p.Norm"), "mechanical")
    assert [w.modules for w in plan.waves] == [("p.Kernel", "p.Norm"), ("p.Attn", "p.Mlp"), ("p.Block",),
                                                ("p.Model0", "p.Model1", "p.Model2")]


def test_no_pilot_without_dependents_or_modules() -> None:
    assert _plan_of([]).pilot is None and _plan_of([]).waves == ()
    assert _plan_of([_unit("p.A"), _unit("p.B")]).pilot is None


def test_plan_view_matches_the_schema(built: tuple[Project, Estimate, Plan]) -> None:
    _, _, plan = built
    view = plan_view(plan)
    schema = json.loads((REPO / "docs" / "report.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(view, {"$defs": schema["$defs"], **schema["properties"]["plan"]})
    assert view["waves"][0]["index"] == 1 and view["pilot"]["root"] == "proj.layers.mlp.Mlp"
    assert json.dumps(view) == json.dumps(plan_view(plan))



def test_pilot_prefers_a_unit_with_weights_to_prove_their_conversion() -> None:
    from migrate_lens.catalog import load_catalog
    from migrate_lens.models import FileFacts, SubmoduleFact

    # Two leaves alike in size, status and dependents; only "b.Head" holds parameters.
    units = [_unit("a.Loss"), _unit("b.Head"), _unit("c.Model", deps=("a.Loss",)), _unit("d.Model", deps=("b.Head",))]
    files = (FileFacts(path="a/Loss.py", module="a", sha256="", lines=100,
                       submodules=(SubmoduleFact("a.Loss", "crit", "torch.nn.CrossEntropyLoss", 3),)),
             FileFacts(path="b/Head.py", module="b", sha256="", lines=100,
                       submodules=(SubmoduleFact("b.Head", "proj", "torch.nn.Linear", 3),)))
    project = Project(findings=(), modules=tuple(units), unresolved=0, files=files)
    plan = make_plan(project, estimate(project, load_catalog(), Config()))
    assert plan.pilot is not None and plan.pilot.root == "b.Head"
    assert "(weights, numerical parity tests)" in plan.pilot.reason
    # Without the weighted one, the weightless pilot says it does not prove the weight conversion.
    alone = Project(findings=(), modules=(units[0], units[2]), unresolved=0, files=files[:1])
    pilot = make_plan(alone, estimate(alone, load_catalog(), Config())).pilot
    assert pilot is not None and pilot.root == "a.Loss" and "it holds no weights" in pilot.reason


def test_units_hold_weights_through_a_torch_layer_base_or_any_spelling() -> None:
    from migrate_lens.models import ClassFact, FileFacts, SubmoduleFact
    from migrate_lens.plan import holds_weights

    files = (FileFacts(path="p/m.py", module="p.m", sha256="", lines=30,
                       classes=(ClassFact("p.m.LayerNorm", 1, 5, ("torch.nn.LayerNorm",), True, 5),
                                ClassFact("p.m.Act", 6, 9, ("torch.nn.Module",), True, 4)),
                       submodules=(SubmoduleFact("p.m.Proj", "fc", "torch.nn.modules.linear.Linear", 12),
                                   SubmoduleFact("p.m.Act", "act", "torch.nn.GELU", 7),
                                   SubmoduleFact("p.m.Loss", "crit", "torch.nn.CrossEntropyLoss", 20))),)
    project = Project(findings=(), modules=(), unresolved=0, files=files)
    assert holds_weights(project) == {"p.m.LayerNorm", "p.m.Proj"}
