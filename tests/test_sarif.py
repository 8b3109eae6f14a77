"""SARIF renderer: valid against the official 2.1.0 schema, faithful to the view."""

from __future__ import annotations

import importlib.util
import json
import pathlib

import jsonschema

from migrate_lens.report import sarif

ROOT = pathlib.Path(__file__).resolve().parents[1]
SARIF_SCHEMA = json.loads((ROOT / "fixtures" / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
_spec = importlib.util.spec_from_file_location("report_synthetic", ROOT / "fixtures" / "report" / "synthetic.py")
assert _spec and _spec.loader
synthetic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(synthetic)


def _validate(log: dict) -> list[str]:
    validator = jsonschema.Draft4Validator(SARIF_SCHEMA)
    return sorted(f"{e.json_path}: {e.message}" for e in validator.iter_errors(log))


def test_sample_log_is_valid_sarif(tmp_path: pathlib.Path) -> None:
    path = sarif.render(synthetic.sample_view(), tmp_path)
    assert path == tmp_path / "report.sarif"
    log = json.loads(path.read_text(encoding="utf-8"))
    assert log["version"] == "2.1.0"
    assert _validate(log) == []


def test_hostile_and_large_logs_are_valid_sarif() -> None:
    assert _validate(sarif.build(synthetic.hostile_view())) == []
    assert _validate(sarif.build(synthetic.synthetic_view(n_files=40))) == []


def test_rules_carry_help_uri_and_level() -> None:
    view = synthetic.sample_view()
    rules = sarif.build(view)["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r["code"] for r in view["rules"]]
    ml101 = next(r for r in rules if r["id"] == "ML101")
    assert ml101["helpUri"].endswith("#ml101")
    assert ml101["defaultConfiguration"]["level"] == "error"
    assert ml101["properties"]["category"] == "dynamic-control-flow"


def test_results_map_positions_fingerprints_levels_and_fixme() -> None:
    view = synthetic.sample_view()
    run = sarif.build(view)["runs"][0]
    results = run["results"]
    assert len(results) == len(view["findings"])
    by_fp = {r["partialFingerprints"][sarif.FINGERPRINT_KEY]: r for r in results}
    for f in view["findings"]:
        r = by_fp[f["fingerprint"]]
        region = r["locations"][0]["physicalLocation"]["region"]
        assert (region["startLine"], region["startColumn"]) == (f["line"], f["column"] + 1)
        assert (region["endLine"], region["endColumn"]) == (f["end_line"], f["end_column"] + 1)
        assert r["level"] == sarif.LEVELS[f["severity"]]
        assert run["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == f["code"]
        assert ("suppressions" in r) == (f["suppressed"] == "fixme")
    assert {sarif.LEVELS[s] for s in ("critical", "high", "medium", "low", "info")} == {"error", "warning", "note"}
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == "file:///src/tinyseg/"


def test_skipped_files_become_notifications() -> None:
    view = synthetic.sample_view()
    notes = sarif.build(view)["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for n in notes] == [s["path"] for s in view["skipped"]]
    assert notes[0]["message"]["text"] == "skipped: " + view["skipped"][0]["reason"]


def test_hostile_paths_are_percent_encoded_uris() -> None:
    view = synthetic.hostile_view()
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif.build(view)["runs"][0]["results"]]
    assert uris and all("<" not in u and '"' not in u and " " not in u for u in uris)
    assert "%3C" in uris[0]


def test_output_is_deterministic(tmp_path: pathlib.Path) -> None:
    a = sarif.render(synthetic.sample_view(), tmp_path / "a").read_bytes()
    b = sarif.render(synthetic.sample_view(), tmp_path / "b").read_bytes()
    assert a == b
