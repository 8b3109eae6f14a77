"""Loops and comprehensions in the traversal (a mixin of :class:`~.visitor.FileVisitor`):
``for``/``while`` loops and comprehensions, what an iteration binds (rows of a tensor,
items of a mapping, modules of a container, weights of a checkpoint), the state a loop
carries, and the functions a loop calls (for the ``decode-loop`` role). The helpers only
these visits use are here too.
"""

from __future__ import annotations

from dataclasses import replace
from collections.abc import Container
from typing import TYPE_CHECKING, Callable

import libcst as cst
from libcst.metadata import PositionProvider

from migrate_lens.analysis import kinds as K
from migrate_lens.analysis.bindings import dotted as _dotted
from migrate_lens.analysis.bindings import names_in_target as _names_in_target
from migrate_lens.analysis.values import HYPOTHESES, IDENTITY, ITER_SAME, literal
from migrate_lens.analysis.walk import child_nodes
from migrate_lens.models import FunctionSummary
from migrate_lens.analysis.cst_queries import _is_self_attr, _reads
from migrate_lens.analysis.joins import _join_branches, _join_derived

if TYPE_CHECKING:
    from migrate_lens.analysis.scopes import _ClassInfo, _FuncScope

#: Loaders returning a checkpoint mapping (parameter name -> tensor).
_CHECKPOINT_LOADERS = frozenset({"torch.load", "safetensors.torch.load_file", "safetensors.torch.load"})


#: Tensor methods that reorder axes: a weight passed through one is being converted.
_AXIS_METHODS = frozenset({"permute", "transpose", "t", "swapaxes", "movedim", "flip", "rot90"})


