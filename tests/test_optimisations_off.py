"""Every engine gives the same results with the speed-ups switched off.

Two optimisations of the Python code change how results are computed, not what they are: the
explorer's fingerprints from component hashes with one canonical renaming (off: build every
renamed state and take the smallest hash) and stall marking that re-judges only the streams a
transition can have made dead (off: judge every open stream after every transition). This runs
cells of the reduced verification space, the whole incident matrix and DES replications both
ways and compares everything but CPU time. (Compiling the model is the third;
tests/test_compiled.py compares it with the sources the same way.)
"""
import pytest
from optimisation_support import (
    DES_POLICIES,
    des_records,
    explored_cells,
    incident_records,
    reduced_cells,
)

import model.transitions as transitions
from model.symmetry import Canonicalizer


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

    fast = explored_cells(space, cells)
    switch_off(monkeypatch)
    assert explored_cells(space, cells) == fast


def test_the_incident_matrix_is_the_same_without_the_speed_ups(monkeypatch):
    fast = incident_records()
    switch_off(monkeypatch)
    assert incident_records() == fast


@pytest.mark.parametrize("policy", DES_POLICIES)
def test_des_replications_are_the_same_without_the_speed_ups(policy, monkeypatch):
    fast = des_records(policy)
    assert sum(r["transitions"] for r in fast) > 1000
    switch_off(monkeypatch)
    assert des_records(policy) == fast
