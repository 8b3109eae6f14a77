"""Definitions in the traversal (a mixin of :class:`~.visitor.FileVisitor`): classes
(``nn.Module`` subclasses, dataclass and attrs fields as init slots, hooks, configuration
classes), functions and lambdas (the :class:`~.scopes._FuncScope` each opens and the
:class:`~.models.FunctionSummary` each closes with) and their parameters (bindings,
defaults, the evidence of what a parameter holds). The helpers only these visits use are
here too.
"""

from __future__ import annotations

import re
from dataclasses import replace
from collections.abc import Mapping
from typing import Any

import libcst as cst
from libcst.metadata import PositionProvider

from migrate_lens.analysis import kinds as K
from migrate_lens.analysis.bindings import STRING_NODES, is_class_like
from migrate_lens.analysis.bindings import dotted as _dotted
from migrate_lens.analysis.bindings import NOT_PROJECT as _NOT_PROJECT
from migrate_lens.analysis.bindings import is_project_callee as _is_project_callee
from migrate_lens.analysis.sites import NOT_LITERAL, Site
from migrate_lens.analysis.summaries import SummaryBuilder
from migrate_lens.analysis.values import IDENTITY, literal
from migrate_lens.analysis.walk import child_nodes
from migrate_lens.models import (
    AUTOGRAD_FUNCTION_BASES, PLAIN_BASE_PREFIXES, PLAIN_BASES, CallFact, ClassFact, FunctionFact,
)
from migrate_lens.analysis.cst_queries import (
    _is_self_attr, _key_attr, _key_comparisons, _reads, _returned_def, _size_query_of,
)
from migrate_lens.analysis.joins import _with_flows
from migrate_lens.analysis.scopes import _ClassInfo, _FuncScope
from migrate_lens.analysis.vocabulary import _CONFIG_PARAMS, _TENSOR_ONLY_METHODS, _TRACED_METHODS

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
#: A plain class (no ``nn.Module``) that computes a training loss by its name (YOLOv5's
#: ``ComputeLoss``, FCOS's ``FCOSLossComputation``, a ``SetCriterion``): the training step
#: calls it on the model's outputs (``loss, items = compute_loss(pred, targets)``), so its
#: ``__call__`` is traced code like a loss module's ``forward``; not a meter, logger or
#: scaler that only records or scales a loss on the host.
_LOSS_CLASS = re.compile(r"Loss|Criterion|(^|_)(loss|criterion)(_|$)")
_LOSS_CLASS_HOST = re.compile(r"meter|tracker|logger|scaler|scheduler|recorder|history|averag|monitor|writer|plot"
                              r"|callback|hook", re.IGNORECASE)


_MODULE_BASES = ("torch.nn.",)

#: A hand-written optimizer's base (``class Lion(Optimizer)``, ``class SAM(torch.optim.Optimizer)``,
#: a variant of a built-in one): its ``step()`` becomes an optax ``GradientTransformation``'s
#: ``update``, which runs inside the jitted training step, so it is traced code and so is what
#: it calls (a module-level ``update_fn``).
_OPTIMIZER_BASE = re.compile(r"^torch\.optim\.(optimizer\.)?(Optimizer|[A-Z]\w*)$")


#: parameter names that hold a module object (a helper's ``module``/``layer`` argument)
_MODULE_PARAMS = frozenset({"module", "layer"})


#: nn.Module methods whose override changes what the module does by a Python-side mode.
_MODE_METHODS = frozenset({"train", "eval"})


#: Annotations of a parameter that is the caller's mutable container (``cache: dict``).
_MUTABLE_CONTAINER_TYPES = frozenset({
    "dict", "list", "typing.Dict", "typing.List", "typing.MutableMapping", "typing.MutableSequence",
    "collections.abc.MutableMapping", "collections.abc.MutableSequence", "typing.DefaultDict",
    "collections.defaultdict", "collections.OrderedDict", "typing.OrderedDict",
})


