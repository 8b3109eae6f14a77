"""Per-function summaries: the compact facts about one function that the project-level step
(:mod:`migrate_lens.interproc`) combines across files, computed during the single traversal.

A summary never holds a CST node. It says what role the function plays once the code runs
under JAX:

- ``train-step``: it computes a loss and steps the weights (``loss.backward()``,
  ``optimizer.step()``, ``accelerator.backward(loss)``) outside any loop, or it is a
  framework's per-batch hook (Lightning ``training_step``, ``on_train_batch_end``, ...).
  After the port this becomes one ``jax.jit``-ed step: it is traced code;
- ``train-loop``: it does the same inside a ``for``/``while`` loop (an epoch loop). The loop
  itself stays on the host and drives the jitted step; the functions it calls run in it;
- ``generation``: generation glue (``generate``, ``prepare_inputs_for_generation``, a decoding
  loop that calls the model): host code that drives a jitted model step.

The role is read from calls and names only (sources: the PyTorch training loop idiom
``loss.backward(); optimizer.step()``, Lightning's ``LightningModule`` hook names, Hugging
Face ``GenerationMixin`` method names).
"""

from __future__ import annotations

import re
from migrate_lens.models import CallFlow, Flow, FunctionSummary

ROLES = ("", "train-step", "train-loop", "generation")

#: Framework hooks run once per batch inside the training step (Lightning ``LightningModule``
#: and ``Callback`` hooks; Accelerate/Ignite style ``train_step``/``update``-named steps are
#: found from their calls instead).
STEP_HOOK_NAMES = frozenset({
    "training_step", "validation_step", "test_step", "predict_step",
    "on_train_batch_start", "on_train_batch_end", "on_validation_batch_end",
    "on_before_backward", "on_after_backward", "on_before_optimizer_step",
    "on_before_zero_grad",
})
#: Hugging Face generation glue and decoding loops (``GenerationMixin``).
GENERATION_NAMES = frozenset({
    "generate", "prepare_inputs_for_generation", "_update_model_kwargs_for_generation",
    "_sample", "sample", "greedy_search", "_greedy_search", "beam_search", "_beam_search",
    "beam_sample", "_beam_sample", "contrastive_search", "_contrastive_search",
    "group_beam_search", "_assisted_decoding", "assisted_decoding", "_dola_decoding",
    "generate_step", "_prepare_cache_for_generation", "_prepare_attention_mask_for_generation",
    "_expand_inputs_for_generation", "_reorder_cache", "stream_generate",
})
#: A receiver that holds an optimizer (``optimizer``, ``self.optim``, ``opt_g``, ``scaler``
#: stepping one).
_OPTIMIZER_RECEIVER = re.compile(r"(^|[._])(optim\w*|opt(_\w+)?|\w*optimizer\w*|scaler)$", re.IGNORECASE)
#: Callees that run backpropagation.
_BACKWARD_CALLEES = frozenset({"torch.autograd.backward"})


def is_training_call(name: str, method: str, receiver_text: str) -> bool:
    """Whether a call steps training: ``<x>.backward(...)`` on any receiver (a loss,
    ``scaler.scale(loss)``, ``accelerator``/``fabric``/``self.manual_backward``),
    ``torch.autograd.backward(...)``, or ``step``/``zero_grad`` on an optimizer-named receiver.
    ``name`` is the resolved callee ("" when unresolved), ``method`` the attribute called,
    ``receiver_text`` the receiver's dotted source text ("" when not a name chain)."""
    if method in ("backward", "manual_backward"):
        return True
    if name in _BACKWARD_CALLEES:
        return True
    return method in ("step", "zero_grad") and bool(_OPTIMIZER_RECEIVER.search(receiver_text))


def is_model_call(name: str, method: str, receiver_text: str) -> bool:
    """``self(...)``, ``self.forward(...)``, ``model(...)``, ``self.model(...)``: a call of the
    model itself (what a decoding loop repeats)."""
    if name in ("self", "self.forward", "self.__call__", "self.model", "model"):
        return True
    return receiver_text in ("self.model", "model") and method in ("forward", "__call__")


class SummaryBuilder:
    """Collects one function's summary during the traversal: the visitor calls
    :meth:`call` for the calls that may step training or call the model (``in_loop``: inside a
    ``for``/``while`` of this function), :meth:`loop_call` for every resolved call inside a
    loop, and :meth:`finish` when it leaves the function."""

    __slots__ = ("qualname", "name", "context", "steps", "loop_steps", "loop_model_calls", "loop_names")

    def __init__(self, qualname: str, name: str, context: str) -> None:
        self.qualname = qualname
        self.name = name
        self.context = context
        self.steps = 0
        self.loop_steps = 0
        self.loop_model_calls = 0
        self.loop_names: set[str] = set()

    def loop_call(self, name: str) -> None:
        """A call of the dotted ``name`` inside one of this function's loops."""
        self.loop_names.add(name.rsplit(".", 1)[-1])

    def call(self, name: str, method: str, receiver_text: str, in_loop: bool) -> None:
        if is_training_call(name, method, receiver_text):
            if in_loop:
                self.loop_steps += 1
            else:
                self.steps += 1
        elif in_loop and is_model_call(name, method, receiver_text):
            self.loop_model_calls += 1

    def finish(self) -> FunctionSummary | None:
        """The summary, or None when the function plays no particular role."""
        role = ""
        if self.name in GENERATION_NAMES:
            role = "generation"
        elif self.loop_steps:
            role = "train-loop"
        elif self.steps or self.name in STEP_HOOK_NAMES:
            role = "train-step"
        elif self.loop_model_calls and self.context != "traced":
            role = "generation"  # a decoding loop outside forward calling the model
        if not role:
            return None
        return FunctionSummary(self.qualname, role, frozenset(self.loop_names) if role == "train-loop" else frozenset())
