"""Click commands ``stubs`` and ``verify`` (the lead adds them to the ``migrate-lens`` group with
``main.add_command(stubs)`` / ``main.add_command(verify)``). torch and JAX are imported lazily,
only inside ``verify``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from migrate_lens.stubs.generate import generate_stubs
from migrate_lens.stubs.targets import StubTarget, discover_targets, module_classes, not_selected, select_targets
from migrate_lens.stubs.verify import BF16_TOLERANCE


class StubsError(click.ClickException):
    """A one-line ``migrate-lens: error: ...`` on stderr and exit status 2 (usage or I/O)."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        from migrate_lens.safetext import printable

        click.echo(f"migrate-lens: error: {printable(self.format_message())}", err=True)


#: (targets, modules left out with their reason, qualnames of every nn.Module class)
Selection = tuple[list[StubTarget], list[StubTarget], set[str] | None]


def _select(view: dict[str, Any]) -> Selection:
    return select_targets(view), not_selected(view), module_classes(view)


def _targets_from_pipeline(root: Path) -> Selection:
    """Targets from a scan of ``root``: its pure, mechanical and redesign nn.Modules (the
    project graph decides across files)."""
    from migrate_lens.config import ConfigError, load_config
    from migrate_lens.pipeline import scan
    from migrate_lens.report.view import build_view

    try:
        config = load_config(root.resolve())
    except ConfigError as exc:
        raise StubsError(str(exc)) from None
    return _select(build_view(scan(root, config)))


def _targets_from_report(report_path: Path, root: Path) -> Selection:
    """Targets from a saved report.json; one-line errors for a file that is not a report or
    that describes another tree."""
    from migrate_lens.jsonfile import JsonFileError, parse_json

    from migrate_lens.discover import read_input_file

    try:
        view = parse_json(read_input_file(report_path))
    except OSError as exc:
        raise StubsError(f"{report_path}: cannot read ({exc.strerror})") from None
    except JsonFileError as exc:
        raise StubsError(f"{report_path}: not a migrate-lens report.json ({exc})") from None
    if not isinstance(view, dict) or not isinstance(view.get("modules"), list):
        raise StubsError(f"{report_path}: not a migrate-lens report.json (no 'modules' list)")
    targets, skipped, classes = _select(view)
    from migrate_lens.stubs.generate import confined

    for t in targets:  # module paths are untrusted: every read and write stays inside its root
        try:
            confined(root, t.path)
        except ValueError as exc:
            raise StubsError(f"{report_path}: module {t.qualname!r}: {exc}; refused") from None
    missing = sorted({t.path for t in targets if not (root / t.path).is_file()})
    if missing:
        raise StubsError(
            f"{report_path}: describes another tree ({missing[0]} is not under {root}); scan {root} first")
    return targets, skipped, classes


def _verdict(f: Any) -> str:
    """One honest word for a stub file: it does not compile, it cannot run as written
    (placeholders for untranslated names), it needs review (TODOs), or it is ready."""
    if not f.compiles:
        return f"DOES NOT COMPILE: {f.error}"
    if f.placeholders:
        names = ", ".join(f.placeholders[:4]) + (", ..." if len(f.placeholders) > 4 else "")
        return f"CANNOT RUN AS IS: untranslated names {names}"
    if f.todos:
        return "compiles; review the TODOs"
    return "ready"


@click.command("stubs")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--out", "out_dir", required=True, type=click.Path(path_type=Path),
              help="Directory for the generated stubs (mirrors the package layout).")
@click.option("--report", "report_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A report.json: translate its pure and mechanical nn.Modules.")
@click.option("--discover", is_flag=True,
              help="Translate every nn.Module subclass found by a syntax scan (no purity check).")
