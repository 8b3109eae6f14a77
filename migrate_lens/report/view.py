"""The view: one dictionary, built once per scan, that every renderer reads.

It is exactly the ``report.json`` contract (docs/report-json.md, schema in
docs/report.schema.json). Everything is sorted so that two scans of the same tree give
byte-identical JSON apart from ``summary.duration_s`` and ``root``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from migrate_lens import DOCS_URL, __version__
from migrate_lens.catalog import Catalog, Rule
from migrate_lens.fingerprint import fingerprint, fingerprint_of
from migrate_lens.models import CATEGORIES, SEVERITIES, Finding
from migrate_lens.rulesdoc import rule_remedy

SCHEMA_VERSION = "1.0"


def _effort(rule: Rule) -> dict[str, float]:
    return {"optimistic": rule.effort.optimistic, "likely": rule.effort.likely, "pessimistic": rule.effort.pessimistic}


def rule_view(rule: Rule) -> dict[str, Any]:
    """A rule as the report shows it (``help_uri`` points at its section of docs/rules.md)."""
    return {
        "code": rule.code, "name": rule.name, "category": rule.category, "severity": rule.severity,
        "confidence": rule.confidence, "porting": rule.porting, "effort_hours": _effort(rule),
        "message": rule.message, "why": rule.why, "remedy": rule.remedy,
        "help_uri": f"{DOCS_URL}#{rule.code.lower()}",
    }


def finding_view(f: Finding, rule: Rule, remedy: str) -> dict[str, Any]:
    """One finding per the contract (0-based columns, 1-based lines); ``remedy`` is the rule's
    remedy with its API-map lines (:func:`migrate_lens.rulesdoc.rule_remedy`)."""
    return {
        "code": f.code, "name": rule.name, "category": rule.category, "severity": f.severity,
        "confidence": rule.confidence, "porting": rule.porting, "path": f.path,
        "line": f.span.line, "column": f.span.column, "end_line": f.span.end_line, "end_column": f.span.end_column,
        "symbol": f.symbol, "context": f.context, "message": f.message, "remedy": remedy,
        "snippet": f.snippet, "effort_hours": _effort(rule), "suppressed": f.suppressed,
        "folds": list(f.folds), "fingerprint": fingerprint(f),
    }


#: what a travelling hazard does to the traced call that reaches it, by category
_THROUGH_CALL = {
    "dynamic-control-flow": "branches on traced values",
    "data-dependent-shape": "builds an array whose shape depends on values",
    "custom-op": "runs a custom op with no JAX lowering",
    "side-effect": "has a host side effect",
    "rng": "draws from the global RNG (a PRNG key must be passed down)",
}


def call_site_view(h: Any, rule: Rule, remedy: str) -> dict[str, Any]:
    """The report entry of a :class:`migrate_lens.callsites.CallSiteHazard`: a traced call of a
    project helper whose own finding (``h.finding``) makes the call fail or need a new
    argument under ``jax.jit``. It has that finding's code, rule fields and severity, the
    call's location (column 0: the call's line is known, not its column), the caller as
    ``symbol``, the callee as written as ``snippet``, zero effort and ``folded_into`` the
    helper finding's fingerprint: it is counted and priced there."""
    fd = h.finding
    snippet = f"{h.callee_text}(...)"
    what = _THROUGH_CALL.get(rule.category, rule.name)
    return {
        "code": fd.code, "name": rule.name, "category": rule.category, "severity": fd.severity,
        "confidence": rule.confidence, "porting": rule.porting, "path": h.path,
        "line": h.line, "column": 0, "end_line": h.line, "end_column": 0,
        "symbol": h.caller, "context": "traced",
        "message": f"{rule.name} through a call: `{h.callee_text}` {what} at {fd.path}:{fd.span.line} "
                   f"(`{fd.snippet}`), so this traced call fails there or changes with it (counted and priced "
                   f"at that line)",
        "remedy": remedy, "snippet": snippet,
        "effort_hours": {"optimistic": 0.0, "likely": 0.0, "pessimistic": 0.0}, "suppressed": "",
        "folds": [], "fingerprint": fingerprint_of(fd.code, h.path, h.caller, snippet),
        "folded_into": fingerprint(fd),
    }


