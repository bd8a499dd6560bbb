"""The interleaving explorer: verdicts in the default scope, shortest traces, symmetry."""
import json

import pytest

from model import POLICIES, VIOLATIONS, Code, reject
from simulations.cli import main
from simulations.explore.scope import Scope, default_system
from simulations.explore.search import SOMETIMES, explore
from simulations.explore.trace import narrate_trace, replay

DEFAULT = Scope()


@pytest.fixture(scope="module")
def results():
    return {policy: explore(DEFAULT, policy) for policy in POLICIES}


def test_the_default_scope_is_complete_and_not_vacuous(results):
    strict = results["strict"]
    assert strict.complete
    assert strict.vacuous() == [], "every 'sometimes' situation must be reachable"
    assert set(strict.sometimes) == set(SOMETIMES)


def test_strict_holds_every_property_in_the_default_scope(results):
    assert {n: results["strict"].holds(n) for n in VIOLATIONS} == dict.fromkeys(VIOLATIONS, True)


def test_strict_with_client_dedupe_has_no_duplicate_at_all():
    scope = Scope(system=default_system().replace(client_dedupe=True))
    result = explore(scope, "strict")
    assert result.complete and not result.violations


def test_without_dedupe_a_stale_cursor_still_repeats_a_message_for_strict(results):
    # client-caused (at-least-once by design), so not a policy violation
    assert "any_duplicate" in results["strict"].violations


@pytest.mark.parametrize("policy", ["naive", "range", "generation", "provenance", "sdk"])
def test_every_other_policy_violates_something(results, policy):
    assert set(results[policy].violations) & set(VIOLATIONS)


@pytest.mark.parametrize("policy", ["naive", "range", "generation", "provenance", "sdk"])
def test_counterexamples_are_shortest(results, policy):
    """Exploring to one step less than a counterexample finds no violation of that property."""
    for name, finding in results[policy].violations.items():
        if name not in VIOLATIONS:
            continue
        shorter = explore(DEFAULT, policy, max_depth=len(finding.actions) - 1)
        assert name not in shorter.violations, (policy, name, len(finding.actions))


def test_a_counterexample_replays_to_its_violation(results):
    finding = results["generation"].violations["duplicate_delivery"]
    text = narrate_trace(DEFAULT, "generation", finding.actions)
    assert text.rstrip().endswith("VIOLATION duplicate_side_effect: foreign_cursor")
    assert len(replay(DEFAULT, "generation", finding.actions)) == len(finding.actions)


def test_symmetry_reduction_halves_the_states_on_two_clients_and_two_instances():
    scope = Scope(system=default_system().replace(instances=2), restarts=1, client_restarts=0,
                  foreign_cursors=1, sessions=2)
    reduced = explore(scope, "range")
    full = explore(scope, "range", symmetry=False)
    assert reduced.complete and full.complete
    assert full.states >= 2 * reduced.states
    assert set(reduced.violations) == set(full.violations)
    for name, finding in reduced.violations.items():
        assert len(finding.actions) == len(full.violations[name].actions)


def test_a_gate_that_raises_is_a_finding_with_its_trace():
    def picky(request, view):
        if view.cursor.owner not in (None, view.session):
            raise RuntimeError("foreign cursor crashed my gate")
        return reject(Code.SESSION_NOT_FOUND, "never resumes")
    result = explore(DEFAULT, picky)
    assert result.gate_error is not None
    assert "foreign cursor crashed my gate" in result.gate_error.detail
    assert type(result.gate_error.actions[-1]).__name__ == "Reconnect"


def test_explore_json_has_the_documented_fields(capsys):
    assert main(["explore", "--policy", "provenance", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"states", "transitions", "depth", "seconds", "properties", "sometimes",
            "coverage"} <= set(data)
    assert data["properties"]["duplicate_delivery"]["holds"] is False
    assert data["properties"]["duplicate_delivery"]["trace"][-1]["violations"]
    assert data["properties"]["stall"]["holds"] is True and data["properties"]["stall"]["trace"] == []


@pytest.mark.parametrize("args, message", [
    (["--clients", "0"], "'clients': must be >= 1"),
    (["--restarts", "-1"], "'restarts': a budget must be an integer >= 0"),
    (["--gate", "no.such:gate"], "cannot import"),
    (["--gate", "simulations.scenarios:SCENARIOS"], "not a callable"),
    (["--policy", "nope"], "unknown policy 'nope'"),
    (["--set", "system.lb=magic"], "'lb': must be one of"),
])
def test_bad_scopes_are_one_line_and_exit_2(capsys, args, message):
    assert main(["explore", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


@pytest.mark.parametrize("policy", ["naive", "range", "generation", "provenance", "sdk"])
def test_each_first_counterexample_replays_to_the_same_violation_in_the_des(results, policy):
    from simulations.explore.replay_des import replay_in_des
    for name, finding in results[policy].violations.items():
        if name in VIOLATIONS:
            monitor = replay_in_des(DEFAULT, policy, finding.actions)
            assert monitor.report.violations[name] > 0, (policy, name)


def test_stall_as_liveness_agrees_with_the_safety_check():
    from simulations.explore.graph import forever_waiting
    strict = explore(DEFAULT, "strict", graph=True)
    naive = explore(DEFAULT, "naive", graph=True)
    assert forever_waiting(strict) is None
    path = forever_waiting(naive)
    assert path is not None and "stall" in naive.violations
    assert len(path) >= len(naive.violations["stall"].actions)


def test_graphml_marks_the_counterexample_path_and_figures_are_written(tmp_path, capsys):
    import networkx as nx
    assert main(["explore", "--policy", "provenance", "--graphml", str(tmp_path / "g.graphml"),
                 "--figures", str(tmp_path / "fig"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    graph = nx.read_graphml(tmp_path / "g.graphml")
    assert graph.number_of_nodes() == data["states"]
    marked = [n for n, d in graph.nodes(data=True) if "duplicate_delivery" in
              d.get("counterexample", "")]
    trace = data["properties"]["duplicate_delivery"]["trace"]
    assert len(marked) == len(trace)  # the path's source states: the root and every step but the last
    assert data["properties"]["stall_liveness"]["holds"] is True
    assert (tmp_path / "fig" / "duplicate_delivery.png").stat().st_size > 10_000
    assert (tmp_path / "fig" / "duplicate_delivery.svg").read_text().startswith("<?xml")
