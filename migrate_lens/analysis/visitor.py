"""The single traversal: one libcst visit per file that binds value kinds
(tensor / bool mask / host value / static; inferred by :mod:`.values`), tracks the context of each piece of code
(traced / init / function / host) and emits :class:`~.sites.Site` observations plus the
structural facts the project graph needs (imports, calls, classes, functions, composition).

What a name is bound to (imports, the file's own classes and functions) is kept in
:mod:`.bindings`; this visitor feeds it the binding statements it meets and asks it to resolve.
The scopes the walk keeps are in :mod:`.scopes`, the lazily computed call-site facts in
:mod:`.call_extras`, and the helpers several parts of the visitor share in :mod:`.gates`,
:mod:`.joins`, :mod:`.cache_queries`, :mod:`.cst_queries` and :mod:`.vocabulary`; the
engine's scans of a file's text in :mod:`.source_scans`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace
from collections.abc import Collection, Container, Iterable, Iterator, Mapping, Sequence
from typing import Any, Callable

import libcst as cst
from libcst.metadata import PositionProvider

from migrate_lens.analysis import kinds as K
from migrate_lens.analysis.bindings import BUILTINS, PARTIAL_NAMES, STRING_NODES, Bindings, is_class_like, merge
from migrate_lens.analysis.bindings import dotted as _dotted
from migrate_lens.analysis.bindings import names_in_target as _names_in_target
from migrate_lens.analysis.bindings import is_dict_call as _is_dict_call
from migrate_lens.analysis.bindings import registry_keys
from migrate_lens.analysis.bindings import NOT_PROJECT as _NOT_PROJECT
from migrate_lens.analysis.bindings import is_project_callee as _is_project_callee
from migrate_lens.analysis.sites import NOT_LITERAL, LazyData, Site
from migrate_lens.analysis.summaries import SummaryBuilder, is_model_use
from migrate_lens.analysis.values import HYPOTHESES, IDENTITY, ITER_SAME, ValueKinds, literal
from migrate_lens.analysis.walk import child_nodes
from migrate_lens.analysis.builders import BUILDERS, LIBRARY_REGISTRIES, built_layers, registry_build
from migrate_lens.analysis.builders import UNKNOWN as BUILDER_UNKNOWN
from migrate_lens.models import (
    AUTOGRAD_FUNCTION_BASES, NONLITERAL, PLAIN_BASE_PREFIXES, PLAIN_BASES, CallFact, CallFlow, ClassFact, Flow,
    FunctionFact, FunctionSummary, ImportFact, InjectionFact, StarBindings, SubmoduleFact, WrapperFact,
)
from migrate_lens.analysis.cache_queries import _cache_item_length, _cache_operand, _is_cache_length
from migrate_lens.analysis.call_extras import _CALL_EXTRAS, _CallExtras, _CallParts
from migrate_lens.analysis.cst_queries import (
    _alternatives, _arg_texts, _bound_texts, _host_read_of, _is_inplace_method, _is_input_device, _is_self,
    _is_self_attr, _key_attr, _key_comparisons, _names_read, _reads, _reads_self_attrs, _returned_def, _rng_module,
    _root_name, _size_query_of, _small_statements, _storage_of,
)
from migrate_lens.analysis.gates import (
    _always_raises, _asserts_kernel, _drops_tested, _eager_only_test, _exit_kind, _export_only_test,
    _is_availability_test, _is_main_guard, _is_type_test, _kernel_gate, _reports_only, _tests_padding_idx,
)
from migrate_lens.analysis.joins import _forwards, _join_branches, _join_derived, _join_items, _with_flows
from migrate_lens.analysis.scopes import _ClassInfo, _fixed_attr, _FuncScope, _may_be_method, _none_args
from migrate_lens.analysis.source_scans import parameter_inits, sets_padding_idx
from migrate_lens.analysis.vocabulary import (
    _CONFIG_PARAMS, _CONTAINER_CTORS, _REGISTRATIONS, _STATE_NAME, _TENSOR_ONLY_METHODS, _TRACED_METHODS,
)

__all__ = ["FileVisitor", "parameter_inits", "sets_padding_idx"]


_INIT_NAMES = re.compile(
    r"^(__init__|__post_init__|reset_parameters|_reset_parameters|_init_weights|init_weights|"
    r"_initialize_weights|initialize_weights|_init_\w*|init_\w*|reset_\w*_parameters|"
    r"_build\w*|build_\w*|_make_\w*|make_\w*|__setstate__|_load_from_state_dict|_save_to_state_dict|"
    r"load_state_dict|extra_repr|_post_init|post_init|tie_weights|_tie_weights|"
    # weight loading and surgery: runs once, eagerly, before any traced call
    r"_?load_\w*weights\w*|_?load_pretrained\w*|_?convert_\w*|_?fuse\w*|reparameteri[sz]e\w*|"
    r"switch_to_deploy|set_input_size|_?reset_\w*|prune_\w*|_?resize_\w*|set_grad_checkpointing|"
    r"init_\w*|_?initialize\w*|_?init_\w*|fix_init\w*|_?rescale\w*)$"
)


#: Init code by its very name: what else matches :data:`_INIT_NAMES` is init code only when the
#: project graph finds it reachable from init code alone (a ``_init_*`` helper called from
#: ``forward`` is traced), so its sites carry the undecided ``function`` context.
_PROPER_INIT = frozenset({"__init__", "__post_init__", "__setstate__", "_load_from_state_dict",
                          "_save_to_state_dict", "load_state_dict", "extra_repr"})


#: Calls a :class:`.summaries.SummaryBuilder` is told about (training steps, model calls).
_ROLE_METHODS = frozenset({"backward", "manual_backward", "step", "zero_grad", "forward", "__call__", "model"})


#: Calls that declare a compiled extension module for a build, its dotted name the first
#: argument or ``name=`` (setup.py: ``CUDAExtension("pkg._C", sources=[...])``)
_EXTENSION_BUILDERS = frozenset({
    "torch.utils.cpp_extension.CUDAExtension", "torch.utils.cpp_extension.CppExtension",
    "setuptools.Extension", "setuptools.extension.Extension", "distutils.core.Extension",
    "distutils.extension.Extension", "pybind11.setup_helpers.Pybind11Extension",
})


#: Loss methods of a module (mmdet's ``head.loss(...)``/``loss_by_feat``, a detector's
#: ``compute_loss``): the training step calls them beside ``forward``, so they are traced code
#: too (issue 14: training steps are traced), whoever calls them.
_LOSS_METHODS = frozenset({"loss", "losses", "compute_loss", "get_loss", "get_losses", "loss_by_feat"})


#: A module's other traced entries, named as the field names them: a variant of ``forward``
#: (``forward_kld``, ``forward_and_log_det``, ``forward_train``: normflows' training objective,
#: mmdet's train/test paths) and a normalizing flow's inverse direction (``inverse``,
#: ``reverse``, ``inverse_and_log_det``: the sampling path a port jits as it jits ``forward``,
#: reached from a model through a list of flows no call site types).
_ENTRY_METHOD = re.compile(r"^(forward_\w+|_?inverse(_\w+)?|reverse)$")


#: methods of matplotlib's ``Axes``/``Figure`` that no tensor library spells alike: a function
#: calling one draws on a figure it was handed (``ax2 = f.axes[0].twinx()`` in an override
#: that decorates ``super().plot_prediction(...)``'s figure), the ``plotting`` summary role
_AXES_METHODS = frozenset({
    "twinx", "twiny", "set_xlabel", "set_ylabel", "set_title", "suptitle", "tight_layout", "savefig",
    "set_xticks", "set_yticks", "set_xticklabels", "set_yticklabels", "fill_between", "add_subplot",
})


_MODULE_BASES = ("torch.nn.",)


#: Builtins whose arguments are data, not injected classes (``dict(gelu=nn.GELU)`` is a table).
BINDING_BUILTINS = frozenset({"dict", "list", "tuple", "set", "frozenset", "getattr", "setattr", "hasattr",
                              "print", "repr", "str", "id", "callable", "vars", "sorted", "map", "filter", "zip"})


#: Methods that mutate a container or cache object and that no tensor has (``x.add`` is a tensor op).
_STATE_METHODS = frozenset({"update", "append", "extend", "insert", "setdefault", "pop", "popitem", "clear", "remove"})


#: Setter parameters that carry a per-step value (a step count, a schedule's temperature).
_SCHEDULE_PARAM = re.compile(r"step|update|epoch|iter|progress|temp|tau|anneal|decay|schedule|warmup", re.IGNORECASE)


#: Handlers that make a ``try`` an optional-import guard.
#: Exceptions whose handler makes the imports of its ``try`` optional: the import errors, and the
#: broad handlers a library's availability probe also uses (PyG's ``try: import torch_sparse ...
#: except Exception: WITH_TORCH_SPARSE = False``; a bare ``except:`` counts too).
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


#: parameter names that hold a module object (a helper's ``module``/``layer`` argument)
_MODULE_PARAMS = frozenset({"module", "layer"})


#: Parameter names of mappings, not tensors (a load hook's ``state_dict``, ``**kwargs``, configs,
#: the ``destination`` mapping ``nn.Module._save_to_state_dict`` fills).
_MAPPING_PARAM = re.compile(r"(dict|kwargs|config|cfg|memo|info|meta|logs?|destination)$")


#: nn.Module methods whose override changes what the module does by a Python-side mode.
_MODE_METHODS = frozenset({"train", "eval"})


#: Loaders returning a checkpoint mapping (parameter name -> tensor).
_CHECKPOINT_LOADERS = frozenset({"torch.load", "safetensors.torch.load_file", "safetensors.torch.load"})


#: Tensor methods that reorder axes: a weight passed through one is being converted.
_AXIS_METHODS = frozenset({"permute", "transpose", "t", "swapaxes", "movedim", "flip", "rot90"})


#: Annotations of a parameter that is the caller's mutable container (``cache: dict``).
_MUTABLE_CONTAINER_TYPES = frozenset({
    "dict", "list", "typing.Dict", "typing.List", "typing.MutableMapping", "typing.MutableSequence",
    "collections.abc.MutableMapping", "collections.abc.MutableSequence", "typing.DefaultDict",
    "collections.defaultdict", "collections.OrderedDict", "typing.OrderedDict",
})


_MUTATING_CONTAINER_METHODS = frozenset({
    "append", "extend", "insert", "update", "setdefault", "add", "__setitem__", "pop", "clear",
})


#: methods by which module-level code adds entries to a dispatch table (their arguments, a
#: ``setdefault``'s or ``insert``'s after the first)
_TABLE_FILLS = frozenset({"update", "append", "extend", "setdefault", "insert"})


class FileVisitor(cst.CSTVisitor):
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
        #: function -> the functions of this file its loops call (outside traced code), and
        #: the functions that run a model object's methods outside loops (:meth:`_decode_loops`)
        self.loop_callees: dict[str, set[str]] = {}
        self.model_users: set[str] = set()
        #: id(concatenation call) -> the state it grows: the call's result is assigned back to
        #: one of its own inputs that outlives the call (:meth:`_growth`)
        self.grow_calls: dict[int, str] = {}
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
        #: compiled extension modules declared by build calls (:data:`_EXTENSION_BUILDERS`)
        self.extension_modules: list[str] = []
        #: depth of branches only PyTorch's exporters run (``if torch.jit.is_scripting():``)
        self.export_only = 0
        #: depth of ``except`` handlers that only report the error and re-raise (:func:`_always_raises`)
        self.error_only = 0
        self.error_handlers: set[int] = set()
        #: id(call) -> what its statement keeps of the result (``CallFlow.use``)
        self.call_use: dict[int, str] = {}
        self.guard_tries: set[int] = set()
        #: `if` statements whose test checks a type (see :attr:`_FuncScope.type_tests`)
        self.type_test_ifs: set[int] = set()
        #: ``if`` statements that opened an entry of :attr:`_FuncScope.memo_attrs`
        self.memo_ifs: set[int] = set()
        #: ``self.cached_len.item()``-like reads of a memo cache's key in its hit test
        #: (:meth:`_memo_hit`): no site (the port deletes the test with the cache)
        self.memo_key_reads: set[int] = set()
        #: `nn.Flatten()` layers of an `nn.Sequential` that flatten a conv's NCHW output
        self.flatten_after_conv: set[int] = set()
        self.summaries: list[FunctionSummary] = []
        #: ids of the called expressions of calls met (``f`` in ``f(x)``), and the names of
        #: methods referenced through ``self`` without being called (:meth:`leave_Module`)
        self.called_funcs: set[int] = set()
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

    def _loop_callee(self, scope: _FuncScope, func: cst.BaseExpression, name: str) -> None:
        """Note the function of this file a call inside one of ``scope``'s loops runs, as far
        as the file tells: ``self.m(...)`` (the class's method), ``self.<attr>.m(...)`` on an
        attribute built from a class of this file (``self.inference = PyTorchInference(...)``),
        a function of the file or a closure (:attr:`loop_callees`, for :meth:`_decode_loops`)."""
        target = ""
        if name.startswith("self.") and scope.cls is not None:
            parts = name.split(".")
            if len(parts) == 2:
                target = f"{scope.cls.qualname}.{parts[1]}"
            elif len(parts) == 3 and parts[1] in scope.cls.attr_ctor:
                target = f"{scope.cls.attr_ctor[parts[1]]}.{parts[2]}"
        elif name.startswith(f"{self.module}."):
            target = name
        elif not name:
            target = self._closure_def(func)
        if target:
            self.loop_callees.setdefault(scope.qualname, set()).add(target)

    def _decode_loops(self) -> None:
        """Give the ``decode-loop`` role to the functions whose loops call a function of this
        file that runs a model object's methods outside a loop (``_main_loop`` calling
        ``self.inference.logits``, which calls ``self.model.decoder(...)``) or that is a
        decoding loop itself (``transcribe``'s loop calling its closure
        ``decode_with_fallback``, whose retry loop calls ``model.decode(...)``), unless they
        have a role already. The file's facts only, no project pass."""
        if not self.loop_callees:
            return
        by_name = {s.qualname: i for i, s in enumerate(self.summaries)}
        drivers = set(self.model_users)
        drivers.update(s.qualname for s in self.summaries if s.role in ("generation", "decode-loop"))
        found: set[str] = set()
        grew = bool(drivers)
        while grew:  # a loop calling a decoding loop drives the model too (`cli` -> `transcribe`)
            new = {q for q, callees in self.loop_callees.items() if q not in found and (callees - {q}) & drivers}
            found |= new
            drivers |= new
            grew = bool(new)
        for q in sorted(found):
            i = by_name.get(q)
            if i is None:
                self.summaries.append(FunctionSummary(q, "decode-loop"))
            elif not self.summaries[i].role:
                self.summaries[i] = replace(self.summaries[i], role="decode-loop")

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

    def visit_Import(self, node: cst.Import) -> None:
        line = self._line(node)
        for full, local in self.bindings.bind_import(node):
            self.imports.append(ImportFact(module=full, name="", alias=local, line=line,
                                           guarded=self.bindings.guard_depth > 0))
            self._site("import", node, name=full, data={"optional": self.bindings.guard_depth > 0,
                                                        "own": self.bindings.is_own_package(full)})

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        line = self._line(node)
        absolute, level, names = self.bindings.bind_import_from(node)
        for member, local, full in names:
            self.imports.append(ImportFact(module=absolute, name=member, alias=local, line=line, level=level,
                                           guarded=self.bindings.guard_depth > 0))
            self._site("import", node, name=full or absolute,
                       data={"level": level, "optional": self.bindings.guard_depth > 0,
                             "own": level == 0 and self.bindings.is_own_package(full or absolute)})

    def visit_Module(self, node: cst.Module) -> None:
        self.bindings.declare_module(node)
        self.top_defs = {st.name.value: st for st in node.body if type(st) is cst.FunctionDef}

    def leave_Module(self, original_node: cst.Module) -> None:
        for registry, key, value in self._registrations:
            if type(value) is cst.ClassDef:
                entries: tuple[str, ...] = (f"{self.module}.{value.name.value}",)
            elif type(value) is cst.FunctionDef:
                entries = self.bindings.returns.get(value.name.value, ())
            elif type(value) is cst.Lambda:
                # (`lambda: partial(nn.GELU, approximate="tanh")`: the partial's keywords would be lost)
                entries = () if self.bindings.is_partial(value.body) else self.bindings.targets(value.body)
            elif type(value) is cst.Name and value.value in self.bindings.returns:
                entries = self.bindings.returns[value.value]  # a factory function registered by name
            elif self.bindings.is_partial(value):
                entries = ()  # `partial(nn.GELU, approximate="tanh")`: its keywords would be lost
            else:
                entries = self.bindings.targets(value)
            self.bindings.bind_registration(registry, key, entries)
        for cls, method, param, index, line in self._helper_slots:
            fwd = self._init_forwards.get((cls.qualname, method, str(index))) or \
                self._init_forwards.get((cls.qualname, method, param))
            if fwd is not None:
                self._slot_facts(cls.qualname, "[]", fwd[0], fwd[1], line, fwd[2])
        for cls, reader, attr, line in self._base_reads:
            if attr not in cls.attr_kinds and attr not in cls.attr_ctor and attr not in cls.methods:
                self._passed_edge(reader, f"self.{attr}", line)
        self._host_state_reads()
        self._decode_loops()
        if self.escaped_methods:
            # a method referenced without a call (`self.f = self.f_uncorrected`) may run with
            # any arguments: nothing proves its parameters static (`FunctionSummary.escapes`)
            self.summaries = [replace(s, escapes=True) if (s.params or s.assumed) and s.qualname.rsplit(".", 1)[-1] in
                              self.escaped_methods else s for s in self.summaries]

    def registrars(self) -> list[tuple[str, str]]:
        """(dotted function, dotted table) of this file's top-level registrars
        (:attr:`~migrate_lens.models.FileFacts.registrars`): a one-parameter decorator writing
        ``TABLE[...] = <param>``, or a function returning one it defines."""
        out = []
        for name, fn in self.top_defs.items():
            table = _registrar_table(fn) or _factory_table(fn)
            if table and table in self.bindings.module_names:
                out.append((f"{self.module}.{name}", f"{self.module}.{table}"))
        return out

    def kernel_routes(self) -> set[str]:
        """Functions that call an optional kernel (:attr:`kernel_users`) and that this file
        calls, every time, inside a kernel gate (:attr:`gated_callees`): mamba's
        ``cuda_kernels_forward``, which ``forward`` enters under ``if is_fast_path_available and
        "cuda" in ...`` and otherwise leaves for ``torch_forward``/``slow_forward``."""
        return {q for q in self.kernel_users if self.gated_callees.get(q) is True}

    def _host_state_reads(self) -> None:
        """A plain Python attribute that traced code reads (``tau=self.temperature``) and that a
        method outside init and forward sets to a computed value, on the module itself or on a
        submodule (``self.quantizer.temperature = t`` in ``set_gumbel_temperature``): jit bakes
        in the value seen when tracing. Joined once the file is walked (the setter may come
        after the reader); setters called from the class's traced methods are traced writes
        (another rule), not host state."""
        if not self.host_writes and not self.class_writes:
            return
        seen: set[tuple[str, str]] = set()
        for owner, attr, setter in self.class_writes:
            hit = self.traced_reads.get(owner, {}).get(attr)
            if hit is None or (owner, attr) in seen:
                continue
            seen.add((owner, attr))
            line, symbol, context, text = hit
            self.late_sites.append((Site(kind="host-state-read", node=None, context=context, symbol=symbol,  # type: ignore[arg-type]
                                         name=f"{text}` (set by `{setter}", data={"setter": setter}), line))
        traced_callees = {c.callee[5:] for c in self.calls if c.callee.startswith("self.")
                          and c.caller.rsplit(".", 1)[-1] in _TRACED_METHODS}
        held: dict[tuple[str, str], set[str]] = defaultdict(set)
        for sm in self.submodules:
            held[(sm.owner, sm.attr)].add(sm.target)
        for owner, sub, attr, writer in self.host_writes:
            if writer in traced_callees:
                continue
            for cls in ({owner} if not sub else held.get((owner, sub), set())):
                hit = self.traced_reads.get(cls, {}).get(attr)
                if hit is None or (cls, attr) in seen:
                    continue
                seen.add((cls, attr))
                line, symbol, context, text = hit
                setter = f"{owner.rsplit('.', 1)[-1]}.{writer}"
                self.late_sites.append((Site(kind="host-state-read", node=None, context=context, symbol=symbol,  # type: ignore[arg-type]
                                             name=f"{text}` (set by `{setter}", data={"setter": setter}), line))

    def _note_registration(self, node: cst.FunctionDef | cst.ClassDef) -> None:
        """``@Norm.factory_function("batch")`` / ``@MODELS.register_module()`` on a module-level
        definition: registered into that module-level registry object (key from the first
        argument or ``name=``, else the definition's name)."""
        for d in node.decorators:
            dec = d.decorator
            reg = self._registrar(dec)
            if reg is not None:
                # `@register_scheduler("ddpm") class DDPMScheduler`, `@register class Heads`
                self._registrations.append((reg[0], reg[1] or node.name.value, node))
                continue
            if type(dec) is not cst.Call or type(dec.func) is not cst.Attribute or \
                    type(dec.func.value) is not cst.Name or dec.func.attr.value not in _REGISTRATIONS or not (
                        dec.func.value.value in self.bindings.module_instances or
                        self.bindings.registry_source(dec.func.value.value)):
                self._foreign_registrar(dec, node)
                continue
            key: Any = NOT_LITERAL
            for a in dec.args:
                if a.keyword is None or a.keyword.value == "name":
                    key = literal(a.value)
                    break
            self._registrations.append((dec.func.value.value, key if isinstance(key, str) else node.name.value, node))

    def _foreign_registrar(self, dec: cst.BaseExpression, node: cst.FunctionDef | cst.ClassDef) -> None:
        """``@register("RandomSampler") class RandomSampler`` with ``register`` imported from the
        project: a registrar there may store the class (``@<function>`` entries of
        ``dispatch_tables``, joined with the other file's ``registrars`` by the graph)."""
        called = dec.func if type(dec) is cst.Call else dec
        fname = self.qual(called) if type(called) in (cst.Name, cst.Attribute) else ""
        if type(node) is not cst.ClassDef or not fname or not self.bindings.is_project(fname) or \
                (type(called) is cst.Name and called.value in self.top_defs):
            return
        key = literal(dec.args[0].value) if type(dec) is cst.Call and dec.args and not dec.args[0].star else ""
        entry = (f"{self.module}.{node.name.value}",)
        tables = self.bindings.foreign_tables
        for name in (f"@{fname}", f"@{fname}[{key.lower()}]" if isinstance(key, str) and key else ""):
            if name:
                tables[name] = merge(tables.get(name, ()), entry)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if not self.class_stack and not self.func_stack and node.decorators:
            self._note_registration(node)
        prefix = self.class_stack[-1].qualname if self.class_stack else self.module
        if self.func_stack:
            prefix = self.func_stack[-1].qualname
        qualname = f"{prefix}.{node.name.value}"
        # (a base subscripted with type arguments is that base: `class Net(NetBase[Any])`,
        # `Dataset[Tensor]`; `Generic[T]` names typing.Generic, no module base)
        bases = tuple(b for b in (self.qual(_unsubscripted(a.value)) for a in node.bases if a.keyword is None) if b)
        is_fn = any(b in AUTOGRAD_FUNCTION_BASES for b in bases)
        defines_forward = any(
            type(s) is cst.FunctionDef and s.name.value == "forward" for s in node.body.body
        ) if type(node.body) is cst.IndentedBlock else False
        is_module = not is_fn and (
            any(_is_torch_module_base(b) for b in bases)
            or any(self.local_classes.get(b.rsplit(".", 1)[-1], None) is not None
                   and self.local_classes[b.rsplit(".", 1)[-1]].is_module for b in bases)
            or (defines_forward and any(not b.startswith(("torch.", "typing.", "abc.")) and b != "object" for b in bases))
        )
        info = _ClassInfo(qualname=qualname, bases=bases, is_module=is_module, is_autograd_function=is_fn,
                          composes=is_module or (not is_fn and any(_may_be_module_base(b) for b in bases)))
        own_lambdas: dict[str, str] = {}
        if type(node.body) is cst.IndentedBlock:
            for st in node.body.body:
                if type(st) is cst.FunctionDef:
                    info.methods.add(st.name.value)
                    info.method_nodes[st.name.value] = st
                    if any(_dotted(d.decorator) == "staticmethod" for d in st.decorators):
                        info.static_methods.add(st.name.value)
                    if st.returns is not None:
                        info.returns[st.name.value] = st.returns
                elif type(st) is cst.SimpleStatementLine:
                    for small in st.body:
                        if type(small) in (cst.Assign, cst.AnnAssign):
                            self._class_field_default(qualname, small)
                        if type(small) is cst.Assign and type(small.value) in STRING_NODES:
                            info.str_consts.update(t.target.value for t in small.targets if type(t.target) is cst.Name)
                        elif type(small) is cst.Assign and type(small.value) is cst.Lambda and \
                                len(small.targets) == 1 and type(small.targets[0].target) is cst.Name and \
                                _first_param(small.value.params) == "self":
                            # `act = lambda self, x: x.nonzero()`: a method, `self.act(x)` in
                            # forward runs it (a function of its own, :meth:`visit_Lambda`)
                            attr = small.targets[0].target.value
                            own_lambdas[attr] = self.self_lambdas[id(small.value)] = f"{qualname}.{attr}"
                        elif type(small) is cst.AnnAssign and type(small.target) is cst.Name and \
                                type(small.annotation.annotation) in (cst.Name, cst.Attribute):
                            # `distribution: Normal`: the attribute holds an instance of that class
                            ann = self.qual(small.annotation.annotation)
                            if ann and ann.rsplit(".", 1)[-1][:1].isupper():
                                info.attr_ctor[small.target.value] = ann
        info.memo_fillers = _memo_fillers(info.method_nodes)
        if "__init__" in info.method_nodes:
            self._init_string_defaults(qualname, info.method_nodes["__init__"])
        # Inherit attribute kinds from a local base class.
        own_methods = set(info.methods)
        for b in bases:
            base_info = self.local_classes.get(b.rsplit(".", 1)[-1])
            if base_info is not None and base_info.qualname == b:
                info.attr_kinds.update(base_info.attr_kinds)
                info.attr_binds.update(base_info.attr_binds)
                info.held.update(base_info.held)
                info.methods.update(base_info.methods)
                # a base's staticmethod is one on the subclass too, unless the subclass overrides it
                info.static_methods.update(m for m in base_info.static_methods if m not in own_methods)
                info.str_consts.update(base_info.str_consts)
                for attr, ctor in base_info.attr_ctor.items():
                    info.attr_ctor.setdefault(attr, ctor)
        for attr, fn in own_lambdas.items():  # (overrides what a base binds the name to)
            info.attr_binds[attr] = (fn,)
        if not self.class_stack and not self.func_stack:
            self.local_classes[node.name.value] = info
        elif self.func_stack:
            self.function_classes.add(node.name.value)
            self.bindings.declare_class(node.name.value)
        if not is_module and (node.decorators or any(b in _NAMEDTUPLE_BASES for b in bases)):
            info.dataclass_fields = self._dataclass_start(node, bases)
        self.class_stack.append(info)
        self.scope_kinds.append("class")
        for a in node.bases:
            b = self.qual(_unsubscripted(a.value)) if a.keyword is None else ""
            if b:
                self._site("class", a.value, name=b, data={"class": qualname})

    def _may_run_hooks(self, cls: _ClassInfo, depth: int = 0) -> bool:
        """Whether a framework may call ``cls``'s methods as per-batch step hooks
        (``training_step``, ``on_after_backward``: :data:`.summaries.STEP_HOOK_NAMES`): an
        ``nn.Module`` (a ``LightningModule`` is one), a class with a Lightning or ``Callback``
        base, or one whose base this file cannot see. Not a plain class whose bases are all
        known to be plain (``object``, ``ABC``, ``Generic``, plain classes of this file): tianshou's
        ``BaseTrainer.training_step`` collects env steps and logs on the host."""
        if cls.is_module or depth > 8:
            return True
        for b in cls.bases:
            if b in ("object", "builtins.object") or b.startswith(("abc.", "typing.", "typing_extensions.")):
                continue
            if "lightning" in b.lower() or b.rsplit(".", 1)[-1].endswith("Callback"):
                return True
            local = self.local_classes.get(b.rsplit(".", 1)[-1])
            if local is None or local.qualname != b or self._may_run_hooks(local, depth + 1):
                return True
        return False

    def _dataclass_start(self, node: cst.ClassDef, bases: tuple[str, ...]) -> int | None:
        """The first field's ``__init__`` position for a class whose ``__init__`` is generated
        from its annotated fields: ``@dataclass`` / ``@dataclasses.dataclass(...)``, attrs'
        ``@define`` / ``@frozen`` / ``@mutable`` / ``@attr.s(auto_attribs=True)``, or a
        ``typing.NamedTuple`` subclass. 0, or -1 for ``kw_only=True`` (every field a keyword
        parameter); None for other classes and for ``init=False`` (no generated ``__init__``,
        so no field is a constructor parameter)."""
        if any(b in _NAMEDTUPLE_BASES for b in bases):
            return 0
        for d in node.decorators:
            dec = d.decorator
            call = dec if type(dec) is cst.Call else None
            name = self.qual(call.func if call is not None else dec)
            if name not in _FIELD_CLASS_DECORATORS:
                continue
            flags = {a.keyword.value: a.value for a in (call.args if call is not None else ()) if a.keyword is not None}
            if _is_false(flags.get("init")) or (name in _ATTRS_CLASSIC and not _is_true(flags.get("auto_attribs"))):
                return None  # no generated __init__, or attr.s fields declared with attr.ib() only
            return -1 if _is_true(flags.get("kw_only")) else 0
        return None

    def _dataclass_slot(self, node: cst.AnnAssign, info: _ClassInfo) -> None:
        """A field of a ``@dataclass`` config class (torchvision's ``_MBConvConfig``: ``block:
        Callable[..., nn.Module]``, or ``block: Callable = MBConv``): its generated
        ``__init__`` stores parameter *i* in field *i*, so each annotated field is an injection
        slot, with its default class as what the class binds itself. A module's init code that
        calls ``cnf.block(...)`` (a ``field`` fact) then builds the classes passed for it.
        Positions follow the generated ``__init__`` (``dataclasses`` docs): ``ClassVar`` (also
        subscripted or quoted) is no field; ``InitVar`` is a parameter but stored nowhere;
        ``field(init=False)`` is no parameter; fields after ``_: KW_ONLY`` (or of a
        ``kw_only=True`` class, or ``field(kw_only=True)``) are keyword-only (index -1: matched
        by name only). Fields inherited from dataclass bases, which come first, are not counted."""
        if type(node.target) is not cst.Name:
            return
        marker = self._dataclass_marker(node.annotation.annotation)
        if marker == "ClassVar":
            return
        index = info.dataclass_fields if info.dataclass_fields is not None else 0
        if marker == "KW_ONLY":
            info.dataclass_fields = -1
            return
        value: cst.BaseExpression | None = node.value
        kw_only = index < 0
        if type(value) is cst.Call and self.qual(value.func) in _FIELD_CALLS:
            flags = {a.keyword.value: a.value for a in value.args if a.keyword is not None}
            if _is_false(flags.get("init")):
                return
            kw_only = kw_only or _is_true(flags.get("kw_only"))
            value = flags.get("default")
        position = -1 if kw_only else index
        if index >= 0 and not kw_only:
            info.dataclass_fields = index + 1
        if marker == "InitVar":
            return
        name = node.target.value
        default = self.qual(value) if type(value) in (cst.Name, cst.Attribute) else ""
        # (a `partial` of a class as the default, `norm_layer: Callable = partial(RMSNorm, eps=1e-6)`,
        # binds that class, as for a constructor parameter's default)
        defaults = (default,) if default else (
            self.bindings.targets(value) if type(value) is cst.Call and self.bindings.is_partial(value) else ())
        self._slot_facts(info.qualname, name, name, position, self._line(node), defaults)
        if value is not None:
            # `act_layer: Type[nn.Module] = nn.GELU`, `norm: Callable = partial(nn.LayerNorm, eps=1e-6)`:
            # a torch class named as a field default is used where init code builds the config's
            # field (`cfg.act_layer()`), as a constructor parameter's default is: an init-code use
            self.field_default = True
            self._class_refs(value)
            self.field_default = False

    def _dataclass_marker(self, annotation: cst.BaseExpression) -> str:
        """"ClassVar", "InitVar" or "KW_ONLY" when a dataclass field's annotation is one of them
        (bare, subscripted ``ClassVar[int]``, or as a string ``"ClassVar[int]"``), else ""."""
        if type(annotation) is cst.Subscript:
            annotation = annotation.value
        if type(annotation) is cst.SimpleString:
            text = annotation.evaluated_value if isinstance(annotation.evaluated_value, str) else ""
            head = text.split("[", 1)[0].strip().rsplit(".", 1)[-1]
            return head if head in ("ClassVar", "InitVar", "KW_ONLY") else ""
        last = self.qual(annotation).rsplit(".", 1)[-1]
        return last if last in ("ClassVar", "InitVar", "KW_ONLY") else ""

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        info = self.class_stack.pop()
        self.scope_kinds.pop()
        forwarding = "__init__" in info.methods and _forwards_init(info.method_nodes.get("__init__"))
        if "__init__" not in info.methods or forwarding:
            for b in info.bases:
                base = self.ctor_bases.get(b) or (b if b.startswith("torch.") and is_class_like(b) else "")
                if base:  # `class LayerNorm(nn.LayerNorm)` overriding forward only
                    self.ctor_bases[info.qualname] = base
                    break
        start, end = self._lines(original_node)
        self.classes.append(ClassFact(
            qualname=info.qualname, line=start, end_line=end, bases=info.bases,
            is_module=info.is_module, lines_of_code=end - start + 1, forwarding_init=forwarding,
        ))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        name = node.name.value
        innermost = self.scope_kinds[-1] if self.scope_kinds else "module"
        if innermost == "module" and node.decorators:
            self._note_registration(node)
        decorators = {self.qual(d.decorator) for d in node.decorators}
        if innermost == "module" and node.decorators and any(
                self.qual(d.decorator.func if type(d.decorator) is cst.Call else d.decorator) in _TRITON_DECORATORS
                for d in node.decorators):
            self.jit_kernels.add(name)  # `@triton.jit def _fwd(...)`: `_fwd[(M,)](...)` launches it
        if innermost == "class":
            cls: _ClassInfo | None = self.class_stack[-1]
            assert cls is not None
            qualname = f"{cls.qualname}.{name}"
            accessor_kind = next((dn.rsplit(".", 1)[1] for dn in (_dotted(d.decorator) for d in node.decorators)
                                  if dn in (f"{name}.setter", f"{name}.deleter")), "")
            if accessor_kind:
                # `@end2end.setter def end2end(self, value)`: runs on assignment, not on a read of
                # the property (a call edge to `<cls>.end2end` is the getter's): `<cls>.end2end__setter`
                qualname = f"{qualname}__{accessor_kind}"
            is_method = True
            if cls.is_autograd_function:
                context = "function"
            elif _INIT_NAMES.match(name):
                context = "init"
            elif cls.is_module and (name in _TRACED_METHODS or name in _LOSS_METHODS or _ENTRY_METHOD.match(name)) \
                    and "staticmethod" not in decorators:
                context = "traced"
            else:
                context = "function"
        elif innermost == "func":
            parent = self.func_stack[-1]
            qualname = f"{parent.qualname}.{name}"
            parent.local_defs[name] = qualname
            # a closure of init code is init code unless traced code calls it (`def post(t): ...;
            # self.post = post` in __init__, run by forward): the project graph decides
            context = parent.context if parent.context not in ("host", "init") else "function"
            guess = parent.guess if parent.guess != "host" else "function"
            init_like = parent.init_like
            cls = parent.cls
            is_method = False
        else:
            qualname = f"{self.module}.{name}"
            # module-level weight init / loading helpers (timm's `_init_weights(module)`,
            # `_load_weights(model, path)`) run once, eagerly, like methods of the same name
            context = "init" if (
                (_INIT_NAMES.match(name) and not name.startswith(("_build", "build_", "_make", "make_")))
                or (name.endswith("_") and not name.endswith("__"))  # in-place initializers: trunc_normal_
            ) else "host" if _SCRIPT_FUNCTION.match(name) and all(
                # (not a registered builder: timm's `@register_model def test_vit(...)` builds a model)
                _dotted(d.decorator.func if type(d.decorator) is cst.Call else d.decorator).startswith(("pytest.", "unittest."))
                for d in node.decorators) else "function"
            cls = None
            is_method = False
        if innermost == "class" and cls is not None and cls.is_module and name in _MODE_METHODS:
            # `def train(self, mode=True)` overridden: behaviour switched by a Python-side mode
            self._site("method-def", node, name=name, data={"class": cls.qualname, "switches": _switches_modes(node)})
        if innermost != "func":
            guess = context
            init_like = context == "init"
            if init_like and (name not in _PROPER_INIT or (
                    name == "__init__" and cls is not None and not cls.composes and not cls.is_autograd_function)):
                # (the constructor of a plain object runs where the object is built: a loss's
                # `Statistics(loss.item(), n)` builds one in traced code; the graph decides)
                context = "function"
        scope = _FuncScope(qualname=qualname, name=name, context=context, cls=cls, is_method=is_method,
                           guess=guess, init_like=init_like, node=node,
                           toggle=bool(decorators & _CONTEXT_MANAGER_DECORATORS) or (
                               is_method and name in ("__enter__", "__exit__")))
        scope.summary = SummaryBuilder(qualname, name, guess, in_module=cls is None or cls.is_module,
                                       module_method=is_method and cls is not None and cls.is_module,
                                       hooks=cls is None or self._may_run_hooks(cls))
        scope.memo_filler = cls is not None and name in cls.memo_fillers and name != "__init__"
        for d in node.decorators:
            dec = d.decorator.func if type(d.decorator) is cst.Call else d.decorator
            dname = self.qual(dec)
            if dname in ("torch.no_grad", "torch.inference_mode"):
                scope.no_grad += 1
                self.plain_no_grad.add(id(d.decorator))
            elif dname in _FUNCTOOLS_CACHES:
                scope.cached_by = (self._line(d), dname.rsplit(".", 1)[-1])
        static = any(_dotted(d.decorator) in ("staticmethod", "classmethod") for d in node.decorators)
        # `@end2end.setter def end2end(self, value)`: an attribute assignment passes `value`
        # (a flag as often as a tensor); what the assignments pass decides, not the module
        setter = any(_dotted(d.decorator).endswith(".setter") for d in node.decorators)
        self._bind_params(scope, node.params, is_method and not static, accessor=setter, fn=node)
        self.func_stack.append(scope)
        self.scope_kinds.append("func")
        for p in (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params):
            if p.default is not None:
                # `act_layer=nn.GELU`: a use in this function's context, with the arguments every
                # call of the parameter in the body agrees on (`act_layer(approximate="tanh")`)
                self._class_refs(p.default, calls_of=(node, p.name.value))
        for d in node.decorators:
            dec = d.decorator.func if type(d.decorator) is cst.Call else d.decorator
            dname = self.qual(dec)
            if dname and type(d.decorator) is not cst.Call and _is_project_callee(dname) and (
                    self.bindings.is_project(dname) or dname.startswith(f"{self.module}.")):
                # `@log_output_stats def forward(self, x)`: the closure the decorator returns
                # runs in place of the function, where it runs (an edge to `<decorator>()`,
                # which the graph resolves when the decorator returns a closure)
                # (as a function handed on: an edge when it resolves to a closure, never counted
                # as an unresolved reference: most decorators are library ones the tree lacks)
                wrapped = f"{dname}()"
                if (qualname, wrapped) not in self._call_seen:
                    self._call_seen.add((qualname, wrapped))
                    self.calls.append(CallFact(caller=qualname, callee=wrapped, line=self._line(d), passed=True))
            if dname:
                self._site("decorator", d, name=dname)
                if type(d.decorator) is not cst.Call:
                    # `@torch.jit.script` calls the decorator on the function: a call site,
                    # so call rules match bare and called decorators alike.
                    self._site("call", d.decorator, name=dname, data={
                        "args": (), "kwargs": {}, "star": False, "no_grad": False, "result": K.U,
                        "decorator": True,
                    })

    def visit_Lambda(self, node: cst.Lambda) -> None:
        """A lambda init code stores on self (:attr:`self_lambdas`) is a function of its own,
        as ``def act(x): return ...; self.act = act`` is: its parameters are symbolic inputs
        that the calls ``self.act(x)`` give kinds to, and its context is decided by who calls
        it (the project graph). Other lambdas stay part of the enclosing code."""
        if self.map_lambdas and id(node) in self.map_lambdas and self.func_stack:
            # `map(lambda b: crop(feat, b), boxes)`: each parameter walks its iterable, as a
            # comprehension's target does (`[crop(feat, b) for b in boxes]`)
            env = self.func_stack[-1].env
            saved: dict[str, str | None] = {}
            params = [*node.params.posonly_params, *node.params.params]
            for p, it in zip(params, self.map_lambdas[id(node)]):
                for n, k in self.values.iteration_kinds(p.name, it).items():
                    saved.setdefault(n, env.get(n))
                    env[n] = k
            self._lambda_saved.append((id(node), saved))
        qualname = self.self_lambdas.get(id(node)) if self.self_lambdas else None
        if qualname is None:
            return
        name = qualname.rsplit(".", 1)[-1]
        in_class = self.scope_kinds[-1] == "class"
        cls = self.class_stack[-1] if in_class else self.func_stack[-1].cls
        scope = _FuncScope(qualname=qualname, name=name, context="function", cls=cls, is_method=False,
                           guess="function", init_like=False if in_class else self.func_stack[-1].init_like,
                           node=None)
        scope.summary = SummaryBuilder(qualname, name, "function", in_module=cls is None or cls.is_module,
                                       module_method=False)
        # a class attribute's lambda (`act = lambda self, x: ...`) is a method: `self` is the
        # instance, the other parameters take what `self.act(x)` passes (symbolic inputs, as
        # an init lambda's: no nn.Module tensor assumption, hence `accessor`)
        self._bind_params(scope, node.params, in_class, accessor=in_class)
        self.func_stack.append(scope)
        self.scope_kinds.append("func")

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        if self._lambda_saved and self._lambda_saved[-1][0] == id(original_node) and self.func_stack:
            env = self.func_stack[-1].env
            for n, old in self._lambda_saved.pop()[1].items():
                if old is None:
                    env.pop(n, None)
                else:
                    env[n] = old
        if not self.self_lambdas or not self.func_stack or \
                self.self_lambdas.get(id(original_node)) != self.func_stack[-1].qualname:
            return  # (a module-level lambda after a registered one: no scope of its own)
        scope = self.func_stack[-1]
        scope.returns_value = True
        scope.ret_flows.append(self._flow(original_node.body))
        self.leave_FunctionDef(original_node)  # type: ignore[arg-type]

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        scope = self.func_stack.pop()
        self.scope_kinds.pop()
        self.export_only -= scope.export_tail
        if scope.cached_by is not None and scope.tensor_ops and scope.returns_value:
            # `@lru_cache def freq_weight(n): return torch.linspace(...)`: traced, the cache keeps
            # the first trace's tracer (decided by the project: the function's context)
            line, how = scope.cached_by
            self.late_sites.append((Site(kind="memoized-function", node=None, context=scope.context,  # type: ignore[arg-type]
                                         symbol=scope.qualname, name=how, data={"whole_line": True}), line))
        if scope.arg_writes and not scope.returns_value:
            # a helper that returns nothing: its in-place writes are its only output
            for (line, param, how), req in zip(scope.arg_writes, scope.arg_write_requires):
                self.late_sites.append((Site(kind="argument-inplace", node=None, context=scope.context,  # type: ignore[arg-type]
                                             symbol=scope.qualname, name=param, data={"how": how, "whole_line": True},
                                             requires=(req,) if req else ()), line))
        elif scope.arg_writes and not self.export_only:
            # it returns a value too: the update is lost where a caller keeps the argument but
            # not the part of the result that returns it (``u:<param>``, decided by the project
            # from the summaries)
            for (_, param, how), node, req in zip(scope.arg_writes, scope.arg_write_nodes, scope.arg_write_requires):
                self.emit(Site(kind="argument-inplace-returning", node=node, context=scope.context,
                               symbol=scope.qualname, name=param, data={"how": how},
                               requires=(f"u:{param}=L&{req}" if req else f"u:{param}=L",)))
        if scope.kernel_use and scope.guess != "init" and not scope.init_like:
            self.kernel_users.add(scope.qualname)
        start, end = self._lines(original_node)
        if scope.held_names:
            self._drop_unread_held(scope, end)
        self.functions.append(FunctionFact(
            qualname=scope.qualname, line=start, end_line=end, context=scope.guess,
            is_method=scope.is_method, builds=tuple(scope.builds),
        ))
        if scope.summary is not None and scope.summary.model_uses and scope.context != "traced":
            self.model_users.add(scope.qualname)
        summary = scope.summary.finish(scope.returns_value) if scope.summary is not None else None
        if scope.summary is not None and summary is not None and summary.role == "train-loop":
            self.step_loops[scope.qualname] = scope.summary.step_loop_ends()
        summary = _with_flows(summary, scope)
        if summary is not None:
            self.summaries.append(summary)

    def _drop_unread_held(self, scope: _FuncScope, end: int) -> None:
        """Take out of each call flow's ``held`` the local variables holding a new object
        (``_FuncScope.fresh``) that the function never reads after the call (through line ``end``, the function's last): an
        in-place update of an object nobody looks at again is not lost by a port (NLLB-MoE's
        ``router_logits += gumbel(...)`` in ``route_tokens(router_logits, ...)``, with the local
        ``router_logits`` not read after). Calls inside a loop keep theirs (the next iteration
        may read it). A word match on the text after the call: a name in a comment or string
        counts as read (the flow is kept)."""
        positions = self.metadata.get(PositionProvider)
        text_after = getattr(positions, "text_after", None)
        if text_after is None:
            return
        for index, last, by_pos, by_kw in scope.held_names:
            after = text_after(last, end)
            flow = scope.call_flows[index]
            held = tuple(i for i in flow.held if i not in by_pos or _reads(after, by_pos[i]))
            held_kw = tuple(k for k in flow.held_kw if k not in by_kw or _reads(after, by_kw[k]))
            if held != flow.held or held_kw != flow.held_kw:
                scope.call_flows[index] = replace(flow, held=held, held_kw=held_kw)

    def _bind_params(self, scope: _FuncScope, params: cst.Parameters, is_method: bool, accessor: bool = False,
                     fn: cst.FunctionDef | None = None) -> None:
        evidence: tuple[frozenset[str], frozenset[str]] | None = None
        all_params = [*params.posonly_params, *params.params, *params.kwonly_params]
        traced = scope.guess == "traced" or (
            scope.guess == "function" and scope.cls is not None and scope.cls.is_module and is_method
            and not accessor
        )
        n_positional = len(params.posonly_params) + len(params.params)
        offset = 1 if is_method and all_params and all_params[0].name.value in ("self", "cls", "ctx") else 0
        # a custom autograd function's `forward(ctx, input, ...)` takes a tensor first, its
        # `backward(ctx, *grad_outputs)` only tensors (what `apply` hands them)
        autograd = scope.cls is not None and scope.cls.is_autograd_function and scope.name in ("forward", "backward")
        for i, p in enumerate(all_params):
            pname = p.name.value
            if is_method and i == 0 and pname in ("self", "cls", "ctx"):
                # (the instance of a `torch.Tensor` subclass is a tensor: BigGAN's `Distribution`
                # draws into itself with `self.normal_(mean, var)`)
                scope.env[pname] = K.T if pname == "self" and scope.cls is not None and any(
                    b in _TENSOR_CLASSES for b in scope.cls.bases) else K.S
                continue
            self.bindings.bind_param(scope.binds, pname, i - offset if i < n_positional else -1, p.default, p.annotation)
            if p in params.posonly_params or p in params.params:
                scope.param_order.append(pname)
            else:
                scope.kwonly_order.append(pname)
            scope.param_meta[pname] = (p.annotation, p.default)
            if pname in _CONFIG_PARAMS and len(scope.binds.typed.get(pname, ())) == 1:
                # `def __init__(self, config: BertConfig)`: the file's configuration class, what
                # an unannotated `config` of its other classes holds (:meth:`_config_key`)
                self.config_classes.add(scope.binds.typed[pname][0])
            if p.annotation is not None and self._is_tensor_mapping(p.annotation.annotation):
                scope.tensor_maps.add(pname)
            ann = self._annotation_kind(p.annotation)
            if ann != K.U and p.default is not None and type(literal(p.default)) is bool:
                kind = K.S  # `output_attentions: Optional[torch.Tensor] = False`: the default says flag
            elif ann != K.U:
                kind = ann
            elif p.annotation is not None:
                kind = K.U  # annotated with a non-tensor type (a cache object, a config class)
            elif autograd and p.default is None and i > 0 and (scope.name == "backward" or i == 1):
                kind = K.T  # (i == 0 is ctx, a staticmethod's first parameter)
            elif p.default is not None and literal(p.default) not in (NOT_LITERAL, None):
                kind = K.S
            elif K.STATIC_PARAM_NAME.search(pname) and not (pname in _MODULE_PARAMS and scope.context != "init"):
                # (`module`/`layer` hold a module object: static in weight-init helpers, but a
                # helper traced code calls with `self`, `update_fn(self, x)`, writes its buffers)
                kind = K.S
                if not scope.init_like and fn is not None and pname in (
                        evidence if evidence is not None else (evidence := self._param_evidence(fn)))[2]:
                    # `length.cpu().numpy()`: a method only a tensor has says the name's guess is wrong
                    kind = K.T if traced else K.U
                if not scope.init_like and kind != K.T:
                    # a helper's parameter named like a size or a flag is a Python value unless
                    # a caller passes a tensor (`length` is the tensor of lengths NeMo's
                    # SpecAugment gets, `is_index_global_attn` Longformer's mask): static as
                    # its own kind, the callers' kinds as hypotheses on a symbolic input
                    scope.derived[pname] = {f"p:{pname}": IDENTITY}
                    scope.symbolic = True
            elif traced and fn is not None and pname in (
                    evidence if evidence is not None else (evidence := self._param_evidence(fn)))[0]:
                # `def upgrade_state_dict_named(self, state_dict, name)` / `def load_hook(self,
                # state_dict, prefix, *args)` that calls `state_dict.keys()` / `.pop(k)`: a
                # mapping (or str, list) for the whole body, not a tensor the module method takes
                kind = K.U
            elif traced and fn is not None and pname in evidence[1]:  # type: ignore[index]
                # `math.floor(nfe / 3)`, `range(n_steps)`: a Python number (k-diffusion's
                # DPMSolver.dpm_solver_fast), not a tensor the module method takes
                kind = K.S
            elif traced:
                kind = K.T
                if p.default is not None:
                    scope.optional.add(pname)  # `causal=None`: a flag as often as a tensor
                if scope.guess == "function":  # no entry: its callers may all pass flags
                    scope.assumed[pname] = (frozenset((pname,)), K.S)
                    if p.default is not None and self.kind(p.default) == K.S:
                        scope.static_defaults.add(pname)
            else:
                kind = K.U  # what callers pass decides: a symbolic input
                scope.derived[pname] = {f"p:{pname}": IDENTITY}
                scope.symbolic = True
                if p.default is not None and self.kind(p.default) == K.S:
                    scope.static_defaults.add(pname)
            scope.env[pname] = kind
            scope.params.add(pname)
        for star in (params.star_arg, params.star_kwarg):
            if type(star) is cst.Param:
                scope.env[star.name.value] = K.S
        if type(params.star_kwarg) is cst.Param:
            scope.star_kwargs = params.star_kwarg.name.value  # its entries' kinds: ValueKinds._kwarg_kind

    def visit_Global(self, node: cst.Global) -> None:
        if self.func_stack:
            for n in node.names:
                self.func_stack[-1].globals_declared.add(n.name.value)

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

    def _flatten_layers_after_conv(self, node: cst.Call) -> None:
        """``nn.Sequential(nn.Conv2d(...), nn.ReLU(), ..., nn.Flatten(), nn.Linear(...))``:
        the ``nn.Flatten`` layers (default ``start_dim=1``) that flatten a conv's NCHW output,
        with no global pooling in between (``nn.AdaptiveAvgPool2d(1)`` leaves 1x1 maps, whose
        order does not change in NHWC), go to :attr:`flatten_after_conv` (the call site's
        ``after_conv``). The layer form of ML906's ``torch.flatten(x, 1)``: Atari-style CNNs
        (stable-baselines3's ``NatureCNN``), LeNet-style classifiers."""
        after_conv = False
        for a in node.args:
            if a.keyword is not None or a.star or type(a.value) is not cst.Call:
                continue
            layer = a.value
            ctor = self.qual(layer.func)
            if ctor.startswith(("torch.nn.Conv", "torch.nn.LazyConv")):
                after_conv = True
            elif ctor.startswith("torch.nn.Adaptive") and layer.args and \
                    literal(layer.args[0].value) in (1, (1,), (1, 1), (1, 1, 1)):
                after_conv = False  # pooled to 1x1: flattens alike in NHWC (a 7x7 grid does not)
            elif ctor == "torch.nn.Flatten" and after_conv:
                first = layer.args[0] if layer.args else None
                start = literal(first.value) if first is not None and (
                    first.keyword is None or first.keyword.value == "start_dim") else 1
                if start == 1:
                    self.flatten_after_conv.add(id(layer))
                after_conv = False

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

    def visit_Expr(self, node: cst.Expr) -> None:
        if type(node.value) is cst.Call and self.func_stack:
            self.call_use[id(node.value)] = "-"  # a call statement: the result is dropped
        elif type(node.value) is cst.Call and not self.class_stack:
            func = node.value.func
            if type(func) is cst.Attribute and type(func.value) is cst.Name and func.attr.value in _REGISTRATIONS \
                    and func.value.value in self.bindings.module_instances and node.value.args:
                # `Act.add_factory_class("gelu", nn.GELU)` into a module-level registry object
                args = node.value.args
                key = literal(args[0].value)
                value = args[1].value if len(args) > 1 else args[0].value
                self._registrations.append((func.value.value, key if isinstance(key, str) else "", value))
            elif (reg := self._registrar(func)) is not None and len(node.value.args) == 1:
                # `register_scheduler("ddpm")(DDPMScheduler)`, `register(MyHead)`: a project
                # decorator that stores what it is given in a module-level table
                self._registrations.append((reg[0], reg[1], node.value.args[0].value))
            elif type(func) is cst.Attribute and type(func.value) is cst.Name and func.attr.value in _TABLE_FILLS:
                # module-level code filling a dispatch table: `ACTS.update({...})`, `OPS.append(fn)`
                args = node.value.args
                self.bindings.bind_table_write(func.value.value, [a.value for a in (
                    args[1:] if func.attr.value in ("setdefault", "insert") else args)])

    def visit_Assign(self, node: cst.Assign) -> None:
        if type(node.value) is cst.Call and self.func_stack:
            self.assigned_calls.add(id(node.value))  # (`self.attn = partial(f, scale=s)`: held, called later)
        if self.func_stack:
            for tg in node.targets:  # (`T = n = self.steps` rebinds both)
                self._note_shape_names(self.func_stack[-1], tg.target, node.value)
        if type(node.value) is cst.Call and self.func_stack and len(node.targets) == 1 and \
                type(node.targets[0].target) in (cst.Tuple, cst.List):
            # `out, _ = f(...)`: the items bound to a name (`_` drops one)
            els = node.targets[0].target.elements  # type: ignore[attr-defined]
            if not any(type(e) is cst.StarredElement for e in els):
                self.call_use[id(node.value)] = ",".join(
                    str(i) for i, e in enumerate(els) if not (type(e.value) is cst.Name and e.value.value == "_"))
        self._fresh()
        vkind = self.kind(node.value)
        derived = self._derived(lambda: self.kind(node.value))
        if not self.func_stack and type(node.value) is cst.Call:
            self.bindings.bind_module_assign(node, self.qual(node.value.func))
        for t in node.targets:
            self._assign_target(t.target, vkind, node, node.value, derived)

    def leave_Assign(self, original_node: cst.Assign) -> None:
        self._flush_bindings()

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if self.scope_kinds and self.scope_kinds[-1] == "class" and self.class_stack[-1].dataclass_fields is not None:
            self._dataclass_slot(node, self.class_stack[-1])
        if self.func_stack and node.value is not None:
            self._note_shape_names(self.func_stack[-1], node.target, node.value)  # `T: int = x.shape[1]`
        if node.value is not None:
            value = node.value
            self._fresh()
            vkind = self.kind(value)
            self._assign_target(node.target, vkind, node, value, self._derived(lambda: self.kind(value)))

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        self._flush_bindings()

    def _flush_bindings(self) -> None:
        """Names bound by an assignment take their new kind after its right-hand side has
        been visited (``x = x.item()`` reads the tensor ``x``)."""
        if self.func_stack:
            scope = self.func_stack[-1]
            for name, kind, derived, assumed in scope.pending:
                scope.env[name] = kind
                if derived:
                    scope.derived[name] = derived
                else:
                    scope.derived.pop(name, None)
                if name in scope.params or name in scope.given_rebinds:
                    # rebound under a test that it was given (`if is_causal and mask is not None:
                    # mask = ...`): still None unless a caller gives it
                    if f"g:{name}=P" in scope.guarded:
                        scope.given_rebinds.add(name)
                    else:
                        scope.given_rebinds.discard(name)
                scope.params.discard(name)  # rebound: no longer the argument as passed
                if assumed is not None:
                    scope.assumed[name] = assumed
                elif scope.assumed:
                    scope.assumed.pop(name, None)
            scope.pending.clear()
            for name, scalar, pooled in scope.pending_marks:
                (scope.scalars.add if scalar else scope.scalars.discard)(name)
                (scope.pooled.add if pooled else scope.pooled.discard)(name)
            scope.pending_marks.clear()
            for name, ctor, value in scope.pending_ctor:
                scope.prior_value[(name, id(value))] = scope.last_value.get(name)
                scope.last_value[name] = value
                if ctor:
                    scope.ctor_of[name] = ctor
                else:
                    scope.ctor_of.pop(name, None)
            scope.pending_ctor.clear()
            scope.binds.flush()

    def visit_Del(self, node: cst.Del) -> None:
        """``del self.outputs[k]`` (also through a name bound to the dict): an entry of state the
        object keeps between calls removed, in traced code a change the trace loses."""
        if not self.func_stack:
            return
        targets = [e.value for e in node.target.elements] if type(node.target) is cst.Tuple else [node.target]
        for t in targets:
            if type(t) is cst.Subscript:
                self._state_write(node, t.value, "container", K.U)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        target = node.target
        vkind = self.kind(node.value)
        if type(target) is cst.Subscript:
            self.targets.add(id(target))
            base = self.kind(target.value)
            self._subscript_write(node, target, base, vkind, aug=True, value=node.value)
        elif type(target) is cst.Attribute:
            if _is_self_attr(target):
                self._self_write(node, target.attr.value, K.join(self.kind(target), vkind), aug=True)
            else:
                self._data_write(target)
                self._site("attribute-write", node, name=target.attr.value,
                           receiver=self.kind(target.value), data={"aug": True})
        elif type(target) is cst.Name:
            tkind = self.kind(target)
            if self.func_stack and target.value in self.func_stack[-1].globals_declared:
                self._site("global-write", node, name=target.value, data={"how": "global"})
            self._site("aug-assign", node, receiver=tkind, data={
                "value": vkind, "no_grad": self._no_grad(), "name": target.value,
                "alias": self._live_alias(node, target.value),
            })
            op = f" {_AUG_OPS.get(type(node.operator).__name__, '+=')} "
            if tkind in K.TENSORISH:
                self._view_write(node, target)
                self._arg_write(node, target, op)
            elif tkind == K.U and self.func_stack and target.value in self.func_stack[-1].params and \
                    f"p:{target.value}" in self.func_stack[-1].derived.get(target.value, ()):
                # `def accumulate(total, x): total += x.mean(0)`: in place on the caller's tensor
                # where a caller passes one (a symbolic input), an int rebound where it passes a number
                self._arg_write(node, target, op, requires=f"p:{target.value}=T")
            if self.func_stack:
                # `total += part_loss(h(x), y)`: the join under each hypothesis on the helper's
                # return too (a number that becomes a tensor once a tensor is added)
                scope = self.func_stack[-1]
                value = node.value
                self._fresh()
                joined = K.join(self.kind(target), self.kind(value))
                derived = self._derived(lambda: K.join(self.kind(target), self.kind(value)))
                scope.env[target.value] = joined
                if scope.assumed:
                    scope.assumed.pop(target.value, None)
                if derived:
                    scope.derived[target.value] = derived
                else:
                    scope.derived.pop(target.value, None)

    def _assign_target(self, target: cst.BaseExpression, vkind: str, stmt: cst.CSTNode,
                       value: cst.BaseExpression, derived: dict[str, dict[str, str]] | None = None) -> None:
        if type(target) is cst.Name:
            if self.func_stack:
                scope = self.func_stack[-1]
                if target.value in scope.globals_declared:
                    self._site("global-write", stmt, name=target.value,
                               data={"how": "global", "memo": _returns_when_set(scope.node, target.value)})
                    # `global _impl` then `_impl = load(...)`: the module-level name holds it
                    self.bindings.bind_module_value(target.value, value)
                scope.pending.append((target.value, vkind, derived, self._assumed_entry(scope, vkind, value)))
                cls = scope.cls
                # a method, or an attribute init code bound to a callable (`self.causal_fn =
                # partial(causal_attention)`): `fn = plain if c else self.causal_fn` holds it
                self.bindings.bind_local(scope.binds, target.value, value, scope.env,
                                         () if cls is None else
                                         (cls.methods | cls.attr_binds.keys()) if cls.attr_binds else cls.methods)
                self._class_refs(value)
                src = _view_source(value) if vkind in K.TENSORISH else ""
                if src and src != target.value:
                    scope.views[target.value] = src
                else:
                    scope.views.pop(target.value, None)
                if type(value) in _NEW_OBJECT_EXPRS and not (src or _view_source(value)):
                    # a call's result, an arithmetic result (`trace = -torch.ones(n, m)`: a new
                    # tensor), a display or a comprehension: an object nobody else holds
                    scope.fresh.add(target.value)
                else:
                    scope.fresh.discard(target.value)
                rng = _rng_module(value, self.qual)
                if rng and not _literal_seeded(value):
                    # `rng = np.random.default_rng(seed)`; not one seeded with a literal in the
                    # function itself (`default_rng(0)`): the same draws every call, as under jit
                    scope.rng_locals[target.value] = rng
                elif scope.rng_locals:
                    scope.rng_locals.pop(target.value, None)
                if type(value) is cst.Attribute and type(value.value) in (cst.Call, cst.Name) and \
                        not _is_self_attr(value) and value.attr.value[:1].islower():
                    scope.method_aliases[target.value] = value
                elif scope.method_aliases:
                    scope.method_aliases.pop(target.value, None)
                stored = _self_storage(value, scope.cls)
                if stored is not None:
                    # `k_out = self.k_cache` (a tensor), `store = self.cond_outputs if c else
                    # self.outputs` (a dict on self: its entries written through the name are the
                    # object's state, SAM2's memory bank)
                    scope.self_aliases[target.value] = stored
                elif scope.self_aliases:
                    scope.self_aliases.pop(target.value, None)
                self._bind_alias(scope, target.value, value)
                if (type(value) is cst.Call and self._state_view(value, scope)) or _state_part(value, scope):
                    scope.state_views.add(target.value)
                elif scope.state_views and not (type(value) is cst.Name and value.value == "None"):
                    scope.state_views.discard(target.value)  # (`else: saved_state = None` keeps it)
                if _is_weight_map(value):
                    scope.weight_maps.add(target.value)
                else:
                    scope.weight_maps.discard(target.value)
                entries = self._dict_entry_kinds(value)
                if entries is not None:
                    scope.dict_kinds[target.value] = entries
                elif scope.dict_kinds:
                    scope.dict_kinds.pop(target.value, None)
                if self._holds_tensors(value):
                    scope.tensor_lists.add(target.value)
                else:
                    scope.tensor_lists.discard(target.value)
                if self._is_checkpoint(value):
                    scope.weight_dicts.add(target.value)
                elif scope.weight_dicts:
                    scope.weight_dicts.discard(target.value)
                if self._grows_cache(value, scope):
                    scope.cache_grown.add(target.value)
                elif scope.cache_grown and not scope.branches:
                    scope.cache_grown.discard(target.value)
                if self._mentions_cache_length(value):
                    scope.cache_lengths.add(target.value)
                elif scope.cache_lengths and not scope.branches:
                    # (inside an if/else the other branch may keep the cache length: a join)
                    scope.cache_lengths.discard(target.value)
                reduced = None if vkind == K.H or vkind == K.S else self._reduction_requires(value)
                if vkind == K.H and self._is_host_read(value):
                    scope.host_reads[target.value] = (stmt, ())
                elif reduced is not None:
                    scope.host_reads[target.value] = (stmt, reduced)
                elif scope.host_reads:
                    scope.host_reads.pop(target.value, None)
            elif self.class_stack:  # class body: `act = nn.GELU` is `self.act` in methods
                found = self._targets(value)
                cls_info = self.class_stack[-1]
                if found:
                    cls_info.attr_binds[target.value] = merge(cls_info.attr_binds.get(target.value, ()), found)
                self._note_rng(cls_info.rng_attrs, target.value, value)  # `rng = random.Random(0)`: `self.rng`
                aliased = _method_alias(value, self.qual)
                if aliased:
                    # `detect_language = detect_language_function`, `_idx = staticmethod(mod.fn)`:
                    # a method of the class whose body is that function (the graph's member lookup)
                    self.method_aliases.append((f"{cls_info.qualname}.{target.value}", aliased))
                if vkind in K.TENSORISH and type(value) is cst.Call:
                    # `anchors = torch.empty(0)`: a tensor default the methods read as `self.anchors`
                    cls_info.attr_kinds.setdefault(target.value, vkind)
            else:
                self.bindings.bind_module_value(target.value, value)
                self._note_rng(self.rng_globals, target.value, value)  # `_RNG = np.random.default_rng(1234)`
        elif type(target) in (cst.Tuple, cst.List):
            if type(value) in (cst.Tuple, cst.List) and len(value.elements) == len(target.elements) and not any(
                type(e) is cst.StarredElement for e in (*value.elements, *target.elements)
            ):
                for el, v in zip(target.elements, value.elements):  # a, b = x, y: pairwise
                    item = v.value
                    self._fresh()
                    ikind = self.kind(item)
                    self._assign_target(el.value, ikind, stmt, item, self._derived(lambda: self.kind(item)))
                return
            if type(value) in (cst.Tuple, cst.List):
                paired = _starred_pairs(target.elements, value.elements)
                if paired is not None:
                    # `b, n, *_, device = *seq.shape, seq.device`: the names before and after the
                    # starred ones pair with the items at the same distance from either end; the
                    # starred name holds whatever is in between
                    for el, v in paired:
                        if v is None:
                            self._assign_target(el.value, K.U, stmt, value)
                            continue
                        item = v.value
                        self._fresh()
                        ikind = self.kind(item)
                        self._assign_target(el.value, ikind, stmt, item, self._derived(lambda: self.kind(item)))
                    return
            if type(value) in (cst.GeneratorExp, cst.ListComp) and \
                    not any(type(e) is cst.StarredElement for e in target.elements):
                # `self.anchors, self.strides = (t.transpose(0, 1) for t in make_anchors(...))`: each
                # name is one element of the comprehension
                # (`x0, y0, x1, y1 = [int(v) for v in box]`: host values when a caller passes a
                # tensor `box`, so the element's kind under each hypothesis goes with each name)
                self._fresh()
                ekind = self.values.element_kind(value)  # type: ignore[arg-type]
                edrv = self._derived(lambda: self.values.element_kind(value))  # type: ignore[arg-type]
                for el in target.elements:
                    self._assign_target(el.value, ekind, stmt, value, edrv)
                return
            # `z, done = step(...)`: each name is the callee's i-th returned item
            key = f"r:{self.qual(value.func)}" if type(value) is cst.Call else ""
            if self._module_local_call(value):
                # `hidden, height, width = embedding_layer(hidden)` of a module drawn from a
                # container: its items are not all tensors (sizes ride along), unknown each
                vkind = K.U
            by_item = bool(derived and key in derived) and not any(type(e) is cst.StarredElement for e in target.elements)
            for i, el in enumerate(target.elements):
                inner = el.value
                if by_item and type(inner) in (cst.Tuple, cst.List) and \
                        not any(type(e) is cst.StarredElement for e in inner.elements):  # type: ignore[attr-defined]
                    # `(fg_mask, idx), loss, _ = self.assign(scores)`: the items of a returned
                    # tuple's item (the callee's `ret_keys` "i.j")
                    for j, sub in enumerate(inner.elements):  # type: ignore[attr-defined]
                        self._assign_target(sub.value, vkind if vkind != K.B else K.T, stmt, value,
                                            {f"{key}#{i}.{j}": IDENTITY})
                    continue
                d = {f"{key}#{i}": IDENTITY} if by_item else derived
                self._assign_target(inner, vkind if vkind != K.B else K.T, stmt, value, d)
        elif type(target) is cst.StarredElement:
            self._assign_target(target.value, K.S if vkind == K.S else K.U, stmt, value)
        elif type(target) is cst.Subscript:
            self.targets.add(id(target))
            if not self.func_stack and not self.class_stack and type(target.value) is cst.Name:
                keys = registry_keys(target)  # `ACTS["hard"] = F.hardsigmoid_`: under its key too
                self.bindings.bind_table_write(target.value.value, (value,), keys[0] if len(keys) == 1 else "")
            self._growth(target, value)
            base = self.kind(target.value)
            root = _root_name(target.value)
            if root and self._is_outer_container(root):
                self._site("global-write", stmt, name=root, data={"how": "subscript"})
            self._subscript_write(stmt, target, base, vkind, aug=False, value=value)
            if self.func_stack and type(target.value) is cst.Name and len(target.slice) == 1:
                entries = self.func_stack[-1].dict_kinds.get(target.value.value)
                key = literal(target.slice[0].slice.value) if type(target.slice[0].slice) is cst.Index else None
                if entries is not None and type(key) is str:
                    entries[key] = value  # `out["n_pos"] = (t > 0).sum()`
        elif type(target) is cst.Attribute:
            self.targets.add(id(target))
            self._growth(target, value)
            self._host_write(target, value)
            if _is_self_attr(target):
                if not self._same_attr(target, value):
                    self._self_write(stmt, target.attr.value, vkind, aug=False, value=value)
            else:
                scope = self.func_stack[-1] if self.func_stack else None
                if scope is not None and type(target.value) is cst.Name and target.value.value in scope.params and \
                        target.value.value not in ("self", "cls", "ctx") and not scope.init_like and \
                        vkind in K.TENSORISH and target.attr.value != "data":
                    # `state.h = h`, `ctx.last_attn = w`: a tensor stored on an object the caller
                    # passed in (unless every caller builds it in that call: o:<param>=X)
                    self._site("argument-write", stmt, name=f"{target.value.value}.{target.attr.value} = ...",
                               data={"how": "argument", "method": "__setattr__"},
                               requires=(f"o:{target.value.value}=X",))
                if scope is not None and type(target.value) is cst.Name and vkind in K.TENSORISH and \
                        target.value.value not in scope.env and (target.value.value in self.bindings.functions or
                                                                 target.value.value in self.bindings.globals):
                    # `buffered_arange.buf = torch.LongTensor()` (fairseq): a tensor cached on a
                    # module-level function or object, state shared by every call
                    self._site("global-write", stmt, name=f"{target.value.value}.{target.attr.value}",
                               data={"how": "attribute"})
                own_result = vkind == K.U and type(value) is cst.Call and _is_self_attr(value.func)
                if _is_self_attr(target.value) and target.attr.value != "data" and \
                        (vkind in K.TENSORISH or own_result) and self.func_stack and not self.func_stack[-1].init_like:
                    # `self.cache.weight = w` on an object the module holds (nflows' LinearCache):
                    # tensor state kept across calls as on self (a jitted step leaks the tracer)
                    # (a value the module's own method computes, `self.weight_and_logabsdet()`,
                    # cached until invalidated: a memo of the parameters a port recomputes, ML717)
                    self._site("self-write", stmt, name=f"{target.value.attr.value}.{target.attr.value}", data={
                        "how": "assign", "value": vkind, "aug": False, "memo": own_result, "is_buffer": False,
                        "attr_kind": K.U, "held_object": True, "holds_tensors": own_result,
                    })
                self._data_write(target)
                self._site("attribute-write", stmt, name=target.attr.value,
                           receiver=self.kind(target.value), data={
                               "aug": False, "value_literal": self._setting_literal(value),
                               "data_init": self._data_init(target, value, vkind),
                               "value_attr": value.attr.value if type(value) is cst.Attribute else "",
                               "value_param": type(value) is cst.Attribute and
                               self.qual(value) not in ("", "torch.nn.Parameter") and
                               not self.qual(value).startswith("torch."),
                               # `self.decoder.bias = self.bias`: the module's own bias linked
                               # into its child (one array, two state_dict keys), not two modules' tie
                               # (a bias only: forward reads the head's bias through the child; a
                               # weight the module also uses itself, `F.embedding(ids, self.weight)`,
                               # is a tie between two uses, ML713)
                               "child_link": target.attr.value == "bias" and _is_self_attr(target.value)
                               and _is_self_attr(value),
                           })
                if target.attr.value in _TRACED_METHODS and is_class_like(self.qual(target.value)):
                    # monkey-patched forward (`SomeModel.forward = my_forward`): runs traced
                    patched = self.qual(target)
                    for t in self._targets(value):
                        if not t.startswith("self."):
                            self.traced_entries.append(t)
                            self.calls.append(CallFact(caller=patched, callee=t, line=self._line(stmt)))

    def _setting_literal(self, value: cst.BaseExpression) -> Any:
        """The literal ``value`` holds in the common construction: itself when a literal, or
        the default of the config lookup a local was bound to (``requires_grad =
        cfg.pop('requires_grad', True)``, ``.get(k, False)``): what a config that leaves the key
        out gives. :data:`NOT_LITERAL` otherwise."""
        lit = literal(value)
        if lit is not NOT_LITERAL or type(value) is not cst.Name or not self.func_stack:
            return lit
        bound = self.func_stack[-1].last_value.get(value.value)
        if type(bound) is cst.Call and type(bound.func) is cst.Attribute and bound.func.attr.value in ("get", "pop") \
                and len(bound.args) == 2 and not any(a.star or a.keyword is not None for a in bound.args) \
                and isinstance(literal(bound.args[0].value), str):
            return literal(bound.args[1].value)
        return NOT_LITERAL

    def _message_kinds(self, node: cst.Call) -> tuple[str, ...]:
        """Value kinds a message call shows: the expressions inside f-string, ``%`` and
        ``.format`` arguments and the other arguments; a plain string literal shows nothing."""
        out: list[str] = []
        for a in node.args:
            v = a.value
            if type(v) is cst.FormattedString:
                out += [self.kind(p.expression) for p in v.parts if type(p) is cst.FormattedStringExpression]
            elif type(v) is cst.BinaryOperation and type(v.operator) is cst.Modulo and \
                    type(v.left) in (cst.SimpleString, cst.ConcatenatedString):
                right = v.right
                items = [e.value for e in right.elements] if type(right) is cst.Tuple else [right]
                out += [self.kind(e) for e in items]
            elif type(v) is cst.Call and type(v.func) is cst.Attribute and v.func.attr.value == "format":
                out += [self.kind(x.value) for x in v.args]
            elif type(v) not in (cst.SimpleString, cst.ConcatenatedString):
                out.append(self.kind(v))
        return tuple(out)

    def _random_draw(self, expr: cst.BaseExpression, scope: _FuncScope, depth: int) -> bool:
        """``expr`` holds a host-side random draw (a call matching :data:`_RNG_CALLS`:
        ``random.choice(sizes)``, ``np.random.uniform(0.5, 1.5)``, ``torch.randint(...).item()``),
        anywhere inside it or, up to ``depth`` assignments back, in what a name it reads was bound
        to (``sz = random.randrange(a, b); sf = sz / s; ns = [int(x * sf) for x in shape]``)."""
        stack: list[cst.CSTNode] = [expr]
        budget = 256  # expressions are small; a pathological one is cut, not walked
        while stack and budget:
            budget -= 1
            node = stack.pop()
            t = type(node)
            if t is cst.Call and _RNG_CALL.match(self.qual(node.func)):  # type: ignore[attr-defined]
                return True
            if t is cst.Name and depth > 0:
                bound = scope.last_value.get(node.value)  # type: ignore[attr-defined]
                if bound is not None and bound is not expr and self._random_draw(bound, scope, depth - 1):
                    return True
                continue
            stack.extend(child_nodes(node))
        return False

    def _draws(self, expr: cst.BaseExpression) -> bool:
        """``expr`` draws random numbers: a call matching :data:`_RNG_CALL`, a functional
        dropout, a dropout layer held on ``self`` (``self.drop(torch.ones_like(m))``) or an
        in-place sampling method (``.bernoulli_()``, ``.uniform_()``)."""
        cls = self.func_stack[-1].cls if self.func_stack else None
        stack: list[cst.CSTNode] = [expr]
        budget = 256
        while stack and budget:
            budget -= 1
            node = stack.pop()
            if type(node) is cst.Call:
                func = node.func
                name = self.qual(func)
                if _RNG_CALL.match(name) or "dropout" in name.rsplit(".", 1)[-1].lower():
                    return True
                if type(func) is cst.Attribute and func.attr.value in _SAMPLING_METHODS:
                    return True
                if cls is not None and _is_self_attr(func) and "Dropout" in cls.attr_ctor.get(func.attr.value, ""):
                    return True
            stack.extend(child_nodes(node))
        return False

    def _built_by(self, expr: cst.BaseExpression | None, scope: _FuncScope | None) -> str:
        """The callee that built ``expr``'s value: the call itself (its resolved name, or
        ``.<method>`` for a method call on a value), or the call a local name was bound to
        (:attr:`_FuncScope.ctor_of`); "" when unknown."""
        if type(expr) is cst.Call:
            fn = expr.func
            return self.qual(fn) or (f".{fn.attr.value}" if type(fn) is cst.Attribute else "")  # type: ignore[attr-defined]
        if type(expr) is cst.Name and scope is not None:
            return scope.ctor_of.get(expr.value, "")
        return ""

    def _fresh_tensor(self, expr: cst.BaseExpression, scope: _FuncScope | None, depth: int = 3) -> bool:
        """``expr`` is a tensor this function has just made, so an in-place op on it updates no
        parameter, buffer or argument: a torch factory (``torch.zeros_like(scores)``,
        ``torch.empty(...)``), a copy or new tensor from a method (``mask.clone()``,
        ``idx.new(*size)``, ``x.new_zeros(n)``), arithmetic or a comparison (``1. - block_mask``,
        ``scores > t``), an in-place fill or ``.to``/``.contiguous`` of one of those
        (``torch.empty_like(x).normal_()``), a view or slice of one (``x.narrow(d, s, n)``,
        ``x[:, s]``: a write into it changes only that new tensor), or a local name bound to one
        (up to ``depth`` bindings back; not a ``for`` target or a parameter). Views and aliases
        of anything else are not fresh (``p.detach()``, ``w.view(-1)``, ``self.weight``,
        ``getattr(m, "weight")``)."""
        for _ in range(depth + 1):
            t = type(expr)
            if t in (cst.BinaryOperation, cst.Comparison) or (t is cst.UnaryOperation and type(expr.operator) is not cst.Not):  # type: ignore[attr-defined]
                return True
            if t is cst.Subscript:
                expr = expr.value  # type: ignore[attr-defined]
                continue
            if t is cst.Call:
                fn = expr.func  # type: ignore[attr-defined]
                if type(fn) is cst.Attribute and fn.attr.value in _FRESH_METHODS:
                    return True
                if type(fn) is cst.Attribute and (fn.attr.value in _SAME_TENSOR_METHODS or fn.attr.value in _VIEW_METHODS):
                    expr = fn.value
                    continue
                return self.qual(fn) in _FRESH_BUILDERS
            if t is cst.Name and scope is not None:
                name = expr.value  # type: ignore[attr-defined]
                bound = scope.last_value.get(name)
                if bound is None or bound is expr or name in scope.iter_names or name in scope.params:
                    return False
                if scope.rebound is None:
                    scope.rebound = _rebound_names(scope.node)
                if name in scope.rebound:  # another binding may reach the op (a branch, a loop, a walrus)
                    return False
                expr = bound
                continue
            return False
        return False

    def _bind_alias(self, scope: _FuncScope, name: str, value: cst.BaseExpression) -> None:
        """Record what ``name = value`` shares (see :attr:`_FuncScope.shared`), whether it
        names an input's device and which callee built it; a rebinding forgets all three."""
        scope.iter_names.discard(name)
        if scope.shared:
            for k in [k for k, v in scope.shared.items() if v == name or k == name]:
                del scope.shared[k]
        if type(value) is cst.Name and value.value != name and value.value not in ("None", "True", "False"):
            scope.shared[name] = value.value
            scope.shared.setdefault(value.value, name)
        elif type(value) is cst.Attribute and _is_self_attr(value):
            scope.shared[name] = _dotted(value)
        # taken after the statement, like kinds (`x = torch.flatten(x, 1)` reads the pooled `x`)
        scope.pending_marks.append((name, self.values.is_scalar(value),
                                    type(value) is cst.Call and self._is_global_pool_result(value)))
        if _is_input_device(value):
            scope.input_devices.add(name)
        else:
            scope.input_devices.discard(name)
        # after the right-hand side is visited (``attn = attn.nan_to_num()`` reads the old one)
        # a local alias of a built attribute (`pd = self.bank_logits`) is built by the same callee
        built = self._built_by(value, None) if type(value) is cst.Call else (
            scope.cls.attr_ctor.get(value.attr.value, "")  # type: ignore[attr-defined]
            if scope.cls is not None and _is_self_attr(value) else "")
        scope.pending_ctor.append((name, built, value))

    def _registrar(self, dec: cst.BaseExpression) -> tuple[str, str] | None:
        """(table, key) when ``dec`` is a decorator of this file that stores what it decorates
        in a module-level table: a one-parameter function writing ``TABLE[...] = <param>``
        (``@register``; key "": the decorated name), or a call of a function that returns such
        a decorator (``@register_scheduler("ddpm")``; key: the call's literal string argument,
        else "")."""
        key: Any = ""
        if type(dec) is cst.Call and type(dec.func) is cst.Name and dec.func.value in self.top_defs:
            table = _factory_table(self.top_defs[dec.func.value])
            if dec.args and not dec.args[0].star:
                key = literal(dec.args[0].value)
        elif type(dec) is cst.Name and dec.value in self.top_defs:
            table = _registrar_table(self.top_defs[dec.value])
        else:
            return None
        if not table or table not in self.bindings.module_names:
            return None
        return table, key if isinstance(key, str) else ""

    def _built_callee(self, func: cst.BaseExpression) -> str:
        """The callee a builder's ``return <func>(...)`` calls, as resolved in this file: a
        class or function name, or ``<table>[]`` for an entry of a module-level table picked by
        a computed key (``SCHEDULERS[name]``); "" for anything else."""
        if type(func) is cst.Subscript and type(func.value) is cst.Name:
            if func.value.value in self.bindings.module_names:
                return f"{self.module}.{func.value.value}[]"
            table = self.qual(func.value)
            return f"{table}[]" if table and self.bindings.is_project(table) else ""
        name = self.qual(func)
        return name if name and not name.startswith(("self.", "torch.")) and "." in name else ""

    def _state_view(self, call: cst.Call, scope: _FuncScope) -> bool:
        """``call`` is a call of the project (``self.<method>``, a function the project may
        define) given a parameter named like decoding state (:data:`_STATE_NAME`:
        ``incremental_state``, ``cache``) as it came: what it returns may be a part of that state
        (fairseq's ``self._get_input_buffer(incremental_state)``)."""
        if scope.init_like or not any(type(a.value) is cst.Name and a.value.value in scope.params and
                                      _STATE_NAME.search(a.value.value) is not None for a in call.args):
            return False
        name = self.qual(call.func)
        return _is_project_callee(name) and not name.startswith(("copy.", "dict", "list"))

    def _constant_tensor(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """``expr`` is a tensor built only from values known at trace time: a torch creation
        call (``arange``, ``zeros``, ``ones``, ``full``, ``linspace``, ``eye``, ``tensor``) whose
        arguments are all static (sizes from shapes, literals, config), a tensor method or
        arithmetic on such tensors and static values, or a local bound to one. Under ``jax.jit``
        ``jnp`` still builds it as a traced array (reading it back raises), but a port computes
        it with Python or NumPy instead: a mechanical change."""
        if depth > 6 or not self.func_stack:
            return False
        t = type(expr)
        if t is cst.Name:
            scope = self.func_stack[-1]
            bound = scope.last_value.get(expr.value)  # type: ignore[attr-defined]
            # (not when another branch binds it too: `lengths = mask.sum(1)` / `else: torch.tensor(...)`)
            return bound is not None and bound is not expr and (expr.value, id(bound)) not in scope.alt_values \
                and self._constant_tensor(bound, depth + 1)  # type: ignore[attr-defined]
        if t is cst.BinaryOperation:
            sides = [self._constant_tensor(side, depth + 1) for side in (expr.left, expr.right)]  # type: ignore[attr-defined]
            return any(sides) and all(c or self.kind(side) == K.S
                                      for c, side in zip(sides, (expr.left, expr.right)))  # type: ignore[attr-defined]
        if t is not cst.Call:
            return False
        func = expr.func  # type: ignore[attr-defined]
        args = [a.value for a in expr.args if a.keyword is None or a.keyword.value not in ("dtype", "device")]  # type: ignore[attr-defined]
        name = self.qual(func)
        if name in _CONSTANT_FACTORIES:
            return bool(args) and all(self.kind(a) == K.S for a in args)
        if name in ("torch.cat", "torch.concat", "torch.concatenate", "torch.stack") and args and \
                type(args[0]) in (cst.List, cst.Tuple) and args[0].elements:  # type: ignore[attr-defined]
            # `torch.cat((torch.tensor([1, 0]), torch.arange(2, x.ndim)))`: joined constants
            return all(type(e) is cst.Element and self._constant_tensor(e.value, depth + 1)
                       for e in args[0].elements) and all(self.kind(a) == K.S for a in args[1:])  # type: ignore[attr-defined]
        if type(func) is cst.Attribute and not name.startswith("torch."):
            return self._constant_tensor(func.value, depth + 1) and all(self.kind(a) == K.S for a in args)
        return False

    def _is_tensor_mapping(self, ann: cst.BaseExpression) -> bool:
        """``ann`` is ``Dict[str, torch.Tensor]`` / ``dict[str, Tensor]`` / ``Mapping[str,
        Tensor]`` (also inside ``Optional[...]``)."""
        if type(ann) is not cst.Subscript:
            return False
        outer = self.qual(ann.value) or (ann.value.value if type(ann.value) is cst.Name else "")
        if outer in ("typing.Optional", "Optional") and len(ann.slice) == 1 and type(ann.slice[0].slice) is cst.Index:
            return self._is_tensor_mapping(ann.slice[0].slice.value)
        if outer not in ("typing.Dict", "dict", "typing.Mapping", "collections.abc.Mapping", "Dict", "Mapping",
                         "typing.MutableMapping") or len(ann.slice) != 2:
            return False
        value = ann.slice[1].slice
        if type(value) is not cst.Index:
            return False
        v = value.value
        name = self.qual(v) or (v.value if type(v) is cst.Name else "")
        return name in K.TENSOR_TYPE_NAMES or name in ("Tensor", "FloatTensor", "LongTensor")

    def _dict_entry_kinds(self, value: cst.BaseExpression) -> dict[str, cst.BaseExpression] | None:
        """Key -> value expression of a dict display with string keys (``{"loss": l, "n": k}``)
        or a ``dict(loss=l, n=k)`` call; None for anything else (a ``**`` entry: unknown keys)."""
        if type(value) is cst.Dict:
            out: dict[str, cst.BaseExpression] = {}
            for el in value.elements:
                if type(el) is not cst.DictElement:
                    return None
                key = literal(el.key)
                if type(key) is not str:
                    return None
                out[key] = el.value
            return out
        if type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "dict" and \
                self.qual(value.func) == "dict" and all(a.keyword is not None and not a.star for a in value.args):
            return {a.keyword.value: a.value for a in value.args}  # type: ignore[union-attr]
        return None

    def _mutable_container_param(self, scope: _FuncScope, name: str) -> bool:
        """``name`` is a parameter annotated as a mutable container (``cache: dict``,
        ``buffers: List[torch.Tensor]``, ``state: Dict[str, Any]``): static as a value kind,
        but the caller's object, which a method like ``update``/``append`` changes."""
        meta = scope.param_meta.get(name)
        annotation = meta[0] if meta is not None else None
        if annotation is None:
            return False
        stack: list[cst.CSTNode] = [annotation.annotation]
        while stack:
            n = stack.pop()
            if type(n) is cst.Subscript:
                stack.append(n.value)
                stack.extend(el.slice.value for el in n.slice if type(el.slice) is cst.Index)
            elif type(n) in (cst.Name, cst.Attribute) and self.qual(n) in _MUTABLE_CONTAINER_TYPES:
                return True
            elif type(n) is cst.BinaryOperation:
                stack.extend((n.left, n.right))
        return False

    def _string_key(self, index: cst.BaseExpression, depth: int = 2, loop_keys: bool = True) -> bool:
        """``index`` is a string: a literal, an f-string, a concatenation with a string literal
        (``prefix + "weight"``), a loop variable over a mapping's keys (``for key in
        sd.keys()``, ``for key, v in sd.items()``; with ``loop_keys``), or a local name last bound to one (``new_key =
        prefix + key; state_dict[new_key] = ...``: a mapping's key, no tensor index)."""
        t = type(index)
        if t in STRING_NODES or t is cst.FormattedString:
            return True
        if t is cst.BinaryOperation and type(index.operator) is cst.Add:
            return self._string_key(index.left, 0, loop_keys) or self._string_key(index.right, 0, loop_keys)
        if t is cst.Name and self.func_stack:
            if loop_keys and index.value in self.func_stack[-1].key_names:
                return True  # `for key in sd.keys(): sd[prefix + key] = ...`: a mapping's key
            if depth > 0:
                bound = self.func_stack[-1].last_value.get(index.value)
                return bound is not None and self._string_key(bound, depth - 1, loop_keys)
        return False

    def _subscript_write(self, stmt: cst.CSTNode, target: cst.Subscript, base: str, vkind: str,
                         aug: bool, value: cst.BaseExpression | None = None) -> None:
        if self.func_stack and type(target.value) is cst.Name and target.value.value == self.func_stack[-1].star_kwargs \
                and len(target.slice) == 1 and type(target.slice[0].slice) is cst.Index:
            key = literal(target.slice[0].slice.value)
            if type(key) is str:
                self.func_stack[-1].kwargs_written.add(key)
        if vkind in K.TENSORISH and _is_self_attr(target.value) and self.func_stack and \
                self.func_stack[-1].cls is not None and base not in K.TENSORISH and not aug and len(target.slice) == 1 \
                and type(target.slice[0].slice) is cst.Index:
            self.func_stack[-1].cls.tensor_entries.add(target.value.attr.value)  # type: ignore[attr-defined]
        mask = self._index_has_mask(target)
        # a select (`x[x < 0] = 0`, `out[m] = inp[m]`): `jnp.where(mask, v, x)` writes it
        # (or a tensor held on self, built before this mask: `h[mask] = self.mask_embed.to(h.dtype)`
        # broadcasts it, `jnp.where(mask[..., None], self.mask_embed, h)`)
        select = vkind == K.S or (value is not None and (
            _same_mask_read(value, target) or bool(_self_table(value))))
        # (a mapping's loop keys index a tensor too when the target is one: `mapping[k] = v` over
        # `dict.items()` with int keys into `torch.zeros(...)`)
        loop_keys = base not in K.TENSORISH or (  # (or a tensor by the module-method assumption alone)
            type(target.value) is cst.Name and bool(self.func_stack) and target.value.value in self.func_stack[-1].assumed)
        keyed = any(type(el.slice) is cst.Index and self._string_key(el.slice.value, loop_keys=loop_keys)
                    for el in target.slice)
        root = target.value
        if type(root) is cst.Name and (keyed or (base not in K.TENSORISH and not mask)) and self.func_stack and \
                root.value in self.func_stack[-1].params and not self.func_stack[-1].init_like and \
                _STATE_NAME.search(root.value) is not None:
            # `incremental_state[key] = saved`: an entry written into the caller's decoding cache
            # or state mapping, as `.update(...)` would (a per-call container a parent forward
            # builds and reads back, `features["pair"] = ...`, is trace-time Python, not state)
            # (a mapping parameter otherwise named, `outputs["logits"] = ...`, is most often one its
            # caller builds for the call: a module's call records no flow to prove it, so it is left)
            self._site("argument-write", stmt, name=f"{root.value}[...] = ...",
                       data={"how": "argument", "method": "__setitem__"})
        elif type(root) is cst.Name and (keyed or (base not in K.TENSORISH and not mask)) and self.func_stack and \
                root.value in self.func_stack[-1].state_views and not self.func_stack[-1].init_like:
            # `saved_state = self._get_input_buffer(incremental_state)` then `saved_state["prev_key"]
            # = k`: an entry of the caller's decoding state, reached through a helper (fairseq)
            self._site("argument-write", stmt, name=f"{root.value}[...] = ...",
                       data={"how": "argument", "method": "__setitem__"})
        elif type(root) is cst.Attribute and type(root.value) is cst.Name and self.func_stack and \
                root.value.value in self.func_stack[-1].params and root.value.value not in ("self", "cls", "ctx") \
                and not self.func_stack[-1].init_like and base not in K.TENSORISH and not mask and (
                    _STATE_NAME.search(root.value.value) is not None or _STATE_NAME.search(root.attr.value) is not None):
            # `inference_params.key_value_memory_dict[self.layer_idx] = (conv_state, ssm_state)`:
            # an entry of a cache the caller's object holds (Mamba's decoding state), as
            # `past_key_values.update(...)` writes one
            self._site("argument-write", stmt, name=f"{root.value.value}.{root.attr.value}[...] = ...",
                       data={"how": "argument", "method": "__setitem__"})
        if keyed:
            base = K.U  # `out["logits"] = x`: a tensor takes no string index, the object is a mapping
        elif base == K.U and mask:
            base = K.T  # only arrays take a boolean-mask index
        self._site("subscript-assign", stmt, receiver=base, data={
            "aug": aug, "mask": mask, "value": vkind, "base_is_self": _is_self_attr(target.value),
            "no_grad": self._no_grad(), "select": select,
        })
        if not mask and not keyed and self.func_stack:
            # under the callers' kinds: `usage[codes] += 1` in a helper whose `usage` a caller
            # hands a tensor (a buffer), an in-place write; `outputs[outside] = inputs[outside]`
            # with `outside` from the helper's parameters, a boolean-mask write (nflows' splines)
            variants: list[tuple[str, str, bool]] = []
            if base == K.U and self.func_stack[-1].symbolic:
                variants += [(req, k, False) for req, k in self._fresh_variants(lambda: self.kind(target.value))[1]
                             if k in K.TENSORISH]
            variants += [(req, K.T, True) for req, held in self._fresh_variants(lambda: self._index_has_mask(target))[1]
                         if held]
            for req, k, masked in variants:
                self._site("subscript-assign", stmt, receiver=k, data={
                    "aug": aug, "mask": masked, "value": vkind, "base_is_self": _is_self_attr(target.value),
                    "no_grad": self._no_grad(), "select": select,
                }, requires=(req,))
        if not mask and any(type(el.slice) is cst.Slice and (el.slice.lower is not None or el.slice.upper is not None)
                            for el in target.slice):
            # `m[i, start[j]:end[j]] = 0` with bounds from tensor values: the written window's
            # length is data-dependent, as for a read (jax: "Slice entries must be static
            # integers", IndexError under jit, checked in jax 0.10)
            held_now, variants = self._fresh_variants(lambda: self._store_window(target))
            if held_now:
                self._site("subscript-read", target, receiver=base, data={"mask": False, "host_bound": True})
            else:
                for req, held in variants:
                    if held:
                        self._site("subscript-read", target, receiver=K.T, data={"mask": False, "host_bound": True},
                                   requires=(req,))
        self._state_write(stmt, target.value, "subscript", vkind)
        self._view_write(stmt, target.value)
        if base in K.TENSORISH or (base == K.U and any(  # an unknown base sliced like an array
                type(el.slice) is cst.Slice or (type(el.slice) is cst.Index and type(el.slice.value) is cst.Ellipsis)
                for el in target.slice)):
            self._arg_write(stmt, target.value, "[...] += " if aug else "[...] = ")

    def _store_window(self, target: cst.Subscript) -> bool:
        """A tensor written through a slice bounded by tensor values (both asked, so that the
        symbolic inputs of each are consulted)."""
        base = self.kind(target.value) in K.TENSORISH
        bound = self._index_has_host_value(target)
        return base and bound

    def _memo_attrs(self, node: cst.If) -> frozenset[str]:
        """The ``self`` attributes the body of ``node`` assigns when its test compares an
        attribute of ``self`` with a static value (``if seq_len != self._seq_len_cached or
        self._cos_cached.device != x.device:``, ``if n > self.max_seq_len_cached:``): a table
        cached on the module and rebuilt when a static key changes (rotary cos/sin tables). A
        test on tensor values, or only against None (``if self.k is None:``, a cache that may
        grow with data), opens none."""
        keyed = any(_key_attr(x) for sides in _key_comparisons(node.test) for x in sides)
        if not keyed:
            return frozenset()
        self._fresh()
        if self.kind(node.test) in K.VALUE_KINDS:
            return frozenset()
        attrs: set[str] = set()
        for stmt in node.body.body:
            if type(stmt) is cst.SimpleStatementLine:
                for small in stmt.body:
                    if type(small) is cst.Assign:
                        for tgt in small.targets:
                            for el in (tgt.target.elements if type(tgt.target) is cst.Tuple else (tgt.target,)):
                                v = el.value if type(el) is cst.Element else el
                                if _is_self_attr(v):
                                    attrs.add(v.attr.value)  # type: ignore[union-attr]
        return frozenset(attrs)

    def _memo_hit(self, node: cst.If) -> frozenset[str]:
        """The ``self`` attributes of a memo cache whose hit ``node`` returns early: its body
        ends in ``return`` of a table on ``self`` (``self.cached_freqs[offset:offset + n]``,
        through slices and ``.detach()``/``.to()``-like calls) and its test compares a key read
        off ``self`` (``self.n``, ``self.t.size(0)``, ``self.cached_len.item()``) with anything
        but None: the table and the keys (rotary-embedding-torch's ``RotaryEmbedding.forward``:
        ``if should_cache and (offset + seq_len) <= self.cached_freqs_seq_len.item(): return
        self.cached_freqs[offset:offset + seq_len].detach()``, then ``self.cached_freqs[:seq_len]
        = freqs.detach()`` further down). Writes to them later in the function are the cache's
        fill (``memo``): a port computes the table in the call. Empty for anything else (a KV
        cache tested only against None, a return of a fresh value)."""
        scope = self.func_stack[-1]
        if scope.cls is None or type(node.body) is not cst.IndentedBlock or not node.body.body:
            return frozenset()
        last = node.body.body[-1]
        if type(last) is not cst.SimpleStatementLine or type(last.body[-1]) is not cst.Return:
            return frozenset()
        table = _self_table(last.body[-1].value)  # type: ignore[attr-defined]
        if not table:
            return frozenset()
        keys: set[str] = set()
        for sides in _key_comparisons(node.test):
            found: list[str] = []
            others: list[cst.BaseExpression] = []
            for x in sides:
                key = _key_attr(x)
                if key:
                    found.append(key)
                else:
                    others.append(x)
            # the key is compared with what the call is asked for (a length, an offset),
            # never with data (`x.sum() > self.threshold`) nor only with other state
            self._fresh()
            if found and others and not any(self.kind(x) in K.TENSORISH or self.kind(x) in K.VALUE_KINDS
                                            for x in others):
                keys.update(found)
        return frozenset({table, *keys}) if keys else frozenset()

    def _is_memo(self, attr: str) -> bool:
        """Whether a write to ``self.<attr>`` here fills a memo cache: in the body of an ``if``
        keyed on a static value (:meth:`_memo_attrs`), or after the cache's early-return hit
        (:meth:`_memo_hit`)."""
        if not self.func_stack:
            return False
        scope = self.func_stack[-1]
        return scope.memo_filler or attr in scope.memo_hits or any(attr in m for m in scope.memo_attrs)

    def _state_write(self, stmt: cst.CSTNode, target: cst.BaseExpression, how: str, vkind: str) -> None:
        """A mutation of ``self.<attr>`` (or of what it holds) outside init code; through its
        ``.data`` too (``self.embed.data.copy_(e)`` writes the buffer's storage)."""
        target = _storage_of(target)
        if type(target) is cst.Name and self.func_stack:
            # `k_out = self.k_cache; k_out[:, :, pos] = k_val`: the write goes to the buffer
            target = self.func_stack[-1].self_aliases.get(target.value, target)
        if not _is_self_attr(target) or self.context == "init" or self._constructing():
            return
        assert type(target) is cst.Attribute
        cls = self.func_stack[-1].cls if self.func_stack else None
        attr = target.attr.value
        memo = self._is_memo(attr)
        self._site("self-write", stmt, name=attr, data={
            "how": how, "value": vkind, "aug": how == "aug", "memo": memo,
            "is_buffer": bool(cls and attr in cls.buffers),
            "attr_kind": cls.attr_kinds.get(attr, K.S) if cls else K.U,
        })

    def _view_write(self, stmt: cst.CSTNode, target: cst.BaseExpression) -> None:
        """An in-place write through a name bound to a view of another tensor (PyTorch
        mutates the base tensor too; a JAX port silently does not). A view written in the
        same expression it is taken (``x.narrow(d, s, n).copy_(r)``, ``x.view(-1)[0] = 1``)
        names its base at the write: the port rewrites it as ``x = x.at[...].set(...)``
        like any in-place write (ML301/ML304), with no second name to fall out of step."""
        if not self.func_stack:
            return
        while type(target) is cst.Subscript:  # `row[:n].copy_(t)`: a slice of a view is one too
            target = target.value
        if type(target) is cst.Name:
            src = self.func_stack[-1].views.get(target.value, "")
            if src:
                self._site("view-write", stmt, name=src)

    def _holds_tensors(self, value: cst.BaseExpression, item: bool = False) -> bool:
        """Whether ``value`` is a Python container of tensors: a list/tuple/dict display with a
        tensor element, a comprehension of tensors, ``list(...)`` of one, a local name bound
        to one (``pyramid = [corr]`` then ``pyramid.append(corr)``), or a ``torch.distributions``
        object built from tensors (``Normal(mean, std)``: its parameters are traced values).
        With ``item``, a tensor itself counts (the argument of ``append``)."""
        t = type(value)
        if item and self.kind(value) in K.TENSORISH:
            return True
        if t is cst.Name:
            return bool(self.func_stack) and value.value in self.func_stack[-1].tensor_lists  # type: ignore[attr-defined]
        if t in (cst.List, cst.Tuple, cst.Set):
            return any(type(e) is not cst.StarredElement and self._holds_tensors(e.value, item=True)
                       for e in value.elements)  # type: ignore[attr-defined]
        if t is cst.Dict:
            return any(type(e) is cst.DictElement and self._holds_tensors(e.value, item=True)
                       for e in value.elements)  # type: ignore[attr-defined]
        if t in (cst.ListComp, cst.GeneratorExp, cst.DictComp):
            return self.values.element_kind(value) in K.TENSORISH  # type: ignore[arg-type]
        if t is cst.Call and type(value.func) is cst.Name and value.func.value in ("list", "tuple") and \
                value.args:  # type: ignore[attr-defined]
            return self._holds_tensors(value.args[0].value)  # type: ignore[attr-defined]
        if t is cst.Call and self.qual(value.func).startswith("torch.distributions.") and any(  # type: ignore[attr-defined]
                self.kind(a.value) in K.TENSORISH for a in value.args):  # type: ignore[attr-defined]
            return True  # `Normal(mean, std)`, `Categorical(logits=l)`: an object holding those tensors
        return False

    def _is_host_read(self, value: cst.BaseExpression) -> bool:
        """``t.item()``, ``t.tolist()``, ``int(t)``: a value read out of tensor data."""
        if type(value) is not cst.Call:
            return False
        func = value.func
        if type(func) is cst.Attribute:
            return func.attr.value in K.HOST_METHODS and self.kind(func.value) in K.TENSORISH
        if type(func) is cst.Name and func.value in K.HOST_BUILTINS and value.args:
            return self.kind(value.args[0].value) in K.TENSORISH
        return False

    def _full_reduction(self, value: cst.BaseExpression) -> bool:
        """Whether ``value`` is a 0-d tensor reduced from data: a reduction without a dimension
        (``lengths.max()``, ``torch.sum(mask)``, :data:`~.kinds.FULL_REDUCTION_METHODS`) of a
        tensor, through scalar casts (``.long()``) and arithmetic (``lengths.max() + 1``)."""
        for e in _scalar_calls(value):
            func = e.func
            args = e.args
            if any(a.star or (a.keyword is not None and a.keyword.value in ("dim", "axis")) for a in args):
                continue
            if type(func) is cst.Attribute:
                method = func.attr.value
                if method in K.FULL_REDUCTION_METHODS and not any(a.keyword is None for a in args) and \
                        not self.qual(func).startswith("torch.") and self.kind(func.value) in K.TENSORISH:
                    return True
                elif method in K.FULL_REDUCTION_METHODS and self.qual(func) in K.FULL_REDUCTION_FUNCS and \
                        len(args) == 1 and args[0].keyword is None and self.kind(args[0].value) in K.TENSORISH:
                    return True
            elif type(func) is cst.Name and self.qual(func) in K.FULL_REDUCTION_FUNCS and len(args) == 1 and \
                    args[0].keyword is None and self.kind(args[0].value) in K.TENSORISH:
                return True
        return False

    def _reduction_requires(self, value: cst.BaseExpression) -> tuple[str, ...] | None:
        """The hypotheses under which ``value`` is a :meth:`_full_reduction`: () when it is one
        whatever the inputs, the requirements (``"p:lengths=T"``) when it is one only if a
        parameter its callers type is a tensor, None when it is none. The kind evaluation's
        record of symbolic inputs read is left as it was."""
        saved = self.values.set_aside()
        try:
            if self._full_reduction(value):
                return ()
            reqs = tuple(req for req, got in self._variants(lambda: self._full_reduction(value)) if got)
            return reqs or self._returned_reductions(value) or None
        finally:
            self.values.restore(saved)

    def _ragged_requires(self, value: cst.BaseExpression) -> tuple[str, ...]:
        """When a returned ``value`` has a size that depends on the data (:meth:`ValueKinds.is_ragged`:
        ``torch.where(m)``, ``x[mask]``, a tuple of such): ``("*",)``, or the requirements
        ``"r:<callee>=Z"`` under which it does (it returns such a callee's return,
        :attr:`~migrate_lens.models.FunctionSummary.ret_ragged`); () otherwise. The record of
        symbolic inputs read is left as it was."""
        values = self.values
        saved = values.set_aside()
        try:
            if values.is_ragged(value):
                return ("*",)
            return tuple(f"{key}={K.RETURNED_RAGGED}" for key in sorted(values.ragged_used)
                         if values.under(key, K.RETURNED_RAGGED, lambda: values.is_ragged(value)))
        finally:
            values.restore(saved)

    def _returned_reductions(self, value: cst.BaseExpression) -> tuple[str, ...]:
        """Requirements ``"r:<callee>=R"`` for each call in ``value`` (through scalar casts and
        arithmetic: ``longest(lengths) + 1``) of a function the project may define, whose
        return value is then a 0-d reduction of data if its summary says so
        (:attr:`~migrate_lens.models.FunctionSummary.ret_reduced`, checked with this call's
        arguments by :mod:`migrate_lens.interproc`)."""
        out: list[str] = []
        values = self.values
        for e in _scalar_calls(value):
            name = self.qual(e.func)
            if not name or name.startswith("torch.") or name in BUILTINS:
                continue  # (only a function the project may define has a summary)
            key = "r:" + name
            self._fresh()
            if self.kind(e) not in (K.S, K.H) and key in values.used:
                out.append(f"{key}={K.RETURNED_REDUCTION}")
        return tuple(out)

    def _shape_uses(self, exprs: Iterable[cst.BaseExpression | None], use: str, at: cst.CSTNode,
                    caches: bool = True) -> None:
        """Where ``exprs`` set a shape, a slice bound or a loop length (``use``), report once
        each host read (:attr:`_FuncScope.host_reads`) whose name appears in them (the site is
        the reading statement), a reduction of tensor data written in them (``lengths.max()``:
        the site is ``at``), and, with ``caches``, a cache's length
        (:attr:`_FuncScope.cache_lengths`, or a ``cache.get_seq_length()`` call) appearing in
        them (the site is ``at``). Names are found directly, in arithmetic and in tuple/list
        displays. A read that holds only under hypotheses on the function's inputs is reported
        under them (``Site.requires``)."""
        if not self.func_stack:
            return
        scope = self.func_stack[-1]
        reads = scope.host_reads
        cache_name = ""
        stack = [e for e in exprs if e is not None]
        while stack:
            e = stack.pop()
            t = type(e)
            if t is cst.Name:
                read = reads.get(e.value) if reads else None  # type: ignore[attr-defined]
                if read is not None and not read[1]:
                    self._sized.add(id(at))  # (a read under hypotheses may not hold: ML220 stays)
                if read is not None and id(read[0]) not in self._host_reported:
                    self._host_reported.add(id(read[0]))
                    self._site("host-read-use", read[0], name=e.value, data={"use": use},  # type: ignore[attr-defined]
                               requires=read[1])
                if e.value in scope.cache_lengths:  # type: ignore[attr-defined]
                    cache_name = cache_name or e.value  # type: ignore[attr-defined]
            elif t is cst.BinaryOperation:
                stack += (e.left, e.right)  # type: ignore[attr-defined]
            elif t is cst.UnaryOperation:
                stack.append(e.expression)  # type: ignore[attr-defined]
            elif t in (cst.Tuple, cst.List):
                stack += [el.value for el in e.elements if type(el) is not cst.StarredElement]  # type: ignore[attr-defined]
            elif t is cst.Call and _is_cache_length(e):  # type: ignore[arg-type]
                cache_name = cache_name or _dotted(e.func) + "()"  # type: ignore[attr-defined]
            elif t is cst.Call and id(at) not in self._host_reported and \
                    (reduced := self._reduction_requires(e)) is not None:  # type: ignore[arg-type]
                # `torch.arange(lengths.max())`: the 0-d tensor is read to the host right here
                self._host_reported.add(id(at))
                if not reduced:
                    self._sized.add(id(at))
                self._site("host-read-use", at, name=_dotted(e.func) + "()", data={"use": use},  # type: ignore[attr-defined]
                           requires=reduced)
            elif (t is cst.Subscript or t is cst.Call) and _cache_item_length(e):
                cache_name = cache_name or _cache_item_length(e)
        if cache_name and caches:
            self._sized.add(id(at))
            self._site("cache-length-use", at, name=cache_name, data={"use": use})

    def _mentions_cache_length(self, value: cst.BaseExpression) -> bool:
        """Whether ``value`` is computed from a cache's length (``cache.get_seq_length()``, a
        name bound to one, arithmetic on those; either branch of ``a if c else 0``)."""
        names = self.func_stack[-1].cache_lengths if self.func_stack else set()
        stack = [value]
        while stack:
            e = stack.pop()
            t = type(e)
            if t is cst.Name:
                if e.value in names:  # type: ignore[attr-defined]
                    return True
            elif t is cst.Subscript:
                if _cache_item_length(e) or self._grown_length(e):
                    return True
            elif t is cst.Call:
                if _is_cache_length(e) or _cache_item_length(e) or self._grown_length(e):  # type: ignore[arg-type]
                    return True
                if type(e.func) is cst.Name and e.func.value in ("int", "max", "min") :  # type: ignore[attr-defined]
                    stack += [a.value for a in e.args]  # type: ignore[attr-defined]
            elif t is cst.BinaryOperation:
                stack += (e.left, e.right)  # type: ignore[attr-defined]
            elif t is cst.IfExp:
                stack += (e.body, e.orelse)  # type: ignore[attr-defined]
        return False

    def _grown_length(self, node: cst.BaseExpression) -> bool:
        """``k.shape[-2]`` / ``k.size(-2)`` of a local grown from a cache by concatenation
        (:attr:`_FuncScope.cache_grown`: ``k = torch.cat((ck, k), dim=-2)`` with ``ck, cv =
        cache.cached_kv``): the cache's length after this step's tokens."""
        grown = self.func_stack[-1].cache_grown if self.func_stack else None
        if not grown:
            return False
        if type(node) is cst.Subscript and type(node.value) is cst.Attribute and node.value.attr.value == "shape":
            held = node.value.value
        elif type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "size" and node.args:
            held = node.func.value
        else:
            return False
        return type(held) is cst.Name and held.value in grown

    def _grows_cache(self, value: cst.BaseExpression, scope: _FuncScope) -> bool:
        """``value`` is a concatenation with a tensor read out of a cache (``torch.cat((ck, k))``
        with ``ck`` from ``cache.cached_kv``, ``torch.cat([past_key_value[0], k])``): ML017's kind."""
        if type(value) is not cst.Call or self.qual(value.func) not in ("torch.cat", "torch.concat", "torch.concatenate"):
            return False
        texts = _arg_texts(value)
        return any("cache" in t.lower() or t.startswith("past") for t in (*texts, *_bound_texts(texts, scope.last_value)))

    def _arg_write(self, node: cst.CSTNode, target: cst.BaseExpression, how: str, requires: str = "") -> None:
        """Record an in-place write into a parameter as passed (``q.copy_(...)``, ``k[...] = v``,
        ``scores += pad``) outside init code, for :meth:`leave_FunctionDef` (init-named helpers
        such as ``weight_init_(t)`` are left to reachability: only init code reaching them
        makes them init). ``requires``: the hypothesis under which it is one (``p:total=T``: an
        augmented assignment is in place only on a tensor)."""
        if not self.func_stack:
            return
        while type(target) is cst.Call and type(target.func) is cst.Attribute and \
                _is_inplace_method(target.func.attr.value):
            target = target.func.value  # `avg.mul_(d).add_(x)`: the chain's root
        target = _storage_of(target)  # `avg.data.mul_(d)` writes the caller's tensor as well
        scope = self.func_stack[-1]
        if type(target) is not cst.Name or target.value not in scope.params or \
                scope.context == "init" or target.value in ("self", "cls") or _MAPPING_PARAM.search(target.value):
            return
        if scope.arg_writes and scope.arg_writes[-1][1] == target.value and \
                scope.arg_writes[-1][0] == self._line(node):
            return
        scope.arg_writes.append((self._line(node), target.value, how))
        scope.arg_write_nodes.append(node)
        scope.arg_write_requires.append(requires)

    def loop_tag(self) -> tuple[str, tuple[int, ...]] | None:
        """``(function, open loops)`` of the node being visited when it lies in a loop of a
        function (not in an ``except`` handler): the engine tags findings with it, and those in
        a training loop's step loop (:attr:`step_loops`) become traced once the file is walked."""
        if not self.func_stack:
            return None
        scope = self.func_stack[-1]
        where = scope.summary.where() if scope.summary is not None else ()
        return (scope.qualname, where) if where else None

    def _growth(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """``cache[m] = torch.cat([cache[m], out], dim=1).detach()``, ``self.mem =
        torch.cat((self.mem, h))``, ``state.k = torch.cat([state.k, k])``: state that outlives
        the call (an attribute or item of ``self``, of a parameter or of a closure/global
        object) re-assigned to a concatenation of itself with new data grows at every call, a
        new shape per step. Records the concatenation (:attr:`grow_calls`, read by its call
        site as ``data["grows"]``). Casts and copies around the call (``.detach()``,
        ``.to(dtype)``) are looked through. A local rebuilt in a loop of one call is no
        state: its shapes are fixed per trace."""
        if not self.func_stack:
            return
        while type(value) is cst.Call and type(value.func) is cst.Attribute and \
                value.func.attr.value in _GROWTH_PASSTHROUGH:
            value = value.func.value
        if type(value) is not cst.Call or not value.args:
            return
        func = value.func
        leaf = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
        if leaf not in _CONCAT_LEAVES:
            return
        seq = value.args[0].value
        if type(seq) not in (cst.List, cst.Tuple) or self.qual(value.func) not in _CONCAT_CALLS:
            return
        scope = self.func_stack[-1]
        root = _root_name(target)
        if not root or not (root in ("self", "cls") or root in scope.params or root not in scope.env):
            return
        for el in seq.elements:
            item = el.value
            while type(item) is cst.Call and type(item.func) is cst.Attribute and \
                    item.func.attr.value in _GROWTH_PASSTHROUGH:
                item = item.func.value
            if item.deep_equals(target):
                self.grow_calls[id(value)] = _state_text(target)
                return

    def _is_outer_container(self, name: str) -> bool:
        """A module-level global (not shadowed by a local) written from inside a function."""
        if not self.func_stack:
            return False
        scope = self.func_stack[-1]
        return name in self.bindings.globals and name not in scope.env

    def _data_init(self, target: cst.Attribute, value: cst.BaseExpression, vkind: str) -> bool:
        """``self.<p>.data = <tensor>`` (or ``.data.copy_``'s assignment form) in a method that is
        not init code, with a value that does not read ``self.<p>`` itself: a parameter set from
        what the call computes (Glow/nflows ActNorm's ``self.log_scale.data = -torch.log(std)``
        from the first batch), not a projection of the parameter (``self.w.data =
        self.w.data.clamp(-1, 1)``)."""
        if target.attr.value != "data" or not _is_self_attr(target.value) or vkind not in K.TENSORISH \
                or not self.func_stack or self.func_stack[-1].name == "__init__":
            return False  # (an init-named helper is judged by who reaches it: the rule's contexts)
        param = target.value.attr.value  # type: ignore[attr-defined]
        return not _reads_self_attrs(value, frozenset({param}))

    def _data_write(self, target: cst.Attribute) -> None:
        """``<w>.data = ...`` / ``<w>.data += ...``: the enclosing function rewrites a tensor's
        storage (the summary's weight-surgery evidence)."""
        if target.attr.value == "data" and self.func_stack and self.func_stack[-1].summary is not None:
            self.func_stack[-1].summary.weight_write()

    def _rng_draw(self, func: cst.Attribute, method: str) -> str:
        """``random.<method>`` / ``numpy.random.<method>`` when ``func`` is a method of a Python
        or NumPy random generator held on ``self`` or in a local (:attr:`_ClassInfo.rng_attrs`,
        :attr:`_FuncScope.rng_locals`): a ``random.Random`` instance's methods are what the
        ``random`` module's functions are bound to, a ``Generator``'s / ``RandomState``'s mirror
        ``numpy.random``'s. "" otherwise."""
        recv = func.value
        scope = self.func_stack[-1]
        module = ""
        if type(recv) is cst.Name:
            module = scope.rng_locals.get(recv.value, "") if scope.rng_locals else ""
            if not module and self.rng_globals and recv.value not in scope.env:
                module = self.rng_globals.get(recv.value, "")
        elif _is_self_attr(recv) and scope.cls is not None and scope.cls.rng_attrs:
            module = scope.cls.rng_attrs.get(recv.attr.value, "")  # type: ignore[union-attr]
        return f"{module}.{method}" if module and not method.startswith("_") else ""

    def _note_rng(self, table: dict[str, str], name: str, value: cst.BaseExpression) -> None:
        """Record in ``table`` (a class's :attr:`~_ClassInfo.rng_attrs`, the file's module-level
        generators) that ``name`` holds a random generator when ``value`` builds or names one
        (:func:`_rng_module`): its methods then draw like that module's functions (:meth:`_rng_draw`)."""
        rng = _rng_module(value, self.qual)
        if rng:
            table[name] = rng

    def _same_attr(self, target: cst.Attribute, value: cst.BaseExpression) -> bool:
        """``self.alpha = self.alpha`` or ``self.alpha = cast(Tensor, self.alpha)``
        (``typing.cast`` returns its argument): the attribute is rebound to the object it
        holds, for the type checker; no state changes."""
        while type(value) is cst.Call and self.qual(value.func) in ("typing.cast", "typing_extensions.cast") \
                and len(value.args) == 2:
            value = value.args[1].value
        return type(value) is cst.Attribute and _is_self_attr(value) and value.attr.value == target.attr.value

    def _constructing(self) -> bool:
        """The innermost function is an object's constructor (``__init__`` of a plain class,
        whose context the graph decides): its writes to ``self`` fill a new object, no state."""
        return bool(self.func_stack) and self.func_stack[-1].init_like and self.func_stack[-1].name == "__init__"

    def _self_write(self, stmt: cst.CSTNode, attr: str, vkind: str, aug: bool,
                    value: cst.BaseExpression | None = None) -> None:
        cls = self.func_stack[-1].cls if self.func_stack else None
        ctx = self.context
        if cls is not None:
            self._note_attr_literal(cls, attr, None if aug else value)
        if not aug and type(value) is cst.Name and vkind not in K.TENSORISH and (
                value.value in self.local_classes or value.value in self.function_classes):
            # `self._output_class = Output` with `class Output(...)` defined in the file (in the
            # method itself, memoized): a class object is trace-time Python, no state a trace loses
            vkind = K.S
        if cls is not None:
            if value is not None and not aug:
                self._note_rng(cls.rng_attrs, attr, value)  # `self._rng = random.Random()`
            if value is not None and type(value) is cst.Call and not aug:
                built = self.qual(value.func)
                if built and built.rsplit(".", 1)[-1][:1].isupper():
                    cls.attr_ctor[attr] = built  # `self.distribution = Normal(mean, std)`
            elif type(value) is cst.Name and not aug:
                built = self.func_stack[-1].ctor_of.get(value.value, "")
                if built and built.rsplit(".", 1)[-1][:1].isupper():
                    cls.attr_ctor[attr] = built  # `z = Latent(...); z.setup(...); self.z = z`
            if self.func_stack[-1].init_like or attr not in cls.attr_kinds:
                new_kind = vkind
                if value is not None and type(value) is cst.Call:
                    ctor = self.qual(value.func)
                    if ctor in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
                        new_kind = K.T
                    elif ctor.startswith("torch.nn.Conv") or ctor.startswith("torch.nn.LazyConv"):
                        new_kind = K.M
                        cls.has_conv = True
                    elif ctor.startswith("torch.nn.Adaptive") and value.args and \
                            literal(value.args[0].value) in (1, (1,), (1, 1), (1, 1, 1)):
                        cls.global_pools.add(attr)
                    elif ctor == "torch.nn.Sequential" and value.args and _ends_in_global_pool(value, self.qual):
                        # `nn.Sequential(..., nn.AdaptiveAvgPool2d((1, 1)))` (squeezenet's classifier):
                        # its output is a (N, C, 1, 1) map as well
                        cls.global_pools.add(attr)
                        new_kind = K.M
                    elif ctor.startswith("torch.nn.") and ctor.rsplit(".", 1)[-1][:1].isupper():
                        new_kind = K.M
                    elif ctor and ctor.rsplit(".", 1)[-1][:1].isupper() and not ctor.startswith("torch."):
                        new_kind = K.M
                    self.ctor_attr[id(value)] = attr
                elif value is not None and type(value) in (cst.BooleanOperation, cst.IfExp):
                    # `self.collector = collector or AuxCollector()`: the built default is the slot's
                    for alt in _alternatives(value):
                        if type(alt) is cst.Call:
                            self.ctor_attr[id(alt)] = attr
                            ctor = self.qual(alt.func)
                            if ctor and ctor.rsplit(".", 1)[-1][:1].isupper():
                                new_kind = K.M
                cls.attr_kinds[attr] = new_kind if new_kind != K.U or attr not in cls.attr_kinds else cls.attr_kinds[attr]
            if type(value) is cst.Name and value.value == "None":
                cls.none_attrs.add(attr)
            if value is not None:
                found = self._targets(value)
                if not found and type(value) is cst.Call and value.args and cls.attr_binds and \
                        _is_self_attr(value.args[0].value) and self.bindings.is_partial(value) and \
                        value.args[0].value.attr.value in cls.attr_binds:  # type: ignore[attr-defined]
                    # `self._train_fn = partial(self.kernel_fn, chunk_size=c)`: the other attribute
                    # (what it holds is read below)
                    found = (_dotted(value.args[0].value),)
                if not found and type(value) is cst.Call and self.func_stack[-1].init_like:
                    callee = self.qual(value.func)
                    if callee and not is_class_like(callee) and "()" not in callee and (
                            self.bindings.is_project(callee) or callee.startswith(f"{self.module}.")):
                        # `self.attn_fn = make_attention(scale)`: what the project function returns,
                        # the closure it builds when the graph knows it for a closure factory
                        # (`FileFacts.closure_factories`); anything else resolves to nothing
                        found = (f"{callee}()",)
                if type(value) in (cst.Dict, cst.List, cst.Tuple) or _is_dict_call(value):
                    # `self.pool_fns = {"mean": masked_mean, ...}`, `self.transforms = [time_mask,
                    # freq_mask]`: the callables held; `self.pool_fns[mode](h)` and `for t in
                    # self.transforms: t(x)` call each (key `<attr>[]`)
                    scope = self.func_stack[-1]
                    entries = self.bindings.table_entries(value, scope.env, scope.binds.callables, cls.methods)
                    if entries:
                        cls.attr_binds[f"{attr}[]"] = merge(cls.attr_binds.get(f"{attr}[]", ()), entries)
                closure = self._closure_def(value)
                if not closure and type(value) is cst.Lambda and self.func_stack[-1].init_like:
                    # `self.score = lambda q, k: (q @ k.T).argmax().item()` in __init__: a
                    # closure called from forward with its tensors, not init code
                    closure = self.self_lambdas[id(value)] = f"{self.func_stack[-1].qualname}.{attr}"
                if closure:  # `def post(t): ...; self.post = post` in __init__: forward calls it
                    found = merge(found, (closure,))
                if found and cls.attr_binds and any(f.startswith("self.") and f[5:] in cls.attr_binds for f in found):
                    # `self._train_fn = partial(self.kernel_fn, ...)` (or through a local `fn =
                    # partial(...)`) with `self.kernel_fn = kernel` before it: what that attribute
                    # holds (xLSTM's kernels)
                    found = tuple(dict.fromkeys(t for f in found for t in (
                        cls.attr_binds[f[5:]] if f.startswith("self.") and f[5:] in cls.attr_binds else (f,))))
                if found:
                    cls.attr_binds[attr] = merge(cls.attr_binds.get(attr, ()), found)
                    self._class_refs(value)
                    partial = value if self.bindings.is_partial(value) else None
                    held = cls.attr_partials.setdefault(attr, {})
                    for alt in found:
                        if alt.startswith("torch."):  # (a second binding of the same callable: ambiguous)
                            held[alt] = partial if alt not in held else None
                    if type(value) is cst.Subscript and self.func_stack[-1].init_like and cls.composes and \
                            self._pick_keys(value):
                        self._picked_submodules(cls, attr, value, found)
                if type(value) is cst.Call and not (self.func_stack[-1].init_like and cls.is_module):
                    self._held_instance(cls, attr, value)
                elif type(value) in (cst.BooleanOperation, cst.IfExp) and not (self.func_stack[-1].init_like and cls.is_module):
                    # `self.mixer = mixer or CutMixUp()`: the default built there (a caller's own is
                    # an injection the graph joins)
                    for alt in _alternatives(value):
                        if type(alt) is cst.Call:
                            self._held_instance(cls, attr, alt)
                elif type(value) in (cst.List, cst.Tuple):
                    # (in a module's init code too: `self.batch_callbacks = [LossHistory(), ...]` of
                    # plain classes, whose methods the training step runs; a module class in the
                    # list is a submodule as well, its methods the same call targets)
                    self._held_items(cls, attr, [e.value for e in value.elements])
                elif type(value) is cst.Dict:
                    self._held_items(cls, attr, [e.value for e in value.elements if type(e) is cst.DictElement])
                elif type(value) in (cst.ListComp, cst.DictComp):
                    # `self.observers = {n: MinMaxObserver() for n in names}`
                    self._held_items(cls, attr, [value.value if type(value) is cst.DictComp else value.elt])
                if self.func_stack[-1].init_like and type(value) is cst.Attribute and type(value.value) is cst.Name:
                    # `self.text_model = text_model.text_model` with `text_model = CLIPTextModel._from_config(c)`
                    for t in self.func_stack[-1].binds.instances.get(value.value.value, ()):
                        self.injections.append(InjectionFact(kind="member", owner=cls.qualname, attr=attr,
                                                             param=value.attr.value, index=-1, target=t,
                                                             line=self._line(value)))
                if self.func_stack[-1].init_like and type(value) is cst.Call and cls.composes:
                    # `self.scheduler = get_scheduler(name)`: what a project builder function
                    # returns (its ``FunctionFact.builds``, which the graph follows)
                    fname = self.qual(value.func)
                    if fname and not is_class_like(fname) and not fname.startswith(("self.", "torch.")) and (
                            self.bindings.is_project(fname) or fname.startswith(f"{self.module}.")):
                        self.submodules.append(SubmoduleFact(owner=cls.qualname, attr=attr, target=f"{fname}()",
                                                             line=self._line(value)))
                if self.func_stack[-1].init_like and type(value) is cst.Name and cls.composes:
                    # `z = Latent(...); z.setup(...); self.z = z`: the instance built into a local
                    # is the attribute's (its constructor's own fact has no attribute)
                    for t in self.func_stack[-1].binds.instances.get(value.value, ()):
                        if self._is_class_name(t):
                            self.submodules.append(SubmoduleFact(owner=cls.qualname, attr=attr, target=t,
                                                                 line=self._line(value)))
                if self.func_stack[-1].init_like and type(value) is cst.Name and self._may_hold_class(value.value):
                    self._slot(value.value, attr, value)  # `self.corr = corr_block`
                    typed = self.func_stack[-1].binds.typed.get(value.value, ())
                    if cls.composes and self.func_stack[-1].name == "__init__":  # `corr_block: CorrBlock`
                        for t in typed:
                            if not t.startswith("self.") and self._is_class_name(t):
                                self.submodules.append(SubmoduleFact(owner=cls.qualname, attr=attr, target=t,
                                                                     line=self._line(value)))
                elif self.func_stack[-1].init_like and type(value) in (cst.IfExp, cst.BooleanOperation):
                    # `self.processor = processor if processor is not None else AttnProcessor()`,
                    # `self.norm = norm or LayerNorm(d)`: what callers pass lands here too
                    for alt in _alternatives(value):
                        if type(alt) is cst.Name and alt.value in self.func_stack[-1].params and \
                                self._may_hold_class(alt.value):
                            self._slot(alt.value, attr, value)
        if ctx != "init" and not self._constructing():
            # (a random draw kept until the key changes, speechbrain's LiGRU dropout masks, is
            # state: a memo is a function of its key)
            memo = not aug and self._is_memo(attr) and not (value is not None and self._draws(value))
            counter = aug or _reads_self_attr(value, attr)
            if self.func_stack and not aug and value is not None and not counter and not self.func_stack[-1].branches \
                    and not self.func_stack[-1].loops and type(literal(value)) in (int, float, bool):
                # `self.pooling_mult = 1` unconditionally in a method: reset on every call of it
                self.func_stack[-1].resets.add(attr)
            self._site("self-write", stmt, name=attr, requires=(f"k:{attr}=X",) if counter and vkind == K.S else (),
                       data={
                "how": "aug" if aug else "assign", "value": vkind, "aug": aug, "memo": memo,
                "is_buffer": bool(cls and attr in cls.buffers),
                "attr_kind": cls.attr_kinds.get(attr, K.S) if cls else K.U,
                # `self.n = self.n + 1` is a counter like `self.n += 1`
                "counter": counter,
                "placement": not aug and value is not None and _is_placement_of(attr, value),
                # `self.weights = self.get_embedding(n)`, `Cls.get_sinusoid_embeddings(n, d)`: a
                # table built by the class's own code (its kind unknown until the project step)
                "own_method_value": type(value) is cst.Call and type(value.func) is cst.Attribute and
                type(value.func.value) is cst.Name and (value.func.value.value in ("self", "cls") or
                                                          value.func.value.value in self.local_classes),
                "holds_tensors": value is not None and vkind not in K.TENSORISH and self._holds_tensors(value),
            })

    def _note_attr_literal(self, cls: _ClassInfo, attr: str, value: cst.BaseExpression | None) -> None:
        """Keep :attr:`_ClassInfo.attr_literals` for a write of ``self.<attr>``: ``__init__``
        storing a literal or a parameter with a literal default records it; any other write
        (another method, an augmented assignment, a second value) forgets it for good."""
        scope = self.func_stack[-1]
        lit: Any = NOT_LITERAL
        if value is not None and scope.name == "__init__":
            lit = literal(value)
            default = scope.passed_default(value.value) if lit is NOT_LITERAL and type(value) is cst.Name else None
            if default is not None:
                lit = literal(default)
        if lit is NOT_LITERAL or (attr in cls.attr_literals and cls.attr_literals[attr] != lit):
            cls.attr_literals[attr] = NOT_LITERAL
        else:
            cls.attr_literals[attr] = lit

    def _held_items(self, cls: _ClassInfo, attr: str, items: Iterable[cst.BaseExpression]) -> None:
        """``self.logit_filters = [SuppressBlank(...)]`` or ``self.logit_filters.append(
        SuppressTokens(...))`` outside a module's init code: the list holds instances of those
        classes, so ``for f in self.logit_filters: f.apply(...)`` runs their ``apply`` (``held``
        facts: call targets for the graph, no composition edge; the list stays a container)."""
        for v in items:
            if type(v) is not cst.Call:
                continue
            ctor = self.qual(v.func)
            if ctor and not ctor.startswith("torch.") and ctor.rsplit(".", 1)[-1][:1].isupper() and \
                    self._is_class_name(ctor):
                self.injections.append(InjectionFact(kind="held", owner=cls.qualname, attr=attr, param="", index=-1,
                                                     target=ctor, line=self._line(v)))
                cls.held_items[attr] = merge(cls.held_items.get(attr, ()), (ctor,))

    def _held_instance(self, cls: _ClassInfo, attr: str, value: cst.Call) -> None:
        """``self.ema = ModelEMA(model)`` outside a module's init code (a trainer's setup
        method, a plain class's ``__init__``): the attribute holds an instance of that class, so
        ``self.ema.update(...)`` runs ``ModelEMA.update`` (a ``held`` fact: a call target for
        the graph, no composition edge) and is a method call, not a container mutation;
        ``self.criterion = self.init_criterion()`` holds what that factory method builds."""
        func = value.func
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
            # `self.criterion = self.init_criterion()`: whatever that factory method (or a
            # subclass's override) builds
            self.injections.append(InjectionFact(kind="held", owner=cls.qualname, attr=attr, param=func.attr.value,
                                                 index=-1, target="", line=self._line(value)))
            return
        ctor = self.qual(func)
        if not ctor or ctor.startswith("torch.") or not ctor.rsplit(".", 1)[-1][:1].isupper() or \
                not self._is_class_name(ctor):
            return
        self.injections.append(InjectionFact(kind="held", owner=cls.qualname, attr=attr, param="", index=-1,
                                             target=ctor, line=self._line(value)))
        cls.held.add(attr)

    def visit_If(self, node: cst.If) -> None:
        if "training" in self.attribute_interest and _sets_requires_grad_only(node.body):
            # `if self._requires_grad and self.training: hidden_states.requires_grad = True`:
            # the mode picks autograd glue only (for checkpointing), which a port drops
            todo: list[cst.BaseExpression] = [node.test]
            while todo:
                e = todo.pop()
                if type(e) is cst.BooleanOperation and type(e.operator) is cst.And:
                    todo += (e.left, e.right)
                elif type(e) is cst.Attribute and e.attr.value == "training" and _is_self(e.value):
                    self.mode_glue.add(id(e))
        self._visit_if(node)
        g = self.if_guards.get(id(node)) if self.if_guards else None
        if g is not None and g[2]:
            # after the test's own sites: the test runs whether the parameter is given or not
            self.func_stack[-1].guarded.extend(g[2])

    def _visit_if(self, node: cst.If) -> None:
        exits = _exit_kind(node.body)
        hit: frozenset[str] = frozenset()
        if _is_availability_test(node.test):
            self.bindings.guard_depth += 1  # imports under it are optional, like try/except ImportError
            self.guard_tries.add(id(node))
        if self.func_stack:
            scope = self.func_stack[-1]
            if _is_type_test(node.test):
                scope.type_tests += 1
                self.type_test_ifs.add(id(node))
            memo = self._memo_attrs(node)
            if memo:
                scope.memo_attrs.append(memo)
                self.memo_ifs.add(id(node))
            if exits == "return":
                hit = self._memo_hit(node)
            if hit:
                scope.memo_hits |= hit
                self.memo_key_reads.update(_key_reads(node.test, hit))
            if scope.branches and scope.branches[-1][0] == id(node):
                self._enter_else(scope)  # an `elif`: the enclosing if's else branch
            body_guard, else_guard = _optional_guards(node.test, scope)
            if body_guard or else_guard:
                self.if_guards[id(node)] = [body_guard, else_guard, body_guard]  # (entered by visit_If)
                if node.orelse is not None:
                    self.else_guards[id(node.orelse)] = id(node)
            dead = _export_only_test(self, node.test) or (
                "body" if node.orelse is None and _eager_only_test(self, node.test) else "") or (
                "body" if node.orelse is None and not self.sets_padding_idx and _tests_padding_idx(node.test) else "")
            if dead == "orelse" and node.orelse is None and exits == "return" and scope.node is not None and \
                    type(scope.node.body) is cst.IndentedBlock and any(st is node for st in scope.node.body.body):
                # `if not torchvision._is_tracing(): return min(k, n)` at the top of a function:
                # what follows runs only under an exporter (torchvision's `_topk_min`)
                self._export_tails.add(id(node))
            scope.branches.append([id(node.orelse) if node.orelse is not None else 0,
                                   dict(scope.env), dict(scope.derived), None, dead, dict(scope.last_value), exits])
            if node.orelse is not None:
                self._shared_at_if[id(node.orelse)] = dict(scope.shared)
            if dead == "body":
                self.export_only += 1
        if self.func_stack and (_kernel_gate(self, node.test) or _asserts_kernel(self, node.body)):
            self.kernel_gate += 1
            self.open_gates.add(id(node))
            if node.orelse is not None:
                self.gate_elses[id(node.orelse)] = id(node)
        if _is_main_guard(node):
            if not self.func_stack and not self.class_stack:
                self.main_blocks += 1
            return
        if not exits and node.orelse is None and _reports_only(node.body, self.qual):
            # `if (ids >= vocab).any(): warnings.warn(...)`: a data check that only reports, as
            # one that raises; with an `else` the branch chooses computation
            self._condition(node.test, "if", exit_kind="warn")
            return
        if not exits and node.orelse is None and _drops_tested(node.body, node.test):
            # `if not padding_mask.any(): padding_mask = None`: a shortcut that skips an optional
            # input the data shows has no effect; applying it always gives the same result
            self._condition(node.test, "if", exit_kind="drop")
            return
        if hit:
            # the cache hit's test reads the cache's own key (`self.cached_len.item()`): the port
            # deletes the test with the cache (ML717 at its writes); its other operands stay
            for part in _and_operands(node.test):
                if not _reads_self_attrs(part, hit):
                    self._condition(part, "if", exit_kind=exits)
            return
        self._condition(node.test, "if", exit_kind=exits)

    def visit_Else(self, node: cst.Else) -> None:
        if self.func_stack:
            scope = self.func_stack[-1]
            if scope.branches and scope.branches[-1][0] == id(node):
                self._enter_else(scope)
            elif id(node) in self.loop_elses and scope.summary is not None:
                scope.summary.enter_handler()  # a loop's `else:` runs once after it: not the step

    def leave_Else(self, original_node: cst.Else) -> None:
        if id(original_node) in self.loop_elses and self.func_stack and self.func_stack[-1].summary is not None:
            self.func_stack[-1].summary.leave_handler()

    def _enter_else(self, scope: _FuncScope) -> None:
        """The body of an ``if`` is over and its ``else`` begins: keep the body's bindings
        aside and start the else branch from the bindings before the ``if``."""
        rec = scope.branches[-1]
        guarded_if = self.else_guards.pop(rec[0], None)
        if guarded_if is not None and guarded_if in self.if_guards:
            g = self.if_guards[guarded_if]
            if g[2]:
                del scope.guarded[-len(g[2]):]
            g[2] = g[1]
            scope.guarded.extend(g[1])
        gate = self.gate_elses.pop(rec[0], None)
        if gate in self.open_gates:  # the else of a kernel gate runs without the kernel
            self.open_gates.discard(gate)
            self.kernel_gate -= 1
        rec[3] = (scope.env, scope.derived)
        scope.env, scope.derived = dict(rec[1]), dict(rec[2])
        before = self._shared_at_if.pop(rec[0], None)
        if before is not None:
            # the else branch does not share what the body aliased (`attn_bias = rel_bias` in the
            # body, `attn_bias += rel_bias` in the else: a tensor of its own)
            self._shared_body[rec[0]] = scope.shared
            scope.shared = before
        # the else branch does not see what the body bound (`ids = ids[mask]` in the body)
        rec.append(scope.last_value)
        scope.last_value = dict(rec[5])
        if rec[4] == "body":
            self.export_only -= 1
            rec[4] = "body-done"
        elif rec[4] == "orelse":
            self.export_only += 1
            rec[4] = "orelse-in"

    def leave_If(self, original_node: cst.If) -> None:
        """Both branches merge: a name takes the join of its kinds in either (``t =
        longest(lengths)`` in one branch, ``t = x.shape[1]`` in the other: a host value)."""
        if original_node.orelse is not None and self.func_stack and self._shared_body:
            body_shared = self._shared_body.pop(id(original_node.orelse), None)
            if body_shared is not None:  # after the if, an alias either branch made may hold
                merged = dict(body_shared)
                merged.update(self.func_stack[-1].shared)
                self.func_stack[-1].shared = merged
        if self._export_tails and id(original_node) in self._export_tails and self.func_stack:
            self.export_only += 1  # the rest of the function is export-only (:meth:`_visit_if`)
            self.func_stack[-1].export_tail += 1
        if id(original_node) in self.guard_tries:
            self.bindings.guard_depth -= 1
        g = self.if_guards.pop(id(original_node), None) if self.if_guards else None
        if g is not None and g[2] and self.func_stack:
            del self.func_stack[-1].guarded[-len(g[2]):]
        missing = [r for r in g[0] if r[:2] == "n:"] if g is not None and original_node.orelse is None else []
        filled = missing[0][2:-2] if len(missing) == 1 else ""
        if self.main_blocks and not self.func_stack and not self.class_stack and _is_main_guard(original_node):
            self.main_blocks -= 1
        if id(original_node) in self.open_gates:
            self.open_gates.discard(id(original_node))
            self.kernel_gate -= 1
        if not self.func_stack:
            return
        scope = self.func_stack[-1]
        if id(original_node) in self.type_test_ifs:
            scope.type_tests -= 1
        if id(original_node) in self.memo_ifs and scope.memo_attrs:
            scope.memo_attrs.pop()
        if not scope.branches:
            return
        _, env0, der0, body, dead, lv0, body_exits, *lv_body = scope.branches.pop()
        # after the if, each name's last binding in source order: the else branch's, or the
        # body's where the else branch did not bind it; a branch that returns, raises or
        # leaves the loop binds nothing for the code after the if
        if lv_body:
            orelse = original_node.orelse
            if type(orelse) is cst.Else and _exit_kind(orelse.body) and not body_exits:
                scope.last_value = lv_body[0]
            elif not body_exits:
                merged = dict(lv_body[0])
                for k, v in scope.last_value.items():
                    if lv0.get(k) is not v:
                        other = merged.get(k)
                        if other is not None and other is not v and other is not lv0.get(k):
                            # both branches bind it: the body's binding reaches the code after
                            # the if too (`if packed: ids = ids[keep]` / `else: ids = ids[0]`)
                            scope.alt_values.setdefault((k, id(v)), []).append(other)
                        merged[k] = v
                scope.last_value = merged
        elif body_exits:
            scope.last_value = lv0
        other_env, other_der = body if body is not None else (env0, der0)
        env, der = scope.env, scope.derived
        if dead == "body":  # no else branch: the export-only body ends here
            self.export_only -= 1
        if dead in ("body", "body-done"):
            # eager code (and a port) never runs the body: the names keep the else's kinds
            if body is None:
                scope.env, scope.derived = env0, der0
            return
        if dead == "orelse-in":
            self.export_only -= 1
            scope.env, scope.derived = other_env, other_der
            return
        body_kind = env.get(filled) if filled and not body_exits else None
        for name in set(env) | set(other_env):
            a, b = env.get(name), other_env.get(name)
            if a is None or b is None or a == b:
                if a is None and b is not None:
                    env[name] = b
            else:
                env[name] = _join_branches(a, b)
            da, db = der.get(name), other_der.get(name)
            if da is not db and (da or db):
                der[name] = _join_derived(da, env.get(name, K.U) if a is None else a,
                                          db, other_env.get(name, K.U) if b is None else b)
        own = der.get(filled)
        if body_kind in K.VALUE_KINDS and filled in other_env and (not own or list(own) == [f"p:{filled}"]):
            # `if dim_size is None: dim_size = int(index.max()) + 1`: the value read from data
            # only where some caller leaves the size out (`n:<param>=T`), the argument otherwise
            # (and, for a parameter named like a size, what its callers pass: its own `p:` key)
            env[filled] = other_env[filled]
            der[filled] = {f"n:{filled}": {h: body_kind if h == K.T else env[filled] for h in HYPOTHESES},
                           **(own or {})}

    def visit_While(self, node: cst.While) -> None:
        if self.func_stack:
            self._enter_loop(self.func_stack[-1], node)
        self._condition(node.test, "while", exit_kind="")

    def leave_While(self, original_node: cst.While) -> None:
        if self.func_stack:
            self._leave_loop(self.func_stack[-1])

    def leave_For(self, original_node: cst.For) -> None:
        if self.func_stack:
            self._leave_loop(self.func_stack[-1])

    def _enter_loop(self, scope: _FuncScope, node: cst.For | cst.While) -> None:
        if node.orelse is not None:
            self.loop_elses.add(id(node.orelse))
        scope.loops += 1
        scope.loop_heads.append((dict(scope.env), dict(scope.derived), []))
        if scope.summary is not None:
            targets: frozenset[str] = frozenset()
            if type(node) is cst.For:
                t = node.target
                elts = [e.value for e in t.elements] if type(t) in (cst.Tuple, cst.List) else [t]  # type: ignore[attr-defined]
                targets = frozenset(e.value for e in elts if type(e) is cst.Name)
            scope.summary.enter_loop(targets)

    def _leave_loop(self, scope: _FuncScope) -> None:
        if scope.summary is not None:
            scope.summary.leave_loop()
        self._carry_loop(scope)

    def _carry_loop(self, scope: _FuncScope) -> None:
        """Loop-carried kinds: the body's bindings reach the loop head on the next pass (``total
        = 0`` before the loop, ``total += loss`` in it: ``total`` is a tensor from the second
        pass on, and so is a ``while total < x`` test or an ``if total > x`` met before the
        update). Each condition that held no value kind is asked again with every name the
        body rebinds (and the condition had not yet rebound) joined with its kind at the body's
        end; one still silent is handed to the enclosing loop."""
        scope.loops -= 1
        entry_env, entry_der, pending = scope.loop_heads.pop()
        end_env, end_der = scope.env, scope.derived
        carried = [n for n, k in end_env.items() if entry_env.get(n) != k or entry_der.get(n) is not end_der.get(n)]
        if not carried or not pending:
            return
        outer = scope.loop_heads[-1][2] if scope.loop_heads else None
        for site_node, expr, data, env, der in pending:
            env2, der2 = dict(env), dict(der)
            changed = False
            for n in carried:
                if env.get(n) != entry_env.get(n) or der.get(n) is not entry_der.get(n):
                    continue  # rebound before the condition on this pass: its own kind holds
                a, b = env.get(n, K.S), end_env[n]
                env2[n] = _join_branches(a, b)
                da, db = der.get(n), end_der.get(n)
                if da or db:
                    der2[n] = _join_derived(da, a, db, b)
                elif n in der2:
                    del der2[n]
                changed = True
            if not changed:
                if outer is not None:
                    outer.append((site_node, expr, data, env, der))
                continue
            scope.env, scope.derived = env2, der2
            try:
                fired = self._condition_sites(site_node, expr, data, carry=False)
            finally:
                scope.env, scope.derived = end_env, end_der
            if not fired and outer is not None:
                outer.append((site_node, expr, data, env, der))

    def visit_Assert(self, node: cst.Assert) -> None:
        self._condition(node.test, "assert", exit_kind="raise")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._condition(node.test, "ternary", exit_kind="")

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._condition(node.test, "comprehension filter", exit_kind="")

    def _condition(self, test: cst.BaseExpression, construct: str, exit_kind: str) -> bool:
        """A Python construct that calls ``bool()`` on ``test``. The site is the test itself;
        ``exit``: "return" (return/break/continue in the branch), "raise", or "". True when a
        site was recorded (the test holds a value, or may under a hypothesis)."""
        self.cond_tests.add(id(test))
        if self._is_bare_param(test):
            return True
        return self._condition_sites(test, test, {"construct": construct, "exits": bool(exit_kind), "exit": exit_kind})

    def _condition_sites(self, site_node: cst.CSTNode, expr: cst.BaseExpression, data: dict[str, Any],
                         carry: bool = True) -> bool:
        """Record a ``condition`` site at ``site_node`` when ``expr`` holds a value kind, or one
        per hypothesis under which it may (``requires``). True when a site was recorded; inside
        a loop a silent one is kept (``carry``) to be asked again with the loop-carried kinds."""
        self._fresh()
        k = self.kind(expr)
        if k in K.VALUE_KINDS:
            alts = self._assumed_requirements(expr) if self.values.assumed_read else None
            self._site("condition", site_node, receiver=k, data=data, requires=alts or ())
            return True
        found = False
        for req, k2 in self._variants(lambda: self.kind(expr)):
            if k2 in K.VALUE_KINDS:
                self._site("condition", site_node, receiver=k2, data=dict(data), requires=(req,))
                found = True
        if not found and carry and self.func_stack and self.func_stack[-1].loop_heads:
            scope = self.func_stack[-1]
            positions = self.metadata.get(PositionProvider)
            if positions is not None:
                # its range now: a site the loop's end emits for it comes after its statement is
                # left, when only libcst's full PositionProvider could still place it
                positions[site_node]
            scope.loop_heads[-1][2].append((site_node, expr, data, dict(scope.env), dict(scope.derived)))
        return found

    def _assumed_requirements(self, expr: cst.BaseExpression) -> tuple[str, ...] | None:
        """The requirements under which ``expr``, of a value kind and just evaluated, holds a
        value when that rests on assumed parameters only (``not requires_grad`` in an
        ``nn.Module`` helper method: ``a:requires_grad=T``, each parameter that alone keeps it a
        value, else all of them together, and the hypotheses on symbolic inputs that make it a
        value with those parameters static); None when it is a value whatever they hold
        (``flag and mask.any()``)."""
        values = self.values
        reads = frozenset(values.assumed_read)
        fn = lambda: self.kind(expr)  # noqa: E731
        if values.assuming_static(reads, fn) in K.VALUE_KINDS:
            return None
        alts = [f"a:{p}=T" for p in sorted(reads) if values.assuming_static(reads - {p}, fn) in K.VALUE_KINDS]
        if not alts:
            alts.append("&".join(f"a:{p}=T" for p in sorted(reads)))
        if values.used:
            alts.extend(req for req, k in values.assuming_static(reads, lambda: self._variants(fn)) if k in K.VALUE_KINDS)
        self.func_stack[-1].assumed_refs.update(reads)
        return tuple(sorted(set(alts)))

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if type(node.operator) is cst.Not and id(node) not in self.cond_tests:
            self.cond_tests.add(id(node.expression))
            if self._is_bare_param(node.expression):
                return
            self._condition_sites(node, node.expression, {"construct": "not", "exits": False, "exit": ""})

    def _is_bare_param(self, expr: cst.BaseExpression) -> bool:
        """``if mask:`` / ``past and ...`` on a parameter as passed: the truth value of an
        optional argument is a None/emptiness check (a multi-element tensor would raise in
        PyTorch too), not a test of tensor data."""
        return (type(expr) is cst.Name and bool(self.func_stack)
                and expr.value in self.func_stack[-1].params)

    def _bind_comprehension(self, for_in: cst.CompFor) -> None:
        """Bind comprehension targets before the element is visited (the walk meets the
        element first, but Python evaluates the ``for`` first)."""
        node: cst.CompFor | None = for_in
        while node is not None and self.func_stack:
            self._bind_iteration(node.target, node.iter)
            node = node.inner_for_in

    def _is_checkpoint(self, value: cst.BaseExpression) -> bool:
        """``model.state_dict()``, ``torch.load(path)``, ``safetensors...load_file(path)``, or a
        name bound to one: a mapping of parameter names to weight tensors."""
        if type(value) is cst.Name:
            return bool(self.func_stack) and value.value in self.func_stack[-1].weight_dicts
        if type(value) is not cst.Call:
            return False
        func = value.func
        if type(func) is cst.Attribute and func.attr.value == "state_dict":
            return True
        return self.qual(func) in _CHECKPOINT_LOADERS

    def _weight_targets(self, target: cst.BaseExpression, it: cst.BaseExpression) -> list[str]:
        """Names a ``for`` target binds to weight tensors: the value of ``sd.items()`` /
        ``m.named_parameters()`` pairs, each item of ``sd.values()`` / ``m.parameters()``."""
        if type(it) is not cst.Call or type(it.func) is not cst.Attribute:
            return []
        method = it.func.attr.value
        pairs = method in ("items", "named_parameters", "named_buffers")
        if method in ("items", "values"):
            if not self._is_checkpoint(it.func.value):
                return []
        elif method not in ("named_parameters", "named_buffers", "parameters", "buffers"):
            return []
        if pairs:
            if type(target) in (cst.Tuple, cst.List) and len(target.elements) == 2 and \
                    type(target.elements[1].value) is cst.Name:  # type: ignore[attr-defined]
                return [target.elements[1].value.value]  # type: ignore[attr-defined]
            return []
        return [target.value] if type(target) is cst.Name else []

    def _exports_weight(self, node: cst.Call, method: str) -> bool:
        """``w.detach().numpy()`` / ``np.asarray(w)`` of a weight iterated out of a checkpoint,
        with no axis permutation on the way (``w.permute(...)``, ``w.T``) nor earlier in the
        function (a converter that permutes some weights exports the others on purpose)."""
        if not self.func_stack or not self.func_stack[-1].weights:
            return False
        if method == "numpy" and type(node.func) is cst.Attribute:
            expr: cst.BaseExpression = node.func.value
        elif node.args:
            expr = node.args[0].value
        else:
            return False
        scope = self.func_stack[-1]
        permuted = False
        while True:
            if type(expr) is cst.Call and type(expr.func) is cst.Attribute:
                permuted = permuted or expr.func.attr.value in _AXIS_METHODS
                expr = expr.func.value
            elif type(expr) is cst.Attribute:
                permuted = permuted or expr.attr.value in ("T", "mT")
                expr = expr.value
            else:
                break
        if not (type(expr) is cst.Name and expr.value in scope.weights):
            return False
        if permuted:
            scope.weights_converted = True  # a converter: its other exports are deliberate
        return not (permuted or scope.weights_converted)

    def _bind_iteration(self, target: cst.BaseExpression, it: cst.BaseExpression) -> None:
        """Bind the names of a ``for`` target (:meth:`.values.ValueKinds.iteration_kinds`),
        with their kinds under each hypothesis on the symbolic inputs the iterable reads."""
        scope = self.func_stack[-1]
        source = _iterated_param(it, scope.params)
        for n in _names_in_target(target):
            scope.weights.discard(n)
            if source:
                scope.elements.add(n)
            else:
                scope.elements.discard(n)
        scope.weights.update(self._weight_targets(target, it))
        self._fresh()
        kinds = self.values.iteration_kinds(target, it)
        used = set(self.values.used)
        variants = {key: {h: self.values.under(key, h, lambda: self.values.iteration_kinds(target, it))
                          for h in HYPOTHESES} for key in sorted(used)}
        self._bind_table_iteration(target, it)
        for n, k in kinds.items():
            scope.env[n] = k
            if scope.assumed:
                scope.assumed.pop(n, None)
            if variants:
                scope.derived[n] = {key: {h: vs[h].get(n, K.U) for h in HYPOTHESES} for key, vs in variants.items()}
            else:
                scope.derived.pop(n, None)

    def _registry_build(self, node: cst.Call, registry: cst.Name, scope: _FuncScope) -> tuple[tuple[str, ...], bool]:
        """``(entries, picked)`` for ``<registry>.build(cfg)`` (mmcv's Registry, a module-level
        registry object of this file or imported): the classes registered under the config's
        ``type`` when the call spells it (``dict(type="DropBlock", ...)``, ``{"type": ...}``), else
        every registered class, picked by the config. ``((), False)`` for anything else."""
        if not node.args or registry.value in scope.env or registry.value in scope.params:
            return (), False
        cfg = node.args[0].value
        if type(cfg) is cst.Name:
            # `def __init__(self, plugin=dict(type="DropBlock", ...))`: the default config
            cfg = scope.passed_default(cfg.value) or cfg
        key: Any = NOT_LITERAL
        if type(cfg) is cst.Dict:
            for el in cfg.elements:
                if type(el) is cst.DictElement and literal(el.key) == "type":
                    key = literal(el.value)
        elif type(cfg) is cst.Call and _is_dict_call(cfg):
            key = next((literal(a.value) for a in cfg.args if a.keyword is not None and a.keyword.value == "type"),
                       NOT_LITERAL)
        own = registry.value in self.bindings.module_instances and registry.value not in self.bindings.tables
        if isinstance(key, str):
            # (a registry of this file is filled by registrations met later: the graph reads it)
            keyed = (f"{self.module}.{registry.value}[{key.lower()}][]",) if own else \
                self.bindings.keyed_table(registry, (key.lower(),))
            if keyed:
                return keyed, False
        entries = (f"{self.module}.{registry.value}[]",) if own else self.bindings.table_of(registry)
        return (entries, True) if entries else ((), False)

    def _picked_from_table(self, func: cst.BaseExpression, scope: _FuncScope) -> bool:
        """The callee is one entry of a table picked by a setting (``ATTENTION_CLASSES[
        config.attn_impl]``, or a local last bound to such a pick): one alternative runs, which
        the config says. Not when the key varies with a loop (``TYPES[config.block_types[i]]``
        for each layer ``i``: Jamba builds every kind the list names)."""
        if type(func) is cst.Name:
            bound = scope.last_value.get(func.value)
            if type(bound) is not cst.Subscript:
                return False
            func = bound
        elif type(func) is cst.Subscript and self._pick_keys(func):
            return False  # (a key the code fixes picks that entry, :meth:`_targets`: `ACT2CLS["gelu"]()`)
        if type(func) is not cst.Subscript:
            return False
        return not scope.iter_names or not any(
            n.value in scope.iter_names for el in func.slice for n in _names_read(el))

    def _bind_table_iteration(self, target: cst.BaseExpression, it: cst.BaseExpression) -> None:
        """A loop over a whole dispatch table binds its name to every entry: ``for k, cls in
        NORMS.items()``, ``for cls in NORMS.values()``, ``for f in AUGMENT_FNS`` (a list or
        tuple of callables), ``for f in AUGMENT_FNS[p]`` (a list a table of lists holds):
        ``cls(dim)`` builds each of them, ``f(x)`` calls each."""
        scope = self.func_stack[-1]
        table: cst.BaseExpression | None = None
        name = ""
        if type(it) is cst.Call and type(it.func) is cst.Attribute and not it.args and \
                it.func.attr.value in ("values", "items"):
            table = it.func.value
            if it.func.attr.value == "values" and type(target) is cst.Name:
                name = target.value
            elif type(target) is cst.Tuple and len(target.elements) == 2 and type(target.elements[1].value) is cst.Name:
                name = target.elements[1].value.value  # type: ignore[attr-defined]
        elif type(it) in (cst.Name, cst.Subscript) and type(target) is cst.Name:
            # (`for f in AUGMENT_FNS[p]`: a list picked from a table of lists, each entry of which may run)
            table, name = (it if type(it) is cst.Name else it.value), target.value  # type: ignore[attr-defined]
        if not name:
            return
        entries = self.bindings.table_of(table, scope.env, scope.binds.callables) if table is not None else ()
        if entries:
            scope.binds.callables[name] = entries
        elif name in scope.binds.callables:
            scope.binds.callables.pop(name, None)

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._bind_comprehension(node.for_in)

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._bind_comprehension(node.for_in)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._bind_comprehension(node.for_in)

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._bind_comprehension(node.for_in)

    def visit_For(self, node: cst.For) -> None:
        if self.func_stack:
            self._enter_loop(self.func_stack[-1], node)
        it = node.iter
        if self.func_stack and _is_self_attr(it) and self.func_stack[-1].cls is not None:
            # `for layer in self.layers:` runs the container's `__iter__` (fairseq's
            # LayerDropModuleList draws which layers run there): an edge when the project finds one
            self._passed_edge(self.func_stack[-1].qualname, f"self.{it.attr.value}.__iter__", node)  # type: ignore[attr-defined]
        if self.func_stack:
            self._note_key_names(self.func_stack[-1], node.target, it)
            self.func_stack[-1].note_bound(_names_in_target(node.target))
        inner = self._iterated(it)
        if type(inner) is cst.Call and self.qual(inner.func) == "range":
            it = inner  # `for t in reversed(range(T))`: the range's bound
        if type(it) is cst.Call and self.qual(it.func) == "range":
            rng = it
            self._fresh()
            arg_kinds = [self.kind(a.value) for a in rng.args]
            if any(k in K.VALUE_KINDS for k in arg_kinds):
                self._site("loop", node, data={"range_kinds": tuple(arg_kinds)})
                self._shape_uses((a.value for a in rng.args), "loop length", node)
            else:
                if self.func_stack and (self.func_stack[-1].cache_lengths or K.U in arg_kinds):
                    # (a bound of unknown kind: a reduction of a parameter only callers type)
                    used = set(self.values.used)
                    self._shape_uses((a.value for a in rng.args), "loop length", node)
                    self.values.used = used
                # `def decode(x, m): for t in range(m)`: a tensor bound where a caller passes one
                for req, kinds in self._variants(lambda: [self.kind(a.value) for a in rng.args]):
                    if any(k in K.VALUE_KINDS for k in kinds):
                        self._site("loop", node, data={"range_kinds": tuple(kinds)}, requires=(req,))
            literal_args = [literal(a.value) for a in it.args]
            if all(isinstance(v, int) for v in literal_args) and literal_args:
                self._site("loop", node, data={"range_kinds": tuple(arg_kinds), "static_len": len(range(*literal_args[:3]))})
            elif self.context in ("traced", "function") and any(self._reads_tensor_shape(a.value) for a in it.args):
                target = node.target.value if type(node.target) is cst.Name else ""
                stop = it.args[1 if len(it.args) > 1 else 0].value if it.args else None
                self._site("loop", node, data={"range_kinds": tuple(arg_kinds), "shape_bound": True, "target": target,
                                               "bound": stop.value if type(stop) is cst.Name else ""})
        if self.func_stack:
            rows = self._row_views(node.target, it)  # before the target's names are rebound
            self._bind_iteration(node.target, it)
            scope = self.func_stack[-1]
            for n in _names_in_target(node.target):
                scope.binds.typed.pop(n, None)
                scope.iter_names.add(n)
                scope.views.pop(n, None)
            scope.views.update(rows)
            spread = _kwargs_items(node.target, it, scope.star_kwargs)
            if spread:
                # `for k, v in values.items()` over the function's `**values`: each value is what
                # its callers pass by keywords it does not name (a symbolic input, `p:**`)
                scope.env[spread] = K.U
                scope.derived[spread] = {"p:**": IDENTITY}
                scope.symbolic = True
                if "**" not in scope.kwonly_order:
                    scope.kwonly_order.append("**")
            state = _state_items(node.target, inner if type(inner) is cst.Call else it, self.qual)
            if state:
                # `for v in self.ema.parameters(): v *= d`, `for k, v in ema.state_dict().items()`:
                # each item is the model's own tensor (an in-place update of the model in PyTorch)
                name, source = state
                scope.shared[name] = source
                scope.env[name] = K.T
            if type(node.target) is cst.Name and _is_self_attr(it):
                # `for blk in self.blocks: blk.residual(x)` calls a method of what self.blocks holds
                scope.binds.typed[node.target.value] = (f"self.{it.attr.value}",)  # type: ignore[union-attr]
                held = scope.cls.attr_binds.get(f"{it.attr.value}[]") if scope.cls is not None else None  # type: ignore[union-attr]
                if held:  # `for t in self.transforms: x = t(x)`: each callable the list holds
                    scope.binds.callables[node.target.value] = held
                else:
                    scope.binds.callables.pop(node.target.value, None)

    def _row_views(self, target: cst.BaseExpression, it: cst.BaseExpression) -> dict[str, str]:
        """Loop names bound to rows of a tensor (loop name -> the tensor's name): ``for row in
        x``, and the matching items of ``enumerate(x)`` / ``zip(xs, padded, masks)`` targets.
        A row shares storage with the tensor, so ``row[:n].copy_(t)`` fills ``padded`` in
        PyTorch (transformers' ``_pad_images_to_max_in_batch``); a port that rebinds the row
        leaves the tensor as it was (ML310)."""
        scope = self.func_stack[-1]
        if type(target) is cst.Name:
            if type(it) is cst.Name and it.value not in scope.tensor_lists and self.kind(it) in K.TENSORISH:
                return {target.value: it.value}
            return {}
        if type(it) is not cst.Call or type(target) not in (cst.Tuple, cst.List) or \
                any(type(e) is cst.StarredElement for e in target.elements):  # type: ignore[attr-defined]
            return {}
        fname = self.qual(it.func)
        els = [e.value for e in target.elements]  # type: ignore[attr-defined]
        args = [a.value for a in it.args if a.keyword is None and not a.star]
        if fname == "enumerate" and len(els) == 2 and len(args) == 1:
            return self._row_views(els[1], args[0])
        out: dict[str, str] = {}
        if fname == "zip" and len(els) == len(args):
            for el, arg in zip(els, args):
                out.update(self._row_views(el, arg))
        return out

    def _iterated(self, it: cst.BaseExpression) -> cst.BaseExpression:
        """What ``it`` iterates through wrappers that keep the elements (``reversed(range(T))``,
        ``list(sd.keys())``, ``sorted(...)``: :data:`~.values.ITER_SAME`)."""
        while type(it) is cst.Call and len(it.args) == 1 and not it.args[0].star and \
                self.qual(it.func) in ITER_SAME:
            it = it.args[0].value
        return it

    def _note_key_names(self, scope: _FuncScope, target: cst.BaseExpression, it: cst.BaseExpression) -> None:
        """Keep :attr:`_FuncScope.key_names` for a loop ``for target in it``: a name over
        ``<m>.keys()`` or the first name over ``<m>.items()`` (also through ``list``/``sorted``/
        ``tuple``) iterates a mapping's keys; any other loop unbinds its target names."""
        it = self._iterated(it)
        method = it.func.attr.value if type(it) is cst.Call and type(it.func) is cst.Attribute and not it.args else ""
        key: cst.BaseExpression | None = None
        if method == "keys":
            key = target
        elif method == "items" and type(target) is cst.Tuple and target.elements:
            key = target.elements[0].value
        for n in _names_in_target(target):
            scope.key_names.discard(n)
        if type(key) is cst.Name:
            scope.key_names.add(key.value)

    def _note_shape_names(self, scope: _FuncScope, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """Keep :attr:`_FuncScope.shape_names` for ``target = value``: ``T = x.shape[1]``,
        ``B, T, C = x.shape``, ``*batch, T, d = reward.shape``, ``b, t = x.size()[:2]`` bind
        lengths of a tensor's axes; any other value unbinds the names."""
        if type(target) is cst.Name:
            (scope.shape_names.add if self._reads_tensor_shape(value) else scope.shape_names.discard)(target.value)
            return
        if type(target) not in (cst.Tuple, cst.List):
            return
        shape = self._is_shape_value(value)
        for el in target.elements:  # type: ignore[attr-defined]
            v = el.value
            if type(v) is cst.Name:
                (scope.shape_names.add if shape else scope.shape_names.discard)(v.value)
            else:
                scope.shape_names.difference_update(_names_in_target(v))  # (`(T, D), B = ...`)

    def _is_shape_value(self, value: cst.BaseExpression) -> bool:
        """``x.shape``, ``x.size()`` of a tensor, or a slice of either (``x.shape[:2]``)."""
        if type(value) is cst.Subscript and all(type(e.slice) is cst.Slice for e in value.slice):
            value = value.value
        if type(value) is cst.Attribute and value.attr.value == "shape":
            # (an array's shape whatever the array: a parameter only callers type counts too)
            return not _is_self_attr(value.value) and self.kind(value.value) not in (K.S, K.M)
        if type(value) is cst.Call and type(value.func) is cst.Attribute and value.func.attr.value == "size" \
                and not value.args:
            return self.kind(value.func.value) in K.TENSORISH
        return False

    def _module_local_call(self, value: cst.BaseExpression) -> bool:
        """A call of a module drawn from a container (``layer(x)``, ``self.layers[i](x)``:
        :meth:`.values.ValueKinds.module_call`), or a local bound to such a call's result
        (``out = layer(x)``, PVTv2's ``outputs, h, w = out``)."""
        if not self.func_stack:
            return False
        scope = self.func_stack[-1]
        if type(value) is cst.Name:
            value = scope.last_value.get(value.value)  # type: ignore[assignment]
        return type(value) is cst.Call and self.values.module_call(value.func)

    def _method_returns_ctor(self, cls: _ClassInfo, method: str) -> str:
        """The callee (resolved) that builds what ``cls``'s method ``method`` returns when every
        ``return`` of its body returns a call of one callee (``return td.Independent(td.Normal(m,
        s), 1)``), else "". Walks only the method's statements (``if``/``else``/``with`` blocks),
        not nested functions."""
        node = cls.method_nodes.get(method)
        if node is None or type(node.body) is not cst.IndentedBlock:
            return ""
        found: set[str] = set()
        todo: list[cst.BaseStatement | cst.BaseSmallStatement] = list(node.body.body)
        while todo:
            st = todo.pop()
            t = type(st)
            if t is cst.SimpleStatementLine:
                todo.extend(st.body)  # type: ignore[attr-defined]
            elif t is cst.Return:
                v = st.value  # type: ignore[attr-defined]
                if type(v) is not cst.Call:
                    return ""
                found.add(self.qual(v.func))
            elif t in (cst.If, cst.With, cst.For, cst.While, cst.Try):
                orelse = getattr(st, "orelse", None)
                if type(orelse) is cst.If:
                    todo.append(orelse)  # `elif`: its own branches
                    orelse = None
                for block in (getattr(st, "body", None), getattr(orelse, "body", None)):
                    if type(block) is cst.IndentedBlock:
                        todo.extend(block.body)
        return found.pop() if len(found) == 1 else ""

    def _live_alias(self, stmt: cst.AugAssign, name: str) -> str:
        """The other name (or ``self`` attribute) ``name`` shares its tensor with, when the
        in-place update ``stmt`` can be seen through it: a ``self`` attribute always; a local
        only when it is a parameter (the caller's tensor), the function reads it after ``stmt``,
        or ``stmt`` sits in a loop (BEiT's
        ``loss = main_loss; loss += aux`` with ``main_loss`` never read again: nothing sees
        it). "" when ``name`` shares nothing."""
        scope = self.func_stack[-1] if self.func_stack else None
        alias = scope.shared.get(name, "") if scope is not None else ""
        if not alias or "." in alias or scope is None or scope.loops or scope.node is None or \
                alias in scope.param_order or alias in scope.kwonly_order:
            return alias  # (a parameter's tensor is the caller's: `embeddings = inputs_embeds`)
        positions = self.metadata.get(PositionProvider)
        text_after = getattr(positions, "text_after", None)
        if text_after is None:
            return alias
        after = text_after(self._lines(stmt)[1], self._lines(scope.node)[1])
        return alias if _reads(after, alias) else ""

    def _reads_tensor_shape(self, expr: cst.BaseExpression) -> bool:
        """``x.shape[1]``, ``x.size(1)``, ``len(x)`` of a tensor, possibly inside arithmetic
        (``x.shape[1] - 1``), or a name bound to one (``B, T, C = x.shape``): a length fixed
        per trace, different per input shape."""
        t = type(expr)
        if t is cst.Name:
            return bool(self.func_stack) and expr.value in self.func_stack[-1].shape_names  # type: ignore[attr-defined]
        if t is cst.BinaryOperation:
            return self._reads_tensor_shape(expr.left) or self._reads_tensor_shape(expr.right)  # type: ignore[attr-defined]
        if t is cst.Subscript and type(expr.value) is cst.Attribute and expr.value.attr.value == "shape":  # type: ignore[attr-defined]
            return self.kind(expr.value.value) in K.TENSORISH  # type: ignore[attr-defined]
        if t is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value == "size" and expr.args:  # type: ignore[attr-defined]
            return self.kind(expr.func.value) in K.TENSORISH  # type: ignore[attr-defined]
        if t is cst.Call and type(expr.func) is cst.Name and expr.func.value == "len" and expr.args:  # type: ignore[attr-defined]
            arg = expr.args[0].value  # type: ignore[attr-defined]
            if _fixed_piece_count(arg, self.qual):
                return False  # `len(x.chunk(3))`: three pieces whatever the shape
            if type(arg) is cst.Name and self.func_stack:
                scope = self.func_stack[-1]
                bound = scope.last_value.get(arg.value)
                if bound is not None and _fixed_piece_count(bound, self.qual):
                    return False
                if arg.value in scope.iter_names:
                    return False  # `for i2 in rand_attn: len(i2)`: the element's kind is a guess
                if arg.value in scope.params and self._annotation_kind(scope.param_meta[arg.value][0]) not in K.TENSORISH:
                    return False  # `len(hids)` of an unannotated parameter: a list as often as a tensor
            return self.kind(arg) in K.TENSORISH
        return False

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if self.func_stack:
            self.func_stack[-1].note_bound(_names_in_target(node.target))  # `(T := n)`

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            if item.asname is not None and self.func_stack:
                self.func_stack[-1].note_bound(_names_in_target(item.asname.name))
            call = item.item
            fn = call.func if type(call) is cst.Call else call
            if self.qual(fn) in ("torch.no_grad", "torch.inference_mode") and self.func_stack:
                self.func_stack[-1].no_grad += 1
                self.plain_no_grad.add(id(call))
            elif self.func_stack:
                # `with Profile(): ...`, `with self.timer:`: the context manager's `__enter__` and
                # `__exit__` run here (an edge where the project defines them)
                scope = self.func_stack[-1]
                for owner in self._context_manager_classes(call, scope):
                    self._passed_edge(scope.qualname, f"{owner}.__enter__", call)
                    self._passed_edge(scope.qualname, f"{owner}.__exit__", call)
            if item.asname is not None and self.func_stack:
                for n in _names_in_target(item.asname.name):
                    self.func_stack[-1].env[n] = K.U
                    self.func_stack[-1].derived.pop(n, None)
                    self.func_stack[-1].assumed.pop(n, None)

    def leave_With(self, original_node: cst.With) -> None:
        for item in original_node.items:
            call = item.item
            fn = call.func if type(call) is cst.Call else call
            if self.qual(fn) in ("torch.no_grad", "torch.inference_mode") and self.func_stack:
                self.func_stack[-1].no_grad -= 1

    def visit_Try(self, node: cst.Try) -> None:
        self.try_stack.append(self.func_stack[-1].tensor_ops if self.func_stack else 0)
        if any(h.type is None or _dotted(h.type).rsplit(".", 1)[-1] in _IMPORT_ERRORS for h in node.handlers) or \
                any(type(h.type) is cst.Tuple and any(_dotted(e.value).rsplit(".", 1)[-1] in _IMPORT_ERRORS
                                                     for e in h.type.elements) for h in node.handlers):
            self.bindings.guard_depth += 1
            self.guard_tries.add(id(node))

    def leave_Try(self, original_node: cst.Try) -> None:
        if id(original_node) in self.guard_tries:
            self.bindings.guard_depth -= 1
        before = self.try_stack.pop()
        if self.func_stack and self.func_stack[-1].tensor_ops > before:
            caught = tuple(sorted(self.qual(h.type) or "?" for h in original_node.handlers if h.type is not None))
            self._site("try", original_node, data={
                "caught": caught, "bare": any(h.type is None for h in original_node.handlers),
                "handlers": len(original_node.handlers),
                "error_only": bool(original_node.handlers) and all(id(h) in self.error_handlers
                                                                  for h in original_node.handlers)})

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        summary = self.func_stack[-1].summary if self.func_stack else None
        if summary is not None and summary.in_loop():
            summary.enter_handler()
        if _always_raises(node):
            self.error_handlers.add(id(node))
            self.error_only += 1

    def leave_ExceptHandler(self, original_node: cst.ExceptHandler) -> None:
        summary = self.func_stack[-1].summary if self.func_stack else None
        if summary is not None and summary.in_loop():
            summary.leave_handler()
        if id(original_node) in self.error_handlers:
            self.error_only -= 1

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is cst.Name and self.func_stack and self.func_stack[-1].method_aliases:
            scope0 = self.func_stack[-1]
            alias = scope0.method_aliases.get(func.value)
            if alias is not None and func.value not in scope0.binds.callables:
                # `uniform(x.shape)` with `uniform = Uniform(lo, hi).rsample`: the method's call
                func = self._aliased_calls[id(node)] = alias
        self.called_funcs.add(id(func))
        if type(func) is cst.Subscript and self.func_stack and _is_kernel_launch(func, self.qual, self.jit_kernels):
            self.kernel_launchers.add(self.func_stack[-1].qualname)
            if not (len(func.slice) == 1 and type(func.slice[0].slice) is cst.Index and type(
                    func.slice[0].slice.value) in (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
                # (not `kernel[f"{kind}"](size)`: a table of builders read by key)
                self._site("kernel-launch", node, name=self.qual(func.value) or _dotted(func.value))
        if type(func) is cst.Subscript and self.func_stack and _is_self_attr(func.value) and \
                self.func_stack[-1].cls is not None:
            # `self.observers["input"](x)`: an entry's `__call__` (an edge where the project finds
            # the instances the container holds and their class defines it)
            self._passed_edge(self.func_stack[-1].qualname, f"self.{func.value.attr.value}.__call__", node)
        name = self.qual(func)
        method = func.attr.value if type(func) is cst.Attribute else ""
        if "mask" in (method or name.rsplit(".", 1)[-1]) and "training" in self.attribute_interest:
            for a in node.args:
                if a.keyword is not None and a.keyword.value == "is_training" and type(a.value) is cst.Attribute \
                        and a.value.attr.value == "training" and type(a.value.value) is cst.Name \
                        and a.value.value.value == "self":
                    # `_ignore_causal_mask_sdpa(..., is_training=self.training)`: whether PyTorch may
                    # drop the causal mask, the same numbers either way
                    self.mode_glue.add(id(a.value))
        if method and self.func_stack:
            drawn = self._rng_draw(func, method)
            if drawn:
                name = drawn  # `self._rng.randint(0, 8)`: `random.randint`, a draw of Python's RNG
        if method and method[:2] != "__" and self.func_stack and type(func.value) is cst.Call \
                and type(func.value.func) is cst.Name and func.value.func.value == "super":
            # `super().reduce(x, index)`: a call of the base's method the graph does not resolve;
            # its arguments are not listed (`interproc._Solver._omitted` takes the method as
            # called without its optional parameters)
            key = (f"super().{method}", (), (), True)
            if key not in self.func_stack[-1].static_flows:
                self.func_stack[-1].static_flows.add(key)
                self.func_stack[-1].call_flows.append(CallFlow(f"super().{method}", spread=True))
        if name == "torch.nn.Sequential":
            self._flatten_layers_after_conv(node)
        if type(func) is cst.Name and self.func_stack:
            order = self.func_stack[-1].param_order
            if order and func.value == order[0]:
                passed = _forwards(node, self.func_stack[-1])
                if passed is not None:
                    self.func_stack[-1].forwards |= passed
        if self.func_stack and (name == "setattr" or method == "__setattr__"):
            written = _setattr_target(node, name)
            if written is not None:  # `setattr(self, "mask", m)`: the write `self.mask = m` spelled as a call
                target, value = written
                self._fresh()
                vkind = self.kind(value)
                self._assign_target(target, vkind, node, value, self._derived(lambda: self.kind(value)))
        self._fresh()
        parts = self._call_parts(node, name)
        receiver = parts.receiver
        args: list[tuple[str, Any]] = []
        kwargs: dict[str, tuple[str, Any]] = {}
        star = False
        kwsplat = False  # a `**kw` splat (a `*args` one cannot pass a keyword-only argument)
        for a in node.args:
            if a.star:
                star = True
                if a.star == "**":
                    kwsplat = True
                    break
        for keyword, _, k, lit, _ in parts.entries:
            if keyword is not None:
                kwargs[keyword] = (k, lit)
            else:
                args.append((k, lit))
        if kwsplat and self.func_stack and self.func_stack[-1].dict_kinds:
            # `kw = dict(pretrained=True, features_only=True); timm.create_model(name, **kw)`: the
            # local dict's known entries are keywords of the call (the splat stays: it may hold more).
            # Not the factory keywords `device`/`dtype`: timm spreads `dd = dict(device=device,
            # dtype=dtype)` into every layer it builds, which a port drops with the argument
            entries = self.func_stack[-1].dict_kinds
            for a in node.args:
                if a.star == "**" and type(a.value) is cst.Name and a.value.value in entries:
                    for key, v in entries[a.value.value].items():
                        if key not in kwargs and key not in ("device", "dtype"):
                            kwargs[key] = (self.kind(v), literal(v))
        if name in _EXTENSION_BUILDERS:
            declared = kwargs.get("name") or (args[0] if args else None)
            if declared is not None and type(declared[1]) is str and declared[1]:
                self.extension_modules.append(declared[1])
        elif method and "." in name and self.func_stack and self.func_stack[-1].cls is not None and \
                self.func_stack[-1].cls.is_autograd_function and self.func_stack[-1].name in ("forward", "backward"):
            top = name.split(".", 1)[0]
            if top not in self.extension_modules and _COMPILED_NAME.search(top) and not self.bindings.is_project(name) \
                    and type(func.value) is cst.Name and self.bindings.aliases.get(func.value.value) == top:
                # `import MultiScaleDeformableAttention as MSDA` and `MSDA.ms_deform_attn_forward(...)`
                # in an autograd.Function's forward: a compiled extension the tree builds elsewhere
                # (a CamelCase or `_C`/`_ext`/`_cuda` module name is no Python package's)
                self.extension_modules.append(top)
        if name == "map" and len(node.args) >= 2 and type(node.args[0].value) is cst.Lambda and \
                not any(a.star or a.keyword is not None for a in node.args):
            self.map_lambdas[id(node.args[0].value)] = [a.value for a in node.args[1:]]
        bound_partial = self.bindings.partial_of(func, self.func_stack[-1].binds if self.func_stack else None) \
            or self._attr_partial(func)
        if bound_partial is not None:  # `norm = partial(nn.LayerNorm, eps=1e-6)`; `norm(d)` is `nn.LayerNorm(d, eps=1e-6)`
            before: list[tuple[str, Any]] = []
            for a in bound_partial.args[1:]:
                if a.star:
                    star = True
                    kwsplat = kwsplat or a.star == "**"
                elif a.keyword is not None:
                    kwargs.setdefault(a.keyword.value, (self.kind(a.value), literal(a.value)))
                else:
                    before.append((self.kind(a.value), literal(a.value)))
            args[:0] = before
        scope = self.func_stack[-1] if self.func_stack else None
        if scope is not None and scope.summary is not None and (
                name.startswith("matplotlib.") or (method in _AXES_METHODS and not name.startswith("torch."))
                or name in _IMAGE_WRITERS):
            # a figure drawn or an image file written (timm's `_debug_dump_patches` saving JPGs):
            # host code (summaries' ``plotting`` role)
            scope.summary.plots += 1
        result_kind = parts.result
        call_used = self.values.used
        if scope is not None and node.args and (
                name in K.SHAPE_FUNCS or (method in K.SHAPE_METHODS and receiver in K.TENSORISH)):
            # (`torch.full(size, fill_value)`: the fill value sets no shape)
            sized = node.args[:1] if name == "torch.full" or method == "new_full" else node.args
            self._shape_uses((a.value for a in sized if a.keyword is None or a.keyword.value != "fill_value"),
                             "shape", node)
        elif scope is not None and node.args and method in K.SHAPE_METHODS and receiver == K.U:
            # `hidden.new_zeros(b, total)` in a helper whose `hidden` only callers type: a
            # host read (or a reduction) set as the size is one whatever the receiver
            self._shape_uses((a.value for a in node.args), "shape", node, caches=False)
        if scope is not None and (result_kind in K.TENSORISH or receiver in K.TENSORISH or (
                # a torch call on settings (`torch.get_autocast_dtype(device)`) is host code
                name.startswith("torch.") and (result_kind != K.S or any(
                    a[0] in K.TENSORISH for a in (*args, *kwargs.values()))))):
            scope.tensor_ops += 1
        # Extras most matchers never read are computed on first read (LazyData, _CallExtras):
        # matchers run inside emit, before the visitor moves on, so the scope is unchanged.
        extras = _CallExtras(self, node, name, method, scope)
        data = LazyData({
            "args": tuple(args), "kwargs": kwargs, "star": star, "kwsplat": kwsplat,
            "no_grad": self._no_grad(), "result": result_kind,
            "local_autograd_function": False, "plain_no_grad": id(node) in self.plain_no_grad,
        }, extras, _CALL_EXTRAS)
        if self.grow_calls and id(node) in self.grow_calls:
            data["grows"] = self.grow_calls[id(node)]
        if method == "apply" and type(func) is cst.Attribute:
            recv_name = self.qual(func.value)
            leaf = recv_name.rsplit(".", 1)[-1]
            local = self.local_classes.get(leaf)
            data["local_autograd_function"] = bool(local and local.is_autograd_function and local.qualname == recv_name)
            # (a class imported from the project is the graph's to check: `_Resolver.applied`
            # joins the call with the class, which may be no autograd.Function at all)
            data["imported_class"] = bool(recv_name and leaf[:1].isupper() and not recv_name.startswith(("self.", "torch.")) and local is None
                                          and not self.bindings.is_project(recv_name))
        if name and not name.startswith("self.") and (
                (scope is None and (self.main_blocks or not self.class_stack)) or self.param_defaults):
            # (a call in a parameter's default runs once, where the `def` runs: import time)
            # `if __name__ == "__main__": test()`, and what module-level code calls at import
            # (`device = get_free_device()` in a demo script): host code
            self.host_entries.append(name)
        if scope is not None:
            if name == scope.qualname or (name == f"self.{scope.name}" and scope.cls is not None):
                data["recursive"] = True
                data["structural"] = scope.type_tests > 0 or _descends(node, scope, self._kind_aside)
            callee = name or (f"{self.qual(func.value)}.{method}" if method and self.qual(func.value) else "") or \
                _self_lookup_prefix(func) or self._closure_def(func)
            # (`dynamic_frequency_update(self, ids)` from a decorator's `wrapper`: a function the
            # enclosing function defines, called from a sibling closure)
            untyped = not callee and bool(method) and type(func.value) is cst.Name and \
                func.value.value in scope.env and func.value.value not in ("self", "cls") and \
                method not in K.COMMON_METHODS and receiver == K.U
            if untyped:
                # `src_mesh.offset_verts(d)` on an object of unknown class (a training step's
                # argument): the project may resolve it by the method's name alone
                callee = f"{func.value.value}.{method}"
            if callee and type(func) is cst.Name and func.value in scope.binds.callables and \
                    is_class_like(callee) and self._picked_from_table(func, scope):
                # `norm_cls = NORMS[norm_type]; norm_cls(dim)`: one entry the config picks (matched
                # at the call, as `NORMS[norm_type](dim)` is): no edge to the first entry alone
                callee = ""
            if callee:
                key = f"{scope.cls.qualname}.{callee[5:]}" if callee.startswith("self.") and scope.cls is not None \
                    else callee
                self.gated_callees[key] = self.gated_callees.get(key, True) and self.kernel_gate > 0
            if callee and not self.export_only and not self.param_defaults and (scope.qualname, callee) not in self._call_seen:
                # one fact per (caller, callee): the first call site is the evidence; computing
                # a position for every repeated call costs more than the rest of the walk
                self._call_seen.add((scope.qualname, callee))
                self.calls.append(CallFact(caller=scope.qualname, callee=callee, line=self._line(node), untyped=untyped))
            # Composition: constructors called inside a module's init code (layers built in loops,
            # nn.Sequential / nn.ModuleList contents, helper lists) become submodule edges.
            if scope.init_like and scope.cls is not None and scope.cls.composes and name:
                leaf = name.rsplit(".", 1)[-1]
                if name in _CONTAINER_CTORS and id(node) in self.ctor_attr:
                    self._container_contents(node, self.ctor_attr[id(node)])
                elif leaf[:1].isupper() and name not in _CONTAINER_CTORS and self._is_class_name(name) and \
                        callee:  # (a class picked from a table by a setting builds none assumed)
                    attr = self.ctor_attr.get(id(node), "[]")
                    self.submodules.append(SubmoduleFact(owner=scope.cls.qualname, attr=attr, target=name, line=self._line(node)))
                    if attr != "[]":
                        scope.cls.layer_ctors.setdefault(attr, []).append((name, dict(data)))
                elif _FACTORY_METHOD.match(leaf) and "." in name and not name.startswith("torch."):
                    # `TopKRouter.from_config(cfg)`: a classmethod factory builds its class
                    built = name.rsplit(".", 1)[0]
                    if built.rsplit(".", 1)[-1][:1].isupper() and self._is_class_name(built):
                        attr = self.ctor_attr.get(id(node), "[]")
                        self.submodules.append(SubmoduleFact(owner=scope.cls.qualname, attr=attr, target=built,
                                                             line=self._line(node)))
            # Hook callbacks run inside forward: they are traced entries, except a one-shot
            # hook (lazy shape inference) that removes its own handle on its first run, and
            # hooks of saving and loading (`register_load_state_dict_post_hook`,
            # `_register_state_dict_hook`): they run when weights are read or written, not per step.
            if method.startswith(("register_", "_register_")) and method.endswith("hook") \
                    and "state_dict" not in method and "load" not in method:
                handle = self.ctor_attr.get(id(node), "")
                temporary = not scope.init_like and _removes_hooks(scope.node)
                if temporary:
                    data["probe_hook"] = True
                if node.args and not node.args[0].star and self._hook_replaces(node.args[0].value, scope):
                    data["replacing_hook"] = True  # its return value replaces the output, input or gradient
                for a in node.args:
                    cb = self.qual(a.value) or self._closure_def(a.value) or self._made_hook(a.value, scope)
                    if cb and not cb.startswith("self.") and temporary:
                        # registered and removed in one function (a probe: run the model, read
                        # the activations, `h.remove()`): the callback runs where that function
                        # runs, traced in a forward, host code in an analysis script
                        self._passed_edge(scope.qualname, cb, node)
                    elif cb and not cb.startswith("self."):
                        self.traced_entries.append(cb)
                    elif cb.count(".") == 2 and scope.cls is not None and cb.split(".")[1] in scope.cls.attr_ctor:
                        # `register_forward_hook(self.store.hook)` with `self.store = FeatureStore()`:
                        # the method of the object's class runs inside forward
                        held, _, meth = cb[5:].partition(".")
                        self.traced_entries.append(f"{scope.cls.attr_ctor[held]}.{meth}")
                    elif cb.startswith("self.") and scope.cls is not None:
                        if handle and _removes_handle(scope.cls.method_nodes.get(cb[5:]), handle):
                            data["one_shot_hook"] = True
                        else:
                            self.traced_entries.append(f"{scope.cls.qualname}.{cb[5:]}")
            if method in ("append", "extend", "insert") and scope.init_like and scope.cls is not None and node.args \
                    and type(func) is cst.Attribute and _is_self_attr(func.value) and \
                    scope.cls.attr_kinds.get(func.value.attr.value, K.S) in (K.S, K.U) and \
                    self._kind_aside(node.args[-1].value) in K.TENSORISH:
                # `self.key_cache.append(torch.zeros(shape))` in init code: a list of tensors (a
                # static KV cache's layers), whose items traced code writes in place (the list
                # itself stays a Python list: `self.key_cache[i] = t` replaces an item)
                scope.cls.tensor_lists.add(func.value.attr.value)
            if method in ("register_buffer", "register_parameter") and scope.cls is not None and len(node.args) > 1 \
                    and type(node.args[1].value) is cst.Name and node.args[1].value.value == "None" \
                    and type(node.args[0].value) is cst.SimpleString:
                # `self.register_parameter("weight", None)`: the attribute reads None
                scope.cls.none_attrs.add(str(node.args[0].value.evaluated_value))
            if method == "register_buffer" and scope.cls is not None and type(func) is cst.Attribute \
                    and type(func.value) is cst.Name and func.value.value == "self" and args:
                buf = args[0][1]
                if isinstance(buf, str):
                    scope.cls.buffers.add(buf)
                    if scope.cls.attr_kinds.get(buf) != K.T:
                        parts.stale = True  # `self.<buf>` in this call's parts may change kind
                    scope.cls.attr_kinds[buf] = K.T
                    if scope.memo_filler:  # (init-named or not: its reachability decides the context)
                        # `self.register_buffer("cos_cached", emb.cos())` in the method a memo-keyed
                        # `if` calls: the table's fill (ML717), not a new state variable (ML705)
                        self._site("self-write", node, name=buf, data={
                            "how": "assign", "value": K.T, "aug": False, "memo": True, "is_buffer": True,
                            "attr_kind": K.T})
            if scope.init_like and scope.cls is not None and (
                    name.startswith(("torch.nn.Conv", "torch.nn.LazyConv"))):
                scope.cls.has_conv = True
            data["class_has_conv"] = bool(scope.cls and scope.cls.has_conv)
            for a in node.args:
                if a.keyword is not None and a.keyword.value == "out" and _is_self_attr(_storage_of(a.value)):
                    # `torch.cat(..., out=self.running_mean)`: the buffer updated in place
                    self._state_write(node, a.value, "inplace", K.T)
            if type(func) is cst.Attribute:
                root = func.value
                if method in _MUTATING_CONTAINER_METHODS:
                    if method in ("append", "insert", "extend") and _is_self_attr(root) and scope.cls is not None \
                            and node.args and not (scope.init_like and scope.cls.is_module):
                        last = node.args[-1].value
                        self._held_items(scope.cls, root.attr.value,  # type: ignore[union-attr]
                                         [e.value for e in last.elements] if method == "extend" and  # type: ignore[union-attr]
                                         type(last) in (cst.List, cst.Tuple) else [last])
                    if _is_self_attr(root) and scope.cls is not None and \
                            scope.cls.attr_kinds.get(root.attr.value) != K.M and \
                            root.attr.value not in scope.cls.held and not (  # type: ignore[union-attr]
                                method == "update" and root.attr.value in scope.cls.param_slots):  # type: ignore[union-attr]
                        self._state_write(node, root, "container", result_kind)
                    elif type(root) is cst.Subscript and _is_self_attr(root.value) and scope.cls is not None and \
                            scope.cls.attr_kinds.get(root.value.attr.value) != K.M and \
                            root.value.attr.value not in scope.cls.held:  # type: ignore[union-attr]
                        # `self.step_store[key].append(attn)`: a list held in a dict on self
                        self._state_write(node, root.value, "container", result_kind)
                    elif type(root) is cst.Name and self._is_outer_container(root.value):
                        self._site("global-write", node, name=root.value, data={"how": "container", "method": method})
                    elif type(root) is cst.Name and method in ("update", "reset", "reorder_cache") and \
                            root.value in scope.state_views and not scope.init_like:
                        # `curr = past_key_values.cross_attention_cache` then `curr.update(k, v, i)`:
                        # the caller's decoding cache, reached through a part of it (BART's attention)
                        self._site("argument-write", node, name=f"{root.value}.{method}(...)",
                                   data={"how": "argument", "method": method})
                    elif type(root) is cst.Name and method in _STATE_METHODS and not (
                            # `weight = batch.pop("weight", 1.0)`: an optional field read with its
                            # default; that the caller keeps the key changes nothing it reads
                            method == "pop" and len(node.args) == 2 and not any(a.star for a in node.args)) and (
                            root.value in scope.params or root.value in scope.binds.instances) and \
                            (scope.env.get(root.value) != K.S or (_STATE_NAME.search(root.value) is not None and
                                                                  self._mutable_container_param(scope, root.value))):
                        # the caller's object (a KV cache, a list it reads back) mutated in place
                        # (a parameter: unless every caller passes a container it built in that
                        # call, `feats = []; collect(feats, x)`, trace-time Python: o:<param>=X)
                        self._site("argument-write", node, name=f"{root.value}.{method}(...)",
                                   data={"how": "argument" if root.value in scope.params else "built", "method": method},
                                   requires=(f"o:{root.value}=X",) if root.value in scope.params else ())
                    if type(root) is cst.Name and method in ("append", "extend", "insert") and node.args and \
                            self._holds_tensors(node.args[-1].value, item=method != "extend"):
                        scope.tensor_lists.add(root.value)  # `pyramid.append(corr)`
                elif _is_inplace_method(method) and receiver in (K.T, K.B, K.U):
                    self._state_write(node, root, "inplace", receiver)
                    self._view_write(node, root)
                    self._arg_write(node, root, f".{method}()")
            if scope.loops and name:
                summary = scope.summary
                summary.loop_call(name, self._lines(node)[0] if summary.ended() else 0)  # type: ignore[union-attr]
            recv = func.value if type(func) is cst.Attribute else None
            # (`model.m(...)`, `self.model.m(...)`: only then is the receiver's text worth building)
            model_use = recv is not None and (
                (type(recv) is cst.Name and recv.value == "model") or
                (type(recv) is cst.Attribute and recv.attr.value == "model")) and is_model_use(method, _dotted(recv))
            if scope.summary is not None and (method in _ROLE_METHODS or name == "torch.autograd.backward" or (
                    scope.loops and (type(func) is cst.Name or method == "update")) or model_use):
                first = next((a.value for a in node.args if a.keyword is None and not a.star), None)
                ends = scope.summary.call(name or _dotted(func), method, _dotted(recv) if recv is not None else "",
                                          scope.loops > 0, _dotted(first) if first is not None else "")
                if ends:  # a backward()/step() in a loop: the training step ends here so far
                    scope.summary.step_end(ends, self._lines(node)[1])
            if scope.loops and scope.context != "traced":
                self._loop_callee(scope, func, name)
                if scope.summary is not None and scope.cls is not None and scope.cls.is_module and \
                        _is_self_attr(func) and (
                            scope.cls.attr_kinds.get(func.attr.value) == K.M or  # type: ignore[union-attr]
                            func.attr.value in scope.cls.method_nodes):  # type: ignore[union-attr]
                    # `for t in timesteps: x = self.p_sample(x, t)` / `self.net(x, sigma)` in a sampler:
                    # a decoding loop over the model, held under any name (weak: forward's reach wins)
                    scope.summary.sampling_call()
        if scope is not None and scope.cls is not None and scope.cls.layer_ctors and not scope.init_like and \
                type(func) is cst.Attribute and _is_self_attr(func):
            # `self.attn_drop(attn)` in forward: where the layer built in init runs (its draw, its
            # mode switch), a site of its constructor with the constructor's arguments
            for ctor, cdata in scope.cls.layer_ctors.get(func.attr.value, ()):  # type: ignore[union-attr]
                self._site("layer-call", node, name=ctor, data=cdata)
        emitted = not self._is_bound_torch_class(func, name)
        if emitted:
            requires: tuple[str, ...] = ()
            if name in _HOST_CASTS and len(node.args) == 1 and scope is not None and scope.assumed:
                # `int(h // 16)` in a module helper whose `h` is a tensor by the module-method
                # assumption alone: a host read only if some caller passes a tensor (a shape int
                # from `B, C, H, W = x.shape` is proven static: interproc.static_inputs)
                self._fresh()
                arg = node.args[0].value
                if self.kind(arg) in K.TENSORISH and self.values.assumed_read:
                    requires = self._assumed_requirements(arg) or ()
            self._site("call", node, name=name, method=method, receiver=receiver, data=data, requires=requires)
            big = [a.keyword.value if a.keyword is not None else str(i) for i, a in enumerate(node.args)
                   if type(a.value) in _MAYBE_INT_CONSTANT and (type(a.value) is not cst.Attribute or
                                                                a.value.attr.value in ("max", "min"))
                   and _int64_constant(a.value, self.qual)]
            if big:  # `torch.randint(2**32, ...)`: ML927's own site kind, so other calls cost nothing
                self._site("int64-arg", node, name=name, method=method, receiver=receiver,
                           data={"int64_args": tuple(big)})
            if self.ctor_bases and name in self.ctor_bases:
                self._subclass_ctor(node, name, data)
        if not name and type(func) is cst.Call and type(func.func) is cst.Name and func.func.value == "getattr" \
                and self.members and self.probe is not None:
            self._dynamic_member(node, func, data)
        if name in BUILDERS or (method == "build" and name[:-6] in LIBRARY_REGISTRIES):
            self._library_builder(node, name, data, extras)
        if name and (self.bindings.guarded or self.bindings.project_names):
            bound = type(func) is cst.Name and scope is not None and func.value in scope.binds.callables
            if bound:
                candidates = scope.binds.callables[func.value]  # type: ignore[union-attr]
            else:
                candidates = self.bindings.alts.get(func.value, (name,)) if type(func) is cst.Name else (name,)
            for c in candidates:
                guarded = self.bindings.guarded_import(c)
                if guarded and not self.bindings.is_own_package(guarded):
                    # `f(q, k, v)` with `try: from flash_attn import f`: the use of the optional library
                    self._site("import", node, name=guarded, data={"level": 0, "call": True, "optional": True})
                    if scope is not None:
                        scope.kernel_use = True
                if self.bindings.is_project(c):  # matched by the project graph (aliases across files)
                    self._project_call(node, c, method, data, bound)
        if scope is not None and name:
            if name.startswith("torch.") and len(self.func_stack) == 1 and (not self.class_stack or (
                    len(self.class_stack) == 1 and scope.name == "__init__" and scope.cls is not None)):
                # (a class whose constructor hands its parameters on to a torch constructor:
                # ultralytics' `Conv(c1, c2, k, s)` building `nn.Conv2d(c1, c2, k, s, autopad(k, p))`)
                self._note_wrapper(node, scope, name)
            elif self.library_wrappers and name in self.library_wrappers:
                # a wrapper defined earlier in this file: the graph matches the call as each library
                # call the wrapper makes with these literals (migrate_lens/wrappers.py), as it does
                # for another file's wrappers
                self._project_call(node, name, "", data)
        if scope is not None:
            self._bound_calls(node, scope, name, method, receiver, data)
            self._injected_args(node, scope, name)
            self._callable_args(node, scope, name)
        if call_used and scope is not None:
            if emitted and self.variant_interest is not None and not self.variant_interest(name, method, kwargs):
                self.values.used = call_used  # (as _call_variants leaves it)
            else:
                self._call_variants(node, name, method, (receiver, tuple(args), kwargs, result_kind), call_used, data,
                                    extras, parts)
        if scope is not None and _is_project_callee(name) and not self.export_only and not self.param_defaults:
            # (a call in a branch only PyTorch's exporters run passes nothing a port runs)
            if not (name[:5] == "self." and "." not in name[5:] and scope.cls is not None and scope.cls.is_module):
                # a function, a method of an object the caller holds (`meter.add(loss)`,
                # `self.tokenizer.encode_batch(ids)`: the graph resolves it through the object's
                # class), or a method of a plain class: its parameters get the kinds passed here;
                # `self.<m>(...)` and a submodule's method (`self.quantizer.encode(x, bandwidth)`)
                # also record whether each argument is static (flag parameters, interproc.static_inputs)
                own = name[:5] == "self."
                # (argument kinds also for a method of what looks like a submodule: `self.s = Sched()`
                # built from an imported class may be a plain object whose method takes the kinds
                # passed (diffusers' `self.scheduler.step(noise_pred, t, latents)`); a method of a
                # class the project finds to be an nn.Module reads its own `a:` assumption instead)
                self._call_flow(scope, node, name, statics=own and (
                    "." not in name[5:] or (name.count(".") >= 2 and _may_be_method(scope.cls, name))))
            elif name[5:] in scope.cls.static_methods:
                # a staticmethod takes no tensors by assumption: `self.get_reference_points(
                # spatial_shapes, ...)` passes the kinds its parameters get, a module method's
                # optional parameter (`spatial_shapes=None` in forward) as the tensor it is assumed
                self._call_flow(scope, node, name, optional_kinds=True)
            elif name[5:] in scope.cls.methods:
                # methods of nn.Modules take tensors by assumption: no argument kinds to
                # record, only what the caller still holds and keeps of the result (an
                # in-place update of `self._update(self.stats, x)` that a port loses: ML315);
                # whether each argument is static (a flag the callee would take for a tensor)
                self._call_flow(scope, node, name, kinds=False, statics=True)
            elif name[5:] in scope.cls.attr_binds:
                # a callable stored on the module (`self.crit = focal_loss`, `self.attend = partial(
                # helper, ...)`): a project function there gets the kinds passed. Argument kinds
                # only: what it writes into its input is an in-place op where it happens
                self._call_flow(scope, node, name, held_args=False)
            elif name[5:] not in scope.cls.attr_kinds:
                # a method a base class defines (in another file): static descriptors only
                self._call_flow(scope, node, name, kinds=False, statics=True)
            elif scope.cls.attr_kinds.get(name[5:]) == K.M and (len(node.args) > 1 or any(
                    a.keyword is not None for a in node.args)) and not any(a.star for a in node.args):
                # `self.aggr_module(x, index, dim_size=dim_size)`: which of the submodule's optional
                # parameters it gives, and which may be None (`interproc._Solver._omitted`); no
                # argument kinds, no static descriptor (a submodule's forward takes tensors)
                # (argument kinds too: a forward parameter named like a size, `length`, takes a
                # tensor where the caller passes one, `_bind_params`)
                positional = sum(1 for a in node.args if a.keyword is None)
                scope.call_flows.append(CallFlow(
                    name, tuple(self._flow(a.value) for a in node.args if a.keyword is None),
                    tuple(a.keyword.value for a in node.args if a.keyword is not None),
                    tuple(self._flow(a.value) for a in node.args if a.keyword is not None),
                    static=("",) * positional,
                    static_kw=tuple((a.keyword.value, "") for a in node.args if a.keyword is not None),
                    nones=_none_args(node, scope)))
        elif scope is not None and not name and method and type(func) is cst.Attribute and \
                type(func.value) is cst.Name and (func.value.value in scope.binds.instances or
                                                  func.value.value in scope.binds.typed):
            # a method of an object a local or an annotated parameter holds (`tracker.step(loss)`
            # with `tracker: Tracker`, `m = Meter(); m.add(x)`): the class's method gets the kinds
            held = scope.binds.instances.get(func.value.value) or scope.binds.typed[func.value.value]
            for c in held:
                if "." in c and not c.startswith(_NOT_PROJECT):
                    self._call_flow(scope, node, f"{c}.{method}")

    def _bound_calls(self, node: cst.Call, scope: _FuncScope, name: str, method: str, receiver: str,
                     data: Any) -> None:
        """A call of a name bound to several callables (``wrap(conv)`` with ``wrap = weight_norm
        if wn else spectral_norm``) or of a ``self`` attribute bound to one (``self.act(x)``
        with ``self.act = F.gelu``) is a call of each: a call site, a call fact and, in init
        code, a composition edge per alternative. A call of a constructor parameter in init
        code (``block(dim)``, ``norm_layer(dim)``) is an injection slot."""
        func = node.func
        on_instance = False
        registry_pick = False
        if name.startswith("self.") and not (type(func) is cst.Name and func.value in scope.binds.callables):
            bound = scope.cls.attr_binds.get(name[5:], ()) if scope.cls is not None else ()
        elif type(func) is cst.Attribute and type(func.value) is cst.Name and (
                func.value.value in scope.binds.instances or func.value.value in scope.binds.typed):
            # `cache.update(...)` with `cache = DynamicCache()` or `cache: Cache` (parameter annotation)
            held = scope.binds.instances.get(func.value.value) or scope.binds.typed[func.value.value]
            bound = tuple(f"{c}.{method}" for c in held)
            on_instance = True  # call facts for the graph; the object's construction is the use site
        elif type(func) is cst.Attribute and type(func.value) is cst.Call and is_class_like(
                ctor := self.qual(func.value.func)) and self._is_class_name(ctor) and not ctor.startswith("torch."):
            # `DecodingTask(model, options).run(mel)`: a method of the instance just built
            bound = (f"{ctor}.{method}",)
            on_instance = True
        elif type(func) is cst.Name and func.value in scope.binds.instances:
            # `clip = Clip(); clip(y)`: the call runs the object's `__call__`
            bound = tuple(f"{c}.__call__" for c in scope.binds.instances[func.value] if not c.startswith("torch."))
            on_instance = True
        elif type(func) is cst.Subscript:
            # `self.pool_fns[self.mode](h, mask)`, `ACTS[name](x)`: a call of each entry
            bound = self._targets(func)
        elif method == "build" and type(func.value) is cst.Name and \
                (built := self._registry_build(node, func.value, scope))[0]:  # type: ignore[attr-defined]
            # `MODELS.build(dict(type="DropBlock", ...))` of a registry object: the class registered
            # under that type (every registered class for a config passed in: one the config picks)
            bound, registry_pick = built
        elif type(func) is cst.Name or (type(func) is cst.Attribute and type(func.value) is cst.Name):
            bound = self.bindings.resolve_all(func, scope.env, scope.binds.callables)
            if type(func) is cst.Name and scope.cls is not None and scope.cls.attr_binds and \
                    any(b.startswith("self.") and b[5:] in scope.cls.attr_binds for b in bound):
                # `attn_fn = linear_attention if not self.causal else self.causal_fn` with
                # `self.causal_fn = partial(causal_attention)` in init: what the attribute holds
                bound = tuple(dict.fromkeys(t for b in bound for t in (
                    scope.cls.attr_binds[b[5:]] if b.startswith("self.") and b[5:] in scope.cls.attr_binds else (b,))))
            if not bound and type(func) is cst.Attribute and func.value.value in scope.params and (
                    func.value.value in scope.binds.optional or scope.env.get(func.value.value) == K.U) and \
                    method not in K.TORCH_ONLY_METHODS and method not in K.STATIC_METHODS and not method.startswith("__"):
                # a method of an object passed in (class unknown here): joined by the project graph
                # with the classes built in traced code (`past_key_values.update(...)`)
                held_param = func.value.value
                self.injections.append(InjectionFact(
                    kind="method", owner=scope.qualname, attr=held_param, param=method,
                    index=scope.param_order.index(held_param) if held_param in scope.param_order else -1,
                    target="", line=self._line(node)))
                # its argument kinds reach the method the graph finds (`meter.add(loss)`)
                self._call_flow(scope, node, f"{held_param}.{method}")
        else:
            bound = ()
        if scope.init_like and scope.cls is not None and type(func) is cst.Name:
            self._slot(func.value, self.ctor_attr.get(id(node), "[]"), node)
        if scope.name == "__init__" and scope.cls is not None and type(func) is cst.Attribute and \
                _is_self(func.value) and func.attr.value in scope.cls.methods:
            # `self._make_layer(block, 64, n)`: the helper's parameter holds the constructor's
            for i, a in enumerate(node.args):
                if a.star or type(a.value) is not cst.Name:
                    continue
                index = scope.binds.param_index.get(a.value.value)
                if index is None:
                    continue
                key = a.keyword.value if a.keyword is not None else str(i)
                self._init_forwards[(scope.cls.qualname, func.attr.value, key)] = (
                    a.value.value, index, scope.binds.callables.get(a.value.value, ()))
        # `ATTENTION_CLASSES[config.attn_impl](config)`: a class picked from a table by a setting
        # is matched where it is named, but builds no submodule (one alternative is built: which
        # the config says, not all of them)
        picked = registry_pick or self._picked_from_table(func, scope)
        for alt in bound:
            if alt == name or (picked and is_class_like(alt) and not alt.startswith("torch.")):
                continue
            self._opaque_call(scope, alt)
            if picked and is_class_like(alt):
                self._site("call", node, name=alt, method=method, receiver=receiver, data=data)
                continue
            if (scope.qualname, alt) not in self._call_seen:
                self._call_seen.add((scope.qualname, alt))
                # (`<f>()`, what a project function returned: an edge only when it is a closure)
                self.calls.append(CallFact(caller=scope.qualname, callee=alt, line=self._line(node),
                                           passed=alt.endswith("()")))
            if scope.init_like and scope.cls is not None and scope.cls.composes and (
                    (is_class_like(alt) and alt not in _CONTAINER_CTORS and self._is_class_name(alt)) or
                    (not picked and alt.endswith("[]") and (self.bindings.is_project(alt[:-2]) or
                                                             alt.startswith(f"{self.module}.")))):
                # (`cls(dim) for k, cls in NORMS.items()` over a table imported from the project:
                # every entry is built, the graph reads them off the table)
                self.submodules.append(SubmoduleFact(owner=scope.cls.qualname, attr=self.ctor_attr.get(id(node), "[]"),
                                                     target=alt, line=self._line(node)))
            if not on_instance and not self._is_bound_torch_class(func, alt) and not (
                    name.startswith("self.") and alt.startswith("torch.") and is_class_like(alt)):
                self._site("call", node, name=alt, method=method, receiver=receiver, data=data)
            if (not name or name.startswith("self.") or (type(func) is cst.Name and func.value in scope.binds.callables)) \
                    and not is_class_like(alt) and _is_project_callee(alt):
                # (`spline_fn = spl2 if self.tails is None else spl3; spline_fn(inputs=x)`: each
                # alternative gets the arguments, not only the first one, which `name` is)
                # `self.crit(logits, y)` with `self.crit = focal_loss` (imported): the function's
                # parameters get the kinds passed, as for a direct call of it
                self._call_flow(scope, node, alt)
            if (alt.endswith("[]") and (self.bindings.is_project(alt[:-2]) or alt.startswith(f"{self.module}."))) or (
                    alt.endswith(".apply") and self.bindings.is_project(alt[:-6])):
                # an entry of a dispatch table imported from the project (`self.act = ACTS[name]`):
                # the project graph matches the call against each entry (`FileFacts.dispatch_tables`);
                # `self.fn = Fn.apply` of a class imported from the project: the graph checks that
                # it is a torch.autograd.Function (`_Resolver.applied`)
                self._project_call(node, alt, method, data)

    def _dynamic_member(self, node: cst.Call, lookup: cst.Call, data: Any) -> None:
        """``getattr(F, self.act_name)(x)``, ``getattr(nn, cfg.norm)(dim)``: a member of a torch
        module chosen by a computed name. The call is matched as a call of each member some
        rule names (:attr:`members`), at its own arguments; when some would be flagged, one
        ``dynamic-member`` site lists them (a low finding: which member runs is configuration
        the port must map by hand, and its hazards are those of the members it may be)."""
        if len(lookup.args) < 2 or lookup.args[0].keyword is not None or \
                type(lookup.args[1].value) in (cst.SimpleString, cst.ConcatenatedString):
            return  # (a literal name resolves as the member itself)
        holder = self.qual(lookup.args[0].value)
        members = self.members.get(holder)
        if not members or self.export_only or self.error_only:
            return
        chosen = self._member_name(lookup.args[1].value)
        if chosen:
            # `getattr(nn, act)()` with `act="GELU"` a parameter's default, a local bound to a
            # literal or an attribute __init__ fixes: the member of the common construction
            self._site("call", node, name=f"{holder}.{chosen}", data=data)
            if type(lookup.args[1].value) is cst.Name and lookup.args[1].value.value in self.func_stack[-1].last_value:
                return  # (a local bound to a literal: nothing else can run)
            # (a default callers may override: the members they may pick stay listed below)
        scope = self.func_stack[-1] if self.func_stack else None
        name_arg = lookup.args[1].value
        if scope is not None and type(name_arg) is cst.Name and name_arg.value in scope.params and \
                name_arg.value not in scope.last_value and len(self.func_stack) == 1 and not self.class_stack:
            # `def make_act(name): return getattr(nn, name)()`: a wrapper whose callers' literal
            # names pick the member (the project graph matches them, migrate_lens/wrappers.py)
            self._note_wrapper(node, scope, holder, member=name_arg.value)
        if self.func_stack:
            context, symbol = self.func_stack[-1].context, self.func_stack[-1].qualname
        else:
            context, symbol = "host", self.class_stack[-1].qualname if self.class_stack else self.module
        by_code: dict[str, list[str]] = {}
        probe = self.probe
        assert probe is not None
        for m in members:
            for code in probe(Site("call", node, context, symbol, f"{holder}.{m}", "", "", data, ())):
                if m not in by_code.setdefault(code, []):
                    by_code[code].append(m)
        if by_code:
            # by rule, a few members each: `ML602 (dropout, dropout1d, +6 more)`
            listed = "; ".join(f"{code} ({', '.join(ms[:3])}{f', +{len(ms) - 3} more' if len(ms) > 3 else ''})"
                               for code, ms in sorted(by_code.items()))
            self._site("dynamic-member", node, name=holder, data={"members": listed})

    def _note_wrapper(self, node: cst.Call, scope: _FuncScope, name: str, member: str = "") -> None:
        """A library call in a top-level function (or a top-level class's ``__init__``, the
        wrapper then being the class) that passes some of the function's parameters on as they
        came: a :class:`~migrate_lens.models.WrapperFact` (a call with a spread argument, or one
        under a condition or in a loop, is none). ``member``: the parameter naming the member of
        ``name`` called (``getattr(nn, name)(dim)``)."""
        if scope.branches or scope.loops:
            return  # (under a condition: timm's create_conv2d builds a dynamic-'SAME' conv when padding="same")
        sources: list[tuple[str, str]] = []
        passes = bool(member)
        for i, a in enumerate(node.args):
            if a.star:
                return
            v = a.value
            if type(v) is cst.Name and v.value in scope.params and v.value not in scope.last_value:
                src = f"p:{v.value}"
                passes = True
            else:
                lit = literal(v)
                src = NONLITERAL if lit is NOT_LITERAL else repr(lit)
            sources.append((a.keyword.value if a.keyword is not None else "", src))
        if not passes:
            return
        passed = {a.value.value for a in node.args if type(a.value) is cst.Name and a.value.value in scope.params}
        if member:
            passed.add(member)
        if scope.node is not None and type(scope.node.body) is cst.IndentedBlock and any(
                type(st) is cst.If and passed & {n.value for n in _names_read(st.test)} and _returns_or_binds(st, passed)
                for st in scope.node.body.body):
            return  # (after a test of a parameter it passes on that returns or rebinds: `if stride > 1:
            # return nn.Sequential(pool, conv)`, `if padding is None: padding = 1`; a check that only
            # raises, `if in_channels % groups != 0: raise ...`, decides nothing)
        owner = scope.cls.qualname if self.class_stack and scope.cls is not None else scope.qualname
        self.library_wrappers.setdefault(owner, []).append(WrapperFact(
            qualname=owner, callee=name, params=tuple(scope.param_order),
            args=tuple(src for kw, src in sources if not kw), kwargs=tuple((kw, src) for kw, src in sources if kw),
            line=self._line(node), member=member))

    def _library_builder(self, node: cst.Call, name: str, data: Any, extras: Any) -> None:
        """A layer built by a library's config builder (mmcv's ``build_norm_layer``,
        ``ConvModule``, ``FFN``, mmengine's ``MODELS.build``: :mod:`.builders`): each torch
        constructor it makes, with the configs the file spells, is a call site of that class
        at this line (BatchNorm statistics, exact GELU, strided padding, drop path)."""
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for a in node.args:
            if a.star:
                return  # (what a spread passes is not known)
            v = self._builder_value(a.value, 3)
            if a.keyword is not None:
                kwargs[a.keyword.value] = v
            else:
                args.append(v)
        if name in BUILDERS:
            made = built_layers(BUILDERS[name], tuple(args), kwargs)
        else:
            made = registry_build(args[0] if args else kwargs.get("cfg", BUILDER_UNKNOWN))
        if not made:
            return
        eager = {k: v for k, v in dict.items(data) if k not in _CALL_EXTRAS}
        for target, pos, kw in made:
            def lit(v: Any) -> tuple[str, Any]:
                return (K.S, NOT_LITERAL) if v is BUILDER_UNKNOWN or isinstance(v, dict) else (K.S, v)
            eager.update(args=tuple(lit(v) for v in pos), kwargs={k: lit(v) for k, v in kw.items()}, result=K.M)
            self._site("call", node, name=target, data=LazyData(dict(eager), extras, _CALL_EXTRAS))

    def _builder_value(self, value: cst.BaseExpression, depth: int) -> Any:
        """A builder argument as :func:`.builders.built_layers` reads it: a literal, a config
        dict spelled as ``dict(type=...)`` or ``{"type": ...}`` (values read the same way), a
        parameter's default or a local's last value (``norm_cfg=dict(type='BN')``);
        :data:`.builders.UNKNOWN` otherwise."""
        lit = literal(value)
        if lit is not NOT_LITERAL:
            return lit
        if depth <= 0:
            return BUILDER_UNKNOWN
        t = type(value)
        if t is cst.Dict:
            out: dict[str, Any] = {}
            for el in value.elements:  # type: ignore[attr-defined]
                if type(el) is not cst.DictElement or not isinstance(literal(el.key), str):
                    return BUILDER_UNKNOWN
                out[literal(el.key)] = self._builder_value(el.value, depth - 1)
            return out
        if t is cst.Call and _is_dict_call(value):
            if any(a.star or a.keyword is None for a in value.args):  # type: ignore[attr-defined]
                return BUILDER_UNKNOWN
            return {a.keyword.value: self._builder_value(a.value, depth - 1) for a in value.args}  # type: ignore[attr-defined]
        if t is cst.Name and self.func_stack:
            bound = self.func_stack[-1].common_value(value.value)  # type: ignore[attr-defined]
            if bound is not None:
                return self._builder_value(bound, depth - 1)
        return BUILDER_UNKNOWN

    def _member_name(self, value: cst.BaseExpression) -> str:
        """The member name a ``getattr(<torch module>, value)`` picks in the common construction
        (:meth:`_common_string`, an identifier); "" otherwise."""
        lit = self._common_string(value)
        return lit if lit.isidentifier() else ""

    def _common_string(self, value: cst.BaseExpression) -> str:
        """The string ``value`` holds in the common construction: a literal, a parameter's
        string default (``act="GELU"``) when the function has not rebound it, a local name bound
        to a string literal, or ``self.<attr>`` that ``__init__`` fixes to one
        (:attr:`_ClassInfo.attr_literals`); "" otherwise."""
        lit: Any = NOT_LITERAL
        scope = self.func_stack[-1] if self.func_stack else None
        if type(value) is cst.SimpleString:
            lit = value.evaluated_value
        elif scope is not None and type(value) is cst.Name:
            bound = scope.common_value(value.value)
            if bound is not None:
                lit = literal(bound)
        elif scope is not None and scope.cls is not None and _is_self_attr(value):
            lit = scope.cls.attr_literals.get(value.attr.value, NOT_LITERAL)  # type: ignore[attr-defined]
        return lit if type(lit) is str else ""

    def _picked_submodules(self, cls: _ClassInfo, attr: str, value: cst.Subscript, found: tuple[str, ...]) -> None:
        """``self.act = ACT2FN["gelu"]`` in a module's init code: transformers' activation table
        builds the entry its key picks (``ClassInstantier.__getitem__``), and a table of classes
        hands the class over; either way the module holds that class, a composition edge (for
        a table imported from the project, ``<pkg.ACT2FN[gelu]>[]``, which the graph reads off
        the table)."""
        line = self._line(value)
        for alt in found:
            if (is_class_like(alt) and self._is_class_name(alt) and alt not in _CONTAINER_CTORS) or (
                    alt.endswith("[]") and (self.bindings.is_project(alt[:-2]) or alt.startswith(f"{self.module}."))):
                self.submodules.append(SubmoduleFact(owner=cls.qualname, attr=attr, target=alt, line=line))

    def _attr_partial(self, func: cst.BaseExpression) -> cst.Call | None:
        """``self.act(x)`` with ``self.act = functools.partial(F.gelu, approximate="tanh")`` in
        the class (transformers' ``GELUTanh``; a method may be the other alternative): the
        partial, whose keywords the call passes, when it is the one library callable the
        attribute holds; None otherwise."""
        if not _is_self_attr(func) or not self.func_stack or self.func_stack[-1].cls is None:
            return None
        held = self.func_stack[-1].cls.attr_partials.get(func.attr.value)  # type: ignore[attr-defined]
        if not held or len(held) != 1:
            return None
        return next(iter(held.values()))

    def _class_field_default(self, qualname: str, small: cst.Assign | cst.AnnAssign) -> None:
        """A class-level statement: a string field default (``act: str = "GELU"``, ``hidden_act =
        "gelu"``) for :attr:`string_defaults`, or the configuration class the class declares
        (``config: BertConfig``, ``config_class = BertConfig``) for :attr:`config_classes`."""
        if type(small) is cst.AnnAssign:
            if type(small.target) is not cst.Name:
                return
            names, value = [small.target.value], small.value
            if value is None and small.target.value == "config":
                ann = self.qual(small.annotation.annotation)
                if ann and ann.rsplit(".", 1)[-1][:1].isupper():
                    self.config_classes.add(ann)
                return
        else:
            names, value = [t.target.value for t in small.targets if type(t.target) is cst.Name], small.value
            if "config_class" in names and type(value) in (cst.Name, cst.Attribute):
                ann = self.qual(value)
                if ann:
                    self.config_classes.add(ann)
                return
        if type(value) is cst.SimpleString and isinstance(value.evaluated_value, str):
            self.string_defaults.extend((qualname, n, value.evaluated_value) for n in names)

    def _init_string_defaults(self, qualname: str, init: cst.FunctionDef) -> None:
        """``__init__(self, hidden_act="gelu", ...)`` storing ``self.hidden_act = hidden_act`` in
        its own body (not under a branch): the attribute's default is that string
        (:attr:`string_defaults`)."""
        defaults = {p.name.value: p.default.evaluated_value for p in (*init.params.params, *init.params.kwonly_params)
                    if type(p.default) is cst.SimpleString and isinstance(p.default.evaluated_value, str)}
        if not defaults or type(init.body) is not cst.IndentedBlock:
            return
        for st in init.body.body:
            if type(st) is not cst.SimpleStatementLine:
                continue
            for small in st.body:
                if type(small) is cst.Assign and type(small.value) is cst.Name and small.value.value in defaults:
                    for t in small.targets:
                        if _is_self_attr(t.target):
                            self.string_defaults.append((qualname, t.target.attr.value, defaults[small.value.value]))  # type: ignore[union-attr]

    def _config_key(self, value: cst.BaseExpression) -> str:
        """``config.hidden_act`` read off a parameter holding a configuration object: the key
        the project resolves from that class's default (``@<class>.<field>``, the class from the
        parameter's annotation or its default ``Cfg()``), or from the configuration class the
        file declares for an unannotated ``config`` (``@@<module>.<field>``: transformers'
        ``config: BertConfig`` on the pretrained-model class); "" otherwise."""
        if type(value) is not cst.Attribute or type(value.value) is not cst.Name or not self.func_stack:
            return ""
        scope = self.func_stack[-1]
        param = value.value.value
        if param not in scope.param_meta or param in scope.target_bound or param in scope.last_value:
            return ""
        field = value.attr.value
        typed = scope.binds.typed.get(param, ())
        cls = typed[0] if len(typed) == 1 else ""
        if not cls:
            default = scope.param_meta[param][1]
            if type(default) is cst.Call and not default.args:
                ctor = self.qual(default.func)
                cls = ctor if ctor and ctor.rsplit(".", 1)[-1][:1].isupper() else ""
        if cls:
            return f"@{cls}.{field}"
        return f"@@{self.module}.{field}" if param in _CONFIG_PARAMS and not typed else ""

    def _pick_keys(self, sub: cst.Subscript) -> tuple[str, ...]:
        """The keys (lower case) a subscript of a dispatch table picks in the common
        construction: those :func:`registry_keys` reads (string literals, the table's own
        constants), else the string its one index holds (:meth:`_common_string`: ``ACT2CLS[act]``
        with ``act="gelu"`` a parameter's default); () when the key is a setting the code does
        not fix (one alternative the configuration picks)."""
        keys = registry_keys(sub)
        if keys or len(sub.slice) != 1 or type(sub.slice[0].slice) is not cst.Index:
            return keys
        index = sub.slice[0].slice.value  # type: ignore[attr-defined]
        key = self._common_string(index)
        if key:
            return (key.lower(),)
        deferred = self._config_key(index)
        return (deferred,) if deferred else ()

    def _fixed_self_args(self, node: cst.Call, data: Any) -> tuple[tuple[tuple[str, Any], ...], dict[str, tuple[str, Any]]]:
        """The call's (args, kwargs) as the call rules read them, with an argument that reads a
        plain attribute init code fixes (:attr:`_ClassInfo.attr_literals`: ``align_corners=
        self.align_corners``, a constructor default of True) or a parameter passed on as it came
        with a literal default (``make_act(act)`` with ``act="GELU"``) given that value: what a
        call handed on to a wrapper or another file's function passes in the common construction."""
        args: tuple[tuple[str, Any], ...] = dict.get(data, "args")
        kwargs: dict[str, tuple[str, Any]] = dict.get(data, "kwargs")
        scope = self.func_stack[-1] if self.func_stack else None
        if scope is None:
            return args, kwargs
        cls = scope.cls
        fixed = cls.attr_literals if cls is not None else {}
        out_args, out_kwargs, i = list(args), dict(kwargs), 0
        for a in node.args:
            if a.star:
                continue
            lit = _fixed_attr(cls, a) if fixed else NOT_LITERAL  # type: ignore[arg-type]
            default = scope.passed_default(a.value.value) if lit is NOT_LITERAL and type(a.value) is cst.Name else None
            if default is not None:
                # a parameter passed on as it came, with a literal default (`make_act(act)`, `act="GELU"`)
                lit = literal(default)
            if a.keyword is not None:
                if lit is not NOT_LITERAL and a.keyword.value in out_kwargs:
                    out_kwargs[a.keyword.value] = (K.S, lit)
            else:
                if lit is not NOT_LITERAL and i < len(out_args):
                    out_args[i] = (K.S, lit)
                i += 1
        return tuple(out_args), out_kwargs

    def _project_call(self, node: cst.CSTNode, callee: str, method: str, data: Any, bound: bool = False) -> None:
        """Keep a call of ``callee``, a name of the project, for the project graph to match once
        it knows what the name is (:class:`~migrate_lens.models.CallSiteFact`). The call's own
        arguments only: a LazyData holds the visitor (a reference cycle that kept the whole tree
        for the cyclic GC after each file)."""
        args_only = {k: dict.get(data, k) for k in _PROJECT_CALL_KEYS}
        if type(node) is cst.Call:
            args_only["args"], args_only["kwargs"] = self._fixed_self_args(node, data)
        args_only["bound"] = bound  # `norm_layer(d)`: a name bound to the callee (a parameter default)
        self.project_calls.append((*self._lines(node), callee, method, args_only, self.context, self.symbol))

    def _host_write(self, target: cst.Attribute, value: cst.BaseExpression) -> None:
        """``self.x = <computed>`` / ``self.sub.x = <computed>`` in a method that is neither init
        code nor a traced method: a setter called by host code between steps."""
        if not self.func_stack:
            return
        scope = self.func_stack[-1]
        if scope.init_like or scope.context == "init":
            return
        owner = self._class_object(target.value, scope)
        if owner:
            # `Class.flag = False` (also `self.__class__.flag`, `type(self).flag`, `cls.flag`):
            # shared by every instance, switched from outside forward
            if scope.toggle or (literal(value) is NOT_LITERAL and self._schedule_value(scope, value)):
                label = f"{scope.cls.qualname.rsplit('.', 1)[-1]}.{scope.name}" if scope.is_method and scope.cls \
                    else f"{scope.name}()"
                self.class_writes.append((owner, target.attr.value, label))
            return
        if scope.context != "function" or not scope.is_method or scope.cls is None or scope.name in _TRACED_METHODS:
            return
        # a context manager switches what it sets around the calls of its `with` block; other
        # setters: see _schedule_value
        if not scope.toggle and (literal(value) is not NOT_LITERAL or not self._schedule_value(scope, value)):
            return
        base = target.value
        if _is_self_attr(target):
            self.host_writes.append((scope.cls.qualname, "", target.attr.value, scope.name))
        elif _is_self_attr(base):
            self.host_writes.append((scope.cls.qualname, base.attr.value, target.attr.value, scope.name))  # type: ignore[union-attr]

    def _schedule_value(self, scope: _FuncScope, value: cst.BaseExpression) -> bool:
        """A value advanced between steps comes from a step/schedule parameter of the setter
        (``set_num_updates(step)``, ``set_gumbel_temperature(temperature: float)``); a switch or
        a size set once (``enable_residual(enable)``, ``set_lambda_init(depth)``) is
        configuration."""
        return any(n in scope.binds.param_index and _SCHEDULE_PARAM.search(n) and
                   (type(value) is not cst.Name or self._numeric_param(n)) for n in _names_in_expr(value))

    def _class_object(self, node: cst.BaseExpression, scope: _FuncScope | None) -> str:
        """The qualname of the file's own top-level class that ``node`` names as an object:
        ``MultiHeadAttention`` (the class itself), ``self.__class__``, ``type(self)``, ``cls`` in a
        classmethod; "" otherwise."""
        t = type(node)
        if t is cst.Name:
            if node.value == "cls" and scope is not None and scope.cls is not None and scope.is_method:
                return scope.cls.qualname
            # (the file's classes are declared before the walk: a function above the class counts)
            if node.value in self.bindings.classes and (scope is None or node.value not in scope.env):
                q = self.qual(node)
                if q == f"{self.module}.{node.value}":
                    return q
            return ""
        if scope is None or scope.cls is None or not scope.is_method:
            return ""
        if t is cst.Attribute and node.attr.value == "__class__" and type(node.value) is cst.Name and \
                node.value.value == "self":
            return scope.cls.qualname
        if t is cst.Call and type(node.func) is cst.Name and node.func.value == "type" and len(node.args) == 1 and \
                type(node.args[0].value) is cst.Name and node.args[0].value.value == "self":
            return scope.cls.qualname
        return ""

    def _numeric_param(self, name: str) -> bool:
        """Parameter ``name`` of the current function is a number (``temperature: float``,
        ``step: int``, ``tau=0.5``), not a switch."""
        scope = self.func_stack[-1]
        ann, default = scope.param_meta.get(name, (None, None))
        if ann is not None and _dotted(ann.annotation) in ("int", "float"):
            return True
        lit = literal(default) if default is not None else NOT_LITERAL
        return isinstance(lit, (int, float)) and not isinstance(lit, bool)

    def _container_contents(self, node: cst.Call, attr: str) -> None:
        """``self.blocks = nn.ModuleList([block(dim) for _ in range(n)])``: the constructors
        listed in the container are held under its attribute (``for blk in self.blocks:
        blk.residual(x)`` then resolves)."""
        todo: list[cst.BaseExpression] = [a.value for a in node.args]
        while todo:
            v = todo.pop()
            t = type(v)
            if t is cst.Call:
                self.ctor_attr.setdefault(id(v), attr)
            elif t in (cst.List, cst.Tuple):
                todo.extend(el.value for el in v.elements)  # type: ignore[attr-defined]
            elif t in (cst.ListComp, cst.GeneratorExp):
                todo.append(v.elt)  # type: ignore[attr-defined]
            elif t is cst.StarredElement:
                todo.append(v.value)  # type: ignore[attr-defined]

    def _may_hold_class(self, name: str) -> bool:
        """A local name that may hold a class or module: bound to callables, or of a kind other
        than static (``dim``, ``num_heads`` and literals are not injected classes)."""
        scope = self.func_stack[-1]
        return name in scope.binds.callables or scope.env.get(name) != K.S

    def _slot(self, param: str, attr: str, node: cst.CSTNode) -> None:
        """Init code of a class stores (or builds by calling) what constructor parameter
        ``param`` holds in ``attr``: an injection slot the project graph fills with the classes
        callers pass."""
        scope = self.func_stack[-1]
        index = scope.binds.param_index.get(param)
        if index is None or scope.cls is None:
            return
        if scope.name != "__init__":
            # an init helper's parameter (`_make_layer(self, block, ...)` calling `block(...)`):
            # a slot of the constructor parameter that `__init__` hands it (joined in leave_Module)
            if scope.init_like and scope.is_method:
                self._helper_slots.append((scope.cls, scope.name, param, index, self._line(node)))
            return
        # what the constructor binds itself: `block = block or B`
        if any(not t.startswith("self.") for t in scope.binds.typed.get(param, ())):
            scope.cls.param_slots.add(attr)  # (typed by a class: an object; untyped, a dict callers pass)
        self._slot_facts(scope.cls.qualname, attr, param, index, self._line(node),
                         scope.binds.callables.get(param, ()))

    def _slot_facts(self, owner: str, attr: str, param: str, index: int, line: int,
                    defaults: tuple[str, ...]) -> None:
        """The ``slot`` facts of one constructor parameter stored in ``attr``: the slot itself,
        and one per class-like name the class binds there itself (a default, ``block or B``)."""
        self.injections.append(InjectionFact(kind="slot", owner=owner, attr=attr, param=param,
                                             index=index, target="", line=line))
        for t in defaults:
            if is_class_like(t):
                self.injections.append(InjectionFact(kind="slot", owner=owner, attr=attr, param=param,
                                                     index=index, target=t, line=line))

    def _callable_args(self, node: cst.Call, scope: _FuncScope, name: str) -> None:
        """A project function handed as an argument to a function call runs, as far as the
        file can tell, where that call runs: ``affect_init(w, self.winit)`` whose callee calls
        ``init_func(...)``, ``checkpoint(self._block, x)``, ``map(fn, xs)``. A call edge from
        the caller to it (its context by reachability). Constructor calls are left to the
        injection facts (the object may keep the function for another method), and so are
        classes and hook registrations (``register_forward_hook``, ``_register_load_state_dict_pre_hook``:
        the hook runs where its event does)."""
        if is_class_like(name) or name in ("isinstance", "issubclass", "type", "super") or (
                type(node.func) is cst.Attribute and "register_" in node.func.attr.value):
            return
        cls = scope.cls
        for i, a in enumerate(node.args):
            v = a.value
            t = type(v)
            if t is cst.Attribute and type(v.value) is cst.Name and v.value.value == "self" and cls is not None:
                found = cls.attr_binds.get(v.attr.value, ()) or self._targets(v)
            elif t is cst.Name or t is cst.Attribute or t is cst.Subscript:
                found = self._targets(v)
            else:
                continue
            for f in found:
                if is_class_like(f) or f == name or not (f.startswith("self.") or self.bindings.is_project(f) or
                                                        f.startswith(f"{self.module}.")):
                    continue
                self._opaque_call(scope, f)
                if (scope.qualname, f) not in self._call_seen:
                    self._call_seen.add((scope.qualname, f))
                    self.calls.append(CallFact(caller=scope.qualname, callee=f, line=self._line(a.value), passed=True))
                if not (i == 0 and name in PARTIAL_NAMES and len(node.args) > 1 and id(node) in self.assigned_calls
                        and not any(b.star or b.keyword is None for b in node.args[1:])):
                    # handed on (`vmap(attend)(...)`, `map(attend, ...)`, `apply(partial(attend, mask=m), y)`,
                    # a partial fixing positions): called with arguments this file cannot list
                    if (f, (), (), True) not in scope.static_flows:
                        scope.static_flows.add((f, (), (), True))
                        scope.call_flows.append(CallFlow(f, spread=True))
                else:
                    # `self.attn = partial(attention_pyimpl, scale=s)`, keywords only: the arguments
                    # the partial fixes (what its later calls add is recorded where the holder is
                    # called); the parameters it leaves out are not given here (interproc._passed)
                    rest = node.args[1:]
                    scope.call_flows.append(CallFlow(
                        f, args=tuple(Flow() for b in rest if b.keyword is None),
                        keywords=tuple(b.keyword.value for b in rest if b.keyword is not None),
                        kwargs=tuple(Flow() for b in rest if b.keyword is not None)))
                if i == 0 and a.keyword is None and not a.star and len(node.args) > 1 and (
                        name in _FORWARDERS or _is_project_callee(name)):
                    self._forwarded_flow(scope, node, f, "" if name in _FORWARDERS else name)

    def _forwarded_flow(self, scope: _FuncScope, node: cst.Call, fn: str, via: str) -> None:
        """``apply(fn, x, scale=s)``: the flow of ``fn(x, scale=s)``, through the wrapper
        ``via`` (it holds where the wrapper forwards, ``FunctionSummary.forwards``; "" for a
        library forwarder such as ``torch.utils.checkpoint.checkpoint``)."""
        args: list[Flow] = []
        keywords: list[str] = []
        kwargs: list[Flow] = []
        for a in node.args[1:]:
            if a.star:
                if a.star == "*":
                    break
                continue
            if not via and a.keyword is not None and a.keyword.value in _FORWARDER_OWN:
                continue  # checkpoint(fn, x, use_reentrant=False): checkpoint's own
            f = self._flow(a.value)
            if a.keyword is not None:
                keywords.append(a.keyword.value)
                kwargs.append(f)
            else:
                args.append(f)
        if any(f.kind or f.deps for f in (*args, *kwargs)):
            scope.call_flows.append(CallFlow(fn, tuple(args), tuple(keywords), tuple(kwargs), via=via))

    def _injected_args(self, node: cst.Call, scope: _FuncScope, name: str) -> None:
        """Classes (and instances of classes) passed as call arguments: ``Block(dim,
        norm_layer=partial(nn.LayerNorm, eps=1e-6), mlp_layer=Mlp)``, ``RAFT(corr_block=corr)``.

        - to a constructor: an ``arg`` injection fact (the graph joins it with the callee's
          slots); in a module's init code, a class passed is also held by the module
          (composition, attribute ``[injected]``);
        - a torch class named in the argument itself is a use of that class (a call site
          without arguments but the ``partial``'s): ``act_layer=nn.GELU`` is an exact GELU;
        - ``<config>.<field>(...)`` in a module's init code builds a class injected into a
          config field (a ``field`` fact)."""
        func = node.func
        cls = scope.cls
        if name in PARTIAL_NAMES or name in ("isinstance", "issubclass", "type", "super") or \
                (name and "." not in name and name in BINDING_BUILTINS):
            return
        callee = name
        if not callee and type(func) is cst.Attribute and func.attr.value == "__init__" and \
                type(func.value) is cst.Call and self.qual(func.value.func) == "super" and cls is not None and cls.bases:
            callee = cls.bases[0]
        ctor = bool(callee) and is_class_like(callee) and not callee.startswith("torch.")
        in_module_init = scope.init_like and cls is not None and cls.is_module
        if in_module_init and not name and type(func) is cst.Attribute and type(func.value) is cst.Name \
                and (scope.env.get(func.value.value, K.S) != K.S or func.value.value in scope.iter_names) \
                and func.value.value not in scope.binds.instances:
            self.injections.append(InjectionFact(kind="field", owner=cls.qualname, attr="[]", param=func.attr.value,
                                                 index=-1, target="", line=self._line(node)))
        position = 0
        for a in node.args:
            if a.star:
                continue
            keyword = a.keyword.value if a.keyword is not None else ""
            index = -1 if keyword else position
            position += 0 if keyword else 1
            v = a.value
            if type(v) not in (cst.Name, cst.Attribute, cst.Call, cst.IfExp, cst.BooleanOperation):
                continue
            if type(v) is cst.Name and ctor and scope.init_like and cls is not None and self._may_hold_class(v.value):
                self._slot(v.value, "[injected]", v)  # a parameter passed on: `block(dim, norm_layer=norm_layer)`
            classes = tuple(t for t in self._targets(v) if is_class_like(t))
            held = classes or self.bindings.instances(v, scope.env, scope.binds.callables, scope.binds.instances)
            if not held and ctor and type(v) is cst.Name:
                # a parameter typed by its annotation handed on to a constructor
                # (`Proc(controller, "down")` with `controller: Optional[AttentionStore] = None`)
                held = tuple(t for t in scope.binds.typed.get(v.value, ()) if not t.startswith("self."))
            items = () if held or cls is None or not cls.held_items else tuple(
                t for alt in _alternatives(v) if type(alt) is cst.Subscript and _is_self_attr(alt.value)
                for t in cls.held_items.get(alt.value.attr.value, ()))  # type: ignore[attr-defined]
            for t in held or items:
                if ctor:
                    self.injections.append(InjectionFact(kind="arg", owner=callee, attr="", param=keyword,
                                                         index=index, target=t, line=self._line(a.value)))
                elif (keyword or callee) and not classes and (type(v) is cst.Name or items) and not scope.init_like:
                    # an object built here handed on (`layer(x, past_key_values=cache)`,
                    # `train_step(model, batch, meter)` with `meter = Meter()`; an item of a list of
                    # such objects on self, `blk(x, cache=self.caches[i])`): the graph joins
                    # it with method calls on the parameter it lands in (by keyword: any
                    # parameter of that name; by position: that parameter of the callee)
                    self.injections.append(InjectionFact(kind="pass", owner=scope.qualname, attr=callee, param=keyword,
                                                         index=index, target=t, line=self._line(a.value)))
            for t in classes:
                if scope.init_like and cls is not None and cls.composes and not t.startswith("torch.") and \
                        self._is_class_name(t):
                    self.submodules.append(SubmoduleFact(owner=cls.qualname, attr="[injected]", target=t,  # type: ignore[union-attr]
                                                         line=self._line(a.value)))
            if classes:
                self._class_refs(v)

    def _class_refs(self, value: cst.BaseExpression, partial: cst.Call | None = None,
                    calls_of: tuple[cst.FunctionDef, str] | None = None) -> None:
        """A torch class named as a value (a parameter default, a call argument, the right
        side of an assignment: ``act_layer=nn.GELU``, ``act_layer or nn.GELU``,
        ``partial(nn.BatchNorm2d, momentum=0.01)``) is a use of that class where it is named:
        a call site with the ``partial``'s arguments (``data["reference"]``), or those a
        parameter default is always called with (``calls_of``: the function and the parameter,
        :func:`_agreed_call_args`, read only for a torch class's default).
        Calls of the name it is bound to are not call sites again (:meth:`_is_bound_torch_class`)."""
        t = type(value)
        if t is cst.Name or t is cst.Attribute:
            if t is cst.Name and self.func_stack and value.value in self.func_stack[-1].env:  # type: ignore[union-attr]
                return  # a local name: named where it was bound
            ref = self.bindings.resolve(value)
            sub = self.ctor_bases.get(ref, "") if self.ctor_bases else ""
            if sub:
                ref, sub = sub, ref  # a subclass of a torch class: see _subclass_ctor
            elif not (ref.startswith("torch.") and is_class_like(ref)):
                if partial is None and is_class_like(ref) and self.bindings.is_project(ref):
                    # a class imported from the project: the graph knows whether it is such a subclass
                    self._project_call(value, ref, "", {"args": (), "kwargs": {}, "star": False,
                                                        "no_grad": False, "reference": True})
                return
            if partial is None and t is cst.Name:
                # `act_layer or _GELU` with `_GELU = partial(nn.GELU, approximate='tanh')` at module
                # level: the use takes the partial's arguments
                partial = self.bindings.partial_of(value, None)
            args: list[tuple[str, Any]] = []
            kwargs: dict[str, tuple[str, Any]] = {}
            star = False
            args_from = _agreed_call_args(*calls_of) if partial is None and calls_of is not None else None
            for a in (partial.args[1:] if partial is not None else args_from or ()):
                if a.star:
                    star = True
                elif a.keyword is not None:
                    kwargs[a.keyword.value] = (self.kind(a.value), literal(a.value))
                else:
                    args.append((self.kind(a.value), literal(a.value)))
            site_data = {
                "args": tuple(args), "kwargs": kwargs, "star": star, "no_grad": self._no_grad(), "result": K.U,
                "reference": True,
            }
            if sub:
                site_data["subclass_of"] = sub
            self._site("call", value, name=ref, data=site_data)
        elif t is cst.Call:
            if value.args and value.args[0].keyword is None and not value.args[0].star and \
                    self.qual(value.func) in PARTIAL_NAMES:  # type: ignore[union-attr]
                self._class_refs(value.args[0].value, value)  # type: ignore[union-attr]
            elif type(value.func) is cst.Name and value.func.value in self.bindings.returns:  # type: ignore[union-attr]
                # `batchnorm_klass = MaybeSyncBatchnorm()` of a function of this file returning
                # torch classes (enformer): a use of each where the factory hands it over
                for ref in self.bindings.returns[value.func.value]:  # type: ignore[union-attr]
                    if ref.startswith("torch.") and is_class_like(ref):
                        self._site("call", value, name=ref, data={
                            "args": (), "kwargs": {}, "star": False, "no_grad": self._no_grad(), "result": K.U,
                            "reference": True})
        elif t is cst.IfExp:
            self._class_refs(value.body)  # type: ignore[union-attr]
            self._class_refs(value.orelse)  # type: ignore[union-attr]
        elif t is cst.BooleanOperation:
            self._class_refs(value.left)  # type: ignore[union-attr]
            self._class_refs(value.right)  # type: ignore[union-attr]

    def _subclass_ctor(self, node: cst.BaseExpression, name: str, data: Any) -> None:
        """``LayerNorm(d)`` of a class of this file that subclasses ``nn.LayerNorm`` without an
        ``__init__`` of its own (open_clip's ``LayerNorm``/``LayerNormFp32``, which override only
        ``forward``): the torch constructor runs with these arguments and its defaults (eps
        1e-5) stay on the instance. A second call site names the torch class, marked
        ``data["subclass_of"]``; only rules about constructor defaults match it (matcher param
        ``subclass_ctor``). Not for a call of a name bound to the class (``norm_layer(d)`` with
        ``norm_layer=LayerNorm``): the class was a use where it was named (:meth:`_class_refs`)."""
        if type(node) is cst.Call and type(node.func) is cst.Name and self.func_stack and \
                node.func.value in self.func_stack[-1].binds.callables:
            return
        data["subclass_of"] = name
        try:
            self._site("call", node, name=self.ctor_bases[name], data=data)
        finally:
            dict.pop(data, "subclass_of", None)

    def _is_bound_torch_class(self, func: cst.BaseExpression, name: str) -> bool:
        """``func`` is a local name bound (by assignment or as a parameter default) to a torch
        class (``act_layer()`` with ``act_layer=nn.GELU``): the class was a use where it was
        named. Module-level aliases (``LN = partial(nn.LayerNorm, bias=False)``) are named in
        host code, so their calls stay the call sites."""
        if type(func) is not cst.Name or not name.startswith("torch.") or not is_class_like(name):
            return False
        return bool(self.func_stack) and func.value in self.func_stack[-1].binds.callables

    def _call_kinds(self, node: cst.Call) -> tuple[str, tuple[tuple[str, Any], ...], dict[str, tuple[str, Any]], str]:
        """(receiver kind, positional (kind, literal)s, keyword ones, result kind) of a call."""
        func = self._aliased_calls.get(id(node), node.func) if self._aliased_calls else node.func
        receiver = self.kind(func.value) if type(func) is cst.Attribute else ""
        args: list[tuple[str, Any]] = []
        kwargs: dict[str, tuple[str, Any]] = {}
        for a in node.args:
            if a.star:
                continue
            entry = (self.kind(a.value), literal(a.value))
            if a.keyword is not None:
                kwargs[a.keyword.value] = entry
            else:
                args.append(entry)
        return receiver, tuple(args), kwargs, self._call_kind(node)

    def _call_parts(self, node: cst.Call, name: str) -> _CallParts:
        """The kinds of ``node``'s receiver, arguments (with their literals) and result, each
        with the symbolic inputs its evaluation read (:class:`_CallParts`); ``values.used``
        collects them all, as evaluating them in one go would. ``name`` is ``qual(node.func)``."""
        # Each part's evaluation collects into a fresh set (``values.used``); a part that read
        # nothing gets the shared empty set and leaves its set to the next part. (Inline, not a
        # closure: this runs for every call.)
        values = self.values
        kind = self.kind
        union = values.used
        used = values.used = set()
        func = self._aliased_calls.get(id(node), node.func) if self._aliased_calls else node.func
        receiver, receiver_used = "", _NONE_READ
        if type(func) is cst.Attribute:
            receiver = kind(func.value)
            if receiver == K.S and type(func.value) is cst.Name and func.attr.value in _READBACK_METHODS \
                    and self.func_stack and func.value.value in self.func_stack[-1].params:
                # `task_id.item()`: a parameter static by its name or default, read back as a
                # tensor's value; the call says it is none of the Python numbers the guess assumed
                # (and a tensor where its callers pass one: the hypotheses it read stay)
                receiver = K.U
            if used:
                receiver_used = used
                union.update(used)
                used = values.used = set()
        entries = []
        for a in node.args:
            if a.star:
                continue
            value = a.value
            k = kind(value)
            got: set[str] | frozenset[str] = _NONE_READ
            if used:
                got = used
                union.update(used)
                used = values.used = set()
            entries.append((a.keyword.value if a.keyword is not None else None, value, k, literal(value), got))
        result = self._call_kind(node, name, receiver, receiver_used)
        result_used: set[str] | frozenset[str] = _NONE_READ
        if used:
            result_used = used
            union.update(used)
        values.used = union
        return _CallParts(receiver, receiver_used, entries, result, result_used)

    def _call_kinds_under(self, node: cst.Call, parts: _CallParts) -> tuple[
            str, tuple[tuple[str, Any], ...], dict[str, tuple[str, Any]], str]:
        """:meth:`_call_kinds` under the active hypothesis, evaluating again only the parts
        whose first evaluation read one of its inputs: a kind depends on a hypothesis only
        through the inputs it reads (each read is recorded in ``values.used`` before the
        hypothesis is consulted), so the other parts keep their kinds; literals never change."""
        hyp = self.values.hyp
        if parts.stale or hyp is None or K.RETURNED_RAGGED in hyp.values():
            # (a ragged-return hypothesis is read by `is_ragged`, which the parts' records of
            # inputs read do not list: every part again)
            return self._call_kinds(node)
        kind = self.kind
        receiver = parts.receiver if parts.receiver_used.isdisjoint(hyp) else kind(
            (self._aliased_calls.get(id(node), node.func) if self._aliased_calls else node.func).value)  # type: ignore[attr-defined]
        args: list[tuple[str, Any]] = []
        kwargs: dict[str, tuple[str, Any]] = {}
        for keyword, expr, k, lit, used in parts.entries:
            if not used.isdisjoint(hyp):
                k = kind(expr)
            if keyword is not None:
                kwargs[keyword] = (k, lit)
            else:
                args.append((k, lit))
        result = parts.result if parts.result_used.isdisjoint(hyp) else self._call_kind(node)
        return receiver, tuple(args), kwargs, result

    def _call_variants(self, node: cst.Call, name: str, method: str, base: tuple[Any, ...], used: set[str],
                       data: LazyData, extras: _CallExtras, parts: _CallParts) -> None:
        """The call site again under each hypothesis on the symbolic inputs its kinds read,
        when its kinds change (``x.new_zeros(n, d)`` with ``n`` a callee's return value):
        sites that hold only under that hypothesis (``Site.requires``); their extras are
        computed again, under it."""
        self.values.used = used
        for req, got in self._variants(lambda: self._call_kinds_under(node, parts)):
            if got == base:
                continue
            eager = {k: v for k, v in dict.items(data) if k not in _CALL_EXTRAS}
            eager.update(args=got[1], kwargs=got[2], result=got[3])
            variant = LazyData(eager, extras, _CALL_EXTRAS)
            hyp = dict(part.rsplit("=", 1) for part in req.split("&"))
            self.values.under(hyp, "", lambda: self._site(
                "call", node, name=name, method=method, receiver=got[0], data=variant, requires=(req,)))

    def _call_flow(self, scope: _FuncScope, node: cst.Call, name: str, kinds: bool = True,
                   optional_kinds: bool = False, statics: bool = False, held_args: bool = True) -> None:
        """Record the argument flows of a call to a function the project may define (for its
        summary: the callee's parameters get the kinds callers pass). With ``kinds=False``
        only the arguments the caller still holds and what it keeps of the result are
        recorded (a flow without argument kinds), and only when some argument is held. An
        optional parameter passed on as it came (``causal=None``) flows no kind, unless
        ``optional_kinds`` (a module's own staticmethod: it takes what the module's methods take).
        ``held_args=False`` records argument kinds only, no held arguments.
        With ``statics`` (``self.<m>(...)`` calls) the arguments' static descriptors are
        recorded too, and the flow always is: the project proves a parameter static from
        every call of the method (``interproc.static_inputs``)."""
        static: list[str] = []
        static_kw: list[tuple[str, str]] = []
        spread = False
        if statics:
            for a in node.args:
                if a.star:
                    spread = True
                    continue
                d = self._static_of(a.value)
                if a.keyword is not None:
                    static_kw.append((a.keyword.value, d))
                elif not spread:
                    static.append(d)
        args: list[Flow] = []
        keywords: list[str] = []
        kwargs: list[Flow] = []
        nones = _none_args(node, scope)
        for a in node.args if kinds else ():
            if a.star:
                if a.star == "*":
                    break
                continue
            v = a.value
            f = Flow() if not optional_kinds and type(v) is cst.Name and v.value in scope.optional and \
                v.value in scope.params else self._flow(v)
            if a.keyword is not None:
                keywords.append(a.keyword.value)
                kwargs.append(f)
            else:
                args.append(f)
        # arguments the caller still holds (for updates a port would lose, `CallFlow.held`)
        positional = [a for a in node.args if a.keyword is None and not a.star]
        held = tuple(i for i, a in enumerate(positional) if _is_held(a.value)) if held_args else ()
        held_kw = tuple(a.keyword.value for a in node.args if a.keyword is not None and _is_held(a.value)) \
            if held_args else ()
        flows_kinds = held or held_kw or any(f.kind or f.deps for f in (*args, *kwargs))
        if not statics and any(a.star for a in node.args):
            spread = True  # (the arguments cannot all be listed: which parameters it gives is unknown)
        if statics and not flows_kinds:
            key = (name, tuple(static), tuple(static_kw), spread, nones)
            if key in scope.static_flows:
                return  # the same static descriptors again: nothing new to prove from
            scope.static_flows.add(key)
        if statics or flows_kinds or nones:
            use = self.call_use.get(id(node), "") if held or held_kw else ""
            if (held or held_kw) and not scope.loops:
                # a local variable holding a new object is held only if the caller reads it
                # after the call (decided at the function's end); a parameter (its own
                # caller's object), `self.<attr>` (module state) and a local alias of either
                # (`queue = self.queue`, a view) are always held
                # (a module's forward's parameters are its user's inputs: that a port leaves
                # them unchanged loses nothing forward reads)
                fresh = scope.fresh | scope.params if scope.name == "forward" and scope.cls is not None \
                    and scope.cls.is_module else scope.fresh - scope.params
                by_pos = {i: v.value for i in held for v in [positional[i].value]
                          if type(v) is cst.Name and v.value in fresh}
                by_kw = {a.keyword.value: a.value.value for a in node.args if a.keyword is not None
                         and type(a.value) is cst.Name and a.keyword.value in held_kw and a.value.value in fresh}
                if by_pos or by_kw:
                    scope.held_names.append((len(scope.call_flows), self._lines(node)[1], by_pos, by_kw))
            bound = scope.last_value
            local = tuple(i for i, a in enumerate(positional)
                          if _is_local_container(a.value, bound, scope.params, scope.prior_value))
            local_kw = tuple(a.keyword.value for a in node.args if a.keyword is not None and
                             _is_local_container(a.value, bound, scope.params, scope.prior_value))
            scope.call_flows.append(CallFlow(name, tuple(args), tuple(keywords), tuple(kwargs), held, held_kw, use,
                                             tuple(static), tuple(static_kw), spread, local=local, local_kw=local_kw,
                                             nones=nones, splat=any(a.star == "*" for a in node.args)))

    def _static_of(self, expr: cst.BaseExpression) -> str:
        """``expr``'s static descriptor (:meth:`.values.ValueKinds.static_descriptor`); the
        assumed parameters it names go to the function's summary."""
        d = self.values.static_descriptor(expr)
        if "a:" in d:
            self.func_stack[-1].assumed_refs.update(k[2:] for k in d.split("&") if k[:2] == "a:")
        return d

    def _opaque_call(self, scope: _FuncScope, callee: str) -> None:
        """``self.<m>`` runs with arguments this file cannot list (handed on, called through an
        alias): a flow that keeps its parameters' tensor assumption (``CallFlow.spread``), once
        per function and callee, for a callee that may be a method (:func:`_may_be_method`)."""
        if _may_be_method(scope.cls, callee) and (callee, (), (), True) not in scope.static_flows:
            scope.static_flows.add((callee, (), (), True))
            scope.call_flows.append(CallFlow(callee, spread=True))

    def _is_global_pool_result(self, expr: cst.BaseExpression | None) -> bool:
        """``self.pool(x)`` with ``self.pool = nn.AdaptiveAvgPool2d(1)``, ``F.adaptive_*_pool*d(x, 1)``
        or ``x.mean((2, 3), keepdim=True)``, also through a local bound to one (``x =
        self.avgpool(x); torch.flatten(x, 1)``): a (N, C, 1, 1) map whose flattening is
        layout-free."""
        if type(expr) is cst.Name:
            return bool(self.func_stack) and expr.value in self.func_stack[-1].pooled
        if type(expr) is not cst.Call:
            return False
        name = self.qual(expr.func)
        cls = self.func_stack[-1].cls if self.func_stack else None
        if name.startswith("self.") and cls is not None and name[5:] in cls.global_pools:
            return True
        if name.startswith("torch.nn.functional.adaptive_") and len(expr.args) > 1:
            return literal(expr.args[1].value) in (1, (1,), (1, 1), (1, 1, 1))
        return type(expr.func) is cst.Attribute and expr.func.attr.value in ("mean", "amax", "sum")

    def _is_class_name(self, name: str) -> bool:
        """A constructor worth a composition edge: torch.nn layers, local or imported classes;
        not exceptions, typing helpers or dataclass utilities."""
        leaf = name.rsplit(".", 1)[-1]
        if leaf.endswith(("Error", "Exception", "Warning")) or name.startswith(("typing.", "collections.")):
            return False
        return not name.startswith("torch.") or name.startswith("torch.nn.")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if id(node) in self.targets:
            return
        if self.func_stack and any(type(el.slice) is cst.Slice for el in node.slice):
            scope = self.func_stack[-1]
            bounds = [p for el in node.slice if type(el.slice) is cst.Slice
                      for p in (el.slice.lower, el.slice.upper, el.slice.step) if p is not None]
            if scope.cache_lengths and self.kind(node.value) in K.TENSORISH:
                self._shape_uses(bounds, "slice bound", node)
            elif bounds and (scope.host_reads or any(type(b) is not cst.Name and type(b) is not cst.Integer
                                                     for b in bounds)):
                # a reduction bound (`x[:, :lengths.max() + 1]`) whatever the receiver's kind; the
                # receiver's own host-value bounds are the subscript read's (below)
                self._shape_uses(bounds, "slice bound", node, caches=False)
        self._fresh()
        got = self._subscript_read(node)
        if got is not None:
            self._site("subscript-read", node, receiver=got[0], data={"mask": got[1], "host_bound": got[2]})
            if got[2]:
                self._shape_uses((p for el in node.slice if type(el.slice) is cst.Slice
                                  for p in (el.slice.lower, el.slice.upper, el.slice.step)), "slice bound", node)
            return
        for req, v in self._variants(lambda: self._subscript_read(node)):
            if v is not None:
                self._site("subscript-read", node, receiver=v[0], data={"mask": v[1], "host_bound": v[2]},
                           requires=(req,))

    def _subscript_read(self, node: cst.Subscript) -> tuple[str, bool, bool] | None:
        """(receiver kind, boolean-mask index, host-value slice bound) of a tensor read
        through a data-dependent index, else None."""
        base = self.kind(node.value)
        mask = self._index_has_mask(node)
        if base == K.U and mask:
            base = K.T  # only arrays take a boolean-mask index
        if base not in K.TENSORISH and base != K.U:
            return None
        # (asked for an unknown base too: the bounds' symbolic inputs join the base's, so that
        # `feat[:, y0:y1]` with `y0 = int(box[1])` in a helper is tried with both as tensors)
        host_bound = self._index_has_host_value(node)
        if base not in K.TENSORISH:
            return None
        return (base, mask, host_bound) if mask or host_bound else None

    def _index_has_mask(self, node: cst.Subscript) -> bool:
        """An index element that is a boolean mask: of mask kind, or a tensor named as a mask
        (``hidden_states[mask_time_indices] = v``, ``x[~p_attn_mask]``): a tensor used as an
        index is integer or boolean, and PyTorch code names the boolean ones masks."""
        for el in node.slice:
            if type(el.slice) is not cst.Index:
                continue
            v = el.slice.value
            k = self.kind(v)
            if k == K.B:
                return True
            if k == K.T and _mask_named(v) and not (
                    type(v) is cst.Name and self.func_stack and
                    self.func_stack[-1].ctor_of.get(v.value, "") in _INDEX_BUILDERS):
                return True  # (not `mask_indices = torch.arange(n)`: integer positions)
            if k == K.U and type(v) is cst.UnaryOperation and type(v.operator) is cst.BitInvert and _mask_named(v):
                return True  # `x[:, ~E_residue_mask]`, the mask a helper returned: inverted, it is boolean
        return False

    def _index_has_host_value(self, node: cst.Subscript) -> bool:
        for el in node.slice:
            sl = el.slice
            parts: list[cst.BaseExpression | None] = []
            if type(sl) is cst.Slice:
                parts = [sl.lower, sl.upper, sl.step]
            for p in parts:
                if p is not None and self.kind(p) in (K.H, K.T) and not self._is_optional_param(p):
                    return True
        return False

    def _made_hook(self, value: cst.BaseExpression, scope: _FuncScope) -> str:
        """The closure a hook factory method returns (``register_forward_hook(self._make_hook(name))``
        with ``def _make_hook(self, name): def hook(m, i, o): ...; return hook``), as a qualname;
        "" for anything else. The method may come later in the class (its node is read)."""
        if type(value) is not cst.Call or not _is_self_attr(value.func) or scope.cls is None:
            return ""
        name = value.func.attr.value  # type: ignore[attr-defined]
        fn = scope.cls.method_nodes.get(name)
        inner = _returned_def(fn) if fn is not None else ""
        return f"{scope.cls.qualname}.{name}.{inner}" if inner else ""

    def _hook_replaces(self, cb: cst.BaseExpression, scope: _FuncScope) -> bool:
        """Whether a hook callback returns a value, which replaces what it intercepts (a forward
        hook's return replaces the module's output, a pre-hook's its input, a tensor hook's the
        gradient: whisper's key/value cache hooks return the grown cache). True for a lambda
        whose body is no recording call (``lambda g: g.clamp(-1, 1)``; not ``lambda m, i, o:
        feats.append(o)``) and for a function of the file, or a method of the class, some
        ``return`` of which gives a value; False when the callback is not found."""
        if type(cb) is cst.Lambda:
            body = cb.body
            if type(body) is cst.Call:
                fn = body.func
                leaf = fn.attr.value if type(fn) is cst.Attribute else fn.value if type(fn) is cst.Name else ""
                return leaf not in _RECORDING_CALLS
            return not (type(body) is cst.Name and body.value == "None")
        fn_node = self._def_named(cb, scope)
        if fn_node is None and type(cb) is cst.Call:
            # `self._hook(name)`: a factory of the file returning its nested callback (`return fn`)
            factory = self._def_named(cb.func, scope)
            made = _returned_name(factory) if factory is not None else ""
            fn_node = next((d for d in _nested_defs(factory) if d.name.value == made), None) if made else None  # type: ignore[arg-type]
        return fn_node is not None and _returns_value(fn_node)

    def _def_named(self, ref: cst.BaseExpression, scope: _FuncScope) -> cst.FunctionDef | None:
        """The ``def`` of this file that ``ref`` names: a function nested in an enclosing
        function, a method of the class (``self.m``), or a module-level function; None if none."""
        if type(ref) is cst.Name:
            nested = next((d for sc in reversed(self.func_stack) if sc.node is not None
                           for d in _nested_defs(sc.node) if d.name.value == ref.value), None)
            return nested if nested is not None else self.top_defs.get(ref.value)
        if _is_self_attr(ref) and scope.cls is not None:
            return scope.cls.method_nodes.get(ref.attr.value)  # type: ignore[union-attr]
        return None

    def _context_manager_classes(self, item: cst.BaseExpression, scope: _FuncScope) -> tuple[str, ...]:
        """The project classes a ``with`` item may be an instance of: a class called in place
        (``with Profile():``), an attribute init code built from a class (``with self.timer:``),
        or a local bound to an instance (``t = Timer(); with t:``); torch's and other libraries'
        managers are left out (nothing of the project runs)."""
        if type(item) is cst.Call:
            name = self.qual(item.func)
            out: tuple[str, ...] = (name,) if name else ()
        elif _is_self_attr(item) and scope.cls is not None:
            built = scope.cls.attr_ctor.get(item.attr.value)  # type: ignore[union-attr]
            out = (built,) if built else ()
        elif type(item) is cst.Name:
            out = tuple(scope.binds.instances.get(item.value, ()))
        else:
            out = ()
        return tuple(c for c in out if c.rsplit(".", 1)[-1][:1].isupper() and not c.startswith(_NOT_PROJECT)
                     and not c.startswith(("torch.", "contextlib.", "warnings.", "threading.")))

    def _passed_edge(self, caller: str, callee: str, where: cst.CSTNode | int) -> None:
        """A call fact marked ``passed``, once per (caller, callee): an edge only where the project
        resolves ``callee`` (``self.<attr>`` read without a call: a ``@property`` body runs at
        every read; ``self.<attr>.__iter__`` of a loop over a held container;
        ``self.<attr>.__call__`` of an entry called by key), no reference counted otherwise.
        ``where``: the node (its line is looked up only for a new fact) or the line."""
        if (caller, callee) not in self._call_seen:
            self._call_seen.add((caller, callee))
            line = where if isinstance(where, int) else self._line(where)
            self.calls.append(CallFact(caller=caller, callee=callee, line=line, passed=True))

    def _state_read(self, node: cst.Attribute, attr: str, scope: _FuncScope) -> None:
        """Record a read of a plain Python attribute of a module (``self.temperature``) or of a
        class of this file (``MultiHeadAttention.use_sdpa``, ``self.__class__.flag``) in code
        that may run under the trace, for :meth:`_host_state_reads`."""
        value = node.value
        if type(value) is cst.Name and value.value == "self":
            cls = scope.cls
            if cls is None or attr in cls.methods or cls.attr_kinds.get(attr, K.S) not in (K.S, K.U):
                return
            owner, text = cls.qualname, f"self.{attr}"
        else:
            owner = self._class_object(value, scope)
            if not owner:
                return
            info = self.local_classes.get(owner.rsplit(".", 1)[-1])
            if info is not None and (attr in info.methods or info.attr_kinds.get(attr, K.S) not in (K.S, K.U)):
                return
            text = f"{owner.rsplit('.', 1)[-1]}.{attr}" if type(value) is cst.Name and value.value != "cls" \
                else f"{_dotted(value) or 'type(self)'}.{attr}"
        reads = self.traced_reads.setdefault(owner, {})
        old = reads.get(attr)
        if old is None or (old[2] != "traced" and scope.context == "traced"):
            reads[attr] = (self._line(node), scope.qualname, scope.context, text)

    def _is_optional_param(self, expr: cst.BaseExpression) -> bool:
        """``n`` or ``-n`` for a parameter as passed that defaults to None and is assumed a
        tensor only for being a module method's argument (``trailing_n=None``): as a slice
        bound it is an optional count, not evidence of a tensor value."""
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
            expr = expr.expression
        if type(expr) is not cst.Name or not self.func_stack:
            return False
        scope = self.func_stack[-1]
        return expr.value in scope.optional and expr.value in scope.params

    def visit_Attribute(self, node: cst.Attribute) -> None:
        attr = node.attr.value
        value = node.value
        tv = type(value)
        # (cheap tests first: this runs for every attribute; only `self.x`, `Class.x`, `cls.x`,
        # `self.__class__.x` and `type(self).x` can read such state)
        if self.func_stack and (
                (tv is cst.Name and (value.value in ("self", "cls") or value.value in self.bindings.classes)) or
                (tv is cst.Attribute and value.attr.value == "__class__") or
                (tv is cst.Call and type(value.func) is cst.Name and value.func.value == "type")) and \
                attr != "training" and id(node) not in self.targets:
            scope = self.func_stack[-1]
            cls = scope.cls
            if tv is cst.Name and value.value == "self" and cls is not None and id(node) not in self.called_funcs:
                if attr in cls.methods:
                    self.escaped_methods.add(attr)  # `fns = [self.a, self.b]`: called with unknown arguments
                    if not scope.init_like and not _has_setter(cls.method_nodes.get(attr)):
                        # a property read runs its body (init code reading a method binds it:
                        # `self.forward = self.forward_slicing`; a property with a setter shares
                        # its name with the setter, whose body a read does not run)
                        self._passed_edge(scope.qualname, f"self.{attr}", node)
                elif cls.bases and attr not in cls.attr_kinds and attr not in cls.attr_ctor and \
                        not scope.init_like and (scope.qualname, attr) not in self._base_reads_seen:
                    # an attribute this class may never set: a property (or method) of a base in
                    # another file, when the project finds one there (kept if, once the file is
                    # walked, no method of the class has set it: leave_Module)
                    self._base_reads_seen.add((scope.qualname, attr))
                    self._base_reads.append((cls, scope.qualname, attr, self._line(node)))
            if scope.context in ("traced", "function") and not scope.init_like and not scope.toggle:
                self._state_read(node, attr, scope)
        elif self.func_stack and tv is cst.Attribute and id(node) not in self.called_funcs and \
                id(node) not in self.targets and (held := _self_chain(value)):
            if _is_self_attr(value):
                self.escaped_methods.add(attr)  # `fn = self.block.gate`: a submodule's method, maybe of this file
            scope = self.func_stack[-1]
            head = held[5:].split(".", 1)[0]
            if not scope.init_like and attr not in _PLAIN_MODULE_ATTRS and not attr.startswith("__") and \
                    head != "config" and not head.endswith("_config") and not (scope.cls is not None and (
                        (scope.cls.attr_ctor.get(head, "").startswith("torch.") and
                         scope.cls.attr_ctor[head] not in _CONTAINER_CTORS) or
                        scope.cls.attr_kinds.get(head) in K.TENSORISH)):
                # `self.attn.kv_cache.size` (torchtune): a property of the held object's class runs
                # its body at every read; an edge only where the project resolves it to a function
                # (not through a torch module, a tensor or the model's config: `self.norm.normalized_shape`,
                # `self.config.hidden_size` are no project properties that compute)
                self._passed_edge(scope.qualname, f"{held}.{attr}", node)
        if attr in self.attribute_interest:
            self._site("attribute-read", node, name=attr, receiver=self.kind(node.value),
                       data={"on_self": type(node.value) is cst.Name and node.value.value == "self",
                             "target": id(node) in self.targets, "mode_glue": id(node) in self.mode_glue,
                             "self_chain": _root_name(node.value) == "self"})
        if attr in self.name_leaves:
            resolved = self.qual(node)
            if resolved in self.name_interest:
                self._site("name-ref", node, name=resolved, data={"compared": id(node) in self.compared})

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) > 1 and self.func_stack and id(node) not in self.cond_tests:
            # `t0 < t_next < t0 + dt` is `t0 < t_next and t_next < t0 + dt`: bool() of every
            # link but the last, even where the result is only assigned (torchdiffeq's
            # `on_step_t = t0 < next_step_t < t0 + dt`). A chain that is itself an if/while/
            # assert test is reported as that test. The links before the last are what bool()
            # sees; when none of them is known to be a value but not all are static (`t0`
            # unpacked from a solver state) and the chain holds a value (`t0 + dt`), the chain
            # compares values of one sort: it is reported as a whole.
            # Evidence without hypotheses first (a link's operand, then the whole chain), then
            # the hypotheses on symbolic inputs that would make a link's operand a value.
            links = (node.left, *(c.comparator for c in node.comparisons))[:-1]
            data = {"construct": "chained comparison", "exits": False, "exit": ""}
            kinds = [self.kind(o) for o in links]
            direct = next((o for o, k in zip(links, kinds) if k in K.VALUE_KINDS), None)
            if direct is None and any(k != K.S for k in kinds) and self.kind(node) in K.VALUE_KINDS:
                direct = node
            if direct is not None:
                self._condition_sites(node, direct, data, carry=False)
            else:
                any(self._condition_sites(node, o, dict(data), carry=False) for o in links)
        # `x.dtype in (torch.float32, torch.float64)` / `dtype == torch.float64` test a name;
        # they create nothing (name-ref sites carry `compared`)
        if self.name_interest:
            for operand in (node.left, *(c.comparator for c in node.comparisons)):
                if type(operand) in (cst.Tuple, cst.List, cst.Set):
                    self.compared.update(id(el.value) for el in operand.elements)
                else:
                    self.compared.add(id(operand))

    def visit_Param(self, node: cst.Param) -> None:
        # `eps: float = np.finfo(np.float32).eps.item()`: evaluated when the `def` runs, not per
        # call (a parameter of the function whose scope is open; a lambda inside a function
        # that opens no scope of its own is the enclosing code's)
        if node.default is not None and self._own_param(node):
            self.param_defaults += 1
            self.default_params.add(id(node))

    def leave_Param(self, node: cst.Param) -> None:
        if self.default_params and id(node) in self.default_params:
            self.param_defaults -= 1

    def _own_param(self, node: cst.Param) -> bool:
        fn = self.func_stack[-1].node if self.func_stack else None
        if type(fn) is not cst.FunctionDef:
            return False
        ps = fn.params
        return any(p is node for p in (*ps.params, *ps.kwonly_params, *ps.posonly_params))

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        # `a or b` / `a and b` force bool(a): value-dependent when a is a tensor value. A
        # boolean operation that is itself an if/while/assert test is reported as that test.
        if type(node.operator) is cst.And and "training" in self.attribute_interest:
            self._mode_glue(node)
        for side in (node.left, node.right):
            if type(side) is cst.BooleanOperation or (type(side) is cst.Comparison and id(node) in self.cond_tests):
                self.cond_tests.add(id(side))  # (a chained comparison inside a test is that test)
        if id(node) in self.cond_tests or self._is_bare_param(node.left):
            return
        self._condition_sites(node, node.left, {"construct": "and/or", "exits": False, "exit": ""})

    def _mode_glue(self, node: cst.BooleanOperation) -> None:
        """``self.gradient_checkpointing and self.training``: the mode read only picks
        activation checkpointing (or turns the cache off under it), which a port writes as
        ``nnx.remat`` whatever the mode, with the same numbers: no train/eval argument follows
        from it. Likewise beside the cache's own flags (``use_cache and past_key_values is None
        and not self.training``: a lazy cache allocation a JAX forward takes as an argument). Records the ``self.training`` operands of an ``and`` chain holding a
        checkpointing flag (:data:`_CHECKPOINT_FLAG`) or a cache flag (:func:`_cache_operand`) in
        ``mode_glue`` (read by the attribute-read sites' ``mode_glue``; visit_Call adds the
        ``is_training=self.training`` argument of a mask helper)."""
        operands: list[cst.BaseExpression] = []
        todo: list[cst.BaseExpression] = [node]
        while todo:
            e = todo.pop()
            if type(e) is cst.BooleanOperation and type(e.operator) is cst.And:
                todo += (e.left, e.right)
            else:
                operands.append(e)
        if not any(_CHECKPOINT_FLAG.match(o.attr.value if type(o) is cst.Attribute else
                                          o.value if type(o) is cst.Name else "") or _cache_operand(o)
                   for o in operands):
            return
        for o in operands:
            if type(o) is cst.UnaryOperation and type(o.operator) is cst.Not:
                o = o.expression  # `... and not self.training`
            if type(o) is cst.Attribute and o.attr.value == "training" and type(o.value) is cst.Name \
                    and o.value.value == "self":
                self.mode_glue.add(id(o))

    def _member_factory(self, value: cst.BaseExpression) -> None:
        """Learn the file's member factories from a ``return`` (:meth:`Bindings.bind_factory`):
        a top-level function that, for its parameter ``name``, returns ``getattr(X, name)``, a
        ``lambda *a: getattr(X, name)(*a)``, or a closure of its own whose ``return`` calls
        ``getattr(X, name)(*args)`` (also through a local: ``fn = getattr(X, name); return
        fn(*args)``): gsplat's and nerfacc's ``_make_lazy_cuda_func(name)``, the kernel table of a
        lazily loaded extension. ``value`` is the returned expression."""
        outer = self.func_stack[0]
        if type(value) is cst.Name:  # `return call_cuda`: the closure already seen
            if len(self.func_stack) == 1:
                found = self._closure_members.get(value.value)
                if found is not None and found[0] == outer.qualname:
                    self.bindings.bind_factory(outer.name, *found[1:])
            return
        closure = self.func_stack[1] if len(self.func_stack) == 2 else None
        if closure is not None:
            lookup = _called_lookup(value, closure.last_value)  # the closure calls the member
        elif type(value) is cst.Lambda:
            lookup = _called_lookup(value.body, {})
        else:
            lookup = value if _is_lookup_by_name(value) else None
        if lookup is None:
            return
        param = lookup.args[1].value.value  # type: ignore[attr-defined]
        if param not in outer.param_order or (closure is not None and param in closure.params):
            return
        holder = self.qual(lookup.args[0].value)
        if not holder or holder.startswith("self."):
            return
        found = (outer.qualname, holder, outer.param_order.index(param), param)
        if closure is None:
            self.bindings.bind_factory(outer.name, *found[1:])
        else:
            self._closure_members[closure.name] = found

    def visit_Return(self, node: cst.Return) -> None:
        if not self.func_stack or node.value is None or self.export_only:
            return  # (a return only an exporter runs gives the eager callers nothing)
        scope = self.func_stack[-1]
        value = node.value
        if type(value) is cst.Call and scope.cls is None and len(self.func_stack) == 1:
            built = self._built_callee(value.func)
            if built and built not in scope.builds:
                scope.builds.append(built)  # `return SCHEDULERS[name](**kwargs)`: a builder
        if not (type(value) is cst.Name and value.value == "None"):
            scope.returns_value = True
        cls = scope.cls
        if scope.is_method and cls is not None and scope.node is not None and scope.name not in cls.attr_kinds \
                and any(_dotted(d.decorator) == "property" for d in scope.node.decorators) \
                and (returned := self.kind(value)) in K.TENSORISH:
            # `@property def temperature(self): return self.logit_scale.exp()`: `self.temperature`
            # in the methods after it is a tensor (a condition on it is data-dependent); a mask
            # stays one (`return self.gate.abs() > eps`: `x[:, self.keep_mask]` selects by data)
            cls.attr_kinds[scope.name] = returned
        if self.bindings.handles and len(self.func_stack) == 1 and not self.class_stack:
            # `def _get_plugin(): ... return _plugin` (a compiled extension): `_get_plugin().op(x)`
            self.bindings.bind_getter(scope.qualname.rsplit(".", 1)[-1], self._targets(value))
        if len(self.func_stack) == 1 and not self.class_stack and type(value) in (cst.IfExp, cst.BooleanOperation):
            # `def MaybeSyncBatchnorm(d=None): return nn.SyncBatchNorm if d else nn.BatchNorm1d`
            # (enformer): a call of it is one of those classes, `MaybeSyncBatchnorm()(dim)` builds it
            classes = [t for alt in _alternatives(value) for t in self._targets(alt)]
            if classes and all(is_class_like(t) for t in classes):
                self.bindings.bind_returned(scope.qualname.rsplit(".", 1)[-1], tuple(dict.fromkeys(classes)))
        if len(self.func_stack) == 1 and not self.class_stack and type(value) is cst.Subscript:
            # `def get_act(name): return ACTS[name]`: a call of it is one of the table's entries;
            # `types = (nn.BatchNorm1d, nn.BatchNorm2d); return types[dim - 1]` (a local table)
            local = scope.last_value.get(value.value.value) if type(value.value) is cst.Name else None
            entries = self.bindings.table_entries(local) if type(local) in (cst.Tuple, cst.List) else ()
            self.bindings.bind_returned(scope.qualname.rsplit(".", 1)[-1], entries or self._targets(value))
        elif len(self.func_stack) == 1 and not self.class_stack and type(value) is cst.Name and \
                value.value in scope.local_defs:
            # `def make_attention(scale): def attention(q, k, v): ...; return attention`, a
            # decorator returning its `wrapper`: a call of the factory is the closure
            # (`self.attn_fn = make_attention(s)`; `FileFacts.closure_factories` across files)
            self.bindings.bind_returned(scope.name, (scope.local_defs[value.value],))
            self.closure_factories.setdefault(scope.qualname, scope.local_defs[value.value])
        elif len(self.func_stack) == 1 and not self.class_stack and type(value) in (cst.IfExp, cst.Name):
            # `def get_bias_gelu(use_compile): return bias_gelu if use_compile else _eager`: a call
            # of the factory is one of the file's functions (`self.bias_act = get_bias_gelu(c)`
            # in another file, then `self.bias_act(x, b)` in forward: the first alternative,
            # through `FileFacts.closure_factories`)
            own = tuple(t for t in self._targets(value) if t.startswith(f"{self.module}.")
                        and t[len(self.module) + 1:] in self.bindings.functions)
            if own:
                self.bindings.bind_returned(scope.name, own)
                self.closure_factories.setdefault(scope.qualname, own[0])
        if len(self.func_stack) <= 2 and not self.class_stack and (type(value) in (cst.Call, cst.Lambda) or (
                type(value) is cst.Name and value.value in self._closure_members)):
            self._member_factory(value)
        # parameters returned as passed (asked before the return value's own in-place writes,
        # `return x.mul_(s)`, are visited)
        names = scope.param_order
        if type(value) is cst.Tuple:
            for i, e in enumerate(value.elements):
                scope.returned.update((n, i) for n in _returned_names(e.value) if n in names)
        else:
            scope.returned.update((n, -1) for n in _returned_names(value) if n in names)
        scope.ret_flows.append(self._flow(value))
        if type(value) is cst.Name and value.value in scope.host_reads:
            # (an `.item()` read is a host value: its flow says so already)
            self._fresh()
            reduced: tuple[str, ...] | None = None if self.kind(value) == K.H else scope.host_reads[value.value][1]
        else:
            reduced = self._reduction_requires(value)
        if reduced is not None:
            # `return lengths.max()`: a caller's `torch.arange(longest(lengths))` reads data
            scope.ret_reduced.update(reduced or ("*",))
        scope.ret_ragged.update(self._ragged_requires(value))
        entries = scope.dict_kinds.get(value.value) if type(value) is cst.Name else self._dict_entry_kinds(value)
        for key, expr in (entries or {}).items():
            scope.ret_keys.setdefault(key, []).append(self._flow(expr))  # `return {"n_pos": k}`
        tuple_items = type(value) is cst.Tuple and not any(type(e) is cst.StarredElement for e in value.elements)
        scope.ret_items = _join_items(scope.ret_items, [self._flow(e.value) for e in value.elements],
                                      not scope.ret_flows[:-1]) if tuple_items else []
        if tuple_items:
            for i, e in enumerate(value.elements):
                if type(e.value) is cst.Tuple and not any(type(x) is cst.StarredElement for x in e.value.elements):
                    # `return (fg_mask, idx), loss, {}`: the nested items, as "i.j" keys
                    for j, sub in enumerate(e.value.elements):
                        scope.ret_keys.setdefault(f"{i}.{j}", []).append(self._flow(sub.value))
        if scope.is_method:
            # whether the result is static (a flag `y, flag = self.get_state(x)` passes on)
            describe = self._static_of
            scope.ret_static.append(describe(value))
            scope.ret_static_items = _join_items(scope.ret_static_items, [describe(e.value) for e in value.elements],
                                                 len(scope.ret_static) == 1) if tuple_items else []

    def _line(self, node: cst.CSTNode) -> int:
        return self._lines(node)[0]

    def _param_evidence(self, fn: cst.FunctionDef) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
        """(mapping names, scalar names, tensor names) in ``fn``'s source text, whatever the
        module-method guess (or a parameter's name) says of a parameter so used. Tensor: a name
        that takes a method only a tensor has (``length.cpu()``, ``seq_len.item()``:
        :data:`_TENSOR_ONLY_CALL`). Mapping: a name that takes a method ``torch.Tensor``
        does not have (``state_dict.keys()``, ``sd.pop(k)``, ``prefix.endswith(...)``:
        :data:`~.kinds.NON_TENSOR_METHODS`): a mapping, a string or a list. Scalar: a bare name
        given to a ``math`` function or as ``range``'s argument (``math.floor(nfe / 3)``,
        ``range(n_steps)``; not ``math.sqrt(x.shape[-1])``): a Python number. A text match (a
        comment counts), read only when a parameter would otherwise be guessed a tensor."""
        positions = self.metadata.get(PositionProvider)
        text_after = getattr(positions, "text_after", None)
        if text_after is None:
            return frozenset(), frozenset(), frozenset()
        start, end = self._lines(fn)
        text = text_after(start - 1, end)
        if "." not in text:
            return frozenset(), frozenset(), frozenset()
        scalars = frozenset(n for pair in _SCALAR_USE.findall(text) for n in pair if n) \
            if "math." in text or "range(" in text else frozenset()
        tensors = frozenset(_TENSOR_ONLY_CALL.findall(text))
        if tensors and ("is_tensor(" in text or "isinstance(" in text):
            # `if torch.is_tensor(seq_len): seq_len = seq_len.item()`: a guard, no evidence
            tensors = tensors - frozenset(_TYPE_TESTED.findall(text))
        return frozenset(_NON_TENSOR_CALL.findall(text)), scalars, tensors

    def _lines(self, node: cst.CSTNode) -> tuple[int, int]:
        """First and last line of ``node``: through the fast walk's line-only lookup (no code
        generation for one-line statements) when it provides the positions."""
        positions = self.metadata.get(PositionProvider)
        lines = getattr(positions, "lines", None)
        if lines is not None:
            return lines(node)  # type: ignore[no-any-return]
        rng = self.get_metadata(PositionProvider, node)
        return rng.start.line, rng.end.line


#: ``<name>.<method>(`` for a method ``torch.Tensor`` lacks (:meth:`FileVisitor._mapping_params`)
_NON_TENSOR_CALL = re.compile(
    r"(?<![\w.])([A-Za-z_]\w*)\s*\.\s*(?:" + "|".join(sorted(K.NON_TENSOR_METHODS)) + r")\s*\(")


#: ``<name>.<method>(`` for a method only a tensor (or an array) has (:meth:`FileVisitor._param_evidence`)
_TENSOR_ONLY_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*\.\s*(?:"
                               + "|".join(sorted(_TENSOR_ONLY_METHODS)) + r")\s*\(")


#: A name whose type is tested (``torch.is_tensor(n)``, ``isinstance(n, ...)``): :meth:`FileVisitor._param_evidence`
_TYPE_TESTED = re.compile(r"(?:is_tensor|isinstance)\(\s*([A-Za-z_]\w*)\s*[,)]")


#: A bare name given to a ``math`` function (``math.floor(nfe / 3)``) or to ``range``
#: (``range(n_steps)``, ``range(0, n)``): a Python number (:meth:`FileVisitor._param_evidence`)
_SCALAR_USE = re.compile(
    r"(?<![\w.])math\.[a-z]\w*\(\s*([A-Za-z_]\w*)\s*(?:[-+*/%,)])"
    r"|(?<![\w.])range\(\s*(?:[\w.]+\s*,\s*)?([A-Za-z_]\w*)\s*[,)]")


_PLAIN_BASE_PREFIXES = ("torch.", *PLAIN_BASE_PREFIXES)


_PLAIN_BASES = PLAIN_BASES


def _may_be_module_base(name: str) -> bool:
    """A base this file cannot tell is an ``nn.Module`` or not: a project class from another
    file or a library class (``speechbrain.nnet.containers.Sequential``), not torch's nor the
    standard library's."""
    return not name.startswith(_PLAIN_BASE_PREFIXES) and name not in _PLAIN_BASES


def _is_torch_module_base(name: str) -> bool:
    if not name.startswith(_MODULE_BASES):
        return False
    leaf = name.rsplit(".", 1)[-1]
    return leaf[:1].isupper() and leaf not in ("Parameter",)


def _rebound_names(func: cst.FunctionDef | None) -> frozenset[str]:
    """Names that ``func``'s own body (not nested functions, classes or comprehensions) binds
    more than once, by any form: assignment and tuple unpacking, annotated assignment, walrus,
    ``for``/``with ... as``/``except ... as`` targets, imports, ``del``. An augmented
    assignment is not a rebinding (``w += 1`` updates a tensor in place). Walked only for the
    rare call sites that ask (:meth:`FileVisitor._fresh_tensor`)."""
    if func is None:
        return frozenset()
    counts: dict[str, int] = {}

    def bind(target: cst.BaseExpression) -> None:
        for name in _names_in_target(target):
            counts[name] = counts.get(name, 0) + 1

    todo: list[cst.CSTNode] = [func.body]
    while todo:
        n = todo.pop()
        t = type(n)
        if t in (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp):
            continue
        if t is cst.Assign:
            for tg in n.targets:  # type: ignore[attr-defined]
                bind(tg.target)
        elif t in (cst.AnnAssign, cst.NamedExpr, cst.For, cst.Del):
            bind(n.target)  # type: ignore[attr-defined]
        elif t is cst.WithItem and n.asname is not None:  # type: ignore[attr-defined]
            bind(n.asname.name)  # type: ignore[attr-defined]
        elif t is cst.ExceptHandler and n.name is not None:  # type: ignore[attr-defined]
            bind(n.name.name)  # type: ignore[attr-defined]
        todo.extend(child_nodes(n))
    return frozenset(k for k, v in counts.items() if v > 1)


#: Class decorators whose class gets an ``__init__`` generated from its annotated fields
#: (dataclasses; attrs' next-generation API and its classic ``attr.s``), for
#: :meth:`FileVisitor._dataclass_start`.
_FIELD_CLASS_DECORATORS = frozenset({
    "dataclasses.dataclass", "dataclass", "attrs.define", "attrs.frozen", "attrs.mutable",
    "attr.define", "attr.frozen", "attr.mutable", "attr.s", "attr.attrs", "attrs.s",
})


#: attrs' classic decorators: annotated fields only with ``auto_attribs=True``
_ATTRS_CLASSIC = frozenset({"attr.s", "attr.attrs", "attrs.s"})


#: ``field(...)`` specifiers of those classes (``init=``, ``kw_only=``, ``default=``)
_FIELD_CALLS = frozenset({"dataclasses.field", "field", "attrs.field", "attr.field", "attr.ib", "attr.attrib"})


_NAMEDTUPLE_BASES = frozenset({"typing.NamedTuple", "NamedTuple"})


#: torch functions that return a new tensor (never a view of their input), for
#: :meth:`FileVisitor._fresh_tensor`.
_FRESH_BUILDERS = frozenset({
    "torch.zeros", "torch.zeros_like", "torch.ones", "torch.ones_like", "torch.full", "torch.full_like",
    "torch.empty", "torch.empty_like", "torch.arange", "torch.linspace", "torch.logspace", "torch.eye",
    "torch.tensor", "torch.rand", "torch.rand_like", "torch.randn", "torch.randn_like", "torch.randint",
    "torch.randint_like", "torch.randperm", "torch.cat", "torch.concat", "torch.stack", "torch.where",
    "torch.clone", "torch.tril", "torch.triu", "torch.cumsum", "torch.bernoulli", "torch.multinomial",
})


#: tensor methods that return a new tensor
_FRESH_METHODS = frozenset({"clone", "new", "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor"})


#: tensor methods that return their receiver (in-place fills) or, at most, a copy of it: a
#: fresh receiver stays fresh through them
_SAME_TENSOR_METHODS = frozenset({
    "to", "contiguous", "normal_", "uniform_", "bernoulli_", "exponential_", "fill_", "zero_", "random_",
})


#: torch functions whose result is integer positions, never a boolean mask.
_INDEX_BUILDERS = frozenset({
    "torch.arange", "torch.randperm", "torch.argsort", "torch.nonzero", "torch.argmax", "torch.argmin",
    "torch.multinomial", "torch.randint", "torch.searchsorted", "torch.bucketize",
})


_MASK_WORDS = frozenset({"mask", "masks", "bool"})


_NOT_MASK_WORDS = frozenset({"idx", "index", "ids", "id", "len", "length", "lengths", "size", "value", "values"})


def _mask_named(expr: cst.BaseExpression) -> bool:
    """``mask``, ``image_mask_joint``, ``mask_time_indices``, ``bool_masked_pos`` (also under
    ``~`` / ``.view(-1)`` / ``[i]``): a name whose words say boolean mask, and none says
    positions or sizes (``mask_idx``, ``mask_len``, ``unmasked_channel_indices``)."""
    while True:
        if type(expr) is cst.UnaryOperation:
            expr = expr.expression
        elif type(expr) is cst.Subscript:
            expr = expr.value
        elif type(expr) is cst.Call and type(expr.func) is cst.Attribute and \
                expr.func.attr.value in ("view", "reshape", "flatten", "to", "cpu", "cuda", "squeeze", "unsqueeze"):
            expr = expr.func.value
        else:
            break
    if type(expr) is not cst.Name:
        return False
    words = set(expr.value.lower().split("_"))
    return bool(words & _MASK_WORDS) and not words & _NOT_MASK_WORDS


def _reads_self_attr(value: cst.BaseExpression | None, attr: str) -> bool:
    """``value`` is arithmetic with ``self.<attr>`` as a direct operand (``self.n + 1``)."""
    if type(value) is not cst.BinaryOperation:
        return False
    return any(type(o) is cst.Attribute and o.attr.value == attr and _is_self_attr(o)
               for o in (value.left, value.right))


def _self_lookup_prefix(func: cst.BaseExpression) -> str:
    """``self.<prefix>*`` for a method of self looked up by a computed name with a literal
    start (``getattr(self, f"forward_{self.mode}")``, ``getattr(self, "_run_" + kind)``): a
    call of each method so named, which the project graph lists (a mixin's too); "" otherwise."""
    if type(func) is not cst.Call or type(func.func) is not cst.Name or func.func.value != "getattr" or \
            len(func.args) != 2 or not _is_self(func.args[0].value):
        return ""
    name = func.args[1].value
    head: cst.BaseExpression | None = None
    if type(name) is cst.FormattedString and name.parts and type(name.parts[0]) is cst.FormattedStringText:
        prefix = name.parts[0].value
    elif type(name) is cst.BinaryOperation and type(name.operator) is cst.Add and type(name.left) is cst.SimpleString:
        head = name.left
        prefix = head.evaluated_value if isinstance(head.evaluated_value, str) else ""  # type: ignore[attr-defined]
    else:
        return ""
    return f"self.{prefix}*" if len(prefix) >= 2 and prefix.replace("_", "a").isidentifier() else ""


def _is_lookup_by_name(node: cst.BaseExpression) -> bool:
    """``getattr(X, name)``: a member looked up by a variable (not a literal) name."""
    return type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "getattr" \
        and len(node.args) == 2 and type(node.args[1].value) is cst.Name  # type: ignore[attr-defined]


def _called_lookup(node: cst.BaseExpression, local_values: Mapping[str, cst.BaseExpression]) -> cst.Call | None:
    """The ``getattr(X, name)`` that the call ``node`` calls, directly or through a local name
    bound to it (``local_values``: name -> the expression last bound); None otherwise."""
    if type(node) is not cst.Call:
        return None
    func = node.func
    if type(func) is cst.Name:
        func = local_values.get(func.value, func)
    return func if _is_lookup_by_name(func) else None  # type: ignore[return-value]


def _setattr_target(node: cst.Call, name: str) -> tuple[cst.Attribute, cst.BaseExpression] | None:
    """``(self.<attr>, value)`` for a call that writes an attribute of ``self`` named by a string
    literal: ``setattr(self, "mask", m)``, ``self.__setattr__("mask", m)``, ``super().__setattr__(
    "mask", m)``, ``object.__setattr__(self, "mask", m)`` (``nn.Module.__setattr__`` likewise).
    None for any other call, and for a name that is not a literal (``setattr(self, f"l{i}", m)``)."""
    args = node.args
    if any(a.star or a.keyword is not None for a in args):
        return None
    func = node.func
    if name == "setattr" or (type(func) is cst.Attribute and len(args) == 3 and type(func.value) is not cst.Call
                             and not _is_self(func.value)):
        if len(args) != 3 or not _is_self(args[0].value):
            return None  # setattr(obj, ...) / object.__setattr__(obj, ...) on another object
        key, value = args[1].value, args[2].value
    elif len(args) == 2 and type(func) is cst.Attribute and (
            _is_self(func.value) or (type(func.value) is cst.Call and type(func.value.func) is cst.Name
                                     and func.value.func.value == "super")):
        key, value = args[0].value, args[1].value
    else:
        return None
    if type(key) is not cst.SimpleString:
        return None
    attr = key.evaluated_value
    if not isinstance(attr, str) or not attr.isidentifier():
        return None
    return cst.Attribute(value=cst.Name("self"), attr=cst.Name(attr)), value


def _forwards_init(fn: cst.FunctionDef | None) -> bool:
    """``def __init__(self, *args, **kwargs): super().__init__(*args, **kwargs)`` (a docstring
    aside): the constructor hands every argument on unchanged, its defaults are the base's
    (torchtune's ``Fp32LayerNorm(nn.LayerNorm)``)."""
    if fn is None:
        return False
    params = fn.params
    if params.params[1:] or params.kwonly_params or params.posonly_params or \
            type(params.star_arg) is not cst.Param or params.star_kwarg is None:
        return False
    star, kw = params.star_arg.name.value, params.star_kwarg.name.value
    body = [st for st in getattr(fn.body, "body", ()) if not (
        type(st) is cst.SimpleStatementLine and len(st.body) == 1 and type(st.body[0]) is cst.Expr
        and type(st.body[0].value) in STRING_NODES)]
    if len(body) != 1 or type(body[0]) is not cst.SimpleStatementLine or len(body[0].body) != 1:
        return False
    expr = body[0].body[0]
    call = expr.value if type(expr) is cst.Expr else None
    if type(call) is not cst.Call or type(call.func) is not cst.Attribute or call.func.attr.value != "__init__" or \
            type(call.func.value) is not cst.Call or _dotted(call.func.value.func) != "super":
        return False
    args = call.args
    return len(args) == 2 and args[0].star == "*" and type(args[0].value) is cst.Name and args[0].value.value == star \
        and args[1].star == "**" and type(args[1].value) is cst.Name and args[1].value.value == kw


def _self_chain(node: cst.BaseExpression, depth: int = 3) -> str:
    """``self.attn.kv_cache`` for an attribute chain of at most ``depth`` names rooted at
    ``self`` (``self.attn`` included; an index inside is an element of what the attribute holds:
    ``self.layers[0].kv_cache`` -> ``self.layers.kv_cache``); "" for anything else (a call
    inside, ``self`` alone, a longer chain)."""
    parts: list[str] = []
    while len(parts) < depth:
        if type(node) is cst.Subscript and parts:
            node = node.value  # `self.layers[0].kv_cache`: an element of what self.layers holds
        if type(node) is not cst.Attribute:
            break
        parts.append(node.attr.value)
        node = node.value
    if not parts or type(node) is not cst.Name or node.value != "self":
        return ""
    return "self." + ".".join(reversed(parts))


def _scalar_calls(value: cst.BaseExpression) -> Iterator[cst.Call]:
    """The calls a scalar expression combines, through arithmetic (``lengths.max() + 1``) and
    scalar casts (``.long()``, ``.to(...)``: their receivers are followed, not yielded)."""
    stack = [value]
    while stack:
        e = stack.pop()
        t = type(e)
        if t is cst.BinaryOperation:
            stack += (e.left, e.right)  # type: ignore[attr-defined]
        elif t is cst.Call:
            func = e.func  # type: ignore[attr-defined]
            if type(func) is cst.Attribute and func.attr.value in K.SCALAR_CASTS:
                stack.append(func.value)
            else:
                yield e  # type: ignore[misc]


#: Calls that hand back the table they are called on (a copy, a view, another device or dtype).
_SAME_TABLE_METHODS = frozenset({"detach", "clone", "to", "type", "type_as", "float", "half", "contiguous"})


def _memo_fillers(methods: Mapping[str, cst.FunctionDef]) -> frozenset[str]:
    """Names of the methods that a memo-keyed ``if`` of another method of the class calls on
    ``self`` in its body (old transformers rotary embeddings: ``if seq_len >
    self.max_seq_len_cached: self._set_cos_sin_cache(seq_len=seq_len, ...)``; Speech2Text2's
    ``if max_pos > self.weights.size(0): self.make_weights(...)``): they rebuild the table a
    static key selects. Read off the statements (no expression is walked but the tests and the
    body's calls), once per class."""
    out: set[str] = set()
    for name, fn in methods.items():
        if name == "__init__" or type(fn.body) is not cst.IndentedBlock:
            continue
        todo: list[Any] = list(fn.body.body)
        while todo:
            st = todo.pop()
            t = type(st)
            if t is cst.If:
                if any(any(_key_attr(x) for x in sides) and any(not _key_attr(x) and _static_looking(x) for x in sides)
                       for sides in _key_comparisons(st.test)):
                    for inner in st.body.body:
                        for small in (inner.body if type(inner) is cst.SimpleStatementLine else ()):
                            call = small.value if type(small) is cst.Expr else None
                            if type(call) is cst.Call and _is_self_attr(call.func) and \
                                    call.func.attr.value in methods and call.func.attr.value != name:
                                out.add(call.func.attr.value)
                todo.extend(st.body.body)
                if st.orelse is not None:
                    todo.append(st.orelse)
            elif t is cst.Else:
                todo.extend(st.body.body)
            elif t in (cst.For, cst.While, cst.With, cst.Try):
                body = st.body
                todo.extend(body.body if type(body) is cst.IndentedBlock else ())
    return frozenset(out)


def _static_looking(node: cst.BaseExpression, depth: int = 0) -> bool:
    """``node`` reads like a length or an offset, not like data: names, attribute and subscript
    chains, literals, size queries (``x.shape[1]``, ``x.size(-1)``, ``len(x)``) and arithmetic of
    them; no other call (``x.sum()``, ``t.norm()`` are data)."""
    if depth > 6:
        return False
    t = type(node)
    if t in (cst.Name, cst.Integer, cst.Float):
        return True
    if t is cst.Attribute:
        return _static_looking(node.value, depth + 1)  # type: ignore[attr-defined]
    if t is cst.Subscript:
        return _size_query_of(node) is not node or _static_looking(node.value, depth + 1)  # type: ignore[attr-defined]
    if t is cst.BinaryOperation:
        return _static_looking(node.left, depth + 1) and _static_looking(node.right, depth + 1)  # type: ignore[attr-defined]
    if t is cst.UnaryOperation:
        return _static_looking(node.expression, depth + 1)  # type: ignore[attr-defined]
    return t is cst.Call and _size_query_of(node) is not node


#: a positional argument whose value differs between calls (no literal, no kind)
_UNKNOWN_ARG = cst.Arg(cst.Name("_differs_between_calls_"))


class _NameUses(cst.CSTVisitor):
    """The reads of one name in a function body: the calls of it (``act_layer(...)``) and
    whether it is read any other way (handed on: ``Mlp(act_layer=act_layer)``)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls: list[cst.Call] = []
        self._callees: set[int] = set()  # ids of the Name nodes those calls call
        self.other = False

    def visit_Call(self, node: cst.Call) -> None:
        if type(node.func) is cst.Name and node.func.value == self.name:
            self.calls.append(node)
            self._callees.add(id(node.func))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name and id(node) not in self._callees:
            self.other = True


def _agreed_call_args(fn: cst.FunctionDef, param: str) -> tuple[cst.Arg, ...] | None:
    """The arguments every call of parameter ``param`` in ``fn``'s body passes alike (the same
    literal keywords; positional ones only when all calls spell them the same): the use of
    its default class then has them (``act_layer(approximate="tanh")``, ``norm_layer(dim,
    eps=1e-6)``). None when the body does not only call it (it is handed on, or stored: the
    class is used elsewhere, with arguments this function does not see) or never calls it."""
    uses = _NameUses(param)
    fn.body.visit(uses)
    if uses.other or not uses.calls:
        return None
    first, *rest = uses.calls
    code = cst.Module([]).code_for_node
    agreed: list[cst.Arg] = []
    for i, a in enumerate(first.args):
        if a.star:
            return None
        text = code(a.value)
        if a.keyword is None:
            same = all(i < len(c.args) and c.args[i].keyword is None and code(c.args[i].value) == text for c in rest)
            agreed.append(a if same else _UNKNOWN_ARG)  # (a placeholder keeps the positions)
        elif all(any(b.keyword is not None and b.keyword.value == a.keyword.value and code(b.value) == text
                     for b in c.args) for c in rest):
            agreed.append(a)
    return tuple(agreed)


def _self_table(node: cst.BaseExpression | None) -> str:
    """The attribute of ``self`` a tensor expression reads its table from, through attributes,
    items and :data:`_SAME_TABLE_METHODS` calls (``self.cached_freqs[a:b].detach()`` ->
    "cached_freqs", ``self.point_embeddings[0].weight`` -> "point_embeddings",
    ``self.masked_spec_embed.to(h.dtype)``), else "". Such a tensor was built before this call's
    masks (a mask write of it broadcasts it: a select), and a memo's hit returns one."""
    while node is not None:
        t = type(node)
        if _is_self_attr(node):
            return node.attr.value  # type: ignore[attr-defined,no-any-return]
        if t is cst.Attribute or t is cst.Subscript:
            node = node.value  # type: ignore[attr-defined]
        elif t is cst.Call and type(node.func) is cst.Attribute and \
                node.func.attr.value in _SAME_TABLE_METHODS:  # type: ignore[attr-defined]
            node = node.func.value  # type: ignore[attr-defined]
        else:
            return ""
    return ""


def _key_reads(test: cst.BaseExpression, attrs: frozenset[str]) -> list[int]:
    """Ids of the host reads in ``test`` of ``self.<a>`` for ``a`` in ``attrs``
    (``self.cached_len.item()``, ``int(self.n)``)."""
    out: list[int] = []
    stack: list[Any] = [test]
    while stack:
        n = stack.pop()
        if type(n) is cst.Call:
            read = _host_read_of(n)
            if read is not n and _is_self_attr(read) and read.attr.value in attrs:  # type: ignore[attr-defined]
                out.append(id(n))
        stack.extend(child_nodes(n))
    return out


#: Module methods that return (or iterate) its tensors by name.
_WEIGHT_MAP_METHODS = frozenset({"named_parameters", "named_buffers", "state_dict"})


def _is_weight_map(value: cst.BaseExpression) -> bool:
    """``dict(m.named_parameters())``, ``dict(m.named_buffers())``, ``m.state_dict()``: a
    mapping of a module's tensors by name (k-diffusion's ``ema_update``)."""
    if type(value) is not cst.Call:
        return False
    func = value.func
    if type(func) is cst.Name and func.value in ("dict", "OrderedDict") and len(value.args) == 1:
        value = value.args[0].value
        if type(value) is not cst.Call:
            return False
        func = value.func
    return type(func) is cst.Attribute and func.attr.value in _WEIGHT_MAP_METHODS


def _has_setter(fn: cst.FunctionDef | None) -> bool:
    """``fn`` (the last definition of its name in a class) is a property setter or deleter
    (``@padding_side.setter``)."""
    return fn is not None and any(
        type(d.decorator) is cst.Attribute and d.decorator.attr.value in ("setter", "deleter")
        for d in fn.decorators)


def _ends_in_global_pool(seq: cst.Call, qual: Callable[[cst.BaseExpression], str]) -> bool:
    """``nn.Sequential(...)`` whose last layer is a 1x1 adaptive pool (``nn.AdaptiveAvgPool2d((1,
    1))``, possibly followed by activations or dropout, which keep the shape)."""
    for a in reversed(seq.args):
        v = a.value
        if a.star or type(v) is not cst.Call:
            return False
        name = qual(v.func)
        if name.startswith("torch.nn.Adaptive"):
            return bool(v.args) and literal(v.args[0].value) in (1, (1,), (1, 1), (1, 1, 1))
        if name not in _SHAPE_KEEPING_LAYERS:
            return False
    return False


#: Layers whose output has their input's shape (activations, dropout, identity).
_SHAPE_KEEPING_LAYERS = frozenset({"torch.nn.ReLU", "torch.nn.ReLU6", "torch.nn.GELU", "torch.nn.SiLU",
                                   "torch.nn.Dropout", "torch.nn.Identity", "torch.nn.Sigmoid", "torch.nn.Tanh",
                                   "torch.nn.Hardswish", "torch.nn.LeakyReLU"})


def _same_mask_read(value: cst.BaseExpression, target: cst.Subscript, depth: int = 0) -> bool:
    """``value`` is computed elementwise from tensors read through the very index ``target``
    writes through, and from scalars (``outputs[outside] = inputs[outside]``, ``loss[small] =
    width * torch.log1p(diff[small] / c)``): a masked select between same-shaped tensors,
    ``jnp.where(mask, f(x), out)``. Names and other expressions are accepted only as operands
    of arithmetic with such a read (a scalar ``width``; a whole tensor would not broadcast in
    PyTorch either)."""
    if depth > 8:
        return False
    t = type(value)
    if t is cst.Subscript:
        return len(value.slice) == len(target.slice) and all(  # type: ignore[attr-defined]
            a.deep_equals(b) for a, b in zip(value.slice, target.slice))  # type: ignore[attr-defined]
    if t is cst.UnaryOperation:
        return _same_mask_read(value.expression, target, depth + 1)  # type: ignore[attr-defined]
    if t is cst.BinaryOperation:
        sides = (value.left, value.right)  # type: ignore[attr-defined]
        reads = [_same_mask_read(x, target, depth + 1) for x in sides]
        return any(reads) and all(r or _scalar_operand(x) for r, x in zip(reads, sides))
    if t is cst.Call:
        func = value.func  # type: ignore[attr-defined]
        args = [a.value for a in value.args if a.keyword is None]  # type: ignore[attr-defined]
        if type(func) is cst.Attribute and func.attr.value in _ELEMENTWISE:
            if type(func.value) is cst.Name and func.value.value in ("torch", "F", "math"):
                return bool(args) and _same_mask_read(args[0], target, depth + 1) and all(
                    _scalar_operand(x) for x in args[1:])
            return _same_mask_read(func.value, target, depth + 1) and all(_scalar_operand(x) for x in args)
    return False


#: Elementwise torch functions and tensor methods (their result has their input's shape).
_ELEMENTWISE = frozenset({"abs", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sigmoid", "tanh", "relu",
                          "clamp", "clamp_min", "clamp_max", "clip", "pow", "square", "sin", "cos", "neg",
                          "reciprocal", "floor", "ceil", "round", "sign", "softplus", "float", "half", "to",
                          "type_as", "detach", "clone", "log_softmax", "erf"})


def _scalar_operand(node: cst.BaseExpression) -> bool:
    """A literal, a plain name or an attribute (``width``, ``self.eps``, ``cfg.scale``): the
    operand a masked elementwise expression combines its reads with."""
    t = type(node)
    if t is cst.UnaryOperation:
        return _scalar_operand(node.expression)  # type: ignore[attr-defined]
    return t in (cst.Integer, cst.Float, cst.Name, cst.Attribute) or (
        t is cst.BinaryOperation and _scalar_operand(node.left) and _scalar_operand(node.right))  # type: ignore[attr-defined]


def _and_operands(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of an ``and`` chain, in source order (``[test]`` for any other test)."""
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.And:  # type: ignore[attr-defined]
        return [*_and_operands(test.left), *_and_operands(test.right)]  # type: ignore[attr-defined]
    return [test]


#: Calls inside an overridden ``train()`` that change behaviour (not cache upkeep).
_MODE_SWITCH_CALLS = frozenset({"eval", "train", "requires_grad_", "apply"})


def _switches_modes(node: cst.FunctionDef) -> bool:
    """Whether an overridden ``train``/``eval`` does more than call the parent and reset
    caches: it puts submodules in another mode (``m.eval()``), freezes (``requires_grad_``,
    ``p.requires_grad = False``) or calls another method of the module (``self._freeze_stages()``).
    Walks the method's own body once (overrides are a few lines, and rare)."""
    stack: list[cst.CSTNode] = [node.body]
    while stack:
        n = stack.pop()
        if type(n) is cst.Call and type(n.func) is cst.Attribute:
            recv = n.func.value
            is_super = type(recv) is cst.Call and type(recv.func) is cst.Name and recv.func.value == "super"
            if not is_super and (n.func.attr.value in _MODE_SWITCH_CALLS or (
                    type(recv) is cst.Name and recv.value == "self" and not n.func.attr.value.startswith("__"))):
                return True
        elif type(n) is cst.Attribute and n.attr.value == "requires_grad":
            return True
        stack.extend(child_nodes(n))
    return False


def _self_storage(value: cst.BaseExpression, cls: Any) -> cst.Attribute | None:
    """The ``self`` attribute whose storage ``value`` names (``self.k_cache``, ``self.w.data``),
    or the first of those a conditional picks from when every alternative names one
    (``self.cond_outputs if is_cond else self.outputs``); not a submodule of ``cls``
    (``self.encoder``: calling it is no write). None otherwise."""
    alts = _alternatives(value) if type(value) in (cst.IfExp, cst.BooleanOperation) else (value,)
    stored = [_storage_of(a) for a in alts]
    if not all(_is_self_attr(s) for s in stored):
        return None
    if cls is not None and any(cls.attr_kinds.get(s.attr.value) == K.M for s in stored):  # type: ignore[attr-defined]
        return None
    return stored[0]  # type: ignore[return-value]


#: Decorators that make a generator function a context manager.
_CONTEXT_MANAGER_DECORATORS = frozenset({"contextlib.contextmanager", "contextlib.asynccontextmanager"})


#: Concatenations that lengthen an axis (``torch.stack`` adds one: no growth of an input).
_CONCAT_CALLS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.hstack", "torch.vstack",
                           "torch.column_stack", "torch.row_stack", "torch.dstack"})


_CONCAT_LEAVES = frozenset(n.rsplit(".", 1)[-1] for n in _CONCAT_CALLS)


#: Methods that return the same data cast, moved or cut off from autograd.
_GROWTH_PASSTHROUGH = frozenset({"detach", "contiguous", "to", "float", "half", "bfloat16", "type_as", "clone"})


def _state_text(node: cst.BaseExpression) -> str:
    """``cache[...]``, ``self.store[...]``, ``state.k``: an attribute/item chain's text, items
    elided; "" for anything else."""
    if type(node) is cst.Subscript:
        base = _state_text(node.value)
        return f"{base}[...]" if base else ""
    if type(node) is cst.Attribute:
        base = _state_text(node.value)
        return f"{base}.{node.attr.value}" if base else ""
    return node.value if type(node) is cst.Name else ""


#: Calls that draw a random number on the host (Python's and NumPy's global RNG, torch's).
#: Classmethod factories that build an instance of their class (``Block.from_config(cfg)``;
#: not ``from_pretrained``: a checkpoint load, whose class the graph already knows by the call).
#: Expressions whose value is a new object (:attr:`_FuncScope.fresh`).
_NEW_OBJECT_EXPRS = frozenset({cst.Call, cst.UnaryOperation, cst.BinaryOperation, cst.List, cst.Dict, cst.Set,
                               cst.ListComp, cst.DictComp, cst.SetComp})


#: A flag that turns activation checkpointing on (`self.gradient_checkpointing`, timm's
#: `self.grad_checkpointing`, `use_checkpoint`, `self.checkpoint_activations`): :meth:`_mode_glue`.
_CHECKPOINT_FLAG = re.compile(r"^(use_)?(grad(ient)?_)?(checkpoint(ing|_activations)?|ckpt)$")


_FACTORY_METHOD = re.compile(r"^(from_(config|cfg|args|dict|params|settings|kwargs|hparams|opts?)|build|create|make)$")


#: Tensor methods that fill a tensor with random numbers.
_SAMPLING_METHODS = frozenset({"bernoulli", "bernoulli_", "uniform_", "normal_", "random_", "exponential_",
                               "geometric_", "cauchy_", "log_normal_", "multinomial"})


#: Attributes of torch modules and tensors read through a submodule (``self.conv.weight``,
#: ``self.norm.eps``): never a project property, so no call fact is recorded for them.
_PLAIN_MODULE_ATTRS = frozenset({
    "weight", "bias", "training", "eps", "data", "shape", "dtype", "device", "grad", "T", "mT",
    "in_features", "out_features", "in_channels", "out_channels", "kernel_size", "stride", "padding",
    "dilation", "groups", "num_embeddings", "embedding_dim", "padding_idx", "normalized_shape",
    "running_mean", "running_var", "num_features", "momentum", "p", "inplace", "num_heads",
    "embed_dim", "head_dim", "hidden_size", "config", "requires_grad", "is_cuda", "ndim",
})


#: ``functools`` decorators that keep a function's (or property's) results across calls.
_FUNCTOOLS_CACHES = frozenset({"functools.lru_cache", "functools.cache", "functools.cached_property"})


_RNG_CALL = re.compile(r"^(random|numpy\.random|torch\.rand\w*|torch\.multinomial|torch\.normal)(\.\w+)?$")


#: Tensor methods that only move or cast a tensor (device, dtype, memory format).
_PLACEMENT_METHODS = frozenset({"to", "cuda", "cpu", "type", "type_as", "float", "half", "bfloat16",
                                "double", "contiguous"})


def _is_placement_of(attr: str, value: cst.BaseExpression) -> bool:
    """``value`` re-places ``self.<attr>`` itself: ``self.ab.to(x.device)``,
    ``[a.to(dtype=d, device=dev) for a in self.cell_anchors]`` (a chain of
    :data:`_PLACEMENT_METHODS` on the attribute, or on the loop variable of a comprehension over
    it). A JAX port has no device placement or lazy dtype cast to keep: nothing to store."""
    def cast_of(expr: cst.BaseExpression, root: Callable[[cst.BaseExpression], bool]) -> bool:
        seen = False
        while type(expr) is cst.Call and type(expr.func) is cst.Attribute \
                and expr.func.attr.value in _PLACEMENT_METHODS:  # type: ignore[attr-defined]
            expr, seen = expr.func.value, True  # type: ignore[attr-defined]
        return seen and root(expr)

    def is_attr(expr: cst.BaseExpression) -> bool:
        return _is_self_attr(expr) and expr.attr.value == attr  # type: ignore[attr-defined]

    if type(value) in (cst.ListComp, cst.GeneratorExp) and value.for_in.inner_for_in is None \
            and type(value.for_in.target) is cst.Name and is_attr(value.for_in.iter):  # type: ignore[attr-defined]
        var = value.for_in.target.value  # type: ignore[attr-defined]
        return cast_of(value.elt, lambda e: type(e) is cst.Name and e.value == var)  # type: ignore[attr-defined]
    return cast_of(value, is_attr)


def _returns_or_binds(stmt: cst.If, names: set[str]) -> bool:
    """A ``return`` inside ``stmt`` (an ``if`` and its ``else``/``elif``), or an assignment to
    one of ``names``."""
    for st in _small_statements([stmt]):
        if type(st) is cst.Return:
            return True
        if type(st) in (cst.Assign, cst.AugAssign, cst.AnnAssign):
            targets = [t.target for t in st.targets] if type(st) is cst.Assign else [st.target]  # type: ignore[attr-defined]
            if any(type(t) is cst.Name and t.value in names for t in targets):
                return True
    return False


#: builtins that read a tensor's value back to the host as a Python number (ML512)
_HOST_CASTS = frozenset({"int", "float", "bool", "complex"})


def _iterated_param(it: cst.BaseExpression, params: Container[str]) -> str:
    """The parameter whose items ``it`` yields: ``x``, ``x.items()``, ``x.values()``,
    ``enumerate(x)``, ``zip(x, ...)`` (its first argument); "" otherwise."""
    if type(it) is cst.Call:
        if type(it.func) is cst.Attribute and it.func.attr.value in ("items", "values") and not it.args:
            it = it.func.value
        elif type(it.func) is cst.Name and it.func.value in ("enumerate", "zip", "reversed") and it.args:
            it = it.args[0].value
    return it.value if type(it) is cst.Name and it.value in params else ""


def _descends(call: cst.Call, scope: _FuncScope, kind: Callable[[cst.BaseExpression], str]) -> bool:
    """A recursive call passing an item of one of the function's parameters (a name bound to
    its items, :attr:`_FuncScope.elements`, or an item by key or index: ``apply(f, o)`` for ``o in
    x``, ``{k: f(v) for k, v in x.items()}``, ``walk(tree[k])``): structural recursion, as deep as
    the argument's Python structure (or a tensor's rank), fixed when the trace starts. Not a slice
    (``encode(leaves[:mid])``: a tree recursion over the data, which ML107 reports)."""
    for a in call.args:
        v = a.value
        if type(v) is cst.Name and v.value in scope.elements:
            return True
        if type(v) is cst.Subscript and type(v.value) is cst.Name and v.value.value in scope.params and \
                all(type(el.slice) is cst.Index and kind(el.slice.value) not in K.VALUE_KINDS for el in v.slice):
            # (a slice, `encode(leaves[:mid])`, or a mask, `self.forward(x[x < pivot])`, splits the
            # data: a tree recursion ML107 reports)
            return True
    return False


def _optional_guards(test: cst.BaseExpression, scope: _FuncScope) -> tuple[list[str], list[str]]:
    """The requirements an ``if`` test on optional parameters (default None, not rebound) puts
    on its body and its ``else``: ``g:<p>=P`` where it checks ``p`` as given (``p is not None``,
    ``p``, also as an operand of an ``and`` chain; the ``else`` of ``p is None``, ``not p``),
    ``n:<p>=T`` where it checks ``p`` as missing (the body of ``p is None``, ``not p``; the
    ``else`` of ``p is not None``, ``p``), alone."""
    if scope.node is None or any(_dotted(d.decorator) not in ("staticmethod", "classmethod")
                                 for d in scope.node.decorators):
        return [], []  # (a decorator may give the argument: `@causal` calling `fn(q, k, v, mask=m)`)

    def optional(e: cst.BaseExpression) -> str:
        if type(e) is cst.Name and ((e.value in scope.params and e.value not in scope.last_value)
                                    or e.value in scope.given_rebinds):
            default = scope.param_meta.get(e.value, (None, None))[1]
            if type(default) is cst.Name and default.value == "None" and not scope.loops and \
                    e.value not in scope.target_bound:
                # (not in a loop: `if h is not None: ...; h = cell(x, h)` carries a value into the
                # next step; not rebound by a `for`/`with`/walrus target before the test)
                return e.value
        return ""

    def given(e: cst.BaseExpression, negated: bool) -> str:
        if type(e) is cst.Comparison and len(e.comparisons) == 1 and type(e.comparisons[0].comparator) is cst.Name \
                and e.comparisons[0].comparator.value == "None":
            op = type(e.comparisons[0].operator)
            if op is (cst.Is if negated else cst.IsNot):
                return optional(e.left)
            return ""
        if type(e) is cst.UnaryOperation and type(e.operator) is cst.Not:
            return given(e.expression, not negated)
        return "" if negated else optional(e)

    if type(test) is cst.BooleanOperation and type(test.operator) is cst.And:
        # (`if index is not None and dim_size is None:`: each operand holds in the body)
        out: list[str] = []
        for e in _and_operands(test):
            got, missing = given(e, False), given(e, True)
            if got:
                out.append(f"g:{got}=P")
            elif missing:
                out.append(f"n:{missing}=T")
        return out, []
    body_p, else_p = given(test, False), given(test, True)
    if body_p:  # `if p is not None:` (and its else: p left out)
        return [f"g:{body_p}=P"], [f"n:{body_p}=T"]
    if else_p:  # `if p is None:` (and its else: p given)
        return [f"n:{else_p}=T"], [f"g:{else_p}=P"]
    return [], []


def _removes_hooks(fn: cst.FunctionDef | None) -> bool:
    """``fn`` calls ``<handle>.remove()`` with no argument in its own body (``for h in handles:
    h.remove()``): the hooks it registers live for that one call."""
    if fn is None or type(fn.body) is not cst.IndentedBlock:
        return False
    for st in _small_statements(fn.body.body):
        call = st.value if type(st) is cst.Expr else None  # type: ignore[attr-defined]
        if type(call) is cst.Call and not call.args and type(call.func) is cst.Attribute and \
                call.func.attr.value == "remove":
            return True
    return False


def _removes_handle(fn: cst.FunctionDef | None, handle: str) -> bool:
    """``fn`` (a hook callback method) calls ``self.<handle>.remove()`` (or ``module.<handle>
    .remove()`` on the module the hook passes first) in its body, outside nested functions and
    classes: the hook removes itself on its first run, a one-shot initialization (PyG's lazy
    ``Linear.initialize_parameters`` materializing an ``UninitializedParameter`` from the first
    input's shape), not a per-call callback."""
    if fn is None or type(fn.body) is not cst.IndentedBlock:
        return False
    params = fn.params.params
    owners = {"self"} | ({params[1].name.value} if len(params) > 1 else set())
    for st in _small_statements(fn.body.body):
        if type(st) is cst.Expr:
            call = st.value  # type: ignore[attr-defined]
            if type(call) is cst.Call and type(call.func) is cst.Attribute and call.func.attr.value == "remove":
                recv = call.func.value
                if type(recv) is cst.Attribute and recv.attr.value == handle and \
                        type(recv.value) is cst.Name and recv.value.value in owners:
                    return True
    return False


#: Names of the checks for a compiled (dynamo) run (:func:`_eager_only_test`).
#: functions that write an image file: a function calling one dumps pictures for a person to
#: look at (a debug dump, a sample grid), host code like a plot
_IMAGE_WRITERS = frozenset({
    "torchvision.utils.save_image", "cv2.imwrite", "imageio.imwrite", "imageio.v2.imwrite", "imageio.v3.imwrite",
    "imageio.mimsave", "imageio.v2.mimsave", "skimage.io.imsave", "PIL.Image.Image.save", "scipy.misc.imsave",
    "torchvision.io.write_png", "torchvision.io.write_jpeg", "torchvision.io.write_video",
})


def _first_param(params: cst.Parameters) -> str:
    """The name of a function's first positional parameter, "" if it has none."""
    first = params.posonly_params[:1] or params.params[:1]
    return first[0].name.value if first else ""


#: Library functions that call their first argument with the others (``checkpoint(fn, x)``)
_FORWARDERS = frozenset({"torch.utils.checkpoint.checkpoint"})


#: keywords the library forwarders keep for themselves
_FORWARDER_OWN = frozenset({"use_reentrant", "preserve_rng_state", "context_fn", "determinism_check", "debug"})


#: What the engine keeps of a call of a project name (``CallSiteFact``; eager keys of the call's data)
_PROJECT_CALL_KEYS = ("args", "kwargs", "star", "no_grad", "reference")


#: the inputs read by a part that read none (shared, never written)
_NONE_READ: frozenset[str] = frozenset()


#: Calls by which a hook only records what it sees (:meth:`FileVisitor._hook_replaces`).
_RECORDING_CALLS = frozenset({"__setitem__", "append", "extend", "update", "add", "setdefault", "print", "info",
                              "debug", "warning", "log", "write", "add_scalar", "add_histogram"})


def _nested_defs(fn: cst.FunctionDef) -> list[cst.FunctionDef]:
    """The functions defined in ``fn``'s body, in nested blocks too (not inside nested defs)."""
    out: list[cst.FunctionDef] = []
    stack: list[cst.CSTNode] = [fn.body]
    while stack:
        node = stack.pop()
        t = type(node)
        if t is cst.FunctionDef:
            out.append(node)  # type: ignore[arg-type]
            continue
        if t is cst.ClassDef or isinstance(node, cst.BaseExpression):
            continue  # (statements only: no def hides in an expression)
        stack.extend(child_nodes(node))
    return out


def _returned_name(fn: cst.FunctionDef) -> str:
    """The name a function's ``return`` gives when it returns a bare name (``return fn``), else ""."""
    for d in child_nodes(fn.body):
        if type(d) is cst.SimpleStatementLine:
            for small in d.body:  # type: ignore[attr-defined]
                if type(small) is cst.Return and type(small.value) is cst.Name:
                    return small.value.value
    return ""


def _returns_value(fn: cst.FunctionDef) -> bool:
    """Whether some ``return`` of ``fn`` (not of a nested function) gives a value other than None."""
    stack: list[cst.CSTNode] = [fn.body]
    while stack:
        node = stack.pop()
        t = type(node)
        if t in (cst.FunctionDef, cst.ClassDef, cst.Lambda) and node is not fn:
            continue
        if t is cst.Return:
            value = node.value  # type: ignore[attr-defined]
            if value is not None and not (type(value) is cst.Name and value.value == "None"):
                return True
            continue
        stack.extend(child_nodes(node))
    return False


def _method_alias(value: cst.BaseExpression, qual: Callable[[cst.BaseExpression], str]) -> str:
    """The dotted name of the function a class-body assignment makes a method of:
    ``name = fn`` / ``name = module.fn`` / ``name = staticmethod(fn)`` (or ``classmethod``),
    where the name is no class (CapWords) and no torch/library callable a port maps anyway;
    "" otherwise."""
    if type(value) is cst.Call and len(value.args) == 1 and type(value.func) is cst.Name and \
            value.func.value in ("staticmethod", "classmethod"):
        value = value.args[0].value
    if type(value) not in (cst.Name, cst.Attribute):
        return ""
    name = qual(value)
    leaf = name.rsplit(".", 1)[-1]
    if not name or "." not in name or leaf[:1].isupper() or name.startswith(("torch.", "numpy.", "math.", "functools.")):
        return ""
    return name


def _kwargs_items(target: cst.BaseExpression, it: cst.BaseExpression, star_kwargs: str) -> str:
    """The loop name bound to each value of the function's ``**kwargs`` (``for k, v in
    kwargs.items()``, ``for v in kwargs.values()``), "" for any other loop."""
    if not star_kwargs or type(it) is not cst.Call or type(it.func) is not cst.Attribute or it.args \
            or type(it.func.value) is not cst.Name or it.func.value.value != star_kwargs:
        return ""
    method = it.func.attr.value
    return _loop_value_name(target, method == "items") if method in ("values", "items") else ""


def _loop_value_name(target: cst.BaseExpression, pair: bool) -> str:
    """The name a ``for`` target binds to each value: the target itself, or with ``pair`` the
    second name of a two-name target (``for k, v in d.items()``); "" for other shapes."""
    if not pair:
        return target.value if type(target) is cst.Name else ""
    if type(target) in (cst.Tuple, cst.List) and len(target.elements) == 2 \
            and type(target.elements[1].value) is cst.Name:
        return target.elements[1].value.value
    return ""


def _state_items(target: cst.BaseExpression, it: cst.BaseExpression,
                 qual: Callable[[cst.BaseExpression], str]) -> tuple[str, str] | None:
    """``(loop name, what it aliases)`` when a ``for`` walks a model's own tensors:
    ``v`` of ``for v in m.parameters()`` / ``m.buffers()`` / ``m.state_dict().values()``, or
    of ``for k, v in m.named_parameters()`` / ``m.named_buffers()`` /
    ``m.state_dict().items()``; None otherwise (also for a torch function's result)."""
    if type(it) is not cst.Call or type(it.func) is not cst.Attribute or qual(it.func).startswith("torch."):
        return None
    method = it.func.attr.value
    recv = it.func.value
    if method in ("values", "items") and type(recv) is cst.Call and type(recv.func) is cst.Attribute \
            and recv.func.attr.value == "state_dict":
        source = f"{_dotted(recv.func.value) or 'model'}.state_dict()"
        pair = method == "items"
    elif method in ("parameters", "buffers", "named_parameters", "named_buffers"):
        source = f"{_dotted(recv) or 'model'}.{method}()"
        pair = method.startswith("named_")
    else:
        return None
    name = _loop_value_name(target, pair)
    return (name, source) if name else None


def _literal_seeded(value: cst.BaseExpression) -> bool:
    """A generator constructor call given a literal seed (``np.random.default_rng(0)``,
    ``random.Random(seed=1)``)."""
    if type(value) is not cst.Call or not value.args:
        return False
    return any((a.keyword is None or a.keyword.value == "seed") and type(literal(a.value)) is int
               for a in value.args)


def _unsubscripted(expr: cst.BaseExpression) -> cst.BaseExpression:
    """A class base without its type arguments: ``NetBase[Any]`` -> ``NetBase``,
    ``Generic[T]`` -> ``Generic``."""
    while type(expr) is cst.Subscript:
        expr = expr.value  # type: ignore[attr-defined]
    return expr


#: Module-level functions named as tests, benchmarks or profiling runs (``test_fwd_correctness``,
#: ``benchmark_dtrap_ddt``, ``bench_scan``, ``profile_step``): script code a library module keeps
#: beside its kernels, run by hand or from ``__main__``, never by the model; host code unless
#: traced code calls them (pytest's ``test_`` convention, and the same for benchmarks). Not when
#: decorated by anything but pytest/unittest: ``@register_model def test_vit()`` builds a model.
_SCRIPT_FUNCTION = re.compile(r"^(test|benchmark|bench|profile)(_|$)")


_KERNEL_NAME = re.compile(r"kernel", re.IGNORECASE)


_GRID_NAME = re.compile(r"^_?grid", re.IGNORECASE)


_TRITON_DECORATORS = frozenset({"triton.jit", "triton.runtime.jit.jit", "triton.autotune", "triton.heuristics",
                                "triton.runtime.autotune", "triton.runtime.heuristics"})


def _is_kernel_launch(func: cst.Subscript, qual: Callable[[cst.BaseExpression], str],
                      kernels: frozenset[str] | set[str] = frozenset()) -> bool:
    """``func`` (the callee of a call) launches a Triton-style kernel over a grid:
    ``_fwd_kernel[grid](...)``, ``kernels.bwd_kernel[(triton.cdiv(n, BLOCK), b)](...)``. The
    subscripted callee is a module-level name or a dotted name not on ``self`` (not a layer of a
    ``ModuleList``: ``self.layers[i](x)``), and either its name says kernel or the subscript is a
    launch grid (a name starting with ``grid``, a ``lambda meta: ...``, a tuple with a
    ``triton.cdiv``); or a kernel wrapped for ``torch.compile``
    (``torch.library.wrap_triton(kernel)[grid](...)``). Source: the Triton tutorials' launch form
    ``kernel[grid](...)``, the ``torch.library.wrap_triton`` reference."""
    value = func.value
    if type(value) is cst.Call:  # `torch.library.wrap_triton(kernel)[grid](...)`
        return qual(value.func).rsplit(".", 1)[-1] == "wrap_triton"
    if type(value) is cst.Attribute:
        root = value
        while type(root) is cst.Attribute:
            root = root.value
        if type(root) is not cst.Name or root.value in ("self", "cls"):
            return False
        leaf = value.attr.value
    elif type(value) is cst.Name:
        leaf = value.value
        if leaf in kernels:
            return True  # a `@triton.jit` function of this file, whatever its name and grid
    else:
        return False
    if _KERNEL_NAME.search(leaf):
        return True
    if len(func.slice) != 1 or type(func.slice[0].slice) is not cst.Index:
        return False
    grid = func.slice[0].slice.value
    if type(grid) is cst.Name:
        return bool(_GRID_NAME.match(grid.value))
    if type(grid) is cst.Lambda:
        return True
    if type(grid) is cst.Tuple:
        return any(type(el.value) is cst.Call and qual(el.value.func) == "triton.cdiv" for el in grid.elements)
    return False


_INT32 = (-(2 ** 31), 2 ** 31 - 1)


#: node classes an integer constant can be (:func:`_int_constant`): names and calls never are
_MAYBE_INT_CONSTANT = frozenset({cst.Integer, cst.UnaryOperation, cst.BinaryOperation, cst.Attribute})


_INT64_INFO = frozenset({"torch.int64", "torch.long", "torch.uint64", "numpy.int64", "numpy.uint64", "numpy.uint32"})


def _int_constant(expr: cst.BaseExpression, qual: Callable[[cst.BaseExpression], str], depth: int = 0) -> int | None:
    """The value of an integer constant expression (literals, unary minus, ``+ - * // % ** << |
    &``, ``torch.iinfo(torch.int64).max``), None when it is none or too big to fold."""
    if depth > 6:
        return None
    t = type(expr)
    if t is cst.Integer:
        try:
            return int(expr.value, 0)  # type: ignore[attr-defined]  # (libcst's evaluated_value runs literal_eval)
        except ValueError:
            return None
    if t is cst.UnaryOperation and type(expr.operator) is cst.Minus:  # type: ignore[attr-defined]
        v = _int_constant(expr.expression, qual, depth + 1)  # type: ignore[attr-defined]
        return -v if v is not None else None
    if t is cst.BinaryOperation:
        a = _int_constant(expr.left, qual, depth + 1)  # type: ignore[attr-defined]
        b = _int_constant(expr.right, qual, depth + 1) if a is not None else None  # type: ignore[attr-defined]
        if a is None or b is None:
            return None
        op = type(expr.operator)  # type: ignore[attr-defined]
        try:
            if op is cst.Power:
                return a ** b if 0 <= b <= 128 else None
            if op is cst.LeftShift:
                return a << b if 0 <= b <= 128 else None
            return {cst.Add: a + b, cst.Subtract: a - b, cst.Multiply: a * b, cst.BitOr: a | b, cst.BitAnd: a & b,
                    cst.FloorDivide: a // b if b else None, cst.Modulo: a % b if b else None}.get(op)  # type: ignore[call-overload]
        except (OverflowError, ValueError):
            return None
    if t is cst.Attribute and expr.attr.value in ("max", "min") and type(expr.value) is cst.Call:  # type: ignore[attr-defined]
        call = expr.value  # type: ignore[attr-defined]
        if qual(call.func) in ("torch.iinfo", "numpy.iinfo") and call.args and qual(call.args[0].value) in _INT64_INFO:
            return 2 ** 63 if expr.attr.value == "max" else -(2 ** 63)  # type: ignore[attr-defined]
    return None


def _int64_constant(expr: cst.BaseExpression, qual: Callable[[cst.BaseExpression], str]) -> bool:
    """``expr`` is an integer constant outside the int32 range (``2**32``, ``1 << 40``,
    ``torch.iinfo(torch.int64).max``): with JAX's default 32-bit types (``jax_enable_x64`` off)
    a Python int that large raises ``OverflowError`` when it meets an array."""
    t = type(expr)
    if t is cst.Integer:  # (most: `x.view(-1, 4)`; a 64-bit value has ten digits or a prefix)
        text = expr.value  # type: ignore[attr-defined]
        if len(text) < 10 and text[:2].lower() not in ("0x", "0o", "0b"):
            return False
    elif t is cst.UnaryOperation and type(expr.expression) is cst.Integer and len(expr.expression.value) < 10:  # type: ignore[attr-defined]
        return False
    v = _int_constant(expr, qual)
    return v is not None and not (_INT32[0] <= v <= _INT32[1])


def _fixed_piece_count(expr: cst.BaseExpression, qual: Callable[[cst.BaseExpression], str]) -> bool:
    """``expr`` splits a tensor into a number of pieces written in the source: ``x.chunk(3)``,
    ``torch.chunk(x, 2, dim=-1)``, ``x.split([4, 4], -1)``, ``torch.tensor_split(x, 3)``; so
    ``len()`` of the result is static. (A chunk count above the length gives fewer pieces;
    that length is still fixed per trace.)"""
    if type(expr) is not cst.Call:
        return False
    func = expr.func
    name = qual(func)
    if name in ("torch.chunk", "torch.split", "torch.tensor_split"):
        args = expr.args[1:]
    elif type(func) is cst.Attribute and func.attr.value in ("chunk", "split", "tensor_split"):
        args = expr.args
    else:
        return False
    if not args or args[0].keyword is not None and args[0].keyword.value not in ("chunks", "split_size_or_sections", "sections", "indices_or_sections"):
        return False
    count = args[0].value
    is_split = name == "torch.split" or (type(func) is cst.Attribute and func.attr.value == "split")
    if type(count) in (cst.List, cst.Tuple):
        return all(type(el) is not cst.StarredElement for el in count.elements)  # type: ignore[attr-defined]
    return not is_split and type(literal(count)) is int


#: Callees that are never a project function (their results' kinds are known or unknowable).
#: Methods no Python number has: called on a parameter static by its name or default
#: (``task_id.item()``, ``k.sum()``), the call's receiver is no static value.
_READBACK_METHODS = _TENSOR_ONLY_METHODS | {"long", "float", "bool", "sum", "max", "min", "unsqueeze"}


def _starred_pairs(targets: Sequence[cst.BaseElement], values: Sequence[cst.BaseElement]
                   ) -> list[tuple[cst.BaseElement, cst.BaseElement | None]] | None:
    """For ``a, *rest, z = x, *ys, w``: each target element with the value element at the same
    distance from the start (before the first starred element on either side) or from the end
    (after the last), None for the rest (a starred target, or a name whose item the starred
    value spreads); None when neither side has a starred element or the plain ends overlap."""
    t_star = [i for i, e in enumerate(targets) if type(e) is cst.StarredElement]
    v_star = [i for i, e in enumerate(values) if type(e) is cst.StarredElement]
    if not t_star and not v_star:
        return None
    head = min([*t_star, *v_star])  # plain items at the start of both sides
    tail = min(len(targets) - 1 - (t_star[-1] if t_star else -1),
               len(values) - 1 - (v_star[-1] if v_star else -1))  # plain items at the end of both
    if head + tail > min(len(targets), len(values)):
        return None
    out: list[tuple[cst.BaseElement, cst.BaseElement | None]] = []
    for i, el in enumerate(targets):
        from_end = len(targets) - i
        if i < head:
            out.append((el, values[i]))
        elif from_end <= tail:
            out.append((el, values[len(values) - from_end]))
        else:
            out.append((el, None))
    return out


def _sets_requires_grad_only(body: cst.BaseSuite) -> bool:
    """Every statement of ``body`` sets a tensor's ``requires_grad`` (``x.requires_grad = True``,
    ``x.requires_grad_()``): PyTorch's autograd glue, with no JAX counterpart."""
    stmts = body.body if type(body) is cst.IndentedBlock else [body]
    smalls = [sm for st in stmts for sm in (st.body if type(st) in (cst.SimpleStatementLine, cst.SimpleStatementSuite)
                                            else [None])]
    if not smalls:
        return False
    for sm in smalls:
        if type(sm) is cst.Assign and all(type(t.target) is cst.Attribute and t.target.attr.value == "requires_grad"
                                          for t in sm.targets):
            continue
        if type(sm) is cst.Expr and type(sm.value) is cst.Call and type(sm.value.func) is cst.Attribute and \
                sm.value.func.attr.value == "requires_grad_":
            continue
        return False
    return True


def _factory_table(fn: cst.FunctionDef) -> str:
    """The table of the registrar a decorator factory ``fn`` returns (``def register(name):
    def deco(cls): TASK_UTILS[name] = cls; return cls; return deco``: :func:`_registrar_table`
    of the function it defines and returns), "" if it returns none."""
    inner = _returned_def(fn)
    if not inner or type(fn.body) is not cst.IndentedBlock:
        return ""
    for st in fn.body.body:
        if type(st) is cst.FunctionDef and st.name.value == inner:
            return _registrar_table(st)
    return ""


def _registrar_table(fn: cst.FunctionDef) -> str:
    """The module-level name of the dict a one-parameter decorator ``fn`` stores what it
    decorates into (``def register(cls): REGISTRY[cls.__name__] = cls; return cls``), "" if
    its body's top-level statements write no ``<name>[...] = <its parameter>``."""
    params = fn.params.params
    if len(params) != 1 or type(fn.body) is not cst.IndentedBlock:
        return ""
    param = params[0].name.value
    for st in fn.body.body:
        if type(st) is not cst.SimpleStatementLine:
            continue
        for small in st.body:
            if type(small) is cst.Assign and len(small.targets) == 1 and type(small.value) is cst.Name \
                    and small.value.value == param:
                target = small.targets[0].target
                if type(target) is cst.Subscript and type(target.value) is cst.Name:
                    return target.value.value
    return ""


#: Names of top-level modules that are compiled extensions by their spelling: CamelCase (a C++
#: extension's `name=`, Deformable-DETR's `MultiScaleDeformableAttention`) or a `_C` / `_ext` /
#: `_cuda` / `_cpp` suffix (PEP 8 packages are lower case)
_COMPILED_NAME = re.compile(r"^_?[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$|(_C|_ext|_cuda|_cpp|_kernels?)$")


#: classes whose subclasses' instances are tensors
_TENSOR_CLASSES = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter"})


#: libcst augmented-assignment operator node -> its text (``emb /= norms``)
_AUG_OPS = {
    "AddAssign": "+=", "SubtractAssign": "-=", "MultiplyAssign": "*=", "DivideAssign": "/=",
    "FloorDivideAssign": "//=", "ModuloAssign": "%=", "PowerAssign": "**=", "MatrixMultiplyAssign": "@=",
    "BitAndAssign": "&=", "BitOrAssign": "|=", "BitXorAssign": "^=", "LeftShiftAssign": "<<=",
    "RightShiftAssign": ">>=",
}


def _returned_names(value: cst.BaseExpression, depth: int = 0) -> set[str]:
    """Names whose object ``value`` may be: ``x``, an in-place chain on it (``x.mul_(m)``,
    ``x.add_(3.).clamp_(0., 6.)`` return their receiver), either side of a ternary (``x.mul_(m)
    if inplace else x * m``). A parameter rebound on another path still counts: on the
    in-place path the object returned is the caller's."""
    t = type(value)
    if t is cst.Name:
        return {value.value}
    if depth > 8:
        return set()
    if t is cst.Call and type(value.func) is cst.Attribute and _is_inplace_method(value.func.attr.value):
        return _returned_names(value.func.value, depth + 1)
    if t is cst.IfExp:
        return _returned_names(value.body, depth + 1) | _returned_names(value.orelse, depth + 1)
    return set()


def _state_part(value: cst.BaseExpression, scope: "_FuncScope") -> bool:
    """``value`` is a part of a decoding-state parameter as it came (:data:`_STATE_NAME`):
    ``past_key_values.cross_attention_cache``, or the parameter itself under another name
    (``curr_past_key_value = past_key_values``), outside init code."""
    if scope.init_like:
        return False
    if type(value) is cst.Attribute:
        value = value.value
    return type(value) is cst.Name and value.value in scope.params and _STATE_NAME.search(value.value) is not None


def _returns_when_set(fn: cst.FunctionDef | None, name: str) -> bool:
    """Whether ``fn``'s body returns early once the global ``name`` is set: a top-level ``if
    name is not None: return name`` (or ``if name: return ...``) before anything else writes
    it (transformers' ``_lazy_load_causal_conv1d``)."""
    if fn is None or type(fn.body) is not cst.IndentedBlock:
        return False
    for stmt in fn.body.body:
        if type(stmt) is not cst.If:
            continue
        test = stmt.test
        tested = (type(test) is cst.Name and test.value == name) or (
            type(test) is cst.Comparison and type(test.left) is cst.Name and test.left.value == name
            and len(test.comparisons) == 1 and type(test.comparisons[0].operator) is cst.IsNot
            and type(test.comparisons[0].comparator) is cst.Name and test.comparisons[0].comparator.value == "None")
        if not tested or type(stmt.body) is not cst.IndentedBlock or not stmt.body.body:
            continue
        last = stmt.body.body[-1]
        if type(last) is cst.SimpleStatementLine and type(last.body[-1]) is cst.Return:
            return True
    return False


_CONTAINER_DISPLAYS = (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)


#: torch creation functions whose result, from static arguments, is known at trace time
_CONSTANT_FACTORIES = frozenset({
    "torch.arange", "torch.zeros", "torch.ones", "torch.full", "torch.linspace", "torch.logspace", "torch.eye",
    "torch.tensor", "torch.as_tensor", "torch.range",
})


def _is_local_container(value: cst.BaseExpression, bound: Mapping[str, cst.BaseExpression],
                        params: Collection[str], prior: Mapping[tuple[str, int], Any] | None = None) -> bool:
    """``value`` is a container built in this call: a list/dict/set display or comprehension,
    ``list()``/``dict()``/``set()`` (empty or of a display), or a local (not a parameter) whose
    binding is one, also through rebindings by calls handed the old value (``active, ok =
    check(active, pair)``: the callee returns that container or a new object, neither from
    outside the call)."""
    if type(value) is cst.Name and value.value not in params:
        name = value.value
        value = bound.get(name)  # type: ignore[assignment]
        for _ in range(4):
            if type(value) is not cst.Call or prior is None or not any(
                    type(a.value) is cst.Name and a.value.value == name for a in value.args):
                break
            value = prior.get((name, id(value)))  # the binding the call was handed
    if value is None:
        return False
    if type(value) in _CONTAINER_DISPLAYS:
        return True
    if type(value) is cst.Call:
        func = value.func
        leaf = func.value if type(func) is cst.Name else func.attr.value if type(func) is cst.Attribute else ""
        if leaf[:1].isupper() and not leaf.isupper() and not (type(func) is cst.Attribute and _root_name(func) == "torch"):
            return True  # `st = State(); step(st, x)`: an object built for the call (not a torch class)
    return type(value) is cst.Call and type(value.func) is cst.Name and value.func.value in ("list", "dict", "set") \
        and (not value.args or type(value.args[0].value) in _CONTAINER_DISPLAYS)


def _is_held(value: cst.BaseExpression) -> bool:
    """An argument the caller still holds after the call: a local name or ``self.<attr>``."""
    return (type(value) is cst.Name and value.value not in ("None", "True", "False")) or _is_self_attr(value)


#: Tensor methods whose result shares storage with the receiver.
_VIEW_METHODS = frozenset({
    "view", "view_as", "narrow", "select", "diagonal", "transpose", "permute", "expand",
    "expand_as", "unfold", "as_strided", "t", "squeeze", "unsqueeze", "unflatten", "movedim",
    "swapaxes", "mT", "real", "imag", "detach",
})


def _names_in_expr(node: cst.BaseExpression, limit: int = 64) -> list[str]:
    """Plain names read by a small expression (operands, call arguments), at most ``limit``."""
    out: list[str] = []
    todo: list[cst.CSTNode] = [node]
    while todo and len(out) < limit:
        n = todo.pop()
        t = type(n)
        if t is cst.Name:
            out.append(n.value)  # type: ignore[attr-defined]
        elif t is cst.BinaryOperation:
            todo.extend((n.left, n.right))  # type: ignore[attr-defined]
        elif t is cst.UnaryOperation:
            todo.append(n.expression)  # type: ignore[attr-defined]
        elif t is cst.Call:
            todo.extend(a.value for a in n.args)  # type: ignore[attr-defined]
        elif t is cst.IfExp:
            todo.extend((n.body, n.orelse))  # type: ignore[attr-defined]
    return out


def _view_source(value: cst.BaseExpression) -> str:
    """The root name of the tensor ``value`` is a view of (``y = x.view(...)``, ``y = x[0]``),
    or ""."""
    if type(value) is cst.Call and type(value.func) is cst.Attribute and value.func.attr.value in _VIEW_METHODS:
        return _root_name(value.func.value)
    if type(value) is cst.Subscript and all(
        type(el.slice) is cst.Slice or (type(el.slice) is cst.Index and type(el.slice.value) is cst.Integer)
        for el in value.slice
    ) and type(value.value) is cst.Name:
        return value.value.value
    return ""


def _is_true(value: cst.BaseExpression | None) -> bool:
    """``value`` is the literal ``True`` (a decorator or ``field()`` flag)."""
    return type(value) is cst.Name and value.value == "True"


def _is_false(value: cst.BaseExpression | None) -> bool:
    """``value`` is the literal ``False``."""
    return type(value) is cst.Name and value.value == "False"
