"""``stubs --report`` reads and writes only inside its roots (issue 18, item 2): module paths in a
report.json are untrusted; one that leaves the source root (``..``, absolute, a symbolic link
out) is refused with a one-line error and nothing is written anywhere."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from migrate_lens.stubs.cli import stubs

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "fixtures" / "stubs" / "src"


def _tree(tmp_path: Path) -> tuple[Path, Path, Path]:
    src = tmp_path / "work" / "src"
    shutil.copytree(SRC, src)
    victim = tmp_path / "victim"
    victim.mkdir()
    shutil.copy(SRC / "tiny" / "mlp.py", victim / "model.py")
    return src, victim, tmp_path / "work" / "out"


def _files(base: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in base.rglob("*") if p.is_file()}


@pytest.mark.parametrize("bad_path", ["../../victim/model.py", "ABS", "tiny/../../../victim/model.py",
                                      "tiny/./mlp.py\x00.py", "LINK/model.py"])
def test_report_paths_outside_the_root_are_refused(tmp_path: Path, bad_path: str) -> None:
    """Repro: ``"path": "../../../victim/model.py"`` overwrote victim/model.py with a stub; an
    absolute path wrote ``__init__.py`` into every parent up to ``/`` and then looped forever."""
    src, victim, out = _tree(tmp_path)
    if bad_path == "ABS":
        bad_path = str(victim / "model.py")
    if bad_path.startswith("LINK"):
        (src / "link").symlink_to(victim, target_is_directory=True)
        bad_path = bad_path.replace("LINK", "link")
    before = _files(tmp_path)
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"modules": [
        {"qualname": "victim.model.MLP", "path": bad_path, "kind": "nn.Module", "status": "pure"}]}))
    result = CliRunner().invoke(stubs, [str(src), "-o", str(out), "--report", str(report)])
    assert result.exit_code == 2, result.output
    assert "outside" in result.output and result.output.count("\n") == 1
    assert _files(tmp_path) == {**before, report: report.read_bytes()}
    assert not out.exists()


def test_report_paths_inside_the_root_still_work(tmp_path: Path) -> None:
    src, _victim, out = _tree(tmp_path)
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"modules": [
        {"qualname": "tiny.mlp.MLP", "path": "tiny/mlp.py", "kind": "nn.Module", "status": "pure"}]}))
    result = CliRunner().invoke(stubs, [str(src), "-o", str(out), "--report", str(report)])
    assert result.exit_code == 0, result.output
    assert (out / "tiny" / "mlp.py").is_file() and (out / "tiny" / "__init__.py").is_file()


def test_write_stubs_never_leaves_out_dir(tmp_path: Path) -> None:
    from migrate_lens.stubs.generate import StubFile, write_stubs

    out = tmp_path / "out"
    for stub_path in ("../escape.py", str(tmp_path / "abs.py"), "a/../../escape2.py"):
        with pytest.raises(ValueError, match="outside"):
            write_stubs(out, [StubFile(stub_path, stub_path, "x = 1\n", (), (), True, "")])
    assert sorted(p.name for p in tmp_path.rglob("*")) == []
