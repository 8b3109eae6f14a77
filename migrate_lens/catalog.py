"""The rule catalog: one TOML file per rule under ``rules/``, validated at load.

A rule is data: id, name, category, severity, effort, message, why, remedy, examples, and a
*matcher* (a kind from the engine's vocabulary in :mod:`migrate_lens.analysis.matchers` plus
parameters). Adding a rule is adding a file. The torch -> JAX API map (``rules/api_map.toml``)
is loaded here too, into :class:`ApiEntry` rows.

Errors: :class:`CatalogError` (one line naming the file and the key) for any malformed file.
"""

from __future__ import annotations

import hashlib
import math
import re
import tomllib
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from migrate_lens.discover import read_input_file
from migrate_lens.gctools import gc_paused
from migrate_lens.models import CATEGORIES, CONFIDENCES, CONTEXTS, PORTING_KINDS, SEVERITIES
from migrate_lens.rules_parsed import digest as table_digest
from migrate_lens.rules_parsed import load_tables
from migrate_lens.severity import ANCHORS, CEILING, FAILURE_MODES, cap, severity_in

#: Code ranges by category (hundreds), as in ruff/bandit: ML1xx control flow, ML2xx shapes, ...
CATEGORY_PREFIX: dict[str, str] = {
    "other": "ML0",
    "dynamic-control-flow": "ML1",
    "data-dependent-shape": "ML2",
    "in-place-mutation": "ML3",
    "custom-op": "ML4",
    "side-effect": "ML5",
    "rng": "ML6",
    "module-state": "ML7",
    "device": "ML8",
    "layout/numerics": "ML9",
    "ecosystem-dependency": "ML10",
}

API_KINDS: tuple[str, ...] = ("DIRECT", "ARG_CHANGE", "DIFFERENT_SEMANTICS", "NO_EQUIVALENT")

_RULE_KEYS = {
    "code", "name", "category", "severity", "confidence", "porting", "effort_hours", "message",
    "why", "pattern", "remedy", "references", "matcher", "examples", "init_severity",
    "failure", "anchor", "folds", "fold_severity", "fallback", "code_range",
}
_REQUIRED = _RULE_KEYS - {"references", "init_severity", "anchor", "folds", "fold_severity", "fallback", "code_range"}
_MATCHER_KEYS = {"kind", "contexts", "params"}
_EFFORT_KEYS = ("optimistic", "likely", "pessimistic")
_CODE_RE = re.compile(r"^ML\d{3,4}$")
_NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class CatalogError(ValueError):
    """A rule or API-map file is malformed. ``str(err)`` is one line: ``file: key: problem``."""


@dataclass(frozen=True, slots=True)
class Effort:
    """Three-point effort estimate for fixing one finding, in hours (PERT inputs)."""

    optimistic: float
    likely: float
    pessimistic: float


@dataclass(frozen=True, slots=True)
class Matcher:
    """Which engine matcher finds the rule, where it applies (:data:`CONTEXTS`), with what
    parameters (a sorted tuple of ``(key, value)``; values are TOML scalars or tuples)."""

    kind: str
    contexts: tuple[str, ...]
    params: tuple[tuple[str, Any], ...]

    def param(self, key: str, default: Any = None) -> Any:
        """The parameter ``key`` or ``default``."""
        for k, v in self.params:
            if k == key:
                return v
        return default


