"""One bad input never aborts a run, and nothing printed carries a terminal escape (issue 18,
items 5 and 6): non-UTF-8 and control-character file names, a notebook of 100,000 nested
brackets, paths past PATH_MAX, unreadable directories and unexpected worker exceptions become
``skipped`` rows with their reason, in ``scan``, ``check``, ``baseline`` and ``stubs``."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from migrate_lens.cli import main
from migrate_lens.config import Config
from migrate_lens.pipeline import scan
from migrate_lens.worker import TEST_FAULTS_ENV

BLOCKING = (b"import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
            b"        if x.sum() > 0:\n            return x\n        return x\n")
ESCAPE_NAME = "t\x1b]0;PWNED\x07.py"


def _tree(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "good.py").write_bytes(BLOCKING)
    with open(os.fsencode(root) + b"/bad\xff.py", "wb") as fh:
        fh.write(BLOCKING)
    os.mkdir(os.fsencode(root) + b"/dir\xfe")
    with open(os.fsencode(root) + b"/dir\xfe/inner.py", "wb") as fh:
        fh.write(BLOCKING)
    (root / ESCAPE_NAME).write_bytes(BLOCKING)
    return root


def _invoke(args: list[str], cwd: Path | None = None) -> tuple[int, str]:
    runner = CliRunner()
    old = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = runner.invoke(main, args, catch_exceptions=True)
    finally:
        os.chdir(old)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.output


def _no_control(text: str) -> None:
    bad = [c for c in text if (ord(c) < 32 and c not in "\n") or 0x7f <= ord(c) < 0xa0 or 0xd800 <= ord(c) < 0xe000
           or c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029"]
    assert not bad, f"raw control characters printed: {bad!r}"


def test_scan_skips_non_utf8_names_and_escapes_control_characters(tmp_path: Path) -> None:
    """Repro: ``open(b't/bad\\xff.py','wb')`` crashed ``scan``; an ESC in a name reached the
    terminal raw; a control character in a name crashed chart drawing (no report.html)."""
    root = _tree(tmp_path / "t")
    out = tmp_path / "o"
    code, output = _invoke(["scan", str(root), "-o", str(out), "--no-cache", "--format", "html,json,sarif,md"])
    assert code == 0, output
    _no_control(output)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    skipped = {s["path"]: s["reason"] for s in report["skipped"]}
    assert "not valid UTF-8" in skipped["bad\\xff.py"]
    assert "not valid UTF-8" in skipped["dir\\xfe"]
    assert {f["path"] for f in report["findings"]} == {"good.py", ESCAPE_NAME}
    assert (out / "report.html").stat().st_size > 0 and (out / "report.sarif").is_file() and (out / "report.md").is_file()


def test_check_and_baseline_skip_non_utf8_names(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    (root / "pyproject.toml").write_text("[project]\nname='t'\nversion='0'\n", encoding="utf-8")
    code, output = _invoke(["check", "--no-baseline", "."], cwd=root)
    assert code == 1, output
    _no_control(output)
    assert "bad\\xff.py: not checked: file name is not valid UTF-8" in output
    assert "t\\x1b]0;PWNED\\x07.py:6:" in output
    code, output = _invoke(["check", "--no-baseline", "--", os.fsdecode(b"bad\xff.py"), "good.py"], cwd=root)
    assert code == 1 and "bad\\xff.py: not checked: file name is not valid UTF-8" in output, output
    for fmt in ("github", "json"):
        code, output = _invoke(["check", "--no-baseline", "--format", fmt, "."], cwd=root)
        assert code == 1, output
        _no_control(output)
    code, output = _invoke(["baseline", "write", ".", "-o", "bl.json"], cwd=root)
    assert code == 0, output
    _no_control(output)
    assert json.loads((root / "bl.json").read_text(encoding="utf-8"))


def test_stubs_discover_skips_non_utf8_names(tmp_path: Path) -> None:
    root = tmp_path / "t"
    root.mkdir()
    src = b"import torch\nfrom torch import nn\n\n\nclass A(nn.Module):\n    def forward(self, x):\n        return x * 2\n"
    (root / "ok.py").write_bytes(src)
    with open(os.fsencode(root) + b"/bad\xff.py", "wb") as fh:
        fh.write(src)
    (root / ESCAPE_NAME).write_bytes(src)
    code, output = _invoke(["stubs", str(root), "-o", str(tmp_path / "st"), "--discover"])
    assert code == 0, output
    _no_control(output)
    assert (tmp_path / "st" / "ok.py").is_file()


def test_notebook_of_deeply_nested_brackets_is_skipped(tmp_path: Path) -> None:
    """Repro: a notebook of 100,000 nested JSON brackets raised RecursionError."""
    root = tmp_path / "t"
    root.mkdir()
    (root / "deep.ipynb").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    (root / "deep2.ipynb").write_text('{"cells": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    (root / "good.py").write_bytes(BLOCKING)
    result = scan(root, Config(), jobs=1, use_cache=False)
    reasons = {s.path: s.reason for s in result.skipped}
    assert "nested too deeply" in reasons["deep.ipynb"] and "nested too deeply" in reasons["deep2.ipynb"]
    assert [f.path for f in result.files] == ["good.py"]
    code, output = _invoke(["check", "--no-baseline", "--", "deep.ipynb", "good.py"], cwd=root)
    assert code == 1 and "deep.ipynb: not checked: notebook is not JSON this reader takes (nested too deeply)" in output, output


def test_path_longer_than_path_max_is_skipped(tmp_path: Path) -> None:
    root = tmp_path / "t"
    root.mkdir()
    (root / "good.py").write_bytes(BLOCKING)
    fd = os.open(root, os.O_RDONLY)
    try:  # build the deep chain with *at() calls (each component short, the whole > PATH_MAX)
        for _ in range(40):
            os.mkdir("d" * 200, dir_fd=fd)
            new = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = new
        with open(os.open("deep.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "wb") as fh:
            fh.write(BLOCKING)
    finally:
        os.close(fd)
    result = scan(root, Config(), jobs=1, use_cache=False)
    assert [f.path for f in result.files] == ["good.py"]
    assert any("too long" in s.reason for s in result.skipped), result.skipped


def test_unreadable_or_unsearchable_directory_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A directory readable but not executable (listing works, every stat fails): simulated,
    since the tests may run as root, where permission bits do not apply."""
    import migrate_lens.discover as discover_mod

    root = tmp_path / "t"
    (root / "locked").mkdir(parents=True)
    (root / "locked" / "a.py").write_bytes(BLOCKING)
    (root / "locked" / "sub").mkdir()
    (root / "good.py").write_bytes(BLOCKING)
    real_lstat = os.lstat

    def lstat(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if "locked" + os.sep in os.fspath(path):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", lstat)
    real_stat = os.stat

    def stat(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if "locked" + os.sep in os.fspath(path):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    found = discover_mod.discover(root, Config())
    assert "good.py" in found.files
    reasons = {s.path: s.reason for s in found.skipped}
    assert any(p.startswith("locked") and "permission denied" in r.lower() for p, r in reasons.items()), reasons


def test_unexpected_worker_exception_is_a_skip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "t"
    root.mkdir()
    (root / "good.py").write_bytes(BLOCKING)
    (root / "boom.py").write_bytes(BLOCKING)
    monkeypatch.setenv(TEST_FAULTS_ENV, "boom.py:raise=LookupError")
    result = scan(root, Config(), jobs=2, use_cache=False)
    assert {s.path: s.reason for s in result.skipped} == {"boom.py": "analysis failed (LookupError)"}
    assert [f.path for f in result.files] == ["good.py"]


def test_unexpected_exception_in_check_is_a_skip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import migrate_lens.check as check_mod

    root = tmp_path / "t"
    root.mkdir()
    (root / "good.py").write_bytes(BLOCKING)
    (root / "boom.py").write_bytes(BLOCKING)
    real = check_mod.analyze_file

    def flaky(data, rel, *args, **kwargs):  # type: ignore[no-untyped-def]
        if rel.endswith("boom.py"):
            raise KeyError("injected")
        return real(data, rel, *args, **kwargs)

    monkeypatch.setattr(check_mod, "analyze_file", flaky)
    code, output = _invoke(["check", "--no-baseline", "-j", "1", "--", "boom.py", "good.py"], cwd=root)
    assert code == 1, output
    assert "boom.py: not checked: analysis failed (KeyError)" in output and "good.py:6:" in output


@pytest.mark.parametrize("name", ["o[/x]", "o[bold]x", "o\x1b[31mred"])
def test_output_folder_names_never_reach_the_terminal_as_markup_or_escapes(tmp_path: Path, name: str) -> None:
    """Repro: an output folder named ``o[/x]`` crashed rich markup after the report was written."""
    root = tmp_path / "t"
    root.mkdir()
    (root / "good.py").write_bytes(BLOCKING)
    code, output = _invoke(["scan", str(root), "-o", str(tmp_path / name), "--no-cache", "--format", "json"])
    assert code == 0, output
    _no_control(output)
    assert "wrote " in output and "report.json" in output


def test_printable_escapes_every_kind_of_control_character() -> None:
    from migrate_lens.safetext import printable

    assert printable("a\x1b]0;x\x07b") == "a\\x1b]0;x\\x07b"
    assert printable("a\nb\rc\td") == "a\\nb\\rc\\td"
    assert printable("\x9b31m") == "\\x9b31m"
    assert printable(os.fsdecode(b"bad\xff.py")) == "bad\\xff.py"
    assert printable("x\u202eyz\u2066") == "x\\u202eyz\\u2066"
    assert printable("héllo wörld ✓ 中文") == "héllo wörld ✓ 中文"
    assert printable("a\\x1b") == "a\\x1b"  # backslashes already in names are left as they are


# --------------------------------------------------------------------------- own attacker pass


def test_invalid_gitignore_line_is_dropped_not_fatal(tmp_path: Path) -> None:
    root = tmp_path / "t"
    root.mkdir()
    (root / ".gitignore").write_text("!\nignored.py\n\\\n", encoding="utf-8")
    (root / "good.py").write_bytes(BLOCKING)
    (root / "ignored.py").write_bytes(BLOCKING)
    result = scan(root, Config(), jobs=1, use_cache=False)
    assert [f.path for f in result.files] == ["good.py"]


def test_diff_ref_is_never_a_git_option(tmp_path: Path) -> None:
    import subprocess

    root = tmp_path / "t"
    root.mkdir()
    (root / "good.py").write_bytes(BLOCKING)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "x"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    planted = tmp_path / "PLANTED"
    for bad in (f"--output={planted}", "-p", "--no-index"):
        code, output = _invoke(["check", "--no-baseline", f"--diff={bad}", "good.py"], cwd=root)
        assert code == 2 and "is not a git ref" in output and output.count("\n") == 1, output
    assert not planted.exists()
    with (root / "pyproject.toml").open("w", encoding="utf-8") as fh:
        fh.write(f'[tool.migrate-lens.check]\ndiff = "--output={planted}"\n')
    code, output = _invoke(["check", "--no-baseline", "good.py"], cwd=root)
    assert code == 2 and not planted.exists(), output


@pytest.mark.parametrize("what", ["baseline", "stubs report", "config"])
def test_deeply_nested_json_inputs_are_one_line_errors(tmp_path: Path, what: str) -> None:
    root = tmp_path / "t"
    root.mkdir()
    (root / "good.py").write_bytes(BLOCKING)
    deep = "[" * 100_000 + "]" * 100_000
    if what == "baseline":
        (root / ".migrate-lens-baseline.json").write_text(deep, encoding="utf-8")
        code, output = _invoke(["check", "good.py"], cwd=root)
    elif what == "stubs report":
        (tmp_path / "r.json").write_text('{"modules": ' + deep + "}", encoding="utf-8")
        code, output = _invoke(["stubs", str(root), "-o", str(tmp_path / "st"), "--report", str(tmp_path / "r.json")])
    else:
        (root / "pyproject.toml").write_text("[tool.migrate-lens]\nselect = " + deep + "\n", encoding="utf-8")
        code, output = _invoke(["check", "good.py"], cwd=root)
    assert code == 2 and "nested too deeply" in output and output.count("\n") == 1, output


def test_scan_root_that_is_not_utf8_is_a_one_line_error(tmp_path: Path) -> None:
    root = os.fsencode(tmp_path) + b"/pk\xfe"
    os.mkdir(root)
    with open(root + b"/__init__.py", "wb"):
        pass
    with open(root + b"/m.py", "wb") as fh:
        fh.write(BLOCKING)
    code, output = _invoke(["scan", os.fsdecode(root), "-o", str(tmp_path / "o"), "--no-cache", "-q"])
    assert code == 2 and "not valid UTF-8" in output and output.count("\n") == 1, output
    _no_control(output)


def test_notebook_cell_with_lone_surrogate_escape_is_still_analyzed(tmp_path: Path) -> None:
    """A JSON ``"\\udcff"`` escape in a cell made the cell unparsable: it was blanked silently
    (no findings, no skip)."""
    root = tmp_path / "t"
    root.mkdir()
    cell = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
            "        print('\\udcff', x.item())\n        return x\n")
    nb = {"cells": [{"cell_type": "code", "source": cell, "metadata": {}, "outputs": []}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (root / "n.ipynb").write_text(json.dumps(nb), encoding="utf-8")  # json escapes the surrogate
    assert "\\udcff" in (root / "n.ipynb").read_text(encoding="utf-8")
    out = tmp_path / "o"
    code, output = _invoke(["scan", str(root), "-o", str(out), "--no-cache", "-q", "--format", "json,sarif,md"])
    assert code == 0, output
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert {f["code"] for f in report["findings"]}, report["skipped"]
    assert {f["line"] for f in report["findings"] if f["code"] != "ML001"} <= {5}  # cell line 4, after the marker line


def test_graphml_stays_valid_xml_with_control_characters_in_names(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    root = tmp_path / "t"
    root.mkdir()
    (root / "a\x01b.py").write_bytes(BLOCKING)
    (root / ESCAPE_NAME).write_bytes(BLOCKING)
    out = tmp_path / "o"
    code, output = _invoke(["scan", str(root), "-o", str(out), "--no-cache", "-q", "--format", "json", "--graphml"])
    assert code == 0, output
    tree = ET.parse(out / "graph.graphml")
    ids = {n.get("id") for n in tree.iter() if n.tag.endswith("node")}
    assert "a\\x01b" in ids


# --------------------------------------------------------------------------- attack pass 2 (helper "attack")

#: JSON documents no reader may turn into a traceback: CPython's json raises ValueError (not
#: JSONDecodeError) for an integer of more than 4300 digits, RecursionError for deep nesting,
#: UnicodeDecodeError for bytes that are not UTF-8.
BAD_JSON = {
    "huge integer": b'{"x": 1' + b"0" * 5000 + b"}",
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "not utf-8": b'{"x": "\xff"}',
    "truncated": b'{"tool": "migrate-lens", "version": 1, "findings": [',
}


@pytest.mark.parametrize("reader", ["baseline", "probe results", "stubs report", "notebook"])
@pytest.mark.parametrize("doc", sorted(BAD_JSON))
def test_every_json_reader_gives_one_line_for_any_malformed_document(tmp_path: Path, reader: str, doc: str) -> None:
    """Repro: a baseline (or probe.json) holding an integer of 5000 digits raised ValueError
    (traceback); ``scan --probe-results`` with deep nesting raised RecursionError."""
    root = tmp_path / "t"
    root.mkdir()
    (root / "good.py").write_bytes(BLOCKING)
    bad = tmp_path / "bad.json"
    bad.write_bytes(BAD_JSON[doc])
    if reader == "baseline":
        code, output = _invoke(["check", "--baseline", str(bad), "--", "good.py"], cwd=root)
    elif reader == "probe results":
        code, output = _invoke(["scan", str(root), "-o", str(tmp_path / "o"), "--no-cache", "-q",
                                "--probe-results", str(bad)])
    elif reader == "stubs report":
        code, output = _invoke(["stubs", str(root), "-o", str(tmp_path / "st"), "--report", str(bad)])
    else:
        (root / "nb.ipynb").write_bytes(BAD_JSON[doc])
        code, output = _invoke(["check", "--no-baseline", "--", "nb.ipynb", "good.py"], cwd=root)
        assert code == 1 and "nb.ipynb: not checked: notebook is not " in output, output
        return
    assert code == 2 and output.startswith("migrate-lens: error: ") and output.count("\n") == 1, output
    assert "not UTF-8" in output or "not JSON" in output, output


def test_json_readers_skip_a_utf8_byte_order_mark(tmp_path: Path) -> None:
    from migrate_lens.baseline import loads
    from migrate_lens.jsonfile import parse_json
    from migrate_lens.notebooks import notebook_to_source

    assert parse_json(b'\xef\xbb\xbf{"a": 1}') == {"a": 1} == parse_json('\ufeff{"a": 1}')
    assert loads('\ufeff{"tool": "migrate-lens", "version": 1, "findings": []}').total == 0
    nb = b'\xef\xbb\xbf{"cells": [{"cell_type": "code", "source": "import torch\\n"}]}'
    assert "import torch" in notebook_to_source(nb)


@pytest.mark.parametrize("forged, where", [
    ('{"facts": [1], "root": "/x", "examples": []}', "$.facts[0]"),
    ('{"facts": [{"kind": "random", "category": "rng", "path": "a.py", "line": "3"}], "root": "/x", "examples": []}',
     "$.facts[0].line"),
    ('{"facts": [{"kind": "zzz", "category": "rng", "path": "a.py", "line": 3}], "root": "/x", "examples": []}',
     "unknown fact kind 'zzz'"),
    ('{"facts": [{"kind": "random", "category": "x", "path": "a.py", "line": 3}], "root": "/x", "examples": []}',
     "unknown category 'x'"),
    ('{"facts": [], "root": 5, "examples": []}', "$.root"),
    ('{"facts": [], "root": "/x", "examples": [{"name": "a"}]}', "$.examples[0]"),
    ('{"facts": [], "root": "/x", "examples": [], "tool": 5}', "$.tool"),
    ('{"facts": [], "root": "/x", "examples": [], "lines_run": {"a.py": ["1"]}}', "$.lines_run"),
])
def test_forged_probe_results_are_one_line_naming_the_field(tmp_path: Path, forged: str, where: str) -> None:
    """Repro: ``scan --probe-results`` on a hand-edited probe.json whose facts were not objects
    raised TypeError in the cross-check (traceback, no report)."""
    root = tmp_path / "t"
    root.mkdir()
    (root / "good.py").write_bytes(BLOCKING)
    (tmp_path / "probe.json").write_text(forged, encoding="utf-8")
    code, output = _invoke(["scan", str(root), "-o", str(tmp_path / "o"), "--no-cache", "-q",
                            "--probe-results", str(tmp_path / "probe.json")])
    assert code == 2 and output.count("\n") == 1 and "not probe results" in output and where in output, output


def test_a_valid_probe_results_document_is_accepted() -> None:
    from migrate_lens.probe.cli import probe_results_problem

    doc = {"schema_version": "1.0", "tool": {"name": "migrate-lens", "version": "1"}, "root": "/x",
           "torch_version": "2", "modes": ["eval"], "facts_outside_root": 0,
           "examples": [{"name": "a", "module": "m.M", "mode": "eval", "status": "ok", "error": "", "ops": 3,
                         "graph_breaks": None, "export": "skipped", "state_written": []}],
           "facts": [{"kind": "in-place", "category": "in-place-mutation", "path": "m.py", "line": 3, "op": "add_",
                      "detail": "", "also_at": [{"path": "m.py", "line": 1}], "count": 2, "modes": ["eval"],
                      "examples": ["a"]}],
           "lines_run": {"m.py": [1, 3]}}
    assert probe_results_problem(doc) == ""


def test_probe_keeps_probe_json_when_the_report_beside_it_is_malformed(tmp_path: Path) -> None:
    """Repro: ``probe --out DIR`` where DIR/report.json was truncated raised JSONDecodeError
    after writing probe.json (traceback); now one line saying what was kept."""
    from migrate_lens.probe.cli import ProbeResultsError, _update_report

    for text in ('{"modules": [', "[]", '{"modules": 5, "findings": [], "root": "/x"}'):
        (tmp_path / "report.json").write_text(text, encoding="utf-8")
        with pytest.raises(ProbeResultsError, match="not a migrate-lens report.json.*probe.json is written"):
            _update_report(tmp_path, {"facts": [], "examples": [], "root": "/x"})


@pytest.mark.parametrize("data, reason", [
    ("import torch\n".encode("utf-16"), "UTF-16-encoded file (byte-order mark)"),
    ("import torch\n".encode("utf-32"), "UTF-32-encoded file (byte-order mark)"),
    (b"\xff\xfeimport torch\n", "UTF-16-encoded file (byte-order mark)"),
    (b"# -*- coding: utf-16 -*-\nimport torch\n", "bad encoding declaration (utf-16 is not ASCII-compatible"),
    (b"# coding: UTF_32_LE\nimport torch\n", "is not ASCII-compatible; CPython refuses it"),
])
def test_utf16_and_utf32_files_get_a_reason_that_says_so(data: bytes, reason: str) -> None:
    """Repro: a file saved as UTF-16 was 'binary file (NUL byte at offset 3)' and one declaring
    ``coding: utf-16`` a syntax error on an invalid character U+2023."""
    from migrate_lens.discover import decode_source

    text, why = decode_source(data)
    assert text is None and why.startswith(reason) or reason in why, why


@pytest.mark.parametrize("data, reason", [
    (b"[]", "not a notebook (the JSON is an array, not an object)"),
    (b"null", "not a notebook (the JSON is null, not an object)"),
    (b'{"cells": "abc"}', "not a notebook (cells is a string, not a list)"),
    (b'{"cells": {"a": 1}}', "not a notebook (cells is an object, not a list)"),
    (b'{"nbformat": "4", "cells": []}', "not a notebook (nbformat is a string, not an integer)"),
    (b'{"nbformat": 3, "worksheets": 5}', "notebook of format 3 that nbformat cannot convert"),
])
def test_notebook_of_the_wrong_shape_says_what_is_wrong(data: bytes, reason: str) -> None:
    """Repro: these were 'unreadable notebook (TypeError)' / '(ValueError)'."""
    from migrate_lens.notebooks import NotebookError, notebook_to_source

    with pytest.raises(NotebookError) as info:
        notebook_to_source(data)
    assert str(info.value).startswith(reason), str(info.value)


def _user_rule(folder: Path, change: tuple[str, str]) -> None:
    import migrate_lens

    shipped = Path(migrate_lens.__file__).parent.parent / "rules" / "ML301-inplace-tensor-method.toml"
    src = shipped.read_text(encoding="utf-8").replace('code = "ML301"', 'code = "ML399"')
    src = src.replace('name = "inplace-tensor-method"', 'name = "my-rule"')
    assert change[0] in src
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ML399-my-rule.toml").write_text(src.replace(*change), encoding="utf-8")


@pytest.mark.parametrize("change, message", [
    (('methods = ["*_"]', "methods = [1, {a = 2}]"), "matcher.params.methods: must be a list of strings"),
    (('methods = ["*_"]', 'methods = "*_"'), "matcher.params.methods: must be a list of strings"),
    (("no_grad = false", 'no_grad = "no"'), "matcher.params.no_grad: must be true or false"),
    (('contexts = ["traced", "init", "function", "host"]', 'contexts = "traced"'), "matcher.contexts: must be a list of strings"),
])
def test_user_rule_with_wrongly_typed_matcher_parameters_is_one_line(tmp_path: Path, change: tuple[str, str],
                                                                     message: str) -> None:
    """Repro: a user rule with ``methods = [1, {a = 2}]`` raised TypeError from fnmatch when the
    rule index was built (traceback in scan and check); ``contexts = "traced"`` said
    "unknown context 't'"."""
    _user_rule(tmp_path / "rules", change)
    root = tmp_path / "t"
    root.mkdir()
    (root / "good.py").write_bytes(BLOCKING)
    (root / "pyproject.toml").write_text('[tool.migrate-lens]\nrule-dirs = ["../rules"]\n', encoding="utf-8")
    for args in (["scan", str(root), "-o", str(tmp_path / "o"), "--no-cache", "-q"], ["check", "--", "good.py"]):
        code, output = _invoke(args, cwd=root)
        assert code == 2 and output.count("\n") == 1 and f"ML399-my-rule.toml: {message}" in output, output


def test_user_rule_with_well_typed_parameters_still_loads(tmp_path: Path) -> None:
    _user_rule(tmp_path / "rules", ('methods = ["*_"]', 'methods = ["' + "*a" * 40 + '*b", "add_"]'))
    root = tmp_path / "t"
    root.mkdir()
    (root / "m.py").write_text("import torch\n\n\ndef f(x):\n    x.add_(1)\n", encoding="utf-8")
    (root / "pyproject.toml").write_text('[tool.migrate-lens]\nrule-dirs = ["../rules"]\n', encoding="utf-8")
    code, output = _invoke(["check", "--format", "json", "--", "m.py"], cwd=root)
    assert code == 0 and "ML399" in output, output


@pytest.mark.verify
@pytest.mark.parametrize("where", ["import", "examples", "forward"])
def test_probe_reports_user_code_calling_sys_exit(tmp_path: Path, where: str) -> None:
    """Repro: a recipe or model calling ``sys.exit(3)`` ended migrate-lens with status 3, no
    message and no probe.json."""
    pytest.importorskip("torch")
    (tmp_path / "m.py").write_text("import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
                                   "        return x * 2\n", encoding="utf-8")
    body = {"import": "import sys\nsys.exit(3)\n",
            "examples": "import sys\n\n\ndef examples():\n    sys.exit(3)\n    yield\n",
            "forward": ("import sys\nimport torch\nfrom m import M\n\n\nclass Bad(torch.nn.Module):\n"
                        "    def forward(self, x):\n        sys.exit(3)\n\n\ndef examples():\n"
                        "    yield 'bad', Bad(), (torch.ones(2),)\n    yield 'good', M(), (torch.ones(2),)\n")}[where]
    (tmp_path / "recipe.py").write_text(body, encoding="utf-8")
    code, output = _invoke(["probe", str(tmp_path), "--recipe", str(tmp_path / "recipe.py"), "-o",
                            str(tmp_path / "out"), "--yes", "--no-dynamo", "--no-export"])
    if where == "forward":
        assert code == 0 and "bad (eval): SystemExit" in output, output
        doc = json.loads((tmp_path / "out" / "probe.json").read_text(encoding="utf-8"))
        assert [e["status"] for e in doc["examples"]] == ["error", "ok"]
    else:
        assert code == 2 and "SystemExit: 3" in output, output


def test_a_notebook_cell_that_does_not_parse_is_never_lost_silently(tmp_path: Path) -> None:
    """Repro: a code cell that did not parse (Python 2 print, 300 nested brackets, a NUL) was
    blanked and the notebook reported as analyzed, with nothing saying a cell was left out; a
    notebook whose only torch cell was broken was even counted as pre-filtered (no torch). The
    scan now lists each such cell as a warning, and ``check`` as code it could not check."""
    good = {"cell_type": "code", "source": ["import torch\n", "def f(x):\n", "    x.add_(1)\n"]}
    bad = {"cell_type": "code", "source": ["import torch\n", "print 'x'\n"]}
    root = tmp_path / "t"
    root.mkdir()
    (root / "mixed.ipynb").write_text(json.dumps({"cells": [bad, good], "nbformat": 4}), encoding="utf-8")
    (root / "only.ipynb").write_text(json.dumps({"cells": [bad], "nbformat": 4}), encoding="utf-8")
    result = scan(root, Config(), jobs=1, use_cache=False)
    assert sorted(w for w in result.warnings if "not analyzed" in w) == [
        "mixed.ipynb: cell 0: syntax error at line 2: Missing parentheses in call to 'print'. Did you mean "
        "print(...)?; not analyzed",
        "only.ipynb: cell 0: syntax error at line 2: Missing parentheses in call to 'print'. Did you mean "
        "print(...)?; not analyzed"]
    assert [f.path for f in result.files[0].findings][:1] == ["mixed.ipynb"]  # the good cell is still analyzed
    code, output = _invoke(["check", "--no-baseline", "--", "mixed.ipynb", "only.ipynb"], cwd=root)
    assert code == 1, output
    assert "mixed.ipynb: not checked: cell 0: syntax error at line 2" in output
    assert "only.ipynb: not checked: cell 0: syntax error at line 2" in output
    assert "mixed.ipynb:7:1: ML" in output  # the good cell's finding


def test_probe_without_torch_is_one_line(tmp_path: Path) -> None:
    """Repro: ``probe`` where torch cannot be imported printed an ImportError traceback."""
    import subprocess
    import sys

    fake = tmp_path / "fake" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('No module named torch')\n", encoding="utf-8")
    (tmp_path / "recipe.py").write_text("def examples():\n    yield from ()\n", encoding="utf-8")
    repo = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(repo), str(tmp_path / "fake")])}
    proc = subprocess.run([sys.executable, "-m", "migrate_lens.cli", "probe", str(tmp_path), "--recipe",
                           str(tmp_path / "recipe.py"), "-o", str(tmp_path / "out"), "--yes"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "migrate-lens: error: probe needs PyTorch" in proc.stderr, proc.stderr


@pytest.mark.verify
def test_probe_times_out_a_hanging_example_and_runs_the_others(tmp_path: Path) -> None:
    """Repro: an example whose forward never returned hung ``probe`` forever (and Ctrl-C lost
    every result); now each run has ``--timeout`` seconds and one over it is a failed run."""
    pytest.importorskip("torch")
    (tmp_path / "recipe.py").write_text(
        "import time\nimport torch\n\n\nclass Hang(torch.nn.Module):\n    def forward(self, x):\n"
        "        while True:\n            x = x + 1\n\n\nclass Sleep(torch.nn.Module):\n    def forward(self, x):\n"
        "        time.sleep(1000)\n\n\nclass Fine(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n\n\n"
        "def examples():\n    yield 'hang', Hang(), (torch.ones(2),)\n    yield 'sleep', Sleep(), (torch.ones(2),)\n"
        "    yield 'fine', Fine(), (torch.ones(2),)\n", encoding="utf-8")
    code, output = _invoke(["probe", str(tmp_path), "--recipe", str(tmp_path / "recipe.py"), "-o",
                            str(tmp_path / "out"), "--yes", "--no-dynamo", "--no-export", "--timeout", "1"])
    assert code == 0, output
    # The timeout lands on whichever line of the loop is running: the ``while`` test (7) or its body (8).
    assert re.search(r"hang \(eval\): ExampleTimeout at recipe\.py:[78]: took longer than 1 s", output), output
    assert "sleep (eval): ExampleTimeout at recipe.py:13" in output, output
    doc = json.loads((tmp_path / "out" / "probe.json").read_text(encoding="utf-8"))
    assert [e["status"] for e in doc["examples"]] == ["error", "error", "ok"]


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
@pytest.mark.parametrize("reader", ["rule file", "baseline", "probe results", "stubs report"])
def test_inputs_that_are_fifos_or_devices_are_never_read(tmp_path: Path, kind: str, reader: str) -> None:
    """Repro: a FIFO named ``ML399-x.toml`` in a rule folder (or given as ``--baseline``,
    ``--probe-results``, ``stubs --report``) blocked the command forever; a symbolic link to
    ``/dev/zero`` read until memory ran out. Each is now one line: not a regular file. Run in a
    subprocess with a timeout, so that a regression fails instead of hanging the test run."""
    import subprocess
    import sys

    root = tmp_path / "t"
    root.mkdir()
    (root / "good.py").write_bytes(BLOCKING)
    special = tmp_path / ("rules" if reader == "rule file" else "") / ("ML399-x.toml" if reader == "rule file" else "in.json")
    special.parent.mkdir(exist_ok=True)
    if kind == "fifo":
        os.mkfifo(special)
    else:
        special.symlink_to("/dev/zero")
    if reader == "rule file":
        (root / "pyproject.toml").write_text('[tool.migrate-lens]\nrule-dirs = ["../rules"]\n', encoding="utf-8")
        args = ["check", "--", "good.py"]
    elif reader == "baseline":
        args = ["check", "--baseline", str(special), "--", "good.py"]
    elif reader == "probe results":
        args = ["scan", ".", "-o", str(tmp_path / "o"), "--no-cache", "-q", "--probe-results", str(special)]
    else:
        args = ["stubs", ".", "-o", str(tmp_path / "st"), "--report", str(special)]
    repo = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(repo)}
    proc = subprocess.run([sys.executable, "-m", "migrate_lens.cli", *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=root)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "not a regular file" in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr


def test_a_file_with_an_enormous_line_is_skipped_quickly_in_scan_and_check(tmp_path: Path) -> None:
    """A generated table on one 600 kB line (under the 5 MB file limit): libcst took 11 s on
    such a line and a 4.6 MB one killed its worker; scan and check skip it at once with the
    reason, and the check gate fails on the unchecked file."""
    from migrate_lens.discover import MAX_LINE_BYTES

    big = tmp_path / "table.py"
    big.write_text("import torch\nT = torch.tensor([" + ",".join(["1"] * (MAX_LINE_BYTES // 2 + 10)) + "])\n")
    (tmp_path / "ok.py").write_text("import torch\n\ndef f(x):\n    return x + 1\n")
    result = scan(tmp_path, Config(), jobs=1, use_cache=False)
    reasons = {s.path: s.reason for s in result.skipped}
    assert "line longer than" in reasons["table.py"]
    out = CliRunner().invoke(main, ["check", str(big)])
    assert out.exit_code == 1
    assert "not checked: a line longer than" in out.output


def test_star_import_cycle_does_not_abort_the_scan(tmp_path: Path) -> None:
    """Repro (break-test, stop 33): `a` and `b` star-importing each other sent the graph's name
    resolution round the cycle until RecursionError aborted the whole scan."""
    root = tmp_path / "star"
    root.mkdir()
    (root / "__init__.py").write_text("", encoding="utf-8")
    (root / "a.py").write_text("from .b import *\n", encoding="utf-8")
    (root / "b.py").write_text("from .a import *\n", encoding="utf-8")
    (root / "c.py").write_text("import torch\nfrom .a import f\n\n\ndef g(x):\n    return f(x).item()\n", encoding="utf-8")
    result = scan(root, Config(), jobs=1, use_cache=False)
    assert not result.skipped
    assert {f.path for f in result.files} >= {"a.py", "b.py", "c.py"}


def test_dict_entry_written_from_itself_is_analyzed(tmp_path: Path) -> None:
    """Repro (break-test, stop 33): `d["a"] = d["a"][:-1]` made the value kinds read the entry
    from itself forever; the file was dropped as "nesting too deep" (4 transformers 5.x files)."""
    root = tmp_path / "selfref"
    root.mkdir()
    (root / "m.py").write_text(
        "import torch\n\n\ndef f(x):\n    d = {\"a\": x}\n    d[\"a\"] = d[\"a\"][:-1]\n"
        "    if d[\"a\"].sum() > 0:\n        return d[\"a\"]\n    return x\n", encoding="utf-8")
    result = scan(root, Config(), jobs=1, use_cache=False)
    assert not result.skipped
    assert [f.path for f in result.files] == ["m.py"]
