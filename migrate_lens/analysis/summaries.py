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
  loop that calls the model): host code that drives a jitted model step;
- ``weight-surgery``: a method of an ``nn.Module`` whose name does not decide its context and
  that rewrites parameter storage (``base_layer.weight.data += delta``, ``self.conv.weight.data
  = fused``): merging an adapter into the base weights, fusing a BatchNorm, re-parameterizing a
  block for deployment, whatever the method's name (the visitor already takes ``fuse*`` and
  ``reparameterize*`` for init code by name). It runs eagerly on concrete weights (the port
  does it once on the arrays, or in the weight converter), so it is init code unless forward
  reaches it.
- ``decode-loop``: a loop outside traced code that calls a model object's methods
  (``self.model.decoder(tokens, ...)``, ``model.decode(segment)``) or, in the same file, a
  function that does (whisper's ``DecodingTask._main_loop`` calling ``self.inference.logits``):
  host code as well, but what ``forward`` reaches stays traced (the role does not stop traced
  reachability, see :func:`migrate_lens.interproc.function_contexts`).
- ``draw``: a ``sample()`` that returns what it drew (a policy's action draw): host glue unless
  traced code reaches it (SAC's update step calls ``policy.sample(state)``); unlike a loop, its
  callers are not host for calling it.
- ``sampling-loop``: a ``decode-loop`` (or a ``generate``/``sample`` function) whose model calls
  sit in a counted loop (``for i in range(steps)``, ``while``), not in one over data (``for x,
  y in loader``): a decoding or sampling loop stepping the model's output, which a JAX port
  usually compiles whole (``lax.while_loop``); its hazards stay reported as low host notes
  (:func:`migrate_lens.interproc.in_host_loop`).
- ``placement``: moves whole models between devices or wraps them for distributed training
  (``unet.to("cpu")`` for the parts not in use, ``self.accelerator.prepare(unet, opt)``): host
  glue around the step (CPU offloading, wrappers), whoever calls it.
- a training step that fetches its own batches (``wave, = next(self.dl_iter)``) is a
  ``train-loop``: one iteration of the host loop around the step (audiolm-pytorch's trainers).
- ``plotting``: a function outside ``forward`` that draws with matplotlib (``plt.subplots()``,
  ``matplotlib.pyplot.figure()``, its own ``import matplotlib.pyplot as plt`` included): a
  figure needs concrete arrays, so no port draws it inside a jitted step; a training step
  that logs a figure every ``log_interval`` batches (pytorch-forecasting's
  ``log_prediction`` -> ``plot_prediction``) hands the step's outputs to it on the host. Its
  read-backs (``y_hat.detach().cpu()``) are the plot's own host code, not the step's: the
  role stops traced reachability like generation glue; the logging call that hands over the
  figure (``add_figure``) stays where it is.

The role is read from calls and names only (sources: the PyTorch training loop idiom
``loss.backward(); optimizer.step()``, Lightning's ``LightningModule`` hook names, Hugging
Face ``GenerationMixin`` method names).
"""

from __future__ import annotations

import re
import sys

from migrate_lens.models import CallFlow, Flow, FunctionSummary

ROLES = ("", "train-step", "train-loop", "generation", "weight-surgery", "decode-loop", "sampling-loop", "plotting",
         "placement", "draw", "data-pipeline")

#: Framework hooks run once per batch inside the training step (Lightning ``LightningModule``
#: and ``Callback`` hooks, Hugging Face ``Trainer`` overrides; Accelerate/Ignite style ``train_step``/``update``-named steps are
#: found from their calls instead).
STEP_HOOK_NAMES = frozenset({
    "training_step", "validation_step", "test_step", "predict_step",
    "on_train_batch_start", "on_train_batch_end", "on_validation_batch_end",
    "on_before_backward", "on_after_backward", "on_before_optimizer_step",
    "on_before_zero_grad",
    # Hugging Face ``Trainer`` (and trl's trainers): the per-batch loss and evaluation steps a
    # subclass overrides; the trainer's loop calls them, backward runs in ``training_step``
    "compute_loss", "prediction_step",
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
#: Generation names that other code uses for other things: ``sample`` is also a
#: ``torch.distributions``-style object's draw, a replay buffer's minibatch, a sampler's
#: method. They name generation glue only as a method of an ``nn.Module`` (``GenerationMixin``
#: is mixed into the model); elsewhere the function's calls decide (a decoding loop).
AMBIGUOUS_GENERATION_NAMES = frozenset({"sample"})
#: Method names of a module's sampling/decoding drivers besides :data:`GENERATION_NAMES`
#: (diffusion samplers, generators, rollouts; not ``decode``, a VAE's model code):
#: ``p_sample_loop``, ``ddim_sample``, ``sample_using_dpmpp``, ``generate_images``, ``denoise``.
SAMPLING_NAME = re.compile(r"(^|_)(sample|sampling|generate|denoise|rollout)(_|s?$)|_loop$")
#: A receiver that holds an optimizer (``optimizer``, ``self.optim``, ``opt_g``, ``scaler``
#: stepping one).
_OPTIMIZER_RECEIVER = re.compile(r"(^|[._])(optim\w*|opt(_\w+)?|\w*optimizer\w*|scaler)$", re.IGNORECASE)
#: A receiver that holds a loss scaler (``scaler``, ``self.grad_scaler``): its ``update()``
#: after ``scaler.step(opt)`` still belongs to the step (the dynamic loss scale).
_SCALER_RECEIVER = re.compile(r"(^|[._])\w*scaler$", re.IGNORECASE)
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


#: the first argument of ``next(...)`` that names a data source (``self.dl_iter``, ``train_loader``)
_BATCH_SOURCE = re.compile(r"(^|[._])(dl|dataloader|loader|data_?iter|dl_?iter|train_?iter|iterator|batches)(_?iter)?$",
                           re.IGNORECASE)


def is_model_call(name: str, method: str, receiver_text: str) -> bool:
    """``self(...)``, ``self.forward(...)``, ``model(...)``, ``self.model(...)``: a call of the
    model itself (what a decoding loop repeats)."""
    if name in ("self", "self.forward", "self.__call__", "self.model", "model"):
        return True
    return receiver_text in ("self.model", "model") and method in ("forward", "__call__")


#: ``nn.Module`` housekeeping a loop may call on a model without running it.
_MODEL_HOUSEKEEPING = frozenset({
    "eval", "train", "to", "cuda", "cpu", "half", "float", "double", "bfloat16", "parameters",
    "named_parameters", "buffers", "named_buffers", "modules", "named_modules", "children",
    "named_children", "state_dict", "load_state_dict", "zero_grad", "requires_grad_", "apply",
    "register_buffer", "register_forward_hook", "register_forward_pre_hook", "save_pretrained",
    "get_input_embeddings", "get_output_embeddings", "tie_weights", "type", "share_memory",
})


#: Method names of a model's housekeeping by their prefix: accessors, setters, weight loading
#: and surgery, private helpers (``model.get_submodule(k)``, ``model._try_load_missing...``).
_HOUSEKEEPING_PREFIX = re.compile(r"^(_|get_|set_|reset_|register_|named_|load_|save_|init_|tie_|resize_|prune_|"
                                  r"enable_|disable_|from_)")


def is_model_use(method: str, receiver_text: str) -> bool:
    """A method of a model object run for its result: ``self.model.decoder(tokens)``,
    ``model.decode(segment)``, ``self.model.logits(x)`` (receiver ``model``, ``self.model`` or
    ``<x>.model``), not its housekeeping (``model.eval()``, ``model.parameters()``,
    ``model.get_submodule(k)``, ``model.load_pretrained(path)``)."""
    return bool(method) and method not in _MODEL_HOUSEKEEPING and not _HOUSEKEEPING_PREFIX.match(method) and (
        receiver_text in ("model", "self.model") or receiver_text.endswith(".model"))


class SummaryBuilder:
    """Collects one function's summary during the traversal: the visitor calls
    :meth:`enter_loop`/:meth:`leave_loop` around each ``for``/``while`` of the function,
    :meth:`call` for the calls that may step training or call the model (``in_loop``: inside a
    loop of this function), :meth:`loop_call` for every resolved call inside a loop, and
    :meth:`finish` when it leaves the function.

    A training loop's *step loop* is the loop that holds its ``backward()``/``optimizer.step()``
    (the innermost one holding each such call; ``zero_grad`` alone counts only when nothing
    else steps): in ``for epoch ...: for batch in loader: ...; loss.backward(); opt.step()``
    it is the per-batch loop. Only the calls inside it are the step; what the epoch loop calls
    around it (validation, checkpointing, the scheduler) stays host code.

    The step ends at the step loop's last ``backward()``/``optimizer.step()`` (or
    ``scaler.update()``): what the loop body runs after it (the progress meters, ``loss.item()``
    for the log line, ``tb_writer.add_scalar``, ``optimizer.param_groups[0]["lr"]`` read for
    printing) reads the finished step's results on the host once the port has cut the body into
    a jitted step, so neither its calls (:meth:`finish`) nor its findings
    (:meth:`step_loop_ends`) are the step. A loop stepped only by ``zero_grad()`` keeps its
    whole body."""

    __slots__ = ("qualname", "name", "free", "context", "in_module", "module_method", "hooks", "weight_writes", "steps", "loop_steps",
                 "loop_opt_steps", "opt_steps", "loop_model_calls", "loop_names", "model_uses", "loop_model_uses", "_path", "_targets", "_next_loop",
                 "_counted", "counted_model_calls", "placements", "fetches",
                 "_strong", "_weak", "_handler", "_end_lines", "plots", "loads")

    def __init__(self, qualname: str, name: str, context: str, in_module: bool = True,
                 module_method: bool = False, hooks: bool = True, free: bool = False) -> None:
        self.qualname = qualname
        #: a function outside any class (``vllm``'s module-level ``_sample(probs, ...)`` helper
        #: of ``Sampler.forward``): a generation name there is no ``GenerationMixin`` method
        self.free = free
        self.name = name
        self.context = context
        #: a framework may call this function as a step hook (:data:`STEP_HOOK_NAMES`): false
        #: for a method of a plain class whose bases are all plain (a trainer's own
        #: ``training_step`` loop driver)
        self.hooks = hooks
        #: a method of an ``nn.Module`` class, or a function outside classes (not a plain
        #: class's method): where an ambiguous generation name means generation
        self.in_module = in_module
        #: a method of an ``nn.Module`` class itself (where parameter writes are weight surgery)
        self.module_method = module_method
        #: assignments to a ``.data`` attribute (``w.data = ...``, ``w.data -= ...``)
        self.weight_writes = 0
        self.steps = 0
        self.loop_steps = 0
        #: optimizer ``step()`` calls inside / outside this function's loops: a loop of
        #: ``backward()`` alone before one ``optimizer.step()`` accumulates gradients over
        #: micro-batches inside one training step (nanoGPT's ``gradient_accumulation_steps``)
        self.loop_opt_steps = 0
        self.opt_steps = 0
        self.loop_model_calls = 0
        #: model calls and uses inside a counted loop (``range``, ``while``: see ``sampling-loop``)
        self.counted_model_calls = 0
        #: device placements or distributed wrappings of whole models (:meth:`placement_call`)
        self.placements = 0
        #: batches pulled from a data iterator (``next(self.dl_iter)``, ``next(iter(loader))``)
        self.fetches = 0
        self._counted: list[bool] = []  # per open loop: a counted one
        #: calls of a model object's methods (:func:`is_model_use`), outside / inside loops
        self.model_uses = 0
        self.loop_model_uses = 0
        #: (called name, the open loops around the call, outermost first, its line: 0 before
        #: any step-ending call of the function, where no line is needed, see :meth:`ended`)
        self.loop_names: list[tuple[str, tuple[int, ...], int]] = []
        self._path: list[int] = []
        self._targets: list[frozenset[str]] = []  # the names each open loop binds (its `for` target)
        self._next_loop = 0
        self._strong: set[int] = set()  # innermost loops holding backward()/step()
        self._weak: set[int] = set()  # innermost loops holding only zero_grad()
        self._handler = 0  # open `except` handlers inside a loop: error recovery on the host
        #: strong step loop -> the last line of its last backward()/step() so far (:meth:`step_end`)
        self._end_lines: dict[int, int] = {}
        #: calls of matplotlib (``plt.subplots()``, ``matplotlib.pyplot.figure()``) in this function
        self.plots = 0
        #: calls that build the input pipeline (``torch.utils.data.*``, a collate function)
        self.loads = 0

    def enter_loop(self, targets: frozenset[str] = frozenset(), counted: bool = False) -> None:
        """A ``for``/``while`` of this function opens; ``targets``: the names a ``for`` binds;
        ``counted``: a ``while`` or a ``for`` over ``range(...)`` (not over data)."""
        self._next_loop += 1
        self._path.append(self._next_loop)
        self._targets.append(targets)
        self._counted.append(counted)

    def leave_loop(self) -> None:
        """The innermost open loop closes."""
        if self._path:
            self._path.pop()
            self._targets.pop()
            self._counted.pop()

    def _step_path(self, method: str, receiver_text: str, arg_text: str) -> list[int]:
        """The open loops a training call steps in. A loop over the optimizers themselves
        (``for opt in optimizers: opt.step()``, ``scaler.step(opt)``, ``opt.zero_grad()``: the
        stepped optimizer is the loop's variable) is one step of all of them, not a loop of
        steps: the call belongs to the loops around it (none: the function is a step)."""
        path = self._path
        while path and method in ("step", "zero_grad") and \
                {receiver_text.split(".", 1)[0], arg_text.split(".", 1)[0]} & self._targets[len(path) - 1]:
            path = path[:-1]
        return path

    def where(self) -> tuple[int, ...]:
        """The open loops around the current node, outermost first; empty outside loops and
        inside an ``except`` handler (what it runs recovers on the host, it is not the step)."""
        return () if self._handler or not self._path else tuple(self._path)

    def in_loop(self) -> bool:
        """Whether a loop of this function is open."""
        return bool(self._path)

    def enter_handler(self) -> None:
        """An ``except`` handler inside a loop, or a loop's ``else:`` clause, opens: what it runs
        recovers from an error on the host (an out-of-memory retry) or runs once after the loop;
        it is not the training step."""
        self._handler += 1

    def leave_handler(self) -> None:
        self._handler -= 1

    def loop_call(self, name: str, line: int = 0) -> None:
        """A call of the dotted ``name`` inside one of this function's loops, on ``line`` (0
        while no step has ended yet: :meth:`ended`)."""
        if not self._handler:
            self.loop_names.append((name.rsplit(".", 1)[-1], tuple(self._path), line))

    def after_step(self) -> bool:
        """Whether the current node follows a step-ending call of an open loop (a
        ``backward()``/``optimizer.step()`` earlier in the same training-loop body): the
        per-iteration bookkeeping after the update (``losses.update(loss.item(), n)``)."""
        return not self._handler and any(loop in self._end_lines for loop in self._path)

    def ended(self) -> bool:
        """Whether a step-ending call was met (:meth:`step_end`): only then do the loop calls
        after it need their lines (the cheap test keeps the line lookup off every other loop)."""
        return bool(self._end_lines)

    def call(self, name: str, method: str, receiver_text: str, in_loop: bool, arg_text: str = "") -> int:
        """A call that may step training or call the model; ``arg_text``: the dotted source
        text of its first positional argument ("" when none or not a name chain). Returns the
        step loop whose step this call ends so far (a ``backward()``/``step()`` in a loop, or
        ``scaler.update()`` after it), else 0: the visitor then tells :meth:`step_end` its last line."""
        if name == "next" and _BATCH_SOURCE.search(arg_text):
            self.fetches += 1  # `wave, = next(self.dl_iter)`: the function pulls its own batch
            return 0
        if is_training_call(name, method, receiver_text):
            path = self._step_path(method, receiver_text, arg_text) if in_loop else []
            if method == "step":
                if path:
                    self.loop_opt_steps += 1
                else:
                    self.opt_steps += 1
            if path or (in_loop and not self._path):
                self.loop_steps += 1
                if path and not self._handler:
                    if method == "zero_grad":
                        self._weak.add(path[-1])
                    else:
                        self._strong.add(path[-1])
                        return path[-1]
            else:
                self.steps += 1
        elif method == "update" and self._path and not self._handler and self._path[-1] in self._strong and \
                _SCALER_RECEIVER.search(receiver_text):
            return self._path[-1]  # `scaler.update()` after `scaler.step(opt)`: the loss scale is step state
        elif in_loop and is_model_call(name, method, receiver_text):
            self.loop_model_calls += 1
            self._count_model_call()
        elif is_model_call(name, method, receiver_text):
            self.model_uses += 1  # `def model_step(self, x): return self(x)`: a step a loop elsewhere repeats
        elif is_model_use(method, receiver_text):
            if in_loop:
                self.loop_model_uses += 1
                self._count_model_call()
            else:
                self.model_uses += 1
        return 0

    def sampling_call(self) -> None:
        """A call, inside a loop of this module method, of one of the module's own submodules or
        methods (``x = self.p_sample(x, t)``, ``self.net(x, sigma)``): when the method is named as a
        sampler (:data:`SAMPLING_NAME`), the model stepped by a host loop, as :func:`is_model_use`
        calls on ``model`` are."""
        if SAMPLING_NAME.search(self.name):
            self.loop_model_uses += 1
            self._count_model_call()

    def placement_call(self) -> None:
        """A call moving a whole module between devices or wrapping it for distributed
        training (``unet.to("cpu")``, ``accelerator.prepare(model)``): see ``placement``."""
        self.placements += 1

    def in_counted_loop(self) -> bool:
        """Whether the innermost open loop is a counted one (see :meth:`enter_loop`)."""
        return bool(self._counted) and self._counted[-1]

    def _count_model_call(self) -> None:
        if self._counted and self._counted[-1]:
            self.counted_model_calls += 1

    def weight_write(self) -> None:
        """An assignment or augmented assignment to a ``.data`` attribute in this function."""
        self.weight_writes += 1

    def step_end(self, loop: int, line: int) -> None:
        """The last line of a call that ends ``loop``'s step so far (:meth:`call`)."""
        if line > self._end_lines.get(loop, 0):
            self._end_lines[loop] = line

    def step_loops(self) -> set[int]:
        """The loops whose bodies are the training step (see the class docstring)."""
        return self._strong or self._weak

    def step_loop_ends(self) -> dict[int, int]:
        """The step loops of a training loop (:meth:`where` ids), each with the last line of its
        step (a finding after it is host bookkeeping, see the class docstring; a loop stepped
        only by ``zero_grad()`` has no end: ``sys.maxsize``); empty for any other role."""
        if not self.loop_steps:
            return {}
        return {loop: self._end_lines.get(loop, sys.maxsize) for loop in self.step_loops()}

    def finish(self, returns_value: bool = True) -> FunctionSummary | None:
        """The summary, or None when the function plays no particular role. ``returns_value``:
        some ``return`` of the function gives a value."""
        role = ""
        if self.name in GENERATION_NAMES and (self.name not in AMBIGUOUS_GENERATION_NAMES or (
                # `sample` of a module names a generation entry that returns what it drew; not
                # NoisyLinear's `sample()`, which resamples its noise buffers from the training step
                self.in_module and returns_value)):
            # (one that steps the model in a counted loop is a sampling loop: `generate()`'s token loop)
            # (a module's `sample()` is also what a training step calls to draw actions, SAC's
            # `policy.sample(state)` in `update_parameters`: host glue only where the trace does
            # not reach it, a weak role)
            role = "sampling-loop" if self.counted_model_calls else \
                "draw" if self.name in AMBIGUOUS_GENERATION_NAMES or self.free else "generation"
        elif self.loop_steps and (self.loop_opt_steps or not self.opt_steps or self.fetches):
            # (also one that pulls its own batches, `next(self.dl_iter)`, and accumulates them:
            # an iteration of the host loop around the step, audiolm-pytorch's trainers' `train_step`)
            role = "train-loop"
        elif self.loop_steps:
            role = "train-step"  # micro-batches accumulated in a loop, one optimizer step after it
        elif (self.steps or (self.name in STEP_HOOK_NAMES and self.hooks)) and self.fetches:
            role = "train-loop"  # one iteration of the host loop: it fetches its batch itself
        elif self.steps or (self.name in STEP_HOOK_NAMES and self.hooks):
            role = "train-step"
        elif self.loop_model_calls and self.context != "traced":
            # a decoding/sampling loop outside forward calling the model: host code that drives
            # it, unless forward itself runs the loop (k-diffusion's `sample_euler_ancestral`
            # held by a denoiser module whose forward calls it): a weak host role
            role = "sampling-loop" if self.counted_model_calls else "decode-loop"
        elif self.weight_writes and self.module_method and self.context == "function":
            role = "weight-surgery"  # `merge()`, `fuse()`, `reparameterize()`: eager edits of the weights
        elif self.loop_model_uses and self.context != "traced":
            # a loop outside forward running a model object's methods
            role = "sampling-loop" if self.counted_model_calls else "decode-loop"
        elif self.placements and self.context != "traced" and not self.steps:
            role = "placement"  # CPU offloading, accelerator wrapping: host glue around the step
        elif self.plots and self.context != "traced":
            role = "plotting"  # draws a matplotlib figure: host code whoever calls it
        elif self.loads and self.context != "traced":
            role = "data-pipeline"  # builds a DataLoader or collates batches: host code whoever calls it
        if not role:
            if self.loop_names and self.context != "traced":
                # a loop outside traced code: what it calls, for the project step to find a
                # training loop whose step is a function of its own (`loss = self.fit_batch(b)`)
                return FunctionSummary(self.qualname, "", tuple(sorted({n for n, _, _ in self.loop_names})))
            return None
        inside: tuple[str, ...] = ()
        if role == "train-loop":
            chosen = self.step_loops()
            ends = self._end_lines
            inside = tuple(sorted({n for n, path, line in self.loop_names
                                   if any(loop in chosen and line <= ends.get(loop, sys.maxsize) for loop in path)}))
        return FunctionSummary(self.qualname, role, inside)