def listed_findings(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The entries the written reports (``report.json``, SARIF) list: ``view["findings"]``
    plus entries that point at a finding and are counted and priced there (``folded_into``
    its fingerprint; every other entry has ``folded_into`` ""):

    - each hazard of *another category* folded into a finding (``x[mask] = 0`` is a
      data-dependent-shape finding, ML218, that folds the in-place write ML304), so a reader
      filtering by category sees every hazard of a line. Such an entry has the folded rule's
      code, name, category, confidence and porting, the site's location, context, snippet and
      severity, zero effort and ``folds`` empty. Folds of the same category stay folded (one
      hazard, two rules);
    - each traced call site of a project helper holding a hazard that fails the call under
      ``jax.jit`` (``view["call_sites"]``, :func:`call_site_view`).

    Sorted as the view's findings are. A view read back from a written report (its entries
    already carry ``folded_into``) is returned as it is."""
    if any("folded_into" in f for f in view["findings"]):
        return list(view["findings"])  # already listed so (a report.json read back, re-rendered)
    rules = {r["code"]: r for r in view["rules"]}
    zero = {"optimistic": 0.0, "likely": 0.0, "pessimistic": 0.0}
    out: list[dict[str, Any]] = []
    for f in view["findings"]:
        out.append({**f, "folded_into": ""})
        seen = {f["category"]}
        snippet = f["snippet"][:60]
        for code in f["folds"]:
            rule = rules.get(code)
            if rule is None or rule["category"] in seen:
                continue
            seen.add(rule["category"])
            out.append({
                **f, "code": code, "name": rule["name"], "category": rule["category"],
                "confidence": rule["confidence"], "porting": rule["porting"],
                "message": f"{rule['name']}: the same construct as {f['code']} {f['name']} (one site: counted and "
                           f"priced there): {rule['message'].replace('{detail}', f'`{snippet}`')}",
                "remedy": rule["remedy"], "effort_hours": zero, "folds": [],
                "fingerprint": fingerprint_of(code, f["path"], f["symbol"], f["snippet"]),
                "folded_into": f["fingerprint"],
            })
    out.extend(view.get("call_sites", ()))
    out.sort(key=lambda e: (e["path"], e["line"], e["column"], e["code"]))
    return out


def written_view(view: dict[str, Any]) -> dict[str, Any]:
    """``view`` as ``report.json`` holds it: ``findings`` as :func:`listed_findings` lists them,
    the ``call_sites`` key (merged there) dropped."""
    out = {k: v for k, v in view.items() if k != "call_sites"}
    out["findings"] = listed_findings(view)
    return out


def build_view(result: Any) -> dict[str, Any]:
    """The report dictionary of a :class:`migrate_lens.pipeline.ScanResult`."""
    from migrate_lens.estimate import estimate_view, modules_view
    from migrate_lens.graph import graph_view
    from migrate_lens.plan import plan_view

    catalog: Catalog = result.catalog
    rules = catalog.by_code()
    findings: list[Finding] = sorted(result.project.findings, key=lambda f: (f.path, f.span.line, f.span.column, f.code))
    # only the rules that have findings: each remedy matches the rule's globs against the API map
    remedies = {code: rule_remedy(rules[code], catalog) for code in {f.code for f in findings}}
    by_cat = Counter(rules[f.code].category for f in findings)
    by_sev = Counter(f.severity for f in findings)
    call_sites = [call_site_view(h, rules[h.finding.code], remedies.get(h.finding.code) or rule_remedy(
        rules[h.finding.code], catalog)) for h in getattr(result.project, "call_sites", ())]
    analyzed = [f for f in result.files if not f.module.startswith("native:")]
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "migrate-lens", "version": __version__},
        "root": str(result.root),
        "summary": {
            "files_scanned": sum(1 for f in analyzed if f.mentions_torch),
            "files_prefiltered": sum(1 for f in analyzed if not f.mentions_torch),
            "files_skipped": len(result.skipped),
            "lines_of_code": sum(f.lines for f in analyzed),
            "findings_total": len(findings),
            "findings_ignored": result.ignored,
            "findings_by_category": {c: by_cat.get(c, 0) for c in CATEGORIES},
            "findings_by_severity": {s: by_sev.get(s, 0) for s in SEVERITIES},
            "rule_errors": sum(len(f.rule_errors) for f in result.files),
            "warnings": list(result.warnings),  # the terminal's warnings, kept when --quiet hides them
            "duration_s": round(result.duration_s, 3),
        },
        "skipped": [{"path": s.path, "reason": s.reason} for s in result.skipped],
        "rules": [rule_view(r) for r in catalog.rules],
        "findings": [finding_view(f, rules[f.code], remedies[f.code]) for f in findings],
        "call_sites": call_sites,
        "modules": modules_view(result.project, result.estimate, result.plan),
        "graph": graph_view(result.project),
        "plan": plan_view(result.plan),
        "estimate": estimate_view(result.estimate),
        "stubs": [],
    }
