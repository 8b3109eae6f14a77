"""The scan's pool job: one file's bytes -> FileOutcome (:func:`migrate_lens.onefile.analyze_file`),
with the worker-process concerns around it (memory cap, catalog loaded once, GC, fault injection).

Runs in worker processes; returns only plain picklable data. The catalog is loaded once per
process. Files that never mention a marker (``torch`` by default) get only a cheap import
scan (``ast``), which still feeds the import graph.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from functools import lru_cache
from pathlib import Path

from migrate_lens.analysis.engine import RuleIndex, build_index
from migrate_lens.analysis.walk import forget_ast
from migrate_lens.cache import encode
from migrate_lens.catalog import Catalog, load_catalog
from migrate_lens.gctools import gc_paused
from migrate_lens.models import FileOutcome, Skipped, StarBindings
from migrate_lens.onefile import analyze_file


#: Address-space cap of a worker process, in MiB (``MIGRATE_LENS_WORKER_MEMORY_MB``; 0 = no
#: cap). One pathological file then fails with ``MemoryError`` (reported as skipped) or kills
#: only its worker, instead of taking the machine down.
DEFAULT_WORKER_MEMORY_MB = 3072

#: TEST-ONLY fault injection: ``MIGRATE_LENS_TEST_FAULTS="a.py:sleep=5,b.py:exit=3,c.py:memory"``
#: makes the worker sleep, ``os._exit`` or raise ``MemoryError`` on those relative paths
#: (``d.py:raise=KeyError``: raise that builtin exception, as an analyzer bug would). It
#: exists so tests can prove a slow or crashing file never loses the other files' results; it
#: is never set in normal use.
TEST_FAULTS_ENV = "MIGRATE_LENS_TEST_FAULTS"

_memory_capped = False


def limit_worker_memory() -> None:
    """Cap this process's address space once (RLIMIT_AS), only inside a worker process (never
    the main process). Silently does nothing where ``resource`` is unavailable (Windows) or the
    limit cannot be lowered."""
    global _memory_capped
    if _memory_capped or multiprocessing.parent_process() is None:
        return
    _memory_capped = True
    try:
        mb = int(os.environ.get("MIGRATE_LENS_WORKER_MEMORY_MB", DEFAULT_WORKER_MEMORY_MB))
    except ValueError:
        mb = DEFAULT_WORKER_MEMORY_MB
    if mb <= 0:
        return
    try:
        import resource
    except ImportError:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = mb * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    if soft == resource.RLIM_INFINITY or soft > cap:
        try:
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        except (ValueError, OSError):
            pass


def _inject_fault(rel_path: str) -> None:
    """TEST-ONLY: see :data:`TEST_FAULTS_ENV`."""
    spec = os.environ.get(TEST_FAULTS_ENV)
    if not spec:
        return
    for item in spec.split(","):
        path, _, action = item.partition(":")
        if path != rel_path:
            continue
        kind, _, arg = action.partition("=")
        if kind == "sleep":
            time.sleep(float(arg or 60))
        elif kind == "exit":
            os._exit(int(arg or 1))
        elif kind == "memory":
            raise MemoryError("injected")
        elif kind == "raise":  # an unexpected exception of the named builtin type
            import builtins

            raise getattr(builtins, arg or "RuntimeError")("injected")


@lru_cache(maxsize=4)
def catalog_and_index(rule_dirs: tuple[str, ...]) -> tuple[Catalog, RuleIndex]:
    """The rule catalog of ``rule_dirs`` and its :class:`RuleIndex`, loaded once per process.
    The main process calls it before starting the pool, so forked workers inherit both instead
    of each reading the ~115 TOML files again (about 0.5 s per process). Raises
    ``CatalogError`` for a malformed catalog."""
    catalog = load_catalog(tuple(Path(d) for d in rule_dirs))
    return catalog, build_index(catalog.rules)


def init_worker(rule_dirs: tuple[str, ...]) -> None:
    """Process-pool initializer: load the catalog once, keep libcst's unvalidated node
    constructors installed (:func:`~migrate_lens.analysis.walk.keep_fast_constructors`), then move everything alive (modules,
    catalog, rule index) into the collector's permanent generation (``gc.freeze``) so that later
    collections never rescan it, and turn the collector on (a forked worker inherits the main
    process's paused collector, see :mod:`migrate_lens.gctools`)."""
    import gc

    from migrate_lens.analysis.walk import keep_fast_constructors

    catalog_and_index(rule_dirs)
    keep_fast_constructors()
    gc.freeze()
    gc.enable()


def analyze_to_blob(data: bytes, rel_path: str, module: str, rule_dirs: tuple[str, ...] = (),
                    markers: tuple[str, ...] = ("torch",), star: StarBindings = (),
                    consts: tuple[tuple[str, str], ...] = ()) -> bytes:
    """:func:`analyze_bytes`, returned already encoded for the cache
    (:func:`migrate_lens.cache.encode`): the pool job. The main process decodes it once and
    stores the same bytes, instead of pickling every outcome a second time for the cache."""
    return encode(analyze_bytes(data, rel_path, module, rule_dirs, markers, star, consts))


def analyze_bytes(data: bytes, rel_path: str, module: str, rule_dirs: tuple[str, ...] = (),
                  markers: tuple[str, ...] = ("torch",), star: StarBindings = (),
                  consts: tuple[tuple[str, str], ...] = ()) -> FileOutcome:
    """Analyze one file's bytes (``star``: the names its star imports of project modules bind,
    :mod:`migrate_lens.stars`; ``consts``: the project's flag constants it mentions,
    :mod:`migrate_lens.consts`). Never raises for bad input: returns a skipped outcome with a
    specific reason instead (binary, undecodable, syntax error, too deep, out of memory, bad
    notebook) nor for an unexpected exception (``analysis failed (<type>)``). In a worker process the address space is capped first
    (:func:`limit_worker_memory`)."""
    limit_worker_memory()
    try:
        _inject_fault(rel_path)
        with gc_paused():
            try:
                return _analyze(data, rel_path, module, rule_dirs, markers, star, consts)
            finally:
                forget_ast()
    except MemoryError:
        return FileOutcome(rel_path, skipped=Skipped(rel_path, "out of memory while analyzing (worker memory cap)", transient=True))
    except Exception as exc:  # noqa: BLE001 - an analyzer bug on one file never aborts the run
        return FileOutcome(rel_path, skipped=Skipped(rel_path, analysis_failed(exc)))


def analysis_failed(exc: BaseException) -> str:
    """The skip reason of a file whose analysis raised unexpectedly: ``analysis failed
    (<exception type>)`` (the type only: the message may quote the file's content)."""
    return f"analysis failed ({type(exc).__name__})"


def _analyze(data: bytes, rel_path: str, module: str, rule_dirs: tuple[str, ...],
             markers: tuple[str, ...], star: StarBindings, consts: tuple[tuple[str, str], ...]) -> FileOutcome:
    catalog, index = catalog_and_index(rule_dirs)
    return analyze_file(data, rel_path, module, catalog, index, markers, star, consts)
