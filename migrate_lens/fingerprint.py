"""Stable finding fingerprints: they ignore line numbers so code moving down a file keeps its
identity (used by the baseline of ``check`` and by SARIF ``partialFingerprints``)."""

from __future__ import annotations

import hashlib

from migrate_lens.models import Finding


def fingerprint(finding: Finding) -> str:
    """SHA-256 hex of ``code | path | enclosing symbol | normalized snippet``.

    Two identical snippets in one symbol share a fingerprint; baselines count occurrences.
    """
    key = "|".join((finding.code, finding.path, finding.symbol, " ".join(finding.snippet.split())))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()
