"""Bindings: what a name in one file is bound to (a module, a class, a function, a builtin).

One table per file, filled during the single traversal from the file's own statements:
``import torch.nn.functional as F`` binds ``F`` to ``torch.nn.functional``; ``from . import x``
is made absolute from the file's dotted module name; top-level ``class``/``def`` statements are
declared before the walk reaches them so forward references resolve. Assignments of callables
bind too, at module, class and function level: ``weight_norm = nn.utils.weight_norm``,
``_C = torch.ops._C``, ``norm = partial(nn.LayerNorm, eps=1e-6)``, ``block = block or Block``,
``wrap = weight_norm if wn else spectral_norm`` (every alternative is kept: a call of ``wrap``
is a call of either), a parameter default ``act_layer=nn.GELU``, ``self.act = F.gelu``.
Local variables holding instances (``corr = CorrBlock(...)``) are tracked apart
(:meth:`Bindings.instances`): they feed constructor-injection facts, not name resolution. Nothing is imported or
executed, and libcst's scope / qualified-name providers are not used (they cost about 10x the
parse: ``../shared/FIELD.md``, Speed).
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence

import libcst as cst

#: libcst nodes of string literals (a plain, implicitly concatenated or formatted string)
STRING_NODES = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)

#: Builtins that resolve to their own name (``len(x)`` is the call ``len``).
BUILTINS = frozenset({
    "print", "open", "len", "isinstance", "range", "int", "float", "bool", "super", "getattr",
    "setattr", "delattr", "hasattr", "type", "min", "max", "sum", "abs", "any", "all", "zip", "enumerate",
    "list", "tuple", "dict", "set", "sorted", "round", "input", "exec", "eval", "iter", "next",
    "map", "filter", "reversed", "str", "repr", "format", "vars", "globals", "locals", "id",
    "hash", "divmod", "pow", "callable", "issubclass", "frozenset", "complex", "object",
})


#: Dotted prefixes of callees no project defines (torch, numpy, the standard library)
NOT_PROJECT = ("torch.", "math.", "numpy.", "np.", "einops.", "typing.", "functools.", "itertools.",
               "logging.", "warnings.", "os.", "sys.", "re.", "collections.", "dataclasses.", "copy.")


def is_project_callee(name: str) -> bool:
    """A call whose callee the project may define: ``self.method``, a method of an object
    held on ``self`` (``self.tokenizer.encode_batch``) or a dotted function name that is no
    torch/stdlib/builtin name, and no class (CapWords)."""
    if not name:
        return False
    if name.startswith("self."):
        return not name.rsplit(".", 1)[-1][:1].isupper()
    leaf = name.rsplit(".", 1)[-1]
    return not (name.startswith(NOT_PROJECT) or name in BUILTINS or leaf[:1].isupper() or "." not in name)


def dotted(node: cst.BaseExpression) -> str:
    """The text of a Name/Attribute chain (``a.b.c``) without resolving it; "" otherwise."""
    if type(node) is cst.Name:
        return node.value
    if type(node) is cst.Attribute:
        return f"{dotted(node.value)}.{node.attr.value}"
    return ""


def names_in_target(node: cst.BaseExpression) -> list[str]:
    """The plain names an assignment target binds (``a``, ``a, (b, *c)``)."""
    if type(node) is cst.Name:
        return [node.value]
    if type(node) in (cst.Tuple, cst.List):
        out: list[str] = []
        for el in node.elements:
            out.extend(names_in_target(el.value))
        return out
    if type(node) is cst.StarredElement:
        return names_in_target(node.value)
    return []


#: Names ``functools.partial`` resolves to (``partial(Cls, eps=1e-6)`` is still ``Cls``).
PARTIAL_NAMES = frozenset({"functools.partial", "partial"})


def merge(old: tuple[str, ...], new: tuple[str, ...]) -> tuple[str, ...]:
    """``old`` then the names of ``new`` not in it: every alternative a name may hold, in the
    order the code binds them (the first is the one :meth:`Bindings.resolve` returns)."""
    return old + tuple(n for n in dict.fromkeys(new) if n not in old)


def is_class_like(name: str) -> bool:
    """A dotted name whose last part is capitalised after any leading underscores
    (``torch.nn.GELU``, ``pkg.mod.Block``, ``pkg.mod._BlockConfig``):
    the naming convention of classes, the only evidence without importing the code. Constants
    (``DEFAULT_CFG``) and exceptions are not, nor references to what a table holds or a
    function returns (``pkg.acts.ACT2CLS[]``, ``pkg.blocks.make_block()``)."""
    if name.endswith(("[]", "()")):
        return False
    last = name.rsplit(".", 1)[-1]
    leaf = last.lstrip("_")  # private classes too: `_MBConvConfig`, `_ConvNd` (not `torch._C`)
    if leaf is not last and leaf.upper() == leaf:
        return False
    return leaf[:1].isupper() and not (leaf.isupper() and "_" in leaf) and \
        not leaf.endswith(("Error", "Exception", "Warning"))


def in_own_package(full: str, module: str) -> bool:
    """``full`` (an absolute dotted name) lies in the top-level package of ``module`` (a dotted
    module or scope name): inside ``torch_geometric``, ``torch_geometric.data.Data`` is the
    project's own code (the package being ported), not an external dependency."""
    return full.split(".", 1)[0] == module.split(".", 1)[0]


