"""The input pipeline is host code: a dataset's methods (its own class or a project base named
``*Dataset``) and a batch collation function are host code (``graph`` guesses), so their random
crops, NumPy reads and in-place fills are reported at the host's severity, never as the
jitted step's obstacles, while the training step that consumes the batches stays traced."""
from __future__ import annotations

from pathlib import Path

from migrate_lens.config import Config
from migrate_lens.pipeline import scan

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "projects" / "data_pipeline"


def test_dataset_and_collate_are_host_code() -> None:
    result = scan(ROOT, Config(), jobs=1, use_cache=False)
    found = {(f.path, f.span.line, f.code): f for f in result.project.findings}
    data = [f for (path, _, _), f in found.items() if path == "data.py"]
    # the random crop, the in-place fills and the collation's padding are found, as host code
    assert {("data.py", 21, "ML601"), ("data.py", 24, "ML304"), ("data.py", 32, "ML304")} <= set(found)
    assert data and all(f.context == "host" and f.severity in ("low", "info") for f in data)
    # the training step that reads the batches stays the traced step
    step = [f for (path, _, code), f in found.items() if path == "train.py" and code == "ML1019"]
    assert step and step[0].context == "traced"


TESTS_ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "projects" / "test_code"


def test_test_code_is_host_code() -> None:
    """A package's own tests (``tests/``, ``test_*.py``) run eagerly under pytest: their branches
    on results are host code (low), not obstacles of a traced function, and the random inputs
    they draw are test fixtures, not reported at all (normflows: 55 such findings)."""
    result = scan(TESTS_ROOT, Config(), jobs=1, use_cache=False)
    in_tests = [f for f in result.project.findings if f.path.startswith("tests/")]
    assert in_tests and all(f.context == "host" and f.severity in ("low", "info") for f in in_tests)
    assert not any(f.code == "ML101" for f in in_tests)  # a branch on a result: host Python
    rules = result.catalog.by_code()
    assert not any(rules[f.code].category == "rng" for f in in_tests)  # `torch.randn(2, 4)` inputs
