"""Hostile and broken input: every bad file is skipped with a specific reason (or analyzed when
it legitimately can be), the scan never crashes, and the good files' findings are exactly the
ones a scan of the good files alone gives. Also the per-file time / crash / memory guard.

Trees are built at test time under ``tmp_path``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from migrate_lens.config import Config
from migrate_lens.pipeline import ScanResult, scan
from migrate_lens.worker import TEST_FAULTS_ENV

GOOD = {
    "pkg/__init__.py": "",
    "pkg/model.py": (
        "import torch\nfrom torch import nn\n\n\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(4, 4)\n\n"
        "    def forward(self, x):\n"
        "        x.add_(1)\n"
        "        if x.sum() > 0:\n"
        "            x = self.fc(x)\n"
        "        return x[: x.argmax().item()]\n"
    ),
    "pkg/util.py": "import os\n\n\ndef helper(p):\n    return os.path.join(p, 'x')\n",
}


def _write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def _scan(root: Path, config: Config | None = None, jobs: int = 2) -> ScanResult:
    return scan(root, config or Config(), jobs=jobs, use_cache=False)


def _findings(result: ScanResult, paths: set[str] | None = None) -> list[tuple[str, int, int, str, str]]:
    return sorted(
        (f.path, f.span.line, f.span.column, f.code, f.message)
        for ff in result.files for f in ff.findings
        if paths is None or f.path in paths
    )


def _reasons(result: ScanResult) -> dict[str, str]:
    return {s.path: s.reason for s in result.skipped}


def _deep_expression(depth: int) -> str:
    return "import torch\nx = " + "(" * depth + "1" + ")" * depth + "\n"


BAD: dict[str, bytes] = {
    "bad/py2.py": b"import torch\nprint 'hello'\nexec 'x = 1'\n",
    "bad/syntax_error.py": b"import torch\ndef f(:\n    pass\n",
    "bad/latin1_no_declaration.py": b"import torch\nname = '\xe9t\xe9'\n",
    "bad/utf8_declared_latin1_bytes.py": b"# -*- coding: utf-8 -*-\nimport torch\nname = '\xe9'\n",
    "bad/unknown_encoding.py": b"# -*- coding: klingon -*-\nimport torch\n",
    "bad/nul_byte.py": b"import torch\nx = 1\x00\n",
    "bad/binary.py": bytes(range(256)) * 8,
    "bad/binary_no_nul.py": b"\xff\xd8\xff\xe0" + bytes(range(128, 256)) * 4,
}
LEGIT: dict[str, bytes] = {
    "ok/latin1_declared.py": b"# -*- coding: latin-1 -*-\nimport torch\nname = '\xe9t\xe9'\n\n\n"
                             b"def f(x):\n    return x.item()\n",
    "ok/utf8_bom.py": b"\xef\xbb\xbfimport torch\n\n\ndef f(x):\n    return x.item()\n",
    "ok/long_line.py": ("import torch\nTABLE = [" + ", ".join(["1"] * 40_000) + "]\n\n\n"
                        "def f(x):\n    return x.item()\n").encode(),
    "ok/crlf.py": b"import torch\r\n\r\n\r\ndef f(x):\r\n    return x.item()\r\n",
    "ok/no_trailing_newline.py": b"import torch\n\n\ndef f(x):\n    return x.item()",
    "ok/empty.py": b"",
    "ok/no_torch.py": b"import numpy as np\n\n\ndef f(a):\n    return np.sum(a)\n",
    "ok/no_torch_data.py": b"import numpy as np\n\nSIZES = {'tiny': 16, 'base': 64}\nTABLE = np.arange(4)\n",
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(tree with good + bad + legit files, tree with the good files alone, outside dir)."""
    base = tmp_path_factory.mktemp("hostile")
    root, alone, outside = base / "tree", base / "alone", base / "outside"
    _write(root, GOOD)
    _write(root, BAD)
    _write(root, LEGIT)
    _write(alone, GOOD)
    _write(outside, {"secret.py": "import torch\nx = torch.ones(1).item()\n"})
    (root / "links").mkdir()
    os.symlink("loop.py", root / "links" / "loop.py")
    os.symlink(outside / "secret.py", root / "links" / "outside.py")
    os.symlink("missing.py", root / "links" / "broken.py")
    os.symlink("..", root / "links" / "parent_dir")
    os.symlink(outside, root / "links" / "outside_dir")
    return root, alone, outside