@dataclass(frozen=True, slots=True)
class Rule:
    """One catalog entry. ``porting`` is what fixing it takes (:data:`PORTING_KINDS`);
    ``failure`` what a port that keeps the construct does (:data:`severity.FAILURE_MODES`);
    ``severity`` is the one in traced code and ``init_severity`` replaces it in init code
    (runs once, untraced); :meth:`severity_in` caps either by the severity table
    (:data:`severity.CEILING`). ``anchor`` is ``site`` or ``use`` (a declaration judged where
    it is used). ``folds`` are the codes this rule absorbs when both fire on one construct
    (:mod:`migrate_lens.fold`); ``fold_severity`` "max" (the kept finding takes the higher
    severity) or "own" (it keeps its own: what it absorbs goes away with it, as the host read
    inside an input check that a port drops). ``fallback`` is the code a finding is re-coded to when its
    file also holds a pure-PyTorch route for the kernel (:mod:`migrate_lens.analysis.routes`).
    ``code_range`` is the category whose hundreds the code sits in: the category itself, except
    for a rule moved to another category after release, which keeps its code (a stable
    identifier that suppression comments, configs and baselines name, as ruff keeps its codes)."""

    code: str
    name: str
    category: str
    severity: str
    confidence: str
    porting: str
    effort: Effort
    message: str
    why: str
    pattern: str
    remedy: str
    references: tuple[str, ...]
    matcher: Matcher
    flagged_examples: tuple[str, ...]
    clean_examples: tuple[str, ...]
    init_severity: str
    source_file: str
    failure: str = "rewrite"
    anchor: str = "site"
    folds: tuple[str, ...] = ()
    fallback: str = ""
    fold_severity: str = "max"
    code_range: str = ""

    def severity_in(self, context: str) -> str:
        """Severity of this rule's finding in ``context`` (:data:`CONTEXTS`), from the one
        severity table (:func:`migrate_lens.severity.severity_in`)."""
        return severity_in(self.failure, self.anchor, self.severity, self.init_severity, context)


@dataclass(frozen=True, slots=True)
class ApiEntry:
    """One row of the torch -> JAX API map. ``torch`` is a dotted name (``torch.cat``) or a
    tensor method (``Tensor.view``); ``kind`` is one of :data:`API_KINDS`; ``args`` describes
    argument changes (``dim->axis``). ``failure``, ``clean_if`` and ``only_with`` say when a
    call is a finding of the map's own rules (matcher ``api-map``)."""

    torch: str
    jax: str
    kind: str
    args: str
    note: str
    #: what a port that calls the JAX side as if it were the torch one does
    #: (:data:`severity.FAILURE_MODES`); default ``error`` for NO_EQUIVALENT, ``silent`` for
    #: DIFFERENT_SEMANTICS, ``rewrite`` otherwise. ``rewrite`` rows are not findings.
    failure: str = "rewrite"
    #: ``((argument, (literal, ...)), ...)``: a call passing one of these literals ports
    #: exactly (``unbiased=False`` for ``var``)
    clean_if: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    #: a call is a trap only when it passes one of these arguments with a value other than
    #: 0/0.0/None/False (``dropout_p`` for SDPA); ``name=*``: with any value but None
    #: (``ignore_index=0`` skips class 0)
    only_with: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Catalog:
    """All rules (sorted by code), the API map, and a content hash (for cache keys)."""

    rules: tuple[Rule, ...]
    api: tuple[ApiEntry, ...]
    digest: str

    def by_code(self) -> dict[str, Rule]:
        """Rules keyed by code."""
        return {r.code: r for r in self.rules}

    def api_by_name(self) -> dict[str, ApiEntry]:
        """API map rows keyed by their torch name."""
        return {a.torch: a for a in self.api}


