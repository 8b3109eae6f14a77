"""The ``migrate-lens`` command line (click).

Exit codes: 0 done; 1 findings at or above ``--fail-on``; 2 usage or I/O error (one line on
stderr). Heavy modules are imported inside commands so ``check`` stays fast.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Any

import click

from migrate_lens import __version__
from migrate_lens.models import SEVERITIES

FORMAT_NAMES = ("html", "json", "sarif", "md")


def fail(message: str) -> "click.exceptions.Exit":
    """Print ``migrate-lens: error: <message>`` on stderr and exit with status 2."""
    from migrate_lens.safetext import printable

    click.echo(f"migrate-lens: error: {printable(message)}", err=True)
    return click.exceptions.Exit(2)


def _formats(value: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(v.strip().lower() for v in value.split(",") if v.strip()))
    bad = [n for n in names if n not in FORMAT_NAMES]
    if bad or not names:
        raise click.BadParameter(f"unknown format {', '.join(bad) or '(none)'}; choose from {', '.join(FORMAT_NAMES)}")
    return names


class _LazyGroup(click.Group):
    """A click group whose commands in ``lazy`` (name -> ``"module:attribute"``) are imported
    only when used or listed: ``scan`` never loads the stub generator (libcst, nbformat, ...),
    about 0.5 s of every scan. click's documented pattern ("Lazily Loading Subcommands")."""

    def __init__(self, *args: Any, lazy: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; Ctrl-C stops the helper processes at once and exits 130 with one
        line (:func:`_interrupted`)."""
        _watch_interrupts()
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            raise _interrupted(str(exc)) from None

    def list_commands(self, ctx: click.Context | None) -> list[str]:  # type: ignore[override]
        return sorted({*super().list_commands(ctx), *self.lazy})  # type: ignore[arg-type]

    def get_command(self, ctx: click.Context | None, name: str) -> click.Command | None:  # type: ignore[override]
        if name in self.lazy and name not in self.commands:
            import importlib

            module, attr = self.lazy[name].split(":")
            self.add_command(getattr(importlib.import_module(module), attr), name)
        return super().get_command(ctx, name)  # type: ignore[arg-type]


_MAIN_PID: list[int] = []
#: The stop signal the main process received (SIGINT or SIGTERM), for the exit status.
_STOPPED_BY: list[int] = []


def _on_sigint(signum: int, frame: Any) -> None:
    """SIGINT (Ctrl-C) or SIGTERM (``kill``, ``timeout``, a cancelled CI job) in the main
    process raises ``KeyboardInterrupt``, so the same clean stop runs for both: the workers are
    stopped at once and the finished files cached (SIGTERM used to kill the main process alone:
    its pool workers ran on, orphaned, and nothing was cached). A forked helper (pool worker,
    chart drawer, report writer: they inherit this handler) ends at once and quietly, since its
    parent stops too (a terminal's Ctrl-C reaches the whole process group)."""
    import os

    if _MAIN_PID and os.getpid() != _MAIN_PID[0]:
        os._exit(128 + signum)
    _STOPPED_BY[:] = [signum]
    raise KeyboardInterrupt


def _watch_interrupts() -> None:
    """Install :func:`_on_sigint` for SIGINT and SIGTERM (each only when not ignored: SIGINT is
    ignored in a shell's background job)."""
    import os
    import signal

    _MAIN_PID[:] = [os.getpid()]
    _STOPPED_BY.clear()
    for signum in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, _on_sigint)


def _interrupted(detail: str = "") -> "click.exceptions.Exit":
    """After Ctrl-C: kill every helper child still running (pool workers are stopped by the
    pipeline; the chart drawer and report writer here), print ``migrate-lens: interrupted``
    (with ``detail``, what was kept: :class:`migrate_lens.pipeline.ScanInterrupted`) and exit
    with 130 (128 + SIGINT, the shell convention)."""
    import multiprocessing

    for child in multiprocessing.active_children():
        child.kill()
    for child in multiprocessing.active_children():
        child.join(timeout=2)
    import signal

    signum = _STOPPED_BY[0] if _STOPPED_BY else signal.SIGINT
    what = "terminated (SIGTERM)" if signum == signal.SIGTERM else "interrupted"
    click.echo(f"migrate-lens: {what}{'; ' + detail if detail else ''}", err=True)
    return click.exceptions.Exit(128 + signum)


#: Commands defined in their own small CLI modules, loaded on use.
LAZY_COMMANDS = {
    "check": "migrate_lens.check_cli:check",
    "baseline": "migrate_lens.check_cli:baseline",
    "stubs": "migrate_lens.stubs.cli:stubs",
    "verify": "migrate_lens.stubs.cli:verify",
    "probe": "migrate_lens.probe.cli:probe",
}


@click.group(cls=_LazyGroup, lazy=LAZY_COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="migrate-lens")
def main() -> None:
    """Assess what it takes to move a PyTorch codebase to JAX/Flax, statically.

    The scanner parses code with libcst and never imports or runs it.
    """


@main.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--out", "-o", "out_dir", type=click.Path(path_type=Path), default=Path("migrate-lens-report"),
              show_default=True, help="Directory the reports are written to. The only other write is the cache: per-file facts and drawn charts (see --cache-dir, --no-cache).")
