"""Kinds of error found by this stop's reviews (a 100-finding review of a fresh ``core`` scan
docs/reviews/core-findings-2026-12-06-stop35.md; openai-whisper and tianshou), each with a flagged and a clean side:

- a branch that loads another framework's checkpoint into the PyTorch model (``if from_tf:`` in
  ``from_pretrained``: TF -> PyTorch round trip, ``.data =`` pokes) is no port work: a JAX port loads
  its own weights (kind 4, ``encoder_decoder:293``);
- the mode flag read beside an activation-checkpointing flag (kind 2) and the link of a module's
  own bias into its decoder (kind 6) are covered by ML701's and ML720's rule examples.
"""

from __future__ import annotations

from helpers_analysis import findings, package_findings

FROM_TF = '''
# file: pkg/model.py
import torch
import torch.nn as nn


class EncoderDecoder(nn.Module):
    def __init__(self, d: int = 8):
        super().__init__()
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        return self.proj(x)

    @classmethod
    def from_pretrained(cls, path, *args, **kwargs):
        from_tf = kwargs.pop("from_tf", False)
        model = cls()
        if from_tf:
            w = torch.load(path + "/tf.bin")
            model.proj.weight.data = w.contiguous()
            return model
        if kwargs.get("shrink"):
            model.proj.weight.data = model.proj.weight.data[:4]  # expect: ML307
        return model
'''


def _codes_by_line(source: str, catalog) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for f in package_findings(source, catalog):
        out.setdefault(f.span.line, set()).add(f.code)
    return out


def test_a_foreign_checkpoint_branch_is_no_port_work(catalog) -> None:
    lines = FROM_TF.splitlines()
    got = _codes_by_line(FROM_TF, catalog)
    tf_line = next(i for i, t in enumerate(lines, 1) if "w.contiguous()" in t)
    kept = next(i for i, t in enumerate(lines, 1) if "expect: ML307" in t)
    assert "ML307" not in got.get(tf_line, set())
    assert "ML307" in got.get(kept, set())


def test_cache_hooks_installed_by_host_code_keep_the_decoder_a_redesign(catalog) -> None:
    """openai-whisper review K4: the decoding loop (host code) installs forward hooks whose
    callback replaces each projection's output with the grown cache. The callback runs inside
    every forward and changes what the projection returns, so the registration is judged where
    the hook runs (ML514, ``anchor = "use"``): high, and the decoder is a redesign (it was
    ``mechanical`` with a host/low ML508)."""
    from helpers_engine_v2 import ROOT, scan_package

    project = scan_package(ROOT / "contexts" / "host_installed_cache_hooks", catalog)
    assert not [f for f in project.findings if f.code == "ML508"]
    hooks = [f for f in project.findings if f.code == "ML514"]
    assert [(f.span.line, f.severity) for f in hooks] == [(31, "high")]
    units = {m.qualname: m.status for m in project.modules}
    assert units["host_installed_cache_hooks.model.Decoder"] == "redesign"


def test_a_subscripted_generic_base_is_the_module_base(catalog) -> None:
    """tianshou review K1: ``class Net(NetBase[Any])`` with ``NetBase(nn.Module, Generic[T])`` in
    another file is an ``nn.Module`` unit whose forward is traced (it was no unit, its data-
    dependent branch only ``function``)."""
    from helpers_engine_v2 import ROOT, scan_package

    project = scan_package(ROOT / "bindings" / "generic_module_base", catalog)
    units = {m.qualname: m.status for m in project.modules}
    assert units.get("generic_module_base.nets.Net") == "redesign"
    assert {(f.code, f.context) for f in project.findings if f.path.endswith("nets.py")} == {("ML101", "traced")}


TRAINER = '''
# file: pkg/trainer.py
import time
from abc import ABC
from typing import Generic, TypeVar

T = TypeVar("T")


class BaseTrainer(ABC, Generic[T]):
    def __init__(self, policy, collector, logger):
        self.policy, self.collector, self.logger = policy, collector, logger
        self.env_step = 0

    def training_step(self):
        stats = self.collector.collect(n_step=10)
        self.env_step += stats.n_steps
        self.logger.add_scalar("rew", stats.mean_reward, self.env_step)
        return self.policy.update(), time.time()


class OnpolicyTrainer(BaseTrainer[int]):
    def training_step(self):
        self.env_step += 1
        return super().training_step()
# file: pkg/lit.py
import time

import lightning.pytorch as pl


class Lit(pl.LightningModule):
    def training_step(self, batch, idx):
        t = time.time()  # expect: ML504
        return batch.sum() * t


class LogLoss(pl.Callback):
    def on_train_batch_end(self, trainer, module, outputs, batch, idx):
        print(outputs["loss"].item())  # expect: ML509
'''


