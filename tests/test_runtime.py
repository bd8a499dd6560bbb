"""The process settings searches run under restore what they found (simulations/runtime.py)."""
import gc

import pytest

from simulations.cli import main
from simulations.runtime import cyclic_gc_paused


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
