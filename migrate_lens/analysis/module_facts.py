"""Module-level facts of the traversal (a mixin of :class:`~.visitor.FileVisitor`):
import statements, the module node itself (:meth:`leave_Module` settles what is known
only once the whole file is walked: registrations, base-class reads, decode loops, kernel
routes), Python state set from the host, and the registries of the file (``@REG.register``,
``Norm.add_factory_class(...)``), the library builders and the lookup tables whose entries
a call picks. The state it reads and writes is declared in ``FileVisitor.__init__``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import libcst as cst

from migrate_lens.analysis import kinds as K
from migrate_lens.analysis.bindings import merge
from migrate_lens.analysis.bindings import is_dict_call as _is_dict_call
from migrate_lens.analysis.sites import NOT_LITERAL, LazyData, Site
from migrate_lens.analysis.values import literal
from migrate_lens.analysis.builders import BUILDERS, built_layers, registry_build
from migrate_lens.analysis.builders import UNKNOWN as BUILDER_UNKNOWN
from migrate_lens.models import ImportFact
from migrate_lens.analysis.call_extras import _CALL_EXTRAS
from migrate_lens.analysis.cst_queries import _names_read, _returned_def
from migrate_lens.analysis.vocabulary import _REGISTRATIONS, _TRACED_METHODS

if TYPE_CHECKING:
    from migrate_lens.analysis.scopes import _FuncScope

class ModuleFactsMixin:
    """The visitor's module-level facts: imports, the module node (and the file's facts
    settled in :meth:`leave_Module`), registrations into registries and the builders and
    tables resolved from them."""

    def visit_Import(self, node: cst.Import) -> None:
        line = self._line(node)
        for full, local in self.bindings.bind_import(node):
            self.imports.append(ImportFact(module=full, name="", alias=local, line=line,
                                           guarded=self.bindings.guard_depth > 0))
            self._site("import", node, name=full, data={"optional": self.bindings.guard_depth > 0,
                                                        "own": self.bindings.is_own_package(full), "alias": local})

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        line = self._line(node)
        absolute, level, names = self.bindings.bind_import_from(node)
        for member, local, full in names:
            self.imports.append(ImportFact(module=absolute, name=member, alias=local, line=line, level=level,
                                           guarded=self.bindings.guard_depth > 0))
            self._site("import", node, name=full or absolute,
                       data={"level": level, "optional": self.bindings.guard_depth > 0, "alias": local,
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