def default_rules_dir() -> Path:
    """The shipped catalog: ``migrate_lens/_rules`` in a wheel, ``rules/`` in a source tree."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_rules", here.parent / "rules"):
        if candidate.is_dir():
            return candidate
    raise CatalogError(f"{here}: no rule catalog found (expected _rules/ or ../rules/)")


def _fail(path: Path, key: str, problem: str) -> CatalogError:
    return CatalogError(f"{path.name}: {key}: {problem}")


def _choice(path: Path, data: dict[str, Any], key: str, allowed: tuple[str, ...]) -> str:
    value = data.get(key)
    if value not in allowed:
        return_err = f"must be one of {', '.join(allowed)}, got {value!r}"
        raise _fail(path, key, return_err)
    return str(value)


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


def parse_rule(path: Path, data: dict[str, Any]) -> Rule:
    """Validate one rule file's TOML table. Raises :class:`CatalogError` on any problem."""
    unknown = set(data) - _RULE_KEYS
    if unknown:
        raise _fail(path, sorted(unknown)[0], "unknown key")
    missing = _REQUIRED - set(data)
    if missing:
        raise _fail(path, sorted(missing)[0], "missing")
    code = str(data["code"])
    if not _CODE_RE.match(code):
        raise _fail(path, "code", f"must look like ML123, got {code!r}")
    name = str(data["name"])
    if not _NAME_RE.match(name):
        raise _fail(path, "name", f"must be kebab-case, got {name!r}")
    category = _choice(path, data, "category", CATEGORIES)
    code_range = _choice(path, data, "code_range", CATEGORIES) if "code_range" in data else category
    if code_range == category and "code_range" in data:
        raise _fail(path, "code_range", f"equals the category {category!r}: drop it")
    prefix = CATEGORY_PREFIX[code_range]
    if not code.startswith(prefix) or len(code) != len(prefix) + 2:
        raise _fail(path, "code", f"{code} is outside the {code_range} range {prefix}xx")
    severity = _choice(path, data, "severity", SEVERITIES)
    init_severity = str(data.get("init_severity", severity))
    if init_severity not in SEVERITIES:
        raise _fail(path, "init_severity", f"must be one of {', '.join(SEVERITIES)}")
    failure = _choice(path, data, "failure", FAILURE_MODES)
    anchor = str(data.get("anchor", "site"))
    if anchor not in ANCHORS:
        raise _fail(path, "anchor", f"must be one of {', '.join(ANCHORS)}, got {anchor!r}")
    top = CEILING[failure]["traced"]
    if cap(severity, top) != severity:
        raise _fail(path, "severity", f"{severity} is above {top}, the most a {failure!r} rule may be (severity table)")
    init_top = CEILING[failure]["traced" if anchor == "use" else "init"]
    if "init_severity" in data and cap(init_severity, init_top) != init_severity:
        raise _fail(path, "init_severity", f"{init_severity} is above {init_top}, the most a {failure!r} rule may be in init code")
    folds = data.get("folds", [])
    if not isinstance(folds, list) or not all(isinstance(c, str) and _CODE_RE.match(c) for c in folds):
        raise _fail(path, "folds", "must be a list of rule codes")
    fold_severity = str(data.get("fold_severity", "max"))
    if fold_severity not in ("max", "own"):
        raise _fail(path, "fold_severity", f"must be 'max' or 'own', got {fold_severity!r}")
    fallback = str(data.get("fallback", ""))
    if fallback and not _CODE_RE.match(fallback):
        raise _fail(path, "fallback", f"must be a rule code, got {fallback!r}")
    effort_raw = data["effort_hours"]
    if not isinstance(effort_raw, dict) or set(effort_raw) != set(_EFFORT_KEYS):
        raise _fail(path, "effort_hours", "needs exactly optimistic, likely, pessimistic")
    try:
        o, m, p = (float(effort_raw[k]) for k in _EFFORT_KEYS)
    except (TypeError, ValueError) as exc:
        raise _fail(path, "effort_hours", f"not a number ({exc})") from None
    if not all(math.isfinite(v) for v in (o, m, p)):
        raise _fail(path, "effort_hours", "must be finite numbers (no inf or nan)")
    if not 0 <= o <= m <= p <= 10_000:
        raise _fail(path, "effort_hours", "needs 0 <= optimistic <= likely <= pessimistic <= 10000")
    matcher_raw = data["matcher"]
    if not isinstance(matcher_raw, dict):
        raise _fail(path, "matcher", "must be a table")
    bad = set(matcher_raw) - _MATCHER_KEYS
    if bad:
        raise _fail(path, f"matcher.{sorted(bad)[0]}", "unknown key")
    from migrate_lens.analysis.matchers import MATCHERS  # the engine's vocabulary

    kind = str(matcher_raw.get("kind", ""))
    if kind not in MATCHERS:
        raise _fail(path, "matcher.kind", f"unknown matcher {kind!r}; known: {', '.join(sorted(MATCHERS))}")
    contexts_raw = matcher_raw.get("contexts", list(CONTEXTS))
    if not isinstance(contexts_raw, list) or not all(isinstance(c, str) for c in contexts_raw):
        raise _fail(path, "matcher.contexts", f"must be a list of strings (of {', '.join(CONTEXTS)})")
    contexts = tuple(contexts_raw)
    for ctx in contexts:
        if ctx not in CONTEXTS:
            raise _fail(path, "matcher.contexts", f"unknown context {ctx!r}")
    params = matcher_raw.get("params", {})
    if not isinstance(params, dict):
        raise _fail(path, "matcher.params", "must be a table")
    examples = data["examples"]
    if not isinstance(examples, dict) or set(examples) - {"flagged", "clean"}:
        raise _fail(path, "examples", "must be a table with flagged and clean lists")
    flagged = tuple(str(x) for x in examples.get("flagged", []))
    clean = tuple(str(x) for x in examples.get("clean", []))
    if not flagged or not clean:
        raise _fail(path, "examples", "needs at least one flagged and one clean example")
    refs = data.get("references", [])
    if not isinstance(refs, list):
        raise _fail(path, "references", "must be a list of URLs")
    return Rule(
        code=code,
        name=name,
        category=category,
        severity=severity,
        confidence=_choice(path, data, "confidence", CONFIDENCES),
        porting=_choice(path, data, "porting", PORTING_KINDS),
        effort=Effort(o, m, p),
        message=str(data["message"]).strip(),
        why=str(data["why"]).strip(),
        pattern=str(data["pattern"]).strip(),
        remedy=str(data["remedy"]).strip(),
        references=tuple(str(r) for r in refs),
        matcher=Matcher(kind=kind, contexts=contexts, params=_freeze(params)),
        flagged_examples=flagged,
        clean_examples=clean,
        init_severity=init_severity,
        source_file=path.name,
        failure=failure,
        anchor=anchor,
        folds=tuple(folds),
        fallback=fallback,
        fold_severity=fold_severity,
        code_range=code_range,
    )


