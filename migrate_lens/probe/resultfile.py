"""The types of ``probe.json`` as :mod:`migrate_lens.probe.runner` writes it, for checking a
file read back (``scan --probe-results``) before the cross-check reads it
(:func:`migrate_lens.probe.cli.probe_results_problem`). msgspec Structs: ``msgspec.convert``
checks every field's type and names the first wrong one (``$.facts[0].line``). Extra fields
are allowed; a missing optional one takes the runner's empty value. No torch here."""

from __future__ import annotations

import msgspec


class Site(msgspec.Struct, frozen=True):
    """A source line inside the probed root (POSIX path relative to it, 1-based line)."""

    path: str
    line: int


class Fact(msgspec.Struct, frozen=True):
    """One runtime fact (see docs/probe.md, "What is recorded")."""

    kind: str
    category: str
    path: str
    line: int
    op: str = ""
    detail: str = ""
    also_at: tuple[Site, ...] = ()
    count: int = 1
    modes: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()


class Run(msgspec.Struct, frozen=True):
    """One example run in one mode."""

    name: str
    mode: str
    status: str
    module: str = ""
    error: str = ""
    ops: int = 0
    graph_breaks: int | None = None
    export: str = ""
    state_written: tuple[str, ...] = ()


class Tool(msgspec.Struct, frozen=True):
    """The writing tool."""

    version: str = ""


class ProbeResults(msgspec.Struct, frozen=True):
    """The whole ``probe.json`` document."""

    root: str
    facts: tuple[Fact, ...]
    examples: tuple[Run, ...]
    lines_run: dict[str, tuple[int, ...]] = {}
    torch_version: str = ""
    modes: tuple[str, ...] = ()
    tool: Tool = Tool()
