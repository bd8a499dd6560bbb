"""Budget subsumption: the explorer skips a state whose fault budgets a reached state with the
same model state (and the same budgets of fair transitions) covers. It must find exactly what
the search without it finds: every verdict, every shortest trace's length (per cause), every
`sometimes`, every cost's shortest trace, stall-as-liveness included, in fewer states."""
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from optimisation_support import reduced_cells

from model import Deliver, initial_state, resolve_gate
from model.transitions import successor
from simulations.explore.budgets import (
    FAIR,
    UNFAIR,
    Budgets,
    Dominance,
    covers,
    exhausted,
    spend,
    split,
)
from simulations.explore.frontier import Search
from simulations.explore.scope import BUDGET_NAMES, BUDGETED, Scope, default_system
from simulations.explore.search import Exploration, explore
from simulations.verify.cell import _scope, resolve

ROOT = Path(__file__).resolve().parent.parent


def findings(result) -> dict:
    """What an exploration finds, traces by their length."""
    verdicts = {name: (v.verdict, v.trace_length,
                       {cause: len(f.actions) for cause, f in v.causes.items()})
                for name, v in result.verdicts().items()}
    return {"complete": result.complete, "verdicts": verdicts, "sometimes": result.sometimes,
            "costs": {k: len(f.actions) for k, f in result.costs.items()},
            "by_cause": {k: len(f.actions) for k, f in result.by_cause.items()},
            "gate_error": None if result.gate_error is None else len(result.gate_error.actions)}


def both_ways(scope, policy, **kw):
    return (explore(scope, policy, subsumption=True, **kw),
            explore(scope, policy, subsumption=False, **kw))


def test_only_fair_budgets_are_kept_exact():
    assert [BUDGET_NAMES[i] for i in FAIR] == ["restarts", "sessions"]
    assert sorted(FAIR + UNFAIR) == list(range(len(BUDGET_NAMES)))
    assert split(tuple(range(len(BUDGET_NAMES)))) == (FAIR, UNFAIR)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(*[st.integers(0, 2)] * 4), min_size=1, max_size=12),
       st.tuples(*[st.integers(0, 2)] * 4))
def test_dominance_knows_exactly_which_budgets_are_covered(added, probe):
    """Whatever order states arrive in, `covered` is: some state added so far covers it."""
    dominance = Dominance()
    dominance.add_class(added[0])
    for unfair in added[1:]:
        if not dominance.covered(0, unfair):
            dominance.add(0, unfair)
    assert dominance.covered(0, probe) == any(covers(a, probe) for a in added)
    kept = dominance.known[0] if isinstance(dominance.known[0], list) else [dominance.known[0]]
    assert not any(covers(a, b) for a in kept for b in kept if a is not b)   # an antichain


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(*[st.integers(0, 3)] * len(BUDGET_NAMES)), min_size=1, max_size=8),
       st.integers(-(2**63), 2**63 - 1))
def test_a_fingerprint_is_the_hash_of_the_class_and_the_unfair_budgets(budgets, class_fp):
    """`Budgets.fingerprint` (from the hash kept with an unfair tuple's id, compiled) is
    hash((class_fp, unfair)) for every split budget tuple, whatever the order they came in."""
    kept = Budgets()
    for budget in budgets:
        left = kept.split(budget)
        assert kept.fingerprint(class_fp, left) == hash((class_fp, left.unfair))


def an_action(kind):
    """Some action of `kind` (spending reads only the kind)."""
    for arity in range(1, 4):
        try:
            return kind(*[0] * arity)
        except TypeError:
            continue
    raise AssertionError(f"cannot build a {kind.__name__}")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.tuples(*[st.integers(0, 2)] * len(BUDGET_NAMES)),
                          st.sampled_from(sorted(BUDGETED.values(), key=lambda k: k.__name__))),
                min_size=1, max_size=20))
def test_the_remembered_budgets_are_the_budget_functions(steps):
    """`Budgets` keeps one `Remaining` per distinct budget tuple, with what spend and
    exhausted answer for it (spending remembered per action kind): the functions' answers."""
    budgets = Budgets()
    for raw, kind in steps:
        left = budgets.split(raw)
        assert (left.fair, left.unfair) == split(raw) and left.budget == raw
        assert budgets.unfair_ids[left.unfair] == left.uid   # one id per distinct unfair tuple
        assert budgets.split(tuple(list(raw))) is left   # one Remaining per budget tuple
        assert left.without == exhausted(raw)
        action = an_action(kind)
        spent = budgets.spend(left, action)
        assert spent is budgets.split(spend(raw, action))
        assert spent is budgets.spend(left, action) and left.after[kind] is spent
        # a kind that spends no budget leaves the budgets as they are, not kept in `after`:
        # a Remaining never refers to itself (no cycle for the paused collector to miss)
        assert budgets.spend(left, Deliver(0)) is left and Deliver not in left.after
    assert sorted(budgets.unfair_ids.values()) == list(range(len(budgets.unfair_ids)))


