"""Click commands ``check`` and ``baseline write`` (added to the main group in :mod:`migrate_lens.cli`).

Kept apart from the main CLI module so the pre-commit path imports only what it needs: no
networkx, jinja2, rich or report code (a test runs ``check`` in a subprocess and inspects
``sys.modules``). The heavy lifting is in :mod:`migrate_lens.check`.

Exit codes of ``check``: 0 no new finding at or above ``--fail-on`` and every file checked; 1
there is one, or a file could not be checked (syntax error, undecodable, nesting too deep, too
large, unreadable: a gate that cannot read a file cannot pass it); 2 usage error (bad option,
missing file, bad config or baseline, unknown git ref).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, TypeVar

import click

from migrate_lens.baseline import DEFAULT_BASELINE_NAME
from migrate_lens.models import BLOCKING_SEVERITIES, SEVERITIES, severity_rank

T = TypeVar("T")

#: Default ``--fail-on``: the lowest blocking severity (``high``).
DEFAULT_FAIL_ON: str = min(BLOCKING_SEVERITIES, key=severity_rank)


class UsageProblem(click.ClickException):
    """A bad config, rule folder, baseline or git ref: one line ``migrate-lens: error: ...`` on
    stderr (as the main CLI prints its errors), exit code 2."""

    exit_code = 2

    def show(self, file: IO[Any] | None = None) -> None:
        from migrate_lens.safetext import printable

        click.echo(f"migrate-lens: error: {printable(self.format_message())}", err=True)


def _run_guarded(fn: Callable[[], T]) -> T:
    """Call ``fn()`` turning the check's own usage errors into exit code 2."""
    from migrate_lens.baseline import BaselineError
    from migrate_lens.catalog import CatalogError
    from migrate_lens.check import CheckError
    from migrate_lens.config import ConfigError

    try:
        return fn()
    except (BaselineError, CatalogError, CheckError, ConfigError) as exc:
        raise UsageProblem(str(exc)) from None


@click.command("check")
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "github", "json"]),
    default="text",
    show_default=True,
    help="text: path:line:col: CODE message and the remedy; github: workflow annotations; json.",
)
@click.option(
    "--fail-on",
    type=click.Choice(SEVERITIES),
    default=DEFAULT_FAIL_ON,
    show_default=True,
    help="Exit 1 when a new finding has this severity or a higher one.",
)
@click.option(
    "--baseline",
    "baseline_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help=f"Report only findings not recorded in this baseline. Default: {DEFAULT_BASELINE_NAME} in the "
    "current directory or above (up to the project root), if present.",
)
@click.option("--no-baseline", is_flag=True, help="Ignore any baseline file.")
@click.option("--diff", "diff_ref", metavar="REF", help="Report only findings on lines added or changed since git REF.")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes when checking many files (default: all CPUs; 1 = no pool).",
)
def check(
    files: tuple[Path, ...],
    fmt: str,
    fail_on: str,
    baseline_file: Path | None,
    no_baseline: bool,
    diff_ref: str | None,
    jobs: int | None,
) -> None:
    """Check FILES (default: the current directory) for new JAX-hostile code.

    Per-file rules only (fast enough for a pre-commit hook); non-Python files are ignored.
    Config comes from the nearest pyproject.toml; suppression comments apply as in `scan`.

    Exit codes: 0 clean; 1 a new finding at or above --fail-on, or a file that could not be
    checked (syntax error such as Python 2 code, undecodable bytes, nesting too deep, too
    large, unreadable: printed as "not checked"; with --diff only files changed since REF);
    2 usage error. Exclude a file on purpose with exclude in [tool.migrate-lens].
    """
    from migrate_lens.baseline import read_baseline
    from migrate_lens.check import FORMATS, default_baseline_path, expand_paths, run_check

    if baseline_file is not None and no_baseline:
        raise click.UsageError("--baseline and --no-baseline exclude each other")

    def run() -> int:
        nonlocal fmt, fail_on, baseline_file, no_baseline, diff_ref, jobs
        cwd = Path.cwd()
        # The pre-commit hook's entry ends option parsing (`migrate-lens check --`), so its
        # options come from [tool.migrate-lens.check]; an option given here wins.
        fmt, fail_on, baseline_file, no_baseline, diff_ref, jobs = _check_defaults(
            cwd, fmt=fmt, fail_on=fail_on, baseline_file=baseline_file, no_baseline=no_baseline,
            diff_ref=diff_ref, jobs=jobs)
        targets, discovered_skips = expand_paths(list(files), cwd)
        bl_path = None if no_baseline else (baseline_file or default_baseline_path(cwd))
        baseline = read_baseline(bl_path) if bl_path is not None else None
        result = run_check(
            targets,
            baseline=baseline,
            baseline_dir=bl_path.resolve().parent if bl_path is not None else cwd,
            diff_ref=diff_ref,
            cwd=cwd,
            jobs=jobs,
            skipped=discovered_skips,
        )
        buf = io.StringIO()
        FORMATS[fmt](result, fail_on, buf)
        click.echo(buf.getvalue(), nl=False)
        return 1 if result.blocked(fail_on) else 0

    click.get_current_context().exit(_run_guarded(run))