@click.option("--format", "formats", default="html,json", show_default=True,
              help="Comma-separated output formats: html, json, sarif, md.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Worker processes (default: all cores).")
@click.option("--fail-on", type=click.Choice(SEVERITIES), default=None,
              help="Exit with status 1 when a finding has this severity or worse.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the per-file cache.")
@click.option("--cache-dir", type=click.Path(path_type=Path), default=None, help="Cache folder (default: the user cache dir).")
@click.option("--graphml", is_flag=True, help="Also write the dependency graph as graph.graphml.")
@click.option("--team-experience", type=click.Choice(["none", "some", "expert"]), default=None, help="Team JAX experience.")
@click.option("--team-size", type=click.IntRange(min=1), default=None, help="Engineers on the port (calendar weeks).")
@click.option("--day-rate", type=click.FloatRange(min=0, max=1e9), default=None, help="Cost of one person-day.")
@click.option("--monthly-spend", type=click.FloatRange(min=0, max=1e15), default=None, help="Accelerator spend per month.")
@click.option("--saving", type=str, default=None, help="Expected compute saving range, e.g. 0.2-0.4.")
@click.option("--probe-results", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="probe.json of an earlier `migrate-lens probe`: cross-check it against this scan.")
@click.option("--entry", "entries", multiple=True, metavar="PKG.MOD:NAME",
              help="Entry point the team runs (class or function; repeatable): the estimate covers what it reaches.")
