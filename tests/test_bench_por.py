"""`bench por`: the sleep-set search it measures reaches every state, and its figures say so."""
import json

from model import enabled_actions
from simulations import bench_por
from simulations.bench_por import (
    _Successors,
    full_search,
    never_fair,
    sleep_set_search,
)
from simulations.explore.budgets import exhausted
from simulations.explore.liveness import is_fair
from simulations.explore.scope import Scope

#: a small scope (two sessions, a restart, a compaction, a client restart: 4,566 states) with
#: transitions that commute, transitions that do not, and states reached again after their
#: expansion with a smaller sleep set
SMALL = Scope(sessions=2, foreign_cursors=0)


def test_sleep_sets_reach_every_state_and_skip_transitions():
    depth_of, transitions = full_search(SMALL, "strict")
    for may_sleep in (lambda action: True, never_fair):
        nodes, counts = sleep_set_search(SMALL, "strict", may_sleep)
        assert set(nodes) == set(depth_of)
        assert all(node.depth == depth_of[fp] for fp, node in nodes.items())
        assert 0 < counts["transitions"] < transitions
    _, counts = sleep_set_search(SMALL, "strict", lambda action: True)
    assert counts["reexpanded"] > 0       # the state-caching path is taken


def test_only_never_fair_actions_sleep_where_liveness_is_kept():
    nodes, _ = sleep_set_search(SMALL, "strict", never_fair)
    slept = [action for node in nodes.values() for action in node.sleep]
    assert slept, "nothing ever slept: the measurement would be vacuous"
    for node in nodes.values():
        for action in node.sleep:
            assert never_fair(action)
            enabled = enabled_actions(node.state, SMALL.system, exhausted(node.budget))
            assert action not in enabled or not is_fair(action, node.state)


def test_sleeping_dependent_actions_misses_states(monkeypatch):
    # the search's own check: were actions taken as independent that are not, states it
    # could only reach through them would be missed, and the figures would say so
    monkeypatch.setattr(_Successors, "independent", lambda self, a, b: True)
    depth_of, _ = full_search(SMALL, "strict")
    nodes, _ = sleep_set_search(SMALL, "strict", lambda action: True)
    assert set(nodes) < set(depth_of)


def test_bench_por_reports_the_default_scope(capsys):
    from simulations.cli import main
    assert main(["bench", "por", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["instances"] == 1 and r["clients"] == 2
    every, liveness = r["any_action_sleeps"], r["only_unfair_actions_sleep"]
    for variant in (every, liveness):
        assert variant["states"] == r["states"] and variant["missing_states"] == 0
        assert variant["deeper"] == 0
    # liveness keeps every fair transition: it skips far fewer
    assert every["transitions"] < liveness["transitions"] < r["transitions"]
    assert bench_por.text(r).count("\n") == 3
