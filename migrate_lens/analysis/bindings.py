"""Bindings: what a name in one file is bound to (a module, a class, a function, a builtin).

One table per file, filled during the single traversal from the file's own statements:
``import torch.nn.functional as F`` binds ``F`` to ``torch.nn.functional``; ``from . import x``
is made absolute from the file's dotted module name; top-level ``class``/``def`` statements are
declared before the walk reaches them so forward references resolve. Nothing is imported or
executed, and libcst's scope / qualified-name providers are not used (they cost about 10x the
parse: ``../shared/FIELD.md``, Speed).
"""

from __future__ import annotations

from collections.abc import Container

import libcst as cst

#: Builtins that resolve to their own name (``len(x)`` is the call ``len``).
BUILTINS = frozenset({
    "print", "open", "len", "isinstance", "range", "int", "float", "bool", "super", "getattr",
    "setattr", "hasattr", "type", "min", "max", "sum", "abs", "any", "all", "zip", "enumerate",
    "list", "tuple", "dict", "set", "sorted", "round", "input", "exec", "eval", "iter", "next",
    "map", "filter", "reversed", "str", "repr", "format", "vars", "globals", "locals", "id",
    "hash", "divmod", "pow", "callable", "issubclass", "frozenset", "complex", "object",
})


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


class Bindings:
    """The module-level name table of one file.

    ``module`` is the file's dotted module name (qualnames and relative imports), ``is_package``
    True for an ``__init__.py``. ``aliases`` maps a local name to the absolute dotted name it
    was imported as (or bound to); ``classes`` / ``functions`` are the names of the file's own
    top-level classes and functions (they resolve to ``<module>.<name>``); ``globals`` the
    names assigned at module level; ``func_returns`` the return annotations of top-level
    functions by name.
    """

    __slots__ = ("module", "is_package", "aliases", "classes", "functions", "globals", "func_returns")

    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.is_package = is_package
        self.aliases: dict[str, str] = {}
        self.classes: set[str] = set()
        self.functions: set[str] = set()
        self.globals: set[str] = set()
        self.func_returns: dict[str, cst.Annotation] = {}

    # ------------------------------------------------------------------ resolution
    def resolve(self, node: cst.BaseExpression, shadowed: Container[str] = ()) -> str:
        """Dotted name of a Name/Attribute chain after this file's bindings; "" if not a name
        or not bound. A name in ``shadowed`` (the enclosing function's locals) hides the
        module-level binding. ``self.x`` stays ``self.x``; the file's own classes and
        functions get the module prefix; builtins of :data:`BUILTINS` resolve to themselves."""
        if type(node) is cst.Name:
            name = node.value
            if name in shadowed:
                return ""  # a local variable shadows globals
            hit = self.aliases.get(name)
            if hit is not None:
                return hit
            if name in self.classes or name in self.functions:
                return f"{self.module}.{name}"
            if name in BUILTINS:
                return name
            return ""
        if type(node) is cst.Attribute:
            if type(node.value) is cst.Name and node.value.value == "self":
                return f"self.{node.attr.value}"
            base = self.resolve(node.value, shadowed)
            return f"{base}.{node.attr.value}" if base else ""
        return ""

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
            return absolute, level, [("*", "*", "")]
        out = []
        for alias in node.names:
            member = dotted(alias.name)
            local = member
            if alias.asname is not None and type(alias.asname.name) is cst.Name:
                local = alias.asname.name.value
            full = f"{absolute}.{member}" if absolute else member
            self.aliases[local] = full
            out.append((member, local, full))
        return absolute, level, out

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
                        self.globals.update(names_in_target(t))

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
