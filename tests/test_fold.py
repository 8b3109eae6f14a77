"""One site, one finding (migrate_lens/fold.py): declared folds, and no line of the
core-shaped fixtures carries two findings for one construct."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from helpers_analysis import findings
from migrate_lens.fold import fold_duplicates, fold_table
from migrate_lens.models import Finding, Span

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FIXTURE_FILES = sorted(p for p in FIXTURES.rglob("*.py") if "projects" not in p.parts and "stubs" not in p.parts)

#: The pairs the core review found on one construct (absorbing code, absorbed code).
REVIEW_PAIRS = (("ML602", "ML701"), ("ML703", "ML904"), ("ML204", "ML304"), ("ML706", "ML506"), ("ML101", "ML104"))


def _f(code: str, col: int, end: int, severity: str = "medium", **kw: object) -> Finding:
    return Finding(code=code, severity=severity, path="m.py", span=Span(3, col, 3, end), symbol="m.f",
                   context="traced", message=f"{code} message", snippet="", **kw)  # type: ignore[arg-type]


def test_the_review_pairs_are_declared(catalog) -> None:
    absorbs, _, _ = fold_table(catalog)
    for keep, drop in REVIEW_PAIRS:
        assert drop in absorbs.get(keep, ()), (keep, drop)


def test_nested_finding_folds_into_the_absorbing_one() -> None:
    absorbs = {"ML602": frozenset({"ML701"})}
    out = fold_duplicates([_f("ML602", 4, 40), _f("ML701", 20, 33, severity="low")], absorbs, {"ML701": "training-flag"})
    assert [f.code for f in out] == ["ML602"]
    assert out[0].message == "ML602 message (also ML701 training-flag: same construct)"


def test_kept_finding_takes_the_higher_severity_and_chains_fold() -> None:
    absorbs = {"ML706": frozenset({"ML506"}), "ML506": frozenset({"ML301"})}
    out = fold_duplicates([_f("ML301", 4, 20, "high"), _f("ML506", 4, 20), _f("ML706", 4, 20)], absorbs, {})
    assert [(f.code, f.severity) for f in out] == [("ML706", "high")]
    assert "ML301" in out[0].message and "ML506" in out[0].message


def test_input_check_keeps_its_own_severity(catalog) -> None:
    """``if mask.sum().item() == 0: raise ...``: the host read (ML509, high) goes away with the
    check a port drops or checkifies; ML106 (``fold_severity = "own"``) stays medium."""
    absorbs, names, generic = fold_table(catalog)
    out = fold_duplicates([_f("ML106", 7, 40), _f("ML509", 7, 24, "high")], absorbs, names, generic)
    assert [(f.code, f.severity) for f in out] == [("ML106", "medium")]
    assert "ML509" in out[0].message


def test_no_fold_across_suppression_state_traced_only_or_apart() -> None:
    absorbs = {"ML602": frozenset({"ML701"})}
    apart = [_f("ML602", 4, 10), _f("ML701", 20, 33)]
    assert len(fold_duplicates(apart, absorbs, {})) == 2
    suppressed = [_f("ML602", 4, 40, suppressed="ignore"), _f("ML701", 20, 33)]
    assert len(fold_duplicates(suppressed, absorbs, {})) == 2
    maybe = [_f("ML602", 4, 40, traced_only=True), _f("ML701", 20, 33)]
    assert len(fold_duplicates(maybe, absorbs, {})) == 2
    assert [f.code for f in fold_duplicates([_f("ML602", 4, 40), _f("ML701", 20, 33, traced_only=True)], absorbs, {})] == ["ML602"]


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_no_line_has_two_findings_for_one_construct(catalog, path: Path) -> None:
    absorbs, _, _ = fold_table(catalog)
    found = findings(path.read_text(encoding="utf-8"), catalog, path=path.name)
    lines = [f.span.line for f in found if f.folds]
    if path.name == "one_site_one_finding.py":
        assert len(lines) == len(set(lines)) == 11
    for a in found:
        for b in found:
            if a is b or a.span.line != b.span.line or b.code not in absorbs.get(a.code, ()):
                continue
            assert a.suppressed != b.suppressed, f"{path.name}:{a.span.line}: {a.code} and {b.code} on one construct"


def test_generic_api_map_findings_fold_silently(catalog) -> None:
    absorbs, names, generic = fold_table(catalog)
    assert generic == {r.code for r in catalog.rules if r.matcher.kind == "api-map"} and generic
    code = sorted(generic)[0]
    out = fold_duplicates([_f("ML602", 4, 40), _f(code, 4, 40, "high")], absorbs, names, generic)
    assert [(f.code, f.severity, f.folds, f.message) for f in out] == [("ML602", "medium", (), "ML602 message")]


def test_an_undecided_finding_never_absorbs_one_kept_in_more_contexts() -> None:
    """A trace-only finding made in undecided (``function``) context may be dropped where its
    function turns out to be host code; a finding the project keeps there must not be folded
    into it (it would go with it), only once both are decided."""
    absorbs = {"ML211": frozenset({"ML1013"})}
    survives = {"ML211": frozenset({"traced"}), "ML1013": frozenset({"traced", "init", "host"})}
    undecided = [replace(_f("ML211", 4, 40), context="function"), replace(_f("ML1013", 4, 40), context="function")]
    assert [f.code for f in fold_duplicates(undecided, absorbs, {}, survives=survives)] == ["ML211", "ML1013"]
    assert [f.code for f in fold_duplicates(undecided, absorbs, {})] == ["ML211"]  # (without the table)
    decided = [_f("ML211", 4, 40), _f("ML1013", 4, 40)]  # traced: folds as declared
    assert [f.code for f in fold_duplicates(decided, absorbs, {}, survives=survives)] == ["ML211"]
    wider = {"ML211": frozenset({"traced", "host"}), "ML1013": frozenset({"traced"})}
    assert [f.code for f in fold_duplicates(undecided, absorbs, {}, survives=wider)] == ["ML211"]


_NMS = '''
import torchvision


def non_max_suppression(boxes, scores, iou_thres=0.5):
    keep = torchvision.ops.nms(boxes, scores, iou_thres)
    return boxes[keep]


def {caller}(model, images):
    out = model(images)
    return [non_max_suppression(o[:, :4], o[:, 4]) for o in out]
'''


@pytest.mark.parametrize(("caller", "want"), [("generate", [("ML1013", "host")]),  # host glue
                                                ("forward_step", [("ML211", "function")])])  # undecided: one finding
def test_an_ecosystem_call_in_host_code_keeps_its_finding_when_the_trace_only_one_goes(tmp_path, caller, want) -> None:
    """ultralytics' ``non_max_suppression`` (host code, reached from a predictor): the
    data-dependent-shape finding of ``torchvision.ops.nms`` does not apply on the host, but
    the call still has no JAX counterpart (ML1013); folded per file, both were lost."""
    from test_graph import analyze_tree, write_package

    from migrate_lens.catalog import load_catalog
    from migrate_lens.config import Config
    from migrate_lens.graph import build_project

    catalog = load_catalog()
    write_package(tmp_path, {"post": _NMS.replace("{caller}", caller)})
    project = build_project(analyze_tree(tmp_path, catalog), catalog, Config())
    assert [(f.code, f.context) for f in project.findings if f.span.line == 6] == want