@pytest.fixture(scope="module")
def hostile_scan(hostile: tuple[Path, Path, Path]) -> ScanResult:
    return _scan(hostile[0])


@pytest.mark.parametrize("rel, reason", [
    ("bad/py2.py", "syntax error"),
    ("bad/syntax_error.py", "syntax error at line 2"),
    ("bad/latin1_no_declaration.py", "undecodable bytes for encoding utf-8"),
    ("bad/utf8_declared_latin1_bytes.py", "undecodable bytes for encoding utf-8"),
    ("bad/unknown_encoding.py", "bad encoding declaration (unknown encoding"),
    ("bad/nul_byte.py", "binary file (NUL byte at offset 18)"),
    ("bad/binary.py", "binary file (NUL byte at offset 0)"),
    ("bad/binary_no_nul.py", "undecodable bytes for encoding utf-8"),
    ("links/loop.py", "symbolic link loop"),
    ("links/outside.py", "pointing outside the scanned root"),
    ("links/broken.py", "broken symbolic link"),
    ("links/parent_dir", "directory not followed"),
    ("links/outside_dir", "pointing outside the scanned root"),
])
def test_bad_file_is_skipped_with_specific_reason(hostile_scan: ScanResult, rel: str, reason: str) -> None:
    reasons = _reasons(hostile_scan)
    assert rel in reasons, f"{rel} not skipped; skipped: {sorted(reasons)}"
    assert reason in reasons[rel]
    assert rel not in {f.path for f in hostile_scan.files}


@pytest.mark.parametrize("rel", sorted(LEGIT))
def test_legitimate_odd_file_is_analyzed(hostile_scan: ScanResult, rel: str) -> None:
    facts = {f.path: f for f in hostile_scan.files}
    assert rel in facts, _reasons(hostile_scan).get(rel)
    if b"x.item()" in LEGIT[rel]:
        item = [f for f in facts[rel].findings if "item" in f.message]
        assert item, f"{rel}: the .item() call was not found"
        # the finding points at the `x.item()` text on the `return` line
        source = LEGIT[rel].decode("latin-1" if "latin1" in rel else "utf-8-sig")
        line = source.splitlines()[item[0].span.line - 1]
        assert line[item[0].span.column:item[0].span.end_column] == "x.item()"


def test_good_files_findings_unchanged_by_bad_neighbours(hostile: tuple[Path, Path, Path],
                                                         hostile_scan: ScanResult) -> None:
    alone = _scan(hostile[1])
    assert _findings(alone), "the good tree must have findings for this comparison to mean anything"
    assert _findings(hostile_scan, set(GOOD)) == _findings(alone)


def test_nothing_outside_the_root_is_read(hostile_scan: ScanResult) -> None:
    assert not any("secret" in f.path or f.path.startswith("..") for f in hostile_scan.files)
    assert all(not Path(f.path).is_absolute() for f in hostile_scan.files)


def test_pre_filter_gives_import_facts_only_to_files_without_torch(hostile_scan: ScanResult) -> None:
    """A file that never names torch and defines no function (constants, re-exports) gets
    import facts only; one that defines a function is analyzed (project code may hand it
    tensors) but is still no torch code (``mentions_torch``: not priced unless it has findings)."""
    facts = {f.path: f for f in hostile_scan.files}
    cheap = facts["ok/no_torch_data.py"]
    assert cheap.mentions_torch is False
    assert [(i.module, i.alias) for i in cheap.imports] == [("numpy", "np")]
    assert cheap.findings == () and cheap.calls == () and cheap.functions == ()
    helper = facts["ok/no_torch.py"]
    assert helper.mentions_torch is False
    assert [fn.qualname.rsplit(".", 1)[-1] for fn in helper.functions] == ["f"]
    assert helper.findings == ()
    assert facts["pkg/model.py"].mentions_torch is True


