"""The one severity table (migrate_lens/severity.py) holds for every rule of the catalog, in
every context, and the engine derives each finding's severity from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers_analysis import findings
from migrate_lens import rulesdoc
from migrate_lens.catalog import CatalogError, load_catalog, parse_rule
from migrate_lens.models import CONTEXTS, SEVERITIES
from migrate_lens.severity import CEILING, FAILURE_MODES, cap, severity_in

RULES = load_catalog().rules


def _rank(s: str) -> int:
    return SEVERITIES.index(s)


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_every_rule_follows_the_severity_table(rule) -> None:
    assert rule.failure in FAILURE_MODES
    assert _rank(rule.severity) <= _rank(CEILING[rule.failure]["traced"]), "declared severity above the table"
    for ctx in CONTEXTS:
        got = rule.severity_in(ctx)
        column = "traced" if rule.anchor == "use" else ctx
        assert _rank(got) <= _rank(CEILING[rule.failure][column]), (ctx, got)
        if got in ("high", "critical"):
            assert rule.failure in ("error", "silent") and column == "traced", (ctx, got)
        if got == "critical":
            assert rule.failure == "error"
        if rule.failure in ("rewrite", "retrace"):
            assert _rank(got) <= _rank("medium")
        if column in ("init", "host"):  # init and host code sit below traced code
            assert _rank(got) <= _rank(rule.severity_in("traced"))


def test_table_shape() -> None:
    for mode, row in CEILING.items():
        for ctx in ("init", "host", "function"):
            assert _rank(row[ctx]) <= _rank("medium"), (mode, ctx)
    assert [m for m, row in CEILING.items() if _rank(row["traced"]) >= _rank("high")] == ["error", "silent"]
    assert cap("critical", "low") == "low" and cap("info", "high") == "info"
    assert severity_in("error", "use", "critical", "critical", "host") == "critical"
    assert severity_in("error", "site", "high", "low", "init") == "low"


def test_findings_carry_the_table_severity(catalog) -> None:
    """Every finding of every flagged example has its rule's severity for its context."""
    by_code = catalog.by_code()
    seen = 0
    for rule in catalog.rules:
        for src in rule.flagged_examples:
            for f in findings(src, catalog):
                allowed = {by_code[c].severity_in(f.context) for c in (f.code, *f.folds)}
                assert f.severity == by_code[f.code].severity_in(f.context) or (f.folds and f.severity in allowed), \
                    (f.code, f.context, f.severity)
                seen += 1
    assert seen > len(catalog.rules)


def test_a_helper_reached_from_forward_takes_the_traced_column(catalog) -> None:
    src = '''
import torch
import torch.nn as nn

def pick(x: torch.Tensor) -> torch.Tensor:
    return x[x > 0]

def unused(x: torch.Tensor) -> torch.Tensor:
    return x[x > 0]

class M(nn.Module):
    def forward(self, x):
        return pick(x)
'''
    got = {f.span.line: f for f in findings(src, catalog) if f.code == "ML203"}
    assert (got[6].context, got[6].severity) == ("traced", "high")
    assert (got[9].context, got[9].severity) == ("function", "medium")


def test_severity_above_the_table_is_refused(tmp_path: Path) -> None:
    text = (Path(rulesdoc.__file__).resolve().parent.parent / "rules" / "ML301-inplace-tensor-method.toml").read_text()
    import tomllib

    data = tomllib.loads(text.replace('severity = "medium"', 'severity = "high"', 1))
    with pytest.raises(CatalogError, match="severity: high is above medium"):
        parse_rule(tmp_path / "ML301-inplace-tensor-method.toml", data)
    data = tomllib.loads(text.replace('failure = "rewrite"', 'failure = "boom"', 1))
    with pytest.raises(CatalogError, match="failure"):
        parse_rule(tmp_path / "ML301-inplace-tensor-method.toml", data)


def test_docs_show_the_table() -> None:
    md = "\n".join(rulesdoc.severity_table_markdown())
    for mode in FAILURE_MODES:
        assert f"| `{mode}` |" in md
    assert "## Severity: failure mode x context" in rulesdoc.render_rules_markdown(load_catalog())


def test_precommit_doc_agrees_with_the_catalog(catalog) -> None:
    """Every `(MLnnn, severity)` the pre-commit doc names is the rule's traced severity, the
    doc points at the severity table, and the default gate (high) is the table's blocking tier."""
    import re

    text = (Path(rulesdoc.__file__).resolve().parent.parent / "docs" / "precommit.md").read_text(encoding="utf-8")
    by_code = catalog.by_code()
    named = re.findall(r"\((ML\d{3,4}), (info|low|medium|high|critical)\)", text)
    assert named, "docs/precommit.md names no rule severity"
    for code, severity in named:
        assert by_code[code].severity_in("traced") == severity, (code, severity)
    assert "Severity: failure mode x context" in text and 'default "high"' in text