def _check_defaults(cwd: Path, **given: Any) -> tuple[Any, ...]:
    """``check``'s options: each one left at its default takes the value of the current
    project's ``[tool.migrate-lens.check]`` table (``config.Config.check_*``), if set. Returns
    (format, fail_on, baseline_file, no_baseline, diff_ref, jobs). Raises ``ConfigError``."""
    from click.core import ParameterSource

    from migrate_lens.config import load_config

    ctx = click.get_current_context()
    config = load_config(cwd)
    params = {"fmt": "check_format", "fail_on": "check_fail_on", "baseline_file": "check_baseline",
              "no_baseline": "check_no_baseline", "diff_ref": "check_diff", "jobs": "check_jobs"}
    out = dict(given)
    for param, field_name in params.items():
        value = getattr(config, field_name)
        if value and ctx.get_parameter_source(param) in (ParameterSource.DEFAULT, None):
            out[param] = Path(value) if param == "baseline_file" else value
    if given["baseline_file"] is not None or given["no_baseline"]:
        # a baseline choice on the command line replaces the config's whole choice
        out["baseline_file"], out["no_baseline"] = given["baseline_file"], given["no_baseline"]
    chosen = out["baseline_file"]
    if chosen is not None and not out["no_baseline"] and not Path(chosen).is_file():
        what = "not a regular file" if Path(chosen).exists() else "baseline file not found"
        where = "" if given["baseline_file"] is not None else " (tool.migrate-lens.check.baseline)"
        raise UsageProblem(f"{chosen}: {what}{where}")
    return out["fmt"], out["fail_on"], out["baseline_file"], out["no_baseline"], out["diff_ref"], out["jobs"]


@click.group("baseline")
def baseline() -> None:
    """Record today's findings so that `check` reports only new ones."""


@baseline.command("write")
@click.argument("path", default=".", type=click.Path(exists=True, path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path(DEFAULT_BASELINE_NAME),
    show_default=True,
    help="Baseline file to write (paths inside are relative to its directory).",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes when checking many files (default: all CPUs; 1 = no pool).",
)
def baseline_write(path: Path, output: Path, jobs: int | None) -> None:
    """Write the findings under PATH (default: the current directory) to a baseline file.

    Fingerprints ignore line numbers (code, path, enclosing symbol, normalized source), so code
    moving down a file stays baselined; counts make a copied line new.
    """
    from migrate_lens.baseline import write_baseline
    from migrate_lens.check import make_baseline

    def run() -> None:
        baseline, collected = make_baseline([path], output, cwd=Path.cwd(), jobs=jobs)
        try:
            write_baseline(baseline, output)
        except OSError as exc:
            raise UsageProblem(f"{output}: cannot write ({exc.strerror})") from None  # printed escaped
        from migrate_lens.safetext import printable

        click.echo(
            f"migrate-lens: wrote {baseline.total} finding{'s' if baseline.total != 1 else ''} "
            f"({len(baseline.entries)} fingerprints) from {collected.files_checked} files to {printable(output)}"
        )
        for s in collected.skipped:
            click.echo(f"{printable(s.path)}: skipped: {printable(s.reason)}", err=True)

    _run_guarded(run)
