"""The interleaving explorer: verdicts in the default scope, shortest traces, symmetry,
three-valued verdicts on truncated searches, and liveness under fairness of progress only."""
import json

import pytest

from model import POLICIES, SOMETIMES_CHECKS, VIOLATIONS, Code, reject
from simulations.cli import main
from simulations.explore.scope import Scope, default_system
from simulations.explore.search import HOLDS, UNKNOWN, VIOLATED, explore
from simulations.explore.trace import narrate_trace, replay

DEFAULT = Scope()


@pytest.fixture(scope="module")
def results():
    return {policy: explore(DEFAULT, policy) for policy in POLICIES}


def test_the_default_scope_is_complete_and_not_vacuous(results):
    strict = results["strict"]
    assert strict.complete
    assert strict.vacuous() == [], "every 'sometimes' situation must be reachable"
    assert set(strict.sometimes) == set(SOMETIMES_CHECKS)


def test_strict_holds_every_property_in_the_default_scope(results):
    verdicts = results["strict"].verdicts()
    assert {n: verdicts[n].verdict for n in VIOLATIONS} == dict.fromkeys(VIOLATIONS, HOLDS)
    assert verdicts["stall_liveness"].verdict == HOLDS


def test_strict_with_client_dedupe_has_no_duplicate_at_all():
    scope = Scope(system=default_system().replace(client_dedupe=True))
    result = explore(scope, "strict")
    assert result.complete and not result.violations
    assert result.liveness.verdict == HOLDS


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
    finding = results["range"].violations["duplicate_delivery"]
    text = narrate_trace(DEFAULT, "range", finding.actions)
    assert text.rstrip().endswith("VIOLATION duplicate_side_effect: m0 applied again "
                                  "(cross_generation)")
    assert len(replay(DEFAULT, "range", finding.actions)) == len(finding.actions)


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


def test_a_gate_that_raises_is_a_finding_and_leaves_the_search_incomplete():
    def picky(request, view):
        if view.cursor.owner not in (None, view.session):
            raise RuntimeError("foreign cursor crashed my gate")
        return reject(Code.SESSION_NOT_FOUND, "never resumes")
    result = explore(DEFAULT, picky)
    assert result.gate_error is not None
    assert "foreign cursor crashed my gate" in result.gate_error.detail
    assert type(result.gate_error.actions[-1]).__name__ == "Reconnect"
    # the skipped transitions were never explored: nothing may be claimed to hold
    assert not result.complete and "the gate raised" in result.incomplete[0]
    verdicts = result.verdicts()
    assert {v.verdict for v in verdicts.values()} <= {UNKNOWN, VIOLATED}
    assert verdicts["silent_loss"].verdict == UNKNOWN


def test_a_state_budget_makes_unviolated_properties_unknown_not_holding(capsys):
    assert main(["explore", "--policy", "strict", "--max-states", "200", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["complete"] is False and "state budget" in data["incomplete"][0]
    for name, prop in data["properties"].items():
        assert prop["verdict"] in ("unknown", "violated"), name
        assert prop["holds"] is not True, name
    assert data["properties"]["stall"]["why"] == \
        "state budget (200 states) hit, after 200 distinct states"


def test_unexpanded_states_of_a_truncated_search_never_count_as_stuck():
    """A breadth-first search cut by depth leaves states without successors; the liveness
    check must not read them as a system that can never move again."""
    shallow = explore(DEFAULT, "strict", max_depth=4)
    assert not shallow.complete
    assert shallow.liveness.verdict == UNKNOWN


def test_liveness_does_not_count_on_faults_to_free_a_waiting_client():
    """Faults are not fair: a client on a dead stream that only an idle timeout or a drop could
    free waits forever, and is reported while that budget remains (the witness ends in a state
    where an idle timeout is still enabled and was never spent)."""
    from model import IdleTimeout, apply, enabled_actions, initial_state
    scope = Scope(system=default_system(), drops=1, idle_timeouts=1, client_restarts=0,
                  compactions=0)       # the foreign cursor leaves the client on a dead stream
    result = explore(scope, "naive")
    assert result.liveness.verdict == VIOLATED
    actions = result.liveness.finding.actions
    assert not any(type(a).__name__ == "IdleTimeout" for a in actions)
    state = initial_state(scope.system)
    for action in actions:
        state = apply(state, action, scope.system, "naive").state
    assert any(type(a) is IdleTimeout for a in enabled_actions(state, scope.system))


def test_explore_json_has_the_documented_fields(capsys):
    assert main(["explore", "--policy", "provenance", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"states", "transitions", "depth", "seconds", "properties", "sometimes",
            "coverage"} <= set(data)
    assert data["properties"]["duplicate_delivery"]["holds"] is False
    assert data["properties"]["duplicate_delivery"]["verdict"] == "violated"
    assert data["properties"]["duplicate_delivery"]["trace"][-1]["violations"]
    stall = data["properties"]["stall"]
    assert stall["holds"] is True and stall["trace"] == []
    assert data["properties"]["stall_liveness"]["verdict"] == "holds"
    assert data["complete"] is True and data["incomplete"] == []


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


def test_stall_as_liveness_agrees_with_the_safety_check(results):
    assert results["strict"].liveness.verdict == HOLDS
    naive = results["naive"]
    assert naive.liveness.verdict == VIOLATED and "stall" in naive.violations
    assert naive.liveness.trace_length >= len(naive.violations["stall"].actions) - 1


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
    # the path's source states: the root and every step but the last
    assert len(marked) == len(trace)
    assert data["properties"]["stall_liveness"]["verdict"] == "holds"
    assert (tmp_path / "fig" / "duplicate_delivery.png").stat().st_size > 10_000
    assert (tmp_path / "fig" / "duplicate_delivery.svg").read_text().startswith("<?xml")


def test_is_fair_is_its_definition_on_every_reachable_action():
    """`is_fair` compares kinds one by one: it must say what FAIR_KINDS and the completing
    stop of a drain say, for every action enabled in a deployment with drains (all kinds)."""
    from model import apply as step
    from model import enabled_actions, initial_state
    from simulations.explore.liveness import FAIR_KINDS, is_fair
    config = default_system().replace(instances=2, lb="round_robin")
    seen, layer, kinds, completing_stops = set(), [initial_state(config)], set(), 0
    for _ in range(7):
        following = []
        for state in layer:
            for action in enabled_actions(state, config):
                kind = type(action)
                kinds.add(kind.__name__)
                draining = kind.__name__ == "Stop" and \
                    state.instances[action.instance].status == "draining"
                assert is_fair(action, state) == (kind in FAIR_KINDS or draining)
                completing_stops += draining
                after = step(state, action, config, "strict").state
                if after not in seen:
                    seen.add(after)
                    following.append(after)
        layer = following[:400]
    assert {k.__name__ for k in FAIR_KINDS} | {"Stop", "Drain"} <= kinds
    assert completing_stops
