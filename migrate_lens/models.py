"""Plain, frozen, picklable facts that flow through the pipeline.

discover -> parse -> :class:`FileFacts` per file -> project graph -> estimate -> render.

Nothing here holds a libcst node or knows how to print itself. Positions are 1-based lines and
0-based columns (the libcst ``PositionProvider`` convention, also SARIF's ``startLine``; SARIF
columns are 1-based and the SARIF renderer adds 1).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from operator import attrgetter
from typing import TypeVar

from migrate_lens.fastinit import fast_init

_C = TypeVar("_C", bound=type)


def _fast_pickle(cls: _C) -> _C:
    """Pickle a frozen slotted dataclass as ``cls(*field values)``.

    The standard library's pickling of such classes (``dataclasses._dataclass_setstate``) calls
    ``dataclasses.fields()`` for every object: unpickling ``core``'s facts (170k objects) took
    1.7 s of the main process that way (cProfile), on every warm scan and during every cold
    one. Applied on top of ``@dataclass``."""
    names = tuple(f.name for f in fields(cls))
    get = attrgetter(*names)
    if len(names) == 1:
        cls.__reduce__ = lambda self: (cls, (get(self),))  # type: ignore[attr-defined]
    else:
        cls.__reduce__ = lambda self: (cls, get(self))  # type: ignore[attr-defined]
    return cls

#: Bases of a custom autograd function (``forward``/``backward`` staticmethods run by ``apply``):
#: ``InplaceFunction`` marks its output dirty in place (quantization's straight-through estimators).
AUTOGRAD_FUNCTION_BASES = frozenset({
    "torch.autograd.Function", "torch.autograd.function.Function", "torch.autograd.function.InplaceFunction",
    "torch.autograd.InplaceFunction",
})

#: The names a file's star imports of project modules bind (:mod:`migrate_lens.stars`): (hub
#: module, ((local name, dotted target), ...)) pairs, sorted.
StarBindings = tuple[tuple[str, tuple[tuple[str, str], ...]], ...]

#: Obstacle categories, exactly the vocabulary of the JSON contract (docs/report-json.md).
CATEGORIES: tuple[str, ...] = (
    "dynamic-control-flow",
    "data-dependent-shape",
    "in-place-mutation",
    "custom-op",
    "side-effect",
    "rng",
    "module-state",
    "device",
    "layout/numerics",
    "ecosystem-dependency",
    "other",
)

#: Severities from least to most serious. ``high`` and ``critical`` are the blocking ones.
SEVERITIES: tuple[str, ...] = ("info", "low", "medium", "high", "critical")
BLOCKING_SEVERITIES: frozenset[str] = frozenset({"high", "critical"})

CONFIDENCES: tuple[str, ...] = ("low", "medium", "high")

#: What porting a finding takes; drives a module's status (pure < mechanical < redesign < blocked).
PORTING_KINDS: tuple[str, ...] = ("none", "mechanical", "redesign", "blocked")

#: Where a piece of code runs. ``traced``: forward and what it reaches (jit-traced after the port);
#: ``init``: constructors and weight init (runs once, eagerly); ``function``: a function whose
#: callers are not known yet (the project graph decides); ``host``: module level, ``__main__``.
CONTEXTS: tuple[str, ...] = ("traced", "init", "function", "host")


def severity_rank(severity: str) -> int:
    """Index of ``severity`` in :data:`SEVERITIES` (0 = info). Raises ValueError if unknown."""
    return SEVERITIES.index(severity)



#: Base classes that never make a class an ``nn.Module``: the standard library's (prefixes of
#: dotted names, and bare names). Read by the file visitor (which bases may be a module it cannot
#: see) and by the project graph (which guessed modules the project can settle).
PLAIN_BASE_PREFIXES = ("typing.", "abc.", "enum.", "collections.", "dataclasses.", "builtins.")
PLAIN_BASES = frozenset({"object", "Exception", "BaseException", "ValueError", "RuntimeError", "dict", "list",
                         "tuple", "set", "str", "int", "float", "Generic", "Protocol", "NamedTuple", "ABC"})

@_fast_pickle
@dataclass(frozen=True, slots=True)
class Span:
    """A source range: 1-based lines, 0-based columns, end exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


