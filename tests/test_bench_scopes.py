"""`bench scopes`: the explorer on larger scopes, each in a fresh process of its own."""
import json

from simulations.bench_scopes import LARGER_SCOPES, measure_scope
from simulations.cli import main
from simulations.explore.scope import Scope
from simulations.explore.search import explore


def test_a_scope_is_measured_in_its_own_process_and_finds_what_explore_finds(capsys):
    assert main(["bench", "scopes", "--scope", "default", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    [row] = figures["scopes"]
    alone = explore(Scope(), "strict")
    assert (row["scope"], row["states"], row["transitions"], row["depth"]) == \
        ("default", alone.states, alone.transitions, alone.depth)
    assert row["complete"] and row["incomplete"] == []
    # the search's own memory: above nothing, below the process's peak; per state from it
    assert 0 < row["search_mb"] < row["peak_rss_mb"]
    assert row["bytes_per_state"] == row["search_mb"] * 1024 * 1024 / row["states"]
    assert row["wall_seconds"] >= row["search_seconds"] > 0


def test_a_scope_stopped_by_the_state_budget_says_so(capsys):
    row = measure_scope((), "naive", max_states=500)
    assert not row["complete"] and row["states"] <= 500
    assert any("state budget" in why for why in row["incomplete"])
    assert main(["bench", "scopes", "--scope", "default", "--max-states", "500"]) == 0
    assert "(stopped: 500-state budget)" in capsys.readouterr().out


def test_every_larger_scope_is_a_valid_explore_scope(capsys):
    """Each scope's options parse (a short search of each, stopped after 50 states)."""
    for name, options in LARGER_SCOPES:
        assert main(["explore", *options, "--max-states", "50", "--json"]) == 0, name
        assert json.loads(capsys.readouterr().out)["states"] <= 50