class Bindings:
    """The module-level name table of one file.

    ``module`` is the file's dotted module name (qualnames and relative imports), ``is_package``
    True for an ``__init__.py``. ``aliases`` maps a local name to the absolute dotted name it
    was imported as (or bound to); ``classes`` / ``functions`` are the names of the file's own
    top-level classes and functions (they resolve to ``<module>.<name>``); ``globals`` the
    names assigned at module level; ``func_returns`` the return annotations of top-level
    functions by name.
    """

    __slots__ = ("module", "is_package", "aliases", "classes", "functions", "globals", "func_returns", "alts",
                 "partials", "project_names", "guarded", "guard_depth", "assigned", "str_consts", "handles", "getters",
                 "factories", "module_names", "tables", "returns", "project_star", "module_instances",
                 "foreign_tables", "star_names")

    def __init__(self, module: str, is_package: bool, handles: frozenset[str] = frozenset()) -> None:
        self.module = module
        #: callees whose returned object is followed (``RuleIndex.result_interest``): a name
        #: bound to ``f(...)`` for such an ``f`` is bound to ``f()``, so ``ext = load(...)``
        #: then ``ext.op(x)`` is a call of ``torch.utils.cpp_extension.load().op``
        self.handles = handles
        #: the file's top-level functions that return such an object, by name -> ``f()``
        self.getters: dict[str, str] = {}
        #: the file's top-level member factories (:meth:`bind_factory`), by name -> (the
        #: dotted name of the object whose member they return, the position of the parameter
        #: that names the member, that parameter's name)
        self.factories: dict[str, tuple[str, int, str]] = {}
        self.is_package = is_package
        self.aliases: dict[str, str] = {}
        self.classes: set[str] = set()
        self.functions: set[str] = set()
        self.globals: set[str] = set()
        #: every name a module-level assignment binds, also inside a top-level ``if``/``try``
        #: and through ``global`` (``IS_NPU``, ``autocast_fwd = partial(...)`` under a device
        #: check): the file's data names another module may import (``FileFacts.module_globals``)
        self.module_names: set[str] = set()
        #: module-level names every top-level assignment binds to a string literal
        #: (``EASY = "easy"``): enum-like constants a tensor is never compared with
        self.str_consts: set[str] = set()
        self.func_returns: dict[str, cst.Annotation] = {}
        #: module-level names bound to several callables (``try``/``except ImportError``
        #: fallbacks, ``if``/``else`` aliases): every alternative, the first in ``aliases``
        self.alts: dict[str, tuple[str, ...]] = {}
        #: module-level names bound to ``partial(f, *args, **kwargs)``: the partial call (its
        #: arguments are part of every call of the name)
        self.partials: dict[str, cst.Call] = {}
        #: resolved names imported from this project (relative imports, the file's own top package)
        self.project_names: set[str] = set()
        #: whether the file star-imports a module of its own project (``from .layers import *``):
        #: a name it reads without binding it is then one of the module's own (the project
        #: graph looks it up through the star imports, ``graph._Resolver._in_module``)
        self.project_star = False
        #: hub module -> the names its star import binds through the hub's own imports
        #: (:mod:`migrate_lens.stars`, read by the main process before the pool)
        self.star_names: dict[str, dict[str, str]] = {}
        #: resolved names imported inside ``try: ... except ImportError`` (and ``guard_depth`` > 0
        #: while the walk is in such a ``try``)
        self.guarded: set[str] = set()
        self.guard_depth = 0
        #: module-level names bound by assignment to callables: name -> alternatives
        self.assigned: dict[str, tuple[str, ...]] = {}
        #: module-level dispatch tables: a name bound to a dict, list or tuple literal of
        #: callables (``ACTS = {"relu": torch.relu_, "gelu": F.gelu}``) -> every entry
        self.tables: dict[str, tuple[str, ...]] = {}
        #: module-level names bound to an instance of a project class (``AUX_LOSSES =
        #: AuxLossCollector()``) -> the class, as resolved in this file
        self.module_instances: dict[str, str] = {}
        #: entries this file registers into a registry object another file of the project defines
        #: (``@MODELS.register_module()`` with ``from .registry import MODELS``), by the registry's
        #: dotted name (and ``<name>[<key>]``): exported as they are, merged by the project graph
        self.foreign_tables: dict[str, tuple[str, ...]] = {}
        #: top-level functions that return callables (``def get_act(name): return ACTS[name]``)
        #: -> what they return
        self.returns: dict[str, tuple[str, ...]] = {}

    # ------------------------------------------------------------------ resolution
    def resolve(self, node: cst.BaseExpression, shadowed: Container[str] = (),
                local: Mapping[str, tuple[str, ...]] | None = None) -> str:
        """Dotted name of a Name/Attribute chain after this file's bindings; "" if not a name
        or not bound. ``local``: the enclosing function's names bound to callables (see
        :meth:`targets`), which win; a name in ``shadowed`` (the function's other locals)
        hides the module-level binding. ``self.x`` stays ``self.x``; the file's own classes
        and functions get the module prefix; builtins of :data:`BUILTINS` resolve to
        themselves. A name bound to several callables resolves to the first
        (:meth:`resolve_all` gives them all)."""
        if type(node) is cst.Name:
            name = node.value
            if local:
                hit = local.get(name)
                if hit:
                    return hit[0]
            if name in shadowed:
                return ""  # a local variable shadows globals
            hit = self.aliases.get(name)
            if hit is not None:
                return hit
            if name in self.classes or name in self.functions:
                return f"{self.module}.{name}"
            if name in BUILTINS:
                return name
            if self.project_star and name not in self.globals:
                return f"{self.module}.{name}"  # a name the star import binds, as Python sees it
            return ""
        if type(node) is cst.Attribute:
            value = node.value
            if type(value) is cst.Name and value.value == "self":
                return f"self.{node.attr.value}"
            if _is_own_class(value):
                return f"self.{node.attr.value}"  # `type(self).pool(x)`, `self.__class__.mask_of(x)`
            if type(value) is cst.Call and self.getters and type(value.func) is cst.Name:
                handle = self.getters.get(value.func.value) if value.func.value not in shadowed else None
                return f"{handle}.{node.attr.value}" if handle else ""  # `_get_plugin().upfirdn2d`
            base = self.resolve(value, shadowed, local)
            return f"{base}.{node.attr.value}" if base else ""
        if type(node) is cst.Call:
            return self.member_call(node, shadowed, local)
        return ""

    def member_call(self, node: cst.Call, shadowed: Container[str] = (),
                    local: Mapping[str, tuple[str, ...]] | None = None) -> str:
        """The dotted name of the member a call looks up by a string literal, "" for any other
        call: ``getattr(_C, "nms")`` is ``<_C>.nms``; ``F("nms")`` for a member factory of this
        file (:meth:`bind_factory`) is ``<the object F reads>.nms``; ``G("nms")`` for a function
        ``G`` imported from the project is ``<G>().nms``, which the project graph resolves
        when ``G`` is a factory there (``FileFacts.member_factories``). Lazy kernel tables are
        written this way: gsplat's and nerfacc's ``_make_lazy_cuda_func("rasterize_fwd")(...)``
        returns a closure calling ``getattr(_C, name)(*args)`` on a compiled extension."""
        func = node.func
        if type(func) is not cst.Name or func.value in shadowed or not node.args:
            return ""
        fname = func.value
        if fname == "getattr":
            if len(node.args) not in (2, 3) or (local and fname in local):
                return ""
            member = _identifier(node.args[1])
            base = self.resolve(node.args[0].value, shadowed, local) if member else ""
            return f"{base}.{member}" if base else ""
        factory = self.factories.get(fname)
        if factory is not None and not (local and fname in local):
            holder, position, param = factory
            arg = next((a for a in node.args if a.keyword is not None and a.keyword.value == param), None)
            if arg is None and position < len(node.args) and node.args[position].keyword is None:
                arg = node.args[position]
            member = _identifier(arg) if arg is not None and not arg.star else ""
            return f"{holder}.{member}" if member else ""
        if self.project_names and node.args[0].keyword is None:
            member = _identifier(node.args[0])
            callee = self.resolve(func, shadowed, local) if member else ""
            if callee and self.is_project(callee):
                return f"{callee}().{member}"
        return ""

    def bind_factory(self, name: str, holder: str, position: int, param: str) -> None:
        """The top-level function ``name`` returns the member of ``holder`` (a dotted name)
        that its parameter ``param`` (at positional index ``position``) names: ``return
        getattr(holder, param)``, or a closure that calls ``getattr(holder, param)(*args)``."""
        self.factories.setdefault(name, (holder, position, param))

    def bind_returned(self, name: str, returned: tuple[str, ...]) -> None:
        """The top-level function ``name`` returns the callables ``returned`` (a table's
        entry, a name bound to a callable): a call of it evaluates to them (:meth:`targets`)."""
        if returned:
            self.returns[name] = merge(self.returns.get(name, ()), returned)

    def bind_getter(self, name: str, returned: tuple[str, ...]) -> None:
        """The top-level function ``name`` returns ``returned`` (:meth:`targets` of a
        ``return``): when that is the object a :attr:`handles` callee made (``f()``), a call of
        the function stands for it (``_get_plugin().upfirdn2d(x, f)``: a kernel call)."""
        for t in returned:
            if t.endswith("()"):
                self.getters.setdefault(name, t)
                return

    def resolve_all(self, node: cst.BaseExpression, shadowed: Container[str] = (),
                    local: Mapping[str, tuple[str, ...]] | None = None) -> tuple[str, ...]:
        """Every dotted name ``node`` may stand for (one, or the alternatives of a name bound
        to several callables, also as the root of an attribute chain); () if unresolved."""
        if type(node) is cst.Name:
            name = node.value
            if local and name in local:
                return local[name]
            if name in shadowed:
                return ()
            if name in self.alts:
                return self.alts[name]
        elif type(node) is cst.Attribute and type(node.value) is cst.Name:
            bases = self.resolve_all(node.value, shadowed, local)
            if len(bases) > 1:
                return tuple(f"{b}.{node.attr.value}" for b in bases)
        r = self.resolve(node, shadowed, local)
        return (r,) if r else ()

    def targets(self, value: cst.BaseExpression, shadowed: Container[str] = (),
                local: Mapping[str, tuple[str, ...]] | None = None,
                methods: Container[str] = ()) -> tuple[str, ...]:
        """The callables (classes, functions, op namespaces) an expression evaluates to, as
        dotted names: a resolved name (``F.gelu``, ``torch.ops._C``), ``partial(X, ...)``
        (X's), both sides of ``A if c else B`` and of ``a or B``; ``self.m`` when ``m`` is in
        ``methods`` (a bound method of the current class); ``f()`` for a call of a callee in
        :attr:`handles` (the object it returns, whose attributes are called). () for anything
        else (other call results, literals, ``None``): the expression holds no known callable."""
        t = type(value)
        if t is cst.Name or t is cst.Attribute:
            if t is cst.Attribute and type(value.value) is cst.Name and value.value.value == "self":
                return (f"self.{value.attr.value}",) if value.attr.value in methods else ()
            return tuple(r for r in self.resolve_all(value, shadowed, local) if r not in BUILTINS)
        if t is cst.Call:
            callee = self.resolve(value.func, shadowed, local)
            if callee in PARTIAL_NAMES and value.args and not value.args[0].keyword and not value.args[0].star:
                return self.targets(value.args[0].value, shadowed, local, methods)
            if callee in self.handles:
                return (f"{callee}()",)  # the object the call returns (a compiled extension)
            if self.getters and type(value.func) is cst.Name and value.func.value in self.getters:
                return (self.getters[value.func.value],)  # a lazy loader's result
            if self.factories and type(value.func) is cst.Name and value.func.value in self.factories:
                member = self.member_call(value, shadowed, local)  # `fwd = _make_lazy_cuda_func("fwd")`
                return (member,) if member else ()
            if self.returns and type(value.func) is cst.Name and value.func.value in self.returns \
                    and value.func.value not in shadowed and not (local and value.func.value in local):
                return self.returns[value.func.value]  # `get_act(name)` returning a table's entry
            if type(value.func) is cst.Attribute and value.func.attr.value == "get":
                # `ACTS.get(name, F.relu)`: a table's entries, or the default
                table = self._table(value.func.value, shadowed, local)
                if table:
                    default = value.args[1].value if len(value.args) > 1 else None
                    return merge(table, self.targets(default, shadowed, local, methods) if default is not None else ())
            return ()
        if t is cst.IfExp:
            return merge(self.targets(value.body, shadowed, local, methods),
                         self.targets(value.orelse, shadowed, local, methods))
        if t is cst.BooleanOperation:
            return merge(self.targets(value.left, shadowed, local, methods),
                         self.targets(value.right, shadowed, local, methods))
        if t is cst.Subscript:
            # a dispatch table, written in place (`{"quaternion": quaternion_init, "unitary":
            # unitary_init}[criterion]`, `[nn.ReLU, nn.GELU][i]`) or bound to a module-level name
            # (`ACTS[name]`; `<pkg.acts.ACTS>[]` for one imported from the project, whose entries
            # the project graph knows): every entry is an alternative; a registry's entries of
            # the keys the subscript names (`Conv[Conv.CONVTRANS if t else Conv.CONV, 3]`)
            keys = registry_keys(value)
            if keys:
                keyed = self.keyed_table(value.value, keys, shadowed, local)
                if keyed:
                    return keyed
            return self._table(value.value, shadowed, local, methods)
        return ()

    def keyed_table(self, node: cst.BaseExpression, keys: Sequence[str], shadowed: Container[str] = (),
                     local: Mapping[str, tuple[str, ...]] | None = None) -> tuple[str, ...]:
        """The entries a registry (:meth:`bind_registration`) or a table literal holds under
        ``keys``: of this file, or ``<pkg.layers.Norm[batch]>[]`` for one imported from the
        project (and for a key only the project knows, ``@<config class>.<field>``); () if none
        (the caller falls back to every entry)."""
        if type(node) is not cst.Name or node.value in shadowed or (local and node.value in local):
            return ()
        out: tuple[str, ...] = ()
        if node.value in self.tables:
            for k in keys:
                # (a key the project resolves, `@<config class>.<field>`: the graph reads the entry)
                out = merge(out, (f"{self.module}.{node.value}[{k}][]",) if k[:1] == "@" else
                            self.tables.get(f"{node.value}[{k}]", ()))
            return out
        source = self.aliases.get(node.value, "")
        if source and self.is_project(source) and node.value not in self.functions and node.value not in self.classes:
            return tuple(f"{source}[{k}][]" for k in keys)
        return ()

    def registry_source(self, name: str) -> str:
        """The dotted name a registry object this file imports from the project is defined under
        (``MODELS`` of ``from .registry import MODELS``), or "" (a name of this file, or none)."""
        source = self.aliases.get(name, "")
        return source if source and name not in self.module_instances and self.is_project(source) else ""

    def bind_registration(self, registry: str, key: str, entries: Sequence[str]) -> None:
        """Module-level code registers ``entries`` (classes or callables) under ``key`` in the
        module-level object ``registry`` (MONAI's ``Norm.add_factory_class("group", nn.GroupNorm)``,
        ``@Norm.factory_function("batch")`` on a function returning a class): a table of every
        entry, and one per key (lower case), read by subscripts of the object."""
        source = self.registry_source(registry)
        tables = self.foreign_tables if source else self.tables
        base = source or registry
        if not entries:
            if key:  # (a key registered with what the scan cannot name: that key picks nothing known)
                tables.setdefault(f"{base}[{key.lower()}]", ())
            return
        tables[base] = merge(tables.get(base, ()), tuple(entries))
        if key:
            name = f"{base}[{key.lower()}]"
            tables[name] = merge(tables.get(name, ()), tuple(entries))

    def table_of(self, node: cst.BaseExpression, shadowed: Container[str] = (),
                 local: Mapping[str, tuple[str, ...]] | None = None) -> tuple[str, ...]:
        """The entries of the dispatch table ``node`` names (a literal, a table of this file, or
        ``<pkg.acts.ACTS>[]`` for one imported from the project): iterated whole, each runs."""
        return self._table(node, shadowed, local)

    def _table(self, node: cst.BaseExpression, shadowed: Container[str] = (),
               local: Mapping[str, tuple[str, ...]] | None = None, methods: Container[str] = (),
               imported: bool = True) -> tuple[str, ...]:
        """The entries of the dispatch table ``node`` is (see :meth:`targets`): a literal, a
        table of this file, or (``imported``) ``<pkg.acts.ACTS>[]`` for a name imported from
        the project, whose entries the project graph knows; () if none."""
        t = type(node)
        if t in (cst.Dict, cst.List, cst.Tuple) or is_dict_call(node):
            return self.table_entries(node, shadowed, local, methods)
        if t is cst.Name and node.value not in shadowed and not (local and node.value in local):
            hit = self.tables.get(node.value)
            if hit is not None or not imported:
                return hit or ()
            source = self.aliases.get(node.value, "")
            if source and self.is_project(source) and node.value not in self.functions \
                    and node.value not in self.classes:
                return (f"{source}[]",)
        return ()

    def table_entries(self, node: cst.BaseExpression, shadowed: Container[str] = (),
                      local: Mapping[str, tuple[str, ...]] | None = None,
                      methods: Container[str] = ()) -> tuple[str, ...]:
        """The callables listed in a dict, list or tuple literal (values of a dict), or as the
        keyword arguments of a ``dict(...)`` call."""
        out: tuple[str, ...] = ()
        if is_dict_call(node):
            for a in node.args:  # type: ignore[attr-defined]
                if a.keyword is not None:
                    out = merge(out, self.targets(a.value, shadowed, local, methods))
                else:  # a table copied in (`dict(ACTS, clamp=...)`, `dict(**ACTS)`)
                    out = merge(out, self._copied_table(a.value, shadowed, local, methods))
            return out
        for e in getattr(node, "elements", ()):
            t = type(e)
            if t is cst.DictElement and type(e.value) in (cst.List, cst.Tuple):
                # `{"color": [rand_brightness, rand_contrast], ...}`: a table of lists of callables
                out = merge(out, self.table_entries(e.value, shadowed, local, methods))
            elif t in (cst.DictElement, cst.Element):
                out = merge(out, self.targets(e.value, shadowed, local, methods))
            elif t in (cst.StarredDictElement, cst.StarredElement):  # `{**BASE, "relu": F.relu_}`
                out = merge(out, self._copied_table(e.value, shadowed, local, methods))
        return out

    def _copied_table(self, node: cst.BaseExpression, shadowed: Container[str] = (),
                      local: Mapping[str, tuple[str, ...]] | None = None,
                      methods: Container[str] = ()) -> tuple[str, ...]:
        """The entries of a table copied into another (``{**BASE}``, ``dict(BASE)``): a table
        of this file, or a literal (:meth:`_table` without imported tables, whose entries are
        the graph's to know); () for anything else (``zip(...)``, a call)."""
        return self._table(node, shadowed, local, methods, imported=False)

    def _add_entries(self, table: str, entries: tuple[str, ...]) -> None:
        """Add ``entries`` to this file's table ``table`` (a name, or ``name[key]``)."""
        self.tables[table] = merge(self.tables.get(table, ()), entries)

    def _wrapped_table(self, value: cst.BaseExpression) -> cst.BaseExpression:
        """The table a class call is given as its one argument (``ClassInstantier(ACT2CLS)``,
        ``OrderedDict({...})``, transformers' activation table whose ``__getitem__`` builds the
        entry), else ``value`` itself."""
        if type(value) is cst.Call and len(value.args) == 1 and not value.args[0].star and \
                value.args[0].keyword is None and not is_dict_call(value):
            callee = self.resolve(value.func)
            leaf = callee.rsplit(".", 1)[-1] if callee else ""
            if leaf[:1].isupper() and type(value.args[0].value) in (cst.Name, cst.Dict):
                return value.args[0].value
        return value

    def _keyed_entries(self, table: cst.BaseExpression) -> dict[str, tuple[str, ...]]:
        """The callables a table literal holds under each string key, keys lower case as a
        registry's (:func:`registry_keys`): ``{"gelu": GELUActivation, "relu": nn.ReLU}``,
        ``dict(gelu=...)``, another table of this file by name (its keyed entries). An entry
        ``(cls, kwargs)`` is its class. Keys that are not string literals are left out."""
        out: dict[str, tuple[str, ...]] = {}
        t = type(table)
        if t is cst.Name:
            prefix = f"{table.value}["
            return {k[len(prefix):-1]: v for k, v in self.tables.items() if k.startswith(prefix) and k.endswith("]")}
        if is_dict_call(table):
            for a in table.args:  # type: ignore[attr-defined]
                if a.keyword is not None:
                    got = self.targets(a.value)
                    if got:
                        out[a.keyword.value.lower()] = got
            return out
        if t is not cst.Dict:
            return out
        for e in table.elements:  # type: ignore[attr-defined]
            if type(e) is not cst.DictElement or type(e.key) not in STRING_NODES:
                continue
            key = e.key.evaluated_value if type(e.key) is cst.SimpleString else None
            if not isinstance(key, str):
                continue
            v = e.value
            if type(v) is cst.Tuple and v.elements:  # `"gelu_10": (ClippedGELUActivation, {"min": -10, ...})`
                v = v.elements[0].value
            got = self.targets(v)
            if got:
                out[key.lower()] = merge(out.get(key.lower(), ()), got)
        return out

    def bind_table_write(self, name: str, values: Sequence[cst.BaseExpression], key: str = "") -> None:
        """Module-level code adds ``values`` to the table bound to ``name`` (``ACTS["hard"] =
        F.hardsigmoid_``, ``ACTS.update({...})``/``ACTS.update(relu=...)``, ``OPS.append(fn)``,
        ``OPS.extend([...])``, ``ACTS.setdefault(k, fn)``): each callable among them (or in a
        table literal among them) becomes an entry too. Names bound to an import, class or
        function are not tables."""
        if name in self.aliases or name in self.classes or name in self.functions or name not in self.module_names:
            return
        entries: tuple[str, ...] = ()
        for v in values:
            entries = merge(entries, self.targets(v) or self._copied_table(v))
            for k, keyed in self._keyed_entries(v).items():  # `ACTS.update({"relu": torch.relu_})`
                self._add_entries(f"{name}[{k}]", keyed)
        if entries:
            self._add_entries(name, entries)
            if key:
                self._add_entries(f"{name}[{key}]", entries)

    def instances(self, value: cst.BaseExpression, shadowed: Container[str] = (),
                  local: Mapping[str, tuple[str, ...]] | None = None,
                  instances: Mapping[str, tuple[str, ...]] | None = None) -> tuple[str, ...]:
        """The classes whose instance ``value`` evaluates to: ``Cls(...)`` (also through a
        name bound to classes), a classmethod factory ``Cls.from_config(...)``, either side of ``x or Cls(...)`` / ``A(...) if c else B(...)``,
        a local name already holding an instance (``instances``). () if none is known."""
        t = type(value)
        if t is cst.Call:
            func = value.func
            if type(func) is cst.Attribute and func.attr.value.startswith(("from_", "_from_")):
                # a classmethod factory: `CLIPTextModel._from_config(cfg)`, `Cls.from_pretrained(...)`
                return tuple(n for n in self.targets(func.value, shadowed, local) if is_class_like(n))
            return tuple(n for n in self.targets(func, shadowed, local) if is_class_like(n))
        if t is cst.Name and instances:
            return instances.get(value.value, ())
        if t is cst.IfExp:
            return merge(self.instances(value.body, shadowed, local, instances),
                         self.instances(value.orelse, shadowed, local, instances))
        if t is cst.BooleanOperation:
            return merge(self.instances(value.left, shadowed, local, instances),
                         self.instances(value.right, shadowed, local, instances))
        return ()

    def is_bound(self, name: str) -> bool:
        """True for a name bound at module level to an import, class or function."""
        return name in self.aliases or name in self.classes or name in self.functions

    def absolute(self, module: str, level: int) -> str:
        """The absolute dotted module of ``from <level dots><module> import ...``."""
        if level == 0:
            return module
        parts = self.module.split(".")
        drop = level - 1 if self.is_package else level
        base = parts[: len(parts) - drop] if drop <= len(parts) else []
        if module:
            base = [*base, module]
        return ".".join(p for p in base if p)

    # ------------------------------------------------------------------ binding statements
    def bind_import(self, node: cst.Import) -> list[tuple[str, str]]:
        """Bind the names of ``import a.b [as c]``; returns ``(dotted module, local name)`` pairs."""
        out = []
        for alias in node.names:
            full = dotted(alias.name)
            if alias.asname is not None and type(alias.asname.name) is cst.Name:
                local = alias.asname.name.value
                self.aliases[local] = full
            else:
                local = full.split(".")[0]
                self.aliases[local] = local
            self._note_import(local, full, 0)
            out.append((full, local))
        return out

    def bind_import_from(self, node: cst.ImportFrom) -> tuple[str, int, list[tuple[str, str, str]]]:
        """Bind the names of ``from m import x [as y]``: returns the absolute module, the
        relative level as written, and ``(member, local name, absolute member name)`` triples
        (``[("*", "*", "")]`` for a star import, which binds nothing resolvable)."""
        level = len(node.relative)
        module = dotted(node.module) if node.module is not None else ""
        absolute = self.absolute(module, level)
        if type(node.names) is cst.ImportStar:
            if level > 0 or self.is_own_package(absolute):
                self.project_star = True
            for name, target in self.star_names.get(absolute, {}).items():
                # `from .torch_imports import *` binding `nn` to torch.nn (the hub's own import);
                # a name this file defines itself stays its own
                if name not in self.classes and name not in self.functions and name not in self.globals:
                    self.aliases[name] = target
            return absolute, level, [("*", "*", "")]
        out = []
        for alias in node.names:
            member = dotted(alias.name)
            local = member
            if alias.asname is not None and type(alias.asname.name) is cst.Name:
                local = alias.asname.name.value
            full = f"{absolute}.{member}" if absolute else member
            self.aliases[local] = full
            self._note_import(local, full, level)
            out.append((member, local, full))
        return absolute, level, out

    def is_own_package(self, full: str) -> bool:
        """``full`` (an absolute dotted name) lies in the file's own top-level package: inside
        ``torch_geometric``, ``from torch_geometric.data import Data`` imports the project's own
        code (the package being ported), not an external dependency."""
        return in_own_package(full, self.module)

    def _note_import(self, local: str, full: str, level: int) -> None:
        if level > 0 or self.is_own_package(full):
            self.project_names.add(full)
        if self.guard_depth:
            self.guarded.add(full)

    @staticmethod
    def _under(name: str, roots: set[str]) -> str:
        """The longest of ``roots`` that ``name`` is or is under (dotted), else ""."""
        while True:
            if name in roots:
                return name
            if "." not in name:
                return ""
            name = name.rsplit(".", 1)[0]

    def guarded_import(self, name: str) -> str:
        """The name imported inside ``try: ... except ImportError`` that ``name`` (resolved) is
        or is under (``selective_scan_cuda`` for ``selective_scan_cuda.fwd``), else ""."""
        return self._under(name, self.guarded) if self.guarded else ""

    def is_project(self, name: str) -> bool:
        """``name`` (resolved) is, or is under, a name this file imports from its own project."""
        if "()" in name:  # a factory's member (`_make_lazy_cuda_func().fwd`): the factory's name
            name = name.replace("()", "")
        if "[" in name:  # a registry's entries under a key (`pkg.layers.Norm[batch]`): the registry
            name = name.split("[", 1)[0]
        return bool(self.project_names) and bool(self._under(name, self.project_names))

    def declare_module(self, node: cst.Module) -> None:
        """Declare the file's top-level classes, functions and assigned names before the walk
        reaches them (so ``self.x = Later()`` resolves a class defined further down)."""
        for stmt in node.body:
            if type(stmt) is cst.ClassDef:
                self.classes.add(stmt.name.value)
            elif type(stmt) is cst.FunctionDef:
                self.functions.add(stmt.name.value)
                if stmt.returns is not None:
                    self.func_returns[stmt.name.value] = stmt.returns
            elif type(stmt) is cst.SimpleStatementLine:
                for small in stmt.body:
                    targets: list[cst.BaseExpression] = []
                    if type(small) is cst.Assign:
                        targets = [t.target for t in small.targets]
                    elif type(small) is cst.AnnAssign:
                        targets = [small.target]
                    for t in targets:
                        names = names_in_target(t)
                        if type(small) is cst.Assign and type(t) is cst.Name and type(small.value) in STRING_NODES \
                                and (t.value in self.str_consts or t.value not in self.globals):
                            self.str_consts.add(t.value)
                        else:
                            self.str_consts.difference_update(names)
                        self.globals.update(names)
        for stmt in node.body:
            # a table of the file's own functions or classes defined below the code that uses it
            # (DiffAugment's `AUGMENT_FNS = {"color": [rand_brightness, ...]}` at the end of the
            # file): its own entries now, the rest once the walk binds the file's imports
            if type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(stmt.body[0]) is cst.Assign:
                small = stmt.body[0]
                if len(small.targets) == 1 and type(small.targets[0].target) is cst.Name and \
                        type(small.value) in (cst.Dict, cst.List, cst.Tuple):
                    own = tuple(e for e in self.table_entries(small.value) if e.startswith(f"{self.module}."))
                    if own:
                        name = small.targets[0].target.value
                        self.tables[name] = merge(self.tables.get(name, ()), own)

    def declare_class(self, name: str) -> None:
        """A class statement met at module level (also inside a top-level ``if``/``try``)."""
        self.classes.add(name)

    def bind_module_assign(self, node: cst.Assign, resolve_value: str) -> None:
        """A module-level ``name = <value>`` whose value resolved to ``resolve_value``: a logger
        (``logger = logging.getLogger(__name__)``) is bound to ``logging.Logger`` so its calls
        are recognised as logging."""
        if type(node.value) is cst.Call and resolve_value.endswith((".getLogger", ".get_logger")):
            for t in node.targets:
                if type(t.target) is cst.Name:
                    self.aliases[t.target.value] = "logging.Logger"

    def bind_module_value(self, name: str, value: cst.BaseExpression) -> None:
        """A module-level ``name = value`` (also inside a top-level ``if``/``try``): when
        ``value`` is a callable (:meth:`targets`), ``name`` is bound to it, added to what the
        name already held (``try: from flash_attn import f`` / ``except ImportError: f = ref``
        keeps both). A non-callable value (``f = None``) leaves the binding alone."""
        if type(value) is cst.Call and dotted(value.func) in ("importlib.import_module", "import_module") and \
                value.args and type(value.args[0].value) is cst.SimpleString and len(value.args) == 1:
            # `attn_core_inplace_cuda = importlib.import_module("attn_core_inplace_cuda")`
            # (OpenFold): the module imported under that name, as `import x as name` binds it
            module = value.args[0].value.evaluated_value
            if isinstance(module, str) and module and all(p.isidentifier() for p in module.split(".")):
                self.aliases[name] = module
                self._note_import(name, module, 0)
                return
        self.module_names.add(name)
        if type(value) is cst.Call:
            # `AUX_LOSSES = AuxLossCollector()`: a process-wide object of a project class
            for c in self.instances(value):
                if not c.startswith("torch.") and (c.startswith(f"{self.module}.") or self.is_project(c)):
                    self.module_instances[name] = c
                    break
        new = self.targets(value)
        if not new:
            # a table literal, or another name for a table of this file (`ALIAS = ACTS`), or a
            # table handed whole to a class (`ACT2FN = ClassInstantier(ACT2CLS)`: a mapping
            # whose lookup gives the entry, built or not: the same pick)
            source = self._wrapped_table(value)
            entries = self._copied_table(source)
            if entries:
                self._add_entries(name, entries)
                for key, keyed in self._keyed_entries(source).items():
                    self._add_entries(f"{name}[{key}]", keyed)
            return
        if self.is_partial(value):
            self.partials[name] = value  # type: ignore[assignment]
            if all(a.keyword is not None for a in value.args[1:]) and not value.args[0].star and all(  # type: ignore[attr-defined]
                    t.startswith(f"{self.module}.") or self.is_project(t) for t in new):
                # `keep_positive = partial(_impl, thresh=0.0)` of a project function: keywords
                # only, so a caller's positional arguments sit where the function's own do
                # (argument kinds flow through the alias). Not a library callable's partial: the
                # graph would match the call without the partial's keywords (`approximate="tanh"`)
                self.assigned[name] = merge(self.assigned.get(name, ()), new)
        else:  # exported to the project graph as an alias (a partial's arguments would be lost)
            self.assigned[name] = merge(self.assigned.get(name, ()), new)
        old = self.alts.get(name) or ((self.aliases[name],) if name in self.aliases else ())
        both = merge(old, new)
        self.aliases[name] = both[0]
        if len(both) > 1:
            self.alts[name] = both

    # ------------------------------------------------------------------ function scopes
    def bind_local(self, scope: LocalBindings, name: str, value: cst.BaseExpression,
                   shadowed: Container[str], methods: Container[str] = ()) -> None:
        """``name = value`` inside a function: queued (:meth:`LocalBindings.flush` applies it
        once the right-hand side has been visited). A callable value is added to what the
        name held (``if block is None: block = Block`` keeps a default bound before), and so is
        a dispatch-table lookup (``f = TABLE[key]`` keeps what ``f`` held); an instance
        (``corr = CorrBlock(...)``) is recorded apart; any other value unbinds."""
        new = self.targets(value, shadowed, scope.callables, methods)
        if not new and type(value) is cst.Subscript and name in scope.callables:
            # `attention_interface = ALL_ATTENTION_FUNCTIONS[impl]` (under a config test): a
            # dispatch-table entry unknown here; the callable bound before stays one alternative
            new = scope.callables[name]
        inst = () if new else self.instances(value, shadowed, scope.callables, scope.instances)
        scope.pending.append((name, merge(scope.callables.get(name, ()), new) if new else (), inst,
                              value if new and self.is_partial(value, shadowed, scope.callables) else None))

    def is_partial(self, value: cst.BaseExpression, shadowed: Container[str] = (),
                   local: Mapping[str, tuple[str, ...]] | None = None) -> bool:
        """``value`` is a ``functools.partial(...)`` call."""
        return type(value) is cst.Call and self.resolve(value.func, shadowed, local) in PARTIAL_NAMES

    def partial_of(self, func: cst.BaseExpression, scope: LocalBindings | None) -> cst.Call | None:
        """The ``partial(...)`` call the called name ``func`` is bound to (locally first), if any."""
        if type(func) is not cst.Name:
            return None
        if scope is not None and func.value in scope.callables:
            return scope.partials.get(func.value)
        return self.partials.get(func.value)

    def bind_param(self, scope: LocalBindings, name: str, index: int, default: cst.BaseExpression | None,
                   annotation: cst.Annotation | None = None) -> None:
        """Parameter ``name`` at position ``index`` (``self`` not counted): a callable default
        (``act_layer=nn.GELU``, ``norm_layer=partial(nn.LayerNorm, eps=1e-6)``) binds it; an
        annotation naming a non-torch class (``cache: Optional[Cache]``, ``p: "Params | None"``)
        makes it an instance of that class."""
        scope.param_index[name] = index
        if annotation is not None:
            classes = self.annotation_classes(annotation.annotation)
            if classes:
                scope.typed[name] = classes
            built = self.annotation_types(annotation.annotation)
            if built and default is None:
                # `block: type[Union[BasicBlock, Bottleneck]]` (torchvision's ResNet): the
                # parameter holds one of these classes, which calling it builds
                scope.callables[name] = built
        if type(default) is cst.Name and default.value == "None" and annotation is None:
            scope.optional.add(name)
        if default is not None:
            new = self.targets(default)
            if new:
                scope.callables[name] = new
                if self.is_partial(default):
                    scope.partials[name] = default  # type: ignore[assignment]


    def annotation_types(self, node: cst.BaseExpression) -> tuple[str, ...]:
        """The project or library classes a ``type[...]`` / ``Type[...]`` annotation names
        (``type[Union[BasicBlock, Bottleneck]]``, ``Optional[Type[Block]]``); () otherwise."""
        t = type(node)
        if t is cst.Subscript:
            head = self.resolve(node.value) or (node.value.value if type(node.value) is cst.Name else "")
            if head in ("type", "typing.Type", "Type"):
                out: tuple[str, ...] = ()
                for el in node.slice:
                    if type(el.slice) is cst.Index:
                        out = merge(out, self.annotation_classes(el.slice.value))
                return out
            if head in ("typing.Optional", "typing.Union", "Optional", "Union"):
                out = ()
                for el in node.slice:
                    if type(el.slice) is cst.Index:
                        out = merge(out, self.annotation_types(el.slice.value))
                return out
        if t is cst.BinaryOperation and type(node.operator) is cst.BitOr:
            return merge(self.annotation_types(node.left), self.annotation_types(node.right))
        return ()

    def annotation_classes(self, node: cst.BaseExpression) -> tuple[str, ...]:
        """The non-torch classes a parameter annotation names: ``X``, ``Optional[X]``,
        ``X | None``, ``Union[X, Y]``, ``"X"``; () for torch types, builtins and containers."""
        t = type(node)
        if t is cst.Name or t is cst.Attribute:
            r = self.resolve(node)
            ok = r and is_class_like(r) and not r.startswith(("torch.", "typing.", "collections.", "numpy."))
            return (r,) if ok else ()
        if t is cst.BinaryOperation and type(node.operator) is cst.BitOr:
            return merge(self.annotation_classes(node.left), self.annotation_classes(node.right))
        if t is cst.Subscript and self.resolve(node.value) in ("typing.Optional", "typing.Union", "Optional", "Union"):
            out: tuple[str, ...] = ()
            for el in node.slice:
                if type(el.slice) is cst.Index:
                    out = merge(out, self.annotation_classes(el.slice.value))
            return out
        if t is cst.SimpleString:
            text = node.value.strip("'\"")
            parts = [p.strip() for p in text.replace("Optional[", "").rstrip("]").split("|")]
            out = ()
            for p in parts:
                if p and p != "None" and p.replace(".", "").isidentifier():
                    head = p.split(".", 1)[0]
                    base = self.aliases.get(head) or (f"{self.module}.{head}" if head in self.classes else "")
                    r = f"{base}{p[len(head):]}" if base else ""
                    if r and is_class_like(r) and not r.startswith("torch."):
                        out = merge(out, (r,))
            return out
        return ()


