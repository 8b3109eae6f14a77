#!/usr/bin/env bash
# run.sh: scan every package of a blind batch on its own. SNAP = migrate-lens checkout with .venv; OUT = output dir.
set -u
SNAP=${SNAP:?set SNAP to a migrate-lens checkout with .venv}
OUT=${OUT:-/tmp/batch_out}
PKGS=${PKGS:-$(cd "$(dirname "$0")" && pwd)/pkgs}
mkdir -p "$OUT"
for p in "$PKGS"/*/; do
  name=$(basename "$p")
  (cd "$SNAP" && .venv/bin/python -m migrate_lens.cli scan "$p" --out "$OUT/$name" --format json --no-cache --quiet) \
    || echo "scan failed: $name"
done
