"""Incremental work against its definition: the explorer's fingerprints and stall marking.

`Canonicalizer.fingerprint` hashes one canonical renaming from per-component hashes reused
across a successor's unchanged clients and instances; `fingerprint_by_renaming` builds every
renamed state and takes the smallest hash. They must partition states alike (same orbit, same
fingerprint; different orbits, different fingerprints), and an exploration must be the same
whichever is used: states, transitions, verdicts, every shortest trace.

`enabled_actions(state, config, without)` never builds the action kinds whose budget is spent;
it must list exactly the other actions, in the same order.

`mark_stalls(state, config, before)` looks only at the streams a transition could have made
dead; it must flag exactly what a scan of every open stream flags.
"""
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from optimisation_support import exploration_summary
from parts_strategies import two_client_parts

from model import Drain, apply, enabled_actions, initial_state, resolve_gate
from model.parts import renamed_hash, renamed_hash_two
from model.switches import SWITCHES
from model.symmetry import Canonicalizer, parts_of
from model.transitions import mark_stalls, transition
from simulations.explore.scope import BUDGETED, Scope, default_system
from simulations.explore.search import explore

SYSTEMS = [
    default_system(),
    default_system().replace(instances=2, lb="sticky"),
    default_system().replace(instances=2),
    default_system().replace(instances=2, lb="round_robin"),
    default_system().replace(instances=2, lb="least_connections", store="local",
                             buffer="local", event_ids="per_session"),
    default_system().replace(clients=3),
    default_system().replace(instances=2, clients=3, messages_per_session=2),
    default_system().replace(instances=3, clients=1, lb="round_robin"),
    # shared execution records: a field of the state's plain hash that a parent's Parts reuse
    default_system().replace(transport="stateless+idempotency", execution_record="shared"),
]


def walk(config, choices):
    """The states of one run of the model, each action picked by the next choice."""
    state, states = initial_state(config), []
    for choice in choices:
        actions = enabled_actions(state, config)
        if not actions:
            break
        parent = state
        state, _ = apply(state, actions[choice % len(actions)], config, "naive", check=False)
        states.append((parent, state))
    return states


def first_states(config, limit):
    """Every state of the model breadth-first from the initial one, each once as it is (not up
    to symmetry), until `limit` successors have been seen."""
    layer, seen = [initial_state(config)], set()
    while layer and len(seen) < limit:
        following = []
        for state in layer:
            yield state
            for action in enabled_actions(state, config):
                successor = apply(state, action, config, "strict", check=False).state
                if successor not in seen:
                    seen.add(successor)
                    following.append(successor)
        layer = following


@settings(max_examples=60, deadline=None)
@given(system=st.sampled_from(SYSTEMS),
       runs=st.lists(st.lists(st.integers(0, 50), max_size=14), min_size=2, max_size=4),
       extra=st.sampled_from([(), (1, 0, 2)]))
def test_fast_fingerprints_partition_states_as_the_renaming_definition(system, runs, extra):
    canon = Canonicalizer(system)
    seen = []
    for choices in runs:
        for parent, state in walk(system, choices):
            fast, parts = canon.fingerprint(state, extra)
            # a successor's parts, reused from its parent's, are its parts from scratch
            _, parent_parts = canon.fingerprint(parent, extra)
            assert canon.fingerprint(state, extra, parent, parent_parts) == (fast, parts)
            assert parts == parts_of(state)
            # every renaming of a state is in its orbit: the same fingerprint
            for cmap, imap in canon.renamings:
                assert canon.fingerprint(canon.rename(state, cmap, imap), extra)[0] == fast
            seen.append((fast, canon.fingerprint_by_renaming(state, extra)))
    for (fast_a, slow_a), (fast_b, slow_b) in combinations(seen, 2):
        assert (fast_a == fast_b) == (slow_a == slow_b)


@settings(max_examples=60, deadline=None)
@given(system=st.sampled_from(SYSTEMS), choices=st.lists(st.integers(0, 50), max_size=14),
       without=st.sets(st.sampled_from(sorted(BUDGETED.values(), key=str) + [Drain])))
def test_actions_without_spent_kinds_are_the_others_in_order(system, choices, without):
    """Leaving kinds out while building the list is filtering the full list."""
    without = frozenset(without)
    for _, state in walk(system, choices):
        every = enabled_actions(state, system)
        assert enabled_actions(state, system, without) == \
            [a for a in every if type(a) not in without]


