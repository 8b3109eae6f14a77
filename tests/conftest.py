"""Shared fixtures: the loaded rule catalog and a helper that analyzes a snippet the way the
pre-commit check does (findings with ``traced_only`` resolved from the file alone)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

try:
    import migrate_lens  # noqa: F401
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from migrate_lens.catalog import Catalog, load_catalog  # noqa: E402


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    """The shipped rule catalog (``rules/``), loaded and validated once per session."""
    return load_catalog()
