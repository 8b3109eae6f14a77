"""A call's arguments and result in the traversal (a mixin of
:class:`~.visitor.FileVisitor`): callable and injected arguments, class references and
constructor slots, the call's kinds as first evaluated and under each hypothesis
(:class:`~.call_extras._CallParts`), and its :class:`~.models.CallFlow`. Used by
:meth:`~.calls.CallsMixin.visit_Call`. The helpers only these use are here too.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import libcst as cst

from migrate_lens.analysis import kinds as K
from migrate_lens.analysis.bindings import PARTIAL_NAMES, is_class_like
from migrate_lens.analysis.bindings import is_project_callee as _is_project_callee
from migrate_lens.analysis.sites import LazyData
from migrate_lens.analysis.values import literal
from migrate_lens.models import CallFact, CallFlow, Flow, InjectionFact, SubmoduleFact
from migrate_lens.analysis.call_extras import _CALL_EXTRAS, _CallParts
from migrate_lens.analysis.cst_queries import _alternatives, _is_self_attr, _root_name
from migrate_lens.analysis.scopes import _may_be_method, _none_args
from migrate_lens.analysis.vocabulary import _TENSOR_ONLY_METHODS
from migrate_lens.analysis.walk import child_nodes

if TYPE_CHECKING:
    from migrate_lens.analysis.call_extras import _CallExtras
    from migrate_lens.analysis.scopes import _FuncScope

#: Builtins whose arguments are data, not injected classes (``dict(gelu=nn.GELU)`` is a table).
BINDING_BUILTINS = frozenset({"dict", "list", "tuple", "set", "frozenset", "getattr", "setattr", "hasattr",
                              "print", "repr", "str", "id", "callable", "vars", "sorted", "map", "filter", "zip"})


class CallFlowMixin:
    """The visitor's facts on a call's arguments and result: callable and injected
    arguments, class references, the call's kinds, variants and flow."""

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

    def _container_contents(self, node: cst.Call, attr: str) -> None:
        """``self.blocks = nn.ModuleList([block(dim) for _ in range(n)])`` (also a
        ``ModuleDict`` of a dict or dict comprehension): the constructors listed in the container
        are held under its attribute (``for blk in self.blocks: blk.residual(x)`` then resolves,
        and ``self.lora_dropout[name](x)`` runs a layer built there)."""
        todo: list[cst.BaseExpression] = [a.value for a in node.args]
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        if len(positional) == 1 and type(positional[0]) in (cst.List, cst.Tuple):
            positional = [el.value for el in positional[0].elements]  # type: ignore[attr-defined]
        for i, v in enumerate(positional):
            if type(v) is cst.Call:
                self.ctor_pos.setdefault(id(v), i)
        while todo:
            v = todo.pop()
            t = type(v)
            if t is cst.Call:
                self.ctor_attr.setdefault(id(v), attr)
            elif t in (cst.List, cst.Tuple):
                todo.extend(el.value for el in v.elements)  # type: ignore[attr-defined]
            elif t in (cst.ListComp, cst.GeneratorExp):
                todo.append(v.elt)  # type: ignore[attr-defined]
            elif t is cst.Dict:  # `nn.ModuleDict({"a": nn.Dropout(p), ...})`
                todo.extend(el.value for el in v.elements if type(el) is cst.DictElement)  # type: ignore[attr-defined]
            elif t is cst.DictComp:  # `nn.ModuleDict({k: nn.Dropout(p) for k in names})`
                todo.append(v.value)  # type: ignore[attr-defined]
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
        a call site with the ``partial``'s arguments (``data["reference"]``); a parameter
        default the function's body only calls (``calls_of``: the function and the parameter,
        :func:`_param_calls`, read only for a torch class's default) is used at each call, with
        that call's arguments (``self.norm1 = norm_layer(dim, eps=1e-6)``).
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
            if partial is None and calls_of is not None:
                calls = _param_calls(*calls_of)
                if calls:
                    # a parameter default the body only calls (`norm_layer=nn.BatchNorm2d`, then
                    # `self.norm1 = norm_layer(channel)`): each call builds the class, with its own
                    # arguments, where the reader (and a port) sees the layer made
                    # (made when the walk reaches each call: a position asked ahead of the walk
                    # costs a pass of its own)
                    spreads = _dict_displays(calls_of[0])
                    for c in calls:
                        self.pending_class_uses[id(c)] = (ref, sub, spreads)
                    return
            self._class_use(value, ref, sub, partial.args[1:] if partial is not None else ())
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

    def _class_use(self, node: cst.CSTNode, ref: str, sub: str, call_args: Sequence[cst.Arg],
                   spreads: Mapping[str, cst.Dict] | None = None) -> None:
        """A use of torch class ``ref`` at ``node`` (a ``reference`` call site) built with
        ``call_args``; ``sub``: the project subclass named instead, if any; ``spreads``: local
        dict displays a ``**name`` argument spreads (timm's ``dd = {'device': device, 'dtype':
        dtype}`` then ``norm_layer(dim, **dd)``: those keys, not any keyword; its placement keys
        left out as a direct call's are)."""
        args: list[tuple[str, Any]] = []
        kwargs: dict[str, tuple[str, Any]] = {}
        star = False
        for a in call_args:
            shown = spreads.get(a.value.value) if spreads and a.star == "**" and type(a.value) is cst.Name else None
            if shown is not None:
                for el in shown.elements:  # (placement keys say nothing of the layer's numerics)
                    if literal(el.key) not in ("device", "dtype"):  # type: ignore[union-attr]
                        kwargs[literal(el.key)] = (self.kind(el.value), literal(el.value))  # type: ignore[union-attr]
            elif a.star:
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
        self._site("call", node, name=ref, data=site_data)

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
                rebound = self.call_rebinds.get(id(node), frozenset())
                if rebound:
                    # `q = self.sinkhorn(q)[-bs:]`: the statement rebinds a local to the result, so
                    # nothing reads the object passed in after the call (unless another name
                    # holds it too: a parameter, a view of a named tensor, an alias of self's)
                    gone = {i for i in held for v in [positional[i].value]
                            if type(v) is cst.Name and v.value in rebound and v.value not in scope.params
                            and v.value not in scope.views and v.value not in scope.self_aliases}
                    held = tuple(i for i in held if i not in gone)
                    by_pos = {i: n for i, n in by_pos.items() if i not in gone}
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
                                             nones=nones, splat=any(a.star == "*" for a in node.args),
                                             site=self.values.call_site(node)))

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


