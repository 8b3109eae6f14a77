"""The scan pipeline: discover -> per-file facts (process pool, cache) -> project graph ->
estimate -> plan. Returns one :class:`ScanResult`; rendering is elsewhere.
"""

from __future__ import annotations

import os
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from migrate_lens.cache import FactsCache, content_key, decode, file_digest
from migrate_lens.catalog import Catalog, load_catalog
from migrate_lens.config import Config
from migrate_lens.discover import Discovery, discover, imported_package, module_name, package_name, read_bytes, vendored_roots
from migrate_lens.filters import apply_config, check_codes
from migrate_lens.models import SEVERITIES, FileFacts, FileOutcome, Skipped, StarBindings
from migrate_lens.prepass import context_key, file_contexts

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ScanResult:
    """Everything one scan learned. ``files`` are analyzed files (sorted by path), ``skipped``
    the files not analyzed with reasons, ``ignored`` the count of findings silenced by
    ``ignore[...]`` comments, ``duration_s`` wall time in seconds, ``warnings`` one-line notes
    (cache problems, rule errors). ``project``/``estimate``/``plan`` come from
    :mod:`migrate_lens.graph`, :mod:`migrate_lens.estimate`, :mod:`migrate_lens.plan`."""

    root: Path
    config: Config
    catalog: Catalog
    discovery: Discovery
    files: tuple[FileFacts, ...]
    skipped: tuple[Skipped, ...]
    ignored: int
    project: Any
    estimate: Any
    plan: Any
    duration_s: float
    warnings: tuple[str, ...]
    cache_hits: int


def _native_facts(root: Path, paths: tuple[str, ...], catalog: Catalog) -> list[FileFacts]:
    """Facts for native sources (``.cu``, ``.cpp``, ...): the ``source-file`` rules' findings
    (``analysis.engine.analyze_native_file``), the file's line count and digest."""
    out: list[FileFacts] = []
    if not paths:
        return out  # (the engine, and with it libcst, is imported only when there is work)
    from migrate_lens.analysis.engine import analyze_native_file

    for rel in paths:
        module = f"native:{rel}"
        found = analyze_native_file(rel, module, catalog)
        if found:
            data, _ = read_bytes(root / rel)
            out.append(FileFacts(path=rel, module=module, sha256=file_digest(data or b""),
                                 lines=data.count(b"\n") if data else 0, findings=found))
    return out


#: a pool job: (file bytes, relative path, module, the star bindings and the project's flag
#: constants it is analysed with)
Job = tuple[bytes, str, str, StarBindings, tuple[tuple[str, str], ...]]


def _run_pool(jobs: list[Job], workers: int, rule_dirs: tuple[str, ...],
              markers: tuple[str, ...], timeout_s: float,
              progress: Progress | None, outcomes: list[tuple[FileOutcome, bytes | None]]) -> None:
    """Analyze files in a process pool with a per-file timeout; a file that times out or
    kills its worker is reported as skipped, and the other files' results are kept. Appends
    (outcome, its cache encoding or None for pool failures) per file to ``outcomes`` as each
    finishes, so that the caller keeps the finished files when the pool is interrupted
    (Ctrl-C: ``KeyboardInterrupt``, re-raised once the workers are stopped)."""
    if not jobs:
        return
    # imported only when some file needs analysis: a fully cached rescan never loads libcst
    from pebble import ProcessPool
    from pebble.common import ProcessExpired

    from migrate_lens.worker import analyze_to_blob, catalog_and_index, init_worker

    catalog_and_index(rule_dirs)  # loaded before the pool forks: workers inherit it
    done = 0
    # Largest files first (longest-processing-time-first scheduling): a big file started last
    # would leave the other workers idle while it finishes. Results are sorted by path later.
    jobs = sorted(jobs, key=lambda job: (-len(job[0]), job[1]))
    # never more workers than files: a one-file rescan forks one worker, not one per core
    pool = ProcessPool(max_workers=max(1, min(workers, len(jobs))), initializer=init_worker, initargs=(rule_dirs,))
    try:
        futures = [
            (rel, pool.schedule(analyze_to_blob, args=(data, rel, mod, rule_dirs, markers, star, consts),
                                timeout=timeout_s))
            for data, rel, mod, star, consts in jobs
        ]
        for rel, fut in futures:
            try:
                blob = fut.result()
                outcomes.append((decode(blob), blob))
            except FutureTimeout:
                outcomes.append((FileOutcome(rel, skipped=Skipped(rel, f"timeout: analysis took longer than {timeout_s:g} s", transient=True)), None))
            except ProcessExpired as exc:
                outcomes.append((FileOutcome(rel, skipped=Skipped(rel, f"worker crashed (exit code {exc.exitcode})", transient=True)), None))
            except MemoryError:
                outcomes.append((FileOutcome(rel, skipped=Skipped(rel, "worker ran out of memory", transient=True)), None))
            except Exception as exc:  # noqa: BLE001 - e.g. a result the pool could not transfer
                outcomes.append((FileOutcome(rel, skipped=Skipped(rel, f"analysis failed ({type(exc).__name__})", transient=True)), None))
            done += 1
            if progress is not None:
                progress(done, len(futures))
    except BaseException:
        # Ctrl-C (KeyboardInterrupt) or any error here: stop the workers at once instead of
        # letting close() wait for every scheduled file (12-25 s on a large tree)
        pool.stop()
        pool.join(timeout=5)
        raise
    pool.close()
    pool.join()


