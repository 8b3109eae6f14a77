"""The HTML report's chart set: same inputs -> same page without drawing; a bad, unsafe or
not-private memo -> redraw."""

from __future__ import annotations

import importlib.util
import os
import pathlib

import pytest

from migrate_lens.report import charts, chartset, html

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("report_synthetic_memo", ROOT / "fixtures" / "report" / "synthetic.py")
assert _spec and _spec.loader
synthetic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(synthetic)


@pytest.fixture()
def memo(tmp_path: pathlib.Path):
    folder = tmp_path / "charts"
    chartset.use_memo(folder)
    yield folder
    chartset.use_memo(None)


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
    chartset.use_memo(None)
    html.render(synthetic.sample_view(), tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


def test_read_only_memo_is_still_served(memo: pathlib.Path, tmp_path: pathlib.Path, monkeypatch) -> None:
    first = html.render(synthetic.sample_view(), tmp_path / "a").read_bytes()

    def no_utime(*_a, **_k):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(chartset.os, "utime", no_utime)
    monkeypatch.setattr(charts, "risk_gauge", lambda *_a: (_ for _ in ()).throw(AssertionError("redrawn")))
    assert html.render(synthetic.sample_view(), tmp_path / "b").read_bytes() == first


def test_failed_memo_write_leaves_no_temporary_file(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "charts"
    folder.mkdir()
    chartset.use_memo(folder)
    try:
        key = chartset.memo_key(chartset.inputs_of(synthetic.sample_view()))
        (folder / f"charts-{key}.json").mkdir()  # the memo path is a folder: the rename fails
        html.render(synthetic.sample_view(), tmp_path)
    finally:
        chartset.use_memo(None)
    assert not list(folder.glob("*.tmp"))


def _fill(memo: pathlib.Path, tmp_path: pathlib.Path) -> tuple[bytes, pathlib.Path]:
    first = html.render(synthetic.sample_view(), tmp_path / "a").read_bytes()
    (entry,) = memo.glob("charts-*.json")
    return first, entry


def test_memo_written_private(memo: pathlib.Path, tmp_path: pathlib.Path) -> None:
    _, entry = _fill(memo, tmp_path)
    assert chartset.private(memo) and chartset.private(entry)
    assert entry.stat().st_mode & 0o077 == 0


def test_memo_with_script_is_not_inlined(memo: pathlib.Path, tmp_path: pathlib.Path) -> None:
    first, entry = _fill(memo, tmp_path)
    import json as _json

    planted = _json.loads(entry.read_text(encoding="utf-8"))
    planted["gauge"] = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    entry.write_text(_json.dumps(planted), encoding="utf-8")
    page = html.render(synthetic.sample_view(), tmp_path / "b").read_bytes()
    assert b"alert(1)" not in page and page == first


def test_memo_with_event_attribute_is_not_inlined(memo: pathlib.Path, tmp_path: pathlib.Path) -> None:
    first, entry = _fill(memo, tmp_path)
    import json as _json

    planted = _json.loads(entry.read_text(encoding="utf-8"))
    planted["waves"] = '<svg xmlns="http://www.w3.org/2000/svg"><rect onload="alert(2)"/></svg>'
    entry.write_text(_json.dumps(planted), encoding="utf-8")
    page = html.render(synthetic.sample_view(), tmp_path / "b").read_bytes()
    assert b"alert(2)" not in page and page == first


@pytest.mark.parametrize("target", ["folder", "file"])
def test_memo_writable_by_others_is_not_read(memo: pathlib.Path, tmp_path: pathlib.Path, monkeypatch, target: str) -> None:
    _fill(memo, tmp_path)
    (entry,) = memo.glob("charts-*.json")
    (memo if target == "folder" else entry).chmod(0o777 if target == "folder" else 0o666)
    drawn: list[int] = []
    real = chartset.draw
    monkeypatch.setattr(chartset, "draw", lambda inputs: drawn.append(1) or real(inputs))
    html.render(synthetic.sample_view(), tmp_path / "b")
    assert drawn == [1]


def test_memo_owned_by_someone_else_is_not_read(memo: pathlib.Path, tmp_path: pathlib.Path, monkeypatch) -> None:
    _fill(memo, tmp_path)
    other = os.getuid() + 1
    monkeypatch.setattr(chartset.os, "getuid", lambda: other)
    drawn: list[int] = []
    real = chartset.draw
    monkeypatch.setattr(chartset, "draw", lambda inputs: drawn.append(1) or real(inputs))
    html.render(synthetic.sample_view(), tmp_path / "b")
    assert drawn == [1]


def test_symlinked_memo_is_not_read(memo: pathlib.Path, tmp_path: pathlib.Path, monkeypatch) -> None:
    _, entry = _fill(memo, tmp_path)
    elsewhere = tmp_path / "elsewhere.json"
    entry.rename(elsewhere)
    entry.symlink_to(elsewhere)
    drawn: list[int] = []
    real = chartset.draw
    monkeypatch.setattr(chartset, "draw", lambda inputs: drawn.append(1) or real(inputs))
    html.render(synthetic.sample_view(), tmp_path / "b")
    assert drawn == [1]
