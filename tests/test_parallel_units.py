"""Conformance units side by side (`conformance --workers N`): the same results in the same
order as one at a time, a failure surfaces, and a killed harness takes its workers and their
servers with it."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conformance_support import require_conformance
from process_support import survivors_of_a_kill, wait_for_descendants

from simulations.conformance.parallel import run_units


def _slow_square(x: int, delay: float) -> int:
    time.sleep(delay)
    return x * x


def _refuse_two(x: int) -> int:
    if x == 2:
        raise ValueError(f"unit {x} failed")
    return x


def _pid_and_parent(_: int):
    return os.getpid(), os.getppid()


def test_units_come_back_in_their_order_whatever_order_they_finish_in():
    units = [(x, 0.3 if x == 0 else 0.0) for x in range(5)]
    seen = []
    assert run_units(_slow_square, units, 3, seen.append) == [0, 1, 4, 9, 16]
    assert sorted(seen) == [0, 1, 4, 9, 16] and seen[-1] == 0     # the slow one finished last
    assert run_units(_slow_square, units, 1) == [0, 1, 4, 9, 16]


def test_units_run_in_worker_processes_only_when_asked():
    assert {pid for pid, _ in run_units(_pid_and_parent, [(0,)], 1)} == {os.getpid()}
    found = run_units(_pid_and_parent, [(k,) for k in range(4)], 2)
    assert os.getpid() not in {pid for pid, _ in found}
    assert {parent for _, parent in found} == {os.getpid()}


def test_a_failed_unit_fails_the_run():
    with pytest.raises(ValueError, match="unit 2 failed"):
        run_units(_refuse_two, [(1,), (2,), (3,)], 2)


def test_a_killed_parallel_run_leaves_no_worker_or_server_behind(tmp_path):
    """SIGKILL the harness while two workers each drive their own servers: the workers die with
    it, and their servers with them."""
    require_conformance(servers=("sdk", "guard"))
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs Linux /proc")
    proc = subprocess.Popen([sys.executable, "-m", "simulations", "conformance",
                             "--differential", "--server", "sdk", "--server", "guard",
                             "--examples", "1000", "--workers", "2", "--logs", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    below = wait_for_descendants(proc.pid, 6, 90)   # two workers, each with two servers
    survivors = survivors_of_a_kill(proc, below)
    assert len(below) >= 6, "the run never started its workers and servers"
    assert survivors == []


def test_a_differential_run_is_the_same_on_one_worker_and_on_several(tmp_path):
    """The same seed gives the same sequences, steps, actions and answers per server whether
    the servers' runs go one after the other or side by side."""
    require_conformance(servers=("sdk", "guard"))
    import json
    runs = {}
    for workers in ("1", "2"):
        proc = subprocess.run([sys.executable, "-m", "simulations", "conformance",
                               "--differential", "--server", "sdk", "--server", "guard",
                               "--examples", "6", "--seed", "3", "--workers", workers, "--json"],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        runs[workers] = [{k: run[k] for k in ("server", "sequences", "steps", "actions",
                                              "answers", "disagreements")}
                         for run in json.loads(proc.stdout)]
    assert [run["server"] for run in runs["2"]] == ["sdk", "guard"]
    assert runs["1"] == runs["2"]
