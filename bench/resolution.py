#!/usr/bin/env python3
"""bench/resolution.py: the tables of bench/resolution.sh, from the JSON
reports of 'pgoltp --json experiment' (issue 29, "How to prove it").

  resolution.py aa REPORT...                 A/A: verdicts and MDEs
  resolution.py calibrate REPORT ROWS SHARE...  rows of pgoltp.inject_rows per share (%)
  resolution.py known TRUTH REPS             coverage of the long-run values
  resolution.py mde30 BUDGET REPORT...       the MDE reached per design

Every effect is the one the verdict judged: the objective's (tps or
per-cpu), adjusted for covariates when the adjustment used any.
"""
import json
import re
import statistics
import sys
from datetime import datetime


def load(path):
    with open(path) as f:
        text = f.read()
    if not text.strip():
        sys.exit(f"{path}: no report (see the .log beside it)")
    return json.loads(text)


def judged(step):
    a = step.get("adjusted")
    if a and a.get("used"):
        return a["effect"]
    return unadjusted(step)


def unadjusted(step):
    return step["work_per_cpu"] if step.get("objective") == "per-cpu" else step["throughput"]


def interval(e):
    if not e.get("valid"):
        return "—"
    return f"{e['low_pct']:+.1f} .. {e['high_pct']:+.1f}"


def pct(x):
    return "—" if x is None else f"{x:+.1f}%"


def minutes(rep):
    def t(s):  # Go's RFC 3339 with nanoseconds → datetime
        s = re.sub(r"(\.\d{6})\d+", r"\1", s).replace("Z", "+00:00")
        return datetime.fromisoformat(s)

    return (t(rep["finished"]) - t(rep["started"])).total_seconds() / 60


def said(step):
    v = step.get("verdict", "")
    return v.split(" (")[0]


def aa(paths):
    print("| workload | design | step | verdict | effect | interval | level | MDE (80% power) | pairs |")
    print("|---|---|---|---|---:|---|---:|---:|---:|")
    summary = []
    for path in paths:
        rep = load(path)
        wrong, mdes = 0, []
        for s in rep["steps"]:
            e = judged(s)
            v = said(s)
            wrong += v in ("better", "worse")
            if e.get("valid"):
                mdes.append(e["mde_pct"])
            print(f"| {rep['workload']} | {s['design']} | {s['name']} | {v} | {pct(e.get('percent'))} | {interval(e)} | "
                  f"{100 * e.get('level', 0):.1f}% | ±{e.get('mde_pct', float('nan')):.1f}% | {e.get('pairs', 0)} |")
        n = len(rep["steps"])
        med = f"±{statistics.median(mdes):.1f}% (±{min(mdes):.1f} .. ±{max(mdes):.1f})" if mdes else "—"
        summary.append(f"- {rep['workload']} (objective {rep['steps'][0].get('objective', 'tps')}): "
                       f"**{wrong} of {n}** said better or worse (target: at most 1 of 20); MDE median {med}; "
                       f"{minutes(rep) / max(n, 1):.1f} min of machine time per experiment")
    print()
    print("\n".join(summary))


def calibrate(path, rows, shares):
    """Rows for each share: the calibration step's effect e (a fraction)
    is work x = -e/(1+e) of a transaction; a share s needs s/(1-s)."""
    s = load(path)["steps"][0]
    e = judged(s)["percent"] / 100
    if not e < 0:
        sys.exit(f"calibration: {rows} rows showed {100 * e:+.1f}%, no cost to scale from: raise DUR or the rows")
    x = -e / (1 + e)
    out = [max(1, round(rows * (sh / 100) / (1 - sh / 100) / x)) for sh in shares]
    print(f"# calibration: {rows} rows cost {100 * e:+.1f}% → rows {out} for {shares}%", file=sys.stderr)
    print(" ".join(str(r) for r in out))


def known(truth_path, reps_path):
    truth = {s["name"]: judged(s) for s in load(truth_path)["steps"]}
    groups = {}
    for s in load(reps_path)["steps"]:
        groups.setdefault(s["name"].split(" #")[0], []).append(s)
    print("| step | long-run value (interval, pairs) | repetitions | covered | coverage | said worse | median estimate | median MDE | median pairs |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, steps in groups.items():
        t = truth.get(name)
        if t is None or not t.get("valid"):
            print(f"| {name} | not measured | {len(steps)} | | | | | | |")
            continue
        value = t["percent"]
        effects = [judged(s) for s in steps]
        valid = [e for e in effects if e.get("valid")]
        covered = sum(e["low_pct"] <= value <= e["high_pct"] for e in valid)
        worse = sum(said(s) == "worse" for s in steps)
        est = statistics.median(e["percent"] for e in valid) if valid else None
        mde = statistics.median(e["mde_pct"] for e in valid) if valid else float("nan")
        pairs = statistics.median(e["pairs"] for e in valid) if valid else 0
        print(f"| {name} | {pct(value)} ({interval(t)}, {t['pairs']}) | {len(steps)} | {covered} | "
              f"**{100 * covered / max(len(steps), 1):.0f}%** | {worse} | {pct(est)} | ±{mde:.1f}% | {pairs:g} |")
    print()
    print("Target: coverage at least 90% (each interval is the experiment's own, at its level).")


def mde30(budget, paths):
    print(f"| experiment | design | pairs | machine time | effect | interval | MDE (80% power) | MDE before adjustment | covariates used |")
    print("|---|---|---:|---:|---:|---|---:|---:|---|")
    for path in paths:
        rep = load(path)
        s = rep["steps"][0]
        e, u = judged(s), unadjusted(s)
        used = ", ".join((s.get("adjusted") or {}).get("used") or []) or "none"
        print(f"| {rep['plan']} ({rep['workload']}) | {s['design']} | {e.get('pairs', 0)} | {minutes(rep):.1f} min | "
              f"{pct(e.get('percent'))} | {interval(e)} | **±{e.get('mde_pct', float('nan')):.1f}%** | "
              f"±{u.get('mde_pct', float('nan')):.1f}% | {used} |")
    print()
    print(f"Budget asked: {budget} of machine time per row. Targets: ±3% (switchback, reload settings), "
          "±8% (separate runs, restart settings); today's: about ±16% for five pairs of 45 s runs.")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    mode = argv[1]
    if mode == "aa":
        aa(argv[2:])
    elif mode == "calibrate":
        calibrate(argv[2], int(argv[3]), [float(x) for x in argv[4:]])
    elif mode == "known":
        known(argv[2], argv[3])
    elif mode == "mde30":
        mde30(argv[2], argv[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