def test_file_over_size_limit_skipped_and_analyzed_under_raised_limit(tmp_path: Path) -> None:
    body = "import torch\n\n\ndef f(x):\n    return x.item()\n"
    filler = "# " + "x" * 97 + "\n"  # 100-byte comment lines
    big = body + filler * (10_000_000 // len(filler))
    _write(tmp_path, {"big.py": big, **GOOD})
    default = _scan(tmp_path)
    assert _reasons(default)["big.py"].startswith("file too large (")
    assert "limit 5000000" in _reasons(default)["big.py"]
    raised = _scan(tmp_path, Config(max_file_bytes=20_000_000))
    facts = {f.path: f for f in raised.files}
    assert "big.py" not in _reasons(raised)
    assert facts["big.py"].lines == big.count("\n")
    assert [(f.span.line, "item" in f.message) for f in facts["big.py"].findings] == [(5, True)]


@pytest.mark.parametrize("depth, expected", [
    (150, None),  # analyzed
    (500, "nesting too deep at line 2: too many nested parentheses (CPython refuses it too)"),
    (5000, "nesting too deep at line 2: too many nested parentheses (CPython refuses it too)"),
])
def test_deeply_nested_expression(tmp_path: Path, depth: int, expected: str | None) -> None:
    """libcst's native parser overflows its stack on 5000 nested parentheses (SIGSEGV): such
    files are refused before libcst sees them."""
    _write(tmp_path, {"deep.py": _deep_expression(depth), **GOOD})
    result = _scan(tmp_path)
    assert _reasons(result).get("deep.py") == expected
    assert ("deep.py" in {f.path for f in result.files}) == (expected is None)
    assert _findings(result, set(GOOD)) == _findings(_scan(_good_only(tmp_path)))


@pytest.mark.parametrize("source", [
    "x = " + "lambda: " * 5000 + "1\n",   # ast: MemoryError; libcst: SIGSEGV
    "x = " + "-" * 5000 + "1\n",          # ast: RecursionError
    "".join("    " * i + "if x:\n" for i in range(101)) + "    " * 101 + "pass\n",
])
def test_pathological_nesting_skipped_with_reason(tmp_path: Path, source: str) -> None:
    _write(tmp_path, {"deep.py": "import torch\n" + source})
    result = _scan(tmp_path)
    assert _reasons(result)["deep.py"].startswith("nesting too deep")


def _good_only(tmp_path: Path) -> Path:
    alone = tmp_path.parent / (tmp_path.name + "_alone")
    _write(alone, GOOD)
    return alone


def test_unreadable_file_is_skipped(tmp_path: Path) -> None:
    _write(tmp_path, {"secret.py": "import torch\n", **GOOD})
    target = tmp_path / "secret.py"
    target.chmod(0)
    try:
        if os.access(target, os.R_OK):
            pytest.skip("running with privileges that can read a chmod 000 file (root)")
        result = _scan(tmp_path)
        assert _reasons(result)["secret.py"] == "unreadable (permission denied)"
        assert _findings(result, set(GOOD)) == _findings(_scan(_good_only(tmp_path)))
    finally:
        target.chmod(0o644)


def test_empty_tree(tmp_path: Path) -> None:
    result = _scan(tmp_path)
    assert result.files == () and result.skipped == ()


def test_tree_without_torch(tmp_path: Path) -> None:
    _write(tmp_path, {"a.py": "import os\nprint(os.sep)\n", "b/c.py": "from a import os\n"})
    result = _scan(tmp_path)
    assert [(f.path, f.mentions_torch, f.findings) for f in result.files] == [
        ("a.py", False, ()), ("b/c.py", False, ())]
    assert result.skipped == ()


@pytest.mark.parametrize("fault, reason", [
    ("sleep=60", "timeout: analysis took longer than 2 s"),
    ("exit=7", "worker crashed (exit code 7)"),
    ("memory", "out of memory while analyzing (worker memory cap)"),
])
def test_slow_or_crashing_file_is_skipped_and_others_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          fault: str, reason: str) -> None:
    _write(tmp_path, {**GOOD, "pkg/victim.py": "import torch\nx = torch.ones(2)\n"})
    monkeypatch.setenv(TEST_FAULTS_ENV, f"pkg/victim.py:{fault}")
    result = _scan(tmp_path, Config(timeout_s=2.0))
    assert _reasons(result) == {"pkg/victim.py": reason}
    monkeypatch.delenv(TEST_FAULTS_ENV)
    assert _findings(result) == _findings(_scan(_good_only(tmp_path)))