@settings(max_examples=60, deadline=None)
@given(system=st.sampled_from(SYSTEMS), choices=st.lists(st.integers(0, 50), max_size=14),
       extra=st.sampled_from([(), (1, 0, 2)]))
def test_two_clients_compared_give_the_canonical_renamings_fingerprint(system, choices, extra):
    """Where two clients are alike (instances alike or not), `fingerprint` compares
    signatures instead of ranking them: the same value, tie or not; elsewhere it ranks."""
    canon = Canonicalizer(system)
    ties = 0
    for state in [initial_state(system)] + [state for _, state in walk(system, choices)]:
        fast, parts = canon.fingerprint(state, extra)
        assert fast == canon.from_canonical(parts, extra)
        ties += canon.canonical_renaming(parts) is None
    assert ties >= 1 or len(canon.renamings) == 1   # the initial state's two clients are alike


@pytest.mark.parametrize("config", [default_system(), default_system().replace(instances=2),
                                    default_system().replace(instances=2, lb="round_robin")],
                         ids=["1i", "2i-random", "2i-round_robin"])
def test_two_clients_compared_meet_the_identity_the_swap_and_a_tie(config):
    """Breadth-first over a scope's first states: every outcome of the comparison occurs
    (two clients; two instances too: every renaming of both), each with the canonical
    renaming's value."""
    canon = Canonicalizer(config)
    assert canon.two_clients or canon.two_by_two
    outcomes = set()
    for state in first_states(config, 400):
        fast, parts = canon.fingerprint(state)
        assert fast == canon.from_canonical(parts, ())
        outcomes.add(canon.canonical_renaming(parts))
    assert outcomes == {None} | set(canon.renamings)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), lb=st.sampled_from(["random", "round_robin", "sticky"]),
       instances=st.sampled_from([1, 2]), extra=st.sampled_from([(), (1, 0, 2)]))
def test_two_clients_compared_give_the_canonical_renaming_on_any_parts(data, lb, instances,
                                                                      extra):
    """The comparisons against the ranking on arbitrary parts, where ties and equal
    hashes of the clients' sessions are forced, not only on reachable states."""
    canon = Canonicalizer(default_system().replace(instances=instances, lb=lb))
    parts = data.draw(two_client_parts(instances))
    assert canon.fingerprint_of_parts(parts, extra) == canon.from_canonical(parts, extra)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), instances=st.sampled_from([1, 2, 3]),
       cmap=st.permutations([0, 1]).map(tuple), pointer=st.booleans(),
       extra=st.sampled_from([(), (1, 0, 2)]))
def test_the_renamed_hash_of_two_clients_is_the_general_one(data, instances, cmap, pointer,
                                                            extra):
    """Under any sequence of renamings of the same parts (the renamed naming hash is kept in
    the parts' `Naming` and found again), the two-client hash is the general one."""
    parts = data.draw(two_client_parts(instances))
    for _ in range(data.draw(st.integers(1, 6))):
        imap = tuple(data.draw(st.permutations(range(instances))))
        assert renamed_hash_two(parts, cmap, imap, extra, pointer) == \
            renamed_hash(parts, cmap, imap, extra, pointer)
        cmap = data.draw(st.permutations([0, 1]).map(tuple))


def test_both_ways_of_fingerprinting_are_taken():
    """Tied signatures (two clients alike) take the smallest hash over every renaming; distinct
    ones the canonical renaming."""
    config = SYSTEMS[0]
    canon = Canonicalizer(config)
    state = initial_state(config)
    assert canon.canonical_renaming(parts_of(state)) is None
    state, _ = apply(state, enabled_actions(state, config)[0], config, "strict")
    assert canon.canonical_renaming(parts_of(state)) is not None


SCOPES = [
    (Scope(), "strict", None),
    (Scope(), "range", 8000),
    (Scope(system=default_system().replace(instances=2)), "naive", 6000),
    (Scope(system=default_system().replace(instances=2, lb="least_connections", store="local",
                                           buffer="local")), "generation", 6000),
]


@pytest.mark.parametrize("scope,policy,max_states", SCOPES,
                         ids=[f"{s.system.instances}i-{s.system.lb}-{p}" for s, p, _ in SCOPES])
