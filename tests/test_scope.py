"""Scope by entries (scope.py): the units an entry reaches, out-of-scope units, entry errors, and
top-level models; the estimate covers only the scope."""

from __future__ import annotations

import pytest
from test_graph import LAYERED, analyze_tree, fixture_catalog

from migrate_lens.config import Config, parse_config
from migrate_lens.estimate import estimate
from migrate_lens.graph import build_project
from migrate_lens.scope import EntryError, closure, make_scope, resolve_entry, top_level_models

CATALOG = fixture_catalog()


@pytest.fixture(scope="module")
def project():
    return build_project(analyze_tree(LAYERED, CATALOG), CATALOG, Config())


def test_closure_follows_dependencies() -> None:
    assert closure(["a"], {"a": ["b"], "b": ["c"], "d": ["a"]}) == {"a", "b", "c"}


def test_entry_scope_is_what_the_entry_reaches(project) -> None:
    mlp = resolve_entry(project, "proj.layers.mlp:Mlp")
    assert mlp == "proj.layers.mlp.Mlp"
    scope = make_scope(project, ["proj.blocks:Stack"])
    adj = {m.qualname: m.depends_on for m in project.modules}
    assert scope.units == frozenset(closure(["proj.blocks.Stack"], adj))
    assert "proj.layers.mlp.Mlp" in scope.units and "proj.train" not in scope.units
    assert set(scope.out_of_scope) == {m.qualname for m in project.modules} - scope.units


def test_unknown_entry_is_an_error_with_a_hint(project) -> None:
    with pytest.raises(EntryError, match="did you mean proj.layers.mlp.Mlp"):
        resolve_entry(project, "nowhere:Mlp")


def test_estimate_covers_only_the_scope(project) -> None:
    whole = estimate(project, CATALOG, Config())
    scoped = estimate(project, CATALOG, Config(entries=("proj.layers.mlp:Mlp",)))
    assert scoped.total.p50 < whole.total.p50
    assert scoped.total.p50 == pytest.approx(scoped.units_effort(["proj.layers.mlp.Mlp"]).p50)  # with its first fixes
    assert scoped.scope is not None and len(scoped.scope.out_of_scope) == len(project.modules) - 1


def test_top_level_models_are_modules_no_other_module_holds(project) -> None:
    tops = {m.qualname for m in top_level_models(project)}
    assert "proj.blocks.Stack" in tops
    assert "proj.layers.mlp.Mlp" not in tops  # held by Block


def test_entries_in_config(tmp_path) -> None:
    cfg = parse_config({"entries": ["pkg.train:main"], "currency": "EUR"}, tmp_path / "pyproject.toml")
    assert cfg.entries == ("pkg.train:main",) and cfg.currency == "EUR"


def test_scan_cli_takes_entries_and_refuses_unknown_ones(tmp_path) -> None:
    import json

    from click.testing import CliRunner

    from migrate_lens.cli import main

    out = tmp_path / "out"
    ok = CliRunner().invoke(main, ["scan", str(LAYERED), "--no-cache", "--quiet", "--format", "json", "--out", str(out),
                                   "--entry", "proj.layers.mlp:Mlp", "--currency", "EUR"], catch_exceptions=False)
    assert ok.exit_code == 0, ok.output
    est = json.loads((out / "report.json").read_text(encoding="utf-8"))["estimate"]
    assert est["scope"]["entries"] == ["proj.layers.mlp:Mlp"] and est["scope"]["units_in_scope"] == 1
    assert est["roi"]["currency"] == "EUR"
    bad = CliRunner().invoke(main, ["scan", str(LAYERED), "--no-cache", "--quiet", "--out", str(out),
                                    "--entry", "nowhere:Nothing"], catch_exceptions=False)
    assert bad.exit_code == 2 and "entry 'nowhere:Nothing'" in bad.output


def test_a_model_estimate_does_not_follow_file_level_code_further() -> None:
    from migrate_lens.estimate import Effort, ModuleEstimate, _models
    from migrate_lens.graph import ModuleInfo, Project
    from migrate_lens.scope import Scope

    def unit(q: str, kind: str, deps: tuple[str, ...]) -> ModuleInfo:
        return ModuleInfo(qualname=q, path=q + ".py", line=1, end_line=10, kind=kind, lines_of_code=10, status="pure",
                          explanation=(), findings=(), depends_on=deps, functions=1, is_test=False)

    units = (unit("m.Net", "nn.Module", ("utils",)), unit("utils", "file", ("m.Other",)), unit("m.Other", "nn.Module", ()))
    project = Project(findings=(), modules=units, unresolved=0)
    est = {u.qualname: ModuleEstimate(u.qualname, Effort(1.0), Effort(1.0), Effort(0.0), 0, 10, 0) for u in units}
    models, n = _models(project, Scope((), (), frozenset(est), ()), est)
    by = {m.qualname: m for m in models}
    assert by["m.Net"].units == 2 and by["m.Net"].effort.p50 == 2.0  # Net + utils, not Other through utils
