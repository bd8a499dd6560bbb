"""`make results` runs the conformance runs beside the niced model runs, and rewrites the README
once, last (read from `make -n`, which prints every command without running one)."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("scenario", "run", "sweep", "figures", "report", "verify")

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _commands(target: str):
    """The `python -m simulations <verb>` commands `make -n target` prints, in order, each as
    (verb, whether it runs under nice, the command line)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    done = subprocess.run(["make", "-n", target], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    found = []
    for line in done.stdout.splitlines():
        match = re.search(r"-m simulations (\w+)", line)
        if match and match.group(1) != "compile":
            found.append((match.group(1), line.lstrip().startswith("nice -n 10 "), line))
    return found


def test_results_runs_conformance_beside_the_niced_model_runs():
    commands = _commands("results")
    verbs = [verb for verb, _, _ in commands]
    assert {"verify", "sweep", "conformance", "readme"} <= set(verbs)
    for verb, niced, _ in commands:
        assert niced == (verb in HEAVY), (verb, niced)   # only the CPU-bound lane yields
    assert verbs.count("readme") == 1 and verbs[-1] == "readme"   # once, after both lanes
    assert "--block" not in commands[-1][2]                          # every block


def test_each_part_alone_runs_unniced_and_rewrites_its_blocks():
    for target, block in (("verification", "verification-summary"),
                          ("des-results", None), ("conformance", "conformance")):
        commands = _commands(target)
        assert not any(niced for _, niced, _ in commands), target
        verb, _, line = commands[-1]
        assert verb == "readme" and (f"--block {block}" in line if block else "--block" not in
                                     line), (target, line)
    assert [v for v, _, _ in _commands("verification")] == ["verify", "readme"]
