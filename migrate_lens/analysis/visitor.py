"""The single traversal: one libcst visit per file that binds value kinds
(tensor / bool mask / host value / static; inferred by :mod:`.values`), tracks the context of each piece of code
(traced / init / function / host) and emits :class:`~.sites.Site` observations plus the
structural facts the project graph needs (imports, calls, classes, functions, composition).

What a name is bound to (imports, the file's own classes and functions) is kept in
:mod:`.bindings`; this visitor feeds it the binding statements it meets and asks it to resolve.

:class:`FileVisitor` is assembled from one mixin per concept, each in its own module:
:mod:`.module_facts` (imports, module-level facts, registries and builders),
:mod:`.definitions` (classes, functions, lambdas, parameters), :mod:`.assignments` (binding
statements), :mod:`.state_writes` (``self`` and cache state), :mod:`.control_flow` (branches,
``with``, ``try``), :mod:`.loops` (loops and comprehensions), :mod:`.calls` and
:mod:`.call_flow` (call sites, their arguments and results) and :mod:`.reads` (subscripts,
attributes, comparisons, returns). This module keeps the shared state (``__init__``), the
scope and name-resolution helpers every mixin uses, and the kind evaluations under
hypotheses; the scopes the walk keeps are in :mod:`.scopes`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, Callable

import libcst as cst
from libcst.metadata import PositionProvider

from migrate_lens.analysis import kinds as K
from migrate_lens.analysis.bindings import Bindings
from migrate_lens.analysis.bindings import registry_keys
from migrate_lens.analysis.sites import Site
from migrate_lens.analysis.values import HYPOTHESES, ValueKinds
from migrate_lens.models import (
    CallFact, ClassFact, Flow, FunctionFact, FunctionSummary, ImportFact, InjectionFact, StarBindings,
    SubmoduleFact, WrapperFact,
)
from migrate_lens.analysis.assignments import AssignmentsMixin
from migrate_lens.analysis.call_flow import CallFlowMixin
from migrate_lens.analysis.calls import CallsMixin
from migrate_lens.analysis.control_flow import ControlFlowMixin
from migrate_lens.analysis.cst_queries import _is_self_attr
from migrate_lens.analysis.definitions import DefinitionsMixin
from migrate_lens.analysis.loops import LoopsMixin
from migrate_lens.analysis.module_facts import ModuleFactsMixin
from migrate_lens.analysis.reads import ReadsMixin
from migrate_lens.analysis.source_scans import parameter_inits, sets_padding_idx
from migrate_lens.analysis.state_writes import StateWritesMixin

if TYPE_CHECKING:
    from migrate_lens.analysis.scopes import _ClassInfo, _FuncScope

__all__ = ["FileVisitor", "parameter_inits", "sets_padding_idx"]


class FileVisitor(
    ModuleFactsMixin,
    DefinitionsMixin,
    AssignmentsMixin,
    StateWritesMixin,
    ControlFlowMixin,
    LoopsMixin,
    CallsMixin,
    CallFlowMixin,
    ReadsMixin,
    cst.CSTVisitor,
):
    """Walks one module once. ``emit`` receives every :class:`Site`; structural facts are
    collected on the instance (``imports``, ``calls``, ``classes``, ``functions``,
    ``submodules``, ``traced_entries``).

    ``module`` is the file's dotted module name (used for qualnames and relative imports);
    ``is_package`` is True for ``__init__.py``. ``attribute_interest`` and ``name_interest``
    are the attribute names / dotted names some rule wants as ``attribute-*`` / ``name-ref``
    sites (so the visitor does not emit a site for every attribute); ``result_interest`` the
    callees whose returned object some rule follows (:attr:`Bindings.handles`).
    """

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(
        self,
        module: str,
        is_package: bool,
        emit: Callable[[Site], None],
        attribute_interest: frozenset[str] = frozenset(),
        name_interest: frozenset[str] = frozenset(),
        variant_interest: Callable[[str, str, Collection[str]], bool] | None = None,
        result_interest: frozenset[str] = frozenset(),
        probe: Callable[[Site], list[str]] | None = None,
        members: Mapping[str, tuple[str, ...]] | None = None,
        star: StarBindings = (),
        consts: tuple[tuple[str, str], ...] = (),
    ) -> None:
        super().__init__()
        #: attribute name -> how the file's classes build that ``nn.Parameter`` (set by the
        #: engine from the file's text, :func:`parameter_inits`)
        self.param_inits: dict[str, frozenset[str]] = {}
        #: ids of the calls passed as an ``nn.Parameter``'s data (``nn.Parameter(torch.ones(d))``)
        self.parameter_data: set[int] = set()
        #: whether the file may give an embedding a ``padding_idx`` (set by the engine from the
        #: file's text, :func:`sets_padding_idx`); when not, ``if m.padding_idx is not None:`` is dead
        self.sets_padding_idx = True
        #: the codes the rules would give a site, no finding made; the members of torch modules
        #: the rules name (``getattr(F, name)(x)``: :meth:`_dynamic_member`)
        self.probe = probe
        self.members = members or {}
        self.module = module
        self.is_package = is_package
        self.emit = emit
        self.attribute_interest = attribute_interest
        self.name_interest = name_interest
        #: (callee name, method, keyword arguments) -> whether the call's variant sites can
        #: yield a finding its own site does not (``RuleIndex.variants_matter``); None: always
        self.variant_interest = variant_interest
        #: the last components of ``name_interest``: an attribute ``a.b.c`` resolves to a name
        #: ending in ``.c``, so only attributes named so need resolving (most need not)
        self.name_leaves = frozenset(n.rsplit(".", 1)[-1] for n in name_interest)
        #: name-ref globs of the form ``<prefix>.<tail>.*.*`` (``torch.ops.*.*``): an attribute
        #: two levels below an attribute named ``<tail>`` is resolved and matched against them
        self.name_globs = tuple(n for n in name_interest if n.endswith(".*.*") and "*" not in n[:-4])
        self.name_glob_tails = frozenset(n[:-4].rsplit(".", 1)[-1] for n in self.name_globs)
        self.bindings = Bindings(module, is_package, result_interest)
        #: what the file's star imports of project modules bind (:mod:`migrate_lens.stars`)
        self.bindings.star_names = {hub: dict(names) for hub, names in star}
        #: the project's flag constants this file mentions (:mod:`migrate_lens.consts`), dotted -> literal
        self.constants = dict(consts)
        self.local_classes: dict[str, _ClassInfo] = {}
        #: names of the classes defined inside a function body (``class Output(OutputMixIn,
        #: OutputTuple)`` built per call or memoized on ``self``): what a name there holds is a class
        self.function_classes: set[str] = set()
        self.class_stack: list[_ClassInfo] = []
        self.func_stack: list[_FuncScope] = []
        self.scope_kinds: list[str] = []
        self.ctor_attr: dict[int, str] = {}
        #: id of a constructor call listed at a fixed position of a container held on ``self``
        #: (``nn.Sequential(nn.Linear(...), nn.Dropout(p))``: 1 for the dropout) -> that position
        self.ctor_pos: dict[int, int] = {}
        #: function -> the functions of this file its loops call (outside traced code), and
        #: the functions that run a model object's methods outside loops (:meth:`_decode_loops`)
        self.loop_callees: dict[str, set[str]] = {}
        #: functions with such a call inside a counted loop (``range``, ``while``: ``sampling-loop``)
        self.counted_loop_callers: set[str] = set()
        #: id of a call of a parameter whose default is a torch class -> (the class, the project
        #: subclass named, the body's dict displays): a use of the class made when the walk reaches it
        self.pending_class_uses: dict[int, tuple[str, str, Any]] = {}
        self.model_users: set[str] = set()
        #: id(concatenation call) -> the state it grows: the call's result is assigned back to
        #: one of its own inputs that outlives the call (:meth:`_growth`)
        self.grow_calls: dict[int, str] = {}
        #: id(concatenation call) -> the local it grows by one piece per pass of a loop that
        #: also reads it elsewhere (a decoding loop's token sequence: :meth:`_local_growth`)
        self.local_grow_calls: dict[int, str] = {}
        #: names a module-level ``for`` binds to an optimizer's parameter groups (a script's
        #: training loop: ``for g in optimizer.param_groups: g["lr"] = lr``)
        self.script_opt_groups: set[str] = set()
        #: id of a lambda that init code stores on self (``self.act = lambda x: ...``) -> the
        #: qualname its body is analyzed under, as a closure's (:meth:`visit_Lambda`)
        self.self_lambdas: dict[int, str] = {}
        #: ``map(lambda b: f(b), boxes)``: id(lambda) -> the iterables its parameters walk
        self.map_lambdas: dict[int, list[cst.BaseExpression]] = {}
        #: the enclosing function's bindings a mapped lambda's parameters hide while it is walked
        self._lambda_saved: list[tuple[int, dict[str, str | None]]] = []
        #: a class of this file that subclasses a torch class without an ``__init__`` of its own
        #: -> that torch class: building it runs the torch constructor (:meth:`_subclass_ctor`)
        self.ctor_bases: dict[str, str] = {}
        #: training loop -> the ids of its step loops (``SummaryBuilder.where``), each with the
        #: last line of its step: the inline training step, whose sites up to that line are traced
        #: code (``SummaryBuilder.step_loop_ends``)
        self.step_loops: dict[str, dict[int, int]] = {}
        #: function -> the parameters it returns as a whole (``return features``): an in-place
        #: update of one reaches the caller as the result (engine: its argument-write findings go)
        self.returned_params: dict[str, frozenset[str]] = {}
        self.loop_elses: set[int] = set()  # ids of the `else:` clauses of for/while loops
        self.try_stack: list[int] = []
        self.targets: set[int] = set()
        self.cond_tests: set[int] = set()
        self.compared: set[int] = set()
        self.mode_glue: set[int] = set()  # `self.training` reads that only pick PyTorch-side glue (_mode_glue)
        self.top_defs: dict[str, cst.FunctionDef] = {}  # the file's module-level functions by name
        self.rng_globals: dict[str, str] = {}  # module-level random generators (_rng_module)
        #: class members bound to a function in the class body: (member qualname, function's dotted name)
        self.method_aliases: list[tuple[str, str]] = []
        self.param_defaults = 0  # inside a parameter with a default (visit_Param): sites of the enclosing scope
        self.default_params: set[int] = set()
        self._call_seen: set[tuple[str, str]] = set()
        self._host_reported: set[int] = set()
        #: calls some of whose sizes :meth:`_shape_uses` found read from tensor data or a cache
        #: length (the host-read rules' sites): the tensor-size rule leaves them
        self._sized: set[int] = set()
        #: ``if not <tracing check>(): return ...`` statements at the top of a function body,
        #: after which the function runs only under an exporter
        self._export_tails: set[int] = set()
        #: the alias map (:attr:`_FuncScope.shared`) before an ``if`` with an ``else`` (by the
        #: else's id), and the body's while the else runs (:meth:`_enter_else`, :meth:`leave_If`)
        self._shared_at_if: dict[int, dict[str, str]] = {}
        self._shared_body: dict[int, dict[str, str]] = {}
        #: calls of a local bound to an object's method (:attr:`_FuncScope.method_aliases`): call
        #: node id -> the method's attribute, read as the call's callee
        self._aliased_calls: dict[int, cst.Attribute] = {}
        self.imports: list[ImportFact] = []
        self.calls: list[CallFact] = []
        self.classes: list[ClassFact] = []
        self.functions: list[FunctionFact] = []
        self.submodules: list[SubmoduleFact] = []
        self.traced_entries: list[str] = []
        #: callees of the module-level ``if __name__ == "__main__":`` block (a smoke ``test()``
        #: in a library module): script code, host context; and the open such blocks
        self.host_entries: list[str] = []
        self.main_blocks = 0
        self.injections: list[InjectionFact] = []
        #: (class, submodule attribute or "", attribute, setter method): Python state set outside init/forward
        self.host_writes: list[tuple[str, str, str, str]] = []
        #: class -> attribute -> (first read in traced code, its symbol, its context, the text
        #: read: ``self.x`` or ``Class.x``); reads in methods of undecided context count too
        #: (``qkv_attention`` called from ``forward``), the project decides
        self.traced_reads: dict[str, dict[str, tuple[int, str, str, str]]] = {}
        #: (class, attribute, setter label): a class attribute switched from outside the
        #: instance (``MultiHeadAttention.use_sdpa = False`` in a ``@contextmanager``)
        self.class_writes: list[tuple[str, str, str]] = []
        #: calls of names imported from the project: (node, callee, method, data, context, symbol)
        #: (first line, last line, callee, method, data, context, symbol): lines taken while the
        #: walk is in the statement (positions of earlier statements would cost a full re-walk)
        self.project_calls: list[tuple[int, int, str, str, Any, str, str]] = []
        #: module-level registrations into registry objects (`Norm.add_factory_class("group",
        #: nn.GroupNorm)`, `@Norm.factory_function("batch")`): (registry name, key, the value
        #: registered or the decorated definition), resolved once the file is walked
        self._registrations: list[tuple[str, str, cst.BaseExpression | cst.FunctionDef | cst.ClassDef]] = []
        #: top-level functions that hand their parameters on to library calls, by qualname
        #: (:class:`~migrate_lens.models.WrapperFact`; calls of them later in the file go through)
        self.library_wrappers: dict[str, list[WrapperFact]] = {}
        #: ``if`` statements testing optional parameters as given: id -> [body's parameters,
        #: else's parameters, those active now] (:attr:`_FuncScope.guarded`); their ``else``
        #: clauses' ids -> the ``if``'s id
        self.if_guards: dict[int, list[list[str]]] = {}
        #: ids of calls that are the value of an assignment in a function
        self.assigned_calls: set[int] = set()
        self.else_guards: dict[int, int] = {}
        #: closures nested in a top-level function that call a member of an object the outer
        #: function's parameter names: closure name -> (outer qualname, object, position, parameter)
        self._closure_members: dict[str, tuple[str, str, int, str]] = {}
        #: top-level functions that return a closure of their own: qualname -> the closure's
        #: (``FileFacts.closure_factories``)
        self.closure_factories: dict[str, str] = {}
        #: string defaults of the file's classes, (class qualname, attribute, value): class-level
        #: fields (``act: str = "GELU"``) and ``__init__`` keyword defaults stored on self
        #: (``hidden_act="gelu"`` then ``self.hidden_act = hidden_act``): a configuration
        #: class's common construction (``FileFacts.string_defaults``)
        self.string_defaults: list[tuple[str, str, str]] = []
        #: the configuration classes the file's classes declare (``config: BertConfig`` or
        #: ``config_class = BertConfig`` at class level: transformers' convention), resolved
        self.config_classes: set[str] = set()
        #: a dataclass field's default is being visited (its sites are init code: :meth:`_dataclass_slot`)
        self.field_default = False
        #: sites decided once the file is walked, with the line they point at (no node)
        self.late_sites: list[tuple[Site, int]] = []
        #: ``self.<attr>`` reads in methods of classes with bases, the attribute not set so far:
        #: (class, reader, attribute, line), decided in :meth:`leave_Module`
        self._base_reads: list[tuple[_ClassInfo, str, str, int]] = []
        #: init helpers' calls of a parameter: (class, method, parameter, its index, line)
        self._helper_slots: list[tuple[_ClassInfo, str, str, int, int]] = []
        #: `__init__` handing its parameters to its helpers: (class, method, helper parameter
        #: index or keyword) -> (constructor parameter, its index, what it binds there itself)
        self._init_forwards: dict[tuple[str, str, str], tuple[str, int, tuple[str, ...]]] = {}
        self._base_reads_seen: set[tuple[str, str]] = set()
        #: ids of the `torch.no_grad()`/`torch.inference_mode()` calls written in the plain form,
        #: a function's decorator or a `with` item itself (not `A if c else torch.no_grad()`):
        #: their call sites say so (`plain_no_grad`)
        self.plain_no_grad: set[int] = set()
        #: ids of the ``torch.no_grad()`` calls of ``with`` blocks that run a model or an object
        #: held by ``self`` or passed in (:meth:`_runs_a_model`)
        self.no_grad_model_calls: set[int] = set()
        #: compiled extension modules declared by build calls (:data:`_EXTENSION_BUILDERS`)
        self.extension_modules: list[str] = []
        #: depth of branches only PyTorch's exporters run (``if torch.jit.is_scripting():``)
        self.export_only = 0
        #: depth of ``except`` handlers that only report the error and re-raise (:func:`_always_raises`)
        self.error_only = 0
        self.error_handlers: set[int] = set()
        #: id(call) -> what its statement keeps of the result (``CallFlow.use``)
        self.call_use: dict[int, str] = {}
        #: id(call) -> the names its own assignment rebinds (`q = self.helper(q)[-b:]`: the object
        #: passed as `q` is no longer held once the statement ends)
        self.call_rebinds: dict[int, frozenset[str]] = {}
        #: (line, device query) pairs that already hold a read site (``reads._first_device_query``)
        self.device_query_lines: set[tuple[int, str]] = set()
        self.guard_tries: set[int] = set()
        #: `if` statements whose test checks a type (see :attr:`_FuncScope.type_tests`)
        self.type_test_ifs: set[int] = set()
        #: ``if`` statements that opened an entry of :attr:`_FuncScope.memo_attrs`
        self.memo_ifs: set[int] = set()
        #: ``if`` statements that opened an entry of :attr:`_FuncScope.memo_globals`
        self.memo_global_ifs: set[int] = set()
        #: ``self.cached_len.item()``-like reads of a memo cache's key in its hit test
        #: (:meth:`_memo_hit`): no site (the port deletes the test with the cache)
        self.memo_key_reads: set[int] = set()
        #: `nn.Flatten()` layers of an `nn.Sequential` that flatten a conv's NCHW output
        self.flatten_after_conv: set[int] = set()
        self.summaries: list[FunctionSummary] = []
        #: ids of the called expressions of calls met (``f`` in ``f(x)``), and the names of
        #: methods referenced through ``self`` without being called (:meth:`leave_Module`)
        self.called_funcs: set[int] = set()
        #: ids of calls whose returned tuple is unpacked into several targets (``a, b = f()``):
        #: no target holds the whole of what ``f`` builds
        self.unpacked_calls: set[int] = set()
        self.escaped_methods: set[str] = set()
        #: depth of ``if`` bodies entered only when an optional kernel is installed (``if
        #: is_fast_path_available and ...:``, ``if xops is not None:``; :func:`_kernel_gate`),
        #: the open ones (id of the ``if``), and the ``else`` that ends each one's body
        self.kernel_gate = 0
        self.open_gates: set[int] = set()
        self.gate_elses: dict[int, int] = {}
        #: callee (``Class.method`` for ``self.method``, else as resolved) -> whether every call
        #: of it in this file sits under a kernel gate
        self.gated_callees: dict[str, bool] = {}
        #: functions that call an optional kernel and that this file calls only under a kernel
        #: gate: the fast route a port drops (:meth:`kernel_routes`, ``routes.drop_kernel_routes``)
        self.kernel_users: set[str] = set()
        #: functions that launch a Triton-style kernel (``_fwd_kernel[grid](x, x.stride(0), ...)``,
        #: :func:`_is_kernel_launch`): the kernel's host wrapper, replaced with it by a
        #: ``pallas_call`` (``routes.drop_launcher_findings``)
        self.kernel_launchers: set[str] = set()
        #: module-level functions of this file decorated as Triton kernels (``@triton.jit``,
        #: ``@triton.autotune(...)``): a subscripted call of one is a launch
        self.jit_kernels: set[str] = set()
        self.values = values = ValueKinds(self)
        #: value kind of an expression in the current scope (:class:`.values.ValueKinds`)
        self.kind = values.kind
        self._call_kind = values._call_kind
        self._annotation_kind = values._annotation_kind

    @property
    def context(self) -> str:
        return self.func_stack[-1].context if self.func_stack else "host"

    @property
    def symbol(self) -> str:
        if self.func_stack:
            return self.func_stack[-1].qualname
        if self.class_stack:
            return self.class_stack[-1].qualname
        return self.module

    def _no_grad(self) -> bool:
        """Inside ``torch.no_grad()`` outside init code (where it only guards weight init)."""
        return bool(self.func_stack and self.func_stack[-1].no_grad and not self.func_stack[-1].init_like)

    def _site(self, kind: str, node: cst.CSTNode, name: str = "", method: str = "", receiver: str = "",
              data: dict[str, Any] | None = None, requires: tuple[str, ...] = ()) -> None:
        """Hand a :class:`Site` (its fields, in the current scope) to the rules (``emit``)."""
        if self.export_only or self.error_only:
            return  # a branch only TorchScript/ONNX export runs, or error reporting: no port runs it
        if self.memo_key_reads and id(node) in self.memo_key_reads:
            return  # a memo cache's own key read in its hit test: deleted with the cache (ML717)
        if self.param_defaults and self.func_stack:
            # a parameter's default (or annotation) is evaluated once, where the `def` runs: in
            # the enclosing function, or at import for a module-level function or a method
            outer = self.func_stack[-2] if len(self.func_stack) > 1 else None
            context = outer.context if outer is not None else "host"
            symbol = outer.qualname if outer is not None else (
                self.class_stack[-1].qualname if self.class_stack else self.module)
        elif self.func_stack:  # (self.context and self.symbol, read once)
            scope = self.func_stack[-1]
            context, symbol = scope.context, scope.qualname
            if scope.script and context == "host":
                return  # a library's test or benchmark function: script code run by hand, not ported
            if scope.guarded:
                scope.guard_used = True  # (the summary then lists the parameters: interproc._passed)
                cond = "&".join(sorted(set(scope.guarded)))
                requires = tuple(f"{r}&{cond}" for r in requires) if requires else (cond,)
        else:
            context = "init" if self.field_default else "host"
            symbol = self.class_stack[-1].qualname if self.class_stack else self.module
        # (positional: no keyword dict to pack here and unpack in the dataclass's __init__)
        self.emit(Site(kind, node, context, symbol, name, method, receiver, {} if data is None else data, requires))

    def qual(self, node: cst.BaseExpression) -> str:
        """Dotted name of a Name/Attribute chain after this file's bindings (:mod:`.bindings`);
        "" if not a name. Locals of the enclosing function shadow module-level names."""
        if self.func_stack:
            scope = self.func_stack[-1]
            return self.bindings.resolve(node, scope.env, scope.binds.callables)
        return self.bindings.resolve(node)

    def _closure_def(self, node: cst.BaseExpression) -> str:
        """The qualname of a function defined in the body of the current function or of an
        enclosing one that ``node`` names (``save_to_cache`` defined in
        ``install_kv_cache_hooks`` and registered from its nested ``install_hooks``); "" if
        ``node`` is no such name."""
        if type(node) is not cst.Name:
            return ""
        for scope in reversed(self.func_stack):
            hit = scope.local_defs.get(node.value)
            if hit is not None:
                return hit
        return ""

    def _targets(self, value: cst.BaseExpression) -> tuple[str, ...]:
        """The callables ``value`` evaluates to in the current scope (:meth:`Bindings.targets`);
        an entry of a container of callables init code stored on self (``self.pool_fns[mode]``)
        is each of them."""
        if self.func_stack:
            scope = self.func_stack[-1]
            if type(value) is cst.Subscript and _is_self_attr(value.value) and scope.cls is not None:
                return scope.cls.attr_binds.get(f"{value.value.attr.value}[]", ())  # type: ignore[attr-defined]
            if type(value) is cst.Subscript and not registry_keys(value):
                keys = self._pick_keys(value)
                if keys:  # `ACT2CLS[act]` with `act="gelu"` by default: that entry
                    keyed = self.bindings.keyed_table(value.value, keys, scope.env, scope.binds.callables)
                    if keyed:
                        return keyed
            return self.bindings.targets(value, scope.env, scope.binds.callables,
                                         scope.cls.methods if scope.cls is not None else ())
        return self.bindings.targets(value, (), None, self.class_stack[-1].methods if self.class_stack else ())

    def _fresh(self) -> None:
        """Start collecting the symbolic inputs (and assumed parameters) the next kind evaluations consult."""
        self.values.used = set()
        self.values.assumed_read = set()
        self.values.ragged_used = set()

    def _assumed_entry(self, scope: _FuncScope, vkind: str, value: cst.BaseExpression) -> tuple[frozenset[str], str] | None:
        """For a name bound to ``value`` (of kind ``vkind``, just evaluated): the assumed
        parameters its value kind rests on and its kind when they are static, when it holds a
        value only through them (``rg = not requires_grad``); None otherwise. Only in straight-line
        code: a binding in a branch or a loop is joined with others this does not follow."""
        reads = self.values.assumed_read
        if not reads or vkind not in K.VALUE_KINDS or scope.branches or scope.loop_heads:
            return None
        params = frozenset(reads)
        static = self.values.assuming_static(params, lambda: self.kind(value))
        return None if static in K.VALUE_KINDS else (params, static)

    def _derived(self, fn: Callable[[], str]) -> dict[str, dict[str, str]] | None:
        """The kinds ``fn()`` takes under each hypothesis on the symbolic inputs consulted
        since :meth:`_fresh`, or None when there were none."""
        used = self.values.used
        if not used or not self.func_stack:
            return None
        return self.values.derive(fn, set(used))

    def _kind_aside(self, expr: cst.BaseExpression) -> str:
        """``expr``'s kind, asked in the middle of a statement without adding to the symbolic
        inputs and assumed parameters collected for the statement's own sites."""
        saved = self.values.set_aside()
        try:
            return self.kind(expr)
        finally:
            self.values.restore(saved)

    def _fresh_variants(self, fn: Callable[[], Any]) -> tuple[Any, list[tuple[str, Any]]]:
        """``fn()`` evaluated afresh and its :meth:`_variants`, leaving the symbolic inputs
        collected so far as they were (a side question asked in the middle of a statement)."""
        saved, saved_ragged = self.values.used, self.values.ragged_used
        self._fresh()
        got = fn()
        out = self._variants(fn)
        self.values.used, self.values.ragged_used = saved, saved_ragged
        return got, out

    def _variants(self, fn: Callable[[], Any]) -> list[tuple[str, Any]]:
        """``(requirement, fn() under it)`` for each hypothesis on the symbolic inputs consulted
        since :meth:`_fresh`: one input taking each kind (requirement ``"<key>=<kind>"``) and,
        when several were read, the same with the others tensors (``"<key>=<kind>&<other>=T"``:
        a helper whose tensor arguments all come from ``forward``)."""
        used = self.values.used
        ragged = self.values.ragged_used
        if not (used or ragged) or not self.func_stack:
            return []
        keys = sorted(used)
        # a callee's return of data-dependent size (`len(idx)` of `idx = pick(m)`): one hypothesis
        out = [(f"{key}={K.RETURNED_RAGGED}", self.values.under(key, K.RETURNED_RAGGED, fn)) for key in sorted(ragged)]
        for key in keys:
            for h in HYPOTHESES:
                out.append((f"{key}={h}", self.values.under(key, h, fn)))
                if len(keys) > 1:
                    joint = {k: K.T for k in keys}
                    joint[key] = h
                    req = "&".join(f"{k}={joint[k]}" for k in keys)
                    out.append((req, self.values.under(joint, h, fn)))
        return out

    def _flow(self, expr: cst.BaseExpression) -> Flow:
        """The flow of ``expr``'s kind (:class:`~migrate_lens.models.Flow`)."""
        self._fresh()
        base = self.kind(expr)
        deps = []
        for req, k in self._variants(lambda: self.kind(expr)):
            if k in K.VALUE_KINDS and k != base and "&" not in req:
                key, h = req.rsplit("=", 1)
                deps.append((key, h, k))
        return Flow(base if base in K.VALUE_KINDS else "", tuple(deps))

    def _line(self, node: cst.CSTNode) -> int:
        return self._lines(node)[0]

    def _lines(self, node: cst.CSTNode) -> tuple[int, int]:
        """First and last line of ``node``: through the fast walk's line-only lookup (no code
        generation for one-line statements) when it provides the positions."""
        positions = self.metadata.get(PositionProvider)
        lines = getattr(positions, "lines", None)
        if lines is not None:
            return lines(node)  # type: ignore[no-any-return]
        rng = self.get_metadata(PositionProvider, node)
        return rng.start.line, rng.end.line
