"""Call sites in the traversal (a mixin of :class:`~.visitor.FileVisitor`):
:meth:`visit_Call` and what it resolves for each call: the callees a bound name or
attribute runs (:meth:`_bound_calls`), dynamic members, library wrappers, configuration keys
and picked entries, project calls and host writes of Python state. The facts on a call's
arguments and result are in :mod:`.call_flow`, the lazily computed ones in
:mod:`.call_extras`. The helpers only these use are here too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable

import libcst as cst

from migrate_lens.analysis import kinds as K
from migrate_lens.analysis.bindings import is_class_like
from migrate_lens.analysis.bindings import dotted as _dotted
from migrate_lens.analysis.bindings import registry_keys
from migrate_lens.analysis.bindings import NOT_PROJECT as _NOT_PROJECT
from migrate_lens.analysis.bindings import is_project_callee as _is_project_callee
from migrate_lens.analysis.sites import NOT_LITERAL, LazyData, Site
from migrate_lens.analysis.summaries import is_model_use
from migrate_lens.analysis.values import literal
from migrate_lens.analysis.builders import BUILDERS, LIBRARY_REGISTRIES
from migrate_lens.models import NONLITERAL, CallFact, CallFlow, InjectionFact, SubmoduleFact, WrapperFact
from migrate_lens.analysis.call_extras import _CALL_EXTRAS, _CallExtras
from migrate_lens.analysis.cst_queries import (
    _is_inplace_method, _is_self, _is_self_attr, _names_read, _small_statements, _storage_of,
)
from migrate_lens.analysis.joins import _forwards
from migrate_lens.analysis.scopes import _fixed_attr, _may_be_method, _none_args
from migrate_lens.analysis.vocabulary import (CHECKPOINT_READERS, _CONFIG_PARAMS, _CONTAINER_CTORS, _STATE_NAME,
                                              _TRACED_METHODS)

if TYPE_CHECKING:
    from migrate_lens.analysis.scopes import _ClassInfo, _FuncScope

#: ``nn.Parameter`` and its full name (the data passed is a parameter's)
_PARAMETER_CLASSES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})

#: Calls a :class:`.summaries.SummaryBuilder` is told about (training steps, model calls).
_ROLE_METHODS = frozenset({"backward", "manual_backward", "step", "zero_grad", "forward", "__call__", "model"})


#: Calls that declare a compiled extension module for a build, its dotted name the first
#: argument or ``name=`` (setup.py: ``CUDAExtension("pkg._C", sources=[...])``)
_EXTENSION_BUILDERS = frozenset({
    "torch.utils.cpp_extension.CUDAExtension", "torch.utils.cpp_extension.CppExtension",
    "setuptools.Extension", "setuptools.extension.Extension", "distutils.core.Extension",
    "distutils.extension.Extension", "pybind11.setup_helpers.Pybind11Extension",
})


#: methods of matplotlib's ``Axes``/``Figure`` that no tensor library spells alike: a function
#: calling one draws on a figure it was handed (``ax2 = f.axes[0].twinx()`` in an override
#: that decorates ``super().plot_prediction(...)``'s figure), the ``plotting`` summary role
_AXES_METHODS = frozenset({
    "twinx", "twiny", "set_xlabel", "set_ylabel", "set_title", "suptitle", "tight_layout", "savefig",
    "set_xticks", "set_yticks", "set_xticklabels", "set_yticklabels", "fill_between", "add_subplot",
})


#: Methods that mutate a container or cache object and that no tensor has (``x.add`` is a tensor op).
_STATE_METHODS = frozenset({"update", "append", "extend", "insert", "setdefault", "pop", "popitem", "clear", "remove"})


#: Setter parameters that carry a per-step value (a step count, a schedule's temperature).
_SCHEDULE_PARAM = re.compile(r"step|update|epoch|iter|progress|temp|tau|anneal|decay|schedule|warmup", re.IGNORECASE)


_MUTATING_CONTAINER_METHODS = frozenset({
    "append", "extend", "insert", "update", "setdefault", "add", "__setitem__", "pop", "clear",
})


class CallsMixin:
    """The visitor's call sites: :meth:`visit_Call` and the bound callees, members,
    wrappers, configuration keys and host writes it resolves."""

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

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if self.pending_class_uses:
            use = self.pending_class_uses.pop(id(node), None)
            if use is not None:  # `norm_layer(dim)` of a parameter default `norm_layer=nn.LayerNorm`
                self._class_use(node, use[0], use[1], node.args, use[2])
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
        elif name in _PARAMETER_CLASSES:
            # `nn.Parameter(torch.full(shape, v, requires_grad=True))`: the tensor built as the
            # parameter's data (a parameter, whatever its own flag says; read by `in_parameter`)
            for a in node.args:
                if type(a.value) is cst.Call:
                    self.parameter_data.add(id(a.value))
        if type(func) is cst.Name and self.func_stack:
            order = self.func_stack[-1].param_order
            if order and func.value == order[0]:
                passed = _forwards(node, self.func_stack[-1])
                if passed is not None:
                    self.func_stack[-1].forwards |= passed
        if self.func_stack and (name == "delattr" or method == "__delattr__"):
            deleted = _delattr_target(node, name)
            if deleted is not None:
                self.attribute_delete(node, *deleted)
        if self.func_stack and (name == "setattr" or method == "__setattr__"):
            written = _setattr_target(node, name)
            if written is not None:  # `setattr(self, "mask", m)`: the write `self.mask = m` spelled as a call
                target, value = written
                self._fresh()
                vkind = self.kind(value)
                self._assign_target(target, vkind, node, value, self._derived(lambda: self.kind(value)))
            elif name == "setattr":
                self._setattr_layer(node)
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
        if scope is not None and scope.summary is not None and (
                name.startswith("torch.utils.data.") or _COLLATE_CALL.search(method or name.rsplit(".", 1)[-1])):
            scope.summary.loads += 1  # builds the input pipeline (summaries' ``data-pipeline`` role)
        result_kind = parts.result
        call_used = self.values.used
        if scope is not None and node.args and (
                name in K.SHAPE_FUNCS or (method in K.SHAPE_METHODS and receiver in K.TENSORISH)):
            # (`torch.full(size, fill_value)`: the fill value sets no shape)
            sized = node.args[:1] if name == "torch.full" or method == "new_full" else node.args
            if name == "torch.arange":
                sized = _arange_size_args(node.args)
                if sized is not node.args and all(self.kind(a.value) == K.S for a in sized if a.keyword is None):
                    self._sized.add(id(node))  # (`arange(past, past + n)`, static n: no size from data)
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
            "guards_model_call": id(node) in self.no_grad_model_calls,
        }, extras, _CALL_EXTRAS)
        if method in K.HOST_METHODS and scope is not None and scope.summary is not None and scope.summary.ended():
            data["after_step"] = scope.summary.after_step()  # (now: the summary moves on with the walk)
        if self.grow_calls and id(node) in self.grow_calls:
            data["grows"] = self.grow_calls[id(node)]
        if self.local_grow_calls and id(node) in self.local_grow_calls:
            data["grows_local"] = self.local_grow_calls[id(node)]
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
            holder = func.value if method else None
            # (`self` is a plain parameter of a free function: a method moved out of its class,
            # `def backprop_loss(self, loss)`)
            own = ("self", "cls") if scope.is_method else ()
            if type(holder) is cst.Attribute and type(holder.value) is cst.Name and \
                    holder.value.value not in own:
                holder = holder.value  # `trainer.model.initial_inference(obs)`: an attribute of an argument
            untyped = (not callee or (not own and callee.startswith("self."))) and bool(method) and \
                type(holder) is cst.Name and holder.value in scope.env and holder.value not in own and \
                method not in K.COMMON_METHODS and (receiver == K.U or (not own and holder.value == "self")) and \
                not (holder is func.value and holder.value in scope.binds.instances)
            # (a local holding an instance of a class it built, `d = ForwardDecorator(f);
            # d.get_embeddings()`, is resolved through that class: :meth:`_bound_calls`; an
            # annotated parameter may hold a subclass, `past_key_values: Cache` a MiniMaxCache)
            if untyped:
                # `src_mesh.offset_verts(d)` on an object of unknown class (a training step's
                # argument, or an attribute of one): the project may resolve it by the method's
                # name alone
                callee = f"{_dotted(func.value)}.{method}"
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
                        if id(node) in self.ctor_pos:  # `self.classifier[3](x)` runs this one only
                            scope.cls.layer_ctors.setdefault(f"{attr}[{self.ctor_pos[id(node)]}]", []).append(
                                (name, dict(data)))
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
            data["in_module_class"] = bool(scope.cls and (scope.cls.is_module or scope.cls.composes))
            # `self.rng = np.random.default_rng(seed)` in a data sampler's `__init__`: a plain class's init
            data["plain_class_init"] = bool(scope.cls and scope.init_like and not data["in_module_class"])
            if not scope.loads_checkpoint and not scope.branches and (name in CHECKPOINT_READERS or any(
                    type(v) in (cst.Name, cst.Attribute) and _leaf_name(v) in _READER_LEAVES and
                    self.qual(v) in CHECKPOINT_READERS for a in node.args
                    for v in ((a.value.body, a.value.orelse) if type(a.value) is cst.IfExp else (a.value,)))):
                # `w = np.load(checkpoint_path)`, or a reader handed to a helper
                # (`_load_npz_checkpoint(path, load_fn=jnp.load if bf16 else np.load)`), in the
                # function's own block: a weight loader (not a `from_pretrained` whose `if from_tf:`
                # branch loads and returns, with weight surgery after it)
                scope.loads_checkpoint = True
            data["checkpoint_loader"] = scope.loads_checkpoint
            data["shape_probe"] = scope.shape_probe
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
                                   data={"how": "argument" if root.value in scope.params else "built", "method": method,
                                         "param": root.value if root.value in scope.params else ""},
                                   requires=(f"o:{root.value}=X",) if root.value in scope.params else ())
                    if type(root) is cst.Name and method in ("append", "extend", "insert") and node.args and \
                            self._holds_tensors(node.args[-1].value, item=method != "extend"):
                        scope.tensor_lists.add(root.value)  # `pyramid.append(corr)`
                elif _is_inplace_method(method) and receiver in (K.T, K.B, K.U):
                    self._state_write(node, root, "inplace", receiver)
                    self._view_write(node, root)
                    self._arg_write(node, root, f".{method}()")
            if scope.loops and (name or (type(func) is cst.Name and func.value in scope.binds.instances)):
                # (a local instance called, `criterion(output, queue)`: its class's `__call__`)
                summary = scope.summary
                summary.loop_call(name or "__call__", self._lines(node)[0] if summary.ended() else 0)  # type: ignore[union-attr]
            recv = func.value if type(func) is cst.Attribute else None
            # (`model.m(...)`, `self.model.m(...)`: only then is the receiver's text worth building)
            model_use = recv is not None and (
                (type(recv) is cst.Name and recv.value == "model") or
                (type(recv) is cst.Attribute and recv.attr.value == "model")) and is_model_use(method, _dotted(recv))
            if scope.summary is not None and recv is not None and scope.context != "traced" and (
                    (method in _PLACEMENT_METHODS and receiver == K.M) or
                    (method == "prepare" and _dotted(recv).endswith("accelerator"))):
                # `unet.to(device if i == index else "cpu")` over a model's parts, a
                # `self.accelerator.prepare(unet, opt)`: device placement and wrapping of whole models
                scope.summary.placement_call()
            if scope.summary is not None and (method in _ROLE_METHODS or name == "torch.autograd.backward" or (
                    scope.loops and (type(func) is cst.Name or method == "update")) or model_use or (
                    type(func) is cst.Name and func.value in ("self", "model", "next"))):
                first = next((a.value for a in node.args if a.keyword is None and not a.star), None)
                ends = scope.summary.call(name or _dotted(func), method, _dotted(recv) if recv is not None else "",
                                          scope.loops > 0, _dotted(first) if first is not None else "")
                if ends:  # a backward()/step() in a loop: the training step ends here so far
                    scope.summary.step_end(ends, self._lines(node)[1])
            if scope.loops and scope.context != "traced":
                self._loop_callee(scope, func, name)
                held = func.attr.value if _is_self_attr(func) else (  # type: ignore[union-attr]
                    # `demask_fn = self.transformer.forward_with_cond_scale` (or a partial of it)
                    # before the loop, `demask_fn(ids, ...)` in it
                    name.split(".")[1] if type(func) is cst.Name and name.startswith("self.")
                    else "")
                if scope.summary is not None and scope.cls is not None and scope.cls.is_module and held and (
                        scope.cls.attr_kinds.get(held) == K.M or held in scope.cls.method_nodes):
                    # `for t in timesteps: x = self.p_sample(x, t)` / `self.net(x, sigma)` in a sampler:
                    # a decoding loop over the model, held under any name (weak: forward's reach wins)
                    scope.summary.sampling_call()
        held_attr = _layer_attr(func, scope) if scope is not None and scope.cls is not None and \
            (scope.cls.layer_ctors or scope.cls.inherited_layers) and not scope.init_like else ""
        if held_attr:
            # `self.attn_drop(attn)` in forward: where the layer built in init runs (its draw, its
            # mode switch), a site of its constructor with the constructor's arguments (built by
            # the class's init, or else by a base class's of this file)
            for ctor, cdata in scope.cls.layer_ctors.get(held_attr) or \
                    scope.cls.inherited_layers.get(held_attr, ()):  # type: ignore[union-attr]
                self._site("layer-call", node, name=ctor, data=cdata)
                if self.bindings.is_project(ctor):
                    # a layer class imported from the project (a re-export of timm's DropPath):
                    # what it is, the project graph decides
                    self._project_call(node, ctor, "", cdata, site_kind="layer-call")
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

    def _project_call(self, node: cst.CSTNode, callee: str, method: str, data: Any, bound: bool = False,
                      site_kind: str = "call") -> None:
        """Keep a call of ``callee``, a name of the project, for the project graph to match once
        it knows what the name is (:class:`~migrate_lens.models.CallSiteFact`). The call's own
        arguments only: a LazyData holds the visitor (a reference cycle that kept the whole tree
        for the cyclic GC after each file). ``site_kind`` "layer-call": ``node`` runs a layer
        built in init from ``callee``, ``data`` its constructor's arguments."""
        args_only = {k: dict.get(data, k) for k in _PROJECT_CALL_KEYS}
        if type(node) is cst.Call and site_kind == "call":
            args_only["args"], args_only["kwargs"] = self._fixed_self_args(node, data)
        args_only["bound"] = bound  # `norm_layer(d)`: a name bound to the callee (a parameter default)
        args_only["site_kind"] = site_kind
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


