"""The page's templates precompiled into the package (:mod:`migrate_lens.report.precompiled`):
current, used, and the same page as compiling from source; a stale module is not used."""

from __future__ import annotations

import importlib.util
import pathlib

import jinja2
import pytest

from migrate_lens.report import html, precompiled

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("report_synthetic_pre", ROOT / "fixtures" / "report" / "synthetic.py")
assert _spec and _spec.loader
synthetic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(synthetic)


@pytest.mark.parametrize("name", precompiled.TEMPLATES)
def test_shipped_modules_are_current(name: str) -> None:
    """Regenerate with `python -m migrate_lens.report.precompiled` after editing a template."""
    shipped = (precompiled.FOLDER / f"{precompiled.module_name(name)}.py").read_text(encoding="utf-8")
    assert shipped == precompiled.module_text(html.source_env(), name)


def test_the_page_is_served_precompiled_and_equal(monkeypatch: pytest.MonkeyPatch) -> None:
    for view in (synthetic.sample_view(), synthetic.hostile_view()):
        context = html._context(view)
        expected = html.source_env().get_template("report.html.j2").render(**context)
        env = html._env()

        def no_compile(*args: object, **kwargs: object) -> None:
            raise AssertionError("compiled from source")

        monkeypatch.setattr(env, "compile", no_compile)
        template = env.get_template("report.html.j2")
        monkeypatch.undo()
        assert template.filename == str(html.TEMPLATES / "report.html.j2")
        assert template.render(**context) == expected


def test_a_stale_module_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """An edited template (here: the same source under another key) is compiled from source."""
    compiled: list[str] = []
    env = html._env()
    real = env.compile

    def spy(source: str, name: str | None = None, filename: str | None = None, *a: object, **k: object) -> object:
        compiled.append(name or "")
        return real(source, name, filename, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(env, "compile", spy)
    monkeypatch.setattr(precompiled, "key", lambda *a: "0" * 64)
    view = synthetic.sample_view()
    page = env.get_template("report.html.j2").render(**html._context(view))
    assert compiled == ["report.html.j2"]
    assert page == html.source_env().get_template("report.html.j2").render(**html._context(view))


def test_key_follows_source_settings_and_version() -> None:
    env = html.source_env()
    base = precompiled.key(env, "report.html.j2", "x")
    assert precompiled.key(env, "report.html.j2", "y") != base
    other = html.source_env()
    other.trim_blocks = False
    assert precompiled.key(other, "report.html.j2", "x") != base
    assert precompiled.key(jinja2.Environment(), "report.html.j2", "x") != base


def test_parsed_rule_tables_are_current_and_equal_to_the_toml() -> None:
    """Regenerate with `python -m migrate_lens.rules_parsed` after editing a shipped rule."""
    import tomllib

    from migrate_lens import catalog, rules_parsed

    base = catalog.default_rules_dir()
    assert rules_parsed.PATH.read_text(encoding="ascii") == rules_parsed.text(base)
    tables = rules_parsed.load_tables()
    files = sorted(base.glob("*.toml"))
    assert len(tables) == len(files)
    for path in files:
        raw = path.read_bytes()
        assert tables[rules_parsed.digest(raw)] == tomllib.loads(raw.decode("utf-8")), path.name


def test_catalog_from_parsed_tables_equals_the_catalog_from_toml(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: pathlib.Path) -> None:
    from migrate_lens import catalog, rules_parsed

    catalog._load_catalog_cached.cache_clear()
    fast = catalog.load_catalog()
    monkeypatch.setattr(catalog, "load_tables", lambda: {})
    catalog._load_catalog_cached.cache_clear()
    assert catalog.load_catalog() == fast and repr(catalog.load_catalog()) == repr(fast)
    # a table whose file changed is not used: the key is the digest of the bytes
    monkeypatch.setattr(catalog, "load_tables", lambda: {rules_parsed.digest(b"other"): {"code": "X"}})
    catalog._load_catalog_cached.cache_clear()
    assert catalog.load_catalog() == fast
    catalog._load_catalog_cached.cache_clear()
