"""Reads in the traversal (a mixin of :class:`~.visitor.FileVisitor`): subscripts
(masks, host values as indices), attributes (``self`` state read in traced code, mode
flags, hooks), comparisons, boolean operations, unary operations, ``return`` and the host
reads of tensor data (reductions, shape uses). The helpers only these visits use are here
too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import libcst as cst

from migrate_lens.analysis import kinds as K
from migrate_lens.analysis.bindings import BUILTINS, is_class_like
from migrate_lens.analysis.bindings import dotted as _dotted
from migrate_lens.models import CallFact
from migrate_lens.analysis.cache_queries import _cache_item_length, _cache_operand, _is_cache_length
from migrate_lens.analysis.cst_queries import _alternatives, _is_inplace_method, _is_self_attr, _root_name
from migrate_lens.analysis.joins import _join_items
from migrate_lens.analysis.vocabulary import _CONTAINER_CTORS

if TYPE_CHECKING:
    from migrate_lens.analysis.scopes import _FuncScope

#: tensor attributes that ask which device the tensor lives on (one site per line each)
_DEVICE_FLAGS = frozenset({"is_cuda", "is_cpu", "is_mps", "is_xla", "is_xpu", "is_meta"})


class ReadsMixin:
    """The visitor's reads: subscripts, attributes (``self`` state, mode flags),
    comparisons, boolean operations, returns and host reads of tensor data."""

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
            key = values.return_key(e, name)
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

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if type(node.operator) is cst.Not and id(node) not in self.cond_tests:
            self.cond_tests.add(id(node.expression))
            if self._is_bare_param(node.expression):
                return
            self._condition_sites(node, node.expression, {"construct": "not", "exits": False, "exit": ""})

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
            if k == K.U and type(v) is cst.Comparison and _array_comparison(v):
                return True  # `preds[attention_mask.reshape(-1) > 0]`: an array compared, a boolean mask
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
        if attr == "type" and type(node.value) is cst.Attribute and node.value.attr.value == "device" and \
                "device.type" in self.attribute_interest and self._first_device_query(node, "device.type"):
            # `x.device.type == "cuda"`: the device query read through the device object, named
            # as one attribute of the tensor (`x.is_cuda` asks the same)
            self._site("attribute-read", node, name="device.type", receiver=self.kind(node.value.value),
                       data={"on_self": False, "target": id(node) in self.targets, "mode_glue": False,
                             "self_chain": _root_name(node.value) == "self"})
        elif attr in self.attribute_interest and (attr not in _DEVICE_FLAGS or self._first_device_query(node, attr)):
            self._site("attribute-read", node, name=attr, receiver=self.kind(node.value),
                       data={"on_self": type(node.value) is cst.Name and node.value.value == "self",
                             "target": id(node) in self.targets, "mode_glue": id(node) in self.mode_glue,
                             "self_chain": _root_name(node.value) == "self"})
        if attr in self.name_leaves:
            resolved = self.qual(node)
            if resolved in self.name_interest:
                self._site("name-ref", node, name=resolved, data={"compared": id(node) in self.compared,
                                                                  "called": id(node) in self.called_funcs})
        elif self.name_glob_tails and type(node.value) is cst.Attribute and type(node.value.value) is cst.Attribute \
                and node.value.value.attr.value in self.name_glob_tails:
            # `torch.ops.pyg.random_walk` bound as a value: a name under a `torch.ops.*.*` glob
            resolved = self.qual(node)
            if any(resolved.startswith(g[:-3]) and resolved.count(".") == g.count(".") for g in self.name_globs):
                self._site("name-ref", node, name=resolved, data={"compared": id(node) in self.compared,
                                                                  "called": id(node) in self.called_funcs})

    def _first_device_query(self, node: cst.Attribute, name: str) -> bool:
        """Whether ``node`` is the first read of the device query ``name`` (``device.type``,
        ``is_cuda``, ...: :data:`_DEVICE_FLAGS`) on its line: one question asked three times in
        one expression (``x.device.type if isinstance(x.device.type, str) and x.device.type !=
        "mps" else "cpu"``, every Hugging Face rotary embedding; ``x.is_cuda and y.is_cuda``) is
        one site."""
        key = (self._line(node), name)
        if key in self.device_query_lines:
            return False
        self.device_query_lines.add(key)
        return True

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


def _has_setter(fn: cst.FunctionDef | None) -> bool:
    """``fn`` (the last definition of its name in a class) is a property setter or deleter
    (``@padding_side.setter``)."""
    return fn is not None and any(
        type(d.decorator) is cst.Attribute and d.decorator.attr.value in ("setter", "deleter")
        for d in fn.decorators)


#: A flag that turns activation checkpointing on (`self.gradient_checkpointing`, timm's
#: `self.grad_checkpointing`, `use_checkpoint`, `self.checkpoint_activations`): :meth:`_mode_glue`.
_CHECKPOINT_FLAG = re.compile(r"^(use_)?(grad(ient)?_)?(checkpoint(ing|_activations)?|ckpt)$")


#: Attributes of torch modules and tensors read through a submodule (``self.conv.weight``,
#: ``self.norm.eps``): never a project property, so no call fact is recorded for them.
_PLAIN_MODULE_ATTRS = frozenset({
    "weight", "bias", "training", "eps", "data", "shape", "dtype", "device", "grad", "T", "mT",
    "in_features", "out_features", "in_channels", "out_channels", "kernel_size", "stride", "padding",
    "dilation", "groups", "num_embeddings", "embedding_dim", "padding_idx", "normalized_shape",
    "running_mean", "running_var", "num_features", "momentum", "p", "inplace", "num_heads",
    "embed_dim", "head_dim", "hidden_size", "config", "requires_grad", "is_cuda", "ndim",
})


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


#: Methods that only arrays have (tensors or NumPy arrays; not Python numbers, lists or dicts).
_ARRAY_METHODS = K.TORCH_ONLY_METHODS | frozenset({"reshape", "flatten", "ravel", "squeeze", "sum", "mean", "astype"})


def _array_comparison(node: cst.Comparison) -> bool:
    """An element-wise comparison of an array (``mask.reshape(-1) > 0``, ``x.sum(-1) == 0``):
    one side is a call of a method only arrays have, so the result is a boolean array, never a
    Python bool (an index made of it selects by data)."""
    if any(type(c.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn) for c in node.comparisons):
        return False
    for o in (node.left, *(c.comparator for c in node.comparisons)):
        if type(o) is cst.Call and type(o.func) is cst.Attribute and o.func.attr.value in _ARRAY_METHODS:
            return True
    return False
