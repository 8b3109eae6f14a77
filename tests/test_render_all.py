"""report.render_all: the page in this process, the other formats in a forked child, with the
same files as rendering them one by one, and a child's failure surfaced from this process."""

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


def test_failing_child_is_rendered_again_here_and_raises_here(tmp_path: pathlib.Path, monkeypatch) -> None:
    def broken(view, out_dir):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(json_, "render", broken)  # the forked child inherits it, then so does the retry
    with pytest.raises(OSError, match="No space left"):
        report.render_all(synthetic.sample_view(), tmp_path, FORMATS)
    assert (tmp_path / "report.html").is_file()  # the page was written before the retry failed


def test_child_failing_once_still_gives_every_file(tmp_path: pathlib.Path, monkeypatch) -> None:
    import os

    parent = os.getpid()
    real = json_.render

    def fails_in_child(view, out_dir):
        if os.getpid() != parent:
            raise RuntimeError("child only")
        return real(view, out_dir)

    monkeypatch.setattr(json_, "render", fails_in_child)
    paths = report.render_all(synthetic.sample_view(), tmp_path, FORMATS)
    assert all(p.is_file() for p in paths)
    assert (tmp_path / "report.json").read_bytes() == _files(_write_json(tmp_path / "ref"))["report.json"]


def _write_json(folder: pathlib.Path) -> pathlib.Path:
    folder.mkdir()
    report.renderer("json")(synthetic.sample_view(), folder)
    return folder


def test_no_helper_children_when_forking_is_not_affordable(tmp_path: pathlib.Path, monkeypatch) -> None:
    from migrate_lens.report import _fork

    assert _fork.fork_affordable(budget_mb=10**6) and not _fork.fork_affordable(budget_mb=1)
    monkeypatch.setattr(_fork, "FORK_BUDGET_MB", 1)  # as if this process were huge
    monkeypatch.setattr(_fork.fork_affordable, "__defaults__", (1,))
    started: list[object] = []
    import multiprocessing.context

    real_start = multiprocessing.context.ForkProcess.start
    monkeypatch.setattr(multiprocessing.context.ForkProcess, "start", lambda self: started.append(self) or real_start(self))
    chartset.start_drawer()
    assert chartset._drawer is None
    paths = report.render_all(synthetic.sample_view(), tmp_path / "all", FORMATS)
    assert started == [] and all(p.is_file() for p in paths)
