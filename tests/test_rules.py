"""Every rule's own examples are tests (one parametrized test, ids like ``ML201-flagged-1``).

A flagged example marks each line that must get the rule's finding with ``# expect``; the set
of lines carrying that rule's code must equal the marked set exactly. A clean example must get
no finding of the rule. ``traced_only`` findings count only when the function is reachable
from a forward in the same snippet (as in the pre-commit check).
"""

from __future__ import annotations

import pytest

from migrate_lens.catalog import load_catalog
from helpers_analysis import findings, lines_of, marked_lines


def _cases() -> list[pytest.param]:
    out = []
    for rule in load_catalog().rules:
        for i, src in enumerate(rule.flagged_examples, start=1):
            out.append(pytest.param(rule.code, "flagged", src, id=f"{rule.code}-flagged-{i}"))
        for i, src in enumerate(rule.clean_examples, start=1):
            out.append(pytest.param(rule.code, "clean", src, id=f"{rule.code}-clean-{i}"))
    return out


@pytest.mark.parametrize(("code", "kind", "source"), _cases())
def test_rule_example(catalog, code: str, kind: str, source: str) -> None:
    found = findings(source, catalog)
    got = lines_of(found, code)
    expected = marked_lines(source) if kind == "flagged" else set()
    if kind == "flagged":
        assert expected, f"{code}: flagged example has no '# expect' line"
    assert got == expected, (
        f"{code} {kind}: expected lines {sorted(expected)}, got {sorted(got)}; "
        f"all findings: {[(f.span.line, f.code) for f in found]}"
    )
