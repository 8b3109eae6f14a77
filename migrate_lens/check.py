"""``migrate-lens check``: the fast, per-file gate for pre-commit and CI.

Only what one file can tell: read (same decoding rules as the scan), ``analyze_source``,
traced-only findings resolved within the file, then the project's config
(:func:`migrate_lens.filters.apply_config`). No project graph, no estimate, no report code:
this module must not import networkx, jinja2 or rich (a test checks ``sys.modules``). One
1000-line model file costs about 0.8 s of CPU: ~0.35 s importing libcst, ~0.1 s loading the
catalog, ~0.35 s analyzing (``benchmarks/check_bench.py``). Many files go to a fork-based
worker pool that inherits the loaded catalog.

Then two filters decide what is *new*:

* a baseline (:mod:`migrate_lens.baseline`): findings recorded by line-independent
  fingerprints, count-aware;
* a git diff (``--diff REF``): only findings on lines added or changed since ``REF``.

Paths. Each file belongs to the project of the nearest ``pyproject.toml`` above it (else the
nearest git work tree, else the directory above its outermost package; see
:func:`find_project_root`): its config comes from there, and the finding's
``path`` and module name are relative to that root, as in ``scan``. Output shows the path as the
user (or pre-commit) gave it. Fingerprints use the path relative to the baseline file's
directory, so a baseline at the repository root serves every sub-project.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from migrate_lens.analysis.engine import RuleIndex, build_index, resolve_traced_only
from migrate_lens.analysis.walk import forget_ast
from migrate_lens.gctools import gc_paused
from migrate_lens.baseline import DEFAULT_BASELINE_NAME, Baseline, build_baseline, split_new
from migrate_lens.catalog import Catalog, load_catalog
from migrate_lens.config import Config, load_config
from migrate_lens.discover import ALWAYS_EXCLUDED_DIRS, discover, holds_unread_code, module_name, package_name, read_bytes
from migrate_lens.filters import apply_config, check_codes
from migrate_lens.fingerprint import fingerprint
from migrate_lens.models import Finding, RuleError, Skipped, StarBindings, severity_rank
from migrate_lens.stars import file_bindings, hub_paths, star_bindings, star_imports
from migrate_lens.onefile import analyze_file
from migrate_lens.safetext import is_utf8_name, printable

#: The suffixes ``check`` analyzes (Python files and Jupyter notebooks, as the scan does);
#: anything else pre-commit passes (``.md``, ``.toml``...) is ignored.
CHECKED_SUFFIXES: tuple[str, ...] = (".py", ".ipynb")


class CheckError(ValueError):
    """A usage problem the CLI reports with exit code 2: unknown git ref, not a git work tree,
    a path that does not exist. ``str()`` is one line."""


# --------------------------------------------------------------------------- data


@dataclass(frozen=True, slots=True)
class CheckedFinding:
    """A finding as ``check`` reports it.

    ``finding.path`` is relative to the file's project root (as in ``scan``; config patterns
    match it); ``display_path`` is the path as given on the command line; ``fingerprint`` is
    computed with the path relative to the baseline anchor directory; ``remedy`` is the rule's
    remedy on one line (:func:`remedy_line`).
    """

    finding: Finding
    display_path: str
    fingerprint: str
    remedy: str = ""


@dataclass(frozen=True, slots=True)
class CheckResult:
    """Outcome of :func:`run_check`.

    ``new``: findings not in the baseline and (with a diff) on changed lines, sorted by
    (display path, line, column, code). Counts of what was filtered out: ``baselined``,
    ``outside_diff``, ``accepted`` (``fixme`` comments: accepted debt), ``ignored``
    (``ignore`` comments). ``skipped``: files not analyzed (unreadable, syntax error), with
    display paths; ``unchecked``: those of them that left code unchecked (a syntax error,
    undecodable bytes, nesting too deep, too large, unreadable; with a diff, only files changed
    since the ref): they fail the gate like a blocking finding, since nobody knows what they
    hold. Symbolic links and non-regular files are listed but never fail it.
    ``rule_errors``: ``(display path, error)`` for rules that raised.
    ``files_checked``: Python files analyzed.
    """

    new: tuple[CheckedFinding, ...]
    files_checked: int
    baselined: int = 0
    outside_diff: int = 0
    accepted: int = 0
    ignored: int = 0
    skipped: tuple[Skipped, ...] = ()
    rule_errors: tuple[tuple[str, RuleError], ...] = ()
    unchecked: tuple[Skipped, ...] = ()

    def failing(self, fail_on: str) -> tuple[CheckedFinding, ...]:
        """The new findings at or above severity ``fail_on`` (raises ValueError if unknown)."""
        threshold = severity_rank(fail_on)
        return tuple(c for c in self.new if severity_rank(c.finding.severity) >= threshold)

    def blocked(self, fail_on: str) -> bool:
        """The gate fails: a new finding at or above ``fail_on``, or a file left unchecked."""
        return bool(self.unchecked or self.failing(fail_on))


@dataclass(frozen=True, slots=True)
class Collected:
    """Findings of a set of files before the baseline and diff filters (see :func:`collect`).

    ``findings``: each finding (project-relative path) with its display path, absolute path and
    one-line remedy; ``accepted`` counts the ``fixme``-suppressed ones (not in ``findings``).
    """

    findings: tuple[tuple[Finding, str, Path, str], ...]
    files_checked: int
    accepted: int
    ignored: int
    skipped: tuple[Skipped, ...]
    rule_errors: tuple[tuple[str, RuleError], ...]


# --------------------------------------------------------------------------- projects


@dataclass(frozen=True, slots=True)
class _Project:
    root: Path
    config: Config
    catalog: Catalog
    index: RuleIndex
    remedies: dict[str, str]
    include: Any = None  # pathspec.PathSpec | None
    exclude: Any = None
    package: str = ""  # the root's dotted package name (discover.package_name), "" if none


@dataclass(slots=True)
class _Projects:
    """Caches: directory -> project root, root -> loaded project, rule dirs -> catalog."""

    roots: dict[Path, Path] = field(default_factory=dict)
    projects: dict[Path, _Project] = field(default_factory=dict)
    catalogs: dict[tuple[Path, ...], tuple[Catalog, RuleIndex]] = field(default_factory=dict)
    catalog: Catalog | None = None

    def root_of(self, directory: Path) -> Path:
        if directory not in self.roots:
            self.roots[directory] = find_project_root(directory)
        return self.roots[directory]

    def project(self, root: Path) -> _Project:
        if root not in self.projects:
            config = load_config(root)
            dirs = tuple((root / d).resolve() for d in config.rule_dirs)
            if dirs not in self.catalogs:
                catalog = self.catalog if (self.catalog is not None and not dirs) else load_catalog(dirs)
                self.catalogs[dirs] = (catalog, build_index(catalog.rules))
            catalog, index = self.catalogs[dirs]
            check_codes(config, catalog)  # as the scan does: a typo in select must not turn the gate off
            include = exclude = None
            if config.include or config.exclude:
                import pathspec

                include = pathspec.GitIgnoreSpec.from_lines(config.include) if config.include else None
                exclude = pathspec.GitIgnoreSpec.from_lines(config.exclude) if config.exclude else None
            remedies = {r.code: remedy_line(catalog, r.code) for r in catalog.rules}
            self.projects[root] = _Project(root, config, catalog, index, remedies, include, exclude,
                                           package_name(root))
        return self.projects[root]


def find_project_root(directory: Path) -> Path:
    """The nearest ancestor of ``directory`` (itself included) holding a ``pyproject.toml``;
    failing that the nearest holding ``.git``; failing that the directory above the outermost
    package containing ``directory`` (so ``timm/layers/x.py`` is module ``timm.layers.x``), or
    ``directory`` itself when it is not a package. Absolute."""
    directory = directory.resolve()
    candidates = (directory, *directory.parents)
    for marker in ("pyproject.toml", ".git"):
        for d in candidates:
            if (d / marker).exists():
                return d
    root = directory
    while (root / "__init__.py").is_file() and root.parent != root:
        root = root.parent
    return root


def default_baseline_path(start: Path) -> Path | None:
    """The ``.migrate-lens-baseline.json`` ``check`` uses when ``--baseline`` is not given:
    in ``start`` or an ancestor up to (and including) its project root; None if there is none."""
    start = start.resolve()
    root = find_project_root(start)
    for d in (start, *start.parents):
        candidate = d / DEFAULT_BASELINE_NAME
        if candidate.is_file():
            return candidate
        if d == root:
            break
    return None


def _posix_rel(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return path.as_posix()


def _anchor_rel(path: Path, anchor: Path) -> str:
    """``path`` relative to the baseline anchor, with ``..`` when outside it (POSIX)."""
    return Path(os.path.relpath(path, anchor)).as_posix()


def _display(path: Path) -> str:
    """``path`` as the user gave it, POSIX separators, no leading ``./``."""
    text = path.as_posix()
    while text.startswith("./"):
        text = text[2:]
    return text


# --------------------------------------------------------------------------- collecting


def expand_paths(paths: Sequence[Path], cwd: Path | None = None) -> tuple[list[Path], list[Skipped]]:
    """Files to check from command-line ``paths``: files are kept if they end in ``.py`` or ``.ipynb``
    (others are silently ignored, as pre-commit passes every staged file to a hook without
    ``types``); directories are walked with the scan's discovery (``.gitignore``, config
    include/exclude); no paths means the current directory. Raises :class:`CheckError` for a
    path that does not exist."""
    cwd = cwd or Path.cwd()
    out: list[Path] = []
    skipped: list[Skipped] = []
    for given in paths or (Path("."),):
        if not is_utf8_name(str(given)):
            skipped.append(Skipped(printable(_display(given)), "file name is not valid UTF-8 (shown with \\x escapes); "
                                                                "not checked, rename it to check it"))
            continue
        full = given if given.is_absolute() else cwd / given
        if not full.exists() and not full.is_symlink():
            hint = ""
            if given.as_posix().startswith("-"):
                hint = ("; options of the pre-commit hook are set in pyproject.toml's [tool.migrate-lens.check] "
                        "table, not in `args:` (the hook's file names are never read as options)")
            raise CheckError(f"{_display(given)}: no such file or directory{hint}")
        if full.is_dir():
            root = find_project_root(full)
            config = load_config(root)
            found = discover(root, config)
            sub = _posix_rel(full.resolve(), root)
            prefix = "" if sub == "." else sub + "/"
            for rel in found.files:
                if rel.startswith(prefix) and rel.endswith(CHECKED_SUFFIXES):
                    out.append(_relativize(root / rel, cwd))
            for s in found.skipped:
                if s.path.startswith(prefix):
                    skipped.append(Skipped(_display(_relativize(root / s.path, cwd)), s.reason))
        elif full.name.endswith(CHECKED_SUFFIXES):
            out.append(given)
    unique = dict.fromkeys(out)
    return list(unique), skipped


def _relativize(path: Path, cwd: Path) -> Path:
    try:
        return path.relative_to(cwd.resolve())
    except ValueError:
        return path


def _excluded(project: _Project, rel: str) -> bool:
    if any(part in ALWAYS_EXCLUDED_DIRS for part in rel.split("/")[:-1]):
        return True
    if project.exclude is not None and project.exclude.match_file(rel):
        return True
    return project.include is not None and not project.include.match_file(rel)


@dataclass(frozen=True, slots=True)
class _FileResult:
    """What one file gave: findings kept by the config, counts, or a skip reason."""

    kept: tuple[Finding, ...] = ()
    ignored: int = 0
    rule_errors: tuple[RuleError, ...] = ()
    skip_reason: str = ""
    checked: bool = True
    unanalyzed: tuple[str, ...] = ()


#: Projects of the files being checked, set before forking workers (inherited, never pickled).
_WORKER_PROJECTS: dict[Path, _Project] = {}
#: Below this many files a process pool costs more than it saves (fork + result pickling).
POOL_MIN_FILES = 6


def _star_bindings(project: _Project, module: str, is_package: bool, data: bytes) -> StarBindings:
    """What the file's star imports of project modules bind, as the scan gives it
    (:mod:`migrate_lens.stars`): the hubs it names are read from the project's tree (unreadable
    or missing ones bind nothing)."""
    if b"*" not in data:
        return ()
    files: dict[str, tuple[bool, bytes]] = {module: (is_package, data)}
    todo = star_imports(module, is_package, data)
    while todo and len(files) < 64:
        hub = todo.pop()
        if hub in files:
            continue
        for rel in hub_paths(hub, project.package):
            if not rel:
                continue
            got, _ = read_bytes(project.root / rel, project.config.max_file_bytes)
            if got is not None:
                files[hub] = (rel.endswith("__init__.py"), got)
                todo.extend(star_imports(hub, rel.endswith("__init__.py"), got))
                break
    return file_bindings(module, is_package, data, star_bindings(files))


def _check_one(absolute: Path, rel: str, project: _Project) -> _FileResult:
    """One file through the scan's own per-file analysis (:func:`migrate_lens.onefile.analyze_file`:
    decoding or notebook cells, the marker pre-filter, the guard against nesting that crashes
    libcst's parser), then the traced-only resolution and the config's filters."""
    data, reason = read_bytes(absolute, project.config.max_file_bytes)
    if data is None:
        return _FileResult(skip_reason=reason, checked=False)
    module = module_name(rel, bool(project.package), project.package)
    star = _star_bindings(project, module, rel.endswith("__init__.py"), data)
    try:
        with gc_paused():  # as in the scan's workers (gctools.py): the parse is allocation-heavy
            outcome = analyze_file(data, rel, module, project.catalog, project.index, project.config.markers, star)
    except MemoryError:
        return _FileResult(skip_reason="out of memory while analyzing", checked=False)
    except Exception as exc:  # noqa: BLE001 - an analyzer bug on one file never aborts the check
        return _FileResult(skip_reason=f"analysis failed ({type(exc).__name__})", checked=False)
    finally:
        forget_ast()
    if outcome.skipped is not None:
        return _FileResult(skip_reason=outcome.skipped.reason, checked=False)
    facts = outcome.facts
    assert facts is not None  # an outcome holds facts or a skip
    if not facts.mentions_torch:  # the scan's pre-filter: a file that never mentions torch gets no rules
        return _FileResult(unanalyzed=facts.unanalyzed)
    if project.config.traced_entries:  # config entries seed the in-file closure like forward does
        facts = replace(facts, traced_entries=tuple(sorted({*facts.traced_entries, *project.config.traced_entries})))
    kept, ignored = apply_config(resolve_traced_only(facts, project.catalog).findings, project.config)
    return _FileResult(tuple(kept), ignored, facts.rule_errors, unanalyzed=facts.unanalyzed)


def _check_one_in_worker(task: tuple[Path, str, Path]) -> _FileResult:
    absolute, rel, root = task
    return _check_one(absolute, rel, _WORKER_PROJECTS[root])


def _run_tasks(
    tasks: list[tuple[Path, str, Path]], projects: dict[Path, _Project], jobs: int | None
) -> list[_FileResult]:
    """Per-file results in task order: in this process, or in a fork-based pebble pool when
    there are many files and more than one CPU (workers inherit the loaded catalogs instead of
    reloading). A worker that dies on a file (a crash in a native parser, the OOM killer) costs
    that file only, ``worker crashed (exit code N)``: a ``multiprocessing.Pool`` waited forever
    for it, hanging the pre-commit hook."""
    import multiprocessing

    workers = min(jobs or os.cpu_count() or 1, len(tasks))
    if workers < 2 or len(tasks) < POOL_MIN_FILES or "fork" not in multiprocessing.get_all_start_methods():
        return [_check_one(a, r, projects[root]) for a, r, root in tasks]
    from pebble import ProcessPool
    from pebble.common import ProcessExpired

    _WORKER_PROJECTS.clear()
    _WORKER_PROJECTS.update(projects)
    pool = ProcessPool(max_workers=workers, context=multiprocessing.get_context("fork"))
    try:
        futures = [pool.schedule(_check_one_in_worker, args=(task,)) for task in tasks]
        out: list[_FileResult] = []
        for fut in futures:
            try:
                out.append(fut.result())
            except ProcessExpired as exc:
                out.append(_FileResult(skip_reason=f"worker crashed (exit code {exc.exitcode})", checked=False))
            except Exception as exc:  # noqa: BLE001 - e.g. a result the pool could not transfer
                out.append(_FileResult(skip_reason=f"analysis failed ({type(exc).__name__})", checked=False))
        pool.close()
        return out
    except BaseException:  # Ctrl-C: stop the workers at once instead of waiting for every file
        pool.stop()
        raise
    finally:
        pool.join()
        _WORKER_PROJECTS.clear()


def collect(
    files: Sequence[Path], *, cwd: Path | None = None, catalog: Catalog | None = None, jobs: int | None = None
) -> Collected:
    """Analyze ``files`` (``.py`` or ``.ipynb`` paths, relative to ``cwd`` or absolute).

    Per file: find its project (config, rule folders), skip it if the config's include/exclude
    leaves it out, read it (:func:`migrate_lens.discover.read_bytes`), skip the rules if it
    never mentions a config ``markers`` word, analyze it as the scan does
    (:func:`migrate_lens.onefile.analyze_file`: notebooks by code cell, deep nesting skipped),
    :func:`migrate_lens.analysis.engine.resolve_traced_only` (traced-only findings kept when
    their function is reachable in this file from ``forward``, a hook or a config
    ``traced-entries`` name), :func:`migrate_lens.filters.apply_config`. With
    :data:`POOL_MIN_FILES` files or more, files are analyzed by ``jobs`` worker processes
    (default: all CPUs; 1 = in this process). ``catalog`` replaces the shipped catalog (tests).
    Raises ``ConfigError``/``CatalogError`` for a bad ``pyproject.toml`` or rule folder.
    """
    cwd = cwd or Path.cwd()
    projects = _Projects(catalog=catalog)
    tasks: list[tuple[Path, str, Path]] = []
    displays: list[str] = []
    for given in files:
        absolute = (given if given.is_absolute() else cwd / given).absolute()
        root = projects.root_of(absolute.parent.resolve())
        project = projects.project(root)
        rel = _posix_rel(absolute.parent.resolve() / absolute.name, root)
        if _excluded(project, rel):
            continue
        tasks.append((absolute, rel, root))
        displays.append(_display(given))
    found: list[tuple[Finding, str, Path, str]] = []
    skipped: list[Skipped] = []
    errors: list[tuple[str, RuleError]] = []
    checked = accepted = ignored = 0
    for (absolute, _rel, root), display, res in zip(tasks, displays, _run_tasks(tasks, projects.projects, jobs)):
        if res.skip_reason:
            skipped.append(Skipped(display, res.skip_reason))
            continue
        checked += 1
        # a notebook cell that does not parse: the other cells were checked, that one was not
        skipped.extend(Skipped(display, f"{part} (the other cells were checked)") for part in res.unanalyzed)
        ignored += res.ignored
        errors.extend((display, e) for e in res.rule_errors)
        remedies = projects.projects[root].remedies
        for f in res.kept:
            if f.suppressed == "fixme":
                accepted += 1
            else:
                found.append((f, display, absolute, remedies.get(f.code, "")))
    return Collected(tuple(found), checked, accepted, ignored, tuple(skipped), tuple(errors))


# --------------------------------------------------------------------------- diff


def changed_lines(ref: str, cwd: Path | None = None) -> dict[Path, frozenset[int] | None]:
    """Lines added or modified since git ``ref`` in the work tree of ``cwd``.

    Returns ``{absolute path: line numbers}`` (1-based, new side of the diff); untracked files
    map to None (every line is new). Files absent from the map did not change. Parses
    ``git diff -U0`` with ``unidiff``; ``ref`` is never read as an option (refused when it starts
    with ``-``, and placed after ``--end-of-options``). Raises :class:`CheckError` if ``cwd`` is
    not in a git work tree or ``ref`` is unknown or not a ref.
    """
    from unidiff.patch import PatchSet

    cwd = cwd or Path.cwd()
    if not ref or ref.startswith("-") or "\0" in ref:
        # `--diff=--output=x` would otherwise be an option of git diff (it writes the file x)
        raise CheckError(f"--diff: {ref!r} is not a git ref (refs never start with '-')")
    top = Path(_git(["rev-parse", "--show-toplevel"], cwd).strip())
    diff = _git(
        ["-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "--no-renames", "-U0",
         "--end-of-options", ref, "--"], top
    )
    out: dict[Path, frozenset[int] | None] = {}
    for patched in PatchSet(diff):
        if patched.is_removed_file:
            continue
        lines = {ln.target_line_no for hunk in patched for ln in hunk if ln.is_added and ln.target_line_no}
        out[(top / patched.path).resolve()] = frozenset(lines)
    for rel in _git(["ls-files", "--others", "--exclude-standard", "-z"], top).split("\0"):
        if rel:
            out[(top / rel).resolve()] = None
    return out


def _git(args: list[str], cwd: Path) -> str:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise CheckError("--diff needs git on PATH") from None
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or ["git failed"])[0]
        raise CheckError(f"git {args[0] if args[0] != '-c' else args[2]}: {first}")
    return proc.stdout


def _on_changed_line(finding: Finding, lines: frozenset[int] | None) -> bool:
    """The finding's first line (where it is reported) was added or changed. Not its whole span:
    an ``if`` finding spans its body, and editing the body does not make the condition new."""
    return lines is None or finding.span.line in lines


# --------------------------------------------------------------------------- the command


def run_check(
    files: Sequence[Path],
    *,
    baseline: Baseline | None = None,
    baseline_dir: Path | None = None,
    diff_ref: str | None = None,
    cwd: Path | None = None,
    catalog: Catalog | None = None,
    jobs: int | None = None,
    skipped: Sequence[Skipped] = (),
) -> CheckResult:
    """Check ``files`` and keep the new findings.

    ``baseline``: findings to forgive (fingerprints computed with paths relative to
    ``baseline_dir``, default the current directory); ``diff_ref``: keep only findings on lines
    changed since that git ref; ``skipped``: files already left out while expanding the paths
    (:func:`expand_paths`), reported with the others. Raises :class:`CheckError` (git problems),
    ``ConfigError``, ``CatalogError``.
    """
    cwd = cwd or Path.cwd()
    anchor = (baseline_dir or cwd).resolve()
    collected = collect(files, cwd=cwd, catalog=catalog, jobs=jobs)
    changed = changed_lines(diff_ref, cwd) if diff_ref else None
    outside = 0
    candidates: list[CheckedFinding] = []
    for f, display, absolute, remedy in collected.findings:
        if changed is not None:
            key = absolute.resolve()
            # a notebook's diff lines are lines of its JSON, not of its joined code cells:
            # a changed notebook keeps all its findings (the baseline still forgives old ones)
            lines = None if key.suffix == ".ipynb" else changed.get(key)
            if key not in changed or not _on_changed_line(f, lines):
                outside += 1
                continue
        fp = fingerprint(replace(f, path=_anchor_rel(absolute.resolve(), anchor)))
        candidates.append(CheckedFinding(f, display, fp, remedy))
    baselined = 0
    if baseline is not None:
        new_fps, baselined = split_new([c.fingerprint for c in candidates], baseline)
        candidates = [c for c, is_new in zip(candidates, new_fps) if is_new]
    ordered = tuple(
        sorted(candidates, key=lambda c: (c.display_path, c.finding.span.line, c.finding.span.column, c.finding.code))
    )
    all_skipped = tuple(sorted({*collected.skipped, *skipped}, key=lambda s: (s.path, s.reason)))
    return CheckResult(
        new=ordered,
        files_checked=collected.files_checked,
        baselined=baselined,
        outside_diff=outside,
        accepted=collected.accepted,
        ignored=collected.ignored,
        skipped=all_skipped,
        rule_errors=collected.rule_errors,
        unchecked=tuple(s for s in all_skipped if _leaves_code_unchecked(s, cwd, changed)),
    )


def _leaves_code_unchecked(skip: Skipped, cwd: Path, changed: dict[Path, frozenset[int] | None] | None) -> bool:
    """A skip fails the gate when it left code unread (:func:`migrate_lens.discover.holds_unread_code`)
    and, with a diff, the file (or a file under the skipped folder) changed since the ref; a
    path that cannot be found again (an escaped non-UTF-8 name) counts as changed."""
    if not holds_unread_code(skip.reason):
        return False
    if changed is None:
        return True
    path = cwd / skip.path
    if not path.exists():
        return True
    real = path.resolve()
    return real in changed or any(real in p.parents for p in changed)


# --------------------------------------------------------------------------- output


def remedy_line(catalog: Catalog, code: str) -> str:
    """The remedy's first paragraph on one line (rule files hard-wrap it), "" if the code is
    not in ``catalog``."""
    rule = catalog.by_code().get(code)
    if rule is None:
        return ""
    first = rule.remedy.strip().split("\n\n", 1)[0]
    return " ".join(first.split())


def _summary(result: CheckResult, fail_on: str) -> str:
    failing = len(result.failing(fail_on))
    files = f"{result.files_checked} file{'s' if result.files_checked != 1 else ''}"
    if result.new:
        head = (
            f"{len(result.new)} new finding{'s' if len(result.new) != 1 else ''} in {files}"
            f" ({failing} at or above {fail_on})"
        )
    else:
        head = f"no new findings in {files}"
    extra = [
        f"{n} {label}"
        for n, label in (
            (result.baselined, "in the baseline"),
            (result.outside_diff, "not on changed lines"),
            (result.accepted, "accepted (fixme)"),
            (result.ignored, "ignored"),
            (len(result.skipped), "file skipped" if len(result.skipped) == 1 else "files skipped"),
        )
        if n
    ]
    line = "migrate-lens: " + head + (f"; {', '.join(extra)}" if extra else "") + "."
    if result.unchecked:
        n = len(result.unchecked)
        them = "them" if n != 1 else "it"
        line += (f" Failed: {n} file{'s' if n != 1 else ''} could not be checked (fix {them}, or list {them}"
                 f" under exclude in [tool.migrate-lens] to leave {them} out on purpose).")
    return line


def render_text(result: CheckResult, fail_on: str, out: IO[str]) -> None:
    """``path:line:col: CODE message`` (column 1-based), the remedy indented under it, then
    skipped files and a one-line summary."""
    p = printable  # names, messages and snippets come from the checked files: no raw escapes
    for c in result.new:
        f = c.finding
        out.write(f"{p(c.display_path)}:{f.span.line}:{f.span.column + 1}: {f.code} {p(f.message)}\n")
        if c.remedy:
            out.write(f"    remedy: {p(c.remedy)}\n")
    unchecked = set(result.unchecked)
    for s in result.skipped:
        out.write(f"{p(s.path)}: {'not checked' if s in unchecked else 'skipped'}: {p(s.reason)}\n")
    for path, err in result.rule_errors:
        out.write(f"{p(path)}: rule {err.code} failed: {p(err.message)}\n")
    out.write(_summary(result, fail_on) + "\n")


def _gh_data(text: str) -> str:
    # line breaks as the workflow-command escapes, then no other control character raw
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _gh_prop(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(result: CheckResult, fail_on: str, out: IO[str]) -> None:
    """GitHub Actions workflow commands: ``::error file=..,line=..,col=..,title=CODE::message``
    (``error`` at or above ``fail_on``, ``warning`` below, ``notice`` for info); the remedy is
    a second line of the message. Escaping per the workflow-commands documentation
    (https://docs.github.com/actions/reference/workflow-commands-for-github-actions)."""
    threshold = severity_rank(fail_on)
    for c in result.new:
        f = c.finding
        rank = severity_rank(f.severity)
        level = "error" if rank >= threshold else ("notice" if f.severity == "info" else "warning")
        props = ",".join(
            (
                f"file={_gh_prop(c.display_path)}",
                f"line={f.span.line}",
                f"col={f.span.column + 1}",
                f"endLine={f.span.end_line}",
                f"endColumn={f.span.end_column + 1}",
                f"title={_gh_prop(f.code)}",
            )
        )
        message = f.message + (f"\nRemedy: {c.remedy}" if c.remedy else "")
        out.write(f"::{level} {props}::{_gh_data(message)}\n")
    unchecked = set(result.unchecked)
    for s in result.skipped:
        kind = "error file={},title=not checked" if s in unchecked else "notice file={},title=skipped"
        out.write(f"::{kind.format(_gh_prop(s.path))}::{_gh_data(s.reason)}\n")
    for path, err in result.rule_errors:
        out.write(f"::warning file={_gh_prop(path)},title=rule {_gh_prop(err.code)} failed::{_gh_data(err.message)}\n")
    out.write(_summary(result, fail_on) + "\n")


def check_json(result: CheckResult, fail_on: str) -> dict[str, Any]:
    """The ``--format json`` document (deterministic; columns 1-based, end exclusive). ``failed``
    is the gate's outcome (:meth:`CheckResult.blocked`); a skipped file that left code unchecked
    has ``"blocking": true``."""
    threshold = severity_rank(fail_on)
    unchecked = set(result.unchecked)
    return {
        "version": 1,
        "fail_on": fail_on,
        "failed": result.blocked(fail_on),
        "findings": [
            {
                "path": c.display_path,
                "line": c.finding.span.line,
                "column": c.finding.span.column + 1,
                "end_line": c.finding.span.end_line,
                "end_column": c.finding.span.end_column + 1,
                "code": c.finding.code,
                "severity": c.finding.severity,
                "message": c.finding.message,
                "remedy": c.remedy,
                "symbol": c.finding.symbol,
                "context": c.finding.context,
                "snippet": c.finding.snippet,
                "fingerprint": c.fingerprint,
                "blocking": severity_rank(c.finding.severity) >= threshold,
            }
            for c in result.new
        ],
        "skipped": [{"path": s.path, "reason": s.reason, "blocking": s in unchecked} for s in result.skipped],
        "rule_errors": [{"path": p, "code": e.code, "message": e.message} for p, e in result.rule_errors],
        "summary": {
            "files_checked": result.files_checked,
            "new": len(result.new),
            "failing": len(result.failing(fail_on)),
            "baselined": result.baselined,
            "outside_diff": result.outside_diff,
            "accepted": result.accepted,
            "ignored": result.ignored,
            "skipped": len(result.skipped),
            "unchecked": len(result.unchecked),
        },
    }


def render_json(result: CheckResult, fail_on: str, out: IO[str]) -> None:
    """:func:`check_json` as indented, key-sorted JSON."""
    json.dump(check_json(result, fail_on), out, indent=2, sort_keys=True)
    out.write("\n")


Renderer = Callable[[CheckResult, str, IO[str]], None]
#: ``--format`` name -> renderer.
FORMATS: dict[str, Renderer] = {"text": render_text, "github": render_github, "json": render_json}


# --------------------------------------------------------------------------- baseline write


def make_baseline(
    paths: Sequence[Path],
    output: Path,
    *,
    cwd: Path | None = None,
    catalog: Catalog | None = None,
    jobs: int | None = None,
) -> tuple[Baseline, Collected]:
    """Today's findings under ``paths`` (files or directories, as for ``check``) as a baseline
    whose paths are relative to ``output``'s directory. Raises :class:`CheckError`,
    ``ConfigError``, ``CatalogError``."""
    cwd = cwd or Path.cwd()
    files, _ = expand_paths(paths, cwd)
    collected = collect(files, cwd=cwd, catalog=catalog, jobs=jobs)
    anchor = (output if output.is_absolute() else cwd / output).resolve().parent
    rows = []
    for f, _display_path, absolute, _remedy in collected.findings:
        rel = _anchor_rel(absolute.resolve(), anchor)
        rows.append((fingerprint(replace(f, path=rel)), f.code, rel, f.symbol, f.snippet))
    return build_baseline(rows), collected