def _load_toml(path: Path, raw: bytes) -> dict[str, Any]:
    """``raw`` (the bytes of the file ``path``) parsed as TOML, as ``tomllib.load`` would."""
    try:
        with gc_paused():  # see config.load_config: no finalizers at depth
            return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise CatalogError(f"{path.name}: invalid TOML: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{path.name}: invalid TOML: {exc}") from None
    except RecursionError:
        raise CatalogError(f"{path.name}: invalid TOML: nested too deeply") from None


def parse_api_map(path: Path, data: dict[str, Any]) -> tuple[ApiEntry, ...]:
    """Validate ``api_map.toml`` (``[[api]]`` rows with torch, jax, kind, args, note)."""
    rows = data.get("api")
    if not isinstance(rows, list):
        raise _fail(path, "api", "must be an array of tables ([[api]])")
    out: list[ApiEntry] = []
    seen: set[str] = set()
    for i, row in enumerate(rows):
        where = f"api[{i}]"
        if not isinstance(row, dict):
            raise _fail(path, where, "must be a table")
        bad = set(row) - {"torch", "jax", "kind", "args", "note", "failure", "clean_if", "only_with"}
        if bad:
            raise _fail(path, f"{where}.{sorted(bad)[0]}", "unknown key")
        if row.get("kind") not in API_KINDS:
            raise _fail(path, f"{where}.kind", f"must be one of {', '.join(API_KINDS)}")
        name = str(row.get("torch", ""))
        if not name or name in seen:
            raise _fail(path, f"{where}.torch", f"empty or duplicate {name!r}")
        seen.add(name)
        default_failure = {"NO_EQUIVALENT": "error", "DIFFERENT_SEMANTICS": "silent"}.get(str(row["kind"]), "rewrite")
        failure = str(row.get("failure", default_failure))
        if failure not in FAILURE_MODES:
            raise _fail(path, f"{where}.failure", f"must be one of {', '.join(FAILURE_MODES)}")
        clean_if = row.get("clean_if", {})
        only_with = row.get("only_with", [])
        if not isinstance(clean_if, dict) or not all(isinstance(v, list) for v in clean_if.values()):
            raise _fail(path, f"{where}.clean_if", "must be a table of argument = [literals]")
        if not isinstance(only_with, list) or not all(isinstance(v, str) for v in only_with):
            raise _fail(path, f"{where}.only_with", "must be a list of argument names")
        out.append(ApiEntry(name, str(row.get("jax", "")), str(row["kind"]), str(row.get("args", "")), str(row.get("note", "")),
                            failure, tuple(sorted((k, tuple(v)) for k, v in clean_if.items())), tuple(only_with)))
    return tuple(sorted(out, key=lambda a: a.torch))