class LocalBindings:
    """The names of one function bound to callables (``callables``: name -> alternatives),
    holding instances of known classes (``instances``: name -> classes), and the positions of
    its parameters (``param_index``; ``self``/``cls`` excluded; ``typed``: annotated with
    classes; ``optional``: unannotated, defaulting to None), and the names bound to a
    ``partial(...)`` call (``partials``). ``pending``: bindings of the assignment being
    visited, applied by :meth:`flush`."""

    __slots__ = ("callables", "instances", "param_index", "pending", "partials", "typed", "optional")

    def __init__(self) -> None:
        self.callables: dict[str, tuple[str, ...]] = {}
        self.instances: dict[str, tuple[str, ...]] = {}
        self.param_index: dict[str, int] = {}
        self.pending: list[tuple[str, tuple[str, ...], tuple[str, ...], cst.Call | None]] = []
        #: names bound to a ``partial(...)`` call (the call node: its arguments join each call)
        self.partials: dict[str, cst.Call] = {}
        #: parameters annotated with (optional) classes: name -> classes
        self.typed: dict[str, tuple[str, ...]] = {}
        #: unannotated parameters defaulting to None (optional objects: a cache, a state)
        self.optional: set[str] = set()

    def flush(self) -> None:
        """Apply the queued bindings (after the right-hand side: ``f = f or g`` reads the old ``f``)."""
        for name, callables, instances, partial in self.pending:
            if partial is not None:
                self.partials[name] = partial
            elif not callables or name not in self.callables:
                self.partials.pop(name, None)
            if callables:
                self.callables[name] = callables
            else:
                self.callables.pop(name, None)
            if instances:
                self.instances[name] = instances
            else:
                self.instances.pop(name, None)
        self.pending.clear()