def _delattr_target(node: cst.Call, name: str) -> tuple[cst.BaseExpression, str] | None:
    """``(receiver, attr)`` for ``delattr(receiver, "attr")`` or ``receiver.__delattr__("attr")``
    with a literal name; None otherwise."""
    args = node.args
    if any(a.star or a.keyword is not None for a in args):
        return None
    if name == "delattr" and len(args) == 2:
        receiver, key = args[0].value, args[1].value
    elif type(node.func) is cst.Attribute and node.func.attr.value == "__delattr__" and len(args) == 1:
        receiver, key = node.func.value, args[0].value
    else:
        return None
    attr = key.evaluated_value if type(key) is cst.SimpleString else None
    return (receiver, attr) if isinstance(attr, str) and attr.isidentifier() else None


def _setattr_target(node: cst.Call, name: str) -> tuple[cst.Attribute, cst.BaseExpression] | None:
    """``(self.<attr>, value)`` for a call that writes an attribute of ``self`` named by a string
    literal: ``setattr(self, "mask", m)``, ``self.__setattr__("mask", m)``, ``super().__setattr__(
    "mask", m)``, ``object.__setattr__(self, "mask", m)`` (``nn.Module.__setattr__`` likewise); or
    ``(self.<held>.<name>, value)`` for ``setattr(self.<held>, <name>, value)`` with a literal or a
    variable name (the attribute then carries the variable's name). None for any other call, and for
    a non-literal name on ``self`` itself (``setattr(self, f"l{i}", m)``)."""
    args = node.args
    if any(a.star or a.keyword is not None for a in args):
        return None
    func = node.func
    receiver: cst.BaseExpression = cst.Name("self")
    if name == "setattr" or (type(func) is cst.Attribute and len(args) == 3 and type(func.value) is not cst.Call
                             and not _is_self(func.value)):
        if len(args) != 3:
            return None
        if _is_self_attr(args[0].value) and name == "setattr":
            # `setattr(self.module, name_w, w)` (AWD-LSTM's WeightDrop): an attribute of an
            # object the module holds, written as `self.module.<name> = w` would be
            receiver = args[0].value
        elif not _is_self(args[0].value):
            return None  # setattr(obj, ...) / object.__setattr__(obj, ...) on another object
        key, value = args[1].value, args[2].value
    elif len(args) == 2 and type(func) is cst.Attribute and (
            _is_self(func.value) or (type(func.value) is cst.Call and type(func.value.func) is cst.Name
                                     and func.value.func.value == "super")):
        key, value = args[0].value, args[1].value
    else:
        return None
    if type(key) is cst.Name and type(receiver) is cst.Attribute:
        attr = key.value  # `setattr(self.module, name_w, w)`: the attribute is named by a variable
    elif type(key) is not cst.SimpleString:
        return None
    else:
        attr = key.evaluated_value
    if not isinstance(attr, str) or not attr.isidentifier():
        return None
    return cst.Attribute(value=receiver, attr=cst.Name(attr)), value