class DefinitionsMixin:
    """The visitor's class, function and lambda definitions and their parameters:
    scopes opened and closed, dataclass slots, parameter bindings and evidence."""

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
                          composes=is_module or (not is_fn and any(_may_be_module_base(b) for b in bases)),
                          is_optimizer=any(_optimizer_base(b, self.local_classes) for b in bases))
        for b in bases:  # the layers this file's base classes built (their init ran first)
            base = self.local_classes.get(b.rsplit(".", 1)[-1])
            if base is not None and base.qualname == b and base is not info:
                for attr, ctors in (*base.layer_ctors.items(), *base.inherited_layers.items()):
                    info.inherited_layers.setdefault(attr, ctors)
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
            elif name == "step" and not cls.is_module and "staticmethod" not in decorators and \
                    any(_OPTIMIZER_BASE.match(b) for b in cls.bases):
                context = "traced"  # a hand-written optimizer's update: optax's jitted `update`
            elif not cls.is_module and name in ("__call__", "forward") and len(self.class_stack) == 1 and \
                    _LOSS_CLASS.search(cls.qualname.rsplit(".", 1)[-1]) and \
                    not _LOSS_CLASS_HOST.search(cls.qualname.rsplit(".", 1)[-1]) and "staticmethod" not in decorators:
                context = "traced"  # a plain loss object's call: part of the training step
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
        if innermost == "class" and cls is not None and cls.is_module and name in _MODE_METHODS and \
                _mode_signature(node):
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
        script = context == "host" and not self.func_stack and not self.class_stack and \
            _SCRIPT_ONLY.match(name) is not None
        scope = _FuncScope(qualname=qualname, name=name, context=context, cls=cls, is_method=is_method,
                           guess=guess, init_like=init_like, node=node, script=script,
                           toggle=bool(decorators & _CONTEXT_MANAGER_DECORATORS) or (
                               is_method and name in ("__enter__", "__exit__")))
        scope.summary = SummaryBuilder(qualname, name, guess, in_module=cls is None or cls.is_module,
                                       module_method=is_method and cls is not None and cls.is_module,
                                       hooks=cls is None or self._may_run_hooks(cls),
                                       free=cls is None and innermost == "module")
        scope.memo_filler = cls is not None and name in cls.memo_fillers and name != "__init__"
        if node.returns is not None and decorators & _PROPERTY_DECORATORS and \
                self.values._annotation_kind(node.returns) == K.S:
            scope.shape_probe = True  # `@cached_property def min_num_samples(self) -> int:`
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
        whole = frozenset(n for n, i in scope.returned if i == -1)
        if whole:
            # `features.update({...}); return features`: the caller gets the update as the result
            self.returned_params[scope.qualname] = whole
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
                    # (an autograd Function's `forward(ctx, xyz, offset)`: what `apply` is given)
                    kind = K.T if traced or autograd else K.U
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

    def _is_bare_param(self, expr: cst.BaseExpression) -> bool:
        """``if mask:`` / ``past and ...`` on a parameter as passed: the truth value of an
        optional argument is a None/emptiness check (a multi-element tensor would raise in
        PyTorch too), not a test of tensor data."""
        return (type(expr) is cst.Name and bool(self.func_stack)
                and expr.value in self.func_stack[-1].params)

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

    def _numeric_param(self, name: str) -> bool:
        """Parameter ``name`` of the current function is a number (``temperature: float``,
        ``step: int``, ``tau=0.5``), not a switch."""
        scope = self.func_stack[-1]
        ann, default = scope.param_meta.get(name, (None, None))
        if ann is not None and _dotted(ann.annotation) in ("int", "float"):
            return True
        lit = literal(default) if default is not None else NOT_LITERAL
        return isinstance(lit, (int, float)) and not isinstance(lit, bool)

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


#: ``<name>.<method>(`` for a method ``torch.Tensor`` lacks (:meth:`FileVisitor._mapping_params`)
_NON_TENSOR_CALL = re.compile(
    r"(?<![\w.])([A-Za-z_]\w*)\s*\.\s*(?:" + "|".join(sorted(K.NON_TENSOR_METHODS)) + r")\s*\(")


#: Methods of a tensor (or an array) that no Python number, string, flag or container has
#: (``offset.long()``, ``lengths.cumsum(0)``): with ``.shape``/``.device`` reads, what says that a
#: parameter named like a size (``offset``, ``length``) holds a tensor in traced code
_TENSOR_LIKE_METHODS = frozenset({"long", "float", "half", "bool", "int", "view", "reshape", "cumsum", "squeeze",
                                  "unsqueeze", "numel", "dim", "to", "masked_fill", "new_zeros", "new_ones", "type_as"})