@click.option("--json", "as_json", is_flag=True, help="Print the per-file results as JSON.")
def stubs(path: Path, out_dir: Path, report_path: Path | None, discover: bool, as_json: bool) -> None:
    """Generate Flax NNX stubs (with weight converters) for the pure nn.Modules under PATH.

    Never imports the scanned code. Targets come from --report, else from the scan pipeline, else
    (--discover) from a syntax scan of nn.Module subclasses.
    """
    skipped: list[StubTarget] = []
    unread: list[tuple[str, str]] = []  # (path, reason) of files --discover could not read or parse
    classes: set[str] | None = None
    if report_path is not None:
        targets, skipped, classes = _targets_from_report(report_path, path if path.is_dir() else path.parent)
    elif discover:
        targets = discover_targets(path, unread)
    else:
        targets, skipped, classes = _targets_from_pipeline(path)
    try:
        files = generate_stubs(path, targets, out_dir, module_classes=classes)
    except ValueError as exc:  # a stub path out of -o, or a file there that is not a stub
        raise StubsError(str(exc)) from None
    except OSError as exc:
        raise StubsError(f"cannot write stubs to {out_dir}: {exc.strerror or exc}") from None
    missing = [m for f in files for m in f.modules if not m.generated]
    if as_json:
        click.echo(json.dumps({
            "files": [f.as_dict() for f in files],
            "not_translated": [{"module": t.qualname, "path": t.path, "status": t.status, "reason": t.reason}
                               for t in skipped] + [
                {"module": m.qualname, "path": m.source_path, "status": m.status,
                 "reason": f.error or "class not found in the source"} for f in files for m in f.modules
                if not m.generated],
            "unread_files": [{"path": p, "reason": r} for p, r in unread]}, indent=2, sort_keys=True))
        return
    from migrate_lens.safetext import printable

    for f in files:
        click.echo(printable(f"{f.stub_path}: {len(f.modules)} module(s), {len(f.todos)} TODO(s), {_verdict(f)}"))
        for m in f.modules:
            if m.status == "redesign" and m.generated:
                click.echo(printable(f"  {m.class_name}: redesign ({m.reason or 'see the report'}); "
                                     f"{m.todo_count} TODO(s)"))
    for t in skipped:
        click.echo(printable(f"not translated: {t.qualname} ({t.path}): {t.status}: {t.reason or 'no reason given'}"))
    for m in missing:
        click.echo(printable(f"not translated: {m.qualname} ({m.source_path}): class not found or file unreadable"))
    for rel, reason in unread:
        click.echo(printable(f"not read: {rel}: {reason}"))
    total = sum(len(f.modules) for f in files)
    ready = sum(1 for f in files if _verdict(f) == "ready")
    click.echo(printable(f"{total} module(s) in {len(files)} file(s) -> {out_dir}; {ready} file(s) ready, "
                         f"{len(skipped) + len(missing)} module(s) not translated"))


def _json_object(text: str, what: str) -> dict[str, Any]:
    from migrate_lens.jsonfile import JsonFileError, parse_json

    try:
        value = parse_json(text)
    except JsonFileError as exc:
        raise click.BadParameter(f"{what}: invalid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise click.BadParameter(f"{what}: expected a JSON object")
    return value


@click.command("verify")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--stubs", "stub_dir", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Directory produced by `migrate-lens stubs`.")
@click.option("--module", "qualname", required=True,
              help="Dotted class name relative to PATH, e.g. segment_anything.modeling.image_encoder.Block.")
@click.option("--kwargs", "kwargs_json", default="{}", show_default=True, help="Constructor kwargs as JSON.")
@click.option("--input", "input_specs", multiple=True,
              help="Input shape, e.g. 2x3x64x64 or 2x8:int64:0:100 (repeat for several inputs).")
@click.option("--config", "config_spec", default="",
              help="A config object passed first to both constructors: module:Class='{json}', e.g. "
                   "transformers:BertConfig='{\"hidden_size\": 32}'.")
@click.option("--recipe", "recipe_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A Python file whose build() returns {'args': ..., 'kwargs': ..., 'inputs': [arrays], "
                   "'input_kwargs': ...} (any key optional); it is imported and run.")
@click.option("--torch-module", default="", help="Import the PyTorch class from this installed module instead.")
@click.option("--tolerance", default=1e-4, show_default=True, type=float, help="Max abs error (float32).")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--train", "train", is_flag=True,
              help="Also check one training-mode step: dropout draws differ between calls (eager and nnx.jit); "
                   "a deterministic step matches PyTorch, BatchNorm running statistics included (key 'train').")
