"""``migrate-lens probe``: run the user's model once and hold what happens against the scan.

Opt-in and the only part of migrate-lens besides ``verify`` that IMPORTS AND RUNS user code.

- :mod:`migrate_lens.probe.kinds`: runtime fact kinds and the static categories they confirm;
- :mod:`migrate_lens.probe.record`: the recorder (TorchFunctionMode + TorchDispatchMode + module
  patches), imports torch;
- :mod:`migrate_lens.probe.runner`: loads a recipe, runs its examples (eager, dynamo explain,
  non-strict export), builds ``probe.json``;
- :mod:`migrate_lens.probe.crosscheck`: the report's ``probe`` section (no torch);
- :mod:`migrate_lens.probe.cli`: the ``probe`` command and the ``scan --probe-results`` merge.

Documented in docs/probe.md.
"""

WARNING = ("migrate-lens probe IMPORTS AND RUNS the recipe and the code under PATH (one forward "
           "pass per example and mode, plus torch._dynamo.explain and torch.export). Run it only on "
           "code you trust.")