def _with_api_table(rule: Rule, api: tuple[ApiEntry, ...]) -> Rule:
    """An ``api-map`` rule with its rows as the matcher's ``table`` parameter: the map's rows
    whose kind is in the rule's ``kinds`` and whose failure is not ``rewrite``, as
    ``(torch name, ApiEntry)`` pairs (the matcher stays a function of site and parameters)."""
    if rule.matcher.kind != "api-map":
        return rule
    kinds = rule.matcher.param("kinds") or API_KINDS
    table = tuple((a.torch, a) for a in api if a.kind in kinds and a.failure != "rewrite")
    params = tuple(sorted((*[(k, v) for k, v in rule.matcher.params if k != "table"], ("table", table)), key=lambda kv: kv[0]))
    return replace(rule, matcher=Matcher(rule.matcher.kind, rule.matcher.contexts, params))


def _merge_shape(value: Any, into: dict[str, Any]) -> None:
    """Add ``value``'s TOML shape to ``into``: ``scalars`` (the set of ``str``/``bool``/``number``
    met), ``list`` (the merged shape of list items), ``table`` (of table values)."""
    if isinstance(value, list):
        sub = into.setdefault("list", {})
        for item in value:
            _merge_shape(item, sub)
    elif isinstance(value, dict):
        sub = into.setdefault("table", {})
        for item in value.values():
            _merge_shape(item, sub)
    else:
        into.setdefault("scalars", set()).add(_scalar_kind(value))


def _scalar_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "str" if isinstance(value, str) else type(value).__name__


def _fits(value: Any, shape: dict[str, Any]) -> bool:
    if isinstance(value, list):
        return "list" in shape and all(_fits(item, shape["list"]) for item in value)
    if isinstance(value, dict):
        return "table" in shape and all(_fits(item, shape["table"]) for item in value.values())
    return _scalar_kind(value) in shape.get("scalars", ())


def _describe(shape: dict[str, Any], plural: bool = False) -> str:
    """``shape`` in words: "a list of strings", "true or false", "a table of lists of numbers"."""
    words = {"str": ("a string", "strings"), "bool": ("true or false", "booleans"), "number": ("a number", "numbers")}
    parts = [words.get(k, (k, k))[plural] for k in sorted(shape.get("scalars", ()))]
    for kind in ("list", "table"):
        if kind in shape:
            head = f"{kind}s" if plural else f"a {kind}"
            parts.append(f"{head} of {_describe(shape[kind], True)}" if shape[kind] else head)
    return " or ".join(parts) or "nothing"


