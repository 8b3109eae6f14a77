"""Flax NNX stubs for pure nn.Modules: translation, weight conversion, parity verification.

Public entry points: :func:`select_targets` / :func:`discover_targets` (what to translate),
:func:`generate_stubs` (translate and write), :mod:`migrate_lens.stubs.verify` (opt-in parity
check that imports and runs user code), :mod:`migrate_lens.stubs.cli` (click commands).
Nothing here imports torch or JAX at import time.
"""

from migrate_lens.stubs.generate import ModuleStub, StubFile, generate_stubs
from migrate_lens.stubs.targets import StubTarget, discover_targets, select_targets

__all__ = ["ModuleStub", "StubFile", "StubTarget", "discover_targets", "generate_stubs", "select_targets"]
