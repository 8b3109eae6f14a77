"""migrate_lens.wrappers: a call of a project wrapper as the library call it makes."""

from migrate_lens.models import NONLITERAL, WrapperFact
from migrate_lens.wrappers import through_member_wrapper, through_wrapper

RESIZE = WrapperFact(qualname="pkg.ops.resize", callee="torch.nn.functional.interpolate",
                     params=("input", "size", "mode", "align_corners"),
                     args=("p:input", "p:size", "None", "p:mode", "p:align_corners"), kwargs=(), line=3)
NORM = WrapperFact(qualname="pkg.utils.get_norm", callee="torch.nn", params=("kind", "channels"),
                   args=("p:channels",), kwargs=(("eps", "1e-3"),), line=5, member="kind")


def test_literals_reach_the_library_call() -> None:
    got = through_wrapper(RESIZE, (("T", NONLITERAL), ("S", "(2, 2)")), (("mode", "S", "'bilinear'"),))
    assert got is not None
    args, kwargs = got
    assert args == (("T", NONLITERAL), ("S", "(2, 2)"), ("S", "None"), ("S", "'bilinear'"), ("U", NONLITERAL))
    assert kwargs == ()


def test_no_literal_argument_is_no_match() -> None:
    assert through_wrapper(RESIZE, (("T", NONLITERAL),), ()) is None


def test_member_named_by_a_literal_positional_or_keyword() -> None:
    got = through_member_wrapper(NORM, (("S", "'BatchNorm2d'"), ("S", "64")), ())
    assert got == ("torch.nn.BatchNorm2d", (("S", "64"),), (("eps", "S", "1e-3"),))
    by_kw = through_member_wrapper(NORM, (), (("kind", "S", "'LayerNorm'"), ("channels", "S", "8")))
    assert by_kw is not None and by_kw[0] == "torch.nn.LayerNorm"


def test_member_not_named_by_a_usable_literal() -> None:
    for text in (NONLITERAL, "3", "'not a name'", "'Batch' 'Norm'(", ""):
        assert through_member_wrapper(NORM, (("S", text), ("S", "8")), ()) is None
    assert through_member_wrapper(RESIZE, (("S", "'x'"),), ()) is None  # a fixed callee
