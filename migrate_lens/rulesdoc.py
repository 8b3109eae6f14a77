"""Rule documentation generated from the catalog: ``docs/rules.md``, ``migrate-lens explain
CODE`` and ``migrate-lens rules``.

Everything here is derived from :class:`~migrate_lens.catalog.Catalog` data: rule texts come
from ``rules/*.toml``; the API part of a remedy comes from ``rules/api_map.toml`` through
:func:`api_rows_for_rule` (so a mapping is written once, in the map). Regenerate the docs with
``python -m migrate_lens.rulesdoc > docs/rules.md``.
"""

from __future__ import annotations

import sys

from migrate_lens.analysis.matchers import glob_matcher  # the engine's own glob semantics
from migrate_lens.catalog import ApiEntry, Catalog, Rule, load_catalog
from migrate_lens.models import CATEGORIES, CONTEXTS
from migrate_lens.severity import CEILING, FAILURE_DOC, FAILURE_MODES

#: At most this many API-map rows are attached to one rule (globs like ``torch.*`` match
#: hundreds; those rules talk about a family, not about mapped functions).
MAX_API_ROWS = 12

#: Column titles of :func:`list_rules` rows, in order.
LIST_COLUMNS: tuple[str, ...] = ("code", "name", "category", "severity", "porting", "effort_h")


def _globs(value: object) -> tuple[str, ...]:
    if not value:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value)  # type: ignore[union-attr]


def api_rows_for_rule(rule: Rule, catalog: Catalog) -> tuple[ApiEntry, ...]:
    """API-map rows for the torch names a rule matches: its ``names`` globs (not excluded)
    and its ``methods`` globs as ``Tensor.<method>``. Empty when the rule's globs are broad
    (more than :data:`MAX_API_ROWS` matches) or it matches no mapped name. Sorted by name."""
    names = _globs(rule.matcher.param("names"))
    methods = _globs(rule.matcher.param("methods"))
    exclude = _globs(rule.matcher.param("exclude"))
    match_names, match_methods, match_exclude = glob_matcher(names), glob_matcher(methods), glob_matcher(exclude)
    method_rows, name_rows = _api_by_kind(catalog)
    # (a rule without method globs matches no Tensor.* row, one without name globs no other)
    rows = [entry for leaf, entry in (method_rows if methods else ()) if match_methods(leaf) and not match_exclude(leaf)]
    rows += [entry for entry in (name_rows if names else ()) if match_names(entry.torch) and not match_exclude(entry.torch)]
    if len(rows) > MAX_API_ROWS:
        return ()
    return tuple(sorted(rows, key=lambda a: a.torch))


_API_SPLIT: dict[int, tuple[Catalog, tuple[tuple[str, ApiEntry], ...], tuple[ApiEntry, ...]]] = {}


def _api_by_kind(catalog: Catalog) -> tuple[tuple[tuple[str, ApiEntry], ...], tuple[ApiEntry, ...]]:
    """The API map's rows split once per catalog: ``Tensor.<method>`` rows as (method, row),
    and the other rows."""
    hit = _API_SPLIT.get(id(catalog))
    if hit is None or hit[0] is not catalog:
        methods = tuple((a.torch[len("Tensor."):], a) for a in catalog.api if a.torch.startswith("Tensor."))
        others = tuple(a for a in catalog.api if not a.torch.startswith("Tensor."))
        _API_SPLIT.clear()
        hit = _API_SPLIT[id(catalog)] = (catalog, methods, others)
    return hit[1], hit[2]


def api_line(entry: ApiEntry) -> str:
    """One line describing a mapping: ``torch.cat -> jnp.concatenate (ARG_CHANGE: dim->axis)``."""
    target = entry.jax or "no single JAX function"
    extra = "; ".join(x for x in (entry.args, entry.note) if x)
    return f"{entry.torch} -> {target} ({entry.kind}{': ' + extra if extra else ''})"