_FACTORY_METHOD = re.compile(r"^(from_(config|cfg|args|dict|params|settings|kwargs|hparams|opts?)|build|create|make)$")


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
        if type(v) is cst.BinaryOperation and type(v.operator) in (cst.Subtract, cst.FloorDivide, cst.Add) and \
                type(v.left) is cst.Name and v.left.value in scope.params and type(v.right) is cst.Integer and \
                kind(v.left) == K.S:
            # `B_batch(x, grid, k=k - 1)` (pykan's B-splines), `fib(n - 1)`, `build(level + 1)`: a
            # Python counter walked to its base case, as deep as the caller fixes: unrolled by the trace
            return True
    return False


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
#: The last name part of a batch collation function (``pad_collate``, ``collate_fn``,
#: ``default_collate``): what calls one builds batches on the host (``data-pipeline`` role)
_COLLATE_CALL = re.compile(r"(^|_)collate(_|$|fn$)")

#: functions that write an image file: a function calling one dumps pictures for a person to
#: look at (a debug dump, a sample grid), host code like a plot
_IMAGE_WRITERS = frozenset({
    "torchvision.utils.save_image", "cv2.imwrite", "imageio.imwrite", "imageio.v2.imwrite", "imageio.v3.imwrite",
    "imageio.mimsave", "imageio.v2.mimsave", "skimage.io.imsave", "PIL.Image.Image.save", "scipy.misc.imsave",
    "torchvision.io.write_png", "torchvision.io.write_jpeg", "torchvision.io.write_video",
})