@pytest.mark.parametrize("policy", ["naive", "range", "generation", "provenance", "strict",
                                    "sdk", "tasks"])
def test_the_default_scope_finds_the_same_in_fewer_states(policy):
    on, off = both_ways(Scope(), policy)
    assert findings(on) == findings(off)
    assert on.complete and off.subsumed == 0
    assert on.states + on.subsumed <= off.states and on.subsumed > 0
    assert on.states < 0.9 * off.states


def test_a_stall_forever_is_found_as_early_with_subsumption():
    """A witness for the liveness part: a deployment where a client waits forever, found at
    the same depth (the liveness graph is over model states with their fair budgets)."""
    system = default_system().replace(buffer="local", store="local")
    on, off = both_ways(Scope(system=system, drops=1), "naive")
    assert off.verdict("stall_liveness").verdict == "violated"
    assert findings(on) == findings(off) and on.subsumed > 0


def test_the_reduced_space_cells_find_the_same_with_and_without_subsumption(tmp_path):
    space, cells = reduced_cells(tmp_path)
    skipped, violated = 0, set()
    for cell in cells:
        scope = _scope(cell["scope"])
        on, off = both_ways(scope, resolve(cell["policy"]), max_states=space.max_states)
        assert on.complete and off.complete, cell["key"]
        assert findings(on) == findings(off), cell["key"]
        skipped += on.subsumed
        violated |= {n for n, v in on.verdicts().items() if v.verdict == "violated"}
    assert skipped > 10000
    assert "stall_liveness" in violated and "silent_loss" in violated


def test_a_graph_is_the_whole_state_graph():
    result = explore(Scope(sessions=2), "strict", graph=True)
    assert not result.subsumption and result.subsumed == 0
    assert result.graph.number_of_nodes() == explore(
        Scope(sessions=2), "strict", subsumption=False).states


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(policy=st.sampled_from(["naive", "range", "generation", "strict"]),
       store=st.sampled_from(["shared", "local"]),
       budgets=st.fixed_dictionaries({
           "restarts": st.integers(0, 1), "drops": st.integers(0, 1),
           "half_opens": st.integers(0, 1), "client_restarts": st.integers(0, 1),
           "compactions": st.integers(0, 1), "idle_timeouts": st.integers(0, 1),
           "foreign_cursors": st.integers(0, 1), "sessions": st.integers(1, 2)}))
def test_any_small_scope_finds_the_same_with_and_without_subsumption(policy, store, budgets):
    system = default_system().replace(store=store, buffer=store)
    on, off = both_ways(Scope(system=system, **budgets), policy, max_states=60000)
    if on.complete and off.complete:
        assert findings(on) == findings(off)
    assert on.states <= off.states


@pytest.mark.parametrize("subsumption", [True, False])
def test_every_visited_state_is_found_through_its_class(subsumption):
    """The visited set keeps a dict entry per class, not per state, and no column of each
    node's class or unfair budgets: every node is found again from its class and unfair
    budgets (the class's first node, or `others` for the rest), and no two nodes share a
    fingerprint. Each node's class and unfair budgets are worked out afresh here, by taking
    the action that reached it from its parent's state. Without subsumption a class holds
    several states (one per unfair budget reached), so `others` is exercised."""
    scope = Scope(drops=1, sessions=2, compactions=0)
    search = Search(scope, resolve_gate("naive"), True, False,
                    Exploration(scope, "naive", True), subsumption=subsumption)
    depth = 0
    while search.active:
        search.expand_layer(depth)
        depth += 1
    nodes = len(search.fps)
    assert len(set(search.fps)) == nodes
    assert len(search.classes) + len(search.others) == nodes
    config, budgets = search.config, search.budgets
    firsts = set()
    reached = []     # per node: (state, budgets left), from its parent's (a smaller index)
    for idx in range(nodes):
        parent = search.parent[idx]
        if parent < 0:
            state = initial_state(config)
            left = budgets.split(scope.budgets())
        else:
            action = search.actions[search.via[idx]]
            state, _ = successor(reached[parent][0], action, config, search.gate)
            left = budgets.spend(reached[parent][1], action)
        reached.append((state, left))
        class_fp = search.canon.fingerprint(state, left.fair)[0]
        assert hash((class_fp, left.unfair)) == search.fps[idx]
        klass = search.classes.get(class_fp)
        assert klass >= 0
        assert search.node_of(klass, left.uid) == idx
        if search.first_of(klass) == idx:
            firsts.add(klass)
    assert firsts == set(range(len(search.classes)))    # each class's first node is its own
    assert search.node_of(-1, 0) == -1
    if not subsumption:
        assert search.others
