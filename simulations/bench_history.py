"""`bench history`: this checkout's explorer against a past version's, on the default scope.

A speed figure measured against a yardstick says how far the explorer is from a plain loop; it
cannot say how far it came. This benchmark exports a past commit's files (`git archive`, into a
temporary directory: the repository is not touched), and times that version's `explore` and
this checkout's on the default scope, each in a fresh process, alternating, `repeats` times
(a process's figure is the median of its SEARCHES searches).
Each search runs as that version's `explore` verb runs it: with the cyclic garbage collector
paused where the version has `simulations.runtime.cyclic_gc_paused`, and visiting every state
(`subsumption=False`) where the version can skip states, so both count the same distinct states
(`states_equal` says whether they did). The past version runs from its committed files: its
model from source, since a compiled build is never committed (`past_build`). Figures are CPU
seconds of the search alone; `speedup` is the past version's CPU time over this checkout's, the
median of the rounds (`speedups`: every round's). This checkout's process then runs `bench
explore`'s yardsticks as many times, the same-graph BFS (`simulations.yardstick_graph`) and the
grid (`simulations.yardstick`), and both versions' rates are put over each: `ratio` and
`grid_ratio` here, `past_ratio` and `past_grid_ratio` for the past version (measured in the
process just before).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path
from typing import Dict, List, Optional

#: the last commit before the explorer's speed work began (`bench explore`'s first yardstick
#: came after it): the default past version
BEFORE_SPEED_WORK = "22a25dcfc16f8d265e243d11234daad47bb37532"

REPO_ROOT = Path(__file__).resolve().parent.parent

#: run in a fresh process inside the version measured; prints one JSON line
DRIVER = r"""
import inspect, json, sys, time
from statistics import median_low
from contextlib import nullcontext
from simulations.explore.scope import Scope
from simulations.explore.search import explore
try:
    from simulations.runtime import cyclic_gc_paused
except ImportError:
    cyclic_gc_paused = nullcontext
try:
    from model import BUILD
except ImportError:
    BUILD = "source (no compiled build in this version)"
kwargs = {}
if "subsumption" in inspect.signature(explore).parameters:
    kwargs["subsumption"] = False
times = []
for _ in range(int(sys.argv[2])):
    with cyclic_gc_paused():
        start = time.process_time()
        result = explore(Scope(), sys.argv[1], **kwargs)
        times.append(time.process_time() - start)
out = {"states": result.states, "transitions": result.transitions,
       "cpu_seconds": median_low(times), "searches": times, "build": BUILD}
if sys.argv[3:] == ["yardstick"]:   # this checkout only: its yardsticks, as bench explore's
    from simulations import yardstick
    from simulations.yardstick_graph import ScopeGraph, same_graph_bfs
    with cyclic_gc_paused():
        graph = ScopeGraph.build(Scope(), sys.argv[1])
        same = [same_graph_bfs(graph)["states_per_s"] for _ in times]
        shape, _ = yardstick.typical_state(Scope(), sys.argv[1])
        grid = [yardstick.exhaustive_bfs(result.states, result.transitions / result.states,
                                         shape)["states_per_s"] for _ in times]
    out["baseline_states_per_s"] = median_low(same)
    out["grid_baseline_states_per_s"] = median_low(grid)
print(json.dumps(out))
"""

#: searches per process: a process's first search pays for warming up (memory, caches), so
#: each round's figure is the median of this many
SEARCHES = 3


class HistoryError(Exception):
    """The past version cannot be measured; the message names why."""


def _git(*args: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", "-C", str(REPO_ROOT), *args], capture_output=True,
                              check=False)
    except FileNotFoundError as exc:
        raise HistoryError("bench history needs git, and git is not installed") from exc


def resolve(rev: str) -> str:
    """The full commit id `rev` names in this checkout's history."""
    if rev.startswith("-"):
        raise HistoryError(f"{rev!r} is not a revision")
    if _git("rev-parse", "--git-dir").returncode != 0:
        raise HistoryError(f"{REPO_ROOT} is not a git checkout: bench history reads past "
                           "versions from its history")
    found = _git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if found.returncode != 0:
        raise HistoryError(f"no commit {rev!r} in this checkout's history")
    commit = found.stdout.decode().strip()
    if _git("cat-file", "-e", f"{commit}:simulations/explore/search.py").returncode != 0:
        raise HistoryError(f"commit {rev!r} has no explorer (simulations/explore/search.py)")
    return commit


def export(commit: str, into: Path) -> None:
    """The model and simulations packages of `commit` under `into` (all a search imports)."""
    archive = _git("archive", "--format=tar", commit, "model", "simulations")
    if archive.returncode != 0:
        raise HistoryError(f"git archive {commit} failed: {archive.stderr.decode().strip()}")
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        if hasattr(tarfile, "data_filter"):     # Python 3.11.4 and later
            tar.extractall(into, filter="data")
        else:
            tar.extractall(into)    # git archive of this repository's own history