#: What the engine keeps of a call of a project name (``CallSiteFact``; eager keys of the call's data)
_PROJECT_CALL_KEYS = ("args", "kwargs", "star", "no_grad", "reference")

#: Methods that move a whole module between devices (``unet.to("cpu")``, ``model.cuda()``)
_PLACEMENT_METHODS = frozenset({"to", "cpu", "cuda"})


_KERNEL_NAME = re.compile(r"kernel", re.IGNORECASE)


_GRID_NAME = re.compile(r"^_?grid", re.IGNORECASE)


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


#: Names of top-level modules that are compiled extensions by their spelling: CamelCase (a C++
#: extension's `name=`, Deformable-DETR's `MultiScaleDeformableAttention`) or a `_C` / `_ext` /
#: `_cuda` / `_cpp` suffix (PEP 8 packages are lower case)
_COMPILED_NAME = re.compile(r"^_?[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$|(_C|_ext|_cuda|_cpp|_kernels?)$")


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


#: Last dotted parts of :data:`~.vocabulary.CHECKPOINT_READERS`: an argument is resolved only
#: when its own last part is one of them (most arguments are not, and stay unresolved).
_READER_LEAVES = frozenset(r.rsplit(".", 1)[-1] for r in CHECKPOINT_READERS)


def _leaf_name(node: cst.BaseExpression) -> str:
    """The last part of a ``Name`` or ``Attribute`` (``np.load`` -> ``load``)."""
    return node.value if type(node) is cst.Name else node.attr.value  # type: ignore[union-attr,return-value]


