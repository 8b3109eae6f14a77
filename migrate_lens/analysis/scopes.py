"""The scopes the traversal keeps: :class:`_ClassInfo` (what a class of the file
holds: attribute kinds, literals, constructors, methods) and :class:`_FuncScope` (what a
function being walked binds: local kinds, aliases, guards, memo and cache state), and the
queries on them that several parts of :class:`~.visitor.FileVisitor` share (a value that
may be None, a class attribute's fixed value, a name that may be a method).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterable
from typing import Any

import libcst as cst

from migrate_lens.analysis import kinds as K
from migrate_lens.analysis.bindings import LocalBindings
from migrate_lens.analysis.sites import NOT_LITERAL
from migrate_lens.analysis.summaries import SummaryBuilder
from migrate_lens.analysis.values import literal
from migrate_lens.models import CallFlow, Flow
from migrate_lens.analysis.cst_queries import _is_self_attr
from migrate_lens.analysis.vocabulary import _TRACED_METHODS

@dataclass
class _ClassInfo:
    qualname: str
    bases: tuple[str, ...]
    is_module: bool
    is_autograd_function: bool
    #: ``is_module``, or a base this file cannot see may make it one (``class CRDNN(sb.nnet.containers.Sequential)``
    #: without a ``forward`` of its own): its init code's composition facts are kept, and the
    #: project graph, which completes inheritance across files, keeps them for modules only
    composes: bool = False
    #: a subclass of ``torch.optim.Optimizer`` (its ``self.state`` holds per-parameter tensors)
    is_optimizer: bool = False
    attr_kinds: dict[str, str] = field(default_factory=dict)
    #: plain attributes init code sets to a literal, or to a constructor parameter as it came
    #: with a literal default (``self.align_corners = align_corners`` with ``align_corners=True``),
    #: and no other method sets: attribute -> that value (the common construction's)
    attr_literals: dict[str, Any] = field(default_factory=dict)
    #: containers on self holding instances of plain classes (``self.caches = [LayerCache()
    #: for _ in range(n)]``): attribute -> the classes of their items
    held_items: dict[str, tuple[str, ...]] = field(default_factory=dict)
    buffers: set[str] = field(default_factory=set)
    has_conv: bool = False
    returns: dict[str, cst.Annotation] = field(default_factory=dict)
    global_pools: set[str] = field(default_factory=set)
    methods: set[str] = field(default_factory=set)
    #: the methods decorated ``@staticmethod`` (their parameters are what callers pass)
    static_methods: set[str] = field(default_factory=set)
    #: attributes bound to callables (``self.act = F.gelu``, ``self.fn = self._impl``, class body ``act = nn.GELU``)
    attr_binds: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: attributes init code builds a layer into (``self.drop = nn.Dropout(0.1)``): attribute ->
    #: (constructor, the constructor call's eager site data) per construction; a call
    #: ``self.drop(x)`` outside init code is a ``layer-call`` site of that constructor
    layer_ctors: dict[str, list[tuple[str, dict[str, Any]]]] = field(default_factory=dict)
    #: the same for the layers this file's base classes of the class build (``self.head_drop``
    #: built by the base's init, called by a subclass's own ``forward_head``), their own first
    inherited_layers: dict[str, list[tuple[str, dict[str, Any]]]] = field(default_factory=dict)
    #: attribute -> the library callable -> the ``partial(...)`` of it stored there
    #: (``self.act = functools.partial(F.gelu, approximate="tanh")``), or None when that callable
    #: is also stored bare in some branch: ``self.act(x)`` is the callable with the partial's
    #: keywords (:meth:`FileVisitor._attr_partial`)
    attr_partials: dict[str, dict[str, cst.Call | None]] = field(default_factory=dict)
    #: attributes some method sets to None (``self.bias = None``) or registers as None
    #: (``self.register_parameter("weight", None)`` without affine weights): an argument that
    #: may be None (:func:`_none_args`)
    none_attrs: set[str] = field(default_factory=set)
    #: list attributes init code fills with tensors (``self.key_cache.append(torch.zeros(...))``):
    #: an item is a tensor (``self.key_cache[i].index_copy_(...)`` writes the cache in place)
    tensor_lists: set[str] = field(default_factory=set)
    #: attributes holding a Python or NumPy random generator (``self._rng = random.Random()``,
    #: ``self.rng = np.random.default_rng(seed)``, ``self._rng = random``): attribute -> the module
    #: whose functions its methods are (``random``, ``numpy.random``), :func:`_rng_module`
    rng_attrs: dict[str, str] = field(default_factory=dict)
    #: attributes holding an instance of a class built outside a module's init code
    #: (``self.ema = ModelEMA(model)``): ``self.ema.update(...)`` is its method, no dict update
    held: set[str] = field(default_factory=set)
    #: attributes ``__init__`` stores from a constructor parameter annotated with a class as it
    #: came (``self.balancer = balancer``, ``balancer: Optional[LoadBalancer]``): an object the
    #: caller passes, whose ``.update(...)`` is its own method (the graph resolves it through what
    #: callers inject), not a dict update
    param_slots: set[str] = field(default_factory=set)
    #: a ``@dataclass`` (non-module) class with a generated ``__init__``: how many of its
    #: positional ``__init__`` parameters were met so far (the next field's position), -1 once
    #: fields are keyword-only (``kw_only=True``, after ``_: KW_ONLY``); None for other classes
    dataclass_fields: int | None = None
    #: class-body names bound to a string literal (``EASY = "easy"``): enum-like constants, so
    #: ``strategy == self.EASY`` compares strings, not tensors
    str_consts: set[str] = field(default_factory=set)
    #: the class body's methods by name (their nodes: a hook registration reads its callback)
    method_nodes: dict[str, cst.FunctionDef] = field(default_factory=dict)
    #: attribute -> the resolved class that builds its value, from ``self.<attr> = Ctor(...)``
    #: in any method or a class-body annotation ``<attr>: Ctor`` (``distribution: Normal``):
    #: what ``self.<attr>.sample()`` is called on (``receiver_ctor``)
    attr_ctor: dict[str, str] = field(default_factory=dict)
    #: (attributes its methods set on ``self``, its base-constructor call): :func:`_class_self_writes`
    self_writes: tuple[frozenset[str], tuple[int, frozenset[str], bool] | None] | None = None
    #: attributes holding a mapping (or list) that methods fill with tensors by key
    #: (``self._streaming_state["past_keys"] = nk``): an entry read back is a tensor
    tensor_entries: set[str] = field(default_factory=set)
    #: methods a memo-keyed ``if`` of another method calls to rebuild its table
    #: (``if seq_len > self.max_seq_len_cached: self._set_cos_sin_cache(seq_len, ...)``):
    #: their writes to ``self`` fill the memo (:func:`_memo_fillers`)
    memo_fillers: frozenset[str] = frozenset()


@dataclass
class _FuncScope:
    qualname: str
    name: str
    context: str
    cls: _ClassInfo | None
    env: dict[str, str] = field(default_factory=dict)
    globals_declared: set[str] = field(default_factory=set)
    is_method: bool = False
    no_grad: int = 0
    tensor_ops: int = 0
    pending: list[tuple[str, str, Any, Any]] = field(default_factory=list)
    params: set[str] = field(default_factory=set)
    views: dict[str, str] = field(default_factory=dict)
    #: local names bound to an attribute of self as it is (``k_out = self.k_cache``, or its
    #: ``.data``): an in-place write through the name mutates that attribute (torchtune's KV cache)
    self_aliases: dict[str, cst.Attribute] = field(default_factory=dict)
    #: locals last bound to a method of an object (``uniform = Uniform(lo, hi).rsample``,
    #: ``draw = dist.sample``): calling the name calls that method on that object
    method_aliases: dict[str, cst.Attribute] = field(default_factory=dict)
    binds: LocalBindings = field(default_factory=LocalBindings)
    #: the context the function's name and place suggest (``FunctionFact.context``); sites
    #: use ``context``, which is ``function`` (decided by reachability) for init-named helpers
    guess: str = ""
    #: init code by name or place: constructors called here are composition, ``self``
    #: attributes assigned here define their kinds
    init_like: bool = False
    #: a module-level test / benchmark / profiling function (``test_*``, ``benchmark*``: script
    #: code a library keeps beside its ops, run by hand): its host-context sites are no findings
    script: bool = False
    loops: int = 0
    summary: SummaryBuilder | None = None
    #: kinds of names that depend on symbolic inputs: name -> key -> hypothesis -> kind
    derived: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    #: positional parameter names (``self`` left out) and whether one is symbolic
    param_order: list[str] = field(default_factory=list)
    #: keyword-only parameters, in order (``def f(x, *, mask)``): callers pass them by name
    kwonly_order: list[str] = field(default_factory=list)
    symbolic: bool = False
    #: export-only tails opened in this function (``if not is_tracing(): return ...`` then the rest)
    export_tail: int = 0
    #: parameters assumed tensors (module methods) that have a default: no evidence to pass on
    optional: set[str] = field(default_factory=set)
    #: names whose tensor kind rests on the module-method assumption alone: a parameter of an
    #: ``nn.Module`` method that is no traced entry, still bound to the argument (no
    #: annotation, literal default or static name says what it holds), and locals computed
    #: from such parameters outside branches and loops; name -> (those parameters, its kind
    #: when they are all static). Conditions on them hold under ``a:<param>=T``: the project
    #: keeps the assumption unless every call passes a static value (``interproc.static_inputs``)
    assumed: dict[str, tuple[frozenset[str], str]] = field(default_factory=dict)
    #: assumed parameters a conditional site or a call's static descriptor names (the summary's ``assumed``)
    assumed_refs: set[str] = field(default_factory=set)
    #: parameters whose default is static (``flag=None``): omitted, the argument is static
    static_defaults: set[str] = field(default_factory=set)
    #: static descriptors of ``return`` values and of their tuple items (None once lengths differ)
    ret_static: list[str] = field(default_factory=list)
    ret_static_items: list[list[str]] | None = None
    #: (callee, static descriptors, keyword descriptors, spread) of the flows recorded for
    #: static descriptors alone: a repeated one adds nothing
    static_flows: set[tuple[str, Any, Any, bool]] = field(default_factory=set)
    #: the function calls its first parameter with the parameters after it (``return fn(*args,
    #: **kw)``): what those calls pass on (descriptors of :func:`_forwards`), ``FunctionSummary.forwards``
    forwards: set[str] = field(default_factory=set)
    #: flows of ``return`` values, and of their tuple items (None once lengths differ)
    ret_flows: list[Flow] = field(default_factory=list)
    #: requirements under which a returned value is a 0-d reduction of data (``return
    #: lengths.max()``): ``"*"`` always, else ``"p:<param>=T"`` (:attr:`FunctionSummary.ret_reduced`)
    ret_reduced: set[str] = field(default_factory=set)
    #: a return's value has a data-dependent size (``return torch.where(m)``): ``"*"`` always,
    #: else ``"r:<callee>=Z"`` (:attr:`FunctionSummary.ret_ragged`)
    ret_ragged: set[str] = field(default_factory=set)
    #: per string key of the dicts returned (``return {"loss": l, "n_pos": k}``): their flows
    ret_keys: dict[str, list[Flow]] = field(default_factory=dict)
    #: ``self`` attributes this method sets to a literal unconditionally (``self.pooling_mult = 1``)
    resets: set[str] = field(default_factory=set)
    ret_items: list[list[Flow]] | None = None
    call_flows: list[CallFlow] = field(default_factory=list)
    #: call node id -> its call-site number in this function (1, 2, ...: in the order first
    #: asked), shared by the return keys ``r:<callee>@<n>`` and ``CallFlow.site``
    call_sites: dict[int, int] = field(default_factory=dict)
    #: the function has read a checkpoint file so far (``np.load(path)``,
    #: ``tf.train.list_variables(path)``, ``torch.load``): a weight loader, whose writes into
    #: parameters a port's checkpoint converter replaces (:data:`~.vocabulary.CHECKPOINT_READERS`)
    loads_checkpoint: bool = False
    #: a property that computes a static number (``@cached_property def dimension(self) -> int``):
    #: random inputs it draws only probe a model's output shape, their values never leave it
    shape_probe: bool = False
    #: per call flow holding local names outside a loop: (its index in ``call_flows``, the
    #: call's last line, held position -> local name, held keyword -> local name), decided at
    #: the function's end by whether the name is read after the call (:meth:`FileVisitor._drop_unread_held`)
    held_names: list[tuple[int, int, dict[int, str], dict[str, str]]] = field(default_factory=list)
    #: local names last bound to a new object (the result of a call that is not a view:
    #: ``logits = self.classifier(h)``), not to an alias of another (``queue = self.queue``)
    fresh: set[str] = field(default_factory=set)
    #: open ``if`` statements: [orelse node id, env before, derived before, body-end state, dead
    #: branch, last_value before, how the body exits (:func:`_exit_kind`), (the body's
    #: last_value, once the else branch begins)]
    branches: list[list[Any]] = field(default_factory=list)
    #: requirements of the enclosing branches' tests on optional parameters (default None): tested
    #: as given (``if attn_mask is not None:``, the ``else`` of ``if mask is None:``), what is
    #: found there holds only when some caller passes one (``g:<param>=P``,
    #: :meth:`interproc._Solver._passed`); tested as missing (``if dim_size is None:``, the
    #: ``else`` of ``if mask is not None:``), only when some caller leaves it out or passes None
    #: (``n:<param>=T``, :meth:`interproc._Solver._omitted`)
    guarded: list[str] = field(default_factory=list)
    #: optional parameters rebound only under a test that they were given (still None unless given)
    given_rebinds: set[str] = field(default_factory=set)
    #: some site here holds only when a caller gives an optional parameter (``g:<param>=P``)
    guard_used: bool = False
    #: names a ``for``/``with``/walrus target has bound so far (no longer the argument as passed,
    #: for :func:`_optional_guards`)
    target_bound: set[str] = field(default_factory=set)
    #: names bound to a length of a tensor's axis (``B, T, C = x.shape``, ``T = x.size(1)``)
    shape_names: set[str] = field(default_factory=set)
    #: loop variables over a mapping's keys (``for key in sd.keys()``, ``for key, v in sd.items()``)
    key_names: set[str] = field(default_factory=set)
    #: open ``if`` statements (either branch) whose test checks a type (``isinstance(space,
    #: spaces.Dict)``): code that dispatches on the Python structure of its input
    type_tests: int = 0
    #: per open ``if`` whose test compares a cache key on ``self`` with a static value
    #: (``if seq_len != self._seq_len_cached:``): the ``self`` attributes its body assigns, a
    #: memo cache recomputed when the static key changes (:meth:`FileVisitor._memo_attrs`)
    memo_attrs: list[frozenset[str]] = field(default_factory=list)
    #: ``self`` attributes of a memo cache whose hit returns early (``if key <= self.n.item():
    #: return self.table[:key]``), for the rest of the function (:meth:`FileVisitor._memo_hit`)
    memo_hits: set[str] = field(default_factory=set)
    #: module-level containers an enclosing ``if <key> not in <global>[...]:`` tests, one entry
    #: per such ``if`` (:meth:`FileVisitor._memo_global`): a write into one there fills a memo
    memo_globals: list[str] = field(default_factory=list)
    #: (line, decorator) of a ``functools`` cache on this function (``@lru_cache``, ``@cache``,
    #: ``@cached_property``), else None
    cached_by: tuple[int, str] | None = None
    #: a method that rebuilds a memo table (:attr:`_ClassInfo.memo_fillers`): its writes to
    #: ``self`` fill the memo
    memo_filler: bool = False
    #: name -> another live name (or ``self.attr``) bound to the same object (``q = p`` binds
    #: both ways): an in-place write through one is seen through the other
    shared: dict[str, str] = field(default_factory=dict)
    #: names bound to an input's device (``device = x.device``, also through a ternary)
    input_devices: set[str] = field(default_factory=set)
    #: the ``**kwargs`` parameter's name ("" without one)
    star_kwargs: str = ""
    #: keys the function writes into its own ``**kwargs`` (``kwargs["flag"] = x.sum() > 0``)
    kwargs_written: set[str] = field(default_factory=set)
    #: parameters annotated as a mapping of tensors (``x: Dict[str, torch.Tensor]``): an entry
    #: read by a string key is a tensor (pytorch-forecasting's ``x["encoder_lengths"]``)
    tensor_maps: set[str] = field(default_factory=set)
    #: locals that map names to a module's tensors (``p = dict(model.named_parameters())``,
    #: ``sd = model.state_dict()``): any entry read back is a tensor
    weight_maps: set[str] = field(default_factory=set)
    #: what a module-level function's ``return`` statements build (``FunctionFact.builds``)
    builds: list[str] = field(default_factory=list)
    #: locals grown from a cache by concatenation (``k = torch.cat((ck, k))``): their length along
    #: that axis is the cache's (:meth:`FileVisitor._grown_length`)
    cache_grown: set[str] = field(default_factory=set)
    #: locals bound to what a project call returns given a state-named parameter
    #: (``saved_state = self._get_input_buffer(incremental_state)``): a view of the caller's state
    state_views: set[str] = field(default_factory=set)
    #: names bound to a single Python number's expression (``approx = float(a) / float(b)``):
    #: ``torch.tensor(approx)`` of one is a static number, not tensor data
    scalars: set[str] = field(default_factory=set)
    #: names bound to a global pooling result (``x = self.avgpool(x)``, a (N, C, 1, 1) map)
    pooled: set[str] = field(default_factory=set)
    #: locals bound to a dict with string keys (``out = {"logits": y, "n_pos": (t > 0).sum()}``,
    #: ``dict(mask=m)``, entries written by ``out["k"] = v``): key -> the entry's value
    #: expression, so that ``out["n_pos"]`` reads back its kind (under the hypothesis of the
    #: moment), not a static container's
    dict_kinds: dict[str, dict[str, cst.BaseExpression]] = field(default_factory=dict)
    #: (name, is a scalar, is pooled) of the statement being visited, applied after it
    pending_marks: list[tuple[str, bool, bool]] = field(default_factory=list)
    #: open loops, innermost last: (env and derived kinds at the loop head, conditions in the
    #: body that held no value kind when met, each with the env/derived kinds it saw)
    loop_heads: list[tuple[dict[str, str], dict[str, Any], list[tuple[Any, ...]]]] = field(default_factory=list)
    #: the open ``for``/``while`` nodes, outermost first (:meth:`_local_growth` reads the innermost)
    loop_nodes: list[Any] = field(default_factory=list)
    #: names bound as ``for`` targets (and not rebound since): their kind is the iterable's guess
    iter_names: set[str] = field(default_factory=set)
    #: loop names bound to an optimizer's parameter groups (``for g in opt.param_groups``)
    opt_groups: set[str] = field(default_factory=set)
    #: names a ``for`` or comprehension binds to the items of a parameter (``for o in x``, ``for
    #: k, v in x.items()``): a recursive call on one descends into the argument's structure
    elements: set[str] = field(default_factory=set)
    #: name -> the resolved callee that built its value (``dist = torch.distributions.Normal(...)``)
    ctor_of: dict[str, str] = field(default_factory=dict)
    pending_ctor: list[tuple[str, str, cst.BaseExpression]] = field(default_factory=list)
    #: name -> the expression its latest plain assignment bound (read lazily by a few matchers)
    last_value: dict[str, cst.BaseExpression] = field(default_factory=dict)
    #: (name, id of a :attr:`last_value` expression) -> the name's binding before that one
    #: (None: a parameter or nothing known): ``x = x.float()`` reads the previous ``x``
    prior_value: dict[tuple[str, int], cst.BaseExpression | None] = field(default_factory=dict)
    #: (name, id of a :attr:`last_value` expression) -> the other branches' bindings of the name
    #: that also reach the code after an ``if``/``else`` that bound it in both
    alt_values: dict[tuple[str, int], list[cst.BaseExpression]] = field(default_factory=dict)
    param_meta: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # name -> (annotation, default)
    #: calls a name imported under a guard (an optional kernel: ML414's use sites)
    kernel_use: bool = False
    #: the function's own node, and the names its body binds more than once (any binding form,
    #: computed on first need by :func:`_rebound_names`)
    node: cst.FunctionDef | None = None
    rebound: frozenset[str] | None = None
    #: local names bound to a Python container of tensors (``pyramid = [corr]``, appended
    #: tensors, a comprehension of tensors): kept on ``self`` it is tensor state
    tensor_lists: set[str] = field(default_factory=set)
    #: local names bound to a comprehension whose items are of unknown kind (``batch = {k: t[1:]
    #: for k, t in batch.items()}`` over an argument's items): an item read back is unknown too,
    #: not the static container itself
    unknown_items: set[str] = field(default_factory=set)
    #: local tensors some item assignment wrote a non-static value into (``out[:n] = m``): no
    #: longer constants built from static values (:meth:`_subscript_write`)
    data_written: set[str] = field(default_factory=set)
    #: local names bound to a Python or NumPy random generator (``rng = np.random.default_rng()``)
    rng_locals: dict[str, str] = field(default_factory=dict)
    #: name -> the statement that read it out of tensor data (``n = cut.item()``), for the
    #: report of that read once the value sets a shape, a slice bound or a loop length
    #: name -> (the statement that read it from tensor data, the hypotheses it needs: () when
    #: none, ``("p:lengths=T",)`` when the read is a reduction of a parameter only callers type)
    host_reads: dict[str, tuple[cst.CSTNode, tuple[str, ...]]] = field(default_factory=dict)
    #: names bound to a checkpoint (``sd = model.state_dict()``, ``torch.load(...)``) and to
    #: the weight tensors iterated out of one (``for k, w in sd.items()``)
    weight_dicts: set[str] = field(default_factory=set)
    weights: set[str] = field(default_factory=set)
    weights_converted: bool = False
    #: names bound to a cache's current length (``past_seen = cache.get_seq_length()``):
    #: a number that changes every decoding step
    cache_lengths: set[str] = field(default_factory=set)
    #: in-place writes into parameters as passed (line, parameter, how), reported once the
    #: function is known to return nothing (the caller sees the update only through them)
    arg_writes: list[tuple[int, str, str]] = field(default_factory=list)
    returns_value: bool = False
    arg_write_nodes: list[cst.CSTNode] = field(default_factory=list)
    arg_write_requires: list[str] = field(default_factory=list)  # (each write's hypothesis, "" none)
    #: parameters returned as passed: (name, tuple item or -1 for the whole return value)
    returned: set[tuple[str, int]] = field(default_factory=set)
    #: functions defined in this function's body: name -> qualname (a closure handed to a
    #: hook registration by its local name, ``register_forward_hook(save_to_cache)``)
    local_defs: dict[str, str] = field(default_factory=dict)
    #: a context manager (``@contextmanager`` generator, ``__enter__``/``__exit__``): what it
    #: sets is switched around the calls made inside its ``with`` block, between steps
    toggle: bool = False

    def passed_default(self, name: str) -> cst.BaseExpression | None:
        """The default of parameter ``name`` while it is still the argument as passed (not
        rebound): what the common construction gives it. None otherwise (or no default)."""
        if name in self.params and name not in self.last_value:
            return self.param_meta.get(name, (None, None))[1]  # type: ignore[no-any-return]
        return None

    def common_value(self, name: str) -> cst.BaseExpression | None:
        """What ``name`` holds in the common construction: its last bound value, else its
        :meth:`passed_default`."""
        bound = self.last_value.get(name)
        return bound if bound is not None else self.passed_default(name)

    def note_bound(self, names: Iterable[str]) -> None:
        """``names`` bound by a ``for``/``with``/walrus target: no longer the arguments as passed
        (:attr:`target_bound`), no longer axis lengths (:attr:`shape_names`)."""
        for n in names:
            self.target_bound.add(n)
            self.shape_names.discard(n)


def _fixed_attr(cls: _ClassInfo, arg: cst.Arg) -> Any:
    """The literal an argument reading ``self.<attr>`` takes when init code fixes that attribute
    (:attr:`_ClassInfo.attr_literals`); :data:`NOT_LITERAL` for anything else (a spread too)."""
    v = arg.value
    if arg.star or not _is_self_attr(v):
        return NOT_LITERAL
    return cls.attr_literals.get(v.attr.value, NOT_LITERAL)  # type: ignore[attr-defined]


def _none_args(node: cst.Call, scope: _FuncScope) -> tuple[str, ...]:
    """The call's arguments that may be None (:attr:`migrate_lens.models.CallFlow.nones`), by
    position or keyword (:func:`_maybe_none`): ``<slot>`` for a value that may be None here,
    ``<slot>=<param>`` for an optional parameter of the caller passed on as it came
    (``dim_size=dim_size``), None when the caller's own callers leave it out."""
    out: list[str] = []
    i = 0
    for a in node.args:
        if a.star:
            break
        slot = a.keyword.value if a.keyword is not None else str(i)
        if a.keyword is None:
            i += 1
        src = _maybe_none(a.value, scope)
        if src:
            out.append(slot if src == "*" else f"{slot}={src}")
    return tuple(out)


