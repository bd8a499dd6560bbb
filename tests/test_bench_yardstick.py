"""`bench explore`'s yardstick: a plain BFS over nested tuples shaped like the states the
explorer actually visits (the reached state of median size), searched to the end of a space
with the explorer's successors per state; the older yardsticks (a tree cut off at as many
states, shaped like the median and like the initial state) kept beside it."""
import json

import pytest

from model import initial_state
from simulations.ceilings import model_bfs, model_split
from simulations.cli import main
from simulations.explore.budgets import exhausted
from simulations.explore.scope import Scope
from simulations.yardstick import (
    axes,
    bump,
    exhaustive_bfs,
    nesting,
    paths,
    plain,
    scalars,
    truncated_bfs,
    typical_state,
)


def _reached():
    expanded = []
    states, _ = model_bfs(Scope(), "strict", expanded)
    return states, expanded


def test_model_bfs_hands_back_every_state_it_expands_in_the_order_it_reaches_them():
    states, expanded = _reached()
    assert states == len(expanded) == model_bfs(Scope(), "strict")[0] == 24170
    assert expanded[0][0] == initial_state(Scope().system)
    assert expanded[0][1] == Scope().budgets()
    assert len({id(state) for state, _, _, _ in expanded}) == states
    assert all(kinds == exhausted(budget) for _, budget, _, kinds in expanded)


def test_model_split_accounts_for_the_search_per_state():
    split = model_split(Scope(), "strict", repeats=1)
    parts = ("enabled_us", "successor_us", "budgets_us", "fingerprint_us", "rest_us")
    assert set(split) == set(parts) | {"search_us", "transitions_per_state"}
    assert split["transitions_per_state"] == 59862 / 24170
    assert abs(sum(split[k] for k in parts) - split["search_us"]) < 1e-9
    assert min(split["enabled_us"], split["successor_us"], split["budgets_us"]) > 0


