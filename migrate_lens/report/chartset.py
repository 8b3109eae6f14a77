"""The HTML report's five charts as one set: their input numbers from the view, drawn in this
process or by a helper process on another core (:mod:`migrate_lens.report.chartproc`), with a
memo of drawn sets on disk.

Drawing the set (matplotlib's import included) takes about 1.5-2 s. The SVG of unchanged inputs
is byte-identical anyway (``svg.hashsalt``), so a set is kept in the scan cache folder keyed by
a digest of its input numbers, the chart code and the matplotlib version (:func:`use_memo`).

A memo file is input like any other file on disk: the page inlines it as markup, so it is
trusted no more than a fresh drawing. It is read only from a folder and a file owned by the
current user and not writable by group or others (another local user could otherwise plant
markup in a shared cache), and every SVG it holds passes the same allow-list check as a fresh
drawing (:func:`migrate_lens.report.svgcheck.check_svg`); anything else is ignored and the set
is drawn again.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import stat
import warnings
from functools import lru_cache
from typing import Any

from markupsafe import Markup

from migrate_lens.report import summary as _summary

#: The charts of one set, in the order the page shows them.
NAMES = ("gauge", "effort_by_category", "findings_by_severity", "heatmap", "waves")
#: Memo files kept (newest first); older ones are deleted.
MEMO_KEEP = 16

#: Folder of the memo (:func:`use_memo`); None = always draw.
_memo_dir: pathlib.Path | None = None
#: The helper process drawing the next set (:func:`start_helper`), if any.
_helper: Any = None


def use_memo(folder: pathlib.Path | None) -> None:
    """Keep drawn sets in ``folder`` (None: no memo). The CLI points it at the scan cache folder
    unless ``--no-cache``; it is set per scan, so a later ``--no-cache`` scan in the same
    process does not read it."""
    global _memo_dir
    _memo_dir = folder


def start_helper() -> None:
    """Start a helper process that imports matplotlib now and will draw the next set
    (:mod:`migrate_lens.report.chartproc`), replacing one already started. The CLI calls it when
    the per-file pool is done and its cores are free; :func:`prefetch` sends it the set's
    inputs, :func:`charts_for` takes the drawing, :func:`stop_helper` ends it."""
    from migrate_lens.report import chartproc

    global _helper
    stop_helper()
    _helper = chartproc.start()


def stop_helper() -> None:
    """End the helper process, if one runs (idempotent)."""
    global _helper
    if _helper is not None:
        _helper.close()
        _helper = None


def prefetch(view: dict[str, Any]) -> None:
    """Have the helper (:func:`start_helper`) draw ``view``'s set now, while this process writes
    the other outputs; stop it instead when the memo already holds the set. No-op without a
    helper."""
    if _helper is None:
        return
    inputs = inputs_of(view)
    if _read_memo(inputs) is not None:
        stop_helper()
    else:
        _helper.request(memo_key(inputs), inputs)


def inputs_of(view: dict[str, Any]) -> dict[str, Any]:
    """The numbers and labels the five charts are drawn from (JSON-serializable), by chart
    name; positional arguments of the matching :mod:`migrate_lens.report.charts` function."""
    cat_rows = _summary.effort_by_category(view)
    rows, matrix = _summary.module_category_matrix(view, top=20)
    waves = view["plan"]["waves"]
    return {
        "gauge": [int(view["estimate"]["risk_score"])],
        "effort_by_category": [[r["category"] for r in cat_rows], [r["p50"] for r in cat_rows]],
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
    """The chart code and the matplotlib version, read once per process. The version comes
    from the installed package's ``_version.py`` (found without importing matplotlib) when it
    has one: ``importlib.metadata`` costs ~23 ms of imports and a scan of the installed
    distributions, on every rescan served from the memo."""
    code = (pathlib.Path(__file__).parent / "charts.py").read_bytes()
    try:
        import importlib.util

        spec = importlib.util.find_spec("matplotlib")
        if spec is not None and spec.origin:
            return code + b"\0matplotlib/_version.py\0" + (pathlib.Path(spec.origin).parent / "_version.py").read_bytes()
    except (ImportError, OSError, ValueError):
        pass
    from importlib.metadata import version

    return code + version("matplotlib").encode()


def draw(inputs: dict[str, Any]) -> dict[str, str]:
    """Draw the set: {chart name: inline SVG text}. Imports matplotlib (about 0.5 s the first
    time)."""
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


def charts_for(view: dict[str, Any]) -> dict[str, Markup]:
    """``view``'s set as markup: from the memo when it holds a set that passes the checks, else
    drawn here (and stored in the memo)."""
    inputs = inputs_of(view)
    cached = _read_memo(inputs)
    if cached is None:
        cached = _from_helper(inputs) or draw(inputs)
        _store_memo(inputs, cached)
    return {k: Markup(v) for k, v in cached.items()}


def _from_helper(inputs: dict[str, Any]) -> dict[str, str] | None:
    """The helper's drawing of ``inputs`` (:func:`prefetch`), or None (no helper, another set
    requested, the helper failed); the helper is stopped either way."""
    global _helper
    if _helper is None:
        return None
    drawn = _helper.result(memo_key(inputs))
    _helper = None
    return drawn


def _memo_path(inputs: dict[str, Any]) -> pathlib.Path | None:
    return None if _memo_dir is None else _memo_dir / f"charts-{memo_key(inputs)}.json"


def private(path: pathlib.Path) -> bool:
    """True when ``path`` (not followed if a symbolic link) is a directory or regular file
    owned by the current user and not writable by group or others. POSIX only: True where
    ``os.getuid`` does not exist (Windows ACLs are not modelled)."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return True
    try:
        st = os.lstat(path)
    except OSError:
        return False
    kind_ok = stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)
    return kind_ok and st.st_uid == getuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _read_memo(inputs: dict[str, Any]) -> dict[str, str] | None:
    """The memo's set for ``inputs``, or None (no memo; missing, unreadable, malformed; folder
    or file not private to this user; an SVG failing :func:`svgcheck.check_svg`)."""
    path = _memo_path(inputs)
    if path is None or not (private(path.parent) and private(path)):
        return None
    from migrate_lens.jsonfile import JsonFileError, parse_json

    try:
        cached = parse_json(path.read_bytes())
    except (OSError, JsonFileError):
        return None  # missing, unreadable or not JSON: draw again
    if not (isinstance(cached, dict) and set(cached) == set(NAMES) and all(isinstance(v, str) for v in cached.values())):
        return None
    from migrate_lens.report.svgcheck import UnsafeSvgError, check_svg

    try:
        for svg in cached.values():
            check_svg(svg)
    except (UnsafeSvgError, ValueError):
        return None
    try:
        os.utime(path)  # recently used: kept by the pruning
    except OSError:
        pass  # a read-only cache still serves its memo
    return cached


def _store_memo(inputs: dict[str, Any], drawn: dict[str, str]) -> None:
    """Write the memo file atomically (mode 0600, folder 0700 when created) and prune old ones;
    a failure only costs a redraw."""
    path = _memo_path(inputs)
    if path is None:
        return
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(drawn))
        os.replace(tmp, path)
        old = sorted(path.parent.glob("charts-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for stale in old[MEMO_KEEP:]:
            stale.unlink(missing_ok=True)
    except OSError:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