class LoopsMixin:
    """The visitor's loops and comprehensions: ``for``/``while``, what an iteration binds,
    and the functions loops call."""

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
            if scope.summary is not None and scope.summary.in_counted_loop():
                self.counted_loop_callers.add(scope.qualname)

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
        drivers.update(s.qualname for s in self.summaries if s.role in ("generation", "decode-loop", "sampling-loop", "draw"))
        # a training step runs the model too, but what repeats it is a training loop, no
        # decoding loop (a trainer's `while self.steps < n: self.train_step()`)
        drivers.difference_update(s.qualname for s in self.summaries if s.role in ("train-step", "train-loop"))
        found: set[str] = set()
        grew = bool(drivers)
        while grew:  # a loop calling a decoding loop drives the model too (`cli` -> `transcribe`)
            new = {q for q, callees in self.loop_callees.items() if q not in found and (callees - {q}) & drivers}
            found |= new
            drivers |= new
            grew = bool(new)
        for q in sorted(found):
            i = by_name.get(q)
            role = "sampling-loop" if q in self.counted_loop_callers else "decode-loop"
            if i is None:
                self.summaries.append(FunctionSummary(q, role))
            elif not self.summaries[i].role:
                self.summaries[i] = replace(self.summaries[i], role=role)

    def loop_tag(self) -> tuple[str, tuple[int, ...]] | None:
        """``(function, open loops)`` of the node being visited when it lies in a loop of a
        function (not in an ``except`` handler): the engine tags findings with it, and those in
        a training loop's step loop (:attr:`step_loops`) become traced once the file is walked."""
        if not self.func_stack:
            return None
        scope = self.func_stack[-1]
        where = scope.summary.where() if scope.summary is not None else ()
        return (scope.qualname, where) if where else None

    def visit_While(self, node: cst.While) -> None:
        if self.func_stack:
            self._enter_loop(self.func_stack[-1], node)
            self._list_length_loop(node)
        self._condition(node.test, "while", exit_kind="")

    def _list_length_loop(self, node: cst.While) -> None:
        """``while len(mel_outputs) < decoder_inputs.size(0) - 1:`` (Tacotron2's teacher-forced
        decoder; also written ``x.size(0) > len(outputs)``, or with ``!=``): a loop that appends
        one step's output per pass until a list is as long as a tensor dimension, a ``for`` over
        that length written another way (a loop site with a shape bound, as ``for t in
        range(x.size(0))`` gives)."""
        test = node.test
        if self.context not in ("traced", "function") or type(test) is not cst.Comparison or \
                len(test.comparisons) != 1:
            return
        op = type(test.comparisons[0].operator)
        sides = ((test.left, test.comparisons[0].comparator) if op in (cst.LessThan, cst.LessThanEqual, cst.NotEqual)
                 else (test.comparisons[0].comparator, test.left) if op in (cst.GreaterThan, cst.GreaterThanEqual)
                 else None)
        if sides is None:
            return
        grown, bound = sides
        if type(grown) is not cst.Call or type(grown.func) is not cst.Name or grown.func.value != "len" or \
                len(grown.args) != 1 or type(grown.args[0].value) is not cst.Name:
            return
        if self._reads_tensor_shape(bound):
            self._site("loop", node, data={"range_kinds": (), "shape_bound": True, "grows": True,
                                           "target": grown.args[0].value.value,
                                           "bound": bound.value if type(bound) is cst.Name else ""})

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
        scope.loop_nodes.append(node)
        if scope.summary is not None:
            targets: frozenset[str] = frozenset()
            if type(node) is cst.For:
                t = node.target
                elts = [e.value for e in t.elements] if type(t) in (cst.Tuple, cst.List) else [t]  # type: ignore[attr-defined]
                targets = frozenset(e.value for e in elts if type(e) is cst.Name)
            scope.summary.enter_loop(targets, _counted_loop(node))

    def _leave_loop(self, scope: _FuncScope) -> None:
        if scope.loop_nodes:
            scope.loop_nodes.pop()
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
                                               "bound": stop.value if type(stop) is cst.Name else "",
                                               "index_only": _index_only_body(node)})
        group_name = _param_group_name(node.target, it)
        if not self.func_stack:
            # a script's top-level training loop (nanoGPT's train.py): `for g in opt.param_groups:`
            for n in _names_in_target(node.target):
                self.script_opt_groups.discard(n)
            if group_name:
                self.script_opt_groups.add(group_name)
        if self.func_stack:
            rows = self._row_views(node.target, it)  # before the target's names are rebound
            self._bind_iteration(node.target, it)
            scope = self.func_stack[-1]
            for n in _names_in_target(node.target):
                scope.binds.typed.pop(n, None)
                scope.iter_names.add(n)
                scope.views.pop(n, None)
                scope.opt_groups.discard(n)
            if group_name:
                scope.opt_groups.add(group_name)  # `for g in optimizer.param_groups:`
            for n in _names_in_target(node.target):
                scope.self_aliases.pop(n, None)
            if type(node.target) is cst.Name and _is_self_attr(it) and scope.cls is not None and \
                    it.attr.value == "param_groups":
                # `for group in self.param_groups:` in an optimizer's own step: each group is an
                # entry of its state, so `group["k"] = k + 1` writes that state (as
                # `state = self.state[p]` then `state["step"] += 1` does)
                scope.self_aliases[node.target.value] = it
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
            # (`.size(0)` with a literal axis on a value of unknown kind, a submodule's output
            # `self.prenet(x).size(0)`: only tensors have a `size(dim)` method)
            return self.kind(expr.func.value) in K.TENSORISH or (  # type: ignore[attr-defined]
                len(expr.args) == 1 and type(expr.args[0].value) is cst.Integer and  # type: ignore[attr-defined]
                self.kind(expr.func.value) == K.U)  # type: ignore[attr-defined]
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


def _iterated_param(it: cst.BaseExpression, params: Container[str]) -> str:
    """The parameter whose items ``it`` yields: ``x``, ``x.items()``, ``x.values()``,
    ``enumerate(x)``, ``zip(x, ...)`` (its first argument); "" otherwise."""
    if type(it) is cst.Call:
        if type(it.func) is cst.Attribute and it.func.attr.value in ("items", "values") and not it.args:
            it = it.func.value
        elif type(it.func) is cst.Name and it.func.value in ("enumerate", "zip", "reversed") and it.args:
            it = it.args[0].value
    return it.value if type(it) is cst.Name and it.value in params else ""


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


def _counted_loop(node: cst.For | cst.While) -> bool:
    """A ``while`` loop, or a ``for`` over ``range(...)`` or a schedule of steps
    (``torch.linspace(0, 1, steps)``, ``arange``), through ``reversed``, ``enumerate``,
    ``tqdm``/``trange`` and ``zip`` (any of its arguments: ``zip(torch.linspace(0, 1, T),
    reversed(range(T)))``): a loop of steps, not one over data (``for x, y in loader``)."""
    if type(node) is cst.While:
        return True
    todo: list[cst.BaseExpression] = [node.iter]
    while todo:
        it = todo.pop()
        if type(it) is not cst.Call:
            continue
        func = it.func
        name = func.value if type(func) is cst.Name else func.attr.value if type(func) is cst.Attribute else ""
        if name in _STEP_SCHEDULES:
            return not _batch_chunks(it)
        if name == "zip":
            todo.extend(a.value for a in it.args if not a.star)
        elif name in ("reversed", "enumerate", "tqdm", "list") and it.args:
            todo.append(it.args[0].value)
    return False


