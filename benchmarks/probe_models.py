"""Probe real models (tiny configs) and cross-check them against a static scan of their library.

For each model: ``migrate-lens scan ROOT`` (JSON) then ``migrate-lens probe ROOT --train`` into
the same folder (which merges the probe section), then one table row: static findings (in
categories the probe observes, in files the run reached), confirmed, static-only (and how many
of those lines ran), runtime-only, static recall. Also
prints the runtime-only kinds with an example line each.

    python benchmarks/probe_models.py --corpus /path/to/smoke --out .scratch/probe-models [names...]

ROOTs: transformers models are probed against the installed ``transformers/models/<name>``;
segment-anything, x-transformers and vit-pytorch against ``CORPUS/<package>``. Needs the
``verify`` extra; RUNS the models' code.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).parent / "probe"
MODELS = {
    "bert": ("transformers", "bert"), "gpt2": ("transformers", "gpt2"), "t5": ("transformers", "t5"),
    "llama": ("transformers", "llama"), "mixtral": ("transformers", "mixtral"), "vit-hf": ("transformers", "vit"),
    "sam_encoder": ("segment_anything", ""), "sam_prompt": ("segment_anything", ""),
    "sam_decoder": ("segment_anything", ""), "xt_decoder": ("x_transformers", ""),
    "xt_encoder": ("x_transformers", ""), "vit": ("vit_pytorch", ""), "vit_patch_dropout": ("vit_pytorch", ""),
    "vit_cait": ("vit_pytorch", ""),
}


def _root(lib: str, sub: str, corpus: Path) -> Path:
    if lib == "transformers":
        import transformers

        return Path(transformers.__file__).parent / "models" / sub
    return corpus / lib


def run(name: str, corpus: Path, out: Path, reuse: bool = False) -> dict:
    lib, sub = MODELS[name]
    if reuse and (out / name / "report.json").is_file():
        view = json.loads((out / name / "report.json").read_text())
        if "probe" in view:
            return {"name": name, "library": lib, "probe": view["probe"]}
    root = _root(lib, sub, corpus)
    recipe = HERE / ("hf_models.py" if lib == "transformers" else "corpus_models.py")
    dest = out / name
    cli = [sys.executable, "-m", "migrate_lens.cli"]
    subprocess.run([*cli, "scan", str(root), "--out", str(dest), "--format", "json", "--no-cache", "-q"], check=True)
    env = {**os.environ, "PROBE_MODEL": sub or name}
    subprocess.run([*cli, "probe", str(root), "--recipe", str(recipe), "--out", str(dest), "--train", "--yes"],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    view = json.loads((dest / "report.json").read_text())
    return {"name": name, "library": lib, "probe": view["probe"]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=Path(".scratch/probe-models"))
    ap.add_argument("--reuse", action="store_true", help="Read the reports already in --out instead of probing again.")
    ap.add_argument("names", nargs="*", default=list(MODELS))
    args = ap.parse_args()
    rows, missed = [], Counter()
    kind_sites, kind_confirmed = Counter(), Counter()
    examples: dict[str, str] = {}
    for name in args.names:
        r = run(name, args.corpus, args.out, args.reuse)
        s = r["probe"]["summary"]
        errors = [e["error"] for e in r["probe"]["examples"] if e["status"] != "ok"]
        ran = sum(1 for e in r["probe"]["entries"] if e["status"] == "static-only" and e["line_ran"])
        rows.append((name, r["library"], s["confirmed"] + s["static-only"], s["confirmed"], s["static-only"],
                     s["runtime-only"], s["static_recall"], s["runtime_sites"], ran, "; ".join(errors)[:60]))
        for k, v in s["by_kind"].items():
            kind_sites[k] += v["sites"]
            kind_confirmed[k] += v["confirmed"]
        for e in r["probe"]["entries"]:
            if e["status"] == "runtime-only":
                for k in e["kinds"]:
                    missed[k] += 1
                    examples.setdefault(k, f"{name}: {e['path']}:{e['line']} {e['category']} {e['ops'][:2]} {e['detail'][:80]}")
    print("| model | library | static (observable) | confirmed | static-only | runtime-only | static recall | runtime sites "
          "| static-only, line ran | errors |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join("" if v is None else str(v) for v in row) + " |")
    tot = [sum(r[i] for r in rows) for i in (2, 3, 4, 5, 7, 8)]
    print(f"| total | {len({r[1] for r in rows})} libraries | {tot[0]} | {tot[1]} | {tot[2]} | {tot[3]} | | {tot[4]} "
          f"| {tot[5]} | |")
    print("\nruntime facts by kind (fact sites, confirmed by a static finding):")
    for k in sorted(kind_sites):
        print(f"- {k}: {kind_confirmed[k]}/{kind_sites[k]}")
    all_sites, all_conf = sum(kind_sites.values()), sum(kind_confirmed.values())
    print(f"static recall over all runtime facts: {all_conf}/{all_sites}" + (f" = {all_conf / all_sites:.2f}" if all_sites else ""))
    print("\nruntime-only kinds:")
    for k, n in missed.most_common():
        print(f"- {k}: {n} (e.g. {examples[k]})")


if __name__ == "__main__":
    main()