@click.option("--bf16", "bf16", is_flag=True,
              help="Also run the stub in bfloat16 against the float32 PyTorch output (key 'bf16').")
@click.option("--bf16-tolerance", default=BF16_TOLERANCE, show_default=True, type=float,
              help="Max relative error (max|err| / max|ref|) of the bf16 run; at least twice PyTorch's own.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation before running user code.")
def verify(path: Path, stub_dir: Path, qualname: str, kwargs_json: str, input_specs: tuple[str, ...],
           config_spec: str, recipe_path: Path | None, torch_module: str, tolerance: float, seed: int,
           train: bool, bf16: bool, bf16_tolerance: float, yes: bool) -> None:
    """Check a stub against its PyTorch module: IMPORTS AND RUNS THE USER'S CODE.

    Builds both with the same kwargs, ports the weights, runs both on the same random input, and
    prints the result as JSON (report.json `stubs` entry). Exit code 1 unless status is pass and
    every opt-in check (--train, --bf16) passed.
    """
    from migrate_lens.stubs.verify import WARNING, make_inputs, parse_input_spec, verify_target

    click.secho(f"WARNING: {WARNING}", fg="red", bold=True, err=True)
    if not yes:
        click.confirm("Import and run this code?", abort=True, err=True)
    kwargs = _json_object(kwargs_json, "--kwargs")
    try:
        specs = [parse_input_spec(s) for s in input_specs]
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    args: tuple[Any, ...] = ()
    inputs = make_inputs(specs, seed)
    input_kwargs: dict[str, Any] = {}
    if config_spec:
        args = (_build_config(config_spec),)
    if recipe_path is not None:
        recipe = _run_recipe(recipe_path)
        args = tuple(recipe.get("args", args))
        kwargs = {**kwargs, **dict(recipe.get("kwargs", {}))}
        inputs = list(recipe.get("inputs", inputs))
        input_kwargs = dict(recipe.get("input_kwargs", {}))
    if not inputs:
        raise click.BadParameter("give --input shapes or a --recipe whose build() returns 'inputs'")
    module, _, class_name = qualname.rpartition(".")
    rel = _module_path(path, module)
    result = verify_target(path, stub_dir, rel, class_name, torch_module=torch_module, args=args, kwargs=kwargs,
                           inputs=inputs, input_kwargs=input_kwargs, tolerance=tolerance, seed=seed, train=train,
                           bf16=bf16, bf16_tolerance=bf16_tolerance)
    click.echo(json.dumps(result.as_dict(), indent=2, sort_keys=True))
    if not result.passed:
        raise SystemExit(1)


def _build_config(spec: str) -> Any:
    """``module:Class={json}`` -> ``Class(**json)`` imported from ``module`` (user code: runs)."""
    import importlib

    target, sep, text = spec.partition("=")
    mod, colon, cls = target.partition(":")
    if not colon or not mod or not cls:
        raise click.BadParameter(f"--config {spec!r}: expected module:Class='{{json}}'")
    kwargs = _json_object(text or "{}", "--config")
    try:
        return getattr(importlib.import_module(mod), cls)(**kwargs)
    except Exception as exc:  # noqa: BLE001 - the user's config class may raise anything
        raise click.BadParameter(f"--config {target}: {type(exc).__name__}: {exc}") from None


def _run_recipe(path: Path) -> dict[str, Any]:
    """Import the recipe file and call its ``build()``; a dict is required."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_migrate_lens_recipe", path)
    if spec is None or spec.loader is None:
        raise click.BadParameter(f"--recipe {path}: cannot load")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        recipe = module.build()
    except Exception as exc:  # noqa: BLE001 - user code
        raise click.BadParameter(f"--recipe {path}: {type(exc).__name__}: {exc}") from None
    if not isinstance(recipe, dict):
        raise click.BadParameter(f"--recipe {path}: build() must return a dict")
    return recipe


def _module_path(root: Path, module: str) -> str:
    parts = module.split(".")
    for candidate in (Path(*parts).with_suffix(".py"), Path(*parts) / "__init__.py"):
        if (root / candidate).is_file():
            return candidate.as_posix()
    raise click.BadParameter(f"no file for module {module!r} under {root}")
