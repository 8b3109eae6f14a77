"""Config applied to findings, the same way in ``scan`` and ``check``: select/ignore by code
prefix, per-path ignores, severity overrides, ``ignore`` suppressions removed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

import pathspec

from migrate_lens.catalog import Catalog
from migrate_lens.config import Config
from migrate_lens.models import Finding


def _selected(code: str, config: Config) -> bool:
    if config.select and not any(code.startswith(p) for p in config.select):
        return False
    return not any(code.startswith(p) for p in config.ignore)


def apply_config(findings: Iterable[Finding], config: Config) -> tuple[list[Finding], int]:
    """Filter and re-grade ``findings`` per ``config``.

    Returns ``(kept, ignored_count)``: findings silenced by an ``ignore[...]`` comment are
    counted, not returned; ``fixme`` ones are kept (accepted debt still counts as work).
    """
    overrides = config.severity_overrides()
    path_rules = [(pathspec.GitIgnoreSpec.from_lines([pat]), codes) for pat, codes in config.per_path_ignores]
    kept: list[Finding] = []
    ignored = 0
    selected: dict[str, bool] = {}  # per code (a file's findings share few codes)
    for f in findings:
        ok = selected.get(f.code)
        if ok is None:
            ok = selected[f.code] = _selected(f.code, config)
        if not ok:
            continue
        if any(spec.match_file(f.path) and any(f.code.startswith(c) for c in codes) for spec, codes in path_rules):
            continue
        if f.suppressed == "ignore":
            ignored += 1
            continue
        if f.code in overrides:
            f = replace(f, severity=overrides[f.code])
        kept.append(f)
    return kept, ignored


def check_codes(config: Config, catalog: Catalog) -> None:
    """Refuse rule codes and prefixes in the config that match no rule of ``catalog`` (a typo
    in ``select`` would otherwise silently turn every rule off, in ``scan`` and in the
    pre-commit ``check`` alike). Raises ``ConfigError``."""
    from migrate_lens.config import ConfigError

    codes = [r.code for r in catalog.rules]
    where = config.source
    for key, prefixes in (("select", config.select), ("ignore", config.ignore),
                          ("per-path-ignores", tuple(c for _, cs in config.per_path_ignores for c in cs))):
        for prefix in prefixes:
            if not any(code.startswith(prefix) for code in codes):
                raise ConfigError(f"{where}: tool.migrate-lens.{key}: {prefix!r} matches no rule (see `migrate-lens rules`)")
    for code, _ in config.severity:
        if code not in codes:
            raise ConfigError(f"{where}: tool.migrate-lens.severity.{code}: no such rule")