@_fast_pickle
@fast_init
@dataclass(frozen=True, slots=True)
class Finding:
    """One JAX obstacle found at one place.

    ``symbol`` is the dotted enclosing scope (``pkg.mod.Class.forward``; the module name for
    module-level code). ``context`` is one of :data:`CONTEXTS`. ``traced_only`` findings are
    kept only if the project graph shows the enclosing function runs under the trace.
    ``snippet`` is the normalized source of the flagged node (whitespace collapsed, at most
    120 characters), used for fingerprints that survive lines moving. ``folds`` are the codes
    of findings folded into this one because they reported the same construct
    (:mod:`migrate_lens.fold`): the site counts once, and still shows each hazard.
    """

    code: str
    severity: str
    path: str
    span: Span
    symbol: str
    context: str
    message: str
    snippet: str
    traced_only: bool = False
    suppressed: str = ""  # "" | "ignore" | "fixme"
    suppress_reason: str = ""
    #: alternatives ``"<key>=<kind>"`` (``Flow`` keys of the enclosing function): the finding
    #: holds only if one of them does, which the project-level step decides from how the
    #: function is called and what its callees return; () = unconditional
    requires: tuple[str, ...] = ()
    folds: tuple[str, ...] = ()


@_fast_pickle
@dataclass(frozen=True, slots=True)
class ImportFact:
    """``import a.b as c`` / ``from .x import y as z``: ``module`` is absolute when resolvable.

    ``name`` is the imported member ("" for a plain ``import``), ``alias`` the bound local name.
    ``level`` is the relative-import depth as written (0 = absolute). ``guarded``: the import
    sits in a ``try`` whose handler catches ``ImportError`` (a fallback: the *call* of the name
    is where the optional library is used).
    """

    module: str
    name: str
    alias: str
    line: int
    level: int = 0
    guarded: bool = False  # inside ``try: ... except ImportError`` (an optional kernel library)


@_fast_pickle
@dataclass(frozen=True, slots=True)
class CallFact:
    """A call made from ``caller`` (dotted symbol) to ``callee`` (the callee as resolved in-file:
    a dotted qualified name such as ``torch.relu``, ``pkg.mod.helper``, or ``self.method``).
    ``passed``: ``callee`` is no call here but a function handed as an argument to one
    (``affect_init(w, self.winit)``): an edge only when it resolves to a project function, and
    no reference the scan counts as resolved or not. ``untyped``: ``callee`` is
    ``<name>.<method>`` on a local or parameter whose class the file does not know (an object
    handed to a training step: ``src_mesh.offset_verts(d)``), which the project may resolve by
    the method's name alone."""

    caller: str
    callee: str
    line: int
    passed: bool = False
    untyped: bool = False


@_fast_pickle
@dataclass(frozen=True, slots=True)
class SubmoduleFact:
    """Composition: ``owner`` (class qualname) holds an instance of ``target`` (the constructor's
    resolved dotted name) in attribute ``attr`` (``layers[]`` for containers built in loops or
    ``nn.Sequential``/``nn.ModuleList``/``nn.ModuleDict`` contents)."""

    owner: str
    attr: str
    target: str
    line: int


@_fast_pickle
@dataclass(frozen=True, slots=True)
class InjectionFact:
    """Constructor injection, in halves the project graph joins (no CST nodes, plain names).

    - ``kind="slot"``: class ``owner``'s ``__init__`` stores what its parameter ``param``
      (positional ``index``, -1 if keyword-only) holds, or what calling it builds, in
      attribute ``attr`` (``self.corr = corr_block``, ``self.norm = norm_layer(dim)``;
      ``attr="[]"`` for layers built into a list);
    - ``kind="arg"``: a call of the constructor ``owner`` (dotted, as resolved in-file)
      passes the class, or an instance of the class, ``target`` as parameter ``param``
      (keyword) or at position ``index`` (``RAFT(corr_block=CorrBlock(...))``,
      ``Block(dim, mlp_layer=Mlp)``, ``super().__init__(..., block)``);
    - ``kind="field"``: class ``owner``'s init code calls ``<object>.<param>(...)`` on an
      object of unknown class (a config entry: ``block_cnf.block(...)``): it builds whatever
      was injected into a slot ``param`` of a non-module class;
    - ``kind="member"``: class ``owner``'s init code stores in ``attr`` the submodule ``param``
      of an instance of ``target`` (``self.text_model = CLIPTextModel._from_config(c).text_model``);
    - ``kind="held"``: a method of class ``owner`` outside a module's init code stores an
      instance of ``target`` in ``attr`` (``self.ema = ModelEMA(model)`` in a trainer's setup
      method): ``self.<attr>.<method>(...)`` resolves to ``target``'s method (no composition);
    - ``kind="pass"``: function ``owner`` hands an instance of ``target`` it built on as
      keyword ``param`` (``layer(x, past_key_values=cache)`` with ``cache = DynamicCache()``);
    - ``kind="method"``: function ``owner`` calls method ``param`` on its parameter ``attr``
      whose class it cannot see (``past_key_values.update(...)``): the graph joins it with
      the ``pass`` facts of that keyword.
    """

    kind: str
    owner: str
    attr: str
    param: str
    index: int
    target: str
    line: int


