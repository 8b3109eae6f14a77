"""Score one blind batch: marker recall, line recall, status agreement, negatives.

Environment: PKGS (the batch's pkgs/ directory), OUT (run.sh's output directory: OUT/<pkg>/report.json).
A marker is a trailing comment `# EXPECT: cat[, cat]` on a line; each (path, line, category) counts once.
A hit is any entry of report.json `findings` (folded hazards and call-site entries included) on the same
path and line with the same category. STATUS (positives only): one line `file.py::Name status`; the status is
read from `modules` (qualname ending in .Name), else the file unit (kind "file"), as earlier batches scored.
Negatives are packages without markers or STATUS whose name contains `neg`.
"""
import json
import os
import re
import sys

PKGS = os.environ.get("PKGS", "pkgs")
OUT = os.environ.get("OUT", "out")
MARK = re.compile(r"#\s*EXPECT:\s*([a-z/\-, ]+?)\s*$")
SEV = {"info": 0, "low": 1, "medium": 2, "high": 3}


def markers(pkg_dir):
    found = []
    for root, _dirs, files in os.walk(pkg_dir):
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, pkg_dir)
            with open(path, encoding="utf-8") as fh:
                for i, line in enumerate(fh, 1):
                    m = MARK.search(line)
                    if m:
                        for cat in m.group(1).split(","):
                            cat = cat.strip()
                            if cat:
                                found.append((rel, i, cat))
    return sorted(set(found))


def load(pkg):
    path = os.path.join(OUT, pkg, "report.json")
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError) as exc:
        print(f"{pkg}: no report ({exc})")
        return None


def norm(path, pkg):
    path = path.replace("\\", "/")
    return path[len(pkg) + 1:] if path.startswith(pkg + "/") else path


def status_of(report, pkg, spec):
    fname, name = spec.split("::")
    for m in report.get("modules", []):
        if m["qualname"].split(".")[-1] == name and norm(m["path"], pkg).endswith(fname):
            return m["status"], ""
    for m in report.get("modules", []):
        if m.get("kind") == "file" and norm(m["path"], pkg).endswith(fname):
            return m["status"], " (file)"
    return "missing", ""


def main():
    tot = hit = line_hit = 0
    st_ok = st_n = 0
    neg_n = neg_hi = 0
    for pkg in sorted(os.listdir(PKGS)):
        pdir = os.path.join(PKGS, pkg)
        if not os.path.isdir(pdir):
            continue
        report = load(pkg)
        if report is None:
            continue
        finds = report.get("findings", [])
        by_line = {}
        for f in finds:
            by_line.setdefault((norm(f["path"], pkg), f["line"]), set()).add(f["category"])
        mk = markers(pdir)
        status_file = os.path.join(pdir, "STATUS")
        if not mk and not os.path.exists(status_file):
            own = [f for f in finds if not f.get("folded_into")]
            hi = [f for f in own if SEV.get(f["severity"], 0) > 1]
            neg_n += len(own)
            neg_hi += len(hi)
            print(f"NEG {pkg}: {len(own)} findings, {len(hi)} above low")
            for f in own:
                print(f"    {norm(f['path'], pkg)}:{f['line']} {f['code']} {f['severity']} {f['snippet'][:70]}")
            continue
        h = lh = 0
        misses = []
        for rel, line, cat in mk:
            cats = by_line.get((rel, line), set())
            if cat in cats:
                h += 1
            elif cats:
                lh += 1
                misses.append(f"    LINE-ONLY {rel}:{line} [{cat}] got {sorted(cats)}")
            else:
                misses.append(f"    MISS {rel}:{line} [{cat}]")
        tot += len(mk)
        hit += h
        line_hit += h + lh
        st = ""
        if os.path.exists(status_file):
            with open(status_file, encoding="utf-8") as fh:
                spec, want = fh.read().split()[:2]
            got, how = status_of(report, pkg, spec)
            st_n += 1
            st_ok += got == want
            st = f" status {spec} {want} -> {got}{how}{'' if got == want else ' **'}"
        print(f"POS {pkg}: {h}/{len(mk)} (+{lh} line-only){st}")
        for m in misses:
            print(m)
    pct = 100.0 * hit / tot if tot else 0.0
    lpct = 100.0 * line_hit / tot if tot else 0.0
    print(f"SUMMARY: marker recall {hit}/{tot} = {pct:.1f}% (+{line_hit - hit} line-only; line recall "
          f"{line_hit}/{tot} = {lpct:.1f}%); status match {st_ok}/{st_n}; negatives: {neg_n} findings, {neg_hi} above low")


if __name__ == "__main__":
    sys.exit(main())