def rule_remedy(rule: Rule, catalog: Catalog) -> str:
    """The rule's remedy text followed by the API-map lines for the APIs it matches (what the
    report shows as a finding's remedy)."""
    rows = api_rows_for_rule(rule, catalog)
    if not rows:
        return rule.remedy
    return rule.remedy + "\nAPI map: " + "; ".join(api_line(r) for r in rows)


def list_rules(catalog: Catalog) -> list[tuple[str, ...]]:
    """Rows for ``migrate-lens rules``: (code, name, category, severity, porting, likely
    effort in hours), sorted by code; column titles in :data:`LIST_COLUMNS`."""
    return [
        (r.code, r.name, r.category, r.severity, r.porting, f"{r.effort.likely:g}")
        for r in catalog.rules
    ]


def _contexts(rule: Rule) -> str:
    ctx = list(rule.matcher.contexts)
    text = ", ".join(ctx)
    if "traced" in ctx and "function" not in ctx:
        text += " (functions reached from forward count as traced)"
    return text


def severity_by_context(rule: Rule) -> str:
    """``traced high, function medium, init low, host low``: the rule's severity in each
    context, from the severity table (:meth:`Rule.severity_in`)."""
    return ", ".join(f"{ctx} {rule.severity_in(ctx)}" for ctx in CONTEXTS)


def severity_table_markdown() -> list[str]:
    """The severity table (:data:`migrate_lens.severity.CEILING`) as Markdown lines: failure
    mode x context -> the highest severity a finding may carry there."""
    out = [
        "| failure mode | what a port that keeps the construct does | " + " | ".join(CONTEXTS) + " |",
        "| --- | --- | " + " | ".join("---" for _ in CONTEXTS) + " |",
    ]
    for mode in FAILURE_MODES:
        out.append(f"| `{mode}` | {FAILURE_DOC[mode]} | " + " | ".join(CEILING[mode][c] for c in CONTEXTS) + " |")
    return out


def explain_rule(rule: Rule, catalog: Catalog | None = None) -> str:
    """Plain-text explanation of one rule for ``migrate-lens explain CODE``: header, why,
    pattern, remedy (with API-map lines when ``catalog`` is given), effort, references and the
    rule's first flagged and clean examples."""
    remedy = rule_remedy(rule, catalog) if catalog is not None else rule.remedy
    effort = rule.effort
    parts = [
        f"{rule.code} {rule.name}",
        f"category: {rule.category}   failure: {rule.failure}   severity: {rule.severity}"
        + f"   confidence: {rule.confidence}   porting: {rule.porting}",
        f"severity by context: {severity_by_context(rule)}"
        + (" (a declaration: judged where it is used)" if rule.anchor == "use" else ""),
        f"effort per finding (hours): optimistic {effort.optimistic:g}, likely {effort.likely:g}, pessimistic {effort.pessimistic:g}",
        f"applies in: {_contexts(rule)}",
        "",
        "Why it blocks JAX:",
        _indent(rule.why),
        "",
        "PyTorch pattern:",
        _indent(rule.pattern),
        "",
        "JAX/Flax remedy:",
        _indent(remedy),
    ]
    if rule.references:
        parts += ["", "References:", *(f"  {u}" for u in rule.references)]
    parts += ["", "Flagged example:", _indent(rule.flagged_examples[0].strip("\n")),
              "", "Clean example:", _indent(rule.clean_examples[0].strip("\n"))]
    return "\n".join(parts) + "\n"