def _batch_chunks(it: cst.Call) -> bool:
    """``range(0, len(sentences), batch_size)`` (also ``trange``, and ``x.shape[0]``/``x.size(0)``
    for the stop): the starts of the batches of a data set, a loop over data in chunks (batched
    inference, ``encode()``), not one of steps. A ``range`` whose stop is a data size
    (:func:`_data_size`) and whose step is not a literal (a decoding loop's ``range(T - 1, -1,
    -1)`` has a literal step; DDIM's ``range(0, self.num_timesteps, skip)`` no data size)."""
    positional = [a for a in it.args if a.keyword is None]  # (tqdm's `desc=`, `disable=`)
    if type(it.func) is not cst.Name or it.func.value not in ("range", "trange") or len(positional) != 3 \
            or any(a.star for a in it.args):
        return False
    stop, step = positional[1].value, positional[2].value
    return _data_size(stop) and type(step) is not cst.Integer and \
        not (type(step) is cst.UnaryOperation and type(step.expression) is cst.Integer)


def _data_size(node: cst.BaseExpression) -> bool:
    """The number of items of a data set or batch: ``len(sentences)``, ``x.shape[0]``,
    ``x.size(0)`` (not a step count such as ``self.num_timesteps``)."""
    t = type(node)
    if t is cst.Call:
        func = node.func  # type: ignore[attr-defined]
        if type(func) is cst.Name and func.value == "len":
            return True
        return type(func) is cst.Attribute and func.attr.value == "size" and len(node.args) == 1 and \
            type(node.args[0].value) is cst.Integer and node.args[0].value.value == "0"  # type: ignore[attr-defined]
    return t is cst.Subscript and type(node.value) is cst.Attribute and node.value.attr.value == "shape" and \
        len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index and \
        type(node.slice[0].slice.value) is cst.Integer and node.slice[0].slice.value.value == "0"  # type: ignore[attr-defined]


#: Calls that give a loop its steps: ``range``, tqdm's ``trange``, a schedule of step values.
_STEP_SCHEDULES = frozenset({"range", "trange", "linspace", "arange"})


def _param_group_name(target: cst.BaseExpression, it: cst.BaseExpression) -> str:
    """The loop name bound to each parameter group of an optimizer: ``g`` of ``for g in
    opt.param_groups:`` or of ``for i, g in enumerate(opt.param_groups):`` (ConvNeXt's and
    BEiT's per-iteration schedule); "" for any other loop."""
    if type(it) is cst.Call and type(it.func) is cst.Name and it.func.value == "enumerate" and it.args \
            and it.args[0].keyword is None and not it.args[0].star and type(target) is cst.Tuple \
            and len(target.elements) == 2:
        it, target = it.args[0].value, target.elements[1].value
    if type(target) is cst.Name and type(it) is cst.Attribute and it.attr.value == "param_groups":
        return target.value
    return ""


#: Calls a loop body may make and still only build Python index lists (no tensor work to unroll)
_INDEX_BUILDING_CALLS = frozenset({"append", "extend", "insert", "add", "range", "len", "int", "min", "max", "abs"})


def _index_only_body(node: cst.For) -> bool:
    """The loop's body (nested loops included) calls nothing but list building and integer
    builtins: ``for i in range(n - 1): for j in range(i + 1, n): row.append(i), col.append(j)``
    (torchfm's pair indices), which a trace runs once in Python, adding no operations."""
    stack: list[cst.CSTNode] = [node.body]
    while stack:
        n = stack.pop()
        if type(n) is cst.Call:
            f = n.func
            name = f.attr.value if type(f) is cst.Attribute else f.value if type(f) is cst.Name else ""
            if name not in _INDEX_BUILDING_CALLS:
                return False
        elif type(n) is cst.Subscript:
            return False  # `x[:, i]`: an indexing op per pass
        stack.extend(child_nodes(n))
    return True
