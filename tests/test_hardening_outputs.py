"""Nothing lost (issue 18, items 9 and 10): every report is written atomically and the set of
reports is replaced together at the end of a scan, so a full disk or a failing renderer keeps
the previous good set; Ctrl-C stops the pool and the helper children at once and exits 130
with one line."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from migrate_lens.cli import main

MODEL = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x.item()\n"
FORMATS = "html,json,sarif,md"
NAMES = ["report.html", "report.json", "report.md", "report.sarif"]


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "t"
    root.mkdir()
    (root / "m.py").write_text(MODEL, encoding="utf-8")
    return root


def _scan(root: Path, out: Path) -> int:
    return CliRunner().invoke(main, ["scan", str(root), "-o", str(out), "--no-cache", "-q", "--format", FORMATS,
                                     "--graphml"]).exit_code


def _snapshot(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


@pytest.mark.parametrize("failing", ["report.sarif", "report.md", "report.json", "report.html", "graph.graphml"])
def test_full_disk_keeps_the_previous_report_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str) -> None:
    """Repro: report.sarif and report.md were written in place: a full disk left a truncated
    SARIF where the previous good one was."""
    root = _project(tmp_path)
    out = tmp_path / "o"
    assert _scan(root, out) == 0
    before = _snapshot(out)
    assert sorted(before) == sorted([*NAMES, "graph.graphml"])
    (root / "m.py").write_text(MODEL + "\n\ndef g(x):\n    return x.numpy()\n", encoding="utf-8")

    real_open = os.fdopen

    class FullDisk:
        def __init__(self, fh):  # type: ignore[no-untyped-def]
            self.fh = fh
            self.written = 0

        def write(self, data):  # type: ignore[no-untyped-def]
            self.written += len(data)
            if self.written > 10:
                self.fh.write(data[:5])
                raise OSError(errno.ENOSPC, "No space left on device")
            return self.fh.write(data)

        def writelines(self, lines):  # type: ignore[no-untyped-def]
            for line in lines:
                self.write(line)

        def __getattr__(self, name):  # type: ignore[no-untyped-def]
            return getattr(self.fh, name)

        def __enter__(self):  # type: ignore[no-untyped-def]
            return self

        def __exit__(self, *exc):  # type: ignore[no-untyped-def]
            return self.fh.__exit__(*exc)

    import migrate_lens.report._files as files_mod

    def fdopen(fd, *args, **kwargs):  # type: ignore[no-untyped-def]
        fh = real_open(fd, *args, **kwargs)
        name = os.readlink(f"/proc/self/fd/{fd}") if os.path.exists(f"/proc/self/fd/{fd}") else ""
        return FullDisk(fh) if f".{failing}." in name else fh

    monkeypatch.setattr(files_mod.os, "fdopen", fdopen)
    # (every format is written in this process, so the patched fdopen sees each of them)
    result = CliRunner().invoke(main, ["scan", str(root), "-o", str(out), "--no-cache", "-q", "--format", FORMATS,
                                       "--graphml"])
    assert result.exit_code == 2, result.output
    assert "No space left" in result.output and result.output.count("\n") == 1
    assert _snapshot(out) == before  # every previous report intact, no temporary file left


def test_scan_writes_the_set_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    root = _project(tmp_path)
    out = tmp_path / "o"
    assert _scan(root, out) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted([*NAMES, "graph.graphml"])
    assert _scan(root, out) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted([*NAMES, "graph.graphml"])


def test_staged_set_replaces_together(tmp_path: Path) -> None:
    from migrate_lens.report._files import atomic_write, output_set

    # (outputs of an earlier scan: they name the tool, so the set may replace them)
    (tmp_path / "a.txt").write_text("old a migrate-lens", encoding="utf-8")
    (tmp_path / "b.txt").write_text("old b migrate-lens", encoding="utf-8")
    with output_set(tmp_path):
        with atomic_write(tmp_path / "a.txt") as fh:
            fh.write("new a migrate-lens")
        assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "old a migrate-lens"  # not yet
        with atomic_write(tmp_path / "b.txt") as fh:
            fh.write("new b migrate-lens")
    assert [(tmp_path / n).read_text(encoding="utf-8") for n in ("a.txt", "b.txt")] == \
        ["new a migrate-lens", "new b migrate-lens"]
    with pytest.raises(RuntimeError):
        with output_set(tmp_path):
            with atomic_write(tmp_path / "a.txt") as fh:
                fh.write("newer a")
            raise RuntimeError("a later renderer failed")
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "new a migrate-lens"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        fields = dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)
        if fields.get("PPid", "").strip() == str(pid):
            child = int(status.parent.name)
            out |= {child, *_children(child)}
    return out


def _foreground_signals() -> None:
    """In the child before exec: SIGINT and SIGTERM at their defaults, as in a foreground job."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc (Linux)")