@click.option("--currency", type=str, default=None, help="Currency label of --day-rate and --monthly-spend, e.g. EUR.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
def scan(path: Path, out_dir: Path, formats: str, jobs: int | None, fail_on: str | None, no_cache: bool,
         cache_dir: Path | None, graphml: bool, team_experience: str | None, team_size: int | None,
         day_rate: float | None, monthly_spend: float | None, saving: str | None, probe_results: Path | None,
         entries: tuple[str, ...], currency: str | None, quiet: bool) -> None:
    """Scan PATH and write the migration report."""
    from migrate_lens.catalog import CatalogError
    from migrate_lens.config import ConfigError, load_config
    from migrate_lens.gctools import gc_paused
    from migrate_lens.pipeline import scan as run_scan
    from migrate_lens.scope import EntryError
    from migrate_lens.report import render_all
    from migrate_lens.report.view import build_view

    try:
        fmt_names = _formats(formats)
    except click.BadParameter as exc:
        raise click.UsageError(str(exc)) from None
    if not path.exists():
        raise fail(f"{path}: no such file or directory")
    from migrate_lens.safetext import is_utf8_name

    if not is_utf8_name(str(path.resolve())):  # the report names its root: it must be text
        raise fail(f"{path}: the path is not valid UTF-8 (shown with \\x escapes); rename or move it to scan it")
    probe_data = None
    if probe_results is not None:
        from migrate_lens.probe.cli import ProbeResultsError, load_probe_results

        try:
            probe_data = load_probe_results(probe_results)
        except ProbeResultsError as exc:
            raise fail(str(exc)) from None
    saving_low = saving_high = None
    if saving is not None:
        saving_low, saving_high = _saving_range(saving)
    if currency is not None:
        from migrate_lens.config import currency_problem

        if currency_problem(currency):  # as the config's currency key: no control characters in the reports
            raise fail(f"--currency: {currency_problem(currency)}")
    for option, value in (("--day-rate", day_rate), ("--monthly-spend", monthly_spend)):
        if value is not None and not math.isfinite(value):
            raise fail(f"{option}: must be a finite number, not {value}")
    try:
        config = load_config(path.resolve()).with_overrides(
            team_experience=team_experience, team_size=team_size, day_rate=day_rate, monthly_spend=monthly_spend,
            saving_low=saving_low, saving_high=saving_high, entries=entries or None, currency=currency,
        )
    except ConfigError as exc:
        raise fail(str(exc)) from None
    files_done = None
    if "html" in fmt_names:
        from migrate_lens.cache import default_cache_dir
        from migrate_lens.report import chartset

        chartset.use_memo(None if no_cache else (cache_dir or default_cache_dir()) / "charts")

        def files_done(analyzed: int) -> None:
            # The chart set is drawn on the core the pool leaves free (report/chartproc.py) unless
            # the memo will likely hold it: nothing changed since a scan that drew it
            if analyzed or no_cache:
                chartset.start_helper()
    progress = None
    if not quiet:  # (--quiet prints nothing: the console library is not even loaded, 20-180 ms)
        from rich.console import Console

        console = Console(stderr=True)
        progress = _progress(console)
    # allocation-heavy and short-lived: the cyclic GC only rescans live data (migrate_lens/gctools.py)
    with gc_paused():
        try:
            try:
                result = run_scan(path, config, jobs=jobs, cache_dir=cache_dir, use_cache=not no_cache,
                                  progress=progress.update if progress else None, on_files_done=files_done)
            except (CatalogError, ConfigError, EntryError) as exc:
                raise fail(str(exc)) from None
            finally:
                if progress:
                    progress.close()
            view = build_view(result)
            if probe_data is not None:
                from migrate_lens.probe.cli import attach

                attach(view, probe_data)
            if files_done is not None:
                chartset.prefetch(view)  # drawn by the helper while report.json is written
            warnings = result.warnings
            try:
                from migrate_lens.report._files import atomic_write, output_set

                out_dir.mkdir(parents=True, exist_ok=True)
                written = []
                # the set of outputs replaces the previous set together, once every file is complete
                with output_set(out_dir):
                    if graphml:
                        from migrate_lens.graph import write_graphml

                        target = out_dir / "graph.graphml"
                        with atomic_write(target, binary=True) as fh:
                            write_graphml(result.project, fh)
                        written.append(target)
                    # The renderers read only the view: free the project graph and per-file facts first
                    # (on a 5M-line tree they are about half of the memory the renderers would add to).
                    # Plain data without reference cycles: freed here although the GC is paused.
                    del result
                    written[:0] = render_all(view, out_dir, fmt_names)
            except OSError as exc:
                raise fail(f"cannot write report to {out_dir}: {exc.strerror or exc}") from None
        finally:
            if files_done is not None:
                chartset.stop_helper()
        if not quiet:
            from migrate_lens.report.terminal import render as render_terminal

            out = Console()
            render_terminal(view, out)
            from rich.text import Text

            from migrate_lens.safetext import printable

            # names and paths are never console markup (`o[/x]`) nor raw control characters
            for w in warnings:
                console.print(Text.assemble(("warning:", "yellow"), " ", printable(w)), highlight=False, soft_wrap=True)
            for p in written:
                out.print(Text(f"wrote {printable(p)}"), highlight=False, soft_wrap=True)
        failing = 0
        if fail_on is not None:
            floor = SEVERITIES.index(fail_on)
            failing = sum(1 for f in view["findings"] if SEVERITIES.index(f["severity"]) >= floor and f["suppressed"] != "fixme")
        # Freed while the collector is still paused: the view is most of the objects left (700k on
        # core), and the first collection once it runs again would traverse them all (0.3-1.5 s)
        del view
    if failing:
        click.echo(f"migrate-lens: {failing} finding(s) at or above --fail-on {fail_on}", err=True)
        sys.exit(1)


_FRACTION = r"\s*(\d+(?:\.\d*)?|\.\d+)\s*"


def _saving_range(text: str) -> tuple[float, float]:
    """``--saving LOW-HIGH`` (or one fraction) as two fractions with 0 <= LOW <= HIGH <= 1.
    Raises ``click.exceptions.Exit`` (a one-line error naming the option) otherwise: ``5-9``
    would otherwise report a gain of five to nine times the whole compute bill."""
    import re

    match = re.fullmatch(f"{_FRACTION}(?:-{_FRACTION})?", text)
    if match is None:
        raise fail(f"--saving: expected LOW-HIGH fractions from 0 to 1 like 0.2-0.4, got {text!r}")
    low = float(match.group(1))
    high = float(match.group(2) or match.group(1))
    if high > 1:
        raise fail(f"--saving: {text!r} is above 1: the range is a fraction of the compute bill "
                   f"(20-40 % is 0.2-0.4)")
    if low > high:
        raise fail(f"--saving: {text!r} is reversed (LOW-HIGH, e.g. {high:g}-{low:g})")
    return low, high


class _progress:
    """A rich progress bar shown only on a terminal and only once a scan passes one second."""

    def __init__(self, console: Any) -> None:
        self.console = console
        self.started = time.monotonic()
        self.bar: Any = None
        self.task: Any = None

    def update(self, done: int, total: int) -> None:
        if self.bar is None:
            if not self.console.is_terminal or time.monotonic() - self.started < 1.0:
                return
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

            self.bar = Progress("analyzing files", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                console=self.console, transient=True)
            self.bar.start()
            self.task = self.bar.add_task("scan", total=total)
        self.bar.update(self.task, completed=done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


@main.command("rules")
def rules_cmd() -> None:
    """List the rule catalog."""
    from rich.console import Console
    from rich.table import Table

    from migrate_lens.catalog import load_catalog
    from migrate_lens.rulesdoc import list_rules

    rows = sorted(list_rules(load_catalog()), key=lambda r: int(r[0][2:]))
    table = Table("code", "name", "category", "severity", "porting", title="migrate-lens rules")
    for row in rows:
        table.add_row(*row[:5])
    Console(width=None if sys.stdout.isatty() else 160).print(table)


@main.command()
@click.argument("code")
def explain(code: str) -> None:
    """Print one rule's documentation: why it blocks JAX, the remedy, examples.

    Example: ``migrate-lens explain ML101``.
    """
    from migrate_lens.catalog import load_catalog
    from migrate_lens.rulesdoc import explain_rule

    catalog = load_catalog()
    rule = catalog.by_code().get(code.upper())
    if rule is None:
        raise fail(f"unknown rule {code!r}; `migrate-lens rules` lists them")
    click.echo(explain_rule(rule, catalog))



if __name__ == "__main__":
    main()