def test_step_hook_names_on_a_plain_class_are_no_jitted_step(catalog) -> None:
    """tianshou review K2: a plain trainer's own ``training_step`` (collects env steps, logs, counts)
    is a host loop driver, not Lightning's per-batch hook: nothing in it is traced. A
    ``LightningModule``'s and a ``Callback``'s hooks still are."""
    found = {(f.path, f.code, f.context) for f in package_findings(TRAINER, catalog)}
    assert not any(p == "pkg/trainer.py" and ctx == "traced" for p, _, ctx in found)
    assert ("pkg/lit.py", "ML504", "traced") in found
    assert ("pkg/lit.py", "ML509", "traced") in found


DEFAULTS = '''
import numpy as np
import torch


def correct_log_prob(log_prob: torch.Tensor, eps: float = np.finfo(np.float32).eps.item()) -> torch.Tensor:
    return log_prob - torch.log(1 - log_prob.tanh().pow(2) + eps).sum(-1)


class Actor(torch.nn.Module):
    def forward(self, x, scale: float = torch.tensor(2.0).item()):
        return correct_log_prob(x * scale) + x.sum().item()  # expect: ML509
'''


def test_a_parameter_default_runs_where_the_def_runs(catalog) -> None:
    """tianshou review: ``eps: float = np.finfo(np.float32).eps.item()`` is evaluated once, when
    the module is imported, not in the traced function it belongs to (it was ML509 high traced)."""
    got = {(f.span.line, f.code, f.context) for f in findings(DEFAULTS, catalog, path="sac.py", module="pkg.sac")}
    assert {(line, ctx) for line, code, ctx in got if code == "ML509"} == {(12, "traced")}


CAST = '''
from typing import cast

import torch
from torch import nn


class SAC(nn.Module):
    def __init__(self):
        super().__init__()
        self.alpha = torch.zeros(1)

    def forward(self, x):
        self.alpha = cast(torch.Tensor, self.alpha)
        self.alpha = self.alpha
        return x * self.alpha
'''


def test_an_attribute_rebound_to_itself_is_no_state_write(catalog) -> None:
    """tianshou review K7: ``self.alpha = cast(Tensor, self.alpha)`` (and ``self.x = self.x``)
    rebinds the attribute to the object it holds, for the type checker: no ML706."""
    got = {(f.span.line, f.code) for f in findings(CAST, catalog, path="sac.py", module="pkg.sac")}
    assert not any(code in ("ML706", "ML709", "ML506") for _, code in got), got


FRESH_EXPR = '''
import torch


def backtrace(trace: torch.Tensor):
    trace[0, :] = 2
    return trace.sum()


def dtw(x: torch.Tensor):
    trace = -torch.ones(x.shape[0] + 1, x.shape[1] + 1)
    return backtrace(trace)


def dtw_kept(x: torch.Tensor):
    trace = torch.ones(x.shape[0] + 1, x.shape[1] + 1) * 2
    backtrace(trace)
    return trace
'''


def test_an_arithmetic_result_is_a_new_object(catalog) -> None:
    """openai-whisper review K1: ``trace = -torch.ones(...)`` handed to a helper that writes into
    it, and never read again, loses nothing in a functional port (ML315's own exception, as for
    ``trace = torch.ones(...)``); a caller that reads it after the call still does."""
    got = [f for f in package_findings("# file: pkg/t.py" + FRESH_EXPR, catalog) if f.code == "ML315"]
    assert len(got) == 1  # the write, for dtw_kept's call only
    lost = package_findings("# file: pkg/t.py" + FRESH_EXPR.split("\n\n\ndef dtw_kept")[0] + "\n", catalog)
    assert not any(f.code == "ML315" for f in lost)


NOISY = '''
# file: pkg/m.py
import torch
from torch import nn


class NoisyLinear(nn.Module):
    def __init__(self, n: int = 4):
        super().__init__()
        self.register_buffer("eps", torch.zeros(n))

    def sample(self):
        self.eps.copy_(torch.randn(self.eps.shape[0]))


class Decoder(nn.Module):
    def forward(self, z):
        return z * 2

    def sample(self, n: int):
        z = torch.randn(n, 4)
        return self(z)


class DQN(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Linear(4, 2)
        self.optim = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def learn(self, batch):
        weight = batch.pop("weight", 1.0)
        td = self.model(batch.obs) - batch.returns
        loss = (td.pow(2) * weight).mean()
        self.optim.zero_grad()
        loss.backward()
        self.optim.step()
        batch.update(td=td)
        return loss
'''


