"""Baselines: today's findings, recorded so that ``check`` reports only new ones.

A baseline is a JSON file (default ``.migrate-lens-baseline.json``) of finding fingerprints
(:func:`migrate_lens.fingerprint.fingerprint`: code, path, enclosing symbol, normalized
source; no line numbers, so code moving down a file keeps its identity) with occurrence
counts: two identical ``x.add_(y)`` in one ``forward`` are one fingerprint with count 2, and a
third copy is new. Paths inside are POSIX, relative to the baseline file's directory. Entries
carry code, path, symbol and snippet for humans reviewing the file in a pull request; only
``fingerprint`` and ``count`` are used for matching.

The file is deterministic (sorted entries, sorted keys, no timestamp), so rewriting an
unchanged baseline gives a byte-identical file and a clean ``git diff``. The approach follows
bandit's ``--baseline`` (https://bandit.readthedocs.io/en/latest/start.html#baseline), made
count-aware and line-independent.

Errors: :class:`BaselineError` (one line naming the file) for unreadable or malformed files.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: File name ``baseline write`` writes and ``check`` looks for.
DEFAULT_BASELINE_NAME = ".migrate-lens-baseline.json"
#: Format version written in the file; a different version is refused.
BASELINE_VERSION = 1

_ENTRY_KEYS = {"fingerprint", "count", "code", "path", "symbol", "snippet"}


class BaselineError(ValueError):
    """The baseline file cannot be read or is malformed. ``str()`` is ``<file>: <problem>``."""


@dataclass(frozen=True, slots=True)
class BaselineEntry:
    """One fingerprint and how many findings share it (``count`` >= 1); ``code``, ``path``
    (relative to the baseline's directory), ``symbol`` and ``snippet`` describe the first of them."""

    fingerprint: str
    count: int
    code: str
    path: str
    symbol: str
    snippet: str


@dataclass(frozen=True, slots=True)
class Baseline:
    """Entries sorted by (path, symbol, code, fingerprint)."""

    entries: tuple[BaselineEntry, ...] = ()

    def counts(self) -> dict[str, int]:
        """``{fingerprint: count}``."""
        return {e.fingerprint: e.count for e in self.entries}

    @property
    def total(self) -> int:
        """Number of findings recorded (sum of counts)."""
        return sum(e.count for e in self.entries)


def build_baseline(findings: Iterable[tuple[str, str, str, str, str]]) -> Baseline:
    """A baseline from ``(fingerprint, code, path, symbol, snippet)`` rows (one per finding;
    ``path`` relative to where the baseline file will live)."""
    counts: Counter[str] = Counter()
    first: dict[str, tuple[str, str, str, str]] = {}
    for fp, code, path, symbol, snippet in findings:
        counts[fp] += 1
        first.setdefault(fp, (code, path, symbol, snippet))
    entries = [BaselineEntry(fp, counts[fp], *first[fp]) for fp in counts]
    entries.sort(key=lambda e: (e.path, e.symbol, e.code, e.fingerprint))
    return Baseline(tuple(entries))


def dumps(baseline: Baseline) -> str:
    """The file text: indented JSON, sorted keys, trailing newline."""
    doc = {
        "tool": "migrate-lens",
        "version": BASELINE_VERSION,
        "findings": [
            {
                "fingerprint": e.fingerprint,
                "count": e.count,
                "code": e.code,
                "path": e.path,
                "symbol": e.symbol,
                "snippet": e.snippet,
            }
            for e in baseline.entries
        ],
    }
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def loads(text: str, source: str = "<baseline>") -> Baseline:
    """Parse and validate a baseline document. Raises :class:`BaselineError`."""
    from migrate_lens.jsonfile import JsonFileError, parse_json

    try:
        doc: Any = parse_json(text)
    except JsonFileError as exc:
        raise BaselineError(f"{source}: {exc} (not a migrate-lens baseline)") from None
    if not isinstance(doc, dict) or doc.get("tool") != "migrate-lens":
        raise BaselineError(f'{source}: not a migrate-lens baseline (no "tool": "migrate-lens")')
    if doc.get("version") != BASELINE_VERSION:
        raise BaselineError(
            f"{source}: baseline version {doc.get('version')!r} is not supported "
            f"(this migrate-lens reads version {BASELINE_VERSION}); rewrite it with `migrate-lens baseline write`"
        )
    rows = doc.get("findings")
    if not isinstance(rows, list):
        raise BaselineError(f'{source}: "findings" must be a list')
    entries: dict[str, BaselineEntry] = {}
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or not {"fingerprint", "count"} <= set(row) or set(row) - _ENTRY_KEYS:
            raise BaselineError(
                f"{source}: findings[{i}]: needs fingerprint and count (and only {', '.join(sorted(_ENTRY_KEYS))})"
            )
        fp, count = row["fingerprint"], row["count"]
        if not isinstance(fp, str) or not fp or not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise BaselineError(f"{source}: findings[{i}]: fingerprint must be a string and count a positive integer")
        prev = entries.get(fp)
        total = count + (prev.count if prev else 0)
        entries[fp] = BaselineEntry(fp, total, *(str(row.get(k, "")) for k in ("code", "path", "symbol", "snippet")))
    ordered = sorted(entries.values(), key=lambda e: (e.path, e.symbol, e.code, e.fingerprint))
    return Baseline(tuple(ordered))


def read_baseline(path: Path) -> Baseline:
    """Load a baseline file. Raises :class:`BaselineError` if unreadable or malformed."""
    from migrate_lens.discover import read_input_file

    try:
        text = read_input_file(path).decode("utf-8")
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise BaselineError(f"{path}: not UTF-8 text") from None
    return loads(text, str(path))


def _replaceable(path: Path) -> bool:
    """``path`` may be overwritten by a baseline: absent, empty, or a migrate-lens baseline (of
    any version: rewriting an old one is how it is upgraded)."""
    from migrate_lens.jsonfile import JsonFileError, parse_json

    try:
        if not path.exists() or path.stat().st_size == 0:
            return True
        if not path.is_file():
            return False
        doc = parse_json(path.read_bytes())
    except (OSError, JsonFileError):
        return False
    return isinstance(doc, dict) and doc.get("tool") == "migrate-lens" and "findings" in doc


def write_baseline(baseline: Baseline, path: Path) -> None:
    """Write ``baseline`` to ``path`` (UTF-8, ``\\n`` line endings), atomically: a full disk or
    an interrupted write keeps the previous baseline. A file there that is not a baseline (a
    mistyped ``-o model.py``, ``-o pyproject.toml``) is never replaced. Raises OSError, and
    :class:`BaselineError` for such a file."""
    import os
    import tempfile

    if not _replaceable(path):
        raise BaselineError(f"{path} exists and is not a migrate-lens baseline; not overwritten (choose another -o)")
    text = dumps(baseline)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # the mode open() would give it
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def split_new(fingerprints: Sequence[str], baseline: Baseline) -> tuple[list[bool], int]:
    """Which of ``fingerprints`` (current findings, in source order) are new.

    Count-aware: a fingerprint recorded ``n`` times forgives its first ``n`` occurrences; later
    ones are new. Returns ``(is_new per input, number forgiven)``.
    """
    remaining = baseline.counts()
    flags: list[bool] = []
    forgiven = 0
    for fp in fingerprints:
        if remaining.get(fp, 0) > 0:
            remaining[fp] -= 1
            forgiven += 1
            flags.append(False)
        else:
            flags.append(True)
    return flags, forgiven