class ScanInterrupted(KeyboardInterrupt):
    """Ctrl-C during the per-file stage, once the finished files are cached. ``cached``: files
    analyzed in this run and cached (-1: no cache), ``hits``: files the cache already held,
    ``total``: files to analyze. ``str()`` is the line the CLI prints."""

    def __init__(self, cached: int, hits: int, total: int) -> None:
        super().__init__(cached, hits, total)
        self.cached, self.hits, self.total = cached, hits, total

    def __str__(self) -> str:
        if self.cached < 0:
            return "no report written; without the cache (--no-cache) the next scan starts over"
        done = self.cached + self.hits
        return (f"no report written; {done} of {self.total} files are analyzed and cached, "
                "the next scan resumes from them")


def fits_file(outcome: FileOutcome, rel_path: str, codes: frozenset[str]) -> bool:
    """True when a cached ``outcome`` can stand for the file ``rel_path`` under a catalog of
    rule ``codes``: it names that path (outcome, facts, findings), and every finding's and
    rule error's code is a rule of the catalog and every severity one of
    :data:`~migrate_lens.models.SEVERITIES`. msgspec checks only the fields' types when a cache
    value is decoded; a value that is well-typed but foreign or forged (an unknown severity,
    a code the catalog lacks) would otherwise abort estimation or rendering far from the cache."""
    if outcome.path != rel_path:
        return False
    facts = outcome.facts
    if facts is None:
        return outcome.skipped is not None and outcome.skipped.path == rel_path
    if facts.path != rel_path:
        return False
    return all(f.path == rel_path and f.code in codes and f.severity in SEVERITIES for f in facts.findings) \
        and all(e.code in codes for e in facts.rule_errors)


def analyze_files(root: Path, discovery: Discovery, config: Config, catalog: Catalog, *, jobs: int | None = None,
                  cache: FactsCache | None = None, progress: Progress | None = None,
                  on_analysis: Callable[[int], None] | None = None) -> tuple[list[FileOutcome], int]:
    """Per-file stage for every discovered file: cache lookups, then the pool for misses.
    ``on_analysis(n)`` is called before the pool starts when ``n`` > 0 files need analysis (a
    fully cached rescan never calls it). Returns (outcomes sorted by path, cache hits)."""
    pending: list[Job] = []
    keys: dict[str, str] = {}
    outcomes: list[FileOutcome] = []

    def read_and_digest(rel: str) -> tuple[bytes | None, str, str]:
        data, reason = read_bytes(root / rel, config.max_file_bytes)
        return data, reason, file_digest(data) if data is not None else ""

    # Two threads: reading (a system call) and SHA-256 (of more than 2 KiB) release the GIL,
    # so a warm rescan hashes its files (27 MB on core) on both cores; results in file order
    with ThreadPoolExecutor(max_workers=2) as readers:
        read = list(readers.map(read_and_digest, discovery.files))
    package = imported_package(package_name(root, (data for data, _, _ in read if data is not None)),
                               ((rel, data) for rel, (data, _, _) in zip(discovery.files, read) if data is not None))
    modules = {rel: module_name(rel, bool(package), package) for rel, (data, _, _) in zip(discovery.files, read)
               if data is not None}
    contexts = file_contexts({rel: (modules[rel], data) for rel, (data, _, _) in zip(discovery.files, read)
                              if data is not None})
    for rel, (data, reason, digest) in zip(discovery.files, read):
        if data is None:
            outcomes.append(FileOutcome(rel, skipped=Skipped(rel, reason)))
            continue
        mod = modules[rel]
        star, consts = contexts[rel]
        keys[rel] = content_key(digest, rel, mod, catalog.digest + "|" + ",".join(config.markers)
                                + context_key(contexts[rel]))
        pending.append((data, rel, mod, star, consts))
    hits = 0
    if cache is not None:
        cached = cache.get_many(list(keys.values()))
        still: list[Job] = []
        codes = frozenset(r.code for r in catalog.rules)
        foreign = 0
        for item in pending:
            hit = cached.get(keys[item[1]])
            if hit is not None and not fits_file(hit, item[1], codes):
                foreign, hit = foreign + 1, None
            if hit is not None:
                outcomes.append(hit)
                hits += 1
            else:
                still.append(item)
        if foreign:
            cache.warnings.append(f"{foreign} cache entries did not fit their file (path, rule code or "
                                  "severity unknown); re-analyzed")
        pending = still
    workers = jobs or os.cpu_count() or 1
    if pending and on_analysis is not None:
        on_analysis(len(pending))
    fresh: list[tuple[FileOutcome, bytes | None]] = []
    saved: list[tuple[str, bytes]] = []
    interrupted = False
    try:
        _run_pool(pending, workers, config.rule_dirs, config.markers, config.timeout_s, progress, fresh)
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        # Also when the pool is interrupted (Ctrl-C) or fails: the files that finished are
        # cached, so that the next scan resumes instead of starting over. Transient skips (pool
        # failures, out of memory) are retried by the next scan.
        if cache is not None:
            saved = [(keys[o.path], blob) for o, blob in fresh
                     if blob is not None and not (o.skipped and o.skipped.transient)]
            cache.put_encoded(saved)
        if interrupted:
            raise ScanInterrupted(len(saved) if cache is not None else -1, hits, len(keys)) from None
    outcomes.extend(o for o, _ in fresh)
    outcomes.sort(key=lambda o: o.path)
    return outcomes, hits