def test_sample_without_a_result_is_no_generation_entry_and_pop_with_default_is_a_read(catalog) -> None:
    """tianshou review K5/K6: NoisyLinear's ``sample()`` resamples its noise buffers (it returns
    nothing) and is no generation glue (it was host/low); a decoder's ``sample(n)`` that returns
    what it drew still is. ``batch.pop("weight", 1.0)`` reads an optional field with its default
    (the caller keeping the key changes nothing it reads): no ML707; ``batch.update(...)`` still is."""
    got = package_findings(NOISY, catalog)
    noisy = {(f.code, f.context) for f in got if f.symbol.endswith("NoisyLinear.sample")}
    assert noisy and not any(ctx == "host" for _, ctx in noisy)
    assert not any(f.symbol.endswith("Decoder.sample") and f.context == "traced" for f in got)
    lines = NOISY.splitlines()
    pop = next(i for i, t in enumerate(lines, 1) if "batch.pop" in t)
    upd = next(i for i, t in enumerate(lines, 1) if "batch.update" in t)
    ml707 = {f.span.line for f in got if f.code == "ML707"}
    assert pop not in ml707 and upd in ml707


EXPORT_ONLY_CALL = '''
# file: pkg/heads.py
import torch
from torch import nn


def _onnx_paste(mask, h):
    return mask[: int(h)]  # only the exporter's branch runs this


def _paste(mask, h):
    return mask[: int(h)]


class Head(nn.Module):
    def forward(self, mask, h):
        if torch.jit.is_tracing():
            return _onnx_paste(mask, h)
        return _paste(mask, h)
'''


def test_a_function_called_only_in_an_export_branch_is_not_traced(catalog) -> None:
    """torchvision's ``_onnx_heatmaps_to_keypoints`` / ``_onnx_paste_mask_in_image``: called only
    under ``if torchvision._is_tracing():``, a branch a port never runs; its findings are no
    longer traced (the call edge and the argument flows of that branch are not recorded)."""
    got = package_findings(EXPORT_ONLY_CALL, catalog)
    onnx = {f.context for f in got if f.symbol.endswith("_onnx_paste")}
    eager = {f.context for f in got if f.symbol.endswith("._paste")}
    assert "traced" in eager and "traced" not in onnx


def test_a_function_bound_in_a_class_body_is_a_method(catalog) -> None:
    """openai-whisper K3 / attack 6 K6: ``detect = detect_language_function`` and ``_idx =
    staticmethod(idx_mod.global_indices)`` in a class body make methods; ``self._idx(mask)`` from
    forward runs the function under the trace."""
    from helpers_engine_v2 import ROOT, scan_package

    project = scan_package(ROOT / "bindings" / "class_attr_function_alias", catalog)
    got = {(f.path.rsplit("/", 1)[-1], f.code, f.context) for f in project.findings}
    assert ("idx_mod.py", "ML201", "traced") in got and ("lang.py", "ML509", "traced") in got


BREAK_TEST = '''
# file: pkg/consts.py
import random

import numpy as np


def machine_eps():
    return float(np.finfo(np.float32).eps) + random.random() * 0


_RNG = np.random.default_rng(1234)
# file: pkg/model.py
import random

import numpy as np
import torch
from torch import nn

from .consts import _RNG, machine_eps


class Normalizer(nn.Module):
    def forward(self, x, eps=machine_eps()):
        return x / (x.norm() + eps)


class SpecAugment(nn.Module):
    rng_cls = random.Random(0)

    def __init__(self, rng=None):
        super().__init__()
        self.rng = rng or random.Random()

    def forward(self, x):
        a = self.rng.randint(0, 4)  # expect: ML607
        b = self.rng_cls.random()  # expect: ML607
        c = _RNG.uniform()
        local = np.random.default_rng(0)
        d = local.permutation(4)
        return x * (a + b + c) + torch.as_tensor(d).sum()
'''


def test_break_test_stop36_defaults_and_generators(catalog) -> None:
    """The stop's break-test: a call in a parameter's default runs at import, not in forward
    (``machine_eps()``'s draw was ML607 high traced and the normalizer a redesign); generators
    held as ``rng or random.Random()`` and as a class attribute draw like ``random.*``; a local
    generator seeded with a literal in the function gives the same draws every call (none on
    its draw line)."""
    got = {(f.path, f.span.line, f.code, f.context) for f in package_findings(BREAK_TEST, catalog)}
    lines = BREAK_TEST.splitlines()
    line = {key: next(i for i, t in enumerate(lines, 1) if key in t) for key in
            ("random.random() * 0", "self.rng.randint", "self.rng_cls.random", "local.permutation")}
    assert not any(ln == line["random.random() * 0"] and ctx == "traced" for _, ln, _, ctx in got)
    assert ("pkg/model.py", line["self.rng.randint"], "ML607", "traced") in got
    assert ("pkg/model.py", line["self.rng_cls.random"], "ML607", "traced") in got
    assert not any(ln == line["local.permutation"] and code == "ML607" for _, ln, code, _ in got)


