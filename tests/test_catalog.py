"""Meta-tests over the rule catalog: identity, ranges, examples, docs, and load errors."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from migrate_lens import rulesdoc
from migrate_lens.catalog import (
    API_KINDS,
    CATEGORY_PREFIX,
    CatalogError,
    _load_catalog_cached,
    default_rules_dir,
    parse_rule,
)
from migrate_lens.models import CATEGORIES, PORTING_KINDS

REPO = Path(__file__).resolve().parents[1]
REGENERATE = "python -m migrate_lens.rulesdoc > docs/rules.md"


def test_codes_and_names_are_unique(catalog) -> None:
    codes = [r.code for r in catalog.rules]
    names = [r.name for r in catalog.rules]
    assert len(codes) == len(set(codes))
    assert len(names) == len(set(names))


def test_codes_sit_in_their_category_range(catalog) -> None:
    for rule in catalog.rules:
        prefix = CATEGORY_PREFIX[rule.code_range]
        assert rule.code.startswith(prefix) and len(rule.code) == len(prefix) + 2, rule.code


def test_file_names_follow_code_and_name(catalog) -> None:
    for rule in catalog.rules:
        assert rule.source_file == f"{rule.code}-{rule.name}.toml"


def test_every_category_has_rules(catalog) -> None:
    assert {r.category for r in catalog.rules} == set(CATEGORIES)


def test_every_rule_has_examples_remedy_and_references(catalog) -> None:
    for rule in catalog.rules:
        assert rule.flagged_examples and rule.clean_examples, rule.code
        assert "{detail}" in rule.message or rule.code == "ML501", rule.code  # print() needs no detail
        assert rule.porting in PORTING_KINDS
        assert rule.references and all(u.startswith("https://") for u in rule.references), rule.code


@pytest.mark.parametrize("which", ["flagged", "clean"])
def test_every_example_parses(catalog, which: str) -> None:
    for rule in catalog.rules:
        examples = rule.flagged_examples if which == "flagged" else rule.clean_examples
        for src in examples:
            cst.parse_module(src)  # raises on a broken example


def test_remedies_name_the_concrete_jax_api(catalog) -> None:
    apis = ("jax.", "jnp.", "nnx.", "optax", "orbax", "grain", "lax.", "jmp", "pallas", "Pallas", "checkify", ".at[")
    for rule in catalog.rules:
        if rule.category == "other" and rule.porting == "none":
            continue  # suppression meta rules
        assert any(a in rule.remedy for a in apis), rule.code


def test_einops_is_never_flagged(catalog) -> None:
    from helpers_analysis import findings

    src = "import einops\nfrom einops import rearrange, repeat\n\ndef f(x):\n    return rearrange(repeat(x, 'b n -> b n k', k=2), 'b n k -> b (n k)')\n"
    assert findings(src, catalog) == ()


def test_api_map_is_typed_and_large(catalog) -> None:
    assert len(catalog.api) >= 300
    assert all(a.kind in API_KINDS for a in catalog.api)
    by = catalog.api_by_name()
    assert by["torch.cat"].jax == "jnp.concatenate" and "dim->axis" in by["torch.cat"].args
    assert by["Tensor.view"].kind == "DIFFERENT_SEMANTICS"
    assert by["torch.nn.Linear"].jax == "flax.nnx.Linear"
    assert by["torch.nn.functional.gelu"].kind == "DIFFERENT_SEMANTICS"
    assert all(a.jax or a.note for a in catalog.api if a.kind == "NO_EQUIVALENT")


def test_remedy_derives_api_lines_from_the_map(catalog) -> None:
    rule = catalog.by_code()["ML201"]
    text = rulesdoc.rule_remedy(rule, catalog)
    assert text.startswith(rule.remedy)
    assert "torch.nonzero -> jnp.nonzero (DIFFERENT_SEMANTICS" in text


def test_docs_are_in_sync(catalog) -> None:
    expected = rulesdoc.render_rules_markdown(catalog)
    actual = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    assert actual == expected, f"docs/rules.md is stale: regenerate with `{REGENERATE}`"


def test_docs_have_an_anchor_per_rule(catalog) -> None:
    text = rulesdoc.render_rules_markdown(catalog)
    for rule in catalog.rules:
        assert f'<a id="{rule.code.lower()}"></a>' in text


def test_explain_and_list(catalog) -> None:
    rule = catalog.by_code()["ML101"]
    text = rulesdoc.explain_rule(rule)
    assert text.startswith("ML101 tensor-value-condition\n")
    assert "jnp.where" in text and "Flagged example:" in text
    rows = rulesdoc.list_rules(catalog)
    assert rows[0][: len(rulesdoc.LIST_COLUMNS)] == (
        catalog.rules[0].code, catalog.rules[0].name, catalog.rules[0].category,
        catalog.rules[0].severity, catalog.rules[0].porting, f"{catalog.rules[0].effort.likely:g}",
    )
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)


def _good_rule_text() -> str:
    return (default_rules_dir() / "ML101-tensor-value-condition.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("mutate", "key"),
    [
        (lambda t: t.replace('severity = "high"', 'severity = "huge"', 1), "severity"),
        (lambda t: t.replace('code = "ML101"', 'code = "ML901"', 1), "code"),
        (lambda t: t.replace('kind = "condition"', 'kind = "no-such-matcher"', 1), "matcher.kind"),
        (lambda t: t.replace("[matcher]", 'colour = "red"\n\n[matcher]', 1), "colour"),
    ],
)
def test_malformed_rule_file_gives_one_line_error(tmp_path: Path, mutate, key: str) -> None:
    folder = tmp_path / "extra"
    folder.mkdir()
    bad = folder / "ML199-broken-rule.toml"
    bad.write_text(mutate(_good_rule_text()).replace('name = "tensor-value-condition"', 'name = "broken-rule"'), encoding="utf-8")
    with pytest.raises(CatalogError) as err:
        _load_catalog_cached((folder,))
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"{bad.name}: {key}")


def test_moved_rule_keeps_its_code_through_code_range(tmp_path: Path) -> None:
    """A rule moved to another category keeps its code (``code_range`` names the category of
    its hundreds); a ``code_range`` equal to the category, or a code outside it, is refused."""
    import tomllib

    data = tomllib.loads(_good_rule_text())  # ML101, dynamic-control-flow
    moved = parse_rule(tmp_path / "x.toml", {**data, "category": "other", "code_range": "dynamic-control-flow"})
    assert (moved.code, moved.category, moved.code_range) == ("ML101", "other", "dynamic-control-flow")
    with pytest.raises(CatalogError, match=r"^x\.toml: code: ML101 is outside the other range ML0xx$"):
        parse_rule(tmp_path / "x.toml", {**data, "category": "other"})
    with pytest.raises(CatalogError, match=r"^x\.toml: code_range: equals the category"):
        parse_rule(tmp_path / "x.toml", {**data, "code_range": "dynamic-control-flow"})
    with pytest.raises(CatalogError, match=r"^x\.toml: code: ML101 is outside the device range ML8xx$"):
        parse_rule(tmp_path / "x.toml", {**data, "category": "other", "code_range": "device"})


def test_parse_rule_names_missing_key(tmp_path: Path) -> None:
    import tomllib

    data = tomllib.loads(_good_rule_text())
    del data["remedy"]
    with pytest.raises(CatalogError, match=r"^x\.toml: remedy: missing$"):
        parse_rule(tmp_path / "x.toml", data)


def test_duplicate_code_in_user_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "dup"
    folder.mkdir()
    (folder / "ML101-copy.toml").write_text(_good_rule_text().replace('name = "tensor-value-condition"', 'name = "copy"'), encoding="utf-8")
    with pytest.raises(CatalogError, match="duplicate code ML101"):
        _load_catalog_cached((folder,))
