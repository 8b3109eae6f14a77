"""Property tests: the per-file analyzer never raises, and every finding's span lies inside
the file, for generated valid Python (hypothesmith) and for mutated real corpus files.

Bounded for CI (``max_examples`` below, no deadline); the large run is ``scripts/fuzz.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from migrate_lens.models import FileOutcome
from migrate_lens.worker import analyze_bytes

hypothesmith = pytest.importorskip("hypothesmith")

#: Real-shaped seed files shipped with the tests (field cases, fixture projects and stubs): the
#: same seeds on every machine (scripts/fuzz.py mutates a real corpus for the large run).
SEEDS = sorted((Path(__file__).resolve().parent.parent / "fixtures").rglob("*.py"))[:40]
FUZZ = settings(max_examples=200, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])


def check_outcome(data: bytes, outcome: FileOutcome) -> None:
    """The invariants: one of facts/skipped; a specific reason; spans inside the text, with
    1-based lines, 0-based columns, start <= end."""
    assert (outcome.facts is None) != (outcome.skipped is None)
    if outcome.skipped is not None:
        assert outcome.skipped.reason and outcome.skipped.reason != "error"
        return
    text = data.decode("utf-8-sig", errors="replace")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for f in outcome.facts.findings:
        s = f.span
        assert 1 <= s.line <= s.end_line <= len(lines), (f.code, s, len(lines))
        assert 0 <= s.column <= len(lines[s.line - 1]), (f.code, s)
        assert 0 <= s.end_column <= len(lines[s.end_line - 1]), (f.code, s)
        assert (s.line, s.column) <= (s.end_line, s.end_column), (f.code, s)


def analyze_and_check(source: bytes) -> FileOutcome:
    outcome = analyze_bytes(source, "fuzz/mod.py", "fuzz.mod")
    check_outcome(source, outcome)
    return outcome


# hypothesmith compile()s what it generates: its SyntaxWarnings ('str' object is not callable...)
@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@FUZZ
@given(hypothesmith.from_grammar())
def test_generated_sources_never_crash_and_spans_fit(source: str) -> None:
    analyze_and_check(("import torch\n" + source).encode("utf-8", "surrogatepass"))


def mutate(data: bytes, kind: str, a: int, b: int, junk: bytes) -> bytes:
    """One mutation of ``data`` at fractional positions ``a``, ``b`` (0..1000)."""
    n = len(data)
    i, j = sorted((a * n // 1000, b * n // 1000))
    if kind == "delete":
        return data[:i] + data[j:]
    if kind == "insert":
        return data[:i] + junk + data[i:]
    if kind == "duplicate":
        return data[:j] + data[i:j] + data[j:]
    if kind == "truncate":
        return data[:i]
    if kind == "swap":
        return data[i:j] + data[:i] + data[j:]
    if kind == "dedent":
        return data[:i] + data[i:j].replace(b"\n    ", b"\n") + data[j:]
    raise ValueError(kind)


MUTATIONS = st.sampled_from(["delete", "insert", "duplicate", "truncate", "swap", "dedent"])
JUNK = st.sampled_from([b"(", b")", b":", b"\n", b"    ", b"\t", b"\\", b"'", b'"""', b"\xff", b"\x00", b"\r",
                        b"lambda:", b"if x:\n", b"#", b"@", b"[", b"}", b"\xc3\xa9", b"async ", b"yield"])


@FUZZ
@given(st.sampled_from(SEEDS), MUTATIONS, st.integers(0, 1000), st.integers(0, 1000), JUNK)
def test_mutated_corpus_files_never_crash_and_spans_fit(seed: Path, kind: str, a: int, b: int, junk: bytes) -> None:
    analyze_and_check(mutate(seed.read_bytes(), kind, a, b, junk))


@pytest.mark.parametrize("source", [
    b"import torch\nx = (\n", b"import torch\n\x0c\ndef f():\n\treturn 1\n", b"import torch\r\nx.add_(1)\r",
    b"import torch\nclass A:\n  def forward(self, x):\n    return x.item()", b"import torch\n" + b"x = [\n" * 3,
])
def test_known_tricky_inputs(source: bytes) -> None:
    analyze_and_check(source)
