"""The fast walk (``migrate_lens.analysis.walk``) against libcst's own machinery: the same nodes
in the same (source) order as ``CSTVisitor``, and positions equal to ``PositionProvider`` for
every node, on snippets chosen for the hard cases, without falling back to the provider."""

from __future__ import annotations

import inspect
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from migrate_lens.analysis import walk

SNIPPETS = {
    "decorators": (
        "import torch\n\n\n# leading comment\n@torch.jit.script\n@ decorator(  1,\n    2)\n"
        "# between\n@other\ndef f(x, y=torch.ones(1)) -> torch.Tensor:\n    return x.add_(y)\n"
        "class K:\n    @  (wrap)\n    @ \\\n  continued(1)\n    @é(ü(1),\n       2) # ö\n    def g(self): pass\n"
        "@dataclass\nclass C: x: int = 1\n"
    ),
    "elif-else": (
        "def f(x):\n    if x.sum() > 0:\n        y = x.item()\n    # comment before elif\n"
        "    elif  x.mean() < 0 :\n        y = x.item()\n    elif (x.max()):\n        y = 1\n"
        "    else:\n        y = x.item()\n    return y\n"
    ),
    "multi-line-calls": (
        "def f(x):\n    y = torch.cat(\n        [x.item(),\n         x.item()],\n        dim=0,\n    )\n"
        "    z = foo(a,\n            b)(c)(\n        d)\n    return bar(\n        baz(x)\n    )\n"
    ),
    "duplicated-subexpressions": (
        "layers = nn.Sequential(nn.Dropout(p), nn.Linear(4, 4), nn.Dropout(p), nn.Dropout(p))\n"
        "y = f(x) + f(x) * f(f(x))\nz = [x.item() for _ in range(3)] + [x.item()]\nw = x + x\n"
    ),
    "parenthesized": (
        "x = ((a.b(c)))\ny = (\n    a\n    + b(c)\n)\nz = (yield)\nw = ( # c\n  f(1) )\n"
        "if (x\n    and y):\n    pass\n"
    ),
    "nested-blocks": (
        "class A:\n    class B(Base, metaclass=M):\n        def g(self):\n            for i in range(self.n(1)):\n"
        "                while i.item():\n                    with ctx(i) as c, other(c):\n"
        "                        try:\n                            pass\n"
        "                        except (ValueError, f(KeyError)) as e:\n                            raise g(e) from h(e)\n"
        "                        finally:\n                            del i\n"
        "                else:\n                    async_thing = lambda q: q.item()\n"
    ),
    "strings-with-newlines": (
        'x = """multi\nline ( f(1)\n"""; y = f(1)\nz = f"{a(1)}\\n{b(2)!r:>{w(3)}}" + \'\'\'\nf(1)\'\'\'\n'
        "s = ('implicit'\n     'concat' f'{g(1)}')\n"
    ),
    "semicolons": "import torch; x = torch.ones(1); y = x.item()\nif x: a = f(1); b = f(1)\nwhile y: f(2)\n",
    "non-ascii": "s = 'héllo'; t = f('ü', x.item())\n# ünïcode comment\ndef g(é):\n    return é.item()  # ¿\n",
    "backslash-continuation": "x = a + \\\n    f(b)\ny = torch \\\n    .ones(1)\n",
    "async-and-match": (
        "async def f(x):\n    async with a(x) as b:\n        async for i in b(1):\n            await g(i)\n"
        "match cmd(1):\n    case [x, y] if y.item():\n        f(x)\n    case {'k': v}:\n        pass\n"
        "    case Point(x=0):\n        pass\n"
    ),
    "tabs-and-formfeed": "if x:\n\tif y:\n\t\tz = f(1)\n\x0c\ndef g():\n\treturn h(\n\t\t2)\n",
    "crlf": "def f(x):\r\n    if x:\r\n        return g(\r\n            x)\r\n",
    "comments-everywhere": (
        "def f(\n    a,  # first\n    b=g(1),  # second\n):  # header\n    # body\n    return (  # open\n"
        "        a.item()  # inner\n    )\n"
    ),
    "walrus-star-slices": (
        "if (n := len(x)) > 0:\n    a, *b = x[1:n, ::2, f(1):]\n    print(*a, **b)\n"
        "y = x[mask] if x[0].item() else x[..., None]\n"
    ),
}


#: Statement containers: no position asked (see ``walk.Positions``).
CONTAINERS = (cst.Module, cst.IndentedBlock, cst.Else, cst.Finally, cst.MatchCase)