@_fast_pickle
@dataclass(frozen=True, slots=True)
class CallSiteFact:
    """A call of a name imported from the project, kept for rule matching at the project level:
    what such a name is bound to is known only there (``from .utils import weight_norm`` where
    ``utils`` binds ``weight_norm = nn.utils.weight_norm``; ``_C.op(...)`` with ``_C`` imported
    from a module binding ``_C = torch.ops.mylib``). ``callee`` is the in-file resolved name,
    ``method`` the attribute called (or ""), ``args``/``kwargs`` the (value kind, literal)
    pairs the call matchers read (``kwargs`` as (keyword, kind, literal)), each literal as its
    ``repr`` (``ast.literal_eval`` reads it back) and a non-literal as :data:`NONLITERAL`. No
    CST node: plain data of strings and booleans."""

    callee: str
    method: str
    span: Span
    snippet: str
    symbol: str
    context: str
    args: tuple[tuple[str, str], ...]
    kwargs: tuple[tuple[str, str, str], ...]
    star: bool
    no_grad: bool
    #: the class named as a value, not called (``norm_layer=LayerNorm`` as a default): matched
    #: only as a subclass of a torch class built through the torch constructor
    #: (:meth:`migrate_lens.graph._Builder.ctor_base`)
    reference: bool = False
    #: called through a local name bound to the callee (``norm_layer(d)`` with the default
    #: ``norm_layer=LayerNorm``): a class's constructor defaults were matched where it was named
    bound: bool = False
    #: ``call``, or ``layer-call``: forward runs a layer init code built from ``callee`` (``self.drop_path(x)``
    #: with ``self.drop_path = DropPath(p)``), ``args``/``kwargs`` the constructor's
    site_kind: str = "call"


@_fast_pickle
@dataclass(frozen=True, slots=True)
class WrapperFact:
    """A top-level function (or a top-level class, by its ``__init__``: ultralytics' ``Conv(c1,
    c2, k, s)`` building ``nn.Conv2d(c1, c2, k, s, autopad(k, p))``) that passes its own
    parameters on to a library call (mmseg's
    ``def resize(input, size=None, ..., align_corners=None): return F.interpolate(input, size,
    scale_factor, mode, align_corners)``, compressai's ``def conv(in_ch, out_ch, kernel_size=5,
    stride=2): return nn.Conv2d(...)``): a call of the wrapper with literal arguments is a call
    of ``callee`` with them (:func:`migrate_lens.wrappers.through_wrapper`). ``params``: the
    wrapper's positional parameter names in order; ``args``/``kwargs``: the library call's arguments, each
    ``"p:<param>"`` (the parameter as it came), a literal repr or :data:`NONLITERAL`
    (``kwargs`` as (keyword, source)); ``line``: the library call's line in the wrapper;
    ``member``: the parameter that names the member of ``callee`` called (``def make_norm(name,
    dim): return getattr(nn, name)(dim)``: callee ``torch.nn``), "" for a fixed callee."""

    qualname: str
    callee: str
    params: tuple[str, ...]
    args: tuple[str, ...]
    kwargs: tuple[tuple[str, str], ...]
    line: int
    member: str = ""


#: The stand-in for "not a literal" in :class:`CallSiteFact` arguments (picklable).
NONLITERAL = "\0not-literal"


@_fast_pickle
@dataclass(frozen=True, slots=True)
class FunctionFact:
    """A function or method: its dotted ``qualname``, the lines it spans, its local context.
    ``builds``: for a module-level function, the callees of the calls its ``return`` statements
    return, as resolved in-file (``return SCHEDULERS[name](**kw)`` -> ``pkg.SCHEDULERS[]``, an
    entry of that table; ``return ResNet(cfg)`` -> ``pkg.resnet.ResNet``): what a builder
    function builds, for a module that stores its result (``self.scheduler = get_scheduler(n)``)."""

    qualname: str
    line: int
    end_line: int
    context: str
    is_method: bool
    builds: tuple[str, ...] = ()


