"""Run a recipe's examples under the recorder and build ``probe.json``.

THIS IMPORTS AND RUNS THE USER'S CODE: the recipe file and everything it imports. Only
``migrate-lens probe`` calls it, after warning.

A recipe is a Python file defining ``examples()``, a generator of ``(name, module, args)``:
``module`` an ``nn.Module``, ``args`` a tuple of example inputs (a dict is passed as keyword
arguments). For each example and each mode (``eval``, and ``train`` when asked) the runner

1. records one eager forward pass (:class:`migrate_lens.probe.record.Recorder`), with parameters
   and buffers compared before and after (``state-write`` facts);
2. in eval mode, runs ``torch._dynamo.explain`` (graph breaks with reasons and user frames) and
   ``torch.export.export(strict=False)`` (the first guard on a data-dependent value, with the
   user frame it came from).

One failing example is reported with its error and the others still run. The result is a
JSON-able dict (schema: ``$defs.probe_results`` in docs/report.schema.json); facts are sorted so
two probes of the same code and inputs give the same file.
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import io
import logging
import sys
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from migrate_lens import __version__
from migrate_lens.probe.kinds import categories, graph_break_category

PROBE_SCHEMA_VERSION = "1.0"
#: What the user's code may raise that the probe reports instead of dying: any exception, and
#: ``SystemExit`` (a recipe or model calling ``sys.exit()`` or ``exit()`` would otherwise end
#: migrate-lens with its status, silently, before probe.json is written). ``KeyboardInterrupt``
#: still stops the run (Ctrl-C).
USER_CODE_ERRORS: tuple[type[BaseException], ...] = (Exception, SystemExit)


class RecipeError(Exception):
    """The recipe cannot be loaded or has no usable ``examples()``."""


def load_recipe(path: Path, root: Path) -> Any:
    """Import the recipe file as a fresh module; ``root`` (or its parent when ``root`` is a
    package) goes first on ``sys.path`` so the recipe can import the probed code. Raises
    :class:`RecipeError` when the file is missing or defines no callable ``examples``."""
    if not path.is_file():
        raise RecipeError(f"{path}: no such recipe file")
    base = root.parent if (root / "__init__.py").is_file() else root
    for entry in (str(base), str(path.resolve().parent)):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    spec = importlib.util.spec_from_file_location("_migrate_lens_recipe", path)
    if spec is None or spec.loader is None:
        raise RecipeError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the user's file: any error is reported, not raised
        raise RecipeError(f"{path}: import failed: {type(exc).__name__}: {exc}") from exc
    if not callable(getattr(module, "examples", None)):
        raise RecipeError(f"{path}: defines no examples() function")
    return module


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """torch's loggers, warnings and stdout muted (dynamo and export are verbose on failures;
    export prints the partial graph)."""
    sink = io.StringIO()
    loggers = [logging.getLogger(n) for n in ("torch", "torch._dynamo", "torch.export", "torch.fx", "torch._export")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            warnings.simplefilter("ignore")
            yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


#: Default limit of one run (the eager pass, dynamo's explain, torch.export) of one example, in
#: seconds (``probe --timeout``).
DEFAULT_TIMEOUT_S = 600.0


class ExampleTimeout(Exception):
    """One run of an example took longer than the probe's limit (raised inside the user's code
    by a SIGALRM timer, so it is reported like any error of that run, at the user's line)."""


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`ExampleTimeout` in the code run inside when it takes longer than
    ``seconds`` (0: no limit). A real-time interval timer and SIGALRM, so only in the main
    thread of a platform that has them (else no limit); a long C call (one big kernel) is
    interrupted when it returns to Python."""
    import signal
    import threading

    if seconds <= 0 or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise ExampleTimeout(f"took longer than {seconds:g} s (probe --timeout)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _call(module: Any, args: Any) -> Any:
    if isinstance(args, dict):
        return module(**args)
    return module(*args)


def _split(args: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    return ((), dict(args)) if isinstance(args, dict) else (tuple(args), {})


def _first_line(text: str, limit: int = 240) -> str:
    line = next((ln.strip() for ln in str(text).splitlines() if ln.strip()), "")
    return line[:limit]


def _graph_breaks(rec: Any, module: Any, args: Any, timeout_s: float = DEFAULT_TIMEOUT_S) -> tuple[int, str]:
    """Facts for ``torch._dynamo.explain``'s graph breaks; (count, error or "")."""
    import torch

    from migrate_lens.probe.record import Fact

    torch._dynamo.reset()
    pos, kw = _split(args)
    try:
        with _time_limit(timeout_s), _quiet(), torch.no_grad():  # as the eager eval pass
            explained = torch._dynamo.explain(module)(*pos, **kw)
    except USER_CODE_ERRORS as exc:  # noqa: BLE001 - dynamo failing is itself a fact about the model
        return 0, f"{type(exc).__name__}: {_first_line(str(exc))}"
    finally:
        torch._dynamo.reset()
    for br in explained.break_reasons:
        reason = " ".join(str(br.reason).split())[:300]
        site = rec.roots.site_of_stack([(f.filename, f.lineno or 0) for f in br.user_stack])
        if site is None:
            rec.outside += 1
            continue
        rec.facts[Fact("graph-break", site, "torch._dynamo.explain", reason)] += 1
    return int(explained.graph_break_count), ""