def _indent(text: str, prefix: str = "  ") -> str:
    return "\n".join(prefix + line if line else line for line in text.strip("\n").splitlines())


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_rules_markdown(catalog: Catalog) -> str:
    """The content of ``docs/rules.md``: an index by category, one section per rule (anchor
    ``#ml101``) with category, failure mode, severity by context, porting, effort, why, pattern, remedy, references and
    examples, after the severity table; then the API map as a table. Deterministic (sorted by code / torch name)."""
    out: list[str] = [
        "# migrate-lens rules",
        "",
        "<!-- Generated from rules/*.toml and rules/api_map.toml. Do not edit: run",
        "     `python -m migrate_lens.rulesdoc > docs/rules.md`. -->",
        "",
        f"{len(catalog.rules)} rules in {len({r.category for r in catalog.rules})} categories, "
        f"and an API map of {len(catalog.api)} torch names. Contexts: `traced` is forward/`__call__` "
        "of nn.Modules and what they call, `init` is constructors and weight init, `function` is "
        "code whose callers are not known yet, `host` is module level and `__main__`. A code's hundreds "
        "give its category (ML1xx control flow ... ML10xx ecosystem); a rule moved to another category "
        "keeps its code, so suppressions and baselines that name it stay valid: "
        + (", ".join(f"{r.code} ({r.code_range} -> {r.category})" for r in catalog.rules if r.code_range != r.category)
           or "none") + ".",
        "",
        "## Severity: failure mode x context",
        "",
        "Every rule states its failure mode (`failure`). A rule declares its severity for traced code; a "
        "finding's severity is that one (the rule's init severity in init code) capped by this table for "
        "the context it sits in. `high` and `critical` exist only for `error` and `silent` in traced code, "
        "`critical` only for `error` (no JAX route on the path that runs). A finding in a `function` whose "
        "callers turn out to be traced takes the `traced` column. A rule anchored at its *use* (an import, "
        "a kernel load, an `autograd.Function` class) takes the `traced` column wherever it sits. "
        "`migrate-lens check` blocks a commit at `high` by default, so only what fails or silently "
        "changes numbers under `jax.jit` blocks it.",
        "",
        *severity_table_markdown(),
        "",
        "## Index",
        "",
    ]
    for category in CATEGORIES:
        rules = [r for r in catalog.rules if r.category == category]
        if not rules:
            continue
        out.append(f"**{category}**: " + ", ".join(f"[{r.code}](#{r.code.lower()}) {r.name}" for r in rules))
        out.append("")
    for rule in catalog.rules:
        e = rule.effort
        out += [
            f'<a id="{rule.code.lower()}"></a>',
            f"## {rule.code} {rule.name}",
            "",
            "| category | failure | severity by context | confidence | porting | effort (h: optimistic / likely / pessimistic) | applies in |",
            "| --- | --- | --- | --- | --- | --- | --- |",
            f"| {rule.category} | {rule.failure} | {severity_by_context(rule)}"
            + (" (judged where used)" if rule.anchor == "use" else "")
            + f" | {rule.confidence} | {rule.porting} | {e.optimistic:g} / {e.likely:g} / {e.pessimistic:g} | {_contexts(rule)} |",
            "",
            f"**Message:** {rule.message}",
            "",
            f"**Why it blocks JAX.** {' '.join(rule.why.split())}",
            "",
            f"**PyTorch pattern.** {' '.join(rule.pattern.split())}",
            "",
            f"**Remedy.** {' '.join(rule.remedy.split())}",
            "",
        ]
        rows = api_rows_for_rule(rule, catalog)
        if rows:
            out.append("**API map.**")
            out.append("")
            out += [f"- `{r.torch}` -> `{r.jax or '-'}` ({r.kind}){': ' + _md_cell('; '.join(x for x in (r.args, r.note) if x)) if (r.args or r.note) else ''}" for r in rows]
            out.append("")
        if rule.references:
            out.append("**References.** " + ", ".join(f"<{u}>" for u in rule.references))
            out.append("")
        out += ["Flagged:", "", "```python", rule.flagged_examples[0].strip("\n"), "```", "",
                "Clean:", "", "```python", rule.clean_examples[0].strip("\n"), "```", ""]
    out += ["## API map", "", "| torch | JAX | kind | arguments | note |", "| --- | --- | --- | --- | --- |"]
    for a in catalog.api:
        out.append(f"| `{a.torch}` | {'`' + a.jax + '`' if a.jax else '-'} | {a.kind} | {_md_cell(a.args)} | {_md_cell(a.note)} |")
    return "\n".join(out) + "\n"


def main() -> int:
    """``python -m migrate_lens.rulesdoc``: print docs/rules.md for the shipped catalog."""
    sys.stdout.write(render_rules_markdown(load_catalog()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