@_fast_pickle
@dataclass(frozen=True, slots=True)
class ClassFact:
    """A class: ``bases`` are resolved dotted names; ``is_module`` is True when it subclasses
    ``torch.nn.Module`` directly or through a base resolvable in this file (the project graph
    completes inheritance across files). ``forwarding_init``: its ``__init__`` only hands every
    argument to the base's (``def __init__(self, *args, **kwargs): super().__init__(*args,
    **kwargs)``), so its instances keep the base constructor's defaults."""

    qualname: str
    line: int
    end_line: int
    bases: tuple[str, ...]
    is_module: bool
    lines_of_code: int
    forwarding_init: bool = False


@_fast_pickle
@dataclass(frozen=True, slots=True)
class Suppression:
    """A ``# migrate-lens: ignore[CODE]`` or ``fixme[CODE] reason`` comment on ``line``."""

    line: int
    kind: str
    codes: tuple[str, ...]
    reason: str


@_fast_pickle
@dataclass(frozen=True, slots=True)
class RuleError:
    """A rule (or the analyzer) raised on this file; the rest of the file's facts still count."""

    code: str
    message: str


@_fast_pickle
@dataclass(frozen=True, slots=True)
class Flow:
    """The value kind of one expression as a function of its function's symbolic inputs.

    ``kind``: the kind (``T``, ``B``, ``H``) it has whatever the inputs, or "" when it has no
    value kind of its own; ``deps``: ``(key, hypothesis, kind)`` triples, "if the input ``key``
    has kind ``hypothesis`` this expression has ``kind``". Keys: ``p:<param>`` (a parameter of
    the function whose kind only its callers know), ``r:<callee>`` / ``r:<callee>#<i>`` (the
    return value of a call, or its ``i``-th tuple item, as written in the function)."""

    kind: str = ""
    deps: tuple[tuple[str, str, str], ...] = ()


@_fast_pickle
@dataclass(frozen=True, slots=True)
class CallFlow:
    """A call's argument flows: ``callee`` as resolved in the caller (the ``CallFact`` callee),
    ``args`` by position (up to the first ``*args``), ``kwargs`` by keyword name."""

    callee: str
    args: tuple[Flow, ...] = ()
    keywords: tuple[str, ...] = ()
    kwargs: tuple[Flow, ...] = ()
    #: positions (and keywords) of arguments the caller still holds after the call (a local
    #: name or ``self.<attr>``: it sees an in-place update of that object)
    held: tuple[int, ...] = ()
    held_kw: tuple[str, ...] = ()
    #: what the caller keeps of the result: "" all of it, "-" nothing (a call statement), or
    #: the comma-separated tuple items it binds (``out, _ = f(...)`` -> "0")
    use: str = ""
    #: for ``self.<m>(...)`` calls: whether each argument is static (*static descriptors*, by
    #: position up to the first ``*args``, and ``(keyword, descriptor)``): "S" static whatever
    #: the inputs (a literal, a config attribute, a static local), "" not known static, or
    #: ``&``-joined input keys of the caller that make it static when all are (``a:<param>``
    #: an assumed-tensor parameter passed on, ``r:<callee>#<i>`` a returned item, ``p:<param>``)
    static: tuple[str, ...] = ()
    static_kw: tuple[tuple[str, str], ...] = ()
    #: the arguments cannot all be listed: a ``*args``/``**kwargs`` splat, or the function is
    #: handed on (``checkpoint(self.m, x)``) or called through an alias (``fn = self.m``)
    spread: bool = False
    #: a call through a forwarding wrapper: ``apply(fn, x, scale=s)`` records the flow of
    #: ``fn(x, scale=s)`` with ``via`` the wrapper as written in the caller; it holds only where
    #: the wrapper resolves to a function whose summary ``forwards`` (``interproc.flow_kinds``)
    via: str = ""
    #: positions (and keywords) of arguments that are containers the caller built in this call
    #: (a list/dict/set display or comprehension, ``list()``/``dict()``, or a local bound to one):
    #: a callee that appends to one changes trace-time Python, not state that outlives the step
    local: tuple[int, ...] = ()
    local_kw: tuple[str, ...] = ()
    #: arguments that may be None: their position (as a string) or keyword, for a literal
    #: ``None``, or ``<slot>=<param>`` for an optional parameter of the caller (default None)
    #: passed on as it came, None when the caller's own callers leave it out
    #: (``interproc._Solver._omitted``)
    nones: tuple[str, ...] = ()
    #: the call itself splats a sequence (``f(*args)``): the parameters after ``args`` may get
    #: any of what the caller holds (``interproc``: tensors, from traced code)
    splat: bool = False
    #: the call's site number in the caller (``r:<callee>@<site>`` keys its return; 0 unknown):
    #: a return that passes a parameter through takes this call's argument kinds only
    site: int = 0


