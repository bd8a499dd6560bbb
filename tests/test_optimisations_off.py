"""Every engine gives the same results with the speed-ups switched off.

Seven optimisations of the Python code change how results are computed, not what they are: the
explorer's fingerprints from component hashes with one canonical renaming (off: build every
renamed state and take the smallest hash), stall marking that re-judges only the streams a
transition can have made dead (off: judge every open stream after every transition), property
checks skipped on the events no check can hit (`quiet`; off: every check reads every event of
its kinds), the DES's stream seeds worked out from a pool mixed once per kind (off: a numpy
SeedSequence per stream), the DES's client faults waiting on one clock (off: a SimPy timer per
fault), the explorer's frontier keeping one object per equal part of its states (off: each
state holds the objects its transition built), and the explorations of one scope under several
gates run together, sharing every transition the gate does not decide and every resumption two
gates decide alike (off: one exploration per gate). This runs cells of the reduced verification
space, the whole incident matrix and DES replications with the first six on and off, and
explorations and a verification run together and one by one, and compares everything but CPU
time. (Compiling the model and the explorer is the eighth; tests/test_compiled.py compares it
with the sources the same way. Budget subsumption, which changes how many states a search
visits but not what it finds, is the ninth: tests/test_subsumption.py.)
"""
from pathlib import Path

import pytest
from optimisation_support import (
    DES_POLICIES,
    des_records,
    exploration_summary,
    explored_cells,
    incident_records,
    reduced_cells,
)

import model.properties as properties
import model.symmetry as symmetry
import model.transitions as transitions
import simulations.des.faults as faults
import simulations.des.streams as streams
import simulations.explore.interning as interning
from model import Code, reject
from model.switches import SWITCHES

ROOT = Path(__file__).resolve().parent.parent


def switch_off(monkeypatch) -> None:
    """The definitions instead of the fast paths (the model's `SWITCHES`, and the DES's and the
    explorer's module switches, which the compiled model, explorer and DES read on every
    call)."""
    monkeypatch.setattr(SWITCHES, "incremental_stall_marking", False)
    monkeypatch.setattr(SWITCHES, "fingerprints_from_parts", False)
    monkeypatch.setattr(SWITCHES, "quiet_events_skipped", False)
    monkeypatch.setattr(streams, "SEEDS_WORKED_OUT", False)
    monkeypatch.setattr(faults, "FAULTS_ON_ONE_CLOCK", False)
    monkeypatch.setattr(interning, "INTERNING", False)


def test_every_module_reads_the_one_switches_object():
    """The model's modules each hold `SWITCHES` itself (compiled, in a C static): switching an
    attribute of it switches every reader, as the fingerprint switch's test shows for one."""
    assert properties._SWITCHES is transitions._SWITCHES is symmetry._SWITCHES is SWITCHES
    for name in ("fingerprints_from_parts", "incremental_stall_marking",
                 "quiet_events_skipped"):
        assert getattr(SWITCHES, name) is True


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


# -- explorations of one scope under several gates, together ----------------------------------

def _each_alone_and_together(scope, gates, max_states=None):
    from simulations.explore.search import explore, explore_together
    alone = [exploration_summary(explore(scope, gate, max_states=max_states))
             for gate in gates]
    together = [exploration_summary(r)
                for r in explore_together(scope, gates, max_states=max_states)]
    return alone, together


TOGETHER_SCOPES = [   # (deployment index in the reduced space, state budget per search)
    (0, 15000), (9, 15000), (12, None), (13, 5000),
]


@pytest.mark.parametrize("index,max_states", TOGETHER_SCOPES,
                         ids=[f"deployment{i}-{m}" for i, m in TOGETHER_SCOPES])
def test_explorations_together_are_each_the_one_alone(index, max_states):
    """Sharing transitions across gates changes nothing a search finds: states,
    transitions, depth, completeness, verdicts, every shortest trace, costs, coverage."""
    from simulations.verify.cell import resolve
    from simulations.verify.space import cell_scope, load
    space = load(ROOT / "simulations/spaces/reduced.toml")
    deployment = space.deployments[index]
    gates = [g for g in space.gates if g != "sdk"]
    scope = cell_scope(deployment, gates[0], space.client)
    alone, together = _each_alone_and_together(scope, [resolve(g) for g in gates], max_states)
    assert together == alone
    assert len({repr(a["verdicts"]) for a in alone}) > 1     # the gates do decide differently


def _raises_on_a_foreign_cursor(request, view):
    if view.cursor.owner not in (None, view.session):
        raise RuntimeError("foreign cursor crashed my gate")
    return reject(Code.SESSION_NOT_FOUND, "never resumes")


def test_a_gate_that_raises_is_found_the_same_together():
    """A gate error is the raising search's own: recorded with its trace there, while the
    others go on (and keep sharing what does not depend on the gate)."""
    from simulations.explore.scope import Scope
    alone, together = _each_alone_and_together(
        Scope(), ["strict", _raises_on_a_foreign_cursor, "naive"], max_states=15000)
    assert together == alone
    assert "the gate raised" in alone[1]["incomplete"][0]
    assert not any("the gate raised" in why for why in alone[0]["incomplete"])


def test_a_verification_run_gives_the_same_cells_together_and_one_by_one(tmp_path):
    """`verify` runs the cells of one scope as one task; each record is the one its cell gets
    on its own (CPU time aside)."""
    from simulations.verify.run import by_scope, plan, run_space
    from simulations.verify.space import load
    space = load(ROOT / "simulations/spaces/reduced.toml")
    space = type(space)(**{**vars(space), "deployments": space.deployments[12:14]})
    groups = by_scope(plan(space, tmp_path / "plan"))
    assert sorted(len(g) for g in groups) == [1, 1, 6, 6]   # sdk runs with its own client
    records = {}
    for together in (True, False):
        found = run_space(space, tmp_path / str(together), progress=False, together=together)
        records[together] = [{k: v for k, v in r.items() if k != "seconds"}
                             for r in found["records"]]
    assert records[True] == records[False] and len(records[True]) == 14