@pytest.mark.parametrize("signum, code, word", [(signal.SIGINT, 130, "interrupted"),
                                               (signal.SIGTERM, 143, "terminated (SIGTERM)")])
def test_ctrl_c_stops_workers_at_once_and_exits_130(tmp_path: Path, signum: int, code: int, word: str) -> None:
    """Repro: after Ctrl-C the workers kept analysing for 12-25 s, then the tool exited 1 with a
    traceback. SIGTERM (``kill``, ``timeout``, a cancelled CI job) killed the main process
    alone: its workers ran on, orphaned, and nothing was said; it now stops as Ctrl-C does."""
    root = tmp_path / "t"
    root.mkdir()
    for i in range(6):
        (root / f"m{i}.py").write_text(MODEL, encoding="utf-8")
    env = {**os.environ, "MIGRATE_LENS_TEST_FAULTS": ",".join(f"m{i}.py:sleep=60" for i in range(6)),
           "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    # as a terminal's foreground job: a suite run as a shell's background job (`make test &`)
    # passes SIGINT on ignored, which the scan rightly keeps ignoring
    proc = subprocess.Popen([sys.executable, "-m", "migrate_lens.cli", "scan", str(root), "-o", str(tmp_path / "o"),
                             "--no-cache", "-j", "2"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=_foreground_signals)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(_children(proc.pid)) < 2:
        time.sleep(0.2)
    children = _children(proc.pid)
    assert len(children) >= 2, "the pool did not start"
    time.sleep(0.5)
    started = time.monotonic()
    proc.send_signal(signum)
    try:
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        for pid in (*children, proc.pid):  # never leave a sleeping scan behind on failure
            try:
                if str(root).encode() in Path(f"/proc/{pid}/cmdline").read_bytes():  # still this scan's
                    os.kill(pid, signal.SIGKILL)
            except (OSError, ProcessLookupError):
                pass
    took = time.monotonic() - started
    assert proc.returncode == code, stderr
    assert took < 5, took
    assert "Traceback" not in stderr and stderr.strip().splitlines() == [
        f"migrate-lens: {word}; no report written; without the cache (--no-cache) the next scan starts over"], stderr
    time.sleep(0.5)
    assert not [c for c in children if Path(f"/proc/{c}").exists()
                and "zombie" not in Path(f"/proc/{c}/status").read_text().lower()]


def test_files_staged_by_a_killed_scan_are_dropped_by_the_next(tmp_path: Path) -> None:
    from migrate_lens.report._files import atomic_write, output_set

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    orphan = tmp_path / f".report.json.{dead}-0123456789ab.staged"
    orphan.write_text("half a set", encoding="utf-8")
    with output_set(tmp_path):
        with atomic_write(tmp_path / "report.json") as fh:
            fh.write("{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_ctrl_c_says_what_was_kept(tmp_path: Path) -> None:
    """A demanding user pressing Ctrl-C wants to know whether the work so far is lost: the line
    says how many files are analyzed and cached (the next scan resumes from them)."""
    import pytest

    from migrate_lens.cli import _interrupted
    from migrate_lens.config import Config
    from migrate_lens.pipeline import ScanInterrupted, scan

    root = tmp_path / "tree"
    root.mkdir()
    for i in range(5):
        (root / f"m{i}.py").write_text(f"import torch\n\n\ndef f{i}(x):\n    return x.item() + {i}\n", encoding="utf-8")

    def interrupt_after(n: int):  # type: ignore[no-untyped-def]
        def progress(done: int, total: int) -> None:
            if done == n:
                raise KeyboardInterrupt
        return progress

    with pytest.raises(ScanInterrupted) as info:
        scan(root, Config(), jobs=1, cache_dir=tmp_path / "c", progress=interrupt_after(2))
    assert str(info.value) == "no report written; 2 of 5 files are analyzed and cached, the next scan resumes from them"
    with pytest.raises(ScanInterrupted) as info:  # the 2 cached are hits, 1 more is analyzed
        scan(root, Config(), jobs=1, cache_dir=tmp_path / "c", progress=interrupt_after(1))
    assert str(info.value).startswith("no report written; 3 of 5 files are analyzed and cached")
    assert _interrupted(str(info.value)).exit_code == 130


def test_baseline_write_never_replaces_a_file_that_is_not_a_baseline(tmp_path: Path) -> None:
    """Repro: ``migrate-lens baseline write . -o model.py`` (or ``-o pyproject.toml``) replaced
    that file with the baseline JSON, silently. A baseline (any version), an empty or a new
    file is written; anything else is refused in one line and kept byte for byte."""
    import os

    from click.testing import CliRunner

    from migrate_lens.cli import main

    (tmp_path / "model.py").write_text("import torch\n\n\ndef f(x):\n    x.add_(1)\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n', encoding="utf-8")
    (tmp_path / "old.json").write_text('{"tool": "migrate-lens", "version": 0, "findings": []}', encoding="utf-8")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        for target in ("model.py", "pyproject.toml"):
            result = CliRunner().invoke(main, ["baseline", "write", ".", "-o", target])
            assert result.exit_code == 2 and "exists and is not a migrate-lens baseline; not overwritten" in result.output
        assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
        for target in ("old.json", "new.json", "old.json"):
            result = CliRunner().invoke(main, ["baseline", "write", ".", "-o", target])
            assert result.exit_code == 0, result.output
    finally:
        os.chdir(old)
    assert '"version": 1' in (tmp_path / "old.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["report.json", "report.md", "report.html", "graph.graphml"])
def test_scan_never_replaces_a_file_it_did_not_write(tmp_path: Path, name: str) -> None:
    """Repro: ``scan . --out .`` (or ``--out docs``) in a project holding its own ``report.json``
    or ``report.md`` replaced it with the scan's. Now the set stops before any rename and one
    line says which file; a second scan into its own folder still replaces its outputs."""
    from click.testing import CliRunner

    from migrate_lens.cli import main

    root = tmp_path / "t"
    root.mkdir()
    (root / "m.py").write_text("import torch\n\n\ndef f(x):\n    x.add_(1)\n", encoding="utf-8")
    out = tmp_path / "o"
    out.mkdir()
    (out / name).write_text("the user's own file\n", encoding="utf-8")
    args = ["scan", str(root), "-o", str(out), "--no-cache", "-q", "--format", "html,json,md", "--graphml"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and f"{name} exists and was not written by migrate-lens" in result.output, \
        result.output
    assert sorted(p.name for p in out.iterdir()) == [name]  # nothing staged left behind, nothing else written
    assert (out / name).read_text(encoding="utf-8") == "the user's own file\n"
    fresh = tmp_path / "fresh"
    for _ in range(2):
        assert CliRunner().invoke(main, [*args[:3], str(fresh), *args[4:]]).exit_code == 0


@pytest.mark.verify
def test_probe_never_replaces_a_probe_json_it_did_not_write(tmp_path: Path) -> None:
    """Repro: ``probe --out DIR`` wrote DIR/probe.json over any file of that name (and not
    atomically). Now a foreign one stops the command before any user code runs."""
    from click.testing import CliRunner

    from migrate_lens.cli import main

    pytest.importorskip("torch")
    (tmp_path / "recipe.py").write_text("import torch\n\n\ndef examples():\n"
                                        "    yield 'id', torch.nn.Identity(), (torch.ones(2),)\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "probe.json").write_text('{"mine": 1}\n', encoding="utf-8")
    args = ["probe", str(tmp_path), "--recipe", str(tmp_path / "recipe.py"), "-o", str(out), "--yes",
            "--no-dynamo", "--no-export"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "probe.json exists and was not written by migrate-lens" in result.output
    assert (out / "probe.json").read_text(encoding="utf-8") == '{"mine": 1}\n'
    (out / "probe.json").unlink()
    for _ in range(2):
        assert CliRunner().invoke(main, args).exit_code == 0