@_fast_pickle
@dataclass(frozen=True, slots=True)
class FunctionSummary:
    """What the project-level step needs to know of one function (``qualname``, dotted),
    computed in the per-file pass (``analysis/summaries.py``), combined by ``interproc.py``.

    ``role``: ``train-step`` | ``train-loop`` | ``generation`` | ``weight-surgery`` | ``decode-loop`` |
    ``sampling-loop`` | ``placement`` |
    ``plotting`` | ""; ``loop_calls``: for a
    ``train-loop``, the last dotted part of each name it calls inside a loop (sorted: a set's
    order would follow the string hash seed into the cached facts); ``params``: the
    parameter names in positional order (``self``/``cls`` left out), given when some parameter's
    kind is symbolic; ``ret``: the flow of the returned values (joined over ``return``
    statements); ``ret_items``: per tuple item when every ``return`` returns a tuple of that
    length; ``calls``: argument flows of calls to functions that may be in the project;
    ``mutated``: parameters the function writes into in place while it also returns a value,
    and ``returned``: ``(parameter, tuple item or -1 for the whole value)`` of the parameters
    it returns (a caller that ignores that part of the result loses the update in a port).

    Static flags (:func:`migrate_lens.interproc.static_inputs`): ``assumed``: the parameters of
    an ``nn.Module`` method taken for tensors only by that assumption (``a:<param>``) that a
    conditional finding or a call's static descriptor names (``params`` then lists the
    positional ones); ``defaults``: parameters whose default is static (an omitted argument
    is a static value); ``static_ret`` / ``static_items``: static descriptors
    (:attr:`CallFlow.static`) of the returned value and of its tuple items, joined over the
    ``return`` statements (methods only); ``escapes``: the method is referenced in its file
    without being called (``self.f = self.f_uncorrected``, ``fns = [self.a, self.b]``): its
    callers cannot all be listed."""

    qualname: str
    role: str = ""
    loop_calls: tuple[str, ...] = ()
    params: tuple[str, ...] = ()
    ret: Flow | None = None
    ret_items: tuple[Flow, ...] = ()
    calls: tuple[CallFlow, ...] = ()
    mutated: tuple[str, ...] = ()
    returned: tuple[tuple[str, int], ...] = ()
    assumed: tuple[str, ...] = ()
    defaults: tuple[str, ...] = ()
    static_ret: str = ""
    static_items: tuple[str, ...] = ()
    escapes: bool = False
    #: the function calls its first parameter with the parameters after it, as they came
    #: (``def apply(fn, *args, **kw): return fn(*args, **kw)``, ``def run(fn, x): return fn(x)``):
    #: the flows its callers record ``via`` it reach the function they pass, trimmed to what it
    #: passes on (``@n`` its positional parameters after the first, ``#k`` the first k of them
    #: passed in order, ``*``/``**`` its splats passed, ``=name`` passed by keyword, ``+name``
    #: passed by position, ``-name`` kept for itself): () for any other function
    forwards: tuple[str, ...] = ()
    #: keyword-only parameter names (``def f(x, *, mask)``), given when ``params`` would be:
    #: callers reach them only by keyword
    kwonly: tuple[str, ...] = ()
    #: the returned value is a 0-d reduction of tensor data (``return lengths.max()``), under
    #: any of these alternatives: ``"*"`` always, else ``&``-joined ``"<key>=<kind>"``
    #: requirements on the function's inputs (``"p:lengths=T"``, ``"r:<callee>=R"``); () when
    #: it is not. A caller that uses it as a size reads it to the host (requirement
    #: ``"r:<callee>=R"``, :data:`migrate_lens.analysis.kinds.RETURNED_REDUCTION`)
    ret_reduced: tuple[str, ...] = ()
    #: the returned value has a data-dependent size (``return torch.where(m)``, ``return x[mask]``,
    #: a tuple of such) under any of these alternatives: ``"*"`` always, else
    #: ``"r:<callee>=Z"`` (it returns such a callee's return); () when it has not. A caller's
    #: ``len(idx)`` / ``idx.numel()`` / ``idx.shape[0]`` is then a host value (requirement
    #: ``"r:<callee>=Z"``, :data:`migrate_lens.analysis.kinds.RETURNED_RAGGED`)
    ret_ragged: tuple[str, ...] = ()
    #: per string key when a ``return`` returns a dict display (``return {"loss": l, "n_pos": k}``,
    #: a local dict read back by key): ``(key, flow)`` sorted by key, joined over the returns
    #: that have the key; a caller's ``out["n_pos"]`` is the input ``r:<callee>#n_pos``
    ret_keys: tuple[tuple[str, Flow], ...] = ()
    #: ``self`` attributes the method sets to a literal unconditionally (``self.pooling_mult = 1``):
    #: when traced code runs it, a counter on that attribute (``self.pooling_mult *= 2``) in the
    #: same class restarts on every call, trace-time Python, not state (key ``k:<attr>``)
    resets: tuple[str, ...] = ()

    @property
    def named(self) -> tuple[str, ...]:
        """Every parameter a caller can name: ``params`` then ``kwonly``."""
        return self.params + self.kwonly if self.kwonly else self.params