def test_worker_memory_cap_is_set_in_workers_only(monkeypatch: pytest.MonkeyPatch) -> None:
    resource = pytest.importorskip("resource")
    from concurrent.futures import ProcessPoolExecutor

    from migrate_lens import worker

    before = resource.getrlimit(resource.RLIMIT_AS)
    worker.limit_worker_memory()  # in the main process: no effect
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    monkeypatch.setenv("MIGRATE_LENS_WORKER_MEMORY_MB", "1500")
    with ProcessPoolExecutor(1) as pool:
        soft = pool.submit(_capped_limit).result()
    assert soft == 1500 * 1024 * 1024


def _capped_limit() -> int:
    import resource

    from migrate_lens import worker

    worker._memory_capped = False
    worker.limit_worker_memory()
    return resource.getrlimit(resource.RLIMIT_AS)[0]


@pytest.mark.parametrize("source", [
    "x = " + " and ".join(["a"] * 20000) + "\n",   # ast: one flat BoolOp; libcst: SIGSEGV (worker crash)
    "x = " + " or ".join(["a"] * 20000) + "\n",
    "x = " + " or ".join(["a"] * 500 + ["(" + " and ".join(["a"] * 600) + ")"]) + "\n",  # nested chains add up
])
def test_long_boolean_chain_skipped_before_libcst(tmp_path: Path, source: str) -> None:
    """CPython flattens ``a and b and ...``, so its parser (the depth guard) accepts any length,
    but libcst's native parser nests per operator and overflowed its stack (SIGSEGV at ~8000
    operands): the file is refused with a reason, in-process (``check`` has no worker to lose)."""
    from migrate_lens.catalog import load_catalog
    from migrate_lens.analysis.engine import build_index
    from migrate_lens.onefile import analyze_file

    catalog = load_catalog()
    outcome = analyze_file(("import torch\n" + source).encode(), "deep.py", "deep", catalog, build_index(catalog.rules))
    assert outcome.facts is None and outcome.skipped is not None
    assert outcome.skipped.reason.startswith("nesting too deep at line 2: a boolean expression chains more than")


def test_boolean_word_bound_never_undercounts() -> None:
    """The depth guard's cheap pre-check (substring counts) bounds the regex's count of
    ``and``/``or`` words from above on texts dense in both, glued to each other and to words
    that hold them (``torch``, ``tensor``, ``for``, ``oror``), so it never waves a long chain
    through; and it is tight enough that such texts mostly skip the regex."""
    import random

    from migrate_lens.onefile import _BOOLEAN_OPERATOR, MAX_BOOLEAN_CHAIN, _boolean_words_bound

    rng = random.Random(14)
    words = ["or", "and", "torch", "tensor", "for", "sor", "tor", "fortor", "oror", "andand", "nor", "Or",
             "random", "x", "é", "1"]
    seps = [" ", "", "(", ")", "\n", "_", ".", "é"]
    skipped = 0
    for _ in range(200):
        text = "".join(rng.choice(words) + rng.choice(seps) for _ in range(rng.randint(500, 6000)))
        bound = _boolean_words_bound(text)
        assert bound >= len(_BOOLEAN_OPERATOR.findall(text)), text[:200]
        skipped += bound <= MAX_BOOLEAN_CHAIN
    assert skipped > 0


def test_ordinary_boolean_chains_are_analyzed(tmp_path: Path) -> None:
    """Many short and/or expressions (over the word-count pre-check) are still analyzed."""
    body = "import torch\n\n\ndef f(x):\n    return x.item()\n" + "y = a and b or c\n" * 1200
    _write(tmp_path, {"many.py": body, **GOOD})
    result = _scan(tmp_path)
    assert "many.py" not in _reasons(result)
    assert "many.py" in {f.path for f in result.files}
