"""When a helper child process may be forked from the main process.

A forked child shares the parent's pages until either writes to them, and CPython writes to
every object it touches (reference counts), so a child that walks the report view copies much
of it; and the peak memory of a scan is measured summed over the process tree, where each
child counts the shared pages it maps too. So the report's helper children (the chart drawer,
the JSON/SARIF/Markdown writer) are forked only while the main process is small: on a
626k-line tree they take ~1.5 s off a scan, on a 5M-line tree they would add a gigabyte.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

#: Memory the main process and one forked copy of it may reach together, in MiB: the speed
#: issue's budget for a 626k-line scan (1 GB).
FORK_BUDGET_MB = 1024


def fork_affordable(budget_mb: int = FORK_BUDGET_MB) -> bool:
    """True on Linux (where ``fork`` is the default start method; macOS made ``spawn`` its
    default in Python 3.8 because system libraries are not fork-safe there) when twice this
    process's peak resident size so far (``ru_maxrss``, KiB on Linux) fits in ``budget_mb``
    MiB."""
    if not sys.platform.startswith("linux") or "fork" not in multiprocessing.get_all_start_methods():
        return False
    import resource  # POSIX only: imported past the platform check

    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return 2 * peak_mb <= budget_mb


def fork_child(target: Callable[..., None], *args: Any) -> tuple[Any, Connection] | None:
    """Fork a daemon child running ``target(conn, *args)``, where ``conn`` is its end of a
    duplex pipe; returns (the child, this process's end), or None when forking is not
    affordable. The child closes its inherited copy of this process's end first, so it sees
    EOF if this process dies."""
    if not fork_affordable():
        return None
    ctx = multiprocessing.get_context("fork")
    here, there = ctx.Pipe(duplex=True)
    child = ctx.Process(target=_child_main, args=(there, here, target, args), daemon=True)
    child.start()
    there.close()  # the child holds its copy: EOF on `here` if it dies
    return child, here


def _child_main(conn: Connection, parent_end: Connection, target: Callable[..., None], args: tuple[Any, ...]) -> None:
    parent_end.close()
    try:
        target(conn, *args)
    finally:
        conn.close()


def collect(child: Any, conn: Connection, timeout_s: float) -> Any:
    """The value ``child`` sends on ``conn`` within ``timeout_s`` seconds, or None (it died,
    sent None, or hung: a child stuck on a lock some thread held at fork is given up). The
    pipe is closed and the child reaped, killed unless it delivered."""
    value = None
    try:
        if conn.poll(timeout_s):
            value = conn.recv()
    except (EOFError, OSError):
        value = None
    finally:
        end_child(child, conn, kill=value is None)
    return value


def end_child(child: Any, conn: Connection, *, kill: bool = True) -> None:
    """Close this process's end of ``child``'s pipe and reap it (killed first by default: an
    idle or unwanted helper writes nothing worth waiting for)."""
    conn.close()
    if kill:
        child.kill()
    child.join(timeout=5)