def add_param_shapes(params: dict[str, Any], shapes: dict[str, dict[str, Any]]) -> None:
    """Merge a shipped rule's raw matcher ``params`` (its TOML table) into ``shapes``: parameter
    name -> the TOML shape the shipped rules give it (see :func:`check_params`)."""
    for key, value in params.items():
        _merge_shape(value, shapes.setdefault(key, {}))


def check_params(path: Path, params: Any, shapes: dict[str, dict[str, Any]]) -> None:
    """Refuse a user rule's matcher parameter whose TOML type differs from what the shipped
    rules give that parameter (``methods = [1, {a = 2}]`` where every shipped rule has a list
    of strings): the matchers read parameters while they match, and a wrong type would fail
    there, in every file, as a traceback. A parameter no shipped rule sets is left to the
    matcher. Raises :class:`CatalogError` naming the file and the key."""
    if not isinstance(params, dict):
        return  # (parse_rule refused it already)
    for key, value in params.items():
        shape = shapes.get(key)
        if shape is not None and not _fits(value, shape):
            raise _fail(path, f"matcher.params.{key}", f"must be {_describe(shape)}, as in the shipped rules")


def load_catalog(extra_dirs: tuple[Path, ...] = ()) -> Catalog:
    """Load and validate the shipped catalog plus any user rule folders.

    Raises :class:`CatalogError` for a malformed file or a duplicate code/name.
    """
    return _load_catalog_cached(tuple(p.resolve() for p in extra_dirs))


@lru_cache(maxsize=8)
def _load_catalog_cached(extra_dirs: tuple[Path, ...]) -> Catalog:
    base = default_rules_dir()
    digest = hashlib.sha256()
    rules: dict[str, Rule] = {}
    names: set[str] = set()
    api: tuple[ApiEntry, ...] = ()
    shapes: dict[str, dict[str, Any]] = {}  # matcher parameter -> its TOML shape in the shipped rules
    for folder in (base, *extra_dirs):
        if not folder.is_dir():
            raise CatalogError(f"{folder}: rule folder does not exist")
        # the shipped files' tables parsed ahead of time, by the digest of their bytes (an
        # edited file has none): ~60 ms of tomllib per process (migrate_lens/rules_parsed.py)
        tables = load_tables() if folder == base else {}
        for path in sorted(folder.glob("*.toml")):
            try:
                raw = read_input_file(path, 16 << 20)  # (a FIFO or /dev/zero named *.toml: never read)
            except OSError as exc:
                raise CatalogError(f"{path.name}: cannot read: {exc.strerror}") from None
            digest.update(path.name.encode() + b"\0" + raw)
            data = tables.pop(table_digest(raw), None) if tables else None
            if not isinstance(data, dict):
                data = _load_toml(path, raw)
            if path.name == "api_map.toml":
                api = api + parse_api_map(path, data)
                continue
            rule = parse_rule(path, data)
            params = data["matcher"].get("params", {})
            if folder == base:
                add_param_shapes(params, shapes)
            else:  # a user's rule: its matcher parameters take the shipped rules' types
                check_params(path, params, shapes)
            if rule.code in rules:
                raise _fail(path, "code", f"duplicate code {rule.code} (also in {rules[rule.code].source_file})")
            if rule.name in names:
                raise _fail(path, "name", f"duplicate name {rule.name}")
            rules[rule.code] = rule
            names.add(rule.name)
    for rule in rules.values():
        for code in rule.folds:
            if code not in rules or code == rule.code:
                raise CatalogError(f"{rule.source_file}: folds: {code} is not another rule of the catalog")
        if rule.fallback and (rule.fallback not in rules or rule.fallback == rule.code):
            raise CatalogError(f"{rule.source_file}: fallback: {rule.fallback} is not another rule of the catalog")
    ordered = tuple(sorted((_with_api_table(r, api) for r in rules.values()), key=lambda r: r.code))
    return Catalog(rules=ordered, api=api, digest=digest.hexdigest())
