"""A helper process that draws the HTML report's chart set (:func:`chartset.draw`) on a second
core while the main process does its serial work.

After the per-file pool, a scan's main process runs alone: project graph, estimate, plan,
view, then the reports. Drawing the five charts takes 1.5-2 s of that, about 0.6 s of it
matplotlib's import. The CLI starts this helper when the pool is done (:func:`start`); it
imports matplotlib while the main process builds the graph, then waits for one set of chart
inputs (:meth:`Helper.request`, sent once the view exists) and draws it while the main process
writes report.json and the page's data; the page then takes the drawn set
(:meth:`Helper.result`).

The helper is a fresh interpreter (``sys.executable``, isolated mode ``-I``: the current
directory, which may be the scanned project, is never on its path) started with the main
process's ``sys.path``, so it imports the same code; it shares no memory, locks or threads with the main
process and never runs the main module again (as :mod:`multiprocessing`'s spawn would). The
protocol is one line of JSON in (the inputs, :func:`chartset.inputs_of`) and one JSON object
out ({chart name: SVG text}). Drawing is a pure function of the inputs and the SVG of a set is
byte-identical wherever it is drawn (``svg.hashsalt``, no dates), so the page is the same with
or without the helper. Any failure (no process could be started, the helper died, printed
something else, or took longer than :data:`TIMEOUT_S`) only means that the main process draws
the set itself, as it does when no helper runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

#: Seconds the main process waits for a requested set before drawing it itself (drawing takes
#: ~1-2 s; the margin is for a machine loaded by other work).
TIMEOUT_S = 60.0

#: The helper's command line program: the main process's import path, then :func:`main`.
_BOOT = ("import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
         "from migrate_lens.report.chartproc import main; main()")


def main() -> None:
    """The helper: import the chart code (matplotlib) at once, then read one line of JSON chart
    inputs from stdin and write the drawn set as JSON to stdout. An empty stdin (the main
    process needed no drawing) exits without drawing."""
    from migrate_lens.report import chartset, charts  # noqa: F401 (matplotlib, imported ahead)

    line = sys.stdin.buffer.readline()
    if not line.strip():
        return
    drawn = chartset.draw(json.loads(line))
    sys.stdout.write(json.dumps(drawn))
    sys.stdout.flush()


class Helper:
    """One helper process for one chart set. Raises ``OSError`` when no process can be started
    (use :func:`start` for the never-raising form)."""

    def __init__(self) -> None:
        self._proc = subprocess.Popen(
            # -I (isolated mode): no current directory (nor PYTHON* variables, user site) on the
            # path while the boot line runs; without it ``import json`` ran a json.py of the
            # scanned project when the scan was started from inside it
            [sys.executable, "-I", "-c", _BOOT, json.dumps(sys.path)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        self.key: str | None = None  # memo key of the requested set (chartset.memo_key)

    def request(self, key: str, inputs: dict[str, Any]) -> None:
        """Send the inputs of the set to draw (:func:`chartset.inputs_of`; a few KB, below a
        pipe's buffer, so this never waits for the helper), once; ``key`` names the set for
        :meth:`result`. A helper that is gone is ignored (the set is then drawn here)."""
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(json.dumps(inputs).encode("utf-8") + b"\n")
            self._proc.stdin.flush()
            self.key = key
        except (OSError, ValueError):
            self.close()

    def result(self, key: str) -> dict[str, str] | None:
        """The drawn set {chart name: SVG text} for the request named ``key``, waiting at most
        :data:`TIMEOUT_S`; None when no such request was sent or the helper failed. The helper
        is stopped either way."""
        from migrate_lens.report.chartset import NAMES

        try:
            if self.key != key:
                return None
            out, _ = self._proc.communicate(timeout=TIMEOUT_S)
            if self._proc.returncode != 0:
                return None
            drawn = json.loads(out)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            return None
        finally:
            self.close()
        ok = isinstance(drawn, dict) and set(drawn) == set(NAMES) and all(isinstance(v, str) for v in drawn.values())
        return drawn if ok else None

    def close(self) -> None:
        """Stop the helper (idempotent, never waits for it to finish its work): close its pipes
        and terminate it if it still runs (it writes no files, so nothing is left half done)."""
        self.key = None
        if self._proc.poll() is None:
            self._proc.terminate()
        for pipe in (self._proc.stdin, self._proc.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass
        try:
            self._proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            self._proc.kill()


def start() -> Helper | None:
    """A new :class:`Helper`, or None when no process can be started here (no
    ``sys.executable``, no resources): the set is then drawn in the main process."""
    if not sys.executable:
        return None
    try:
        return Helper()
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
