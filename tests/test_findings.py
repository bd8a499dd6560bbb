"""A search's findings bookkeeping (`simulations.explore.findings`): what it records from any
sequence of transitions' hits is what recording each hit by its (name, cause) key records."""
import gc

from hypothesis import given, settings
from hypothesis import strategies as st

from model.hits import Hit
from model.properties import COST, PROPERTIES, SAFETY, SOMETIMES
from simulations.explore.columns import Int32Column, IntColumn
from simulations.explore.findings import Findings
from simulations.explore.scope import Scope
from simulations.explore.search import Exploration, explore, explore_together
from simulations.explore.verdict import Finding

CONFIG = Scope().system
READ = [p for p in PROPERTIES if p.kind in (SAFETY, COST, SOMETIMES)]


def _reference(steps, fps, path):
    """The definition: each hit recorded by its key, every time it is seen."""
    sometimes = {p.name: (False if p.applies(CONFIG) else None)
                 for p in PROPERTIES if p.kind == SOMETIMES}
    costs, by_cause, violations = {}, {}, {}
    for u, action, hits in steps:
        for prop, hit in hits:
            name = prop.name
            if prop.kind == SOMETIMES:
                sometimes[name] = True
            elif prop.kind == COST and name not in costs:
                costs[name] = Finding(name, hit.detail, path(u) + [action], fps[u], hit.cause)
            elif prop.kind == SAFETY and (name, hit.cause) not in by_cause:
                finding = Finding(name, hit.detail, path(u) + [action], fps[u], hit.cause)
                by_cause[(name, hit.cause)] = finding
                violations.setdefault(name, finding)
    return sometimes, costs, by_cause, violations


hit_of = st.builds(lambda k, cause, detail: (READ[k], Hit(1, cause, detail)),
                   st.integers(0, len(READ) - 1), st.sampled_from(["", "a", "b", "c"]),
                   st.sampled_from(["d1", "d2"]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.sampled_from(["x", "y"]),
                          st.lists(hit_of, max_size=5)), max_size=25))
def test_recorded_findings_are_the_definition_s(steps):
    fps, parent, via = IntColumn(), Int32Column(), Int32Column()
    actions = ["x0", "x1"]
    for k, v in enumerate((11, -12, 13, 2**62, -(2**63))):  # a chain: node k's parent is k - 1
        fps.append(v)
        parent.append(k - 1)
        via.append(-1 if k == 0 else k % 2)

    def path(u):
        return [actions[k % 2] for k in range(1, u + 1)]
    result = Exploration(Scope(), "strict", True)
    findings = Findings(result, CONFIG, fps, parent, via, actions)
    for u, action, hits in steps:
        findings.record(u, action, hits)
    assert (result.sometimes, result.costs, result.by_cause, result.violations) == \
        _reference(steps, fps, path)
    # nothing settled that a later hit could still change
    for name in findings.settled:
        kind = next(p.kind for p in PROPERTIES if p.name == name)
        assert kind in (SOMETIMES, COST)
        assert result.sometimes.get(name) is True or name in result.costs


def test_a_search_leaves_no_reference_cycle():
    """Searches run with the cyclic collector paused (`cyclic_gc_paused`): a cycle through a
    search (its findings once held a bound method of it) would keep it and all it holds alive
    until a collection that may not come before the next search. Reference counting alone must
    free everything a search, alone or with others, leaves behind."""
    gc.collect()
    gc.disable()
    try:
        explore(Scope(), "strict", max_states=2000)
        explore_together(Scope(), ["strict", "sdk"], max_states=2000)
        assert gc.collect() == 0
    finally:
        gc.enable()
