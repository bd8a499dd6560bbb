"""Symmetry reduction under a round-robin balancer: its instances are alike up to rotation (the
pointer rotated with them), so an exploration with the reduction finds what one without it
finds (every verdict, every shortest trace's length, per cause, every `sometimes` and cost),
in fewer states than client renaming alone could give."""
import pytest

from model import apply, enabled_actions, initial_state
from model.symmetry import Canonicalizer
from simulations.explore.scope import Scope, default_system
from simulations.explore.search import explore

ROUND_ROBIN = [
    default_system().replace(lb="round_robin", instances=2),
    default_system().replace(lb="round_robin", instances=2, store="local", buffer="local",
                             event_ids="per_session"),
    default_system().replace(lb="round_robin", instances=2, event_ids="tagged",
                             buffer_keying="session"),
    default_system().replace(lb="round_robin", instances=3, clients=1),
]


def lengths(result) -> dict:
    """What an exploration finds, traces by their length."""
    verdicts = {name: (v.verdict, None if v.finding is None else len(v.finding.actions),
                       {cause: len(f.actions) for cause, f in v.causes.items()})
                for name, v in result.verdicts().items()}
    return {"complete": result.complete, "depth": result.depth, "verdicts": verdicts,
            "sometimes": result.sometimes,
            "costs": {k: len(f.actions) for k, f in result.costs.items()}}


@pytest.mark.parametrize("system", ROUND_ROBIN,
                         ids=["shared-global", "local-per-session", "tagged-by-session",
                              "three-instances"])
@pytest.mark.parametrize("policy", ["naive", "provenance", "strict", "tasks"])
def test_rotations_of_round_robin_instances_keep_every_finding(system, policy):
    scope = Scope(system=system, restarts=1, client_restarts=0, foreign_cursors=1, sessions=2)
    reduced = explore(scope, policy)
    full = explore(scope, policy, symmetry=False)
    assert lengths(reduced) == lengths(full)
    if system.instances == 2 and system.clients == 2:
        # renaming two clients at most halves the states: the rest is the instances' rotation
        assert full.states >= 2.5 * reduced.states


def test_the_pointer_is_renamed_with_the_instances_and_sticky_is_not_symmetric():
    rr = default_system().replace(lb="round_robin", instances=2)
    canon = Canonicalizer(rr)
    assert canon.pointer_named and len(canon.renamings) == 4
    state = initial_state(rr)
    state, _ = apply(state, enabled_actions(state, rr)[0], rr, "strict")
    assert canon.rename(state, (0, 1), (1, 0)).rr == 1 - state.rr
    # the same state with the pointer moved is another state (the LB routes elsewhere)
    assert canon.fingerprint(state)[0] != canon.fingerprint(state.replace(rr=1 - state.rr))[0]
    sticky = Canonicalizer(default_system().replace(lb="sticky", instances=2))
    assert not sticky.instances_alike
    three = Canonicalizer(default_system().replace(lb="round_robin", instances=3, clients=1))
    assert sorted(imap for _, imap in three.renamings) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
