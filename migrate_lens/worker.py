"""The per-file job the process pool runs: read, pre-filter, parse, analyze -> FileOutcome.

Runs in worker processes; returns only plain picklable data. The catalog is loaded once per
process. Files that never mention a marker (``torch`` by default) get only a cheap import
scan (``ast``), which still feeds the import graph.
"""

from __future__ import annotations

import ast
import multiprocessing
import os
import time
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from migrate_lens.analysis.engine import ParseFailure, RuleIndex, analyze_source, build_index
from migrate_lens.analysis.walk import forget_ast, parse_ast
from migrate_lens.cache import encode, file_digest
from migrate_lens.catalog import Catalog, load_catalog
from migrate_lens.discover import decode_source
from migrate_lens.gctools import gc_paused
from migrate_lens.models import FileFacts, FileOutcome, ImportFact, Skipped
from migrate_lens.notebooks import NotebookError, cell_of_line, notebook_to_source


#: Address-space cap of a worker process, in MiB (``MIGRATE_LENS_WORKER_MEMORY_MB``; 0 = no
#: cap). One pathological file then fails with ``MemoryError`` (reported as skipped) or kills
#: only its worker, instead of taking the machine down.
DEFAULT_WORKER_MEMORY_MB = 3072

#: TEST-ONLY fault injection: ``MIGRATE_LENS_TEST_FAULTS="a.py:sleep=5,b.py:exit=3,c.py:memory"``
#: makes the worker sleep, ``os._exit`` or raise ``MemoryError`` on those relative paths. It
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


@lru_cache(maxsize=4)
def catalog_and_index(rule_dirs: tuple[str, ...]) -> tuple[Catalog, RuleIndex]:
    """The rule catalog of ``rule_dirs`` and its :class:`RuleIndex`, loaded once per process.
    The main process calls it before starting the pool, so forked workers inherit both instead
    of each reading the ~115 TOML files again (about 0.5 s per process). Raises
    ``CatalogError`` for a malformed catalog."""
    catalog = load_catalog(tuple(Path(d) for d in rule_dirs))
    return catalog, build_index(catalog.rules)


def init_worker(rule_dirs: tuple[str, ...]) -> None:
    """Process-pool initializer: load the catalog once, then move everything alive (modules,
    catalog, rule index) into the collector's permanent generation (``gc.freeze``) so that later
    collections never rescan it, and turn the collector on (a forked worker inherits the main
    process's paused collector, see :mod:`migrate_lens.gctools`)."""
    import gc

    catalog_and_index(rule_dirs)
    gc.freeze()
    gc.enable()


class CheapParseError(ValueError):
    """A pre-filtered file that the stdlib parser rejects; ``str()`` is the skip reason."""


