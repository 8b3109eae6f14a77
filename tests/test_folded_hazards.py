"""Folded hazards of another category in the written reports: one construct that is two hazards
(``x[mask] = 0``: a data-dependent-shape scatter and an in-place write) is one finding for the
counts and the estimate, and two entries, one per category, in ``report.json`` and SARIF
(``../shared/cases/README.md``: "A line with two hazards is listed under both categories")."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from migrate_lens.cli import main
from test_schema import _errors

MODEL = '''\
import torch
import torch.nn as nn
import torch.nn.functional as F


class Masked(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        h[valid < 0.5] = 0.0
        return F.dropout(h, 0.1, training=self.training)
'''


def _scan_report(root: Path, out: Path) -> dict:
    """Scan ``root`` through the CLI (report.json and SARIF into ``out``); the report, checked
    against the schema."""
    result = CliRunner().invoke(main, ["scan", str(root), "--out", str(out), "--format", "json,sarif", "--quiet",
                                       "--no-cache"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert _errors(report) == []
    return report


def test_folded_hazards_are_listed_under_their_own_category(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "model.py").write_text(MODEL, encoding="utf-8")
    out = tmp_path / "out"
    report = _scan_report(root, out)
    by_line: dict[int, list[dict]] = {}
    for f in report["findings"]:
        by_line.setdefault(f["line"], []).append(f)
    for line, kept_cat, folded_cat in ((13, "data-dependent-shape", "in-place-mutation"), (14, "rng", "module-state")):
        entries = by_line[line]
        kept = [f for f in entries if not f["folded_into"]]
        folded = [f for f in entries if f["folded_into"]]
        assert [f["category"] for f in kept] == [kept_cat], entries
        assert [f["category"] for f in folded] == [folded_cat], entries
        assert folded[0]["folded_into"] == kept[0]["fingerprint"] and folded[0]["code"] in kept[0]["folds"]
        assert folded[0]["effort_hours"] == {"optimistic": 0.0, "likely": 0.0, "pessimistic": 0.0}
        assert folded[0]["fingerprint"] != kept[0]["fingerprint"]
        assert "{detail}" not in folded[0]["message"], folded[0]["message"]  # the template filled
    # the counts are of sites: the folded entries are not counted again
    assert report["summary"]["findings_total"] == sum(1 for f in report["findings"] if not f["folded_into"])
    sarif = json.loads((out / "report.sarif").read_text(encoding="utf-8"))
    results = sarif["runs"][0]["results"]
    assert len(results) == len(report["findings"])
    at13 = sorted(r["properties"]["category"] for r in results
                  if r["locations"][0]["physicalLocation"]["region"]["startLine"] == 13)
    assert at13 == ["data-dependent-shape", "in-place-mutation"]


def test_listing_folded_hazards_twice_changes_nothing(tmp_path: Path) -> None:
    """A report.json read back (the probe re-renders it) already lists the folded hazards: they
    are not listed again."""
    from migrate_lens.report.view import listed_findings

    root = tmp_path / "proj"
    root.mkdir()
    (root / "model.py").write_text(MODEL, encoding="utf-8")
    out = tmp_path / "out"
    CliRunner().invoke(main, ["scan", str(root), "--out", str(out), "--format", "json", "--quiet", "--no-cache"],
                       catch_exceptions=False)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert any(f["folded_into"] for f in report["findings"])
    assert listed_findings(report) == report["findings"]


HELPER = """\
import torch


def radius_graph(pos, r):
    d = torch.cdist(pos, pos)
    return torch.nonzero(d < r).t()


def jitter(pos):
    return pos + 0.01 * torch.randn_like(pos)


def spread(pos):
    return pos.flip(0) * 2
"""

CALLER = """\
import torch
from torch import nn
from .geom import jitter, radius_graph, spread


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 8)

    def forward(self, pos):
        pos = spread(jitter(pos))
        edge_index = radius_graph(pos, 1.0)
        return self.lin(pos)[edge_index[0]]


def build_index(pos):
    return radius_graph(pos, 2.0)
"""


def test_traced_call_sites_of_a_helpers_hazard_are_listed(tmp_path: Path) -> None:
    """forward's call of a helper in another file that runs torch.nonzero (or draws from the
    global RNG) is where the traced port fails: the written reports list that call line under
    the hazard's category, pointing at the helper's finding, with no count and no effort of
    its own; a call from untraced code and a call of a hazard-free helper are not listed."""
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "geom.py").write_text(HELPER, encoding="utf-8")
    (root / "pkg" / "model.py").write_text(CALLER, encoding="utf-8")
    out = tmp_path / "out"
    report = _scan_report(root, out)
    assert "call_sites" not in report
    own = {(f["line"], f["category"]): f for f in report["findings"] if f["path"] == "pkg/geom.py"}
    listed = [f for f in report["findings"] if f["path"] == "pkg/model.py" and f["folded_into"]]
    got = sorted((f["line"], f["category"]) for f in listed)
    assert got == [(12, "rng"), (13, "data-dependent-shape")], listed
    for f in listed:
        helper = own[(6, "data-dependent-shape")] if f["category"] == "data-dependent-shape" else own[(10, "rng")]
        assert f["folded_into"] == helper["fingerprint"] and f["code"] == helper["code"]
        assert f["effort_hours"] == {"optimistic": 0.0, "likely": 0.0, "pessimistic": 0.0}
        assert f["symbol"] == "pkg.model.Net.forward" and "pkg/geom.py" in f["message"]
    assert report["summary"]["findings_total"] == sum(1 for f in report["findings"] if not f["folded_into"])
    sarif = json.loads((out / "report.sarif").read_text(encoding="utf-8"))
    assert len(sarif["runs"][0]["results"]) == len(report["findings"])


def test_folded_entry_fills_its_rule_template() -> None:
    """A folded rule's message template (`{detail}: PyTorch momentum=m ...`) is filled with the
    site's snippet, never shown raw."""
    from migrate_lens.report.view import listed_findings

    kept = {"code": "ML703", "name": "batchnorm-running-stats", "category": "module-state", "path": "m.py",
            "line": 3, "column": 4, "symbol": "m.Net.__init__", "snippet": "nn.BatchNorm2d(64)",
            "folds": ["ML904"], "fingerprint": "0" * 64, "message": "kept"}
    rules = [{"code": "ML904", "name": "batchnorm-momentum-convention", "category": "layout/numerics",
              "confidence": "high", "porting": "mechanical", "remedy": "r",
              "message": "{detail}: PyTorch momentum=m weights the new batch"}]
    entries = listed_findings({"findings": [kept], "rules": rules})
    folded = [e for e in entries if e["folded_into"]]
    assert len(folded) == 1 and "`nn.BatchNorm2d(64)`: PyTorch momentum" in folded[0]["message"], folded