def _layer_attr(func: cst.BaseExpression, scope: Any) -> str:
    """The attribute of ``self`` whose layer a call runs: ``self.attn_drop(x)``, an item of a
    container built in init (``self.lora_dropout[adapter](x)``, ``self.drops[i](x)``) or the
    loop name over one (``for drop in self.drops: x = drop(x)``); "" otherwise."""
    t = type(func)
    if t is cst.Attribute:
        return func.attr.value if _is_self_attr(func) else ""  # type: ignore[attr-defined]
    if t is cst.Subscript:
        if not _is_self_attr(func.value):  # type: ignore[attr-defined]
            return ""
        attr = func.value.attr.value  # type: ignore[attr-defined]
        index = literal(func.slice[0].slice.value) if len(func.slice) == 1 and \
            type(func.slice[0].slice) is cst.Index else None  # type: ignore[attr-defined]
        prefix = f"{attr}["
        if not any(k.startswith(prefix) for k in (*scope.cls.layer_ctors, *scope.cls.inherited_layers)):
            return attr  # the same layers at every index (a comprehension), or keyed by name
        # a container listed position by position (`nn.Sequential(nn.Linear(...), nn.Dropout(p))`):
        # the layer at a literal index; another index may be any of them (none is claimed)
        return f"{attr}[{index}]" if type(index) is int and index >= 0 else ""
    if t is cst.Name:
        typed = scope.binds.typed.get(func.value)  # type: ignore[attr-defined]
        if typed and len(typed) == 1 and typed[0].startswith("self.") and "." not in typed[0][5:] and \
                func.value in scope.iter_names:  # type: ignore[attr-defined]
            return typed[0][5:]
    return ""