OWN_LIBRARY = '''
# file: kornia/filters/kernels.py
import torch


def box_kernel(k: int) -> torch.Tensor:
    return torch.ones(k, k) / (k * k)
# file: kornia/filters/blur.py
import torch
from torch import nn

from kornia.filters.kernels import box_kernel


class BoxBlur(nn.Module):
    def __init__(self, k: int = 3):
        super().__init__()
        self.kernel = box_kernel(k)

    def forward(self, x):
        return torch.nn.functional.conv2d(x, self.kernel[None, None].expand(x.shape[1], 1, -1, -1), groups=x.shape[1])
# file: app/model.py
import kornia
from torch import nn


class Aug(nn.Module):
    def __init__(self):
        super().__init__()
        self.kernel = kornia.filters.get_gaussian_kernel2d((3, 3), (1.0, 1.0))  # expect: ML1024
'''


def test_a_library_scanned_in_place_is_no_dependency_of_itself(catalog) -> None:
    """kornia review K1: inside kornia, calls of ``kornia.*`` are the code being ported, not a
    PyTorch-only library it depends on (ML1024 was 4,074 of 6,861 findings and 1,253
    person-days); a project that calls kornia still gets ML1024."""
    got = [f for f in package_findings(OWN_LIBRARY, catalog) if f.code == "ML1024"]
    assert {f.path for f in got} == {"app/model.py"}


EAGER_ONLY = '''
import torch
from torch import nn


def is_compiling() -> bool:
    return torch.compiler.is_compiling()


class Blur(nn.Module):
    def forward(self, x, sigma):
        if not is_compiling() and not bool((sigma > 0).all()):
            raise ValueError("sigma must be positive")
        if not torch.compiler.is_compiling():
            x = x.contiguous()
        else:
            x = x * 1.0
        return x * sigma.mean().item()  # expect: ML509
'''


def test_an_eager_only_branch_is_dead_for_the_port(catalog) -> None:
    """kornia review K2: ``if not is_compiling() and not bool((sigma > 0).all()): raise ...`` is
    work only the eager run does (a compiled graph skips it, as a jitted port does): no host-read
    findings there; a branch with an ``else`` keeps the eager side as before."""
    got = {(f.span.line, f.code) for f in findings(EAGER_ONLY, catalog, path="blur.py", module="pkg.blur")}
    lines = EAGER_ONLY.splitlines()
    check = next(i for i, t in enumerate(lines, 1) if "not bool((sigma" in t)
    item = next(i for i, t in enumerate(lines, 1) if ".item()" in t)
    assert not any(line == check for line, _ in got) and (item, "ML509") in got


def test_a_package_importing_its_folders_as_from_its_own_root(tmp_path) -> None:
    """Attack 7 K1/K1b: a scanned package whose files import its subfolders as if the package's
    own folder were on ``sys.path`` (``from mylib.ops import pick``) reaches them, and a ``lib/``
    subpackage inside a package keeps its name (``root.lib.ops``; only a repository's top-level
    ``src/``/``lib/`` is dropped)."""
    from migrate_lens.config import Config
    from migrate_lens.pipeline import scan

    root = tmp_path / "proj"
    files = {
        "__init__.py": "",
        "model.py": ("import torch\nfrom torch import nn\nfrom mylib.ops import pick\nfrom .lib.other import keep\n\n\n"
                     "class Net(nn.Module):\n    def forward(self, x):\n        return keep(pick(x))\n"),
        "mylib/__init__.py": "",
        "mylib/ops.py": "def pick(x):\n    return x.nonzero()\n",
        "lib/__init__.py": "",
        "lib/other.py": "def keep(x):\n    return x[x > 0]\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    result = scan(root, Config(), jobs=1, use_cache=False)
    got = {(f.path, f.code, f.context) for f in result.project.findings}
    assert ("mylib/ops.py", "ML201", "traced") in got
    assert ("lib/other.py", "ML203", "traced") in got
    assert {m.qualname: m.status for m in result.project.modules}.get("proj.model.Net") == "redesign"
