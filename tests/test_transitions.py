"""Properties of the transition model: stateful Hypothesis tests over every action.

The machine draws a configuration, then applies enabled actions chosen by Hypothesis; invariants
are checked after every step, and failures shrink to a minimal action program.
"""
import pickle
from collections import defaultdict

import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from strategies import configs

from model import (
    VIOLATIONS,
    ActionNotEnabled,
    Emit,
    Init,
    PropertyMonitor,
    SystemConfig,
    apply,
    enabled_actions,
    initial_state,
)
from model.event_ids import order_key
from model.history import Emitted
from model.pairs import tget
from model.properties import SERVER_CAUSES
from model.state import held_by, holder, holding
from simulations.verify.exceptions import excused_by


def _sorted_unique(pairs):
    keys = [k for k, _ in pairs]
    return keys == sorted(set(keys))


class TransitionMachine(RuleBasedStateMachine):
    """Random programs of enabled actions under a random configuration and gate."""

    @initialize(config=configs(), gate=st.sampled_from(["strict", "naive", "range", "generation",
                                                        "provenance", "sdk", "sdk-typescript"]))
    def start(self, config, gate):
        self.config, self.gate = config, gate
        self.state = initial_state(config)
        self.monitor = PropertyMonitor()
        self.keys = defaultdict(list)       # (token, generation) -> order keys in emission order
        self.wires = []
        self.steps = 0

    @rule(data=st.data())
    def step(self, data):
        actions = enabled_actions(self.state, self.config)
        if not actions:
            return
        action = data.draw(st.sampled_from(actions), label="action")
        first = apply(self.state, action, self.config, self.gate)
        again = apply(self.state, action, self.config, self.gate)
        assert first == again, "apply must be a function of its arguments"
        self.state = first.state
        self.steps += 1
        for event in first.events:
            self.monitor.observe(self.steps, event)
            if type(event) is Emitted:
                self.keys[(event.token, event.generation)].append(
                    order_key(self.config.event_ids, event.wire))
                self.wires.append(event.wire)

    @invariant()
    def state_is_a_canonical_hashable_value(self):
        if not hasattr(self, "state"):
            return
        s = self.state
        rebuilt = pickle.loads(pickle.dumps(s))   # every record built afresh, hashes recomputed
        assert rebuilt == s and hash(rebuilt) == hash(s) and rebuilt is not s
        assert _sorted_unique(s.registry) and _sorted_unique(s.buffers)
        assert _sorted_unique(s.affinity)
        for inst in s.instances:
            assert _sorted_unique(inst.sessions) and _sorted_unique(inst.buffers)
            if inst.status == "down":
                assert not inst.sessions and not inst.buffers

    @invariant()
    def ids_are_monotone_within_a_generation(self):
        if not hasattr(self, "keys"):
            return
        if self.config.event_ids == "uuid":
            assert len(set(self.wires)) == len(self.wires)
            return
        for (token, generation), keys in self.keys.items():
            assert keys == sorted(keys) and len(set(keys)) == len(keys), (token, generation)

    @invariant()
    def at_most_one_process_runs_a_session_generation(self):
        if not hasattr(self, "state"):
            return
        s, config = self.state, self.config
        tokens = {t for inst in s.instances for t, _ in inst.sessions}
        for token in tokens:
            record = tget(s.registry, token)
            current = [i for i, inst in enumerate(s.instances)
                       if (live := tget(inst.sessions, token)) is not None and
                       (config.store == "local" or
                        (record is not None and live.generation == record.generation))]
            assert len(current) <= 1
            assert holder(s, config, token) in (current[0] if current else None,)
            index, live = holding(s, config, token)
            for i in range(len(s.instances)):     # held_by looks at instance i alone
                assert held_by(s, config, i, token) is (live if i == index else None)

    @invariant()
    def buffers_stay_within_capacity(self):
        if not hasattr(self, "state"):
            return
        pairs = list(self.state.buffers) + [p for inst in self.state.instances
                                            for p in inst.buffers]
        assert all(len(b.entries) <= self.config.buffer_capacity for _, b in pairs)

    @invariant()
    def only_open_streams_carry_events(self):
        if not hasattr(self, "state"):
            return
        for client in self.state.clients:
            if client.inflight:
                assert client.phase == "open"
            assert all(0 <= m < self.config.messages_per_session for m, _ in client.applied)

    @invariant()
    def strict_violates_only_what_a_named_exception_excuses(self):
        """In any configuration (beyond the verification matrix's scopes), every violation under
        strict must be one that a named exception says no gate can prevent there."""
        if not hasattr(self, "gate") or self.gate != "strict":
            return
        report = self.monitor.report
        note(f"violations so far: {report.violations}")
        deployment = self.config.as_dict()
        for name in VIOLATIONS:
            if not report.violations[name]:
                continue
            causes = self.monitor.causes_of(name)
            assert causes, name
            for cause in causes:
                assert excused_by(deployment, name, cause), (name, cause)


TransitionMachine.TestCase.settings = __import__("hypothesis").settings(
    stateful_step_count=40, deadline=None)
TestTransitions = TransitionMachine.TestCase


@given(configs(), st.lists(st.integers(0, 10_000), max_size=30))
def test_equal_programs_give_equal_and_hash_equal_states(config, choices):
    def run():
        state = initial_state(config)
        for choice in choices:
            actions = enabled_actions(state, config)
            if not actions:
                break
            state = apply(state, actions[choice % len(actions)], config).state
        return state
    a, b = run(), run()
    assert a == b and hash(a) == hash(b)


def test_applying_a_disabled_action_is_an_error():
    config = SystemConfig()
    with pytest.raises(ActionNotEnabled):
        apply(initial_state(config), Emit(1), config)


def test_initialize_primes_the_cursor_and_persists_the_token():
    config = SystemConfig(event_ids="tagged")
    step = apply(initial_state(config), Init(0, 0), config)
    client = step.state.clients[0]
    assert client.phase == "open" and client.token == 1
    assert client.cursor.wire == (1, 1, 1) and client.persisted == (1, client.cursor)
    unprimed = config.replace(priming=False)
    assert apply(initial_state(unprimed), Init(0, 0), unprimed).state.clients[0].cursor is None


def test_server_caused_causes_are_the_ones_design_names():
    assert set(SERVER_CAUSES) == {"cross_generation", "restart_from_head", "foreign_cursor"}
