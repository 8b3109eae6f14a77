"""Kinds of error found by the expert review of a fresh package, stable-baselines3 2.9.2
(/work/notes/fresh-sb3.md), each with a flagged and a clean side:

- numbers computed by numpy from a shape (``np.argmin(observation_space.shape).item()``) are
  static, as the shape is; numpy of tensor data stays a host value;
- a rule written for traced code alone (contexts ``traced`` only: a NumPy draw frozen at trace
  time) does not follow its function into host glue, where nothing is traced;
- ``sample`` names generation glue only on a model (``GenerationMixin`` is mixed into it): a
  distribution's or a replay buffer's ``sample()`` is no decoding loop;
- what a ``self`` attribute was built by (``self.distribution = Normal(...)`` in another
  method, ``distribution: Normal`` in a base class body) is the receiver's constructor of
  ``self.distribution.rsample()``, and a ``torch.distributions`` object built from tensors
  holds tensor state.
"""

from __future__ import annotations

from helpers_analysis import findings, lines_of

from migrate_lens.analysis.summaries import SummaryBuilder
from migrate_lens.interproc import applies_in

SHAPE_NUMBERS = '''
import numpy as np
import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        n = np.prod(x.shape[1:]).item()
        if n > 4:
            x = x * 2
        smallest = np.argmin(x.shape).item()
        if smallest == 0:
            x = x + 1
        k = np.argmax(x.detach().cpu().numpy()).item()
        if k > 1:  # expect
            x = x - 1
        return x
'''


def _line_of(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), start=1) if text in line)


def test_numpy_of_a_shape_is_static_numpy_of_tensor_data_is_not(catalog) -> None:
    found = findings(SHAPE_NUMBERS, catalog)
    assert lines_of(found, "ML102") == {_line_of(SHAPE_NUMBERS, "# expect")}
    assert lines_of(found, "ML509") == {_line_of(SHAPE_NUMBERS, "np.argmax(")}  # the .cpu() read-back


def test_a_traced_only_rule_does_not_follow_into_host_glue(catalog) -> None:
    rules = catalog.by_code()
    assert rules["ML607"].matcher.contexts == ("traced",)
    assert not applies_in(rules["ML607"], "host")  # NumPy draws stay NumPy on the host
    assert applies_in(rules["ML607"], "traced")
    assert applies_in(rules["ML601"], "host")  # torch's global RNG still needs keys in host glue
    assert not applies_in(rules["ML101"], "host")  # a trace-only category, as before


def test_sample_is_generation_glue_only_on_a_model() -> None:
    def role(name: str, in_module: bool) -> str:
        s = SummaryBuilder(f"m.C.{name}", name, "function", in_module=in_module).finish()
        return s.role if s is not None else ""

    # an old GenerationMixin.sample: host glue where the trace does not reach it, a weak role
    # ("draw"), since a policy's sample() is what a training step calls (SAC's update step)
    assert role("sample", in_module=True) == "draw"
    assert role("sample", in_module=False) == ""  # Distribution.sample, ReplayBuffer.sample
    assert role("generate", in_module=False) == "generation"  # unambiguous names keep their role
    assert role("_sample", in_module=False) == "generation"
    # a module-level function of a generation name (vLLM's `_sample(probs, ...)` helper of
    # Sampler.forward) is no GenerationMixin method: weak as well
    free = SummaryBuilder("m._sample", "_sample", "function", free=True).finish()
    assert free is not None and free.role == "draw"


DISTRIBUTION_ATTR = '''
import torch
import torch.nn as nn
from torch.distributions import Categorical, Normal


class Base:
    distribution: Normal


class Gaussian(Base):
    def sample(self):
        return self.distribution.rsample()  # expect


class Cat:
    def set(self, logits):
        self.dist = Categorical(logits=logits)
        self.prior = Normal(0.0, 1.0)

    def sample(self):
        return self.dist.sample(), self.prior.log_prob(torch.zeros(1))  # expect


class Sampler:
    def __init__(self, n):
        self.n = n

    def sample(self):
        return self.n


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.dist = Cat()
        self.sampler = Sampler(3)

    def forward(self, x):
        self.dist.set(x)
        self.last = Normal(x, torch.ones_like(x))
        self.unit = Normal(0.0, 1.0)
        return self.dist.sample()[0][: self.sampler.sample()]
'''


def test_a_distribution_held_by_a_self_attribute_is_the_receiver_of_its_draws(catalog) -> None:
    found = findings(DISTRIBUTION_ATTR, catalog)
    assert lines_of(found, "ML609") == {i for i, line in enumerate(DISTRIBUTION_ATTR.splitlines(), start=1)
                                        if "# expect" in line}
    # built from tensors in forward: tensor state on self; of two Python numbers: a static value
    state = {(f.span.line, f.code) for f in found if f.code in ("ML706", "ML709")}
    assert state == {(_line_of(DISTRIBUTION_ATTR, "self.last = Normal"), "ML706"),
                     (_line_of(DISTRIBUTION_ATTR, "self.unit = Normal"), "ML709")}
