"""`python -m simulations bench scopes`: how large a scope the explorer can search here.

Each scope is the default scope with the budgets or sizes a reviewer asks about changed ("three
clients?", "two restarts?", "two instances and a drop?"), explored by `explore` in a fresh
process of its own, so that its wall time and peak resident memory are its own. A scope that
hits the state budget is reported as stopped there (its figures are those of the truncated
search, and its verdicts would be "unknown"). Figures are printed, never asserted.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Dict, List, Optional, Sequence, Tuple

#: (name, the `explore` options that make it from the default scope), smallest first
LARGER_SCOPES: Tuple[Tuple[str, Tuple[str, ...]], ...] = (
    ("default", ()),
    ("restarts-2", ("--restarts", "2")),
    ("clients-3", ("--clients", "3")),
    ("instances-2", ("--instances", "2")),
    ("clients-3-restarts-2", ("--clients", "3", "--restarts", "2")),
    ("instances-3", ("--instances", "3")),
    ("instances-2-drops-1", ("--instances", "2", "--drops", "1")),
    ("instances-2-clients-3", ("--instances", "2", "--clients", "3")),
)
#: distinct states after which a scope's search stops (its row then says so)
DEFAULT_MAX_STATES = 5_000_000

# Run in the child: the explore verb in-process, its JSON kept, and this process's own peak
# resident set (ru_maxrss of RUSAGE_SELF: nothing another scope's process held) at the end,
# and its resident set before the search (the interpreter and the modules it runs).
_CHILD = """
import contextlib, io, json, resource, sys
import simulations.explore.search, simulations.cli.explore
from simulations.cli import main
try:    # resident now (the high-water mark may be an import's, since freed)
    with open("/proc/self/statm") as statm:
        before = int(statm.read().split()[1]) * resource.getpagesize() // 1024
except OSError:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["explore", *json.loads(sys.argv[1]), "--json"])
if code != 0:
    sys.exit(code)
found = json.loads(out.getvalue())
print(json.dumps({"states": found["states"], "transitions": found["transitions"],
                  "depth": found["depth"], "complete": found["complete"],
                  "incomplete": found["incomplete"], "search_seconds": found["seconds"],
                  "before_rss_kb": before,
                  "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def measure_scope(options: Sequence[str], policy: str = "strict",
                  max_states: Optional[int] = None) -> Dict[str, object]:
    """`explore` with `options` under `policy` in a fresh process: its states, transitions,
    whether it was complete, its wall time (start-up included), its peak resident memory and
    what the search added to the process's (`search_mb`, and over the states:
    `bytes_per_state`, the visited set and the largest frontier together)."""
    args = list(options) + ["--policy", policy]
    if max_states is not None:
        args += ["--max-states", str(max_states)]
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(args)],
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"explore {' '.join(args)} failed: {done.stderr.strip()[-500:]}")
    found = json.loads(done.stdout)
    peak_kb, before_kb = found.pop("peak_rss_kb"), found.pop("before_rss_kb")   # KiB (Linux)
    return {**found, "policy": policy, "options": " ".join(options),
            "wall_seconds": wall, "peak_rss_mb": peak_kb / 1024,
            "search_mb": (peak_kb - before_kb) / 1024,
            "bytes_per_state": (peak_kb - before_kb) * 1024 / max(int(found["states"]), 1)}


def scopes(policy: str = "strict", max_states: int = DEFAULT_MAX_STATES,
           names: Optional[Sequence[str]] = None) -> List[Dict[str, object]]:
    """`measure_scope` of each of LARGER_SCOPES (or of those named), in order."""
    chosen = [(n, o) for n, o in LARGER_SCOPES if names is None or n in names]
    return [{"scope": name, **measure_scope(options, policy, max_states)}
            for name, options in chosen]


def text(rows: List[Dict[str, object]], max_states: int) -> str:
    """The rows as the table `bench scopes` prints."""
    lines = ["scope                       states   transitions  wall s  peak MB  search MB"
             "  bytes/state"]
    for r in rows:
        note = "" if r["complete"] else f"  (stopped: {max_states:,}-state budget)"
        lines.append(f"{r['scope']:<22} {r['states']:>11,} {r['transitions']:>13,} "
                     f"{r['wall_seconds']:>7.1f} {r['peak_rss_mb']:>8.0f} "
                     f"{r['search_mb']:>10.0f} {r['bytes_per_state']:>12,.0f}{note}")
    return "\n".join(lines)
