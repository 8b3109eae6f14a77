"""The ``probe`` command, and the merge of probe results into a scan's view.

Heavy imports (torch) happen inside the command, after the warning.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click


class ProbeResultsError(Exception):
    """A ``probe.json`` file cannot be read or is not probe results."""


def load_probe_results(path: Path) -> dict[str, Any]:
    """Read ``probe.json``; raises :class:`ProbeResultsError` when unreadable or malformed."""
    from migrate_lens.jsonfile import JsonFileError, parse_json

    from migrate_lens.discover import read_input_file

    try:
        data = parse_json(read_input_file(path))
    except OSError as exc:
        raise ProbeResultsError(f"{path}: {exc.strerror or exc}") from None
    except JsonFileError as exc:
        raise ProbeResultsError(f"{path}: not probe results: {exc}") from None
    problem = probe_results_problem(data)
    if problem:
        raise ProbeResultsError(f"{path}: not probe results (expected the probe.json of `migrate-lens probe`): {problem}")
    return data


def probe_results_problem(data: Any) -> str:
    """Why ``data`` (parsed JSON) is not the ``probe.json`` document the cross-check and the
    report read, or "" when it is: every field they read has the type ``probe`` writes
    (checked with msgspec: ``Expected `int`, got `str` - at `$.facts[0].line```), every fact
    kind is one of :data:`migrate_lens.probe.kinds.KINDS` and every category one of the
    catalog's. A hand-edited or foreign file gets this one line instead of a traceback."""
    import msgspec

    from migrate_lens.models import CATEGORIES
    from migrate_lens.probe.kinds import KINDS
    from migrate_lens.probe.resultfile import ProbeResults

    try:
        doc = msgspec.convert(data, ProbeResults)
    except msgspec.ValidationError as exc:
        return str(exc)
    for i, fact in enumerate(doc.facts):
        if fact.kind not in KINDS:
            return f"unknown fact kind {fact.kind!r} - at `$.facts[{i}].kind`"
        if fact.category not in CATEGORIES:
            return f"unknown category {fact.category!r} - at `$.facts[{i}].category`"
    return ""


def attach(view: dict[str, Any], results: dict[str, Any]) -> dict[str, Any]:
    """Add the cross-checked ``probe`` section to ``view`` (in place; returned)."""
    from migrate_lens.probe.crosscheck import crosscheck

    view["probe"] = crosscheck(view, results)
    return view


def _update_report(out_dir: Path, results: dict[str, Any]) -> list[Path]:
    """When ``out_dir`` holds a scan (report.json), add the probe section and rewrite the report
    formats found there. Returns the written paths ([] when there is no scan)."""
    report = out_dir / "report.json"
    if not report.is_file():
        return []
    from migrate_lens.jsonfile import JsonFileError, parse_json
    from migrate_lens.report import render_all

    from migrate_lens.discover import read_input_file

    try:
        view = parse_json(read_input_file(report))
    except OSError as exc:
        raise ProbeResultsError(f"{report}: cannot read ({exc.strerror}); probe.json is written, the report is "
                                "left as it is") from None
    except JsonFileError as exc:
        raise ProbeResultsError(f"{report}: not a migrate-lens report.json ({exc}); probe.json is written, "
                                "the report is left as it is (scan again with --probe-results)") from None
    if not isinstance(view, dict) or not isinstance(view.get("findings"), list) \
            or not isinstance(view.get("modules"), list) or not isinstance(view.get("root"), str):
        raise ProbeResultsError(f"{report}: not a migrate-lens report.json; probe.json is written, "
                                "the report is left as it is (scan again with --probe-results)")
    # the view as the scan built it: a folded hazard's own entry (``folded_into``) is written
    # out again by the JSON and SARIF renderers from its finding's ``folds``
    view["findings"] = [{k: v for k, v in f.items() if k != "folded_into"} if isinstance(f, dict) else f
                        for f in view["findings"] if not (isinstance(f, dict) and f.get("folded_into"))]
    view = attach(view, results)
    formats = [f for f, name in (("html", "report.html"), ("json", "report.json"), ("sarif", "report.sarif"),
                                 ("md", "report.md")) if (out_dir / name).is_file()]
    return render_all(view, out_dir, formats)


@click.command("probe")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--recipe", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Python file whose examples() yields (name, nn.Module, args tuple).")
@click.option("--out", "-o", "out_dir", type=click.Path(path_type=Path), default=Path("migrate-lens-report"),
              show_default=True, help="Writes DIR/probe.json; a scan's report there gets the probe section.")
@click.option("--train", is_flag=True, help="Also run each example in train mode.")
@click.option("--no-dynamo", is_flag=True, help="Skip torch._dynamo.explain (graph breaks).")
@click.option("--no-export", is_flag=True, help="Skip torch.export.export(strict=False) (data-dependent guards).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0, max=86_400), default=600, show_default=True,
              help="Seconds one run of an example (eager, dynamo, export) may take; 0: no limit. A run over it is "
                   "reported as failed and the others go on.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation before running user code.")
def probe(path: Path, recipe: Path, out_dir: Path, train: bool, no_dynamo: bool, no_export: bool, timeout_s: float,
          yes: bool) -> None:
    """Run PATH's model on the recipe's examples and record what happens: IMPORTS AND RUNS CODE.

    Each fact (in-place writes, random ops, data-dependent shapes, host syncs, custom ops, device
    transfers, graph breaks, export guards, module state and attribute writes, hooks) is placed
    at the innermost source line inside PATH. Writes OUT/probe.json; merge it into a scan with
    `scan --probe-results OUT/probe.json` (done here when OUT already holds report.json).
    """
    from migrate_lens.cli import fail
    from migrate_lens.probe import WARNING

    click.secho(f"WARNING: {WARNING}", fg="red", bold=True, err=True)
    if not yes:
        click.confirm("Import and run this code?", abort=True, err=True)
    from migrate_lens.probe.runner import RecipeError
    from migrate_lens.probe.runner import probe as run_probe

    try:
        import torch  # noqa: F401 - the probe runs the model with it
    except ImportError as exc:  # (any failure to import it: absent, or a broken install)
        raise fail(f"probe needs PyTorch, which cannot be imported here ({exc}); install the `verify` extra "
                   "(pip install 'migrate-lens[verify]') in the environment that runs your model") from None

    from migrate_lens.report._files import atomic_write, written_by_us

    target = out_dir / "probe.json"
    if (target.exists() or target.is_symlink()) and not written_by_us(target):  # checked before any user code runs
        raise fail(f"{target} exists and was not written by migrate-lens; not replaced (choose another --out)")
    try:
        results = run_probe(path, recipe, train=train, dynamo=not no_dynamo, export=not no_export, timeout_s=timeout_s)
    except RecipeError as exc:
        raise fail(str(exc)) from None
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        with atomic_write(target) as fh:  # a full disk or a kill keeps the previous probe.json
            fh.write(json.dumps(results, indent=1, sort_keys=True) + "\n")
        written = [target, *_update_report(out_dir, results)]
    except OSError as exc:
        raise fail(f"cannot write to {out_dir}: {exc.strerror or exc}") from None
    except ProbeResultsError as exc:
        raise fail(str(exc)) from None
    errors = [e for e in results["examples"] if e["status"] != "ok"]
    click.echo(f"{len(results['facts'])} runtime fact(s) from {len(results['examples'])} run(s)"
               f"{f', {len(errors)} failed' if errors else ''}")
    for e in errors:
        click.echo(f"  {e['name']} ({e['mode']}): {e['error']}", err=True)
    for p in written:
        click.echo(f"wrote {p}")
