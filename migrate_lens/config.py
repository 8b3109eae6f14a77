"""``[tool.migrate-lens]`` configuration: read from the scanned root's ``pyproject.toml``,
validated, merged with CLI overrides into one frozen :class:`Config`.

Errors: :class:`ConfigError` with a one-line message naming the file and the key.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from migrate_lens.gctools import gc_paused
from migrate_lens.models import SEVERITIES

EXPERIENCE_LEVELS = ("none", "some", "expert")


class ConfigError(ValueError):
    """Invalid configuration; ``str()`` is ``<file>: <key>: <problem>``."""


@dataclass(frozen=True, slots=True)
class Config:
    """Effective settings of one run.

    Discovery: ``include``/``exclude`` are gitignore-style patterns relative to the root
    (``include`` empty = every ``.py``). Rules: ``select``/``ignore`` are code prefixes
    (``ML1`` selects ML1xx), ``severity`` overrides per code, ``per_path_ignores`` maps a
    gitignore-style pattern to codes. ``traced_entries`` are dotted function names that run
    under ``jax.jit`` after the port (e.g. ``train.train_step``). ``markers`` are the words a
    file must contain to get the full analysis (pre-filter). Estimation inputs:
    ``team_experience`` (none/some/expert), ``team_size`` (engineers), ``day_rate`` (currency per
    person-day), ``monthly_spend`` (accelerator spend per month, same currency),
    ``saving_low``/``saving_high`` (expected compute saving, fractions; default 0.2-0.4, the range
    migration guides quote), ``hours_per_day``. Limits: ``max_file_bytes``, ``timeout_s``
    (per file, seconds). ``rule_dirs``: extra rule folders. ``check_*``: the
    ``[tool.migrate-lens.check]`` table, defaults of ``migrate-lens check``'s options (the
    pre-commit hook passes no options: its entry ends option parsing so that file names never
    become options); "" / 0 / False = the command's own default. ``check_baseline`` is absolute.
    Scope: ``entries`` are ``pkg.mod:Name`` classes or functions the team runs (the estimate
    covers what they reach; none = everything). Money: ``currency`` (a label such as ``EUR``,
    shown with every amount), ``payback_horizon_months`` (the decision's horizon, default 24).
    """

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: tuple[tuple[str, str], ...] = ()
    per_path_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    traced_entries: tuple[str, ...] = ()
    markers: tuple[str, ...] = ("torch",)
    rule_dirs: tuple[str, ...] = ()
    team_experience: str = "some"
    team_size: int = 2
    day_rate: float = 800.0
    monthly_spend: float = 0.0
    saving_low: float = 0.20
    saving_high: float = 0.40
    hours_per_day: float = 8.0
    max_file_bytes: int = 5_000_000
    timeout_s: float = 30.0
    check_fail_on: str = ""
    check_format: str = ""
    check_baseline: str = ""
    check_no_baseline: bool = False
    check_diff: str = ""
    check_jobs: int = 0
    entries: tuple[str, ...] = ()
    currency: str = ""
    payback_horizon_months: float = 24.0
    source: str = field(default="defaults", compare=False)

    def severity_overrides(self) -> dict[str, str]:
        """``{code: severity}`` overrides."""
        return dict(self.severity)

    def with_overrides(self, **kwargs: Any) -> "Config":
        """A copy with the non-None keyword values replaced (CLI options)."""
        return replace(self, **{k: v for k, v in kwargs.items() if v is not None})


_KEYS = {f.name.replace("_", "-"): f.name for f in fields(Config)
         if f.name != "source" and not f.name.startswith("check_")}
_KEYS["check"] = "check"

#: ``[tool.migrate-lens.check]`` keys -> (Config field, allowed values or the value's type).
CHECK_FORMATS = ("text", "github", "json")
_CHECK_KEYS: dict[str, tuple[str, Any]] = {
    "fail-on": ("check_fail_on", SEVERITIES),
    "format": ("check_format", CHECK_FORMATS),
    "baseline": ("check_baseline", str),
    "no-baseline": ("check_no_baseline", bool),
    "diff": ("check_diff", str),
    "jobs": ("check_jobs", int),
}


def _check_table(path: Path, value: Any) -> dict[str, Any]:
    """Validate ``[tool.migrate-lens.check]``; Config field -> value."""
    where = "tool.migrate-lens.check"
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: {where}: must be a table (keys: {', '.join(_CHECK_KEYS)})")
    out: dict[str, Any] = {}
    for raw_key, item in value.items():
        key = raw_key.replace("_", "-")
        if key not in _CHECK_KEYS:
            raise ConfigError(f"{path}: {where}.{raw_key}: unknown key (known: {', '.join(_CHECK_KEYS)})")
        name, kind = _CHECK_KEYS[key]
        if isinstance(kind, tuple):
            if item not in kind:
                raise ConfigError(f"{path}: {where}.{raw_key}: must be one of {', '.join(kind)}")
        elif kind is bool:
            if not isinstance(item, bool):
                raise ConfigError(f"{path}: {where}.{raw_key}: must be true or false")
        elif kind is int:
            if not isinstance(item, int) or isinstance(item, bool) or not 1 <= item <= 1024:
                raise ConfigError(f"{path}: {where}.{raw_key}: must be an integer from 1 to 1024")
        elif not isinstance(item, str) or not item or "\0" in item:
            raise ConfigError(f"{path}: {where}.{raw_key}: must be a non-empty string")
        out[name] = item
    return out


#: A dotted Python name (``train.train_step``, ``pkg.mod.Model.forward``): what a
#: ``traced-entries`` item must be.
_DOTTED = re.compile(r"[^\W\d]\w*(\.[^\W\d]\w*)*")


def _str_list(path: Path, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: {key}: must be a list of strings")
    return tuple(value)


#: Integer settings: field -> (lowest, highest) allowed.
INT_BOUNDS: dict[str, tuple[int, int]] = {"team_size": (1, 10_000), "max_file_bytes": (1, 1 << 40)}

#: Number settings: field -> (lowest, highest, lowest excluded?). Every one must be finite: an
#: ``inf`` or ``nan`` day rate would make every cost figure ``inf``/``nan`` (and report.json
#: invalid JSON); ``hours-per-day = 0`` would divide by zero.
NUMBER_BOUNDS: dict[str, tuple[float, float, bool]] = {
    "day_rate": (0.0, 1e9, False),
    "monthly_spend": (0.0, 1e15, False),
    "saving_low": (0.0, 1.0, False),
    "saving_high": (0.0, 1.0, False),
    "hours_per_day": (0.5, 24.0, False),  # a tiny day made person-days overflow to inf
    "timeout_s": (0.0, 86_400.0, True),
    "payback_horizon_months": (0.0, 1200.0, True),
}


def currency_problem(value: Any) -> str:
    """Why ``value`` is not a currency label (``currency`` key, ``--currency``), or "": at most 8
    printable characters (it is printed on the terminal and in every report)."""
    if not isinstance(value, str) or len(value) > 8 or not value.strip().isprintable():
        return 'must be a short currency label such as "EUR" or "$" (at most 8 printable characters)'
    return ""


def number_problem(name: str, value: Any) -> str:
    """Why ``value`` is not a valid setting ``name`` (a :data:`NUMBER_BOUNDS` field), or ""."""
    low, high, open_low = NUMBER_BOUNDS[name]
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "must be a number"
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    bound = f"{'above' if open_low else 'from'} {low:g} {'and at most' if open_low else 'to'} {high:g}"
    if not math.isfinite(number):
        return f"must be a finite number {bound}, not {number}"
    if number < low or number > high or (open_low and number == low):
        return f"must be a number {bound}"
    return ""


def _check_glob(path: Path, where: str, pattern: str) -> None:
    """Refuse a gitignore-style pattern pathspec cannot compile (``!``, a lone ``\\``)."""
    import pathspec

    try:
        pathspec.GitIgnoreSpec.from_lines([pattern])
    except Exception as exc:  # noqa: BLE001 - pathspec raises several types for bad patterns
        raise ConfigError(f"{path}: {where}: invalid gitignore-style pattern {pattern!r} ({type(exc).__name__})") from None


def parse_config(data: dict[str, Any], path: Path) -> Config:
    """Validate a ``[tool.migrate-lens]`` table (keys in kebab-case or snake_case)."""
    values: dict[str, Any] = {}
    for raw_key, value in data.items():
        key = raw_key.replace("_", "-")
        if key not in _KEYS:
            raise ConfigError(f"{path}: tool.migrate-lens.{raw_key}: unknown key (known: {', '.join(sorted(_KEYS))})")
        name = _KEYS[key]
        where = f"tool.migrate-lens.{raw_key}"
        if name == "check":
            values.update(_check_table(path, value))
        elif name in ("include", "exclude", "select", "ignore", "traced_entries", "markers", "rule_dirs", "entries"):
            values[name] = _str_list(path, where, value)
            if name == "traced_entries":
                for entry in values[name]:
                    if not _DOTTED.fullmatch(entry):
                        raise ConfigError(f"{path}: {where}: {entry!r} is not a dotted function name "
                                          "(module.function or module.Class.method, e.g. \"train.train_step\")")
            elif name in ("markers", "rule_dirs", "select", "ignore") and any(not v.strip() or "\0" in v for v in values[name]):
                raise ConfigError(f"{path}: {where}: holds an empty string")
        elif name == "severity":
            if not isinstance(value, dict):
                raise ConfigError(f"{path}: {where}: must be a table of CODE = severity")
            for code, sev in value.items():
                if sev not in SEVERITIES:
                    raise ConfigError(f"{path}: {where}.{code}: must be one of {', '.join(SEVERITIES)}")
            values[name] = tuple(sorted(value.items()))
        elif name == "per_path_ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{path}: {where}: must be a table of pattern = [codes]")
            values[name] = tuple(sorted((k, _str_list(path, f"{where}.{k}", v)) for k, v in value.items()))
        elif name == "team_experience":
            if value not in EXPERIENCE_LEVELS:
                raise ConfigError(f"{path}: {where}: must be one of {', '.join(EXPERIENCE_LEVELS)}")
            values[name] = value
        elif name == "currency":
            if currency_problem(value):
                raise ConfigError(f"{path}: {where}: {currency_problem(value)}")
            values[name] = value.strip()
            continue
        elif name in INT_BOUNDS:
            low, high = INT_BOUNDS[name]
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise ConfigError(f"{path}: {where}: must be an integer from {low} to {high}")
            values[name] = value
        else:
            problem = number_problem(name, value)
            if problem:
                raise ConfigError(f"{path}: {where}: {problem}")
            values[name] = float(value)
        if name in ("include", "exclude"):
            for pattern in values[name]:
                _check_glob(path, where, pattern)
        elif name == "per_path_ignores":
            for pattern, _codes in values[name]:
                _check_glob(path, where, pattern)
    cfg = Config(**values, source=str(path))
    if not 0 <= cfg.saving_low <= cfg.saving_high <= 1:
        raise ConfigError(f"{path}: tool.migrate-lens.saving-low/high: need 0 <= saving-low <= saving-high <= 1")
    return cfg


def nearest_pyproject(start: Path) -> Path | None:
    """The ``pyproject.toml`` of the scanned path: in ``start`` (a directory, or a file's
    folder) or the nearest folder above it, not looking past a repository root (``.git``)."""
    folder = start if start.is_dir() else start.parent
    for d in (folder, *folder.parents):
        if (d / "pyproject.toml").is_file():
            return d / "pyproject.toml"
        if (d / ".git").exists():
            return None
    return None


def load_config(root: Path) -> Config:
    """Read the ``[tool.migrate-lens]`` table of :func:`nearest_pyproject` (defaults when
    there is none or it has no such table).

    Raises :class:`ConfigError` on invalid TOML or values.
    """
    path = nearest_pyproject(root)
    if path is None:
        return Config()
    try:
        # tomllib is pure Python: a deeply nested file recurses close to the limit, and a
        # collection started there runs finalizers that fail with RecursionError and print
        # "Exception ignored ..." to stderr. With the collector paused only our error remains.
        with path.open("rb") as fh, gc_paused():
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None
    except UnicodeDecodeError as exc:  # TOML is UTF-8; tomllib does not wrap the decoding error
        raise ConfigError(f"{path}: invalid TOML: not UTF-8 (byte offset {exc.start})") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: tool: must be a table")
    table = tool.get("migrate-lens")
    if table is None:
        return Config(source=str(path))
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: tool.migrate-lens: must be a table")
    cfg = parse_config(table, path)
    # Rule folders and the check's baseline are relative to the pyproject.toml that names them.
    return cfg.with_overrides(rule_dirs=tuple(str((path.parent / d).resolve()) for d in cfg.rule_dirs) or None,
                              check_baseline=str((path.parent / cfg.check_baseline).resolve()) if cfg.check_baseline else None)