class _Recorder(cst.CSTVisitor):
    """Records every node libcst's own traversal visits."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.seen.append(node)
        return True


class _AskEverything:
    """A visitor for ``fast_visit`` that asks the position of every node it visits."""

    def __init__(self) -> None:
        self.seen: list[cst.CSTNode] = []
        self.asked: list[tuple[cst.CSTNode, object]] = []

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        if name.startswith("visit_"):
            return self._visit
        raise AttributeError(name)

    def _visit(self, node: cst.CSTNode) -> None:
        self.seen.append(node)
        if isinstance(node, CONTAINERS):
            return
        self.asked.append((node, self.metadata[PositionProvider][node]))  # type: ignore[attr-defined]


def _expected(module: cst.Module) -> dict[cst.CSTNode, object]:
    return dict(MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider))


def _walk(source: str) -> tuple[cst.Module, _AskEverything, walk.Positions]:
    module = cst.parse_module(source)
    visitor = _AskEverything()
    positions = walk.fast_visit(module, visitor, source)  # type: ignore[arg-type]
    return module, visitor, positions


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_walk_visits_libcst_nodes_in_libcst_order(name: str) -> None:
    source = SNIPPETS[name]
    module, visitor, _ = _walk(source)
    recorder = _Recorder()
    module.visit(recorder)
    skipped = (cst.BaseParenthesizableWhitespace, cst.Comment, cst.Newline, cst.EmptyLine, cst.TrailingWhitespace,
               cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace,
               cst.RightCurlyBrace, cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual, cst.Asynchronous,
               cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp, cst.ParamSlash)
    relevant = [n for n in recorder.seen if not isinstance(n, skipped)]
    assert [type(n).__name__ for n in visitor.seen] == [type(n).__name__ for n in relevant]
    assert all(a is b for a, b in zip(visitor.seen, relevant))


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_positions_equal_position_provider(name: str) -> None:
    source = SNIPPETS[name]
    module, visitor, positions = _walk(source)
    expected = _expected(module)
    wrong = [(type(n).__name__, module.code_for_node(n)[:40], got, expected[n])
             for n, got in visitor.asked if got != expected[n]]
    assert wrong == []
    assert positions.fallback_reason == ""


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_line_lookup_equals_position_provider(name: str) -> None:
    source = SNIPPETS[name]
    module = cst.parse_module(source)
    expected = _expected(module)
    got: list[tuple[cst.CSTNode, tuple[int, int]]] = []

    class LinesOnly:
        def __getattr__(self, attr: str):  # type: ignore[no-untyped-def]
            if attr.startswith("visit_"):
                return lambda node: None if isinstance(node, CONTAINERS) else got.append(
                    (node, self.metadata[PositionProvider].lines(node)))  # type: ignore[attr-defined]
            raise AttributeError(attr)

    walk.fast_visit(module, LinesOnly(), source)  # type: ignore[arg-type]
    wrong = [(type(n).__name__, lines, (expected[n].start.line, expected[n].end.line))  # type: ignore[attr-defined]
             for n, lines in got if lines != (expected[n].start.line, expected[n].end.line)]  # type: ignore[attr-defined]
    assert wrong == []


def test_ast_byte_columns_become_character_columns() -> None:
    source = "s = 'é'; t = f(1)\n"
    module, visitor, _ = _walk(source)
    assign_t = module.body[0].body[1]  # type: ignore[attr-defined]
    expected = _expected(module)
    assert dict(visitor.asked)[assign_t] == expected[assign_t]
    assert expected[assign_t].start.column == 9  # type: ignore[attr-defined]


def test_child_field_table_matches_libcst_visit_order() -> None:
    """Every table entry names real fields in the order libcst's ``_visit_and_replace_children``
    first touches them (a libcst upgrade that reorders fields fails here)."""
    by_name = {c.__name__: c for c in _all_node_classes()}
    for name, fields in walk._CHILD_FIELDS.items():
        cls = by_name.get(name)
        if cls is None:
            continue
        assert set(fields) <= set(cls.__dataclass_fields__), name
        try:
            source = inspect.getsource(cls._visit_and_replace_children)
        except (OSError, TypeError):
            continue
        positions = [source.find(f'"{f}"') if f'"{f}"' in source else source.find(f"self.{f}") for f in fields]
        assert all(p >= 0 for p in positions), (name, fields)
        assert positions == sorted(positions), (name, fields, positions)


def _all_node_classes() -> list[type]:
    out, todo = [], [cst.CSTNode]
    while todo:
        c = todo.pop()
        for s in c.__subclasses__():
            out.append(s)
            todo.append(s)
    return out


#: Real-shaped files shipped with the tests (field cases, fixture projects, stub sources).
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_positions_on_real_files_equal_position_provider() -> None:
    files = sorted(FIXTURES.rglob("*.py"))[:24]
    assert files
    for path in files:
        source = path.read_text(encoding="utf-8")
        module, visitor, positions = _walk(source)
        expected = _expected(module)
        wrong = [(type(n).__name__, got, expected[n]) for n, got in visitor.asked if got != expected[n]]
        assert wrong == [], path
        assert positions.fallback_reason == "", path


_KEPT_SCRIPT = r"""
import sys
from pathlib import Path
from migrate_lens import cache
from migrate_lens.analysis import walk
from migrate_lens.onefile import analyze_file
from migrate_lens.worker import catalog_and_index

root = Path(sys.argv[1])
catalog, index = catalog_and_index(())
files = sorted(root.rglob("*.py"))
def run():
    return [cache.encode(analyze_file(p.read_bytes(), p.relative_to(root).as_posix(), "m", catalog, index)) for p in files]
swapped = run()
import libcst as cst
stock_init = cst.Name.__init__
walk.keep_fast_constructors()
kept = run()
assert cst.Name.__init__ is not stock_init  # installed for good
assert kept == swapped, "facts differ between the swapped and the kept constructors"
print(len(files))
"""


def test_kept_constructors_give_the_same_facts_as_swapped_ones() -> None:
    # A scan's workers keep the unvalidated constructors installed (worker.init_worker); the
    # pre-commit check and the tests swap them around each parse. Both must analyze alike. Run
    # in a child process: keeping them is for the life of the process.
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent / "fixtures" / "projects" / "layered"
    out = subprocess.run([sys.executable, "-c", _KEPT_SCRIPT, str(root)], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parent.parent)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) >= 5
