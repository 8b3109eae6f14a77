"""Stable finding fingerprints: they ignore line numbers so code moving down a file keeps its
identity (used by the baseline of ``check`` and by SARIF ``partialFingerprints``)."""

from __future__ import annotations

import hashlib

from migrate_lens.models import Finding


def fingerprint(finding: Finding) -> str:
    """SHA-256 hex of ``code | path | enclosing symbol | normalized snippet``.

    Two identical snippets in one symbol share a fingerprint; baselines count occurrences.
    """
    return fingerprint_of(finding.code, finding.path, finding.symbol, finding.snippet)


def fingerprint_of(code: str, path: str, symbol: str, snippet: str) -> str:
    """:func:`fingerprint` from the parts (a report entry that is no :class:`Finding`: a folded
    hazard listed on its own, :func:`migrate_lens.report.view.listed_findings`)."""
    key = "|".join((code, path, symbol, " ".join(snippet.split())))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()