def _export_guard(rec: Any, module: Any, args: Any, timeout_s: float = DEFAULT_TIMEOUT_S) -> str:
    """A fact for ``torch.export.export(strict=False)``'s failure, if any; returns ``ok`` or the
    failure's type and first line."""
    import torch

    from migrate_lens.probe.record import Fact

    pos, kw = _split(args)
    try:
        with _time_limit(timeout_s), _quiet():
            torch.export.export(module, pos, kw, strict=False)
    except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the failure is what we record
        frames = [(fs.filename, fs.lineno or 0) for fs in traceback.extract_tb(exc.__traceback__)]
        text = str(exc)
        # GuardOnDataDependentSymNode, or a UserError/RuntimeError saying the same in words
        data_dependent = (type(exc).__name__ == "GuardOnDataDependentSymNode"
                          or "data-dependent" in text or "data dependent" in text)
        site = rec.roots.site_of_stack(frames)
        if site is not None and data_dependent:
            rec.facts[Fact("export-guard", site, type(exc).__name__, _first_line(text))] += 1
        elif site is None:
            rec.outside += 1
        return f"{type(exc).__name__}: {_first_line(text)}"
    return "ok"


def _owner_site(rec: Any, model: Any, name: str) -> Any:
    """Where a changed parameter/buffer is attributed when no in-place op or attribute write
    names it: the ``class`` line of the module that owns it (when inside the root)."""
    from migrate_lens.probe.record import Site

    dotted = name.split("'")[1] if "'" in name else name
    owner = model
    with contextlib.suppress(AttributeError):
        owner = model.get_submodule(dotted.rpartition(".")[0])
    cls = type(owner)
    try:
        filename = inspect.getsourcefile(cls) or ""
        line = inspect.getsourcelines(cls)[1]
    except (OSError, TypeError):
        return None
    rel = rec.roots.rel(filename)
    return Site(rel, line) if rel is not None else None


def _state_facts(rec: Any, model: Any, changes: list[tuple[str, str]]) -> None:
    """A ``state-write`` fact per changed parameter/buffer, at the first in-place op that wrote
    it (keeping that op's ``also_at``: a batch norm's statistics point at its construction), else
    at the attribute write that replaced or registered it, else at the owning class."""
    from migrate_lens.probe.record import Fact

    def first(facts: list[Any]) -> Any:
        return min(facts, key=lambda f: (f.site.path, f.site.line, f.also_at)) if facts else None

    for name, how in changes:
        short = name.split("'")[1].rpartition(".")[2] if "'" in name else name
        source = first([f for f in rec.facts if f.kind == "in-place" and f.detail.endswith(name)]) or first(
            [f for f in rec.facts if f.kind == "attr-write"
             and (f.detail.endswith(f".{short}") or f".{short} = " in f.detail)])
        if source is not None:
            rec.facts[Fact("state-write", source.site, "forward", f"{name} {how}", source.also_at)] += 1
        elif (site := _owner_site(rec, model, name)) is not None:
            rec.facts[Fact("state-write", site, "forward", f"{name} {how}")] += 1
        else:
            rec.outside += 1


def run_example(rec: Any, name: str, model: Any, args: Any, mode: str, hook_sites: dict[int, Any],
                dynamo: bool, export: bool,
                patches: Callable[[], AbstractContextManager[Any]] = contextlib.nullcontext,
                timeout_s: float = DEFAULT_TIMEOUT_S) -> dict[str, Any]:
    """Probe one example in ``mode`` (``eval``/``train``) into ``rec``; the example's summary
    (``status`` ok/error, ``error``, ``ops``, ``graph_breaks``, ``export``, ``state_written``).
    ``patches()`` is entered around the eager pass only: dynamo and export must not trace the
    recorder's own wrappers. Each run (eager, dynamo, export) gets ``timeout_s`` seconds (0: no
    limit); one that runs over is an error of that run (:class:`ExampleTimeout`)."""
    import torch

    from migrate_lens.probe.record import snapshot, state_changes

    entry: dict[str, Any] = {"name": name, "module": f"{type(model).__module__}.{type(model).__qualname__}",
                             "mode": mode, "status": "ok", "error": "", "ops": 0, "graph_breaks": None,
                             "export": "skipped", "state_written": []}
    model.train(mode == "train")
    ops_before = rec.ops
    before = snapshot(model)
    rec.watch(model, tuple(args.values()) if isinstance(args, dict) else tuple(args))
    try:
        with _time_limit(timeout_s), _quiet(), patches(), rec.active():
            with torch.no_grad() if mode == "eval" else contextlib.nullcontext():
                _call(model, args)
    except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the user's model: reported, the probe goes on
        entry["status"] = "error"
        frames = [(fs.filename, fs.lineno or 0) for fs in traceback.extract_tb(exc.__traceback__)]
        site = rec.roots.site_of_stack(frames)
        where = f" at {site.path}:{site.line}" if site is not None else ""
        entry["error"] = f"{type(exc).__name__}{where}: {_first_line(str(exc))}"
    rec.hooks_fired(hook_sites)
    changes = state_changes(model, before)
    entry["state_written"] = [f"{n} {how}" for n, how in changes]
    _state_facts(rec, model, changes)
    entry["ops"] = rec.ops - ops_before
    if mode == "eval" and entry["status"] == "ok":
        if dynamo:
            count, err = _graph_breaks(rec, model, args, timeout_s)
            entry["graph_breaks"] = count if not err else None
            if err:
                entry["error"] = f"dynamo: {err}"
        if export:
            entry["export"] = _export_guard(rec, model, args, timeout_s)
    return entry


