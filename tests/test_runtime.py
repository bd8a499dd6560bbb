"""The process settings searches and DES replications run under restore what they found
(simulations/runtime.py)."""
import gc
import os
import subprocess
import sys

import pytest

from simulations import runtime
from simulations.cli import main
from simulations.runtime import cyclic_gc_paused, cyclic_gc_relaxed


def test_the_collector_is_paused_inside_and_restored_after_even_on_error():
    assert gc.isenabled()
    with cyclic_gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(KeyError):
        with cyclic_gc_paused():
            raise KeyError("x")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off():
    gc.disable()
    try:
        with cyclic_gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_explore_restores_the_collector(capsys):
    assert main(["explore", "--policy", "strict", "--max-states", "2000", "--json"]) == 0
    assert gc.isenabled()
    assert '"states": 2000' in capsys.readouterr().out


def test_the_youngest_generation_is_collected_less_often_inside_and_as_before_after():
    before = gc.get_threshold()
    with pytest.raises(KeyError):
        with cyclic_gc_relaxed():
            assert gc.get_threshold() == (runtime.RELAXED_GEN0_THRESHOLD,) + before[1:]
            assert gc.isenabled()            # SimPy's cycles are still collected
            raise KeyError("x")
    assert gc.get_threshold() == before


def test_a_replication_runs_relaxed_and_restores_the_thresholds(monkeypatch):
    from contextlib import contextmanager

    from simulations.des import runner
    from simulations.des.config import DEFAULT_CONFIG, load
    inside = []

    @contextmanager
    def watched():
        with cyclic_gc_relaxed():
            inside.append(gc.get_threshold()[0])
            yield
    monkeypatch.setattr(runner, "cyclic_gc_relaxed", watched)
    before = gc.get_threshold()
    config = load(DEFAULT_CONFIG, ["timing.duration=60"], replications=1)
    record = runner.run_replication(config, "strict", 0)
    assert record["simulated_seconds"] == 60 and gc.get_threshold() == before
    assert inside == [runtime.RELAXED_GEN0_THRESHOLD]


def _threads_after_numpy(env_value):
    """(threads of a fresh process that imported this package and then numpy, the
    OPENBLAS_NUM_THREADS it ran with)."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if env_value is not None:
        env["OPENBLAS_NUM_THREADS"] = env_value
    code = ("import os, simulations, numpy; "
            "print(len(os.listdir('/proc/self/task')), os.environ['OPENBLAS_NUM_THREADS'])")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return int(out[0]), out[1]


def test_numpy_starts_no_blas_threads_in_this_package_and_a_users_setting_is_kept():
    # the spinning threads would take CPU from the engines (see simulations/__init__.py)
    assert _threads_after_numpy(None) == (1, "1")
    assert _threads_after_numpy("2")[1] == "2"
