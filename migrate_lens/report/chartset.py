"""The HTML report's five charts as one set: their input numbers from the view, a memo of drawn
sets on disk, and drawing ahead in a forked child process.

Drawing the set (matplotlib's import included) takes about 1.5-2 s, a third of a rescan after
a one-file change on the 626k-line ``core`` corpus tier. Two things keep it off the critical
path:

* the memo (:func:`use_memo`): the SVG of unchanged inputs is byte-identical anyway
  (``svg.hashsalt``), so a set is kept in the scan cache folder keyed by a digest of its input
  numbers, the chart code and the matplotlib version;
* drawing ahead: the CLI forks a drawer child before the scan (:func:`start_drawer`), which
  imports matplotlib once files turn out to need analysis (:func:`warm_drawer`); on a memo miss
  it is handed the inputs as soon as the view exists (:func:`draw_ahead`), the CLI renders
  JSON, SARIF and Markdown meanwhile, and the HTML renderer collects the set
  (:func:`charts_for`). Where ``fork`` is not available or not affordable
  (:mod:`migrate_lens.report._fork`), or the child fails or hangs, the set is drawn in the main
  process, with the same result.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import warnings
from functools import lru_cache
from multiprocessing.connection import Connection
from typing import Any

from markupsafe import Markup

from migrate_lens.report import summary as _summary
from migrate_lens.report._fork import collect, end_child, fork_child

#: The charts of one set, in the order the page shows them.
NAMES = ("gauge", "effort_by_category", "findings_by_severity", "heatmap", "waves")
#: Seconds the page waits for a set drawn ahead before drawing it itself (drawing takes ~2 s).
CHILD_TIMEOUT_S = 60.0
#: Memo files kept (newest first); older ones are deleted.
MEMO_KEEP = 16

#: Folder of the memo (:func:`use_memo`); None = always draw.
_memo_dir: pathlib.Path | None = None
#: The drawer child (:func:`start_drawer`): (the child, its pipe end, the inputs it was handed
#: by :func:`draw_ahead`, None while it waits).
_drawer: tuple[Any, Connection, dict[str, Any] | None] | None = None


def use_memo(folder: pathlib.Path | None) -> None:
    """Keep drawn sets in ``folder`` (None: no memo). The CLI points it at the scan cache folder
    unless ``--no-cache``; it is set per scan, so a later ``--no-cache`` scan in the same
    process does not read it."""
    global _memo_dir
    _memo_dir = folder


def inputs_of(view: dict[str, Any]) -> dict[str, Any]:
    """The numbers and labels the five charts are drawn from (JSON-serializable), by chart
    name; positional arguments of the matching :mod:`migrate_lens.report.charts` function."""
    cat_rows = _summary.effort_by_category(view)
    rows, matrix = _summary.module_category_matrix(view, top=20)
    waves = view["plan"]["waves"]
    return {
        "gauge": [int(view["estimate"]["risk_score"])],
        "effort_by_category": [
            [r["category"] for r in cat_rows], [r["likely"] for r in cat_rows],
            [r["optimistic"] for r in cat_rows], [r["pessimistic"] for r in cat_rows],
        ],
        "findings_by_severity": [view["summary"]["findings_by_severity"]],
        "heatmap": [rows, list(_summary.CATEGORIES), matrix],
        "waves": [
            [w["index"] for w in waves], [w["effort_person_days"]["p50"] for w in waves],
            [w["effort_person_days"]["p90"] for w in waves],
        ],
    }


def memo_key(inputs: dict[str, Any]) -> str:
    """Hex SHA-256 of ``inputs``, the chart code and the matplotlib version."""
    h = hashlib.sha256(json.dumps(inputs, sort_keys=True, default=repr).encode())
    h.update(_code_identity())
    return h.hexdigest()


@lru_cache(maxsize=1)
def _code_identity() -> bytes:
    """The chart code and the matplotlib version, read once per process (a scan looks the
    memo up twice: when drawing ahead and when rendering the page)."""
    from importlib.metadata import version

    return (pathlib.Path(__file__).parent / "charts.py").read_bytes() + version("matplotlib").encode()


def draw(inputs: dict[str, Any]) -> dict[str, str]:
    """Draw the set: {chart name: inline SVG text}. Imports matplotlib (about 0.5 s the first
    time). Runs in the main process or in the child of :func:`draw_ahead`."""
    from migrate_lens.report import charts

    fns = {
        "gauge": charts.risk_gauge,
        "effort_by_category": charts.effort_by_category,
        "findings_by_severity": charts.findings_by_severity,
        "heatmap": charts.risk_heatmap,
        "waves": charts.effort_per_wave,
    }
    with warnings.catch_warnings():
        # module names in any script (CJK, emoji) lack glyphs in the fonts matplotlib measures
        # text with; the SVG keeps them as text (svg.fonttype none) and the browser draws them
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from font", category=UserWarning)
        return {name: str(fns[name](*inputs[name])) for name in NAMES}


def start_drawer() -> None:
    """Fork the child that will draw the set, now, while this process is small and has no
    threads (the CLI calls it before the scan; a forked child only has the forking thread, so
    a lock another thread held would never be released in it). It idles until
    :func:`warm_drawer` has it import matplotlib (~0.5-1 s, while the files are analyzed) and
    :func:`draw_ahead` hands it the inputs. A no-op if one is running or forking is not
    affordable (:func:`migrate_lens.report._fork.fork_affordable`)."""
    global _drawer
    if _drawer is None:
        started = fork_child(_serve, os.getpid())
        _drawer = None if started is None else (*started, None)


def warm_drawer() -> None:
    """Have the drawer import the chart code now (files are being analyzed, so the charts'
    numbers will change); a fully cached rescan never calls it and never pays the import."""
    if _drawer is not None:
        try:
            _drawer[1].send(_WARM)
        except OSError:
            _stop_drawer()


#: The message that makes the drawer import the chart code.
_WARM = "import"


def _serve(conn: Connection, parent_pid: int) -> None:
    """The drawer child: on :data:`_WARM`, import the chart code; on inputs, send the set back
    (None on any failure: the parent then draws it itself) and exit. Killed when no set is
    wanted; exits by itself when the parent dies (other processes forked from the parent may
    hold the parent's pipe end, so the parent's pid is watched besides EOF)."""
    try:
        while True:
            while not conn.poll(1.0):
                if os.getppid() != parent_pid:
                    return
            message = conn.recv()
            if message == _WARM:
                from migrate_lens.report import charts  # noqa: F401 - matplotlib loaded ahead
                continue
            try:
                drawn: dict[str, str] | None = draw(message)
            except BaseException:  # noqa: BLE001 - the parent draws the set itself on anything else
                drawn = None
            conn.send(drawn)
            return
    except (EOFError, OSError):
        pass  # the parent is gone


def _stop_drawer() -> None:
    """End the drawer child, if any, at once: idle or drawing unwanted numbers, it writes
    nothing, so it is killed rather than waited for."""
    global _drawer
    drawer, _drawer = _drawer, None
    if drawer is not None:
        end_child(drawer[0], drawer[1])


def draw_ahead(view: dict[str, Any]) -> None:
    """Have ``view``'s set drawn in a child unless the memo holds it; returns at once. The
    child is the one :func:`start_drawer` forked (its matplotlib import done meanwhile), else
    one forked now. :func:`charts_for` collects the set. A no-op where forking is not
    affordable (the set is then drawn when the page is rendered)."""
    global _drawer
    inputs = inputs_of(view)
    if _read_memo(inputs) is not None:
        _stop_drawer()
        return
    start_drawer()  # no-op if one is waiting, or this process is now too large to fork
    if _drawer is None:
        return
    child, conn, _ = _drawer
    try:
        conn.send(inputs)
    except OSError:  # the child died: the page draws the set itself
        _stop_drawer()
        return
    _drawer = (child, conn, inputs)


def _collect(inputs: dict[str, Any]) -> dict[str, str] | None:
    """The set the drawer drew for ``inputs``, or None (no drawer, other inputs, failed or hung
    child); the drawer is ended either way."""
    global _drawer
    drawer, _drawer = _drawer, None
    if drawer is None:
        return None
    child, conn, started_for = drawer
    if started_for != inputs:
        end_child(child, conn)
        return None
    drawn = collect(child, conn, CHILD_TIMEOUT_S)
    return drawn if isinstance(drawn, dict) else None


def charts_for(view: dict[str, Any]) -> dict[str, Markup]:
    """``view``'s set as trusted markup: from the memo, from the child started by
    :func:`draw_ahead` (if it drew these inputs and succeeded), else drawn here. A drawn set
    is stored in the memo."""
    inputs = inputs_of(view)
    cached = _read_memo(inputs)
    if cached is not None:
        _stop_drawer()  # not needed
        return {k: Markup(v) for k, v in cached.items()}
    drawn = _collect(inputs)
    if drawn is None:
        drawn = draw(inputs)
    _store_memo(inputs, drawn)
    return {k: Markup(v) for k, v in drawn.items()}


def _memo_path(inputs: dict[str, Any]) -> pathlib.Path | None:
    return None if _memo_dir is None else _memo_dir / f"charts-{memo_key(inputs)}.json"


def _read_memo(inputs: dict[str, Any]) -> dict[str, str] | None:
    """The memo's set for ``inputs``, or None (no memo, missing, unreadable, malformed)."""
    path = _memo_path(inputs)
    if path is None:
        return None
    try:
        cached = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # missing or unreadable: draw again
    if not (isinstance(cached, dict) and set(cached) == set(NAMES) and all(isinstance(v, str) for v in cached.values())):
        return None
    try:
        os.utime(path)  # recently used: kept by the pruning
    except OSError:
        pass  # a read-only cache still serves its memo
    return cached


def _store_memo(inputs: dict[str, Any], drawn: dict[str, str]) -> None:
    """Write the memo file atomically and prune old ones; a failure only costs a redraw."""
    path = _memo_path(inputs)
    if path is None:
        return
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(drawn), encoding="utf-8")
        os.replace(tmp, path)
        old = sorted(path.parent.glob("charts-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for stale in old[MEMO_KEEP:]:
            stale.unlink(missing_ok=True)
    except OSError:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