def probe(root: Path, recipe: Path, train: bool = False, dynamo: bool = True, export: bool = True,
          timeout_s: float = DEFAULT_TIMEOUT_S) -> dict[str, Any]:
    """Run every example of ``recipe`` against the code under ``root``; the ``probe.json`` dict.

    Raises :class:`RecipeError` when the recipe cannot be loaded or ``examples()`` raises before
    yielding anything usable. Facts: ``kind``, ``category`` (the kind's own static category, see
    :mod:`migrate_lens.probe.kinds`), ``path``/``line`` (inside ``root``), ``op``, ``detail``,
    ``also_at`` (construction sites of the library modules it ran in, a custom op's definition),
    ``count`` (times seen), ``modes``, ``examples``."""
    import torch
    import torch._dynamo  # noqa: F401 - imported before any patch: dynamo keeps references to
    import torch.export  # noqa: F401 - nn.Module methods it sees at import, and would trace ours

    from migrate_lens.probe.record import Recorder, Roots, construction_sites, hook_registrations

    root = root.resolve()
    roots = Roots(root)
    module = load_recipe(recipe, root)
    sites: dict[int, Any] = {}
    hook_sites: dict[int, Any] = {}
    examples: list[tuple[str, Any, Any]] = []
    with construction_sites(roots, sites), hook_registrations(roots, hook_sites):
        try:
            for item in module.examples():
                name, model, args = item
                if not isinstance(model, torch.nn.Module):
                    raise RecipeError(f"example {name!r}: module is a {type(model).__name__}, not an nn.Module")
                examples.append((str(name), model, args))
        except RecipeError:
            raise
        except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the user's generator
            raise RecipeError(f"{recipe}: examples() raised {type(exc).__name__}: {exc}") from exc
    if not examples:
        raise RecipeError(f"{recipe}: examples() yielded nothing")
    facts: dict[tuple[Any, ...], dict[str, Any]] = {}
    runs = []
    lines_run: dict[str, set[int]] = {}
    outside = 0
    modes = ("eval", "train") if train else ("eval",)
    @contextlib.contextmanager
    def patches() -> Iterator[None]:  # modules and hooks created during forward get sites too
        with construction_sites(roots, sites), hook_registrations(roots, hook_sites):
            yield

    for name, model, args in examples:
        for mode in modes:
            rec = Recorder(roots, sites)
            torch.manual_seed(0)
            runs.append(run_example(rec, name, model, args, mode, hook_sites, dynamo, export, patches, timeout_s))
            outside += rec.outside
            for s in rec.lines_run:
                lines_run.setdefault(s.path, set()).add(s.line)
            _merge(facts, rec.facts, name, mode)
    return {
        "schema_version": PROBE_SCHEMA_VERSION,
        "tool": {"name": "migrate-lens", "version": __version__},
        "root": str(root),
        "torch_version": torch.__version__,
        "modes": list(modes),
        "examples": runs,
        "facts": sorted(facts.values(), key=_fact_order),
        "facts_outside_root": outside,
        "lines_run": {p: sorted(v) for p, v in sorted(lines_run.items())},
    }


def _merge(into: dict[tuple[Any, ...], dict[str, Any]], counts: Counter[Any], example: str, mode: str) -> None:
    for fact, n in counts.items():
        also = fact.also_at
        key = (fact.kind, fact.site.path, fact.site.line, fact.op, fact.detail,
               tuple((a.path, a.line) for a in also))
        entry = into.get(key)
        if entry is None:
            entry = into[key] = {
                "kind": fact.kind, "category": categories(fact.kind)[0], "path": fact.site.path,
                "line": fact.site.line, "op": fact.op, "detail": fact.detail,
                "also_at": [{"path": a.path, "line": a.line} for a in also],
                "count": 0, "modes": [], "examples": [],
            }
        if fact.kind == "graph-break":  # category from the break's reason
            entry["category"] = graph_break_category(fact.detail)
        entry["count"] += n
        if mode not in entry["modes"]:
            entry["modes"] = sorted([*entry["modes"], mode])
        if example not in entry["examples"]:
            entry["examples"] = sorted([*entry["examples"], example])


def _fact_order(f: dict[str, Any]) -> tuple[Any, ...]:
    return (f["path"], f["line"], f["kind"], f["op"], f["detail"], str(f["also_at"]))
