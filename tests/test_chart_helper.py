"""The chart set drawn by a helper process (report/chartproc.py): the same page as drawing it in
this process; a helper that fails, is not asked or is asked for another set changes nothing."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

from migrate_lens.report import chartproc, chartset, html

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("report_synthetic_helper", ROOT / "fixtures" / "report" / "synthetic.py")
assert _spec and _spec.loader
synthetic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(synthetic)


@pytest.fixture(autouse=True)
def no_memo():
    chartset.use_memo(None)
    yield
    chartset.stop_helper()


def _count_draws(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    drawn: list[int] = []
    real = chartset.draw
    monkeypatch.setattr(chartset, "draw", lambda inputs: drawn.append(1) or real(inputs))
    return drawn


def test_helper_draws_the_same_page(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = html.render(synthetic.sample_view(), tmp_path / "here").read_bytes()
    drawn = _count_draws(monkeypatch)
    chartset.start_helper()
    assert chartset._helper is not None
    chartset.prefetch(synthetic.sample_view())
    helped = html.render(synthetic.sample_view(), tmp_path / "helped").read_bytes()
    assert helped == here
    assert drawn == []  # this process drew nothing
    assert chartset._helper is None  # the helper ended with its one set


def test_failed_helper_means_drawing_here(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = html.render(synthetic.sample_view(), tmp_path / "here").read_bytes()
    drawn = _count_draws(monkeypatch)
    chartset.start_helper()
    chartset._helper._proc.kill()  # dies before (or while) it draws
    chartset.prefetch(synthetic.sample_view())
    assert html.render(synthetic.sample_view(), tmp_path / "b").read_bytes() == here
    assert drawn == [1]


def test_helper_asked_for_another_set_is_not_used(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    view = synthetic.sample_view()
    chartset.start_helper()
    chartset.prefetch(view)
    view["estimate"]["risk_score"] = (int(view["estimate"]["risk_score"]) + 7) % 100
    drawn = _count_draws(monkeypatch)
    html.render(view, tmp_path / "changed")
    assert drawn == [1] and chartset._helper is None  # drawn here; the helper was stopped


def test_helper_without_request_exits_and_start_never_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    helper = chartproc.start()
    assert helper is not None
    helper.close()
    assert helper._proc.returncode is not None
    assert helper.result("any") is None
    monkeypatch.setattr(chartproc.sys, "executable", "")
    assert chartproc.start() is None
    monkeypatch.setattr(chartproc.sys, "executable", "/nonexistent/python")
    assert chartproc.start() is None


def test_helper_never_runs_modules_of_the_current_directory(tmp_path: pathlib.Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """``migrate-lens scan .`` from inside the scanned project: a ``python -c`` helper had the
    current directory first on its path while its boot line ran ``import json``, so the
    project's own json.py ran (scanned code executed). The helper runs isolated (``-I``) and
    still draws the set."""
    project = tmp_path / "project"
    project.mkdir()
    for name in ("json.py", "matplotlib.py", "numpy.py"):
        (project / name).write_text("import pathlib\npathlib.Path(__file__).with_suffix('.ran').write_text('ran')\n"
                                    "raise ImportError('scanned code')\n")
    monkeypatch.chdir(project)
    drawn = _count_draws(monkeypatch)
    chartset.start_helper()
    chartset.prefetch(synthetic.sample_view())
    html.render(synthetic.sample_view(), tmp_path / "out")
    assert sorted(p.name for p in project.glob("*.ran")) == []
    assert drawn == []  # the helper drew the set (it did not fail into drawing here)