def _maybe_none(v: cst.BaseExpression, scope: _FuncScope, depth: int = 0) -> str:
    """Whether ``v`` may be None where it is passed: "" only for what is a value whatever runs
    before (a literal other than None, arithmetic, a comparison, a container, a size query
    ``x.size(0)`` / ``x.shape[0]`` / ``len(x)``, a required parameter or one with a literal
    default, a local bound once to such a value); the name of an optional parameter of the
    caller (default None) passed on as it came; "*" for anything else (a local bound more than
    once, which some branch may leave None; an attribute; another call, ``getattr(d, "n",
    None)``): unknown counts as possibly None."""
    t = type(v)
    if t is cst.Name:
        name = v.value  # type: ignore[attr-defined]
        if name in ("True", "False"):
            return ""
        if name in scope.params:
            default = scope.param_meta.get(name, (None, None))[1]
            if default is None:
                return ""  # a required parameter
            if type(default) is cst.Name and default.value == "None":
                return name
            return "" if literal(default) is not NOT_LITERAL else "*"  # (`chunk=256`: a value unless a caller passes None)
        bound = scope.last_value.get(name)
        if bound is None or depth > 3 or name in scope.target_bound or (name, id(bound)) in scope.alt_values \
                or scope.prior_value.get((name, id(bound))) is not None:
            return "*"  # (bound more than once, in a loop or a with: some path may leave None)
        return _maybe_none(bound, scope, depth + 1)  # `seq_length = x.shape[-1]`, bound once
    if t in (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString,
             cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.Tuple, cst.List, cst.Dict, cst.Set):
        return ""
    if t is cst.Subscript and type(v.value) is cst.Attribute and v.value.attr.value == "shape":  # type: ignore[attr-defined]
        return ""
    if t is cst.Call:
        func = v.func  # type: ignore[attr-defined]
        if type(func) is cst.Attribute and func.attr.value in ("size", "dim", "numel") or \
                type(func) is cst.Name and func.value in ("len", "int", "float", "max", "min", "sum", "round"):
            return ""
    return "*"


def _may_be_method(cls: _ClassInfo | None, name: str) -> bool:
    """``self.<m>`` or ``self.<sub>[.<sub2>...].<m>`` may name a method whose parameters' static
    kinds the project proves from calls (``interproc.static_inputs``): ``m`` a method of the
    class, or an attribute the class never binds (a base class's method); ``sub`` an attribute
    holding a module or an unknown object (what it holds in turn, the graph resolves), ``m`` no
    forward-like or dunder method."""
    if cls is None or not name.startswith("self."):
        return False
    parts = name[5:].split(".")
    if len(parts) == 1:
        return parts[0] in cls.methods or (parts[0] not in cls.attr_kinds and parts[0] not in cls.attr_binds)
    return cls.attr_kinds.get(parts[0]) in (K.M, K.U) and \
        parts[-1] not in _TRACED_METHODS and not parts[-1].startswith("__")
