"""The one severity table: a rule's failure mode x the context of the code -> the highest
severity a finding may carry there.

Every rule file states its **failure mode** (``failure``), what happens to a port that keeps
the PyTorch construct as it is:

- ``error``: raises under ``jax.jit`` or at conversion (``TracerBoolConversionError``,
  ``ConcretizationTypeError``, ``NonConcreteBooleanIndexError``, immutable array assignment,
  an op with nothing to call);
- ``retrace``: runs, but compiles again for every new shape or value (seconds to minutes each);
- ``silent``: runs and gives different numbers, or loses state (frozen random draws, leaked
  tracers, other defaults);
- ``rewrite``: a mechanical change with no failure if forgotten: the port simply would not
  compile as written, or the fix is one idiom.

The table gives, per failure mode and context (:data:`migrate_lens.models.CONTEXTS`), the
*ceiling*: a rule declares its severity for traced code (``severity``, at most the ``traced``
ceiling) and may declare a lower one for init code (``init_severity``); a finding's severity is
the declared one capped by the ceiling of its context (:func:`severity_in`). ``high`` and
``critical`` exist only for ``error`` and ``silent`` in traced code; ``critical`` only for
``error`` (no JAX route). Init code (constructors, weight init: runs once, eagerly) and host
code (module level, scripts) sit lower: a boolean mask in ``__init__`` works in eager JAX.
Two exceptions by design, both in the table: a ``silent`` difference declared in init code
(``nn.LayerNorm(d)``'s eps, BatchNorm's momentum) shows up in every traced call, so it keeps
``medium`` there; a ``retrace`` site usually sits in host code (the data pipeline decides the
shapes the step sees), so it keeps ``medium`` there.

A rule whose ``anchor`` is ``use`` marks a declaration (an import, a kernel load, an
``autograd.Function`` class, a native source file) whose obstacle is wherever it is used:
its findings take the ``traced`` column whatever context the declaration sits in.

Source of the definitions: issue 15 ("Rule catalog v2") and the expert review of the core
scan (``shared/reviews/core-findings-review.md``, section 7).
"""

from __future__ import annotations

from migrate_lens.models import CONTEXTS, SEVERITIES

#: What a port that keeps the construct does (see the module docstring).
FAILURE_MODES: tuple[str, ...] = ("error", "retrace", "silent", "rewrite")

#: ``site``: severity follows the context of the flagged code; ``use``: a declaration whose
#: obstacle is where it is used (the ``traced`` column applies).
ANCHORS: tuple[str, ...] = ("site", "use")

#: failure mode -> context -> the highest severity allowed there.
CEILING: dict[str, dict[str, str]] = {
    "error":   {"traced": "critical", "function": "medium", "init": "low", "host": "low"},
    "silent":  {"traced": "high", "function": "medium", "init": "medium", "host": "low"},
    "retrace": {"traced": "medium", "function": "medium", "init": "low", "host": "medium"},
    "rewrite": {"traced": "medium", "function": "medium", "init": "low", "host": "low"},
}

#: One line per failure mode for the docs (``docs/rules.md``).
FAILURE_DOC: dict[str, str] = {
    "error": "raises under `jax.jit` or at conversion (tracer bool conversion, concretization, "
             "immutable array assignment, an op with nothing to call)",
    "retrace": "runs, but compiles again for every new shape or value",
    "silent": "runs and gives different numbers, or loses state",
    "rewrite": "a mechanical change with no failure if forgotten: the port would not compile "
               "as written, or the fix is one idiom",
}

assert set(CEILING) == set(FAILURE_MODES) and all(set(row) == set(CONTEXTS) for row in CEILING.values())


def cap(severity: str, ceiling: str) -> str:
    """The lower of two severities (:data:`SEVERITIES` order). Raises ValueError if unknown."""
    return severity if SEVERITIES.index(severity) <= SEVERITIES.index(ceiling) else ceiling


def severity_in(failure: str, anchor: str, severity: str, init_severity: str, context: str) -> str:
    """A finding's severity: the rule's declared ``severity`` (``init_severity`` in init
    code) capped by :data:`CEILING` for ``failure`` in ``context`` (``traced`` for a
    ``use``-anchored rule). Raises KeyError for an unknown failure mode or context."""
    ctx = "traced" if anchor == "use" else context
    declared = init_severity if ctx == "init" else severity
    return cap(declared, CEILING[failure][ctx])
