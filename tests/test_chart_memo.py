"""The HTML report's chart set: same inputs -> same page without drawing; bad memo -> redraw;
a set drawn ahead in a child process gives the same page as one drawn in place."""

from __future__ import annotations

import importlib.util
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


def _refuse_drawing_here(monkeypatch) -> None:
    def refuse(*_a, **_k):
        raise AssertionError("drew in the main process although the child drew the set")

    monkeypatch.setattr(chartset, "draw", refuse)


def test_set_drawn_ahead_gives_the_same_page(tmp_path: pathlib.Path, monkeypatch) -> None:
    chartset.use_memo(None)
    in_place = html.render(synthetic.sample_view(), tmp_path / "a").read_bytes()
    chartset.draw_ahead(synthetic.sample_view())
    assert chartset._drawer is not None and chartset._drawer[2] is not None  # handed its inputs
    _refuse_drawing_here(monkeypatch)  # the forked child already holds the real draw()
    ahead = html.render(synthetic.sample_view(), tmp_path / "b").read_bytes()
    assert ahead == in_place
    assert chartset._drawer is None


def test_set_drawn_ahead_is_stored_in_the_memo(memo: pathlib.Path, tmp_path: pathlib.Path) -> None:
    chartset.draw_ahead(synthetic.sample_view())
    html.render(synthetic.sample_view(), tmp_path)
    assert len(list(memo.glob("charts-*.json"))) == 1
    chartset.draw_ahead(synthetic.sample_view())  # now a memo hit: no child
    assert chartset._drawer is None


def test_failed_child_is_replaced_by_drawing_here(tmp_path: pathlib.Path, monkeypatch) -> None:
    chartset.use_memo(None)
    expected = html.render(synthetic.sample_view(), tmp_path / "a").read_bytes()
    monkeypatch.setattr(charts, "risk_gauge", lambda *_a: (_ for _ in ()).throw(RuntimeError("child fails")))
    chartset.draw_ahead(synthetic.sample_view())  # the child inherits the failing gauge
    monkeypatch.undo()
    assert html.render(synthetic.sample_view(), tmp_path / "b").read_bytes() == expected


def test_set_drawn_ahead_for_other_numbers_is_not_used(tmp_path: pathlib.Path, monkeypatch) -> None:
    chartset.use_memo(None)
    view = synthetic.sample_view()
    expected = html.render(view, tmp_path / "a").read_bytes()
    other = synthetic.sample_view()
    other["estimate"]["risk_score"] = (int(other["estimate"]["risk_score"]) + 7) % 100
    chartset.draw_ahead(other)
    assert html.render(view, tmp_path / "b").read_bytes() == expected
    assert chartset._drawer is None


def test_stuck_child_is_given_up(tmp_path: pathlib.Path, monkeypatch) -> None:
    chartset.use_memo(None)
    expected = html.render(synthetic.sample_view(), tmp_path / "a").read_bytes()
    monkeypatch.setattr(chartset, "draw", lambda *_a: __import__("time").sleep(30))
    monkeypatch.setattr(chartset, "CHILD_TIMEOUT_S", 0.5)
    chartset.draw_ahead(synthetic.sample_view())  # the child sleeps instead of drawing
    child = chartset._drawer[0]
    monkeypatch.undo()
    monkeypatch.setattr(chartset, "CHILD_TIMEOUT_S", 0.5)
    assert html.render(synthetic.sample_view(), tmp_path / "b").read_bytes() == expected
    assert not child.is_alive()


def test_drawer_started_early_draws_the_set(tmp_path: pathlib.Path, monkeypatch) -> None:
    chartset.use_memo(None)
    expected = html.render(synthetic.sample_view(), tmp_path / "a").read_bytes()
    chartset.start_drawer()  # as the CLI does before the scan
    child = chartset._drawer[0]
    chartset.draw_ahead(synthetic.sample_view())
    _refuse_drawing_here(monkeypatch)
    assert html.render(synthetic.sample_view(), tmp_path / "b").read_bytes() == expected
    child.join(timeout=10)
    assert not child.is_alive() and chartset._drawer is None


def test_drawer_ends_when_the_memo_holds_the_set(memo: pathlib.Path, tmp_path: pathlib.Path) -> None:
    html.render(synthetic.sample_view(), tmp_path / "a")  # fills the memo
    chartset.start_drawer()
    child = chartset._drawer[0]
    chartset.draw_ahead(synthetic.sample_view())  # memo hit: the idle drawer is ended at once
    assert not child.is_alive()
    assert chartset._drawer is None


def test_idle_drawer_is_ended_by_the_page(tmp_path: pathlib.Path) -> None:
    chartset.use_memo(None)
    chartset.start_drawer()  # started, but draw_ahead never called
    child = chartset._drawer[0]
    html.render(synthetic.sample_view(), tmp_path)
    child.join(timeout=10)
    assert not child.is_alive() and chartset._drawer is None


def test_drawer_exits_when_its_parent_is_killed(tmp_path: pathlib.Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    script = (
        "import os, sys\n"
        "from migrate_lens.report import chartset\n"
        "chartset.start_drawer()\n"
        "print(chartset._drawer[0].pid, flush=True)\n"
        "os.kill(os.getpid(), 9)\n"  # a killed scan: no cleanup runs
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL
    drawer = int(proc.stdout.split()[0])
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(drawer, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    os.kill(drawer, 9)
    raise AssertionError("the drawer outlived its killed parent")