@pytest.mark.parametrize("symmetry", [True, False], ids=["symmetry", "no-symmetry"])
def test_an_exploration_is_the_same_with_the_renaming_definition(scope, policy, max_states,
                                                                   symmetry, monkeypatch):
    def summary():
        return exploration_summary(explore(scope, policy, symmetry=symmetry,
                                           max_states=max_states))
    fast = summary()
    monkeypatch.setattr(SWITCHES, "fingerprints_from_parts", False)
    assert summary() == fast


def test_the_fingerprint_switch_takes_effect(monkeypatch):
    """Switching to the definition changes the values (not the partition) wherever a
    fingerprint is computed, compiled code included: the comparison above is not vacuous."""
    config = SYSTEMS[0]
    canon = Canonicalizer(config)
    states = [state for _, state in walk(config, [3, 1, 4, 1, 5, 9, 2, 6])]
    fast = [canon.fingerprint(state, (1,))[0] for state in states]
    monkeypatch.setattr(SWITCHES, "fingerprints_from_parts", False)
    slow = [canon.fingerprint(state, (1,))[0] for state in states]
    assert slow == [canon.fingerprint_by_renaming(state, (1,)) for state in states]
    assert slow != fast
    # the explorer's calls switch too: its graph is keyed by fingerprint
    by_definition = set(explore(Scope(), "strict", max_states=200, graph=True).graph)
    monkeypatch.setattr(SWITCHES, "fingerprints_from_parts", True)
    by_parts = set(explore(Scope(), "strict", max_states=200, graph=True).graph)
    assert len(by_parts) == len(by_definition) > 200 and by_parts != by_definition


STALL_SYSTEMS = SYSTEMS + [
    default_system().replace(clients=4, instances=2, store="local", buffer="local",
                             messages_per_session=3, messages_per_call=3),
    default_system().replace(clients=3, instances=3, lb="round_robin", messages_per_session=2),
]


@settings(max_examples=80, deadline=None)
@given(system=st.sampled_from(STALL_SYSTEMS), policy=st.sampled_from(["naive", "strict", "sdk"]),
       choices=st.lists(st.integers(0, 60), min_size=1, max_size=30))
def test_stall_marking_after_a_transition_is_the_full_scan(system, policy, choices):
    gate = resolve_gate(policy)
    state = initial_state(system)
    for choice in choices:
        actions = enabled_actions(state, system)
        if not actions:
            break
        action = actions[choice % len(actions)]
        after, _ = transition(state, system, gate, action)
        assert mark_stalls(after, system, state) == mark_stalls(after, system)
        state = apply(state, action, system, gate, check=False).state


def _pairs_after(base, edits):
    """`base` (sorted pairs) after a run of tset (a fresh value) and tdel edits."""
    from model.pairs import tdel, tset
    pairs = base
    for key, delete in edits:
        pairs = tdel(pairs, key) if delete else tset(pairs, key, object())
    return pairs


@settings(max_examples=300, deadline=None)
@given(keys=st.sets(st.integers(0, 40), max_size=25),
       edits=st.lists(st.tuples(st.integers(0, 45), st.booleans()), max_size=6))
def test_changed_keys_are_the_keys_an_update_touched(keys, edits):
    """The diff skips the pairs both tuples share at either end, then merges the middles: the
    keys it reports are those the two bind differently (a value is compared by identity)."""
    from model.transitions import _changed_keys
    base = tuple((key, object()) for key in sorted(keys))
    after = _pairs_after(base, edits)
    found: list = []
    _changed_keys(base, after, found)
    old, new = dict(base), dict(after)
    assert sorted(found) == sorted(k for k in old.keys() | new.keys()
                                   if old.get(k) is not new.get(k))   # each key once
    reverse: list = []
    _changed_keys(after, base, reverse)
    assert sorted(reverse) == sorted(found)


@settings(max_examples=300, deadline=None)
@given(messages=st.integers(1, 6),
       applied=st.sets(st.integers(0, 7), max_size=7), missed=st.sets(st.integers(0, 7)))
def test_a_client_owes_what_it_neither_applied_nor_was_told_it_lost(messages, applied, missed):
    from model.resume import owes
    from model.state import Client
    system = default_system().replace(messages_per_session=messages)
    client = Client("open", applied=tuple((m, (1, 1)) for m in sorted(applied)),
                    missed=frozenset(missed))
    assert owes(system, client) == any(m not in applied and m not in missed
                                       for m in range(messages))
