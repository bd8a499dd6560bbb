"""Every engine gives the same results with the speed-ups switched off.

Two optimisations of the Python code change how results are computed, not what they are: the
explorer's fingerprints from component hashes with one canonical renaming (off: build every
renamed state and take the smallest hash) and stall marking that re-judges only the streams a transition can
have made dead (off: judge every open stream after every transition). This runs cells of the
reduced verification space, the whole incident matrix and DES replications both ways and
compares everything but CPU time. (Compiling the model is the third; tests/test_compiled.py
compares it with the sources the same way.)
"""
from pathlib import Path

import pytest

import model.transitions as transitions
from model import POLICIES
from simulations.des import config as des_config
from simulations.des.runner import run_replication
from simulations.explore.symmetry import Canonicalizer
from simulations.incidents import record
from simulations.scenarios import SCENARIOS
from simulations.script import run_script
from simulations.verify.cell import execute_cell

from optimisation_support import reduced_cells

ROOT = Path(__file__).resolve().parent.parent


def switch_off(monkeypatch) -> None:
    """The definitions instead of the fast paths."""
    monkeypatch.setattr(transitions, "INCREMENTAL_STALL_MARKING", False)
    monkeypatch.setattr(Canonicalizer, "fingerprint",
                        lambda self, state, extra=(), parent=None, known=None:
                        (self.fingerprint_by_renaming(state, extra), None))


def test_reduced_space_cells_are_the_same_without_the_speed_ups(tmp_path, monkeypatch):
    space, cells = reduced_cells(tmp_path)
    assert {c["policy"] for c in cells} == set(space.gates)
    assert {c["block"] for c in cells} == {d.block for d in space.deployments}

    def run_all():
        out = []
        for cell in cells:
            found = execute_cell(cell["policy"], cell["scope"], space.max_states)
            found.pop("seconds")
            out.append(found)
        return out

    fast = run_all()
    switch_off(monkeypatch)
    assert run_all() == fast


def test_the_incident_matrix_is_the_same_without_the_speed_ups(monkeypatch):
    fast = [record(run_script(s, p)) for s in SCENARIOS.values() for p in POLICIES]
    switch_off(monkeypatch)
    assert [record(run_script(s, p)) for s in SCENARIOS.values() for p in POLICIES] == fast


@pytest.mark.parametrize("policy", ["naive", "strict", "sdk"])
def test_des_replications_are_the_same_without_the_speed_ups(policy, monkeypatch):
    config = des_config.load(ROOT / "simulations/configs/rolling_restart.toml",
                             ["timing.duration=1200"], replications=2, policies=[policy],
                             baseline=policy)

    def records():
        out = [run_replication(config, policy, r) for r in range(2)]
        for r in out:
            r.pop("cpu_seconds")
        return out

    fast = records()
    assert sum(r["transitions"] for r in fast) > 1000
    switch_off(monkeypatch)
    assert records() == fast
