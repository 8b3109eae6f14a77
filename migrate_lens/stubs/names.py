"""Name resolution for the stub translator: a file's import aliases, without running it.

``import torch.nn.functional as F`` makes ``F.gelu`` resolve to ``torch.nn.functional.gelu``;
``from torch import nn`` makes ``nn.Linear`` resolve to ``torch.nn.Linear``. Relative imports
are made absolute from the file's dotted module name. Same approach as the analyzer's visitor
(``migrate_lens.analysis.visitor``): import aliases only, no libcst scope metadata (about 10x
the parse; ``shared/FIELD.md``, Speed).
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst


def dotted(node: cst.BaseExpression) -> str:
    """``a.b.c`` for a Name/Attribute chain, "" for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else ""
    return ""


def names_in(node: cst.CSTNode) -> set[str]:
    """Every identifier (``Name``) appearing anywhere under ``node``."""
    found: set[str] = set()

    class _Collect(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            found.add(n.value)

    node.visit(_Collect())
    return found


def module_name(rel_path: str) -> str:
    """Dotted module name of a POSIX path relative to the scanned root
    (``pkg/sub/mod.py`` -> ``pkg.sub.mod``; ``pkg/__init__.py`` -> ``pkg``)."""
    parts = list(Path(rel_path).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def absolute_module(current: str, is_package: bool, module: str, level: int) -> str:
    """The absolute dotted name of ``from <level dots><module> import ...`` written in module
    ``current``. Levels reaching above the root give a name starting with ``..`` markers
    stripped, i.e. the best effort ``module`` itself."""
    if level == 0:
        return module
    parts = current.split(".") if current else []
    drop = level - 1 if is_package else level
    base = parts[: len(parts) - drop] if drop <= len(parts) else []
    return ".".join(p for p in [*base, module] if p)


class Aliases:
    """Import aliases of one file: local name -> absolute dotted name.

    ``resolve(expr)`` gives the qualified name of a Name/Attribute chain whose head is an
    imported name (``F.gelu`` -> ``torch.nn.functional.gelu``), else "".
    """

    def __init__(self, module: cst.Module, current: str, is_package: bool) -> None:
        self.names: dict[str, str] = {}
        #: local name -> (absolute module, member, relative level) for ``from`` imports
        self.members: dict[str, tuple[str, str, int]] = {}
        for stmt in module.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        full = dotted(alias.name)
                        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                            self.names[alias.asname.name.value] = full
                        else:
                            head = full.split(".")[0]
                            self.names[head] = head
                elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                    level = len(small.relative)
                    mod = dotted(small.module) if small.module is not None else ""
                    absolute = absolute_module(current, is_package, mod, level)
                    for alias in small.names:
                        member = dotted(alias.name)
                        local = member
                        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                            local = alias.asname.name.value
                        self.names[local] = f"{absolute}.{member}" if absolute else member
                        self.members[local] = (absolute, member, level)

    def resolve(self, node: cst.BaseExpression) -> str:
        """Qualified dotted name of an imported Name/Attribute chain, or ""."""
        text = dotted(node)
        if not text:
            return ""
        head, _, rest = text.partition(".")
        full = self.names.get(head)
        if full is None:
            return ""
        return f"{full}.{rest}" if rest else full