@_fast_pickle
@dataclass(frozen=True, slots=True)
class UnitShape:
    """A class, method or module-level function as pricing sees it
    (:mod:`migrate_lens.analysis.shape`): ``qualname`` (dotted, as the graph names it), 1-based
    ``line``..``end_line``, ``code_lines`` (not blank, comment or docstring), ``digest`` of its
    normalised code text (same digest = same code up to strings, docstrings, comments, layout and
    the model-family name), ``copied_from`` (the dotted target of a ``# Copied from`` marker, or
    ""), ``kind`` (class | method | function)."""

    qualname: str
    line: int
    end_line: int
    code_lines: int
    digest: str
    copied_from: str
    kind: str


@_fast_pickle
@dataclass(frozen=True, slots=True)
class FileFacts:
    """Everything the per-file stage learned about one file. ``module`` is the dotted module
    name derived from the path (``pkg/sub/mod.py`` -> ``pkg.sub.mod``). ``mentions_torch`` is
    False for files the cheap pre-filter skipped (they still feed the import graph).
    ``code_lines`` (-1: not counted), ``shapes`` and ``generated_from`` come from
    :func:`migrate_lens.analysis.shape.shape_facts` (the ``modular_*.py`` file name a generated
    file names as its origin, or "")."""

    path: str
    module: str
    sha256: str
    lines: int
    findings: tuple[Finding, ...] = ()
    imports: tuple[ImportFact, ...] = ()
    calls: tuple[CallFact, ...] = ()
    classes: tuple[ClassFact, ...] = ()
    functions: tuple[FunctionFact, ...] = ()
    submodules: tuple[SubmoduleFact, ...] = ()
    suppressions: tuple[Suppression, ...] = ()
    traced_entries: tuple[str, ...] = ()
    #: resolved callees of the file's ``if __name__ == "__main__":`` block, sorted: script
    #: code, so the functions they reach (and nothing traced) run in host context
    host_entries: tuple[str, ...] = ()
    rule_errors: tuple[RuleError, ...] = ()
    mentions_torch: bool = True
    injections: tuple[InjectionFact, ...] = ()
    #: module-level names bound by assignment to a callable (``weight_norm = nn.utils.weight_norm``),
    #: as import bindings (``module``.``name`` is the target, ``alias`` the bound name)
    value_aliases: tuple[ImportFact, ...] = ()
    #: class members bound to a function in the class body (``detect_language =
    #: detect_language_function``, ``_idx = staticmethod(mod.fn)``): (member qualname, the
    #: function's dotted name as the file resolves it), a method for the graph's member lookup
    method_aliases: tuple[tuple[str, str], ...] = ()
    calls_to_project: tuple[CallSiteFact, ...] = ()
    #: per-function summaries for the project-level step (``interproc.py``)
    summaries: tuple[FunctionSummary, ...] = ()
    code_lines: int = -1
    shapes: tuple[UnitShape, ...] = ()
    generated_from: str = ""
    #: parts of the file left out of the analysis while the rest was analyzed, each a short
    #: phrase (a notebook code cell that does not parse: ``cell 3: syntax error at line 2: ...``);
    #: the scan lists them as warnings, ``check`` as code it could not check
    unanalyzed: tuple[str, ...] = ()
    #: dotted names of the compiled extension modules the file declares for a build
    #: (``CUDAExtension("pkg._C", sources=[...])`` in setup.py), sorted
    extension_modules: tuple[str, ...] = ()
    #: the file's top-level member factories (``def f(name): ... getattr(X, name)``), as
    #: (function qualname, dotted name of X after the file's bindings) pairs, sorted:
    #: ``f("op")(x)`` anywhere in the project is a call of ``X.op``
    member_factories: tuple[tuple[str, str], ...] = ()
    #: names the file's module-level code assigns (``IS_NPU = ...``, ``ACT2FN = {...}``, also
    #: inside a top-level ``if``/``try``), sorted: data another module may import
    module_globals: tuple[str, ...] = ()
    #: module-level names bound to an instance of a project class (``AUX_LOSSES =
    #: AuxLossCollector()``), as (dotted name, the class's dotted name after the file's
    #: bindings), sorted: ``AUX_LOSSES.add(...)`` anywhere in the project runs that class's method
    module_instances: tuple[tuple[str, str], ...] = ()
    #: the file's top-level functions that pass their parameters on to library calls
    #: (:class:`WrapperFact`), sorted by (qualname, line)
    library_wrappers: tuple[WrapperFact, ...] = ()
    #: the file's module-level dispatch tables (``ACTS = {"relu": torch.relu_, "gelu": F.gelu}``),
    #: as (dotted table name, its entries' dotted names after the file's bindings), sorted:
    #: ``self.act = ACTS[name]`` in another file calls one of the entries
    dispatch_tables: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: the file's top-level registrar functions: a decorator storing what it decorates in a
    #: module-level table (``def register(cls): TABLE[cls.__name__] = cls``) or a factory
    #: returning one (``def register(name): def deco(cls): TASK_UTILS[name] = cls ...``), as
    #: (dotted function, dotted table), sorted. Another file's ``@register("X") class C`` fills
    #: the table (its ``dispatch_tables`` entry ``@<dotted function>``, :func:`migrate_lens.graph.dispatch_tables`)
    registrars: tuple[tuple[str, str], ...] = ()
    #: the file's top-level functions that return a closure of their own (``def
    #: make_attention(scale): def attention(q, k, v): ...; return attention``, a decorator's
    #: ``wrapper``), as (function qualname, closure qualname) pairs, sorted: ``<f>()`` (what a
    #: call of ``f`` returns, held on self or wrapping a decorated method) is the closure
    closure_factories: tuple[tuple[str, str], ...] = ()
    #: string defaults of the file's classes, as (class qualname, attribute, value), sorted:
    #: class-level fields (``act: str = "GELU"``) and ``__init__`` keyword defaults stored on
    #: self (``hidden_act="gelu"``): a configuration class's common construction, which picks
    #: the entry of a table keyed by that field in another file (``ACT2FN[config.hidden_act]``)
    string_defaults: tuple[tuple[str, str, str], ...] = ()
    #: the configuration classes the file's classes declare (``config: BertConfig``,
    #: ``config_class = BertConfig``), dotted after the file's bindings, sorted: what an
    #: unannotated ``config`` parameter of the file holds
    config_classes: tuple[str, ...] = ()
    #: module-level partials of a library callable with keyword arguments only (``resize =
    #: partial(F.interpolate, mode="bilinear", align_corners=True)``), as (dotted name, the
    #: callable's dotted name, (keyword, value kind, literal repr) triples), sorted: a call of
    #: the name in another file is matched as the callable with these keywords
    library_partials: tuple[tuple[str, str, tuple[tuple[str, str, str], ...]], ...] = ()


@_fast_pickle
@dataclass(frozen=True, slots=True)
class Skipped:
    """A file that was not analyzed, and why (``reason`` is a short, specific phrase).
    ``transient``: the cause may not recur (out of memory, timeout, crashed worker), so the
    outcome is not cached and the next scan tries the file again."""

    path: str
    reason: str
    transient: bool = False


@_fast_pickle
@dataclass(frozen=True, slots=True)
class FileOutcome:
    """What the per-file stage returns: facts, or the reason the file was skipped."""

    path: str
    facts: FileFacts | None = None
    skipped: Skipped | None = None