def _dict_displays(fn: cst.FunctionDef) -> dict[str, cst.Dict]:
    """Names ``fn``'s body binds once, at its top level, to a dict display with string keys
    only (``dd = {'device': device, 'dtype': dtype}``); a name bound more than once is left out."""
    out: dict[str, cst.Dict] = {}
    seen: set[str] = set()
    body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else ()
    for stmt in body:
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            if type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name:
                name = small.targets[0].target.value
                v = small.value
                ok = type(v) is cst.Dict and all(type(el) is cst.DictElement and type(literal(el.key)) is str
                                                  for el in v.elements)
                if name in seen or not ok:
                    out.pop(name, None)
                else:
                    out[name] = v  # type: ignore[assignment]
                seen.add(name)
    return out


def _param_calls(fn: cst.FunctionDef, param: str) -> list[cst.Call]:
    """The calls of parameter ``param`` in ``fn``'s body (``norm_layer(dim)``), in source
    order; empty when the body does anything else with it (hands it on, stores it: the class
    is used elsewhere, with arguments this function does not see) or never calls it."""
    calls: list[cst.Call] = []
    callees: set[int] = set()  # ids of the Name nodes those calls call
    # (a pre-order walk in source order over the fields the traversal follows, which reach
    # every ``Name`` libcst's own visitor does: ``fn.body.visit(...)`` cost ~4 ms a function)
    stack: list[cst.CSTNode] = [fn.body]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is cst.Name:
            if n.value == param and id(n) not in callees:  # type: ignore[attr-defined]
                return []  # read some other way (handed on: `Mlp(act_layer=act_layer)`)
            continue
        if t is cst.Call and type(n.func) is cst.Name and n.func.value == param:  # type: ignore[attr-defined]
            calls.append(n)  # type: ignore[arg-type]
            callees.add(id(n.func))  # type: ignore[attr-defined]
        children = child_nodes(n)
        children.reverse()
        stack.extend(children)
    return calls


#: Library functions that call their first argument with the others (``checkpoint(fn, x)``)
_FORWARDERS = frozenset({"torch.utils.checkpoint.checkpoint"})


#: keywords the library forwarders keep for themselves
_FORWARDER_OWN = frozenset({"use_reentrant", "preserve_rng_state", "context_fn", "determinism_check", "debug"})


#: the inputs read by a part that read none (shared, never written)
_NONE_READ: frozenset[str] = frozenset()


#: Callees that are never a project function (their results' kinds are known or unknowable).
#: Methods no Python number has: called on a parameter static by its name or default
#: (``task_id.item()``, ``k.sum()``), the call's receiver is no static value.
_READBACK_METHODS = _TENSOR_ONLY_METHODS | {"long", "float", "bool", "sum", "max", "min", "unsqueeze"}


_CONTAINER_DISPLAYS = (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)


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
