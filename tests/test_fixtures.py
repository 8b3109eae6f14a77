"""Realistic fixtures (``fixtures/<category>/*.py``) annotated per line with
``# expect: ML201`` (the line must carry that code) and ``# ok: ML201`` (it must not). For each
code annotated anywhere in a file, the set of lines carrying that code must equal the set of
its ``expect`` lines exactly (semgrep-style test annotations). ``traced_only`` findings are
resolved from the file alone, as the pre-commit check does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers_analysis import findings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ANNOTATION = re.compile(r"#\s*(expect|ok):\s*((?:ML\d{3,4}\s*,?\s*)+)")


def annotations(text: str) -> tuple[dict[str, set[int]], set[str]]:
    """``({code: expected lines}, annotated codes)`` from ``# expect:``/``# ok:`` comments."""
    expected: dict[str, set[int]] = {}
    codes: set[str] = set()
    for lineno, line in enumerate(text.splitlines(), start=1):
        for kind, raw in ANNOTATION.findall(line):
            for code in re.findall(r"ML\d{3,4}", raw):
                codes.add(code)
                if kind == "expect":
                    expected.setdefault(code, set()).add(lineno)
    return expected, codes


#: One folder per category (``layout/numerics`` -> ``layout-numerics``); other folders under
#: fixtures/ belong to other test modules.
CATEGORY_DIRS = (
    "dynamic-control-flow", "data-dependent-shape", "in-place-mutation", "custom-op", "side-effect",
    "rng", "module-state", "device", "layout-numerics", "ecosystem-dependency", "other",
)


def _fixture_files() -> list[Path]:
    return sorted(p for d in CATEGORY_DIRS for p in (FIXTURES / d).glob("*.py"))


def test_every_category_has_three_fixtures(catalog) -> None:
    slugs = {r.category.replace("/", "-") for r in catalog.rules}
    for slug in slugs:
        files = list((FIXTURES / slug).glob("*.py"))
        assert len(files) >= 3, f"fixtures/{slug} has {len(files)} fixtures"


def test_annotation_parser() -> None:
    text = "x = 1  # expect: ML201, ML304\ny = 2  # ok: ML101\nz = 3  # expect: ML001  # ok: ML704\n"
    expected, codes = annotations(text)
    assert expected == {"ML201": {1}, "ML304": {1}, "ML001": {3}}
    assert codes == {"ML201", "ML304", "ML101", "ML001", "ML704"}


@pytest.mark.parametrize("path", _fixture_files(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_fixture(catalog, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    expected, codes = annotations(text)
    assert codes, f"{path.name}: no annotations"
    rel = path.relative_to(FIXTURES).as_posix()
    found = findings(text, catalog, path=rel, module=rel[:-3].replace("/", ".").replace("-", "_"))
    # a finding reports the hazards folded into it too (one site, one finding: tests/test_fold.py)
    got = {(f.span.line, c) for f in found for c in (f.code, *f.folds) if c in codes}
    want = {(line, code) for code, lines in expected.items() for line in lines}
    assert got == want, f"missing {sorted(want - got)}, unexpected {sorted(got - want)}"
