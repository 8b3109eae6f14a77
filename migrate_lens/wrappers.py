"""Calls through library wrappers: a call of a project function that hands its parameters on to
a library call (:class:`~migrate_lens.models.WrapperFact`) is matched as that library call with
the caller's literal arguments (mmseg's ``resize(x, size=s, mode="bilinear",
align_corners=True)`` is ``F.interpolate(x, s, None, "bilinear", True)``).

Plain data in, plain data out, used by the project graph for every call of a wrapper (the
per-file stage records calls of wrappers defined earlier in the same file for it). Arguments are (value kind,
literal repr) pairs as in :class:`~migrate_lens.models.CallSiteFact` (a non-literal is
:data:`~migrate_lens.models.NONLITERAL`).
"""

from __future__ import annotations

import ast

from migrate_lens.models import NONLITERAL, WrapperFact

#: value kind given to a wrapper's own literals
_STATIC = "S"
#: value kind of an argument the wrapper computes (neither a parameter nor a literal)
_UNKNOWN = "U"


def through_wrapper(wrapper: WrapperFact, args: tuple[tuple[str, str], ...],
                    kwargs: tuple[tuple[str, str, str], ...]
                    ) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str, str], ...]] | None:
    """The library call's (args, kwargs) for a call of ``wrapper`` with ``args`` (positional
    (kind, literal repr) pairs) and ``kwargs`` ((keyword, kind, literal repr) triples): each
    parameter the library call takes as it came gets the caller's value; one the caller leaves
    out is a non-literal (its default is what the wrapper's own call site was matched with, so
    a finding the default causes is reported there, once). None when the caller passes no
    literal to any such parameter."""
    given = _given(wrapper, args, kwargs)
    if not any(given.get(src[2:], ("", NONLITERAL))[1] != NONLITERAL for src in _sources(wrapper)):
        return None
    return _library_call(wrapper, given)


def through_member_wrapper(wrapper: WrapperFact, args: tuple[tuple[str, str], ...],
                           kwargs: tuple[tuple[str, str, str], ...]
                           ) -> tuple[str, tuple[tuple[str, str], ...], tuple[tuple[str, str, str], ...]] | None:
    """For a wrapper that calls a member of a library module by a name it is given
    (``def make_norm(name, dim): return getattr(nn, name)(dim)``, :attr:`WrapperFact.member`):
    (the member's dotted name, args, kwargs) of the call ``make_norm("LayerNorm", d)`` makes,
    the other parameters as :func:`through_wrapper` gives them. None unless the caller passes
    the name as a string literal naming an identifier."""
    if not wrapper.member:
        return None
    text = ""
    if wrapper.member in wrapper.params:
        i = wrapper.params.index(wrapper.member)
        if i < len(args):
            text = args[i][1]
    for kw, _, value in kwargs:
        if kw == wrapper.member:
            text = value
    try:
        name = ast.literal_eval(text) if text and text != NONLITERAL else None
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if type(name) is not str or not name.isidentifier():
        return None
    got = _library_call(wrapper, _given(wrapper, args, kwargs))
    return f"{wrapper.callee}.{name}", got[0], got[1]


def _given(wrapper: WrapperFact, args: tuple[tuple[str, str], ...],
           kwargs: tuple[tuple[str, str, str], ...]) -> dict[str, tuple[str, str]]:
    """The caller's arguments by the wrapper's parameter names: parameter -> (kind, literal repr)."""
    given: dict[str, tuple[str, str]] = {}
    for i, value in enumerate(args):
        if i < len(wrapper.params):
            given[wrapper.params[i]] = value
    for kw, kind, text in kwargs:
        given[kw] = (kind, text)
    return given


def blind(wrapper: WrapperFact) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str, str], ...]]:
    """The library call's (args, kwargs) with every parameter the wrapper passes on unknown:
    what a rule finds there is the wrapper's own (reported at its line), not the caller's."""
    return _library_call(wrapper, {})


def _library_call(wrapper: WrapperFact, given: dict[str, tuple[str, str]]
                  ) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str, str], ...]]:
    """The library call's (args, kwargs): a passed-on parameter takes its value in ``given``
    (parameter -> (kind, literal repr)), unknown when absent; the wrapper's literals are static."""
    def value(src: str) -> tuple[str, str]:
        if src.startswith("p:"):
            return given.get(src[2:], (_UNKNOWN, NONLITERAL))
        return (_STATIC, src) if src != NONLITERAL else (_UNKNOWN, NONLITERAL)

    return tuple(value(src) for src in wrapper.args), tuple((kw, *value(src)) for kw, src in wrapper.kwargs)  # type: ignore[misc]


def _sources(wrapper: WrapperFact) -> list[str]:
    """The library call's arguments that are the wrapper's parameters as they came."""
    return [src for src in (*wrapper.args, *(src for _, src in wrapper.kwargs)) if src.startswith("p:")]
