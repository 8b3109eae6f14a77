"""The HTML report's chart memo: same inputs -> same page without drawing; bad memo -> redraw."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

from migrate_lens.report import charts, html

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("report_synthetic_memo", ROOT / "fixtures" / "report" / "synthetic.py")
assert _spec and _spec.loader
synthetic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(synthetic)


@pytest.fixture()
def memo(tmp_path: pathlib.Path):
    folder = tmp_path / "charts"
    html.use_chart_memo(folder)
    yield folder
    html.use_chart_memo(None)


def test_second_render_reuses_the_charts(memo: pathlib.Path, tmp_path: pathlib.Path, monkeypatch) -> None:
    first = html.render(synthetic.sample_view(), tmp_path / "a").read_bytes()
    assert len(list(memo.glob("charts-*.json"))) == 1

    def refuse(*_a, **_k):
        raise AssertionError("drew a chart although the memo holds it")

    for name in ("risk_gauge", "effort_by_category", "findings_by_severity", "risk_heatmap", "effort_per_wave"):
        monkeypatch.setattr(charts, name, refuse)
    second = html.render(synthetic.sample_view(), tmp_path / "b").read_bytes()
    assert second == first


def test_changed_numbers_draw_again(memo: pathlib.Path, tmp_path: pathlib.Path) -> None:
    view = synthetic.sample_view()
    html.render(view, tmp_path / "a")
    view["estimate"]["risk_score"] = (int(view["estimate"]["risk_score"]) + 7) % 100
    html.render(view, tmp_path / "b")
    assert len(list(memo.glob("charts-*.json"))) == 2


def test_corrupt_memo_is_ignored(memo: pathlib.Path, tmp_path: pathlib.Path) -> None:
    first = html.render(synthetic.sample_view(), tmp_path / "a").read_bytes()
    (entry,) = memo.glob("charts-*.json")
    entry.write_text("{not json", encoding="utf-8")
    again = html.render(synthetic.sample_view(), tmp_path / "b").read_bytes()
    assert again == first
    assert entry.read_text(encoding="utf-8").startswith("{\"")


def test_without_memo_nothing_is_written(tmp_path: pathlib.Path) -> None:
    html.use_chart_memo(None)
    html.render(synthetic.sample_view(), tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


def test_read_only_memo_is_still_served(memo: pathlib.Path, tmp_path: pathlib.Path, monkeypatch) -> None:
    first = html.render(synthetic.sample_view(), tmp_path / "a").read_bytes()

    def no_utime(*_a, **_k):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(html.os, "utime", no_utime)
    monkeypatch.setattr(charts, "risk_gauge", lambda *_a: (_ for _ in ()).throw(AssertionError("redrawn")))
    assert html.render(synthetic.sample_view(), tmp_path / "b").read_bytes() == first


def test_failed_memo_write_leaves_no_temporary_file(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "charts"
    folder.mkdir()
    html.use_chart_memo(folder)
    try:
        key = html._chart_memo_key(html._chart_inputs(synthetic.sample_view()))
        (folder / f"charts-{key}.json").mkdir()  # the memo path is a folder: the rename fails
        html.render(synthetic.sample_view(), tmp_path)
    finally:
        html.use_chart_memo(None)
    assert not list(folder.glob("*.tmp"))