def _identifier(arg: cst.Arg) -> str:
    """The value of a string-literal argument that is a Python identifier (a member name), else ""."""
    value = arg.value
    if type(value) is not cst.SimpleString:
        return ""
    text = value.evaluated_value
    return text if type(text) is str and text.isidentifier() else ""


def registry_keys(node: cst.Subscript) -> tuple[str, ...]:
    """The registry keys a subscript names, lower case: a string literal first (``Norm["batch",
    3]``, ``Act["gelu"]``), a constant attribute of the subscripted name itself (MONAI's
    ``Norm[Norm.BATCH, 3]``), or either side of a conditional of those; () when a key is not
    known (a variable: every entry may be picked)."""
    if not node.slice or type(node.slice[0].slice) is not cst.Index:
        return ()
    first = node.slice[0].slice.value
    if type(first) is cst.Tuple and first.elements:
        first = first.elements[0].value
    base = node.value.value if type(node.value) is cst.Name else ""
    out: list[str] = []
    for alt in ([first.body, first.orelse] if type(first) is cst.IfExp else [first]):
        if type(alt) is cst.SimpleString and isinstance(alt.evaluated_value, str):
            out.append(alt.evaluated_value.lower())
        elif type(alt) is cst.Attribute and type(alt.value) is cst.Name and base and alt.value.value == base:
            out.append(alt.attr.value.lower())
        else:
            return ()
    return tuple(out)


def is_dict_call(node: cst.BaseExpression) -> bool:
    """``dict(relu=nn.ReLU, gelu=nn.GELU)``: a table spelled as a call (keyword entries, and
    tables it copies: ``dict(ACTS, clamp=torch.clamp_)``, ``dict(**ACTS)``)."""
    return type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "dict" \
        and bool(node.args)


def _is_own_class(node: cst.BaseExpression) -> bool:
    """``type(self)`` or ``self.__class__``: the class of the instance (its methods and
    static methods are looked up as ``self.<name>``)."""
    if type(node) is cst.Attribute:
        return node.attr.value == "__class__" and type(node.value) is cst.Name and node.value.value == "self"
    return type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "type" \
        and len(node.args) == 1 and type(node.args[0].value) is cst.Name and node.args[0].value.value == "self"
