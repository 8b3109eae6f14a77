"""``migrate-lens probe``: runtime facts at their exact source lines, the cross-check, the report.

The probe imports and runs code (verify marker). The cross-check tests at the end need no torch.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from migrate_lens.probe.crosscheck import NOT_SEEN, crosscheck, rebase, runtime_only_kinds

REPO = Path(__file__).resolve().parent.parent
TOY = REPO / "fixtures" / "probe" / "toy"
RECIPE = REPO / "fixtures" / "probe" / "toy_recipe.py"
MARK = re.compile(r"#\s*probe:\s*([a-z\-, ]+)")
HAS_TORCH = importlib.util.find_spec("torch") is not None
verify = pytest.mark.verify
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed")


def marks(path: Path) -> set[tuple[int, str]]:
    """(line, kind) for every ``# probe: kind, kind`` comment of ``path``."""
    out = set()
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if (m := MARK.search(line)):
            out.update((lineno, k.strip()) for k in m.group(1).split(",") if k.strip())
    return out


@pytest.fixture(scope="module")
def toy_results():
    from migrate_lens.probe.runner import probe

    return probe(TOY, RECIPE, train=True)


def _facts(results, path="model.py"):
    return [f for f in results["facts"] if f["path"] == path]


@verify
@needs_torch
def test_every_kind_at_its_marked_line_and_nowhere_else(toy_results) -> None:
    for name in ("model.py", "ops.py"):
        got = {(f["line"], f["kind"]) for f in _facts(toy_results, name)}
        # construction sites of library modules, definition sites of custom ops
        got |= {(a["line"], f["kind"]) for f in toy_results["facts"] for a in f["also_at"] if a["path"] == name}
        assert got == marks(TOY / name), name
    got = {(f["line"], f["kind"]) for f in _facts(toy_results)}
    kinds = {k for _, k in got}
    from migrate_lens.probe.kinds import KINDS

    assert kinds == set(KINDS), f"fixture misses kinds {set(KINDS) - kinds}"
    assert all(e["status"] == "ok" for e in toy_results["examples"]), toy_results["examples"]


def _line_of(text: str, path: Path = TOY / "model.py") -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, ln in enumerate(lines, start=1) if text in ln)


@verify
@needs_torch
def test_in_place_targets_are_classified_by_storage(toy_results) -> None:
    details = {(f["line"], f["detail"]) for f in _facts(toy_results) if f["kind"] == "in-place"}
    assert (_line_of("self.calls += 1"), "in place on buffer 'counter.calls'") in details
    assert (_line_of("x.mul_(1.0)"), "in place on input 0") in details
    assert (_line_of("h.add_(1.0)"), "in place on fresh tensor") in details
    assert (_line_of("out=out"), "out= argument on fresh tensor") in details
    assert (_line_of("weight.data.mul_"), "in place on parameter 'head.weight'") in details
    # a decomposition's scratch tensors (aten::dropout's bernoulli_ mask) are not the user's writes
    assert not any(f["op"].startswith("aten::bernoulli") for f in _facts(toy_results) if f["kind"] == "in-place")


@verify
@needs_torch
def test_dropout_is_random_in_train_only_and_points_at_its_construction(toy_results) -> None:
    [drop] = [f for f in _facts(toy_results) if f["line"] == _line_of("return self.drop(") and f["kind"] == "random"]
    assert drop["kind"] == "random" and drop["modes"] == ["train"]
    assert drop["also_at"] == [{"path": "model.py", "line": _line_of("nn.Dropout(0.5)")}]


@verify
@needs_torch
def test_host_syncs_name_the_python_call(toy_results) -> None:
    ops = {(f["line"], f["op"]) for f in _facts(toy_results) if f["kind"] == "host-sync"}
    assert all(f["detail"] == "value read on the host" for f in _facts(toy_results) if f["kind"] == "host-sync")
    assert ops == {(_line_of("if h.sum() > 0"), "Tensor.__bool__"), (_line_of(".item()"), "Tensor.item"),
                   (_line_of(".tolist()"), "Tensor.tolist")}


