"""The matcher vocabulary: what a rule file's ``[matcher] kind = ...`` can name.

Each matcher consumes one site kind (see :mod:`.sites`) and, with the rule's parameters,
decides whether the site is the obstacle. It returns a short *detail* (the callee, the
construct, ...) that fills ``{detail}`` in the rule's message, or ``None`` for no match.
Matchers are pure functions of (site, parameters): no I/O, no state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import re
from fnmatch import fnmatchcase, translate
from typing import TYPE_CHECKING, Any, Callable

from migrate_lens.analysis import kinds as K
from migrate_lens.analysis.sites import NOT_LITERAL, Site

if TYPE_CHECKING:
    from migrate_lens.catalog import Matcher

MatchFn = Callable[[Site, "Matcher"], "str | None"]


@dataclass(frozen=True, slots=True)
class GatePart:
    """One half of a :class:`CallGate`: a string (a callee name, or a method name) passes when
    it is one of ``exact`` or matches one of the fnmatch ``globs`` (:func:`glob_matcher`);
    with ``nonempty``, "" never passes."""

    globs: tuple[str, ...] = ()
    exact: frozenset[str] = frozenset()
    nonempty: bool = True
    _match: Callable[[str], bool] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_match", glob_matcher(self.globs))

    def test(self, value: str) -> bool:
        """``value`` passes this part."""
        if self.nonempty and not value:
            return False
        return value in self.exact or self._match(value)


@dataclass(frozen=True, slots=True)
class CallGate:
    """A necessary condition (never a sufficient one) for a call-site rule to match a call to
    ``name`` / ``.method``, whatever its arguments: ``names`` passes the name or ``methods``
    passes the method (a part that is None never passes). The two halves are separate so that
    the engine tests each once per distinct callee name and once per distinct method name
    (:class:`~.engine.RuleIndex`), not once per (name, method) pair."""

    names: GatePart | None = None
    methods: GatePart | None = None

    def __call__(self, name: str, method: str) -> bool:
        return (self.names is not None and self.names.test(name)) or (
            self.methods is not None and self.methods.test(method))


def _globs(patterns: Any) -> tuple[str, ...]:
    """A glob parameter (one glob, a sequence, or nothing) as a tuple."""
    if not patterns:
        return ()
    return (patterns,) if isinstance(patterns, str) else tuple(patterns)


@dataclass(frozen=True, slots=True)
class MatcherSpec:
    """A matcher: the site kind it reads, its function and a one-line description. ``gate``
    (call matchers only) builds, once per rule, the :class:`CallGate` that lets the engine skip
    the rule for a callee before any call site of it is matched: the engine tests a gate's halves
    once per distinct callee name and method name, the matcher runs once per call site."""

    site_kind: str
    fn: MatchFn
    doc: str
    gate: Callable[["Matcher"], CallGate] | None = None
    #: (call matchers) False when the matcher reads nothing that a hypothesis on a symbolic
    #: input changes (the receiver's, arguments' or result's value kind, an extra computed
    #: under the hypothesis): its verdict on a call's variant sites (``Site.requires``) is
    #: then its verdict on the call's own site. True (the safe default) otherwise.
    reads_kinds: bool = True
    #: (call matchers) a keyword argument without which the matcher never matches a call
    #: ("" when there is none)
    keyword: str = ""
    #: (call matchers) a ``Site.data`` entry without whose true value the matcher never
    #: matches ("" when there is none)
    flag: str = ""
    #: (call matchers) the keyword arguments, read from one rule's parameters, without any
    #: of which that rule never matches a call (each one is required: :func:`rule_keywords`)
    rule_keywords: Callable[["Matcher"], tuple[str, ...]] | None = None
    #: the matcher never matches a site whose ``name`` fails the rule's ``names`` globs
    #: (:func:`match_name`): the engine tries a rule only on the names that pass them
    names_required: bool = False


def call_gate(m: "Matcher") -> CallGate | None:
    """The :class:`CallGate` of a call-site rule (its matcher's :attr:`MatcherSpec.gate`), or
    None when every call must be tried."""
    make = MATCHERS[m.kind].gate
    return None if make is None else make(m)


def rule_keywords(m: "Matcher") -> tuple[str, ...]:
    """The keyword arguments a call must pass for the rule of matcher ``m`` to match it, from
    its own parameters (its matcher's :attr:`MatcherSpec.rule_keywords`): () when none is."""
    get = MATCHERS[m.kind].rule_keywords
    return () if get is None else get(m)


def names_pass(m: "Matcher", name: str) -> bool:
    """``name`` matches the ``names`` globs of the rule of matcher ``m`` (a necessary
    condition of :func:`match_name`, :attr:`MatcherSpec.names_required`)."""
    return _any_glob(name, _param(m, "names"))


def _call_keywords(m: "Matcher") -> tuple[str, ...]:
    """:func:`match_call`'s required keywords: ``has_kwarg`` and ``kwarg_true`` name a keyword
    that :func:`_kwargs_ok` reads with :func:`_arg`, which finds it only among the call's
    keyword arguments when it is a name (not a positional index) that ``arg_positions`` gives
    no position (``ML302``'s ``out=``, ``ML805``'s ``pin_memory=``; not ``ML303``'s ``inplace``,
    positional for ``nn.ReLU``). On core, 3 of the 4 rules tried on every ``torch.*`` call
    (14k of 25k ``match_call`` runs on 1/8 of core, each failing) end there."""
    positions = _table(_param(m, "arg_positions"))
    out: list[str] = []
    for key in ("has_kwarg", "kwarg_true"):
        value = _param(m, key)
        if isinstance(value, str) and value and not value.isdigit() and not _table(positions.get(value)):
            out.append(value)
    return tuple(out)


def _gate_names_or_methods(m: "Matcher") -> CallGate:
    """A call whose resolved name matches ``names`` or whose method matches ``methods``."""
    return CallGate(GatePart(_globs(_param(m, "names"))), GatePart(_globs(_param(m, "methods"))))


def _gate_names(m: "Matcher") -> CallGate:
    """A call whose resolved name matches ``names`` (an empty name is tested too)."""
    return CallGate(GatePart(_globs(_param(m, "names")), nonempty=False))


def _gate_method(expected: str) -> Callable[["Matcher"], CallGate]:
    """A call of the method ``expected``."""
    return lambda m: CallGate(methods=GatePart(exact=frozenset({expected})))


_GLOB_CACHE: dict[Any, Callable[[str], bool]] = {}
_PARAM_CACHE: dict[int, tuple["Matcher", dict[str, Any]]] = {}


def _param(m: "Matcher", key: str, default: Any = None) -> Any:
    """``m.param(key, default)`` through a per-matcher dict (:func:`_params`)."""
    return _params(m).get(key, default)


def _params(m: "Matcher") -> dict[str, Any]:
    """``m``'s parameters as a dict, built once per matcher (the cache keeps ``m`` alive, so
    its id is never reused while cached)."""
    entry = _PARAM_CACHE.get(id(m))
    if entry is None or entry[0] is not m:
        entry = (m, dict(m.params))
        _PARAM_CACHE[id(m)] = entry
    return entry[1]


def glob_matcher(patterns: Any) -> Callable[[str], bool]:
    """``value -> bool``: ``value`` matches one of the fnmatch ``patterns`` (one glob or a
    sequence; case-sensitive; none matches nothing), compiled once into a single regex and
    cached by pattern (call sites x rules is the hot loop; the report matches every rule
    against the API map). A pattern object met before (a rule's parameter, asked at every call
    site) is found by identity, without hashing its globs again."""
    if not patterns:
        return _never
    seen = _GLOB_BY_ID.get(id(patterns))
    if seen is not None and seen[0] is patterns:
        return seen[1]
    key = patterns if isinstance(patterns, (str, tuple)) else tuple(patterns)
    match = _GLOB_CACHE.get(key)
    if match is None:
        globs = (key,) if isinstance(key, str) else key
        rx = re.compile("|".join(f"(?:{translate(g)})" for g in globs))
        match = _GLOB_CACHE[key] = lambda value: rx.match(value) is not None
    _GLOB_BY_ID[id(patterns)] = (patterns, match)  # (holds patterns: its id is never reused while cached)
    return match


#: :func:`glob_matcher` by the identity of the pattern object: id -> (patterns, matcher)
_GLOB_BY_ID: dict[int, tuple[Any, Callable[[str], bool]]] = {}


def _never(value: str) -> bool:
    return False


def _any_glob(value: str, patterns: Any) -> bool:
    """``value`` matches one of the fnmatch ``patterns`` (see :func:`glob_matcher`)."""
    return glob_matcher(patterns)(value)


def _kinds(m: "Matcher", key: str, default: tuple[str, ...]) -> tuple[str, ...]:
    value = _param(m, key, default)
    return (value,) if isinstance(value, str) else tuple(value)


def _table(value: Any) -> dict[str, Any]:
    """A frozen TOML table (sorted tuple of pairs, see ``catalog._freeze``) as a dict."""
    if not value:
        return {}
    if isinstance(value, dict):
        return value
    return {k: v for k, v in value}


def _call_target(site: Site) -> str:
    """The name a call is looked up by in per-name tables: the resolved callee, or
    ``Tensor.<method>`` for a method call on a tensor-like receiver."""
    return site.name or (f"Tensor.{site.method}" if site.method else "")


def _arg(site: Site, m: "Matcher", key: str) -> tuple[str, Any] | None:
    """``(kind, literal)`` of the argument ``key`` (a keyword name, or a positional index as a
    string), or None when absent. A keyword's positional index comes from the rule's
    ``arg_positions`` table (``{eps = {"torch.nn.LayerNorm" = 1}}``: callee glob -> index)."""
    kwargs: dict[str, tuple[str, Any]] = site.data.get("kwargs", {})
    args: tuple[tuple[str, Any], ...] = site.data.get("args", ())
    if key.isdigit():
        i = int(key)
        return args[i] if i < len(args) else None
    if key in kwargs:
        return kwargs[key]
    idx = _position_of(site, m, key)
    if idx is None:
        return None
    return args[idx] if idx < len(args) else None


_POSITION_MEMO: dict[tuple[int, str, str, int], tuple["Matcher", int | None]] = {}


def _position_of(site: Site, m: "Matcher", key: str) -> int | None:
    """Positional index of argument ``key`` for this callee, from ``arg_positions`` (the most
    specific matching glob first), memoized per (matcher, key, callee, number of positional
    arguments): the same callees recur at every call site. A glob ending in ``#<n>`` applies
    only to calls with ``n`` positional arguments and wins over the plain glob: overloads
    that move an argument (``torch.repeat_interleave(repeats)`` against
    ``torch.repeat_interleave(input, repeats)``)."""
    target = _call_target(site)
    arity = len(site.data.get("args", ()))
    memo_key = (id(m), key, target, arity)
    hit = _POSITION_MEMO.get(memo_key)
    if hit is not None and hit[0] is m:
        return hit[1]
    found: int | None = None
    positions = _table(_table(_param(m, "arg_positions")).get(key))
    by_arity = f"#{arity}"
    for glob, idx in sorted(positions.items(), key=lambda kv: ("#" not in kv[0], -len(kv[0]), kv[0])):
        # arity-specific globs first, then the most specific
        pattern, sep, n = glob.partition("#")
        if sep and "#" + n != by_arity:
            continue
        if fnmatchcase(target, pattern):
            found = int(idx)
            break
    _POSITION_MEMO[memo_key] = (m, found)  # (holds m: its id is never reused while cached)
    return found


def _kwargs_ok(site: Site, m: "Matcher") -> bool:
    """Shared argument conditions of call-like matchers (see :func:`match_call`); the rule's
    parameters are read from its one dict (:func:`_params`)."""
    p = _params(m)
    kwargs: dict[str, tuple[str, Any]] = site.data.get("kwargs", {})
    args: tuple[tuple[str, Any], ...] = site.data.get("args", ())
    kw_true = p.get("kwarg_true")
    if kw_true:
        got = _arg(site, m, kw_true)
        if got is None or got[1] is not True:
            return False
    kw_not_true = p.get("kwarg_not_true")
    if kw_not_true:
        got = _arg(site, m, kw_not_true)
        if got is not None and (got[1] is True or got[1] is NOT_LITERAL):
            return False
    any_kw = p.get("has_any_kwarg")
    if any_kw and not any(k in kwargs and kwargs[k][1] not in (None, False) for k in any_kw):
        return False
    has_kw = p.get("has_kwarg")
    if has_kw and _arg(site, m, has_kw) is None:
        return False
    for key in p.get("skip_if_kwarg") or ():
        got = kwargs.get(key)
        if got is not None and got[1] is not None:
            return False  # (`DataLoader(ds, batch_sampler=s)`: the sampler makes the batches)
    missing = p.get("missing_kwarg")
    if missing:
        # a `**kw` splat may pass the keyword; a `*args` splat only when it has a position
        # (`torch.rand(2, *shape)` cannot pass the keyword-only `generator`)
        idx = p.get("missing_positional_index")
        if site.data.get("kwsplat", site.data.get("star")) or (site.data.get("star") and (
                idx is not None or _position_of(site, m, missing) is not None)):
            return False
        if _arg(site, m, missing) is not None:
            return False
        if idx is not None and len(args) > int(idx):
            return False
    for key, values in _table(p.get("missing_or_literal")).items():
        got = _arg(site, m, key)
        if got is None:
            if site.data.get("star"):
                return False  # (a splat may pass it)
        elif got[1] is NOT_LITERAL or not _literal_in(got[1], values):
            return False
    constant = p.get("constant_receiver")
    if constant is not None and bool(site.data.get("receiver_constant")) != constant:
        return False
    for key, wanted in _table(p.get("constant_arg")).items():
        index = _position_of(site, m, key)
        held = site.data.get("constant_args", ())
        if (key in held or (index is not None and str(index) in held)) != bool(wanted):
            return False
    ceil_key = p.get("ceil_division_arg")
    if ceil_key:
        index = _position_of(site, m, ceil_key)
        ceil = site.data.get("ceil_args", ())
        if not (ceil_key in ceil or (index is not None and str(index) in ceil)):
            return False
    exact = p.get("exact_positional")
    if exact is not None:
        if site.data.get("star") or len(args) != int(exact) or set(kwargs) - {"input", "condition"}:
            return False
    kw_literal = p.get("kwarg_literal")
    if kw_literal:
        for key, wanted in _table(kw_literal).items():
            got = _arg(site, m, key)
            value = got[1] if got else NOT_LITERAL
            if got is not None and value is NOT_LITERAL:
                # a parameter of the enclosing function passed on as it came, whose literal
                # default is the value (`def tokenize(self, texts, padding=True)` then
                # `self.tokenizer(texts, padding=padding)`): the common call
                index = _position_of(site, m, key)
                defaults = site.data.get("param_default_args", {})
                value = defaults.get(key, defaults.get(str(index), NOT_LITERAL)) if defaults else NOT_LITERAL
            if value is NOT_LITERAL and key == "0" and p.get("or_string_prefix") is True:
                # `torch.device("cuda:" + str(rank))`, `torch.device(f"cuda:{rank}")`: a string
                # built from a literal start, matched by that start
                value = site.data.get("arg0_prefix") or NOT_LITERAL
                if value is NOT_LITERAL:
                    # `torch.device("cuda" if use_gpu else "cpu")`: a choice between literals,
                    # matched when one of them is wanted
                    value = next((c for c in site.data.get("arg0_choices", ()) if _any_glob(c, wanted)), NOT_LITERAL)
            if isinstance(value, bool):
                value = str(value)  # (`padding=True` matched as "True")
            if not (isinstance(value, str) and _any_glob(value, wanted)):
                return False
    for key, values in _table(p.get("skip_if_literal")).items():
        got = _arg(site, m, key)
        if got is not None and got[1] is not NOT_LITERAL and _literal_in(got[1], values):
            return False
        if got is not None and got[1] is NOT_LITERAL and p.get("or_param_default") is True:
            # a parameter of the enclosing function passed on as it came, whose default is one
            # of the values (`def adaptive_avgmax_pool2d(x, output_size=1)`): the common call
            index = _position_of(site, m, key)
            defaults = site.data.get("param_default_args", {})
            default = defaults.get(key, defaults.get(str(index), NOT_LITERAL)) if defaults else NOT_LITERAL
            if default is not NOT_LITERAL and _literal_in(default, values):
                return False
    for key in p.get("skip_if_none") or ():
        got = _arg(site, m, key)
        if got is not None and got[1] is None:
            return False
    for key, bases in _table(p.get("skip_if_base_default")).items():
        if _base_default(site, m, key, bases):
            return False
    for key, values in _table(p.get("require_literal")).items():
        got = _arg(site, m, key)
        if got is not None and got[1] is NOT_LITERAL and p.get("or_computed") is True:
            # `p.requires_grad_(n in trainable)`: a flag computed per parameter (not one copied
            # from the layer it replaces: `new.weight.requires_grad_(old.weight.requires_grad)`)
            if any(t.endswith(".requires_grad") for t in (
                    *site.data.get("arg_texts", ()), site.data.get("kwarg_texts", {}).get(key, ""))):
                return False
            continue
        if got is None or got[1] is NOT_LITERAL or not _literal_in(got[1], values):
            return False
    if p.get("skip_after_global_pool") is True and site.data.get("input_global_pool"):
        return False
    for key in p.get("skip_if_nonliteral") or ():
        got = _arg(site, m, key)
        if got is not None and got[1] is NOT_LITERAL:
            return False
    for key, wanted in _table(p.get("arg_kind")).items():
        got = _arg(site, m, key)
        if got is None or got[0] not in wanted:
            return False
    no_grad = p.get("no_grad")
    if no_grad is not None and bool(site.data.get("no_grad")) != no_grad:
        return False
    if p.get("class_has_conv") is True and not site.data.get("class_has_conv"):
        return False
    if p.get("in_module_class") is True and not site.data.get("in_module_class"):
        return False
    if p.get("after_step") is True and not site.data.get("after_step"):
        return False  # only after a backward()/step() earlier in the same loop body
    if p.get("skip_plain_class_init") is True and site.data.get("plain_class_init"):
        return False  # `self.rng = np.random.default_rng(seed)` in a data sampler's __init__: host code
    if p.get("exports_weight") is True and not site.data.get("exports_weight"):
        return False
    arg_name = p.get("arg_name")
    names: tuple[str, ...] = site.data.get("arg_names", ()) if arg_name else ()
    for key, wanted in _table(arg_name).items():
        i = int(key)
        if i >= len(names) or not _any_glob(names[i], wanted):
            return False
    wanted_text = p.get("receiver_text")
    if wanted_text and not _any_glob(site.data.get("receiver_text", ""), wanted_text) and \
            not _any_glob(site.method, p.get("any_receiver_methods") or ()):
        return False
    if p.get("skip_loaded_copy") is True and site.data.get("loaded_copy"):
        return False
    if _host_only(site, p):
        return False
    if p.get("skip_memo_fill") is True and site.data.get("memo_fill"):
        return False
    if p.get("skip_in_parameter") is True and site.data.get("in_parameter"):
        return False  # `nn.Parameter(torch.full(..., requires_grad=True))`: a parameter's data
    if p.get("skip_fresh_receiver") is True and site.data.get("receiver_fresh"):
        return False
    if p.get("skip_one_shot_hook") is True and site.data.get("one_shot_hook"):
        return False
    if p.get("skip_probe_hook") is True and site.context != "traced" and site.data.get("probe_hook"):
        return False
    replacing = p.get("replacing_hook")
    if replacing is not None and bool(site.data.get("replacing_hook")) != replacing:
        return False
    if p.get("skip_plain_no_grad") is True and site.data.get("plain_no_grad"):
        return False
    if p.get("guards_model_call") is True and not site.data.get("guards_model_call"):
        return False
    ctor = p.get("receiver_ctor")
    if ctor and site.method not in p.get("any_receiver_methods", ()) and \
            not _any_glob(site.data.get("receiver_ctor", ""), ctor) and not (
                p.get("or_receiver_text") and _any_glob(site.data.get("receiver_text", ""), p["or_receiver_text"])) \
            and not (p.get("or_any_kwarg") and any(k in site.data.get("kwargs", {}) for k in p["or_any_kwarg"])):
        return False
    random_args = p.get("random_arg")
    if random_args and not set(random_args) & set(site.data.get("random_args", ())):
        return False
    input_ctor = p.get("input_ctor")
    if input_ctor and not _any_glob(site.data.get("input_ctor", ""), input_ctor):
        return False
    outside = p.get("not_in_function")
    if outside and _any_glob(site.symbol.rsplit(".", 1)[-1], outside):
        return False  # `super().resize_token_embeddings(...)` in the override of that method
    in_function = p.get("in_function")
    if in_function and not _any_glob(site.symbol.rsplit(".", 1)[-1], in_function):
        return False
    if p.get("grows_local") is True and not site.data.get("grows_local"):
        return False
    arg_text = p.get("arg_text")
    if arg_text and not any(_any_glob(t, arg_text) for t in site.data.get("arg_texts", ())) and not (
            p.get("or_grows_input") is True and site.data.get("grows")):
        return False
    any_kind = p.get("any_arg_kind")
    if any_kind and not any(k in any_kind for k, _ in (*args, *kwargs.values())):
        return False
    if p.get("skip_bare_param_values") is True and site.data.get("value_args_all_params"):
        return False  # `max(0, qlen)` on parameters as passed: their kind is a guess
    shows = p.get("interpolates")
    if shows and not any(k in shows for k in site.data.get("message_kinds", ())):
        return False
    if p.get("aliased_arg") is True and not site.data.get("arg_alias"):
        return False
    excluded = p.get("exclude_receiver")
    if excluded and _any_glob(site.data.get("receiver_text", ""), excluded):
        return False
    if p.get("skip_default_init_fills") is True and site.context != "traced" and _default_init_fill(site):
        # (outside traced code: init code, or a helper the project later finds only init reaches)
        return False
    if p.get("skip_defined_method") is True and site.data.get("defined_method"):
        return False
    if p.get("skip_own_method") is True and site.data.get("own_method"):
        return False
    if p.get("after_conv") is True and not site.data.get("after_conv"):
        return False
    skip_ctor = p.get("skip_arg_ctor")
    if skip_ctor and _any_glob(site.data.get("arg_ctor", ""), skip_ctor):
        return False
    want_ctor = p.get("arg_ctor")
    if want_ctor and not _any_glob(site.data.get("arg_ctor", ""), want_ctor):
        return False
    return True


def _literal_in(value: Any, values: Any) -> bool:
    for v in values:
        if isinstance(v, (list, tuple)) and isinstance(value, (list, tuple)):
            if tuple(v) == tuple(value):
                return True
        elif type(v) is not bool and type(value) is not bool and v == value:
            return True
        elif isinstance(v, bool) and value is v:
            return True
    return False


def _base_default(site: Site, m: "Matcher", key: str, bases: Any) -> bool:
    """The argument ``key`` is ``self.<key>`` in a class that subclasses one of ``bases``
    ({base glob: position of ``key`` in that base's constructor, ``self`` left out}), never sets
    ``<key>`` itself and does not hand it to the base constructor (no such keyword, too few
    positional arguments, no splat): the attribute keeps the base's default (None for
    ``nn.Embedding.max_norm``). fairseq/ESM ``LearnedPositionalEmbedding(nn.Embedding)``
    calls ``F.embedding(positions, self.weight, self.padding_idx, self.max_norm, ...)`` with a
    ``super().__init__(num_embeddings, embedding_dim, padding_idx)`` that never sets it."""
    info = site.data.get("inherited_self_args") or {}
    found: dict[str, str] = info.get("args", {})
    if not found:
        return False
    slot = key if key in found else None
    if slot is None:
        idx = _position_of(site, m, key)
        slot = str(idx) if idx is not None and str(idx) in found else None
    if slot is None or found[slot] != key:
        return False
    table = _table(bases)
    position = next((int(pos) for b in info.get("bases", ()) for glob, pos in table.items()
                     if fnmatchcase(b, glob)), None)
    if position is None:
        return False
    init = info.get("super_init")
    if init is None:
        return True
    n_pos, kw, star = init
    return not star and key not in kw and n_pos <= position


#: receivers whose constant fill in init code restates a Flax default: biases start at 0
#: (``nnx.Linear``/``nnx.Conv``/norm layers' ``bias_init``), norm scales at 1
_BIAS_TEXT = ("*.bias", "*.bias.data", "bias", "*.beta", "*.beta.data", "beta")
_WEIGHT_TEXT = ("*.weight", "*.weight.data", "weight", "*.gamma", "*.gamma.data", "gamma")


def _default_init_fill(site: Site) -> bool:
    """``module.bias.data.zero_()``, ``m.bias.fill_(0)``, ``norm.weight.data.fill_(1.0)`` in
    init code (a norm's scale and shift also named ``gamma``/``beta``: speechbrain's
    ``ChannelwiseLayerNorm.reset_parameters``), or a fill of a parameter with the value its own constructor wrote (the call
    extra ``param_init``): the values Flax's layers start from (biases 0, norm scales 1; checked on
    nnx.Linear, nnx.Conv, nnx.LayerNorm, nnx.BatchNorm), so a port writes nothing for them. A
    kernel zeroed (``proj.weight.zero_()``: adaLN-zero, zero convolutions) or scaled is a real
    initializer choice and stays reported."""
    method = site.method
    text = site.data.get("receiver_text", "")
    if method not in ("zero_", "fill_") or not text:
        return False
    args = site.data.get("args", ())
    value = args[0][1] if method == "fill_" and len(args) == 1 else (0 if method == "zero_" else None)
    built = site.data.get("param_init")
    if built and len(built) == 1:
        # the parameter's own constructor wrote this value already (`nn.Parameter(torch.zeros(d))`
        # then `module.mask_token.data.zero_()`; `torch.tensor(cfg.logit_scale_init_value)` then
        # `.fill_(self.config.logit_scale_init_value)`): the fill changes nothing
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value in (0, 1):
            sig = str(int(value))  # `torch.zeros` / `torch.ones` constructors
        else:
            texts = site.data.get("arg_texts", ())
            named = method == "fill_" and len(args) == 1 and len(texts) == 1
            sig = f"name:{texts[0].rsplit('.', 1)[-1]}" if named else ""
        if sig and sig in built:
            return True
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if value == 0:
        return _any_glob(text, _BIAS_TEXT)
    return value == 1 and _any_glob(text, _WEIGHT_TEXT)


def match_call(site: Site, m: "Matcher") -> str | None:
    """A call to a function by resolved name (``names``: globs such as ``torch.rand*``), or a
    method by name (``methods``) on a receiver of the given value kinds (``receiver``, default
    tensors; ``unknown_receiver_methods`` also accepts receivers of unknown kind for method
    names that only tensors have). ``exclude`` globs veto (callee or method).

    Argument conditions (all must hold): ``kwarg_true`` (literal True), ``kwarg_not_true``
    (absent or literal non-True), ``has_kwarg``, ``missing_kwarg`` (with
    ``missing_positional_index``), ``missing_or_literal`` ({arg = [values]}: absent, or passed as
    one of those literals: ``num_classes`` omitted or ``-1``), ``ceil_division_arg`` (the argument
    is written as a ceiling division: ``int(np.ceil(n / size))``, ``-(-n // size)``), ``exact_positional`` (number of positional arguments), ``constant_receiver`` (true: only, false:
    never when the tensor read back is built from static values only, ``torch.arange(1, x.ndim)``),
    ``constant_arg`` ({arg = true/false}: the argument is, or is not, a tensor built from static
    values only, ``torch.tensor(self.sizes)``),
    ``kwarg_literal`` ({arg = [string globs]}; a bool literal is matched as "True"/"False"; with
    ``or_string_prefix``, a first argument that builds a string from a literal start, by that start, or that chooses between literals, by either: ``"cuda" if gpu else "cpu"``), ``skip_if_literal`` ({arg = [values]}; with ``or_param_default``, also an enclosing
    function's parameter passed on whose literal default is one of the values),
    ``skip_if_nonliteral`` ([args]), ``skip_if_kwarg`` ([keywords] passed, as anything but a
    literal ``None``), ``skip_if_none`` ([args] passed as a literal ``None``:
    ``F.batch_norm(x, None, None, training=True)`` keeps no running statistics),
    ``require_literal`` ({arg = [values]}; with ``or_computed``, a non-literal argument passes too), ``skip_if_base_default`` ({arg = {base glob =
    position}}: the argument is ``self.<arg>`` left at a base constructor's default,
    :func:`_base_default`),
    ``skip_after_global_pool`` (the input is a global pooling result), ``arg_kind`` ({arg = [value kinds]}), ``arg_name``
    ({position = [globs of the argument's resolved name]}), ``no_grad`` (inside
    ``torch.no_grad()`` or not), ``class_has_conv`` (in a module holding a conv), ``in_module_class`` (in a method of an ``nn.Module`` class, or of a class whose unseen base may make it one; ``skip_plain_class_init``: not in the ``__init__`` of a class that is no module), ``after_step`` (a call after a ``backward()``/``step()`` earlier in the same loop body; computed for the host-read methods of ``kinds.HOST_METHODS`` only),
    ``exports_weight`` (the array is a checkpoint weight iterated out of ``state_dict()`` /
    ``torch.load`` / ``named_parameters()``, with no axis permutation on the way),
    ``exclude_receiver`` (globs on the receiver's source text), ``skip_default_init_fills`` (outside
    traced code, a fill that restates a Flax default: :func:`_default_init_fill`), ``aliased_arg`` (the first
    argument shares its tensor with another live name), ``receiver_text`` (globs the
    receiver's source text must match, except for a method listed in ``any_receiver_methods``), ``or_any_kwarg`` (with ``receiver_ctor``: a call given one of these keywords passes whatever
    built its receiver, `model.generate(ids, do_sample=True)`), ``receiver_ctor`` (globs on the resolved callee that
    built the receiver: a call, or the local name it was bound to; methods listed in
    ``any_receiver_methods`` match whatever built it: ``rsample`` belongs to distributions
    alone, so a distribution an injected network returns counts too; ``or_receiver_text``: globs
    on the receiver's source text that stand for the constructor, a parameter named for what it
    holds: ``dist.sample(shape)`` in a helper its callers hand a ``Bernoulli``), ``skip_loaded_copy`` (a
    ``copy_`` of weights loaded from outside the model: ``p.copy_(torch.from_numpy(w[n]))``), ``skip_memo_fill``
    (a call in a method that rebuilds a memo table, ML717's), ``skip_in_parameter`` (not a call that builds an ``nn.Parameter``'s data), ``skip_fresh_receiver``
    (not when the receiver is a tensor the function has just made: a factory, a ``clone``, an
    arithmetic result, or a local bound to one), ``replacing_hook`` (true: only, false: never a
    hook whose callback returns a value, which replaces the output, input or gradient it
    intercepts), ``skip_probe_hook`` (not a hook registered and
    removed in one function outside traced code, around a model call: an analysis probe, whose
    callback runs where that function runs and has its own findings there),
    ``skip_one_shot_hook`` (not a hook
    registration whose callback removes its own handle on its first run: lazy shape inference,
    init code), ``skip_plain_no_grad`` (not a ``torch.no_grad()``/``inference_mode()`` written
    as a function's decorator or as a ``with`` item itself), ``guards_model_call`` (a ``with
    torch.no_grad():`` item whose block calls an object held by ``self`` or passed in), ``input_ctor`` (globs on
    the callee that built the call's input: the receiver of a method, the first positional
    argument of a function; ``.softmax`` for a method call), ``random_arg`` (arguments, by keyword
    or positional index as a string, one of which holds a host random draw:
    ``size=random.choice(sizes)``, directly or through the names it reads),
    ``after_conv`` (an ``nn.Flatten()`` layer that follows a conv in one ``nn.Sequential``,
    with no global pooling between), ``skip_arg_ctor`` (globs on the callee that built the first positional argument: a call,
    or the local name it was bound to; ``.state_dict`` for a weight copy between two live
    modules; ``arg_ctor``: the same globs, required), ``skip_defined_method`` (not ``self.<m>(...)`` calling a method the enclosing class
    or a base class in its file defines), ``skip_own_method`` (not ``self.<m>(...)`` calling a method of the enclosing non-module
    class: an RL algorithm's ``self.train()`` is its update, no mode switch), ``any_arg_kind`` (value
    kinds one argument must have), ``skip_bare_param_values`` (skip when every value-kind
    argument is a parameter as passed, whose kind is only guessed), ``in_function`` (globs on the enclosing function's name; ``not_in_function``: none of these), ``grows_local`` (a concatenation that grows a local
    by one piece per pass of a loop that feeds it back: data ``grows_local``),
    ``subclass_ctor`` (also a class of the project that subclasses the named torch class without
    an ``__init__`` of its own, built or named as a default: its instances keep the torch
    constructor's defaults), ``arg_text`` (globs one positional argument, or an element of a list/tuple argument, must
    match by its source name: ``past_key*``; with ``or_grows_input``, a concatenation whose
    result is assigned back to one of its own inputs that outlives the call also matches:
    ``cache[m] = torch.cat([cache[m], out])``, data ``grows``), ``interpolates`` (value kinds one of
    which the message must show: an argument, or an expression inside an f-string, ``%`` or
    ``.format`` argument).
    A keyword's position per callee comes from ``arg_positions``."""
    exclude = _param(m, "exclude")
    if site.name and _any_glob(site.name, _param(m, "names")):
        if exclude and _any_glob(site.name, exclude):
            return None
        if site.data.get("subclass_of") and not _param(m, "subclass_ctor", False):
            return None  # a subclass built through the torch constructor: constructor-default rules only
        return site.name if _kwargs_ok(site, m) else None
    if site.method and _param(m, "methods"):
        if not _any_glob(site.method, _param(m, "methods")):
            return None
        if exclude and _any_glob(site.method, exclude):
            return None
        if site.name.startswith("torch.") and not _param(m, "torch_namespace_ok", False):
            return None  # torch.nn.init.normal_ is a function, matched by names
        receivers = _kinds(m, "receiver", (K.T, K.B))
        ok = site.receiver in receivers or (
            site.receiver == K.U and _any_glob(site.method, _param(m, "unknown_receiver_methods") or ())
        )
        if not ok:
            return None
        return f".{site.method}()" if _kwargs_ok(site, m) else None
    return None


def match_condition(site: Site, m: "Matcher") -> str | None:
    """A Python condition (``if``/``while``/``assert``/ternary/``and``/``or``/comprehension
    filter) on a value-dependent expression; ``constructs`` filters, ``exits`` requires an
    early return/break/raise in the branch; ``after_step`` requires a condition after a
    ``backward()``/``step()`` earlier in the same training-loop body (host bookkeeping that reads
    the step's result)."""
    construct = site.data["construct"]
    constructs = _param(m, "constructs")
    if constructs and construct not in constructs:
        return None
    if _param(m, "exits") is True and not site.data.get("exits"):
        return None
    exit_kinds = _param(m, "exit")
    if exit_kinds is not None and site.data.get("exit", "") not in exit_kinds:
        return None
    if _param(m, "host_value") is True and site.receiver != K.H:
        return None
    if _param(m, "host_value") is False and site.receiver == K.H:
        return None
    if _param(m, "after_step") is True and not site.data.get("after_step"):
        return None
    return construct


def match_subscript_assign(site: Site, m: "Matcher") -> str | None:
    """``t[idx] = v`` / ``t[idx] += v`` on a tensor; ``mask`` requires (true) or forbids
    (false) a boolean-mask index; ``aug`` likewise for augmented assignment; ``select`` for a
    write of a static value or of another tensor read through the same index (``x[x < 0] = 0``,
    ``out[m] = inp[m]``: ``jnp.where`` writes it). ``constant_base`` requires (true) or forbids
    (false) a static write into a local tensor built from static values only (``t =
    torch.zeros(n); t[i] = 0.5``: a constant built item by item, which only a trace turns
    into an obstacle; outside it NumPy builds it)."""
    if site.receiver not in _kinds(m, "receiver", (K.T, K.B)):
        return None
    for key in ("mask", "aug", "no_grad", "select", "constant_base"):
        want = _param(m, key)
        if want is not None and bool(site.data.get(key)) != want:
            return None
    return "augmented subscript assignment" if site.data.get("aug") else "subscript assignment"


def match_aug_assign(site: Site, m: "Matcher") -> str | None:
    """``x += y`` where ``x`` is a tensor (PyTorch mutates ``x`` in place; aliases see it);
    ``aliased`` requires that ``x`` shares its tensor with another live name or a ``self``
    attribute (``q = p``, ``w = self.weight``), which alone makes the mutation observable;
    ``no_grad`` requires (true) or forbids (false) an enclosing ``torch.no_grad()``."""
    no_grad = _param(m, "no_grad")
    if no_grad is not None and bool(site.data.get("no_grad")) != no_grad:
        return None
    if site.receiver not in (K.T, K.B):
        return None
    alias = site.data.get("alias", "")
    if _param(m, "aliased") is True:
        if not alias:
            return None  # a fresh, unshared tensor: `x += y` on a jax.Array rebinds identically
        return f"augmented assignment to `{site.data.get('name', '')}`, which shares its tensor with `{alias}`,"
    return "augmented assignment"


def match_subscript_read(site: Site, m: "Matcher") -> str | None:
    """Indexing a tensor with a boolean mask (``mask``) or with slice bounds read from tensor
    values (``host_bound``)."""
    if _param(m, "mask") and site.data.get("mask"):
        return "boolean-mask indexing"
    if _param(m, "host_bound") and site.data.get("host_bound"):
        return "slice bound from a tensor value"
    return None


def match_self_write(site: Site, m: "Matcher") -> str | None:
    """A mutation of ``self.attr`` outside init code: assignment, augmented assignment,
    subscript write, in-place method, container method (``how``). ``buffer`` requires (true)
    or forbids (false) a registered buffer; ``value`` filters by the written value's kind,
    ``tensor_state`` keeps writes that hold tensor state (a tensor value, a Python container
    of tensors, an augmented counter, a subscript/in-place/container write; with ``or_unknown``
    also a value of unknown kind that the class's own method builds: ``self.get_embedding(n)``),
    and ``static`` keeps (true) or drops
    (false) plain assignments of a static value that is no counter (``self.is_causal = mask
    is not None``, ``self.cached_len = x.shape[1]``: configuration a port passes on, not
    state a trace loses). ``memo`` keeps (true) or drops (false) writes in the body of an
    ``if`` that compares a cache key on ``self`` with a static value (a table rebuilt when the
    sequence length changes). A write that only re-places the attribute itself
    (``self.ab = self.ab.to(x.device)``: device or dtype, no new value) matches only a rule
    with ``placement`` true, which matches nothing else. ``module_class`` requires (true) a
    method of an ``nn.Module`` subclass; ``optimizer_class`` (true: only, false: never) a method of a
    ``torch.optim.Optimizer`` subclass; ``not_in_function`` drops writes in functions of those
    names (globs); ``names`` keeps attributes of those names (globs on the last part);
    ``from_self`` (true: only, false: never) a value computed from the module's own attributes
    alone (a cache of its parameters);
    ``computed`` keeps state updates only: a counter, an augmented, subscript,
    container or in-place write, or a tensor value computed where it is written (a call,
    arithmetic, an index), never a write of a submodule-valued attribute."""
    if bool(site.data.get("placement")) != bool(_param(m, "placement")):
        return None
    if site.data.get("placement"):
        return "a re-placement of the attribute itself"
    hows = _param(m, "how")
    if hows and site.data.get("how") not in hows:
        return None
    names = _param(m, "names")
    if names and not _any_glob(site.name.rsplit(".", 1)[-1], names):
        return None
    buffer = _param(m, "buffer")
    if buffer is not None and bool(site.data.get("is_buffer")) != buffer:
        return None
    kinds = _param(m, "value")
    if kinds and site.data.get("value") not in kinds:
        return None
    static = _param(m, "static")
    if static is not None:
        plain_static = (site.data.get("how") == "assign" and site.data.get("value") == K.S
                        and not site.data.get("counter")
                        and not site.data.get("holds_tensors"))
        if plain_static != static:
            return None
    module_class = _param(m, "module_class")
    if module_class is not None and bool(site.data.get("module_class")) != module_class:
        return None
    optimizer_class = _param(m, "optimizer_class")
    if optimizer_class is not None and bool(site.data.get("optimizer_class")) != optimizer_class:
        return None
    skip = _param(m, "not_in_function")
    if skip and _any_glob(site.symbol.rsplit(".", 1)[-1], skip):
        return None
    if _param(m, "computed") is True:
        how = site.data.get("how")
        if site.data.get("attr_kind") == K.M:
            return None  # a submodule replaced or re-placed: surgery (ML727), not state
        if not (site.data.get("counter") or how in ("aug", "subscript", "container", "inplace") or (
                site.data.get("computed") and site.data.get("value") in (K.T, K.B))):
            return None
    memo = _param(m, "memo")
    if memo is not None and bool(site.data.get("memo")) != memo:
        return None
    from_self = _param(m, "from_self")
    if from_self is not None and bool(site.data.get("from_self")) != from_self:
        return None
    if _param(m, "tensor_state") is True:
        how = site.data.get("how")
        tensorish = site.data.get("value") in (K.T, K.B) or site.data.get("attr_kind") in (K.T, K.B) or \
            bool(site.data.get("holds_tensors"))
        # (a counter written as `self.n = self.n + 1` is one like `self.n += 1`; an entry
        # written into a held table, `self.grid[i] = ...`, is state like a container method)
        if not (tensorish or how in ("aug", "container", "subscript") or site.data.get("counter") or (
                _param(m, "or_unknown") is True and site.data.get("value") == K.U
                and site.data.get("own_method_value"))):
            return None
    return f"self.{site.name}"


def match_host_read_use(site: Site, m: "Matcher") -> str | None:
    """A statement that reads a value out of tensor data (``n = t.item()``, ``int(t)``) whose
    name later sets a shape, a slice bound or a loop length (``use`` in the site's data)."""
    return f"{site.name} (then a {site.data.get('use', 'shape')})"


def match_mode_override(site: Site, m: "Matcher") -> str | None:
    """A method of an nn.Module subclass overriding a mode method (``def train(self,
    mode=True)``) by name (``names``); with ``switches``, only one that changes behaviour
    (submodules put in eval mode, freezing, another method called), not cache upkeep."""
    if _param(m, "switches") is True and not site.data.get("switches"):
        return None
    return match_name(site, m)


def match_argument_inplace(site: Site, m: "Matcher") -> str | None:
    """An in-place write into a parameter as passed (``how``: ``.mul_()``, ``[...] =``,
    ``+=``) in a function that returns nothing (its only output is the mutation)."""
    return f"{site.name}{site.data.get('how', '')}".strip()


def match_memoized_function(site: Site, m: "Matcher") -> str | None:
    """A function (or property) cached by a ``functools`` decorator (``name``: ``lru_cache``,
    ``cache``, ``cached_property``) that computes tensors and returns a value."""
    return f"@{site.name}"


def match_argument_inplace_returning(site: Site, m: "Matcher") -> str | None:
    """An in-place write into a parameter as passed (``how`` as for ``argument-inplace``) in a
    function that also returns a value, kept where some caller (in any file) holds the object
    it passed but keeps no part of the result that returns it (the site's ``requires``)."""
    return f"{site.name}{site.data.get('how', '')}".strip()


def match_view_write(site: Site, m: "Matcher") -> str | None:
    """An in-place write through a view of another tensor (``y = x.view(-1); y[0] = 1``)."""
    return site.name or None


def match_device_argument(site: Site, m: "Matcher") -> str | None:
    """A ``device=`` argument that hard-codes placement (a string, ``torch.device(...)``, a
    variable), not one that follows an input (``device=x.device``), which a port drops, nor a
    ``device=None`` parameter of the enclosing function passed on (factory keywords)."""
    kwargs = site.data.get("kwargs", {})
    if "device" not in kwargs or site.method == "to":
        return None
    if not (site.name.startswith("torch.") or (site.method and site.receiver in (K.T, K.B))):
        return None  # a project helper's own `device=` parameter is not a tensor factory
    if site.data.get("device_follows_input"):
        return None
    kind, value = kwargs["device"]
    if value is None:
        return None
    defaults = site.data.get("param_default_args", {})
    if defaults and "device" in defaults and defaults["device"] is None:
        # `def __init__(self, dim, device=None, dtype=None)` passing `device=device` on (timm's
        # factory keywords): the default device unless a caller picks one, nothing pinned here
        return None
    return f"device={value!r}" if isinstance(value, str) else "device=..."


def match_pad_order(site: Site, m: "Matcher") -> str | None:
    """``F.pad`` / padding layers (``names``) whose pad tuple is not the same on every side:
    PyTorch lists the last axis first, ``jnp.pad`` takes pairs from the first axis."""
    if not _any_glob(site.name, _param(m, "names")):
        return None
    key = "pad" if _arg(site, m, "pad") is not None else "padding"
    got = _arg(site, m, key)
    if got is None:
        return None
    value = got[1]
    index = _position_of(site, m, key)
    uniform = site.data.get("uniform_seq_args", ())
    if key in uniform or (index is not None and str(index) in uniform):
        return None  # (p, p, p, p): the same on every side, order does not matter
    named = site.data.get("name_args", ())
    if value is NOT_LITERAL and "functional" not in site.name and (key in named or str(index) in named):
        return None  # ZeroPad2d(padding): usually one int for every side
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return None  # one number pads every side alike
    if site.data.get("input_1d"):
        return None  # a 1-D tensor (`F.pad(cu_seqlens, (1, 0))`): its last axis is its first
    if isinstance(value, tuple) and len(set(value)) <= 1:
        return None
    if isinstance(value, tuple):
        pairs = [value[i:i + 2] for i in range(0, len(value) - 1, 2)]
        if len(value) % 2 == 0 and all(len(p) == 2 and p[0] == p[1] for p in pairs):
            # (0, 0, 1, 1, 1, 1): each axis padded alike on both sides, but not every axis alike
            return f"padding that differs between axes {value} (last axis first)"
        return f"asymmetric padding {value}"
    return "padding given as an expression"


def match_static_argument(site: Site, m: "Matcher") -> str | None:
    """Calls whose arguments must be Python ints (dims, sizes, repeats: ``methods`` on a
    tensor, ``names`` after their first positional argument, the input) given a tensor built
    only from values known at trace time (``constant_args``), spread (``x.permute(*perm)``:
    ``constant_star_args``) or not. Tensors read from data there are the data-dependent shape
    rules' (ML208 and kin)."""
    if site.method and not site.name.startswith("torch."):
        if not _any_glob(site.method, _param(m, "methods") or ()) or site.receiver not in (K.T, K.B, K.U):
            return None
        label, skip = f".{site.method}()", ""
    elif site.name and _any_glob(site.name, _param(m, "names") or ()):
        label, skip = site.name, "0"  # (the input tensor)
    else:
        return None
    args: tuple[tuple[str, Any], ...] = site.data.get("args", ())
    kwargs: dict[str, tuple[str, Any]] = site.data.get("kwargs", {})
    for key in site.data.get("constant_args", ()):
        got = kwargs.get(key) if not key.isdigit() else (args[int(key)] if int(key) < len(args) else None)
        if key != skip and got is not None and got[0] in (K.T, K.B):  # (`t.size(0)` is an int)
            return label
    return label if site.data.get("constant_star_args") else None


def match_flatten_reshape(site: Site, m: "Matcher") -> str | None:
    """A 2-D flatten written as a reshape (``methods``: ``h.view(h.size(0), -1)``) of what a
    convolution held on self returns (``receiver_conv_output``): two positional arguments, the
    second a literal -1, with the shared call conditions (``class_has_conv``,
    ``skip_after_global_pool``, ``exclude_receiver``; see :func:`match_call`)."""
    if not site.method or not _any_glob(site.method, _param(m, "methods") or ()) or site.receiver != K.T:
        return None
    if site.data.get("star") or site.data.get("kwargs"):
        return None
    args: tuple[tuple[str, Any], ...] = site.data.get("args", ())
    if len(args) != 2 or args[1][1] != -1 or isinstance(args[1][1], bool) or args[0][1] == -1:
        return None  # (`view(-1, C)` keeps channels whole: a (N, C, 1, 1) map, layout-free)
    if not site.data.get("receiver_conv_output"):
        return None
    return f".{site.method}(batch, -1)" if _kwargs_ok(site, m) else None


def match_negative_pad(site: Site, m: "Matcher") -> str | None:
    """``F.pad`` / padding layers (``names``) given a negative constant width (alone, or in
    the pad tuple), or a negated expression in the pad tuple (``negated_widths``): a crop, which
    ``jnp.pad`` refuses."""
    if not _any_glob(site.name, _param(m, "names")):
        return None
    got = _arg(site, m, "pad") or _arg(site, m, "padding")
    if got is None:
        return None
    value = got[1]
    widths = value if isinstance(value, tuple) else (value,)
    negative = [w for w in widths if isinstance(w, int) and not isinstance(w, bool) and w < 0]
    if negative:
        return f"{site.name.rsplit('.', 1)[-1]} with negative widths {value}"
    if value is NOT_LITERAL and site.data.get("negated_widths"):
        # `F.pad(t, (0, 0, amount, -amount))`: a shift, padding one side and cropping the other
        return f"{site.name.rsplit('.', 1)[-1]} with a negated width (a crop when it is positive)"
    return None


def match_global_write(site: Site, m: "Matcher") -> str | None:
    """Writes to module globals or outer containers from a function (``how``: global,
    subscript, container, self-container); ``skip_memo``: not the fill of a lazily loaded
    global the function returns as soon as it is set (``if _cache is not None: return
    _cache``, then ``_cache = (kernel.update, kernel.fn)``: a one-time load of callables, the
    same at every trace)."""
    hows = _param(m, "how")
    if hows and site.data.get("how") not in hows:
        return None
    if _param(m, "skip_memo") is True and site.data.get("memo"):
        return None
    return site.name


def match_attribute(site: Site, m: "Matcher") -> str | None:
    """Attribute read/write by name (``names``), optionally only on ``self`` (``on_self``) or
    on receivers of given kinds (``receiver``), with ``reads_only`` not an attribute that is
    itself assigned to (``p.requires_grad = False`` is no read), with ``skip_self_chain`` not
    on a receiver rooted at ``self`` (``self.weight.requires_grad``: the module's own
    parameter or attribute), with ``skip_mode_glue`` not a ``self.training`` read that only picks PyTorch-side glue
    (``self.gradient_checkpointing and self.training``: ``nnx.remat`` or not; ``use_cache and
    past_key_values is None and not self.training``: a lazy cache; ``is_training=self.training``
    into a mask helper), the same numbers in either mode; for writes, ``value_literal`` (the assigned
    literal is one of these; with ``or_variable``, a value that is no literal passes too:
    ``p.requires_grad = flag`` in a helper its callers pass ``False``) and ``value_attr`` (globs:
    the assigned value is another object's attribute of that name, ``head.weight = embed.weight``);
    ``data_init`` (true: only, false: never) a module's own parameter set through ``.data``
    outside init code from a value that does not read it (``self.log_scale.data = -torch.log(std)``);
    ``skip_checkpoint_loader``: outside traced code, not in a function that has read a checkpoint
    file (a weight loader: a port's checkpoint converter replaces it);
    ``skip_numpy_value``: not a write of a NumPy value (``w.data = np.pad(...)``: an object
    holding arrays, pyannote's ``SlidingWindowFeature``, no tensor storage);
    ``or_layer`` (deletes): a layer of the module matches whatever its name;
    ``skip_copied_setting``: not a write of another object's attribute of the same name
    (``res.eps = module.eps``: a converted layer given the original's setting);
    ``child_link`` (true: only, false: never) a write of a child's attribute from the module's own
    (``self.decoder.bias = self.bias``); ``replaces_child`` (true: only, false: never) a layer
    written into a module other than the one being built (``self.backbone.fc = nn.Identity()``,
    ``m.fc1 = W8A8Linear(...)``: surgery on a built model); ``links_layer`` (true: only, false:
    never) an existing layer written into another module (``self.gpt.wte = self.mel_embedding``)."""
    if not _any_glob(site.name, _param(m, "names")) and not (_param(m, "or_layer") is True and site.data.get("layer")):
        return None
    if _param(m, "skip_fresh_receiver") is True and site.data.get("receiver_fresh"):
        return None  # `grid.requires_grad = False` on a tensor the function has just made
    if site.kind == "attribute-write" and _any_glob(site.data.get("receiver_text", ""), _param(m, "exclude_receiver") or ()):
        return None  # `param.requires_grad = True`: a parameter unfrozen, not an input
    on_self = _param(m, "on_self")
    if on_self is not None and bool(site.data.get("on_self")) != on_self:
        return None
    receivers = _param(m, "receiver")
    if receivers and site.receiver not in receivers:
        return None
    if _param(m, "reads_only") is True and site.data.get("target"):
        return None
    if _param(m, "skip_self_chain") is True and site.data.get("self_chain"):
        return None
    if _param(m, "skip_mode_glue") is True and site.data.get("mode_glue"):
        return None
    lits = _param(m, "value_literal")
    value = site.data.get("value_literal", NOT_LITERAL)
    if lits is not None and not _literal_in(value, lits) and not (
            value is NOT_LITERAL and _param(m, "or_variable") is True):
        return None
    if _param(m, "skip_copied_setting") is True and site.data.get("value_attr") == site.name:
        return None  # `res.eps = module.eps`: the setting copied from the layer being converted
    value_attrs = _param(m, "value_attr")
    if value_attrs and not (site.data.get("value_param") and _any_glob(site.data.get("value_attr", ""), value_attrs)):
        return None
    data_init = _param(m, "data_init")
    if data_init is not None and bool(site.data.get("data_init")) != data_init:
        return None
    if _host_only(site, _params(m)):
        return None  # `pointer.data = torch.from_numpy(array)` in `load_tf_weights_in_bert`
    if _param(m, "skip_numpy_value") is True and site.data.get("numpy_value"):
        return None  # `feature.data = np.rint(feature.data).astype(np.uint8)`: an array holder
    child_link = _param(m, "child_link")
    if child_link is not None and bool(site.data.get("child_link")) != child_link:
        return None
    replaces = _param(m, "replaces_child")
    if replaces is not None and bool(site.data.get("replaces_child")) != replaces:
        return None
    links = _param(m, "links_layer")
    if links is not None and bool(site.data.get("links_layer")) != links:
        return None
    return f".{site.name}"


def match_name(site: Site, m: "Matcher") -> str | None:
    """A resolved dotted name (class base, decorator, import, referenced attribute) matching
    ``names`` globs and not ``exclude``. Relative imports (``from .ops import x``) and absolute
    imports of the file's own top-level package (``from torch_geometric.data import Data``
    inside ``torch_geometric``: the code being ported) name the project's own modules and never
    match; ``skip_compared`` skips a name that is only an
    operand of a comparison (``x.dtype in (torch.float32, torch.float64)`` creates nothing);
    ``skip_called`` skips a referenced name that is the function of a call (the call's rule
    reports it), keeping one handed on as a value (``partial(torch.autocast, ...)``);
    ``optional`` (imports) requires (true) or forbids (false) an optional import: one under
    ``try: ... except ImportError`` or ``if is_<lib>_available():``, or a call of a name so
    imported (the file runs without the library); ``skip_calls`` leaves out those calls (a
    library dependency is its import line: a call of a name imported under ``try`` repeats it,
    where a kernel's call is the custom-op site). ``aliases``: globs on the local name an
    import binds, which also match (a kernel named for its build,
    ``... import cauchy_mult as cauchy_cuda``, ``import neural_renderer.cuda.rasterize as rasterize_cuda``)."""
    if site.kind == "import" and (site.data.get("level", 0) > 0 or site.data.get("own")):
        return None
    if site.kind == "import" and site.data.get("call") and _param(m, "skip_calls") is True:
        return None  # (the use of an optionally imported library: its import line is the dependency)
    optional = _param(m, "optional")
    if optional is not None and bool(site.data.get("optional")) != optional:
        return None
    if _param(m, "skip_compared") is True and site.data.get("compared"):
        return None
    if _param(m, "skip_called") is True and site.data.get("called"):
        return None  # (the call itself is another rule's site: `torch.autocast(...)`)
    if _any_glob(site.name, _param(m, "names")) and not _any_glob(site.name, _param(m, "exclude") or ()):
        return site.name
    aliases = _param(m, "aliases")
    if aliases and site.kind == "import" and (site.data.get("optional") or not site.data.get("call")) and \
            _any_glob(site.data.get("alias", ""), aliases) and not _any_glob(site.name, _param(m, "exclude") or ()):
        # `try: from extensions.kernels.cauchy import cauchy_mult as cauchy_cuda`,
        # `import neural_renderer.cuda.rasterize as rasterize_cuda`
        return site.name
    return None


def match_loop(site: Site, m: "Matcher") -> str | None:
    """``for ... in range(...)``: ``host_bound`` flags bounds read from tensor values;
    ``min_static_len`` flags static ranges long enough that ``jit`` unrolling hurts;
    ``shape_bound`` flags traced loops whose bound is read from a tensor's shape (one unrolled
    copy per step, one compilation per new length; also ``while len(outputs) < x.size(0)``), except for loop variables matching
    ``skip_targets`` globs (a loop over feature levels, layers or heads of a stacked tensor
    runs over a dimension the config fixes) and bounds named as ``skip_bounds`` globs (``for i in
    range(batch_size)``: a per-example loop over the batch, whose size a training step fixes: one
    compilation, unrolled once; DETR-family matchers); ``skip_index_only``: not a loop whose body only
    builds Python index lists (no tensor operation to unroll)."""
    if _param(m, "host_bound") and any(k in K.VALUE_KINDS for k in site.data.get("range_kinds", ())):
        return "range() over a tensor value"
    min_len = _param(m, "min_static_len")
    if min_len is not None and site.data.get("static_len", 0) >= int(min_len):
        return f"range of {site.data['static_len']} iterations"
    if _param(m, "shape_bound") and site.data.get("shape_bound"):
        skip = _param(m, "skip_targets")
        if skip and _any_glob(site.data.get("target", ""), skip):
            return None  # `for lvl in range(hidden.shape[0])`: levels/layers/heads are config
        skip_bounds = _param(m, "skip_bounds")
        if skip_bounds and _any_glob(site.data.get("bound", ""), skip_bounds):
            return None  # `for i in range(batch_size)`: per-example work over the batch a step fixes
        if site.data.get("grows"):
            return "a while loop growing a list up to a length read from a tensor's shape"
        if _param(m, "skip_index_only") is True and site.data.get("index_only"):
            return None  # `row.append(i)`: Python index lists built once at trace time
        return "range() over a length read from a tensor's shape"
    return None


def match_try(site: Site, m: "Matcher") -> str | None:
    """A ``try``/``except`` around tensor operations (exceptions as control flow);
    ``skip_error_only`` skips one whose every handler only reports the error and re-raises
    (the port keeps the ``try`` body and drops the handlers: nothing to restructure). A
    ``try``/``finally`` without handlers catches nothing and never matches."""
    if not site.data.get("handlers", 1):
        return None
    if _param(m, "skip_error_only") is True and site.data.get("error_only"):
        return None
    caught = site.data.get("caught", ())
    return ", ".join(caught) if caught else "bare except"


def match_recursion(site: Site, m: "Matcher") -> str | None:
    """A function calling itself (``self.f`` in method ``f``, or its own module-level name);
    ``skip_structural``: not when the call sits under a type test (``if isinstance(space,
    spaces.Dict): ... f(obs[k], space[k])``): recursion over the Python structure of an input,
    whose depth is fixed at trace time (what ``jax.tree.map`` does)."""
    if _param(m, "skip_structural") is True and site.data.get("structural"):
        return None
    return site.name or site.method if site.data.get("recursive") else None


def match_compiled_extension(site: Site, m: "Matcher") -> str | None:
    """Project-level: a call of a function of one of the project's own compiled extension
    modules (``from . import _C`` then ``_C.nms(...)``, where the package holds no ``_C``
    source: see ``graph._Resolver.follow``)."""
    return site.name if site.data.get("compiled_extension") else None


def match_autograd_apply(site: Site, m: "Matcher") -> str | None:
    """``Fn.apply(...)`` on a ``torch.autograd.Function`` subclass defined in this file, or
    (``imported``) on an imported CapWords class; also a call of a name bound to one
    (``clamp_grad = ClampGrad.apply`` at module level, ``self.fn = Fn.apply``, a local
    ``f = Fn.apply``), which resolves to ``<Fn>.apply``."""
    if site.method == "apply":
        if site.data.get("local_autograd_function"):
            return site.data.get("receiver_name", "") + ".apply"
        if _param(m, "imported") and site.data.get("imported_class"):
            return site.data.get("receiver_name", "") + ".apply"
        return None
    if not site.name.endswith(".apply") or site.name.startswith(("self.", "torch.")):
        return None
    recv = site.name[: -len(".apply")]
    local = site.data.get("autograd_functions", frozenset())
    leaf = recv.rsplit(".", 1)[-1]
    if recv in local or (_param(m, "imported") and leaf[:1].isupper() and not any(
            recv.rpartition(".")[0] == q.rpartition(".")[0] for q in local) and "." in recv
            and recv not in site.data.get("own_classes", frozenset())  # a class of this file: no Function
            and not any(recv == p or recv.startswith(p + ".")  # a project class: the graph checks it
                        for p in site.data.get("project_names", frozenset()))):
        return f"{leaf}.apply"
    return None


def match_strided_padding(site: Site, m: "Matcher") -> str | None:
    """Conv/pool layers (``names``) with stride > 1 and explicit non-zero padding: Flax
    ``'SAME'`` pads asymmetrically at stride 2, PyTorch symmetrically (FIELD.md). Positions
    of ``stride``/``padding``/``kernel_size`` per callee come from ``arg_positions``;
    ``stride_defaults_to_kernel`` for pools (stride=None means stride=kernel_size)."""
    if not _any_glob(site.name, _param(m, "names")):
        return None

    def get(key: str) -> Any:
        got = _arg(site, m, key)
        return None if got is None else got[1]

    stride = get("stride")
    padding = get("padding")
    if stride is None and _param(m, "stride_defaults_to_kernel") and "pool" in site.name.lower():
        stride = get("kernel_size")
    if stride is None or padding is None:
        return None
    kernel = get("kernel_size")
    if kernel in (1, (1,), (1, 1), (1, 1, 1)) and padding is NOT_LITERAL:
        return None  # a 1x1 kernel takes no padding (ultralytics' autopad(1) is 0)
    if padding in (0, (0,), (0, 0), (0, 0, 0), "valid"):
        return None
    if isinstance(padding, str):
        return None  # 'same' is only legal at stride 1 in PyTorch
    via_default = False
    if stride is NOT_LITERAL:
        # a stride passed in by the caller: unknown here (precision over recall), unless it is
        # a parameter of the enclosing factory passed on as it came with a literal default
        # (compressai's `def conv(in_ch, out_ch, kernel_size=5, stride=2)`): the common call
        defaults = site.data.get("param_default_args", {})
        index = _position_of(site, m, "stride")
        stride = defaults.get("stride", defaults.get(str(index), NOT_LITERAL)) if defaults else NOT_LITERAL
        if stride is NOT_LITERAL:
            return None
        via_default = True
    strides = stride if isinstance(stride, tuple) else (stride,)
    if "conv" in site.name.lower() and _same_equivalent(kernel, stride, padding):
        return None
    if any(isinstance(s, int) and not isinstance(s, bool) and s > 1 for s in strides):
        leaf = site.name.rsplit(".", 1)[-1]
        return f"{leaf} (stride {stride} by its parameter's default)" if via_default else leaf
    return None


def _same_equivalent(kernel: Any, stride: Any, padding: Any) -> bool:
    """A convolution whose explicit padding is what ``'SAME'`` pads when the input size is a
    multiple of the stride: ``SAME`` pads ``k - s`` in all, ``(k - s) // 2`` before, so an even
    ``k - s`` with ``p == (k - s) / 2`` on every axis is the same computation (a 4x4 stride-2
    downsampler with padding 1, a 2x2 stride-2 patchify with padding 0; checked with jax 0.10:
    identical outputs on even sizes). Literal ints (or tuples of them) only."""
    def axes(v: Any) -> tuple[Any, ...] | None:
        vals = v if isinstance(v, tuple) else (v,)
        return vals if all(isinstance(x, int) and not isinstance(x, bool) for x in vals) else None
    ks, ss, ps = axes(kernel), axes(stride), axes(padding)
    if ks is None or ss is None or ps is None:
        return False
    n = max(len(ks), len(ss), len(ps))
    ks, ss, ps = (t * n if len(t) == 1 else t for t in (ks, ss, ps))
    if not len(ks) == len(ss) == len(ps) == n:
        return False
    return all((k - s) >= 0 and (k - s) % 2 == 0 and p == (k - s) // 2 for k, s, p in zip(ks, ss, ps))


def match_device_transfer(site: Site, m: "Matcher") -> str | None:
    """``.to(...)`` with a device argument (a device string, ``torch.device``, a ``device=``
    keyword, or a name that says device) rather than only a dtype."""
    if site.method != "to" or site.name.startswith("torch."):
        return None
    if site.data.get("to_follows_input"):
        return None  # .to(x.device) follows an input: dropped mechanically, no placement decision
    kwargs = site.data.get("kwargs", {})
    if "device" in kwargs:
        return ".to(device=...)"
    for kind, value in site.data.get("args", ()):
        if isinstance(value, str) and value.split(":")[0] in ("cuda", "cpu", "mps", "xla", "meta"):
            return f".to({value!r})"
    if site.data.get("device_like_arg"):
        return ".to(device)"
    return None


#: keyword arguments that set an output's shape (or the number of outputs) in the calls of
#: ML208: ``size=``, ``k=`` (topk), ``num_samples=`` (multinomial), ``scale_factor=``, ``pad=`` ...
_SHAPE_KEYWORDS = frozenset({"size", "shape", "repeats", "sections", "split_size_or_sections", "end", "steps", "k",
                             "num_samples", "n", "chunks", "dims", "scale_factor", "pad", "output_size",
                             "dimension", "step"})


def match_host_shape_arg(site: Site, m: "Matcher") -> str | None:
    """A host value read from a tensor (``.item()``, ``int(t)``, ``.tolist()``) passed where a
    shape or size is expected: factory functions and shape methods in ``names``/``methods``."""
    if not (
        (site.name and _any_glob(site.name, _param(m, "names")))
        or (site.method and site.receiver in (K.T, K.B) and _any_glob(site.method, _param(m, "methods")))
    ):
        return None
    kinds = [k for k, _ in site.data.get("args", ())]
    if site.name == "torch.full" or site.method == "new_full":
        kinds = kinds[:1]  # the fill value is no shape
    kinds += [k for key, (k, _) in site.data.get("kwargs", {}).items() if key in _SHAPE_KEYWORDS]
    kinds += list(site.data.get("arg_item_kinds", ()))
    if K.H in kinds:
        return site.name or f".{site.method}()"
    return None


def match_tensor_size(site: Site, m: "Matcher") -> str | None:
    """A tensor passed where a Python int size is expected: the arguments listed per callee
    in ``sizes`` ({callee glob, ``Tensor.<method>`` for methods = [keyword, or position as a
    string; ``*``: every positional argument]}, keywords' positions from ``arg_positions``), for the calls in ``names``/``methods``
    (``torch.topk(x, k=capacity)``, ``F.one_hot(idx, num_classes=capacity)``,
    ``x.new_zeros(n)``, with ``capacity``/``n`` tensors). PyTorch reads the tensor to the host
    (an implicit ``.item()``); under ``jax.jit`` it is a tracer and the port raises
    ``TracerIntegerConversionError``. Not an argument whose tensor kind rests on the
    module-method assumption alone (``assumed_args``: ``def forward(self, x, k)``), nor a
    tensor built only from values known at trace time (``constant_args``: ML219's), nor a call
    whose size the host-read rules already report (``size_reported``: ML213, ML214). A
    constant tensor is flagged for the callees in ``constant_callees`` (globs of the call target,
    ``Tensor.<method>`` for methods), those ML219 does not cover."""
    if site.method and not site.name.startswith("torch."):
        if site.receiver not in (K.T, K.B) or not _any_glob(site.method, _param(m, "methods") or ()):
            return None
        label = f".{site.method}()"
    elif site.name and _any_glob(site.name, _param(m, "names") or ()):
        label = site.name
    else:
        return None
    target = _call_target(site)
    sizes = _table(_param(m, "sizes"))
    # the callee's own entry, else the most specific glob (`torch.*`: a factory's sizes)
    keys: list[str] = list(sizes.get(target) or next(
        (sizes[g] for g in sorted(sizes, key=lambda g: (-len(g), g)) if fnmatchcase(target, g)), ()))
    args: tuple[tuple[str, Any], ...] = site.data.get("args", ())
    kwargs: dict[str, tuple[str, Any]] = site.data.get("kwargs", {})
    if not keys or site.data.get("size_reported"):
        return None
    if "*" in keys:
        keys = [k for k in keys if k != "*"] + [str(i) for i in range(len(args))]
    constant = frozenset(site.data.get("constant_args", ()))
    skip = site.data.get("assumed_args", frozenset()) | constant
    # a constant tensor as a size where ML219 does not look (`torch.topk(x, k=capacity)` with
    # `capacity = torch.ceil(torch.tensor(n / e) * f).long()`): jnp math under jax.jit is traced too
    constant_sizes = _any_glob(target, _param(m, "constant_callees") or ())
    for key in keys:
        got = _arg(site, m, key)
        if got is None:
            continue
        position = key if key.isdigit() or key in kwargs else str(_position_of(site, m, key))
        if constant_sizes and (key in constant or position in constant):
            return label
        if got[0] != K.T:
            continue
        if key not in skip and position not in skip:
            return label
    return None


#: ``skip_<flag>`` parameters -> the site data flag they test: outside traced code, a site in
#: a function that is no port work by what it does (shared by the call and attribute matchers)
_HOST_ONLY_SKIPS = (
    # a weight loader: it read a checkpoint file (`block.attn.qkv.weight.copy_(...)` in timm's
    # `_load_weights(model, npz_path)`); a port's checkpoint converter replaces it
    ("skip_checkpoint_loader", "checkpoint_loader"),
    # a property computing a static number: its random inputs only probe a model's output
    # shape (`torch.rand(1, sr)` in `@cached_property def dimension(self) -> int`)
    ("skip_shape_probe", "shape_probe"),
)


def _host_only(site: Site, params: dict[str, Any]) -> bool:
    """Whether a ``skip_<flag>`` parameter of :data:`_HOST_ONLY_SKIPS` set in ``params`` vetoes
    ``site``: outside traced code, with that site data flag true."""
    return site.context != "traced" and any(params.get(k) is True and site.data.get(flag)
                                            for k, flag in _HOST_ONLY_SKIPS)


def _numbers(value: Any) -> tuple[float, ...] | None:
    """A literal number or tuple of numbers as a tuple of floats, else None."""
    items = value if isinstance(value, tuple) else (value,)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items) and items:
        return tuple(float(v) for v in items)
    return None


def match_interpolation(site: Site, m: "Matcher") -> str | None:
    """A resize (``names``) whose result differs from ``jax.image.resize``: bicubic (torch's
    a = -0.75 kernel, JAX's Keys a = -0.5), ``align_corners=True`` (also implied by
    ``always_align_corners`` callees such as ``nn.UpsamplingBilinear2d``), downsampling
    (literal ``scale_factor`` < 1) without ``antialias=True`` (JAX antialiases by default),
    ``nearest`` with a non-integer literal factor or to a given ``size`` (identical only for
    integer upsampling), and modes JAX lacks (``area``). Bilinear upsampling without
    ``align_corners`` and integer-factor ``nearest`` upsampling match exactly (measured: max
    difference 2e-7 and 0). A ``mode``/``align_corners`` passed on from the enclosing function's
    parameter, or read from an attribute ``__init__`` fixes, takes that literal default; other
    non-literal modes or factors are not flagged. Bicubic and bilinear with ``antialias=True``
    (literal, or a parameter's default passed on) use PIL's kernels, which are JAX's: not flagged
    (measured up and down, 13x13 to 20x20, 7x7, 13x26: max difference 5e-7). Positions per callee
    come from ``arg_positions``."""
    if not _any_glob(site.name, _param(m, "names")):
        return None
    leaf = site.name.rsplit(".", 1)[-1]

    def get(key: str) -> Any:
        got = _arg(site, m, key)
        return None if got is None else got[1]

    def fixed(key: str) -> Any:
        """The argument's literal, else the default it takes (a parameter's, an attribute's)."""
        value = get(key)
        if value is not NOT_LITERAL:
            return value
        index = _position_of(site, m, key)
        for table in (site.data.get("param_default_args", {}), site.data.get("self_default_args", {})):
            if table and (key in table or str(index) in table):
                return table.get(key, table.get(str(index)))
        return NOT_LITERAL

    if _any_glob(site.name, _param(m, "always_align_corners") or ()):
        return f"{leaf} (bilinear with align_corners=True)"
    mode = fixed("mode")
    if mode is None:
        mode = str(_table(_param(m, "default_mode")).get(leaf, "nearest"))
    align = fixed("align_corners")
    if mode is NOT_LITERAL and align is True:
        return "an interpolating mode with align_corners=True"  # (torch refuses it with nearest/area)
    if mode is NOT_LITERAL or not isinstance(mode, str):
        return None
    if align is True:
        return f"{mode} with align_corners=True"
    antialias = fixed("antialias") is True
    if antialias and mode in ("bicubic", "bilinear"):
        # PyTorch's antialiased kernels are PIL's (Keys a=-0.5 cubic, triangle) at half-pixel
        # centers: jax.image.resize's, up or down (measured: max difference 5e-7)
        return None
    if mode == "bicubic":
        return "bicubic (PyTorch a=-0.75, jax.image.resize Keys a=-0.5)"
    if mode == "area":
        return "mode='area' (adaptive average pooling; jax.image.resize has no such method)"
    scale = _numbers(get("scale_factor"))
    if scale is not None:
        if any(f < 1 for f in scale) and not antialias:
            return f"{mode} downsampling by {get('scale_factor')!r} without antialias (jax.image.resize antialiases)"
        if mode == "nearest" and any(f != int(f) for f in scale):
            return f"nearest with a non-integer factor {get('scale_factor')!r}"
        return None
    if mode == "nearest" and fixed("size") is not None:
        return "nearest to a given size (matches JAX only for integer upsampling factors)"
    return None


_API_ROWS: dict[int, tuple["Matcher", dict[str, Any]]] = {}


def _api_rows(m: "Matcher") -> dict[str, Any]:
    """The ``table`` parameter of an ``api-map`` rule as ``{torch name: ApiEntry}`` (filled
    from ``rules/api_map.toml`` when the catalog loads), cached per matcher (the cache keeps
    ``m`` alive, so its id is never reused while cached)."""
    entry = _API_ROWS.get(id(m))
    if entry is None or entry[0] is not m:
        entry = _API_ROWS[id(m)] = (m, dict(_param(m, "table") or ()))
    return entry[1]


_OFF = (0, 0.0, None, False)
#: ``only_with = ["ignore_index=*"]``: any value but None counts (class 0 is a real index)
_NONE = (None,)


def _passed_on(kwargs: dict[str, tuple[str, Any]], arg: str) -> bool:
    """An API-map ``only_with`` entry holds for a call's keywords: ``name`` passed with a value
    other than 0/None/False (or one not literal), ``name=*`` passed with any value but None."""
    name, off = (arg[:-2], _NONE) if arg.endswith("=*") else (arg, _OFF)
    got = kwargs.get(name)
    return got is not None and (got[1] is NOT_LITERAL or not _literal_in(got[1], off))


def match_api_map(site: Site, m: "Matcher") -> str | None:
    """A call that the API map (``rules/api_map.toml``) marks NO_EQUIVALENT or
    DIFFERENT_SEMANTICS (the rule's ``kinds``) and whose row is not a mere ``rewrite``: a
    resolved torch name, or ``Tensor.<method>`` on a tensor receiver. A row's ``clean_if``
    ({argument: [literals]}) clears a call that passes one of them (``unbiased=False``); its
    ``only_with`` arguments must be passed with a value other than 0/None/False
    (``dropout_p``), or, written ``name=*``, with any value but None (``ignore_index=0``: the
    padding class 0 is skipped as surely as -100). A receiver of unknown kind counts as a tensor for the
    ``unknown_receiver_methods`` globs when the call passes one of the torch-only keywords in
    ``unknown_receiver_kwargs`` (``x.var(dim=-1)``: NumPy arrays take ``axis``, and NumPy's
    ``var`` already defaults to ddof=0 like ``jnp``). ``Tensor.unfold`` with its size and step
    written alike (``x.unfold(-1, p, p)``) cuts non-overlapping tiles, a reshape: not reported.
    The detail names the call, the JAX side and the row's note, so the message carries the map's
    remedy."""
    rows = _api_rows(m)
    if site.name:
        target = site.name
    elif site.method and (site.receiver in (K.T, K.B) or (
            site.receiver == K.U and _any_glob(site.method, _param(m, "unknown_receiver_methods") or ())
            and any(k in site.data.get("kwargs", {}) for k in _param(m, "unknown_receiver_kwargs") or ()))):
        target = f"Tensor.{site.method}"
    else:
        return None
    row = rows.get(target)
    if row is None:
        return None
    if target == "Tensor.unfold" and site.data.get("unfold_tiles"):
        return None  # `x.unfold(-1, p, p)`: non-overlapping tiles, a reshape (and a transpose)
    kwargs: dict[str, tuple[str, Any]] = site.data.get("kwargs", {})
    for arg, literals in row.clean_if:
        got = kwargs.get(arg)
        if got is not None and got[1] is not NOT_LITERAL and _literal_in(got[1], literals):
            return None
    if row.only_with and not any(_passed_on(kwargs, arg) for arg in row.only_with):
        return None
    jax_side = row.jax or "no single JAX function"
    extra = "; ".join(x for x in (row.note, row.args) if x)
    return f"{target} -> {jax_side} ({extra})" if extra else f"{target} -> {jax_side}"


def _gate_api_map(m: "Matcher") -> CallGate:
    """A call whose name, or ``Tensor.<method>``, has a row in the rule's API table."""
    rows = _api_rows(m)
    return CallGate(GatePart(exact=frozenset(rows), nonempty=False),
                    GatePart(exact=frozenset(k[7:] for k in rows if k.startswith("Tensor."))))


def match_suppression(site: Site, m: "Matcher") -> str | None:
    """Meta: a suppression comment that is unused (``problem = "unused"``) or malformed."""
    return site.name if site.data.get("problem") == _param(m, "problem") else None


def match_source_file(site: Site, m: "Matcher") -> str | None:
    """Project-level: a native source file (``extensions``) in the scanned tree."""
    return site.name if _any_glob(site.name, _param(m, "extensions")) else None


def match_dynamic_member(site: Site, m: "Matcher") -> str | None:
    """A call of a torch module's member looked up by a computed name (``getattr(F,
    self.act)(x)``) where some member the call rules name would be flagged at the call's
    arguments; the detail names the module and those members with their codes."""
    return f"getattr({site.name}, <name>)(...) picks a member that some rules flag at these arguments: {site.data['members']}"


MATCHERS: dict[str, MatcherSpec] = {
    "call": MatcherSpec("call", match_call, match_call.__doc__ or "", _gate_names_or_methods,
                        rule_keywords=_call_keywords),
    "condition": MatcherSpec("condition", match_condition, match_condition.__doc__ or ""),
    "dynamic-member": MatcherSpec("dynamic-member", match_dynamic_member, match_dynamic_member.__doc__ or ""),
    "subscript-assign": MatcherSpec("subscript-assign", match_subscript_assign, match_subscript_assign.__doc__ or ""),
    "aug-assign": MatcherSpec("aug-assign", match_aug_assign, match_aug_assign.__doc__ or ""),
    "subscript-read": MatcherSpec("subscript-read", match_subscript_read, match_subscript_read.__doc__ or ""),
    "self-write": MatcherSpec("self-write", match_self_write, match_self_write.__doc__ or ""),
    "global-write": MatcherSpec("global-write", match_global_write, match_global_write.__doc__ or ""),
    "host-state-read": MatcherSpec("host-state-read", match_global_write,
                                   "A plain attribute read in traced code and set by a host-side method "
                                   "(on the module or through a submodule) to a computed value."),
    "argument-write": MatcherSpec("argument-write", match_global_write,
                                  "Mutations, through a container/cache method (update, append, ...), of an "
                                  "object a function was given (a parameter) or built (a local instance of a class)."),
    "attribute-read": MatcherSpec("attribute-read", match_attribute, match_attribute.__doc__ or ""),
    "attribute-write": MatcherSpec("attribute-write", match_attribute, match_attribute.__doc__ or ""),
    "attribute-delete": MatcherSpec("attribute-delete", match_attribute,
                                    "A ``del`` of an attribute (``del self.weight``) or of an entry of a layer's "
                                    "``_parameters``/``_buffers``/``_modules`` table (named by the table); "
                                    "``names``, ``receiver``, ``on_self`` and ``or_layer`` as for attribute sites."),
    "class-base": MatcherSpec("class", match_name, match_name.__doc__ or "", names_required=True),
    "decorator": MatcherSpec("decorator", match_name, match_name.__doc__ or "", names_required=True),
    "import": MatcherSpec("import", match_name, match_name.__doc__ or "", names_required=True),
    "name-ref": MatcherSpec("name-ref", match_name, match_name.__doc__ or "", names_required=True),
    "loop": MatcherSpec("loop", match_loop, match_loop.__doc__ or ""),
    "try": MatcherSpec("try", match_try, match_try.__doc__ or ""),
    "recursion": MatcherSpec("call", match_recursion, match_recursion.__doc__ or "", reads_kinds=False,
                             flag="recursive"),
    "compiled-extension-call": MatcherSpec("call", match_compiled_extension, match_compiled_extension.__doc__ or "",
                                           reads_kinds=False, flag="compiled_extension"),
    "autograd-apply": MatcherSpec("call", match_autograd_apply, match_autograd_apply.__doc__ or "",
                                  lambda m: CallGate(GatePart(("*.apply",)), GatePart(exact=frozenset({"apply"}))),
                                  reads_kinds=False),
    "strided-explicit-padding": MatcherSpec("call", match_strided_padding, match_strided_padding.__doc__ or "", _gate_names),
    "device-transfer": MatcherSpec("call", match_device_transfer, match_device_transfer.__doc__ or "", _gate_method("to")),
    "host-value-shape": MatcherSpec("call", match_host_shape_arg, match_host_shape_arg.__doc__ or "", _gate_names_or_methods),
    "tensor-size": MatcherSpec("call", match_tensor_size, match_tensor_size.__doc__ or "", _gate_names_or_methods),
    "view-write": MatcherSpec("view-write", match_view_write, match_view_write.__doc__ or ""),
    "method-def": MatcherSpec("method-def", match_mode_override, match_mode_override.__doc__ or ""),
    "host-read-use": MatcherSpec("host-read-use", match_host_read_use, match_host_read_use.__doc__ or ""),
    "argument-inplace": MatcherSpec("argument-inplace", match_argument_inplace, match_argument_inplace.__doc__ or ""),
    "memoized-function": MatcherSpec("memoized-function", match_memoized_function, match_memoized_function.__doc__ or ""),
    "argument-inplace-returning": MatcherSpec("argument-inplace-returning", match_argument_inplace_returning,
                                              match_argument_inplace_returning.__doc__ or ""),
    "cache-length-use": MatcherSpec("cache-length-use", match_host_read_use,
                                    "A KV cache's current length (`cache.get_seq_length()`, a name computed from it) "
                                    "setting a shape, a slice bound or a loop length (`use`)."),
    "device-argument": MatcherSpec("call", match_device_argument, match_device_argument.__doc__ or "",
                                   keyword="device"),
    "pad-order": MatcherSpec("call", match_pad_order, match_pad_order.__doc__ or "", _gate_names),
    "negative-pad": MatcherSpec("call", match_negative_pad, match_negative_pad.__doc__ or "", _gate_names),
    "flatten-reshape": MatcherSpec("call", match_flatten_reshape, match_flatten_reshape.__doc__ or "",
                                   _gate_names_or_methods),
    "static-argument": MatcherSpec("call", match_static_argument, match_static_argument.__doc__ or "",
                                   _gate_names_or_methods),
    # a call given an integer constant outside int32: its own site kind (``int64-arg``, data
    # ``int64_args``), emitted only for such calls, so the rule costs nothing on the others
    "int64-constant": MatcherSpec("int64-arg", match_call, match_call.__doc__ or ""),
    # a call of a layer held in a self attribute (``self.drop(x)`` after ``self.drop =
    # nn.Dropout(0.1)`` in init): its own site kind, named by the layer's constructor and carrying
    # the constructor call's arguments
    "layer-call": MatcherSpec("layer-call", match_call, "A call of a layer that init code built into a self "
                              "attribute (`self.drop(x)` after `self.drop = nn.Dropout(0.1)`), named by the layer's "
                              "constructor; argument conditions read the constructor's arguments."),
    "optimizer-write": MatcherSpec("optimizer-write", match_name, "A write of an optimizer parameter group's "
                                   "entry (`g[\"lr\"] = lr` over `optimizer.param_groups`, `optimizer.param_groups[0]"
                                   "[\"lr\"] = lr`), named by the entry's key."),
    "kernel-launch": MatcherSpec("kernel-launch", match_call, "A Triton-style kernel launched over a grid "
                                 "(`_fwd_kernel[grid](...)`, a `@triton.jit` function of the file subscripted "
                                 "and called), named by the kernel as written."),
    "interpolation": MatcherSpec("call", match_interpolation, match_interpolation.__doc__ or "", _gate_names),
    "api-map": MatcherSpec("call", match_api_map, match_api_map.__doc__ or "", _gate_api_map),
    "suppression": MatcherSpec("suppression", match_suppression, match_suppression.__doc__ or ""),
    "source-file": MatcherSpec("source-file", match_source_file, match_source_file.__doc__ or ""),
}
