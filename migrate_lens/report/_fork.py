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
