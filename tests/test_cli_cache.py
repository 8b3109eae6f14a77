"""The scan's cache folder from the command line: unusable folders, the chart memo's lifetime,
and out-of-range money inputs."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from migrate_lens.cli import main
from migrate_lens.report import chartset, html

MODEL = '''\
import torch
import torch.nn as nn


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        if x.sum() > 0:
            x.add_(1)
        return self.fc(x)
'''


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "gate.py").write_text(MODEL, encoding="utf-8")
    return root


@pytest.fixture(autouse=True)
def _no_memo_left():
    yield
    chartset.use_memo(None)


def _run(args: list[str]):
    return CliRunner().invoke(main, args, catch_exceptions=False)


def test_unusable_cache_folder_scans_without_cache(project: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder", encoding="utf-8")
    out = tmp_path / "out"
    result = _run(["scan", str(project), "-o", str(out), "--cache-dir", str(blocker / "cache")])
    assert result.exit_code == 0, result.output
    assert "scanned without it" in result.output
    assert (out / "report.json").is_file() and (out / "report.html").is_file()


def test_no_cache_scan_writes_no_memo_after_a_cached_scan(project: Path, tmp_path: Path) -> None:
    cached = tmp_path / "c1"
    assert _run(["scan", str(project), "-q", "-o", str(tmp_path / "o1"), "--cache-dir", str(cached)]).exit_code == 0
    memo = cached / "charts"
    assert len(list(memo.glob("charts-*.json"))) == 1
    for entry in memo.iterdir():
        entry.unlink()
    assert _run(["scan", str(project), "-q", "-o", str(tmp_path / "o2"), "--no-cache"]).exit_code == 0
    assert not list(memo.iterdir())


@pytest.mark.parametrize("option", ["--day-rate", "--monthly-spend"])
def test_infinite_money_is_refused(project: Path, tmp_path: Path, option: str) -> None:
    result = _run(["scan", str(project), "-q", "-o", str(tmp_path / "o"), "--no-cache", option, "inf"])
    assert result.exit_code == 2
    assert not (tmp_path / "o").exists()