@verify
@needs_torch
def test_state_hooks_custom_op_and_runs(toy_results) -> None:
    by_kind = {f["kind"]: f for f in _facts(toy_results)}
    assert by_kind["custom-op"]["op"] == "probe_toy::scale.default"
    assert by_kind["hook"]["op"] == "_log_hook" and by_kind["hook"]["line"] == _line_of("register_forward_hook")
    states = {(f["line"], f["detail"]) for f in _facts(toy_results) if f["kind"] == "state-write"}
    assert states == {(_line_of("self.calls += 1"), "buffer 'counter.calls' value changed"),
                      (_line_of("self.last = "), "buffer 'counter.last' replaced by a new tensor"),
                      (_line_of("return self.drop("), "buffer 'counter.norm.num_batches_tracked' value changed"),
                      (_line_of("return self.drop("), "buffer 'counter.norm.running_mean' value changed"),
                      (_line_of("return self.drop("), "buffer 'counter.norm.running_var' value changed")}
    norm = [f for f in _facts(toy_results) if f["kind"] == "in-place" and "counter.norm" in f["detail"]]
    assert norm and all(f["modes"] == ["train"] for f in norm)
    assert all(f["also_at"] == [{"path": "model.py", "line": _line_of("nn.BatchNorm1d(dim)")}] for f in norm)
    assert by_kind["export-guard"]["op"] == "GuardOnDataDependentSymNode"
    [ev, tr] = toy_results["examples"]
    assert (ev["mode"], tr["mode"]) == ("eval", "train")
    assert ev["graph_breaks"] == 5 and ev["export"].startswith("GuardOnDataDependentSymNode")
    assert ev["state_written"] == ["buffer 'counter.calls' value changed", "buffer 'counter.last' replaced by a new tensor"]
    assert toy_results["lines_run"]["model.py"]
    assert all(p == "model.py" or p == "ops.py" for p in toy_results["lines_run"])


