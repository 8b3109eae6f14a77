"""Branches and guarded blocks in the traversal (a mixin of
:class:`~.visitor.FileVisitor`): ``if``/``else`` (optional-parameter guards, kernel and
backend gates, export-only branches, memo hits, the alias maps of both arms), conditions
and their sites (``assert``, ``x if c else y``, comprehension ``if``), ``with`` and
``try``/``except``. The tests a gate is recognised by are in :mod:`.gates`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst
from libcst.metadata import PositionProvider

from migrate_lens.analysis import kinds as K
from migrate_lens.analysis.bindings import dotted as _dotted
from migrate_lens.analysis.bindings import names_in_target as _names_in_target
from migrate_lens.analysis.values import HYPOTHESES, tensor_tested_name
from migrate_lens.analysis.walk import child_nodes
from migrate_lens.analysis.cst_queries import _host_read_of, _is_self, _is_self_attr, _reads_self_attrs, _size_query_of
from migrate_lens.analysis.gates import (
    _always_raises, _asserts_kernel, _drops_tested, _eager_only_test, _exit_kind, _export_only_test,
    _is_availability_test, _is_main_guard, _is_type_test, _kernel_gate, _reports_only, _tests_padding_idx,
)
from migrate_lens.analysis.joins import _join_branches, _join_derived

if TYPE_CHECKING:
    from migrate_lens.analysis.scopes import _FuncScope

#: Handlers that make a ``try`` an optional-import guard.
#: Exceptions whose handler makes the imports of its ``try`` optional: the import errors, and the
#: broad handlers a library's availability probe also uses (PyG's ``try: import torch_sparse ...
#: except Exception: WITH_TORCH_SPARSE = False``; a bare ``except:`` counts too).
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


class ControlFlowMixin:
    """The visitor's branches and guarded blocks: ``if``/``else``, conditions, ``with``,
    ``try``/``except``."""

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
            cache = self._memo_global(node.test)
            if cache:
                scope.memo_globals.append(cache)
                self.memo_global_ifs.add(id(node))
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
        if id(original_node) in self.memo_global_ifs and scope.memo_globals:
            scope.memo_globals.pop()
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
        # `if hasattr(ref, "size"): ref = ref.size(-1)` (no else): after it the name is what the
        # body left (a size) or, not being a tensor, a plain value either way
        tested = tensor_tested_name(original_node.test) if original_node.orelse is None and not body_exits else ""
        bound = scope.last_value.get(tested) if tested else None
        tested_static = bool(tested) and ((env.get(tested) == K.S and not der.get(tested)) or
                                          (bound is not None and _size_query_of(bound) is not bound))
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
        if tested_static:
            env[tested] = K.S
            der.pop(tested, None)
        own = der.get(filled)
        if body_kind in K.VALUE_KINDS and filled in other_env and (not own or list(own) == [f"p:{filled}"]):
            # `if dim_size is None: dim_size = int(index.max()) + 1`: the value read from data
            # only where some caller leaves the size out (`n:<param>=T`), the argument otherwise
            # (and, for a parameter named like a size, what its callers pass: its own `p:` key)
            env[filled] = other_env[filled]
            der[filled] = {f"n:{filled}": {h: body_kind if h == K.T else env[filled] for h in HYPOTHESES},
                           **(own or {})}

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
        data: dict[str, Any] = {"construct": construct, "exits": bool(exit_kind), "exit": exit_kind}
        scope = self.func_stack[-1] if self.func_stack else None
        if scope is not None and scope.summary is not None and scope.summary.ended():
            # `if torch.isnan(loss): raise ...` after `optimizer.step()` in a host training loop
            data["after_step"] = scope.summary.after_step()
        return self._condition_sites(test, test, data)

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

    def _runs_a_model(self, body: cst.BaseSuite, scope: Any) -> bool:
        """Whether a ``with torch.no_grad():`` block calls an object held by ``self``, passed
        in or bound in the function (``target_network(obs)``, ``self.teacher(x)``, ``self.encoder_k(im_k)``,
        ``self._momentum_update_key_encoder()``): a forward pass or an update whose result the
        block keeps out of the gradient, the part a JAX port wraps in ``jax.lax.stop_gradient``.
        Calls of torch, NumPy or builtins and tensor methods (``torch.cdist(c, c)``,
        ``x.max()``) are not: the block then only computes constants of its inputs."""
        todo: list[cst.CSTNode] = [body]
        while todo:
            cur = todo.pop()
            if type(cur) is cst.Call:
                func = cur.func
                root = func
                while type(root) is cst.Attribute:
                    root = root.value
                if type(root) is cst.Name and (root.value in ("self", *scope.params) or root.value in scope.env) and \
                        (type(func) is cst.Name or (type(func) is cst.Attribute and func.attr.value not in K.COMMON_METHODS
                                                    and not self.qual(func).startswith(("torch.", "numpy.")))):
                    if type(func) is cst.Name or _is_self(func.value):  # type: ignore[union-attr]
                        return True  # `target_network(obs)`, `self.encoder_k(im_k)`
                    if self.kind(func.value) not in (K.T, K.B, K.S):  # type: ignore[union-attr]
                        return True  # `self.teacher.dino_head(x)`, `model.module(x)`
            if type(cur) in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
                continue
            todo.extend(child_nodes(cur))
        return False

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            if item.asname is not None and self.func_stack:
                self.func_stack[-1].note_bound(_names_in_target(item.asname.name))
            call = item.item
            fn = call.func if type(call) is cst.Call else call
            if self.qual(fn) in ("torch.no_grad", "torch.inference_mode") and self.func_stack:
                self.func_stack[-1].no_grad += 1
                self.plain_no_grad.add(id(call))
                if self._runs_a_model(node.body, self.func_stack[-1]):
                    self.no_grad_model_calls.add(id(call))
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
        first = original_node.body.body[0] if original_node.body.body else None
        if type(first) is cst.SimpleStatementLine and type(first.body[0]) is cst.Raise:
            return  # `try: raise Exception(); <a path turned off>`: the handler always runs
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


def _and_operands(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of an ``and`` chain, in source order (``[test]`` for any other test)."""
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.And:  # type: ignore[attr-defined]
        return [*_and_operands(test.left), *_and_operands(test.right)]  # type: ignore[attr-defined]
    return [test]


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
