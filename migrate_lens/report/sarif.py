"""SARIF 2.1.0 output (``report.sarif``) for code-scanning UIs (GitHub, VS Code SARIF viewer).

Built only from the report view (docs/report-json.md). Mapping:

- ``view["rules"]`` -> ``tool.driver.rules`` (``helpUri`` from the rule's ``help_uri``, default
  level from its severity, category/confidence/porting/effort as properties);
- each finding -> one ``result``: region lines as in the view, columns + 1 (the view's columns are
  0-based, SARIF's are 1-based, SARIF 2.1.0 section 3.30.5), ``partialFingerprints`` from the
  finding fingerprint (which ignores line numbers, so results survive code moving), the
  enclosing symbol as a logical location, and ``fixme`` findings as accepted ``inSource``
  suppressions (accepted debt: still listed, hidden by viewers that honour suppressions);
- skipped files -> ``toolExecutionNotifications`` of the single invocation.

Severity -> level: critical/high -> ``error``, medium -> ``warning``, low/info -> ``note``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any
from urllib.parse import quote

from migrate_lens.report._files import atomic_write
from migrate_lens.report.view import listed_findings

SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
FINGERPRINT_KEY = "migrateLens/v1"
SRCROOT = "SRCROOT"
INFORMATION_URI = "https://github.com/migrate-lens/migrate-lens"

LEVELS: dict[str, str] = {
    "critical": "error",
    "high": "error",
    "medium": "warning",
    "low": "note",
    "info": "note",
}


def _uri(path: str) -> str:
    """A relative POSIX path as a URI reference (RFC 3986): ``a b/<x>.py`` -> ``a%20b/%3Cx%3E.py``."""
    return quote(path, safe="/")


def _rule(rule: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": rule["code"],
        "name": rule["name"],
        "shortDescription": {"text": rule["name"].replace("-", " ")},
        "fullDescription": {"text": rule["why"].strip() or rule["message"]},
        "help": {"text": rule["remedy"].strip(), "markdown": rule["remedy"].strip()},
        "helpUri": rule["help_uri"],
        "defaultConfiguration": {"level": LEVELS[rule["severity"]]},
        "properties": {
            "category": rule["category"],
            "tags": ["jax-migration", rule["category"]],
            "confidence": rule["confidence"],
            "porting": rule["porting"],
            "effort_hours": rule["effort_hours"],
        },
    }


def _result(finding: dict[str, Any], rule_index: dict[str, int]) -> dict[str, Any]:
    region: dict[str, Any] = {
        "startLine": finding["line"],
        "startColumn": finding["column"] + 1,
        "endLine": finding["end_line"],
        "endColumn": finding["end_column"] + 1,
    }
    if finding["snippet"]:
        region["snippet"] = {"text": finding["snippet"]}
    result: dict[str, Any] = {
        "ruleId": finding["code"],
        "level": LEVELS[finding["severity"]],
        "message": {"text": finding["message"]},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(finding["path"]), "uriBaseId": SRCROOT},
                    "region": region,
                },
                "logicalLocations": [{"fullyQualifiedName": finding["symbol"], "kind": "function"}],
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: finding["fingerprint"]},
        "properties": {
            "category": finding["category"],
            "confidence": finding["confidence"],
            "porting": finding["porting"],
            "context": finding["context"],
            "effort_hours": finding["effort_hours"],
            "remedy": finding["remedy"],
        },
    }
    if finding["code"] in rule_index:
        result["ruleIndex"] = rule_index[finding["code"]]
    if finding.get("folded_into"):
        # a hazard folded into another finding of the site (counted and priced there)
        result["properties"]["folded_into"] = finding["folded_into"]
    if finding["suppressed"] == "fixme":
        result["suppressions"] = [
            {"kind": "inSource", "status": "accepted", "justification": "migrate-lens: fixme (accepted debt)"}
        ]
    return result


def build(view: dict[str, Any]) -> dict[str, Any]:
    """The SARIF log as a dict (one run). Deterministic: order follows the view's sorted lists."""
    rules = [_rule(r) for r in view["rules"]]
    rule_index = {r["id"]: i for i, r in enumerate(rules)}
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": view["tool"]["name"],
                "version": view["tool"]["version"],
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }
        },
        "columnKind": "unicodeCodePoints",
        "results": [_result(f, rule_index) for f in listed_findings(view)],
        "invocations": [
            {
                "executionSuccessful": True,
                "toolExecutionNotifications": [
                    {
                        "level": "warning",
                        "message": {"text": f"skipped: {s['reason']}"},
                        "locations": [
                            {"physicalLocation": {"artifactLocation": {"uri": _uri(s["path"]), "uriBaseId": SRCROOT}}}
                        ],
                    }
                    for s in view["skipped"]
                ],
            }
        ],
        "properties": {
            "risk_score": view["estimate"]["risk_score"],
            "effort_person_days": view["estimate"]["effort_person_days"],
            "verdict": view["estimate"]["decision"]["verdict"],
        },
    }
    root = pathlib.PurePosixPath(view["root"])
    if root.is_absolute():
        run["originalUriBaseIds"] = {SRCROOT: {"uri": root.as_uri().rstrip("/") + "/"}}
    return {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def render(view: dict[str, Any], out_dir: pathlib.Path) -> pathlib.Path:
    """Write ``out_dir/report.sarif`` (UTF-8, sorted keys, 2-space indent) and return its path.

    Raises OSError if ``out_dir`` cannot be written; KeyError if ``view`` breaks the contract.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "report.sarif"
    text = json.dumps(build(view), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    with atomic_write(path) as fh:  # a full disk keeps the previous report.sarif
        fh.write(text)
    return path