@verify
@needs_torch
def test_probe_results_match_their_schema(toy_results) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((REPO / "docs" / "report.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(toy_results, {**schema["$defs"]["probe_results"], "$defs": schema["$defs"]})


@verify
@needs_torch
def test_transformers_bert_dropout_sites() -> None:
    """A tiny-config BERT (transformers, no weights): dropout draws only in train mode, at lines
    that call a dropout, built at ``nn.Dropout(...)`` lines; eval has no graph break and exports."""
    transformers = pytest.importorskip("transformers")
    from migrate_lens.probe.runner import probe

    root = Path(transformers.__file__).parent / "models" / "bert"
    recipe = REPO / "benchmarks" / "probe" / "hf_models.py"
    import os

    os.environ["PROBE_MODEL"] = "bert"
    try:
        results = probe(root, recipe, train=True)
    finally:
        del os.environ["PROBE_MODEL"]
    source = (root / "modeling_bert.py").read_text(encoding="utf-8").splitlines()
    randoms = [f for f in results["facts"] if f["kind"] == "random"]
    assert randoms and all(f["modes"] == ["train"] for f in randoms)
    for f in randoms:
        assert f["path"] == "modeling_bert.py"
        assert "dropout" in source[f["line"] - 1].lower() or "attention_interface(" in source[f["line"] - 1]
        for a in f["also_at"]:
            assert "nn.Dropout(" in source[a["line"] - 1]
    assert any(f["also_at"] for f in randoms)
    [ev] = [e for e in results["examples"] if e["mode"] == "eval"]
    assert ev["status"] == "ok" and ev["graph_breaks"] == 0 and ev["export"] == "ok"


@verify
@needs_torch
def test_cli_probe_merges_into_the_scan_and_scan_probe_results(tmp_path) -> None:
    from click.testing import CliRunner

    from migrate_lens.cli import main

    out = tmp_path / "out"
    runner = CliRunner()
    r = runner.invoke(main, ["scan", str(TOY), "--out", str(out), "--no-cache", "-q", "--format", "html,json"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(main, ["probe", str(TOY), "--recipe", str(RECIPE), "--out", str(out), "--yes"])
    assert r.exit_code == 0, r.output
    assert "IMPORTS AND RUNS" in r.output  # the warning (click mixes stderr in by default)
    view = json.loads((out / "report.json").read_text(encoding="utf-8"))
    section = view["probe"]
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(view, json.loads((REPO / "docs" / "report.schema.json").read_text(encoding="utf-8")))
    assert section["summary"]["confirmed"] > 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="probe"' in html and "What the static scan missed" in html
    assert '"runtime":"confirmed"' in html  # the findings browser's mark
    # a hazard at a line no rule flags (the docstring's first line) is listed as missed
    from migrate_lens.probe.cli import attach
    from migrate_lens.report import html as html_report

    results = json.loads((out / "probe.json").read_text(encoding="utf-8"))
    extra = {**results["facts"][0], "kind": "host-sync", "category": "side-effect", "line": 1, "also_at": []}
    missed_view = attach(dict(view), {**results, "facts": [*results["facts"], extra]})
    page = html_report.build(missed_view)
    assert 'data-testid="probe-missed"' in page and "<code>model.py:1</code>" in page
    # a new scan merges the earlier probe
    out2 = tmp_path / "out2"
    r = runner.invoke(main, ["scan", str(TOY), "--out", str(out2), "--no-cache", "-q", "--format", "json",
                             "--probe-results", str(out / "probe.json")])
    assert r.exit_code == 0, r.output
    again = json.loads((out2 / "report.json").read_text(encoding="utf-8"))["probe"]
    assert again["entries"] == section["entries"]


@verify
@needs_torch
def test_recipe_without_examples_is_a_usage_error(tmp_path) -> None:
    from click.testing import CliRunner

    from migrate_lens.cli import main

    bad = tmp_path / "recipe.py"
    bad.write_text("x = 1\n", encoding="utf-8")
    r = CliRunner().invoke(main, ["probe", str(TOY), "--recipe", str(bad), "--out", str(tmp_path), "--yes"])
    assert r.exit_code == 2 and "defines no examples()" in r.output


# -- the cross-check alone (no torch) --------------------------------------------------------------

def _finding(path, line, code, category, fp):
    return {"path": path, "line": line, "end_line": line, "code": code, "category": category, "fingerprint": fp}


def _fact(kind, path, line, category, also=()):
    return {"kind": kind, "category": category, "path": path, "line": line, "op": "aten::x", "detail": "d",
            "also_at": [{"path": path, "line": a} for a in also], "count": 1, "modes": ["eval"], "examples": ["e"]}


def _view(findings):
    return {"root": "/src/pkg", "findings": findings,
            "modules": [{"qualname": "pkg.m.A", "path": "m.py", "line": 1, "end_line": 50}]}


def _probe(facts, lines_run=None):
    return {"root": "/src/pkg", "examples": [], "facts": facts, "lines_run": lines_run or {"m.py": [10, 20]},
            "modes": ["eval"], "torch_version": "x", "tool": {"version": "0"}}


def test_crosscheck_statuses_by_path_line_category() -> None:
    view = _view([_finding("m.py", 10, "ML101", "dynamic-control-flow", "a"),
                  _finding("m.py", 20, "ML301", "in-place-mutation", "b"),
                  _finding("m.py", 30, "ML603", "rng", "c"),
                  _finding("m.py", 40, "ML905", "layout/numerics", "d"),
                  _finding("other.py", 5, "ML601", "rng", "e")])
    probe = _probe([_fact("host-sync", "m.py", 10, "side-effect"),      # confirms ML101 (host read in an if)
                    _fact("random", "m.py", 20, "rng"),                  # in-place finding: not a match
                    _fact("random", "m.py", 25, "rng", also=[30])])      # confirms ML603 at its construction
    section = crosscheck(view, probe)
    got = {(e["path"], e["line"], e["category"], e["status"]) for e in section["entries"]}
    assert got == {("m.py", 10, "dynamic-control-flow", "confirmed"), ("m.py", 20, "in-place-mutation", "static-only"),
                   ("m.py", 20, "rng", "runtime-only"), ("m.py", 30, "rng", "confirmed")}
    [unseen] = [e for e in section["entries"] if e["status"] == "static-only"]
    assert unseen["reason"].startswith(NOT_SEEN) and unseen["line_ran"] is True
    s = section["summary"]
    assert (s["not_observable"], s["in_files_not_run"]) == (1, 1)
    assert s["static_recall"] == round(2 / 3, 4)
    assert section["finding_status"] == {"a": "confirmed", "b": "static-only", "c": "confirmed"}
    assert section["module_status"] == {"pkg.m.A": "confirmed"}
    assert runtime_only_kinds(section) == {"random": 1}


def test_crosscheck_rebases_probe_paths_onto_the_scan_root() -> None:
    assert rebase("/src/pkg/sub", "/src/pkg", "m.py") == "sub/m.py"
    assert rebase("/src/pkg", "/src/pkg/sub", "sub/m.py") == "m.py"
    assert rebase("/src/pkg", "/src/pkg/sub", "other/m.py") is None
    view = _view([_finding("sub/m.py", 10, "ML601", "rng", "a")])
    probe = {**_probe([_fact("random", "m.py", 10, "rng")], {"m.py": [10]}), "root": "/src/pkg/sub"}
    assert crosscheck(view, probe)["summary"]["confirmed"] == 1


def test_crosscheck_is_deterministic() -> None:
    view = _view([_finding("m.py", 10, "ML101", "dynamic-control-flow", "a")])
    facts = [_fact("graph-break", "m.py", 10, "dynamic-control-flow"), _fact("host-sync", "m.py", 12, "side-effect")]
    one = json.dumps(crosscheck(view, _probe(facts)), sort_keys=False)
    two = json.dumps(crosscheck(view, _probe(list(reversed(facts)))), sort_keys=False)
    assert one == two


@verify
@needs_torch
def test_dynamo_never_traces_the_recorder_in_a_fresh_process(tmp_path) -> None:
    """torch._dynamo keeps references to what it sees when first imported; imported after the
    recorder patched nn.Module, it traced the patches (a tiny Llama then broke its graph at every
    ModuleList slice, "SourcelessBuilder ... Roots")."""
    import os
    import subprocess
    import sys

    transformers = pytest.importorskip("transformers")
    root = Path(transformers.__file__).parent / "models" / "llama"
    out = tmp_path / "out"
    subprocess.run([sys.executable, "-m", "migrate_lens.cli", "probe", str(root), "--recipe",
                    str(REPO / "benchmarks" / "probe" / "hf_models.py"), "--out", str(out), "--yes"],
                   check=True, capture_output=True, cwd=REPO, env={**os.environ, "PROBE_MODEL": "llama"})
    [run] = json.loads((out / "probe.json").read_text(encoding="utf-8"))["examples"]
    assert run["status"] == "ok" and run["graph_breaks"] == 0 and run["export"] == "ok", run


def test_crosscheck_counts_a_file_reached_only_through_also_at() -> None:
    """A custom op defined in ops.py and called from m.py: ops.py issued no aten op of its own, yet
    the registration finding there is confirmed through the call's ``also_at``."""
    view = _view([_finding("ops.py", 6, "ML407", "custom-op", "a")])
    fact = {**_fact("custom-op", "m.py", 20, "custom-op"), "also_at": [{"path": "ops.py", "line": 6}]}
    section = crosscheck(view, _probe([fact]))
    assert section["finding_status"] == {"a": "confirmed"}
    assert section["summary"]["runtime-only"] == 0