def cheap_imports(source: str, module: str, is_package: bool) -> tuple[ImportFact, ...]:
    """Imports of a pre-filtered file, from the stdlib ``ast`` (about 10x faster than libcst).

    Raises :class:`CheapParseError` when the file does not parse, so that it is reported as
    skipped rather than silently counted as clean."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise CheapParseError(f"syntax error at line {exc.lineno}, column {exc.offset}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise CheapParseError(f"unparsable ({type(exc).__name__})") from None
    out: list[ImportFact] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out.append(ImportFact(a.name, "", a.asname or a.name.split(".")[0], node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                drop = node.level - 1 if is_package else node.level
                prefix = parts[: len(parts) - drop] if drop <= len(parts) else []
                base = ".".join([*prefix, base] if base else prefix)
            for a in node.names:
                out.append(ImportFact(base, a.name, a.asname or a.name, node.lineno, node.level))
    return tuple(sorted(out, key=lambda i: (i.line, i.module, i.name)))


def _depth_guard(text: str) -> str:
    """Skip reason when CPython's own parser refuses the nesting (more than 200 nested
    brackets, too many indentation levels, recursion or memory exhausted), else "". Such files
    are never handed to libcst, whose native parser can overflow its stack and kill the worker
    on them (seen: 5000 nested parentheses or lambdas -> SIGSEGV). Other syntax errors are left
    to libcst, which also reads syntax newer than the running CPython."""
    try:
        parse_ast(text)
    except SyntaxError as exc:
        if "too many nested" in (exc.msg or "") or "too many levels of indentation" in (exc.msg or ""):
            return f"nesting too deep at line {exc.lineno}: {exc.msg} (CPython refuses it too)"
    except (RecursionError, MemoryError) as exc:
        return f"nesting too deep for the Python parser ({type(exc).__name__})"
    except ValueError:
        return ""
    return ""


def _syntax_reason(text: str, libcst_reason: str) -> str:
    """Skip reason for a file libcst could not parse: CPython's own message and line when
    ``ast`` fails too (libcst's native parser sometimes reports the line after the error),
    else libcst's reason marked as a construct libcst does not support."""
    try:
        parse_ast(text)
    except SyntaxError as exc:
        where = f"line {exc.lineno}" + (f", column {exc.offset}" if exc.offset else "")
        return f"syntax error at {where}: {exc.msg} (not valid Python 3)"
    except (ValueError, RecursionError, MemoryError):
        return libcst_reason
    return f"{libcst_reason} (valid for CPython; not supported by libcst)"


def analyze_to_blob(data: bytes, rel_path: str, module: str, rule_dirs: tuple[str, ...] = (),
                    markers: tuple[str, ...] = ("torch",)) -> bytes:
    """:func:`analyze_bytes`, returned already encoded for the cache
    (:func:`migrate_lens.cache.encode`): the pool job. The main process decodes it once and
    stores the same bytes, instead of pickling every outcome a second time for the cache."""
    return encode(analyze_bytes(data, rel_path, module, rule_dirs, markers))


def analyze_bytes(data: bytes, rel_path: str, module: str, rule_dirs: tuple[str, ...] = (),
                  markers: tuple[str, ...] = ("torch",)) -> FileOutcome:
    """Analyze one file's bytes. Never raises for bad input: returns a skipped outcome with a
    specific reason instead (binary, undecodable, syntax error, too deep, out of memory, bad
    notebook). In a worker process the address space is capped first
    (:func:`limit_worker_memory`)."""
    limit_worker_memory()
    try:
        _inject_fault(rel_path)
        with gc_paused():
            try:
                return _analyze(data, rel_path, module, rule_dirs, markers)
            finally:
                forget_ast()
    except MemoryError:
        return FileOutcome(rel_path, skipped=Skipped(rel_path, "out of memory while analyzing (worker memory cap)", transient=True))


def _analyze(data: bytes, rel_path: str, module: str, rule_dirs: tuple[str, ...],
             markers: tuple[str, ...]) -> FileOutcome:
    digest = file_digest(data)
    notebook = rel_path.endswith(".ipynb")
    if notebook:
        try:
            text: str | None = notebook_to_source(data)
        except NotebookError as exc:
            return FileOutcome(rel_path, skipped=Skipped(rel_path, str(exc)))
        reason = ""
    else:
        text, reason = decode_source(data)
    if text is None:
        return FileOutcome(rel_path, skipped=Skipped(rel_path, reason))
    is_package = rel_path.endswith("__init__.py")
    if markers and not any(m in text for m in markers):
        try:
            imports = cheap_imports(text, module, is_package)
        except CheapParseError as exc:
            return FileOutcome(rel_path, skipped=Skipped(rel_path, str(exc)))
        facts = FileFacts(path=rel_path, module=module, sha256=digest, lines=text.count("\n") + (0 if text.endswith("\n") or not text else 1),
                          imports=imports, mentions_torch=False)
        return FileOutcome(rel_path, facts=facts)
    too_deep = _depth_guard(text)
    if too_deep:
        return FileOutcome(rel_path, skipped=Skipped(rel_path, too_deep))
    catalog, index = catalog_and_index(rule_dirs)
    try:
        facts = analyze_source(text, rel_path, module, catalog, index)
    except ParseFailure as exc:
        return FileOutcome(rel_path, skipped=Skipped(rel_path, _syntax_reason(text, str(exc))))
    except RecursionError:
        return FileOutcome(rel_path, skipped=Skipped(rel_path, "nesting too deep to analyze (RecursionError)"))
    if notebook:
        facts = replace(facts, findings=tuple(
            replace(f, message=f"cell {cell}, line {line}: {f.message}")
            for f in facts.findings for cell, line in [cell_of_line(text, f.span.line)]
        ))
    return FileOutcome(rel_path, facts=replace(facts, sha256=digest))
