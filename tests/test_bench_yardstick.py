"""`bench explore`'s yardstick: a plain BFS over nested tuples shaped like the states the
explorer actually visits (the reached state of median size), with the older yardstick shaped
like the initial state (the emptiest state) kept beside it."""
import json

from model import initial_state
from simulations.bench import _nesting, _plain, _scalars, typical_state
from simulations.ceilings import model_bfs, model_split
from simulations.cli import main
from simulations.explore.budgets import exhausted
from simulations.explore.scope import Scope


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
    sizes = [_scalars(state) for state in reached]
    shape, spread = typical_state(Scope(), "strict")
    median = sorted(sizes)[len(sizes) // 2]
    assert spread == {"states": 24170, "min": 26, "median": median, "max": max(sizes),
                      "initial": 26}
    assert _scalars(shape) == median == 115
    assert shape is not reached[0] and shape == reached[sizes.index(median)]   # the first such
    # the initial state is the emptiest: the old yardstick was shaped like the smallest state
    assert sizes[0] == min(sizes) < median
    assert _nesting(shape) == 7 > _nesting(reached[0]) == 4
    assert _scalars(_plain(shape)) == median       # the tuple the BFS runs over has as many
    again, _ = typical_state(Scope(), "strict")
    assert again == shape                           # deterministic


def test_bench_explore_reports_both_yardsticks(capsys):
    assert main(["bench", "explore", "--json", "--repeats", "1"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["baseline_width"] == r["reached_scalars"]["median"] == 115
    assert r["baseline_nesting"] == 7
    assert r["initial_shape_width"] == 26 and r["initial_shape_nesting"] == 4
    assert r["ratio"] == r["distinct_states_per_s"] / r["baseline_states_per_s"]
    assert r["initial_shape_ratio"] == \
        r["distinct_states_per_s"] / r["initial_shape_baseline_states_per_s"]
    assert r["model_ratio"] == r["model_bfs_states_per_s"] / r["baseline_states_per_s"]
    assert r["states"] == r["model_bfs_states"] == 24170 and r["ratios"] == [round(r["ratio"], 4)]
    assert r["model_split"]["transitions_per_state"] == r["transitions"] / r["states"]


def test_bench_explore_prints_both_yardsticks(capsys):
    assert main(["bench", "explore", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "shaped like the median reached state (115 scalars, 7 deep; reached states hold " \
           "26-154)" in out
    assert "shaped like the initial state (26 scalars, 4 deep)" in out
    assert "its time per state, in microseconds: enabled actions " in out
    assert "(2.48 per state), fingerprints " in out
