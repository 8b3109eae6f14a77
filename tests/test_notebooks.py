"""Jupyter notebooks: code cells scanned, findings point at the cell and its line, magics and
shell escapes skipped (not parse errors), a broken cell never hides the others."""

from __future__ import annotations

import json

import pytest

from migrate_lens.notebooks import NotebookError, cell_of_line, notebook_to_source
from migrate_lens.worker import analyze_bytes


def _nb(*cells: tuple[str, str | list[str]], nbformat: int = 4) -> bytes:
    return json.dumps({
        "cells": [{"cell_type": kind, "id": f"c{i}", "metadata": {}, "source": src,
                   **({"outputs": [], "execution_count": None} if kind == "code" else {})}
                  for i, (kind, src) in enumerate(cells)],
        "metadata": {}, "nbformat": nbformat, "nbformat_minor": 5,
    }).encode()


MODEL = "def step(x):\n    x.add_(1)\n    return x.item()\n"


def test_findings_point_at_cell_and_line() -> None:
    data = _nb(("markdown", "# title"), ("code", "import torch\n%matplotlib inline"), ("code", MODEL))
    out = analyze_bytes(data, "nb.ipynb", "nb")
    assert out.skipped is None
    found = [(f.message.split(":")[0], "add_" in f.message or "item" in f.message) for f in out.facts.findings]
    assert ("cell 2, line 2", True) in found and ("cell 2, line 3", True) in found
    source = notebook_to_source(data)
    for f in out.facts.findings:
        cell, line = cell_of_line(source, f.span.line)
        assert f.message.startswith(f"cell {cell}, line {line}: ")
        assert MODEL.splitlines()[line - 1][f.span.column:f.span.end_column] in ("x.add_(1)", "x.item()")


@pytest.mark.parametrize("magic", [
    "%matplotlib inline", "!pip install torch", "files = !ls", "t = %timeit -o f()", "torch.ones?",
    "??torch.ones", "    %time f()",
])
def test_magics_and_shell_escapes_are_skipped_not_parse_errors(magic: str) -> None:
    cell = "import torch\nfor i in range(2):\n" + (magic if magic.startswith(" ") else "    pass\n" + magic)
    out = analyze_bytes(_nb(("code", cell), ("code", MODEL)), "nb.ipynb", "nb")
    assert out.skipped is None
    assert {f.message.split(":")[0] for f in out.facts.findings} == {"cell 1, line 2", "cell 1, line 3"}


def test_cell_magic_bodies() -> None:
    """``%%time`` keeps its Python body; ``%%bash`` is skipped whole."""
    timed = analyze_bytes(_nb(("code", "%%time\nimport torch\n" + MODEL)), "nb.ipynb", "nb")
    assert {f.message.split(":")[0] for f in timed.facts.findings} == {"cell 0, line 4", "cell 0, line 5"}
    bash = analyze_bytes(_nb(("code", "%%bash\nif [ -x y ]; then x.add_(1); fi\n"), ("code", "import torch\n" + MODEL)), "nb.ipynb", "nb")
    assert {f.message.split(":")[0] for f in bash.facts.findings} == {"cell 1, line 3", "cell 1, line 4"}


def test_broken_cell_does_not_hide_the_others() -> None:
    out = analyze_bytes(_nb(("code", "def broken(:\n"), ("code", ["import torch\n", MODEL])), "nb.ipynb", "nb")
    assert out.skipped is None
    assert {f.message.split(":")[0] for f in out.facts.findings} == {"cell 1, line 3", "cell 1, line 4"}


def test_list_and_string_sources_and_missing_ids_are_read() -> None:
    data = json.dumps({"cells": [{"cell_type": "code", "source": ["import torch\n", MODEL]}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()
    out = analyze_bytes(data, "nb.ipynb", "nb")
    # (decided findings: step's x.add_(1) also carries ML315, conditional on its callers)
    assert out.skipped is None and len([f for f in out.facts.findings if not f.requires]) == 2


@pytest.mark.parametrize("data, reason", [
    (b"{", "notebook is not JSON (Expecting property name"),
    (b"[]", "not a notebook (the JSON is an array, not an object)"),
    (b'{"cells": 3}', "not a notebook (cells is a number, not a list)"),
    (b"\xff\xfe{}", "notebook is not UTF-8 (byte offset 0)"),
])
def test_unreadable_notebooks_are_skipped_with_reason(data: bytes, reason: str) -> None:
    out = analyze_bytes(data, "nb.ipynb", "nb")
    assert out.facts is None and out.skipped.reason.startswith(reason)
    with pytest.raises(NotebookError):
        notebook_to_source(data)


def test_notebook_without_code_cells_is_empty_not_skipped() -> None:
    out = analyze_bytes(_nb(("markdown", "just text")), "nb.ipynb", "nb")
    assert out.skipped is None and out.facts.findings == ()


@pytest.mark.parametrize("raw, reason", [
    (b'{"nbformat": 4, "cells": [{"cell_type": "code", "source": ["import torch\\n", 5]}]}', "non-text"),
    (b'{"nbformat": 4, "cells": [{"cell_type": "code", "source": 5}]}', "not text"),
    (b'{"nbformat": 1e400, "cells": []}', "nbformat is a number, not an integer"),
])
def test_malformed_notebooks_are_skipped_with_a_reason(raw: bytes, reason: str) -> None:
    out = analyze_bytes(raw, "nb.ipynb", "nb")
    assert out.facts is None and out.skipped is not None and reason in out.skipped.reason


def test_a_comment_like_a_cell_marker_does_not_move_findings() -> None:
    data = _nb(("code", "import torch\n"), ("code", "# %% [cell x]\n# %% [cell 99]\ny = torch.zeros(1).cuda()\n"))
    out = analyze_bytes(data, "nb.ipynb", "nb")
    assert out.skipped is None
    assert [f.message.split(":")[0] for f in out.facts.findings] == ["cell 1, line 3"]


@pytest.mark.parametrize("separator", ["\x0c", "\u2028", "\x1c"])
def test_string_literals_with_line_separators_keep_the_cell(separator: str) -> None:
    data = _nb(("code", f"import torch\ns = 'a{separator}b'\ny = torch.zeros(1).cuda()\n"))
    out = analyze_bytes(data, "nb.ipynb", "nb")
    assert [f.message.split(":")[0] for f in out.facts.findings] == ["cell 0, line 3"]
