"""Binding statements in the traversal (a mixin of :class:`~.visitor.FileVisitor`):
``=``, annotated and augmented assignments, ``del``, walrus and bare expression
statements; what each target is bound to (aliases, fresh or constant tensors, random
draws, tensor mappings, message strings), handing writes of outlasting state on to
:mod:`.state_writes`. The helpers only these visits use are here too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable

import libcst as cst

from migrate_lens.analysis import kinds as K
from migrate_lens.analysis.bindings import is_class_like, merge
from migrate_lens.analysis.bindings import dotted as _dotted
from migrate_lens.analysis.bindings import names_in_target as _names_in_target
from migrate_lens.analysis.bindings import registry_keys
from migrate_lens.analysis.bindings import is_project_callee as _is_project_callee
from migrate_lens.analysis.sites import NOT_LITERAL
from migrate_lens.analysis.values import IDENTITY, _is_shape, literal
from migrate_lens.analysis.walk import child_nodes
from migrate_lens.models import CallFact
from migrate_lens.analysis.cst_queries import numpy_value as _numpy_value
from migrate_lens.analysis.cst_queries import (
    _alternatives, _is_input_device, _is_self_attr, _rng_module, _root_name, _storage_of,
)
from migrate_lens.analysis.vocabulary import _REGISTRATIONS, _STATE_NAME, _TRACED_METHODS

if TYPE_CHECKING:
    from migrate_lens.analysis.scopes import _FuncScope

#: methods by which module-level code adds entries to a dispatch table (their arguments, a
#: ``setdefault``'s or ``insert``'s after the first)
_TABLE_FILLS = frozenset({"update", "append", "extend", "setdefault", "insert"})


#: A layer's own tables of parameters, buffers and children (``nn.Module.__dict__`` entries).
_MODULE_TABLES = frozenset({"_parameters", "_buffers", "_modules"})


class AssignmentsMixin:
    """The visitor's binding statements: ``=``, annotated and augmented assignments,
    ``del``, walrus, and the kinds of the values they bind."""

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
            # the call whose result the statement binds, through a chain of subscripts and
            # method calls on it (`q = self.sinkhorn(q)[-bs:]`, `x = f(x).t()`)
            head: cst.BaseExpression = node.value
            while True:
                if type(head) is cst.Subscript:
                    head = head.value
                elif type(head) is cst.Call and type(head.func) is cst.Attribute and type(head.func.value) is cst.Call:
                    head = head.func.value
                else:
                    break
            if type(head) is cst.Call:
                self.call_rebinds[id(head)] = frozenset(n for t in node.targets for n in _names_in_target(t.target))
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
                if type(t.value) is cst.Attribute and t.value.attr.value in _MODULE_TABLES:
                    # `del self.module._parameters[name_w]` (AWD-LSTM's WeightDrop): a parameter
                    # taken out of a layer's table, which the layer then rebuilds per call
                    self.attribute_delete(node, t.value.value, t.value.attr.value)
            elif type(t) is cst.Attribute:
                # `del self.weight` / `del conv.weight` (weight_norm's reparameterisation)
                self.attribute_delete(node, t.value, t.attr.value)

    def _layer_rooted(self, node: cst.BaseExpression) -> bool:
        """``node`` is a layer, or an attribute chain under one (``self.Qformer.bert.embeddings``
        of a held ``BertLMHeadModel``: the chain's own kinds are guesses from attribute names)."""
        while type(node) is cst.Attribute:
            if self.kind(node) == K.M:
                return True
            node = node.value
        return type(node) is cst.Name and node.value not in ("self", "cls") and self.kind(node) == K.M

    def attribute_delete(self, node: cst.CSTNode, receiver: cst.BaseExpression, attr: str, layer: bool = False) -> None:
        """The ``attribute-delete`` site of ``del <receiver>.<attr>`` (or ``delattr(receiver,
        "<attr>")``, ``receiver.__delattr__("<attr>")``, a built model's child set to None); ``layer``
        (data; the argument forces it): a layer of the enclosing module (``self.__delattr__('rbr_dense')`` in RepVGG's deploy-time fusion)."""
        cls = self.func_stack[-1].cls if self.func_stack else None
        on_self = type(receiver) is cst.Name and receiver.value == "self"
        self._site("attribute-delete", node, name=attr, receiver=self.kind(receiver), data={
            "on_self": on_self, "receiver_text": _dotted(receiver),
            # (a layer built by a factory has no kind of its own: `self.conv_kxk = create_conv2d(...)`)
            "layer": layer or (on_self and cls is not None and cls.is_module and cls.attr_kinds.get(attr) in (K.M, K.U)) or (
                not on_self and self.kind(receiver) == K.M and attr not in ("weight", "bias"))})

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
                if scope.loop_nodes and type(value) is cst.Call:
                    self._local_growth(target.value, value, scope)
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
                stored = _self_storage(value, scope.cls) or _self_entry(value, scope.cls)
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
                if type(value) in (cst.ListComp, cst.DictComp) and type(
                        value.value if type(value) is cst.DictComp else value.elt) is not cst.Call and \
                        self.values.element_kind(value) == K.U:  # type: ignore[arg-type]
                    # (not a helper's return: its kind is decided by the project step, not here)
                    scope.unknown_items.add(target.value)
                elif scope.unknown_items:
                    scope.unknown_items.discard(target.value)
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
            key = self.values.return_key(value, self.qual(value.func)) if type(value) is cst.Call else ""
            if self._module_local_call(value):
                # `hidden, height, width = embedding_layer(hidden)` of a module drawn from a
                # container: its items are not all tensors (sizes ride along), unknown each
                vkind = K.U
            by_item = bool(derived and key in derived) and not any(type(e) is cst.StarredElement for e in target.elements)
            shape_items = _is_shape(value)
            if type(value) is cst.Call:
                self.unpacked_calls.add(id(value))
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
                if shape_items and type(inner) is cst.Name and self.func_stack:
                    # `_, L_K, _, _ = keys.shape`: each name is one dimension, a Python int
                    # (`np.ceil(np.log(L_K)).astype("int").item()` of it is no host read)
                    self.func_stack[-1].pending_marks.append((inner.value, True, False))
        elif type(target) is cst.StarredElement:
            self._assign_target(target.value, K.S if vkind == K.S else K.U, stmt, value)
        elif type(target) is cst.Subscript:
            self.targets.add(id(target))
            if not self.func_stack and not self.class_stack and type(target.value) is cst.Name:
                keys = registry_keys(target)  # `ACTS["hard"] = F.hardsigmoid_`: under its key too
                self.bindings.bind_table_write(target.value.value, (value,), keys[0] if len(keys) == 1 else "")
            self._growth(target, value)
            if type(target.value) is cst.Attribute and target.value.attr.value == "_modules" and vkind == K.M:
                # `model._modules[name] = QuantLinear(...)`: the surgery of `setattr(model, name, layer)`
                self._site("attribute-write", stmt, name="_modules", receiver=self.kind(target.value.value),
                           data={"aug": False, "replaces_child": True, "receiver_text": _dotted(target.value.value)})
            base = self.kind(target.value)
            if base in (K.S, K.U) and type(target.value) is cst.Attribute and _is_self_attr(target.value.value) \
                    and self.kind(target.value.value) in (K.M, K.U) and any(
                        type(el.slice) is cst.Index and self.kind(el.slice.value) in K.TENSORISH for el in target.slice):
                # `self.memory.last_update[unique_node_ids] = t` (TGN): an attribute of a held layer
                # written at tensor indices is a tensor, whatever its name suggests
                base = K.T
            root = _root_name(target.value)
            if root and self._is_outer_container(root):
                memo = self._global_memo_requires(root, value)
                self._site("global-write", stmt, name=root, data={"how": "subscript", "memo": memo == ()},
                           requires=memo or ())
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
                if type(value) is cst.Name and value.value == "None" and self.func_stack and \
                        not (type(target.value) is cst.Name and target.value.value in ("self", "cls")) and \
                        self._layer_rooted(target.value) and self.func_stack[-1].init_like:
                    # `self.Qformer.cls = None` (MiniGPT-4, BLIP-2): a built model's head removed
                    self.attribute_delete(stmt, target.value, target.attr.value, layer=True)
                self._site("attribute-write", stmt, name=target.attr.value,
                           receiver=self.kind(target.value), data={
                               "aug": False, "value_literal": self._setting_literal(value),
                               "data_init": self._data_init(target, value, vkind),
                               "numpy_value": _numpy_value(value, self.qual),
                               "checkpoint_loader": bool(self.func_stack) and self.func_stack[-1].loads_checkpoint,
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
                               "replaces_child": vkind == K.M and self._replaces_child(target.value, value),
                               # `self.gpt.wte = self.mel_embedding`: a layer the module already
                               # holds linked into another module (its parameters now shared)
                               "links_layer": vkind == K.M and type(value) is cst.Attribute and
                               not (type(target.value) is cst.Name and target.value.value in ("self", "cls")),
                               # `grid = torch.stack(...); grid.requires_grad = False`: a tensor the
                               # function has just made, no parameter (basicsr's flow_warp)
                               "receiver_text": _dotted(target.value),
                               "receiver_fresh": type(target.value) is cst.Name and bool(self.func_stack)
                               and target.value.value not in ("self", "cls")
                               and self._fresh_tensor(target.value, self.func_stack[-1]),
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
        if name in K.STATIC_PRESERVING_TORCH and args:
            # `torch.ceil(torch.tensor(n / e) * f)`: elementwise math on constant tensors
            sides = [self._constant_tensor(a, depth + 1) for a in args]
            return any(sides) and all(c or self.kind(a) == K.S for c, a in zip(sides, args))
        return False

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if self.func_stack:
            self.func_stack[-1].note_bound(_names_in_target(node.target))  # `(T := n)`


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


#: tensor methods that return their receiver (in-place fills) or, at most, a copy of it (casts):
#: a fresh receiver stays fresh through them
_SAME_TENSOR_METHODS = frozenset({
    "to", "contiguous", "normal_", "uniform_", "bernoulli_", "exponential_", "fill_", "zero_", "random_",
    "float", "double", "half", "bfloat16", "long", "int", "bool", "type", "type_as",
})


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


def _self_entry(value: cst.BaseExpression, cls: Any) -> cst.Attribute | None:
    """The ``self`` attribute a mapping entry comes from (``state = self.state[p]``: an
    optimizer's per-parameter state dict, ``buf = self.buffers_by_layer[i]``), when that
    attribute is a Python container, neither a tensor (an item of a tensor is a new tensor or a
    view: :meth:`_view_write`) nor a module container (calling an item writes nothing). Writes
    into the entry (``state["step"] += 1``) change the object's state."""
    if type(value) is not cst.Subscript or not _is_self_attr(value.value) or cls is None:
        return None
    kind = cls.attr_kinds.get(value.value.attr.value)  # type: ignore[attr-defined]
    if kind in K.TENSORISH or kind == K.M or value.value.attr.value in cls.tensor_lists:  # type: ignore[attr-defined]
        return None
    return value.value  # type: ignore[return-value]


#: Calls that draw a random number on the host (Python's and NumPy's global RNG, torch's).
#: Classmethod factories that build an instance of their class (``Block.from_config(cfg)``;
#: not ``from_pretrained``: a checkpoint load, whose class the graph already knows by the call).
#: Expressions whose value is a new object (:attr:`_FuncScope.fresh`).
_NEW_OBJECT_EXPRS = frozenset({cst.Call, cst.UnaryOperation, cst.BinaryOperation, cst.List, cst.Dict, cst.Set,
                               cst.ListComp, cst.DictComp, cst.SetComp})


#: Tensor methods that fill a tensor with random numbers.
_SAMPLING_METHODS = frozenset({"bernoulli", "bernoulli_", "uniform_", "normal_", "random_", "exponential_",
                               "geometric_", "cauchy_", "log_normal_", "multinomial"})


_RNG_CALL = re.compile(r"^(random|numpy\.random|torch\.rand\w*|torch\.multinomial|torch\.normal)(\.\w+)?$")


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


def _literal_seeded(value: cst.BaseExpression) -> bool:
    """A generator constructor call given a literal seed (``np.random.default_rng(0)``,
    ``random.Random(seed=1)``)."""
    if type(value) is not cst.Call or not value.args:
        return False
    return any((a.keyword is None or a.keyword.value == "seed") and type(literal(a.value)) is int
               for a in value.args)


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


#: libcst augmented-assignment operator node -> its text (``emb /= norms``)
_AUG_OPS = {
    "AddAssign": "+=", "SubtractAssign": "-=", "MultiplyAssign": "*=", "DivideAssign": "/=",
    "FloorDivideAssign": "//=", "ModuloAssign": "%=", "PowerAssign": "**=", "MatrixMultiplyAssign": "@=",
    "BitAndAssign": "&=", "BitOrAssign": "|=", "BitXorAssign": "^=", "LeftShiftAssign": "<<=",
    "RightShiftAssign": ">>=",
}


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


#: torch creation functions whose result, from static arguments, is known at trace time
_CONSTANT_FACTORIES = frozenset({
    "torch.arange", "torch.zeros", "torch.ones", "torch.full", "torch.linspace", "torch.logspace", "torch.eye",
    "torch.tensor", "torch.as_tensor", "torch.range",
})


#: Tensor methods whose result shares storage with the receiver.
_VIEW_METHODS = frozenset({
    "view", "view_as", "narrow", "select", "diagonal", "transpose", "permute", "expand",
    "expand_as", "unfold", "as_strided", "t", "squeeze", "unsqueeze", "unflatten", "movedim",
    "swapaxes", "mT", "real", "imag", "detach",
})


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