def measure(root: Path, policy: str, label: str, with_yardstick: bool = False
            ) -> Dict[str, object]:
    """The median CPU seconds of SEARCHES searches of the default scope by the version whose
    files are under `root`, in one fresh process; `with_yardstick` (this checkout only), also
    the median rate of as many runs of `bench explore`'s yardstick after them."""
    extra = ["yardstick"] if with_yardstick else []
    run = subprocess.run([sys.executable, "-c", DRIVER, policy, str(SEARCHES), *extra],
                         cwd=root, env=_env(root), capture_output=True, text=True, check=False)
    if run.returncode != 0:
        last = (run.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise HistoryError(f"the search of the default scope by {label} failed: {last}")
    try:
        return json.loads(run.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError) as exc:
        raise HistoryError(f"the search of the default scope by {label} printed no figures "
                           f"(its last line: {run.stdout.strip()[-200:]!r})") from exc


def _env(root: Path) -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root)      # the version's own packages before any installed copy
    return env


def summarize(past: List[Dict[str, object]], now: List[Dict[str, object]]) -> Dict[str, object]:
    """Every round's speedup (past CPU over now CPU) and the round with the median one (the
    lower middle of an even count)."""
    from .bench import median_pair
    chosen = median_pair([{"speedup": float(p["cpu_seconds"]) / float(n["cpu_seconds"]),
                            "past": p, "now": n} for p, n in zip(past, now)],
                          key="speedup", digits=3)
    p, n = chosen["past"], chosen["now"]
    return {"speedup": chosen["speedup"], "speedups": chosen["speedups"],
            "repeats": chosen["repeats"],
            "past_states": p["states"], "past_transitions": p["transitions"],
            "past_cpu_seconds": p["cpu_seconds"], "past_build": p["build"],
            "past_states_per_s": float(p["states"]) / float(p["cpu_seconds"]),
            "states": n["states"], "transitions": n["transitions"],
            "cpu_seconds": n["cpu_seconds"], "build": n["build"],
            "states_per_s": float(n["states"]) / float(n["cpu_seconds"]),
            "states_equal": p["states"] == n["states"],
            **_over_yardstick(p, n)}


def _over_yardstick(p: Dict[str, object], n: Dict[str, object]) -> Dict[str, object]:
    """Both versions' rates over this checkout's yardsticks (run in this checkout's process,
    the past version's run just before it): `ratio` and `grid_ratio` as `bench explore` has
    them, `past_ratio` and `past_grid_ratio` what the past version scores on the same
    yardsticks."""
    if "baseline_states_per_s" not in n:
        return {}
    rate = float(n["states"]) / float(n["cpu_seconds"])
    past_rate = float(p["states"]) / float(p["cpu_seconds"])
    out: Dict[str, object] = {}
    for prefix in ("", "grid_"):
        baseline = float(n[prefix + "baseline_states_per_s"])
        out.update({prefix + "baseline_states_per_s": baseline,
                    prefix + "ratio": rate / baseline,
                    "past_" + prefix + "ratio": past_rate / baseline})
    return out


def history(rev: Optional[str] = None, policy: str = "strict",
            repeats: int = 5) -> Dict[str, object]:
    """The past version `rev` (default BEFORE_SPEED_WORK) against this checkout, alternating
    fresh processes `repeats` times."""
    rev = rev or BEFORE_SPEED_WORK
    commit = resolve(rev)
    past: List[Dict[str, object]] = []
    now: List[Dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="bench-history-") as tmp:
        export(commit, Path(tmp))
        for _ in range(repeats):
            past.append(measure(Path(tmp), policy, f"commit {rev}"))
            now.append(measure(REPO_ROOT, policy, "this checkout", with_yardstick=True))
    return {"rev": rev, "commit": commit, "policy": policy,
            **summarize(past, now)}


def text(r: Dict[str, object]) -> str:
    """The figures as `bench history` prints them."""
    commit = str(r["commit"])[:10]
    named = commit if r["rev"] == r["commit"] else f"{r['rev']} ({commit})"
    lines = [f"default scope, {r['policy']}: {named}, {r['past_build']}: "
             f"{r['past_states']:,} states in {r['past_cpu_seconds']:.2f} "
             f"CPU s ({r['past_states_per_s']:,.0f}/s); this checkout, {r['build']}: "
             f"{r['states']:,} states in {r['cpu_seconds']:.2f} CPU s "
             f"({r['states_per_s']:,.0f}/s)",
             f"speedup {r['speedup']:.2f}x (median of {r['repeats']}; every round: "
             f"{', '.join(f'{s:.2f}' for s in r['speedups'])})"]
    if "ratio" in r:
        lines.append(f"over the same-graph BFS (bench explore's yardstick, "
                     f"{r['baseline_states_per_s']:,.0f} states/s): ratio {r['ratio']:.3f} "
                     f"here, {r['past_ratio']:.3f} for the past version; over the grid "
                     f"({r['grid_baseline_states_per_s']:,.0f} states/s): "
                     f"{r['grid_ratio']:.3f} here, {r['past_grid_ratio']:.3f} for the past "
                     f"version")
    if not r["states_equal"]:
        lines.append("the two versions searched different state spaces: the speedup is in "
                     "time to decide the scope, not per state")
    return "\n".join(lines)