def scan(root: Path, config: Config, *, jobs: int | None = None, cache_dir: Path | None = None,
         use_cache: bool = True, progress: Progress | None = None,
         on_analysis: Callable[[int], None] | None = None,
         on_files_done: Callable[[int], None] | None = None) -> ScanResult:
    """Scan ``root`` (directory or file). ``on_analysis``: see :func:`analyze_files`.
    ``on_files_done(n)`` is called once the per-file stage is over, with the number of files
    analyzed (not served by the cache), before the project graph: from there on this process
    works alone (the CLI starts its chart helper then). Raises ``FileNotFoundError`` for a
    missing root and :class:`migrate_lens.catalog.CatalogError` for a malformed rule catalog."""
    from migrate_lens.cache import default_cache_dir
    from migrate_lens.estimate import estimate
    from migrate_lens.graph import build_project
    from migrate_lens.plan import make_plan

    started = time.perf_counter()
    root = root.resolve()
    catalog = load_catalog(tuple(Path(d) for d in config.rule_dirs))
    check_codes(config, catalog)
    discovery = discover(root, config)
    scan_root = root if root.is_dir() else root.parent
    cache = None
    cache_warnings: list[str] = []
    if use_cache:
        folder = cache_dir or default_cache_dir()
        try:
            cache = FactsCache(folder)
        except (OSError, sqlite3.Error) as exc:  # not a folder, read-only, no space: scan anyway
            cache_warnings.append(f"cache {folder} unusable ({exc}); scanned without it")
    try:
        outcomes, hits = analyze_files(scan_root, discovery, config, catalog, jobs=jobs, cache=cache, progress=progress,
                                       on_analysis=on_analysis)
    finally:
        if cache is not None:
            cache.close()
    if on_files_done is not None:
        on_files_done(len(discovery.files) - hits)
    warnings = cache_warnings + (list(cache.warnings) if cache is not None else [])
    files: list[FileFacts] = []
    skipped = list(discovery.skipped)
    ignored_total = 0
    for o in outcomes:
        if o.skipped is not None:
            skipped.append(o.skipped)
        elif o.facts is not None:
            kept, ignored = apply_config(o.facts.findings, config)
            ignored_total += ignored
            files.append(replace(o.facts, findings=tuple(kept)))
            for err in o.facts.rule_errors:
                warnings.append(f"rule {err.code} failed on {o.path}: {err.message}")
            for part in o.facts.unanalyzed:  # (a notebook cell that does not parse: never lost silently)
                warnings.append(f"{o.path}: {part}")
    for folder, count in vendored_roots(discovery.vendored_native):  # never lost silently
        warnings.append(f"{folder}: {count} native source file(s) of a vendored library, not priced as the "
                        "project's kernels (its ops are priced where the project calls them)")
    for nf in _native_facts(scan_root, discovery.native_sources, catalog):
        kept, _ = apply_config(nf.findings, config)
        files.append(replace(nf, findings=tuple(kept)))
    files.sort(key=lambda f: f.path)
    skipped.sort(key=lambda s: s.path)
    project = build_project(files, catalog, config)
    est = estimate(project, catalog, config, skipped=len(skipped))
    plan = make_plan(project, est)
    return ScanResult(
        root=root, config=config, catalog=catalog, discovery=discovery, files=tuple(files),
        skipped=tuple(skipped), ignored=ignored_total, project=project, estimate=est, plan=plan,
        duration_s=time.perf_counter() - started, warnings=tuple(warnings), cache_hits=hits,
    )