#: ``<name>.<method>(`` for a method only a tensor (or an array) has, or a ``<name>.shape`` /
#: ``<name>.device`` read (:meth:`FileVisitor._param_evidence`)
_TENSOR_ONLY_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*\.\s*(?:(?:"
                               + "|".join(sorted(_TENSOR_ONLY_METHODS | _TENSOR_LIKE_METHODS)) + r")\s*\(|(?:shape|device)\b)")


#: A name whose type is tested (``torch.is_tensor(n)``, ``isinstance(n, ...)``): :meth:`FileVisitor._param_evidence`
_TYPE_TESTED = re.compile(r"(?:is_tensor|isinstance)\(\s*([A-Za-z_]\w*)\s*[,)]")


#: A bare name given to a ``math`` function (``math.floor(nfe / 3)``) or to ``range``
#: (``range(n_steps)``, ``range(0, n)``): a Python number (:meth:`FileVisitor._param_evidence`)
_SCALAR_USE = re.compile(
    r"(?<![\w.])math\.[a-z]\w*\(\s*([A-Za-z_]\w*)\s*(?:[-+*/%,)])"
    r"|(?<![\w.])range\(\s*(?:[\w.]+\s*,\s*)?([A-Za-z_]\w*)\s*[,)]")


_PLAIN_BASE_PREFIXES = ("torch.", *PLAIN_BASE_PREFIXES)


_PLAIN_BASES = PLAIN_BASES


def _optimizer_base(base: str, local_classes: dict[str, _ClassInfo]) -> bool:
    """``base`` is a ``torch.optim`` optimizer (``Optimizer`` itself or a concrete one:
    ``class MyAdam(torch.optim.Adam)``; not a learning-rate scheduler) or an optimizer class of
    this file."""
    if base.startswith("torch.optim.") and not base.startswith(("torch.optim.lr_scheduler", "torch.optim.swa_utils")):
        return True
    local = local_classes.get(base.rsplit(".", 1)[-1])
    return local is not None and local.qualname == base and local.is_optimizer


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


#: Calls inside an overridden ``train()`` that change behaviour (not cache upkeep).
_MODE_SWITCH_CALLS = frozenset({"eval", "train", "requires_grad_", "apply"})


def _mode_signature(node: cst.FunctionDef) -> bool:
    """Whether ``node`` (a ``train``/``eval`` of a module) has ``nn.Module``'s signature:
    ``train(self, mode=True)``, ``eval(self)``: at most one parameter after ``self``, with a
    default, named ``mode`` or defaulting to a bool. A trainer that subclasses ``nn.Module``
    and names its loop ``train(self, log_fn=noop)`` overrides no mode."""
    params = node.params
    if type(params.star_arg) is cst.Param or params.kwonly_params or params.star_kwarg is not None:
        return False  # (`*args`, keyword-only or `**kwargs` parameters: another method)
    rest = [*params.posonly_params, *params.params][1:]
    if not rest:
        return True
    if len(rest) > 1 or rest[0].default is None:
        return False
    return rest[0].name.value in ("mode", "training", "flag") or literal(rest[0].default) in (True, False)


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


#: Decorators that make a method a (cached) property.
_PROPERTY_DECORATORS = frozenset({"property", "functools.cached_property", "cached_property",
                                  "torch.utils._contextlib.cached_property"})

#: Decorators that make a generator function a context manager.
_CONTEXT_MANAGER_DECORATORS = frozenset({"contextlib.contextmanager", "contextlib.asynccontextmanager"})


#: ``functools`` decorators that keep a function's (or property's) results across calls.
_FUNCTOOLS_CACHES = frozenset({"functools.lru_cache", "functools.cache", "functools.cached_property"})


def _first_param(params: cst.Parameters) -> str:
    """The name of a function's first positional parameter, "" if it has none."""
    first = params.posonly_params[:1] or params.params[:1]
    return first[0].name.value if first else ""


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

#: Those of them that are only script code (``test_fwd``, ``benchmark_scan``, ``bench_step``,
#: ``profile_step``) and emit no sites: not a bare ``test``/``profile``, which a training script's
#: evaluation loop is often called (PyTorch examples' ``def test(model, device, test_loader)``)
_SCRIPT_ONLY = re.compile(r"^((test|bench|profile)_\w|benchmark)")


_TRITON_DECORATORS = frozenset({"triton.jit", "triton.runtime.jit.jit", "triton.autotune", "triton.heuristics",
                                "triton.runtime.autotune", "triton.runtime.heuristics"})


#: classes whose subclasses' instances are tensors
_TENSOR_CLASSES = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter"})


def _is_true(value: cst.BaseExpression | None) -> bool:
    """``value`` is the literal ``True`` (a decorator or ``field()`` flag)."""
    return type(value) is cst.Name and value.value == "True"


def _is_false(value: cst.BaseExpression | None) -> bool:
    """``value`` is the literal ``False``."""
    return type(value) is cst.Name and value.value == "False"
