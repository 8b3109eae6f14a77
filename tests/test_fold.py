"""One site, one finding (migrate_lens/fold.py): declared folds, and no line of the
core-shaped fixtures carries two findings for one construct."""

from __future__ import annotations

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
