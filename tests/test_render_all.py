"""report.render_all: the same files as rendering the formats one by one, and a renderer's
failure raised to the caller."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

from migrate_lens import report
from migrate_lens.report import chartset, json_

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("report_synthetic_render_all", ROOT / "fixtures" / "report" / "synthetic.py")
assert _spec and _spec.loader
synthetic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(synthetic)

FORMATS = ["json", "html", "sarif", "md"]


@pytest.fixture(autouse=True)
def _no_memo():
    chartset.use_memo(None)
    yield


def _files(folder: pathlib.Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_same_files_as_one_by_one(tmp_path: pathlib.Path) -> None:
    view = synthetic.sample_view()
    paths = report.render_all(view, tmp_path / "all", FORMATS)
    assert [p.name for p in paths] == ["report.json", "report.html", "report.sarif", "report.md"]
    (tmp_path / "one").mkdir()
    for fmt in FORMATS:
        report.renderer(fmt)(synthetic.sample_view(), tmp_path / "one")
    assert _files(tmp_path / "all") == _files(tmp_path / "one")


def test_failing_renderer_raises(tmp_path: pathlib.Path, monkeypatch) -> None:
    def broken(view, out_dir):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(json_, "render", broken)
    with pytest.raises(OSError, match="No space left"):
        report.render_all(synthetic.sample_view(), tmp_path, FORMATS)
    assert not (tmp_path / "report.json").exists()