def _arange_size_args(args: Sequence[cst.Arg]) -> Sequence[cst.Arg]:
    """The arguments of ``torch.arange(...)`` that set its length: all of them, except that in
    ``arange(start, start + n)`` (``cache_position = torch.arange(past, past + seq_len)``) the
    start only offsets a range of static length ``n``: ``start + jnp.arange(n)`` traces with a
    traced ``start``, so only ``n`` (and a step) can make the shape data-dependent."""
    pos = [a for a in args if a.keyword is None and not a.star]
    named = {a.keyword.value: a.value for a in args if a.keyword is not None}
    bounds = [a.value for a in pos[:2]] + [named[k] for k in ("start", "end")[len(pos[:2]):] if k in named]
    if len(bounds) < 2 or type(bounds[1]) is not cst.BinaryOperation or \
            type(bounds[1].operator) is not cst.Add:  # type: ignore[attr-defined]
        return args
    start, end = bounds[0], bounds[1]
    text = _dotted(start)
    if not text:
        return args
    left, right = end.left, end.right  # type: ignore[attr-defined]
    if _dotted(left) == text:
        other = right
    elif _dotted(right) == text:
        other = left
    else:
        return args
    # (`arange(start=past, end=past + n)` too: what is left sets the length, the step with it)
    return [cst.Arg(value=other), *pos[2:], *(a for a in args if a.keyword is not None and
                                              a.keyword.value not in ("start", "end"))]