def test_the_yardstick_is_shaped_like_the_median_reached_state_not_the_initial_one():
    _, expanded = _reached()
    reached = [state for state, _, _, _ in expanded]
    sizes = [scalars(state) for state in reached]
    shape, spread = typical_state(Scope(), "strict")
    median = sorted(sizes)[len(sizes) // 2]
    assert spread == {"states": 24170, "min": 26, "median": median, "max": max(sizes),
                      "initial": 26}
    assert scalars(shape) == median == 115
    assert shape is not reached[0] and shape == reached[sizes.index(median)]   # the first such
    # the initial state is the emptiest: the old yardstick was shaped like the smallest state
    assert sizes[0] == min(sizes) < median
    assert nesting(shape) == 7 > nesting(reached[0]) == 4
    assert scalars(plain(shape)) == median       # the tuple the BFS runs over has as many
    again, _ = typical_state(Scope(), "strict")
    assert again == shape                           # deterministic


def test_bench_explore_reports_every_yardstick(capsys):
    assert main(["bench", "explore", "--json", "--repeats", "1"]) == 0
    r = json.loads(capsys.readouterr().out)
    rate = r["distinct_states_per_s"]
    # the headline yardstick searched the explorer's very graph, with the model taken out
    assert r["ratio"] == rate / r["baseline_states_per_s"]
    assert (r["baseline_states"], r["baseline_transitions"], r["baseline_depth"]) == \
        (r["states"], r["transitions"], r["depth"]) == (24170, 59862, 16)
    g = r["same_graph"]
    assert g["rebuilt_per_transition"] > g["scalars_per_transition"] > 1
    assert r["states"] == r["model_bfs_states"] and r["ratios"] == [round(r["ratio"], 4)]
    assert r["model_ratio"] == r["model_bfs_states_per_s"] / r["baseline_states_per_s"]
    # the grid, shaped like the median reached state, and the earlier yardsticks beside it
    assert r["grid_width"] == r["reached_scalars"]["median"] == 115
    assert r["grid_nesting"] == 7
    assert r["grid_ratio"] == rate / r["grid_baseline_states_per_s"]
    assert r["grid_ratios"] == [round(r["grid_ratio"], 4)]
    assert r["grid_baseline_states"] == 155 ** 2
    assert r["grid_baseline_transitions"] / r["grid_baseline_states"] == \
        pytest.approx(r["transitions"] / r["states"], abs=0.01)
    assert r["initial_shape_width"] == 26 and r["initial_shape_nesting"] == 4
    assert r["initial_shape_ratio"] == rate / r["initial_shape_baseline_states_per_s"]
    assert r["truncated_ratio"] == rate / r["truncated_baseline_states_per_s"]
    assert r["flat_ratio"] == rate / r["flat_baseline_states_per_s"]
    assert r["model_split"]["transitions_per_state"] == r["transitions"] / r["states"]


def test_bench_explore_prints_every_yardstick(capsys):
    assert main(["bench", "explore", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "a plain Python BFS of the scope's own graph (24,170 states, 59,862 transitions, " \
           "16 levels) over its states as nested tuples" in out
    assert "over a grid of 24,025 states with 2.48 successors per state, each moving one " \
           "scalar, over nested tuples shaped like the median reached state (115 scalars, 7 " \
           "deep; reached states hold 26-154)" in out
    assert "like the initial state (26 scalars, 4 deep)" in out
    assert "its time per state, in microseconds: enabled actions " in out
    assert "(2.48 per state), fingerprints " in out


SMALL = ((0, (0, 0)), (0, 0, (0, (0, 0))), 0)


@pytest.mark.parametrize("branching", [2.0, 2.48, 3.0, 3.3])
def test_the_yardstick_expands_every_state_it_counts_with_the_explorers_branching(branching):
    found = exhaustive_bfs(24170, branching, SMALL)
    fan = int(branching)
    assert found["states"] == found["expanded"] == found["modulus"] ** fan
    assert abs(found["states"] - 24170) / 24170 < 0.02   # the grid nearest the scope's size
    assert found["transitions"] / found["states"] == pytest.approx(branching, abs=0.01)
    again = exhaustive_bfs(24170, branching, SMALL)
    assert {k: v for k, v in again.items() if k not in ("cpu_seconds", "states_per_s")} == \
        {k: v for k, v in found.items() if k not in ("cpu_seconds", "states_per_s")}


def test_the_cut_off_tree_builds_one_successor_per_state_it_counts_not_the_explorers():
    # the flaw of earlier versions' yardstick: on the median-shaped state at the default
    # scope's branching (59,862 / 24,170 = 2.48 successors per state) half the states it counts
    # are leaves it never expanded, so it did 1.00 successor's work per state, not 2.48
    shape, _ = typical_state(Scope(), "strict")
    cut = truncated_bfs(24170, 59862 / 24170, shape)
    assert cut["states"] == 32753 and cut["expanded"] == 16377
    assert cut["transitions"] == 2 * cut["expanded"] == cut["states"] + 1
    whole = exhaustive_bfs(24170, 59862 / 24170, shape)
    assert whole["states"] == whole["expanded"] == 155 ** 2
    assert whole["transitions"] / whole["states"] == pytest.approx(59862 / 24170, abs=0.01)


def test_each_successor_of_the_yardstick_changes_a_scalar_at_the_median_depth():
    shape, _ = typical_state(Scope(), "strict")
    depths = sorted(len(path) for path in paths(plain(shape)))
    assert len(depths) == 115 and depths[len(depths) // 2] == 4
    assert axes(plain(shape), 2) == [(0, 0, 4, 8), (0, 1, 4, 6)]
    assert [len(path) for path in axes(plain(shape), 3)] == [4, 4, 4]


def test_the_yardstick_refuses_what_it_cannot_build():
    with pytest.raises(ValueError, match="at least 2 states and 1 successor per state"):
        exhaustive_bfs(24170, 0.5, SMALL)
    with pytest.raises(ValueError, match="cannot have 10 successors"):
        exhaustive_bfs(24170, 10.0, SMALL)


def test_the_explorer_benchmarks_yardsticks_are_deterministic_in_what_they_visit():
    flat = (0,) * 16
    whole = exhaustive_bfs(5000, 3.4, flat)
    assert whole["states"] == whole["expanded"] == 17 ** 3 and whole["depth"] > 1
    assert whole["states_per_s"] > 0
    assert exhaustive_bfs(5000, 3.4, flat)["transitions"] == whole["transitions"]
    cut = truncated_bfs(5000, 3.4, flat)
    assert cut["states"] >= 5000 and cut["depth"] > 1 and cut["states_per_s"] > 0
    assert truncated_bfs(5000, 3.4, flat)["states"] == cut["states"]


def test_the_shaped_baseline_keeps_the_state_shape_and_changes_one_scalar():
    state = initial_state(Scope().system)
    root = plain(state)
    assert nesting(root) == nesting(state) == 4
    every = paths(root)
    assert len(every) == 26
    child = bump(root, every[7], 1, 5)
    assert paths(child) == every               # same shape
    assert sum(a != b for a, b in zip(_leaves(child), _leaves(root))) == 1
    assert bump(child, every[7], 4, 5) == root  # mod 5: back where it started
    run = truncated_bfs(3000, 2.5, state)
    assert run["states"] >= 3000 and run["depth"] > 1


def _leaves(value):
    return [x for v in value for x in _leaves(v)] if isinstance(value, tuple) else [value]
