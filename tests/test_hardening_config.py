"""Config and input files (issue 18, item 7): a bad value is a one-line error naming its key,
never a traceback and never a silently wrong figure."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from migrate_lens.cli import main

MODEL = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x.item()\n"


def _scan(tmp_path: Path, pyproject: str | None, *extra: str) -> tuple[int, str]:
    root = tmp_path / "t"
    root.mkdir(exist_ok=True)
    (root / "m.py").write_text(MODEL, encoding="utf-8")
    if pyproject is not None:
        (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    result = CliRunner().invoke(main, ["scan", str(root), "-o", str(tmp_path / "o"), "--no-cache", "-q",
                                       "--format", "json", *extra])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.output


@pytest.mark.parametrize("pyproject, key", [
    ("tool = 1\n", "tool"),
    ("[tool]\nmigrate-lens = 1\n", "tool.migrate-lens"),
    ("x = " + "[" * 100_000 + "]" * 100_000 + "\n", "invalid TOML"),
    ("[tool.migrate-lens]\nday-rate = nan\n", "tool.migrate-lens.day-rate"),
    ("[tool.migrate-lens]\nmonthly-spend = inf\n", "tool.migrate-lens.monthly-spend"),
    ("[tool.migrate-lens]\nday-rate = 1e400\n", "tool.migrate-lens.day-rate"),
    ("[tool.migrate-lens]\nhours-per-day = 0\n", "tool.migrate-lens.hours-per-day"),
    ("[tool.migrate-lens]\nhours-per-day = 25\n", "tool.migrate-lens.hours-per-day"),
    ("[tool.migrate-lens]\nhours-per-day = 1e-300\nday-rate = 1e9\n", "tool.migrate-lens.hours-per-day"),
    ("[tool.migrate-lens]\ntimeout-s = 0\n", "tool.migrate-lens.timeout-s"),
    ("[tool.migrate-lens]\nsaving-low = nan\n", "tool.migrate-lens.saving-low"),
    ("[tool.migrate-lens]\nsaving-low = 0.5\nsaving-high = 0.2\n", "saving-low"),
    ("[tool.migrate-lens]\nexclude = [\"!\"]\n", "tool.migrate-lens.exclude"),
    ("[tool.migrate-lens]\ninclude = [\"\\\\\"]\n", "tool.migrate-lens.include"),
    ("[tool.migrate-lens.per-path-ignores]\n\"!\" = [\"ML1\"]\n", "tool.migrate-lens.per-path-ignores"),
    ("[tool.migrate-lens]\nteam-size = 10000000000000000000000\n", "tool.migrate-lens.team-size"),
    ("[tool.migrate-lens]\nmax-file-bytes = 1e3\n", "tool.migrate-lens.max-file-bytes"),
])
def test_bad_config_is_one_line_naming_the_key(tmp_path: Path, pyproject: str, key: str) -> None:
    code, out = _scan(tmp_path, pyproject)
    assert code == 2, out
    assert out.startswith("migrate-lens: error: ") and out.count("\n") == 1, out
    assert key in out


@pytest.mark.parametrize("saving", ["nan", "inf", "5-9", "0.4-0.2", "0.2-1.5", "-0.1", "nan-0.4", "0.1-nan", "x"])
def test_bad_saving_range_is_one_line_naming_the_option(tmp_path: Path, saving: str) -> None:
    """Repro: ``--saving 5-9`` reported a 2.4-4.3 M gain on 480 k of yearly spend."""
    code, out = _scan(tmp_path, None, "--monthly-spend", "40000", "--saving", saving)
    assert code == 2, out
    assert "--saving" in out and out.count("\n") == 1, out


@pytest.mark.parametrize("option", ["--day-rate", "--monthly-spend"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_non_finite_money_options_are_refused(tmp_path: Path, option: str, value: str) -> None:
    code, out = _scan(tmp_path, None, option, value)
    assert code == 2 and option in out, out


def test_good_saving_range_is_used(tmp_path: Path) -> None:
    import json

    code, out = _scan(tmp_path, None, "--monthly-spend", "40000", "--saving", "0.1-0.3")
    assert code == 0, out
    report = json.loads((tmp_path / "o" / "report.json").read_text(encoding="utf-8"))
    text = json.dumps(report["estimate"])
    assert "0.1" in text and "0.3" in text


@pytest.mark.parametrize("effort", ["{ optimistic = 1, likely = 2, pessimistic = inf }",
                                    "{ optimistic = nan, likely = 2, pessimistic = 3 }",
                                    "{ optimistic = 1, likely = 2, pessimistic = 1e400 }"])
def test_rule_effort_hours_must_be_finite(tmp_path: Path, effort: str) -> None:
    from migrate_lens.catalog import CatalogError, load_catalog

    shipped = Path(__file__).resolve().parent.parent / "rules"
    import re

    some_rule = next(text for f in sorted(shipped.glob("*.toml"))
                     if re.search(r"(?m)^effort_hours\s*=\s*\{", text := f.read_text(encoding="utf-8")))

    rule = re.sub(r"(?m)^effort_hours\s*=.*$", f"effort_hours = {effort}", some_rule)
    used = {m for f in shipped.glob("*.toml") for m in re.findall(r'(?m)^code\s*=\s*"(ML\d+)"', f.read_text(encoding="utf-8"))}
    code = re.search(r'(?m)^code\s*=\s*"(ML\d)\d+"', rule).group(1)  # type: ignore[union-attr]
    free = next(f"{code}{n:02d}" for n in range(99, 0, -1) if f"{code}{n:02d}" not in used)
    rule = re.sub(r'(?m)^code\s*=\s*"ML\d+"', f'code = "{free}"', rule)
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "extra.toml").write_text(rule, encoding="utf-8")
    with pytest.raises(CatalogError, match="effort_hours"):
        load_catalog((tmp_path / "rules",))


def test_deeply_nested_rule_file_is_one_catalog_error(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """A rule file nested 100k levels deep (tomllib recurses) is a CatalogError naming the file,
    with nothing else printed (no "Exception ignored ..." from finalizers run at depth)."""
    from migrate_lens.catalog import CatalogError, load_catalog

    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "deep.toml").write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(CatalogError, match=r"deep\.toml: invalid TOML"):
        load_catalog((tmp_path / "rules",))
    assert capfd.readouterr().err == ""


# --------------------------------------------------------------------------- attack pass 2 (helper "attack")

def _check(tmp_path: Path, pyproject: bytes) -> tuple[int, str]:
    import os

    root = tmp_path / "c"
    root.mkdir(exist_ok=True)
    (root / "m.py").write_text(MODEL, encoding="utf-8")
    (root / "pyproject.toml").write_bytes(pyproject)
    old = Path.cwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(main, ["check", "--", "m.py"])
    finally:
        os.chdir(old)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.output


@pytest.mark.parametrize("pyproject, key", [
    (b"\xff\xfe[tool.migrate-lens]\n", "not UTF-8 (byte offset 0)"),
    (b"[tool.migrate-lens]\nname = \"caf\xe9\"\n", "invalid TOML: not UTF-8 (byte offset 31)"),
    (b'[tool.migrate-lens]\ntraced-entries = [""]\n', "tool.migrate-lens.traced-entries"),
    (b'[tool.migrate-lens]\ntraced-entries = ["train..step"]\n', "tool.migrate-lens.traced-entries"),
    (b'[tool.migrate-lens]\ntraced-entries = ["train.step(x)"]\n', "tool.migrate-lens.traced-entries"),
    (b'[tool.migrate-lens]\nignore = [""]\n', "tool.migrate-lens.ignore: holds an empty string"),
    (b'[tool.migrate-lens]\nmarkers = [""]\n', "tool.migrate-lens.markers: holds an empty string"),
])
def test_undecodable_or_malformed_config_is_one_line_in_scan_and_check(tmp_path: Path, pyproject: bytes,
                                                                      key: str) -> None:
    """Repro: a pyproject.toml that is not UTF-8 raised UnicodeDecodeError (traceback) in every
    command; ``traced-entries = [""]`` / ``["a..f"]`` and ``ignore = [""]`` (which ignored every
    finding) were accepted silently."""
    root = tmp_path / "t"
    root.mkdir()
    (root / "pyproject.toml").write_bytes(pyproject)
    code, out = _scan(tmp_path, None)
    assert code == 2 and out.startswith("migrate-lens: error: ") and out.count("\n") == 1 and key in out, out
    code, out = _check(tmp_path, pyproject)
    assert code == 2 and out.count("\n") == 1 and key in out, out


def test_valid_traced_entries_are_accepted(tmp_path: Path) -> None:
    code, out = _scan(tmp_path, '[tool.migrate-lens]\ntraced-entries = ["t.m.M.forward", "train_step", "é.f"]\n')
    assert code == 0, out


def test_check_refuses_a_select_that_matches_no_rule(tmp_path: Path) -> None:
    """Repro: ``select = ["MLX"]`` (a typo) made the pre-commit check run no rule and pass every
    commit ("no new findings"); the scan refused it. Both refuse it now."""
    code, out = _check(tmp_path, b'[tool.migrate-lens]\nselect = ["MLX"]\n')
    assert code == 2 and "tool.migrate-lens.select: 'MLX' matches no rule" in out and out.count("\n") == 1, out
    code, out = _check(tmp_path, b'[tool.migrate-lens]\nseverity = { ML999 = "high" }\n')
    assert code == 2 and "severity.ML999: no such rule" in out, out
    code, out = _check(tmp_path, b'[tool.migrate-lens]\nselect = ["ML5"]\n')
    assert code == 1 and "ML509" in out, out  # .item() in forward: high, still reported


@pytest.mark.parametrize("currency", ["\x1b]0;PWNED\x07", "EUR" * 20, "a\nb"])
def test_currency_option_is_checked_as_the_config_key_is(tmp_path: Path, currency: str) -> None:
    """Repro: ``--currency $'\\x1b]0;PWNED\\x07'`` was accepted (the config key refused it) and
    its raw escape bytes were written into report.html."""
    code, out = _scan(tmp_path, None, "--currency", currency)
    assert code == 2 and "--currency: must be a short currency label" in out and out.count("\n") == 1, out
    code, out = _scan(tmp_path, None, "--currency", "€")
    assert code == 0, out
