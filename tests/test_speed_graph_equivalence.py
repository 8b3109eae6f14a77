"""The faster paths of the project graph give what the direct definitions give."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from migrate_lens.graph import Node, Project, _levels_from_hops, _nearest, _reverse, graph_view, worst_reachable

NODES = [f"n{i}" for i in range(8)]


@st.composite
def graphs(draw: st.DrawFn) -> tuple[dict[str, list[str]], dict[str, int]]:
    edges = draw(st.sets(st.tuples(st.sampled_from(NODES), st.sampled_from(NODES)), max_size=20))
    adj: dict[str, list[str]] = {}
    for u, v in sorted(edges):
        if u != v:
            adj.setdefault(u, []).append(v)
    own = draw(st.dictionaries(st.sampled_from(NODES), st.integers(0, 3), max_size=8))
    return adj, own


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_levels_from_nearest_maps_equal_worst_reachable(graph: tuple[dict[str, list[str]], dict[str, int]]) -> None:
    adj, own = graph
    rev = _reverse(adj)
    hops = {lvl: _nearest(rev, [n for n, lv in own.items() if lv == lvl]) for lvl in (1, 2, 3)}
    assert _levels_from_hops(NODES, hops) == worst_reachable(NODES, adj, own)


def test_graph_view_numbers_parallel_edges_in_sorted_order() -> None:
    nodes = {n: Node("function", f"{n}.py", 1, "pure", "", False) for n in ("b", "a", "c")}
    edges = {"b": (("a", "inherits"),), "a": (("b", "call"), ("c", "call"), ("c", "import"))}
    project = Project(findings=(), modules=(), unresolved=0, nodes=nodes, edges=edges)
    view = graph_view(project)
    assert [n["id"] for n in view["nodes"]] == ["a", "b", "c"]
    assert [(e["source"], e["target"], e["kind"], e["key"]) for e in view["edges"]] == [
        ("a", "b", "call", 0), ("a", "c", "call", 0), ("a", "c", "import", 1), ("b", "a", "inherits", 0),
    ]
    # the networkx form holds the same graph
    g = project.graph
    assert sorted(g.nodes) == ["a", "b", "c"] and g.nodes["a"]["path"] == "a.py"
    assert sorted(g.edges(keys=True)) == [("a", "b", "call"), ("a", "c", "call"), ("a", "c", "import"), ("b", "a", "inherits")]
