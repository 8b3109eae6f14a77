"""What the team will port: the units reached from entry points, and the top-level models.

A team ports what it runs. An entry is ``pkg.mod:Name`` (or ``pkg.mod.Name``): a class or
function of the scanned project, e.g. ``pkg.train:main`` or ``pkg.models.unet:UNet2D``. The
scope is the entry's unit plus every unit it needs, transitively, through the unit graph
(``ModuleInfo.depends_on``: composition, calls, inheritance). Units outside it are listed as
out of scope.

A *top-level model* is an ``nn.Module`` unit that no other ``nn.Module`` unit of the project
holds as a submodule (the graph's composition edges) and that is not test code: "if we only
port X" is the closure of X.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from migrate_lens.graph import ModuleInfo, Project


class EntryError(ValueError):
    """An entry that names nothing in the project; ``str()`` says which and suggests names."""


@dataclass(frozen=True)
class Scope:
    """``entries`` as given, ``roots`` (the units they name, sorted), ``units`` in scope
    (qualnames, sorted); ``out_of_scope`` the other units (sorted). Without entries every unit
    is in scope and ``roots`` is empty."""

    entries: tuple[str, ...]
    roots: tuple[str, ...]
    units: frozenset[str]
    out_of_scope: tuple[str, ...]


def closure(roots: Iterable[str], adj: Mapping[str, Sequence[str]]) -> set[str]:
    """``roots`` and every node reachable from them in ``adj`` (breadth first)."""
    seen = set(roots)
    queue = deque(seen)
    while queue:
        for d in adj.get(queue.popleft(), ()):
            if d not in seen:
                seen.add(d)
                queue.append(d)
    return seen


def _entry_node(entry: str) -> str:
    mod, sep, name = entry.partition(":")
    return f"{mod}.{name}" if sep else entry


def resolve_entry(project: Project, entry: str) -> str:
    """The unit that ``entry`` names: the unit owning that graph node (a class unit, or the
    file unit of a function), or the unit of that name. Raises :class:`EntryError`."""
    node = _entry_node(entry.strip())
    names = {m.qualname for m in project.modules}
    if node in names:
        return node
    unit = project.unit_of.get(node)
    if unit in names:
        return unit  # type: ignore[return-value]
    short = node.rsplit(".", 1)[-1]
    near = sorted(q for q in names if q.rsplit(".", 1)[-1] == short)[:3]
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    raise EntryError(f"entry {entry!r}: no class or function of that name in the scanned project{hint}")


def make_scope(project: Project, entries: Sequence[str]) -> Scope:
    """The scope of ``entries`` (all units when empty). Raises :class:`EntryError`."""
    names = sorted(m.qualname for m in project.modules)
    if not entries:
        return Scope((), (), frozenset(names), ())
    roots = sorted({resolve_entry(project, e) for e in entries})
    adj = {m.qualname: m.depends_on for m in project.modules}
    units = closure(roots, adj) & set(names)
    return Scope(tuple(entries), tuple(roots), frozenset(units), tuple(n for n in names if n not in units))


def top_level_models(project: Project) -> list[ModuleInfo]:
    """``nn.Module`` units no other ``nn.Module`` unit holds (composition edges of the graph),
    test code excluded; sorted by qualname."""
    models = {m.qualname: m for m in project.modules if m.kind == "nn.Module" and not m.is_test}
    held: set[str] = set()
    for q in models:
        for v, kind in project.edges.get(q, ()):
            if kind == "composition":
                target = project.unit_of.get(v, v)
                if target != q and target in models:
                    held.add(target)
    return [models[q] for q in sorted(models) if q not in held]
