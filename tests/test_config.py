"""Config loading and validation: one-line errors naming file and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from migrate_lens.config import Config, ConfigError, load_config


def _write(tmp_path: Path, body: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(body, encoding="utf-8")
    return tmp_path


def test_defaults_without_pyproject(tmp_path: Path) -> None:
    cfg = load_config(tmp_path)
    assert cfg == Config()
    assert (cfg.saving_low, cfg.saving_high) == (0.2, 0.4)
    assert cfg.markers == ("torch",)


def test_reads_kebab_case_table(tmp_path: Path) -> None:
    root = _write(tmp_path, """
[tool.migrate-lens]
exclude = ["legacy/**"]
select = ["ML1"]
severity = { ML101 = "low" }
per-path-ignores = { "tests/**" = ["ML5"] }
team-experience = "expert"
team-size = 4
monthly-spend = 12000
traced-entries = ["train.step"]
""")
    cfg = load_config(root)
    assert cfg.exclude == ("legacy/**",)
    assert cfg.select == ("ML1",)
    assert cfg.severity_overrides() == {"ML101": "low"}
    assert cfg.per_path_ignores == (("tests/**", ("ML5",)),)
    assert cfg.team_experience == "expert" and cfg.team_size == 4
    assert cfg.monthly_spend == 12000.0
    assert cfg.traced_entries == ("train.step",)


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ('[tool.migrate-lens]\nteam-size = "two"', "tool.migrate-lens.team-size"),
        ('[tool.migrate-lens]\nbogus = 1', "tool.migrate-lens.bogus: unknown key"),
        ('[tool.migrate-lens]\nseverity = { ML101 = "huge" }', "tool.migrate-lens.severity.ML101"),
        ('[tool.migrate-lens]\nteam-experience = "guru"', "tool.migrate-lens.team-experience"),
        ('[tool.migrate-lens]\nsaving-low = 0.5\nsaving-high = 0.1', "saving-low/high"),
        ("[tool.migrate-lens\n", "invalid TOML"),
    ],
)
def test_errors_are_one_line_and_name_the_key(tmp_path: Path, body: str, needle: str) -> None:
    root = _write(tmp_path, body)
    with pytest.raises(ConfigError) as info:
        load_config(root)
    message = str(info.value)
    assert needle in message
    assert "pyproject.toml" in message
    assert "\n" not in message


def test_cli_overrides_replace_only_given_values() -> None:
    cfg = Config(team_size=3).with_overrides(team_size=None, day_rate=1000.0)
    assert cfg.team_size == 3 and cfg.day_rate == 1000.0
