"""The incidents the project started from, as scripts (the README's incident table describes them).

Each scenario fixes a deployment (store and buffer placement, event-id scheme, LB) and a fault
sequence, then lets the system settle. Which properties a policy violates is computed by the
model, never written down here; the notes explain the mechanism the narrative shows.
"""
from __future__ import annotations

from typing import Dict, List

from model import (
    POLICIES,
    ClientRestart,
    Deliver,
    Disconnect,
    Drain,
    Emit,
    ForeignCursor,
    Persist,
    Start,
    Stop,
    SystemConfig,
)
from model.policies import STATELESS_ROWS

from .script import Scenario, Settle, route

#: the rows of the incident matrix: the six policies, then the stateless transports (no
#: sessions: the same faults hit requests)
INCIDENT_ROWS = tuple(POLICIES) + STATELESS_ROWS


def _exchange(token: int, client: int, n: int) -> List:
    """`n` messages of session `token` emitted and delivered live to `client`."""
    return [step for _ in range(n) for step in (Emit(token), Deliver(client))]


def _rolling_restart(instances: int) -> List:
    return [step for i in range(instances) for step in (Drain(i), Stop(i), Start(i))]


RECONNECT_AFTER_ROLLING_RESTART = Scenario(
    name="reconnect_after_rolling_restart",
    title="Reconnect after a rolling restart with a stale persisted cursor",
    source="incident A: duplicate results after a rolling restart",
    config=SystemConfig(instances=2, store="shared", buffer="shared", event_ids="global",
                        lb="sticky"),
    steps=tuple([route("init", 0)] + _exchange(1, 0, 2) + [Persist(0)] + _exchange(1, 0, 2)
                + _rolling_restart(2) + [ClientRestart(0), route("reconnect", 0), Settle()]),
    explanation=(
        "The session map is shared and survives the rolling restart; the tool-call state lived in "
        "the restarted process. The client restarts too and resumes from its persisted cursor, "
        "which lags two events behind what it applied. The retained shared buffer still holds the "
        "cursor and ids are in range, so a range check passes, but the instance that loads S1 "
        "recreates its state as generation 2 and re-runs its calls: replaying the old events "
        "and streaming the re-run both hand the client results it already applied."),
    notes={
        "naive": "Finds E in the retained buffer and replays; the new generation then re-runs.",
        "range": "E is within [floor, hwm], so it replays across the generation change.",
        "generation": "Sees the session recreated (E predates it): 409, the client re-initializes.",
        "provenance": "E was issued by S1, so provenance holds; no generation check: replays.",
        "strict": "Provenance holds, generation fails: 409 generation_mismatch, re-initialize.",
        "sdk": ("The restarted process's session table does not hold S1: 404. The SDK client "
                "raises and does not re-initialize, so its remaining calls are abandoned."),
    },
)

# Incident B's failover (README, "Results: the incident matrix"): four events reach the
# client, the client is partitioned, the instance holding S1 is drained and stopped, and the
# client reconnects through the LB.
_FAILOVER_STEPS = tuple([route("init", 0)] + _exchange(1, 0, 4)
                        + [Disconnect(0), Drain(0), Stop(0), route("reconnect", 0), Settle(),
                           Start(0)])

FAILOVER_FORMAT_ONLY = Scenario(
    name="failover_format_only",
    title="Failover to an instance that knows nothing of the session",
    source="incident B, failover 1: format-only validation",
    config=SystemConfig(instances=2, store="local", buffer="local", event_ids="per_session",
                        lb="round_robin"),
    steps=_FAILOVER_STEPS,
    explanation=(
        "The instance holding S1 is drained and replaced while the client is partitioned. The "
        "client reconnects to the other instance, which has neither S1 nor a buffer for it."),
    notes={
        "naive": ("Validates only the format of the ids and admits the request: 200 with an empty "
                  "stream that can never carry data. The client waits for nothing until the LB's "
                  "idle timeout, reconnects, and gets the same answer: a stall."),
        "range": "S1 is not in this instance's registry: 404, the client re-initializes.",
        "generation": "S1 is not in this instance's registry: 404, the client re-initializes.",
        "provenance": "S1 is not in this instance's registry: 404, the client re-initializes.",
        "strict": "Liveness fails first: 404 session_not_found, the client re-initializes.",
        "sdk": "404 from the per-process table; the SDK client raises and does not re-initialize.",
    },
)

SHARED_STORE_LOCAL_BUFFER = Scenario(
    name="shared_store_local_buffer",
    title="Shared session store, instance-local replay buffer",
    source="incident B, failover 2: shared store, local buffers",
    config=SystemConfig(instances=2, store="shared", buffer="local", event_ids="per_session",
                        lb="round_robin"),
    steps=_FAILOVER_STEPS,
    explanation=(
        "The new instance finds S1 in the shared store and loads it: with no local state it "
        "recreates the session (generation 2) and re-runs its calls. Its local buffer never saw "
        "e1..e4 and its per-session counter restarts, so it streams e1, e2, ... again: results "
        "the client already applied."),
    notes={
        "naive": "No buffer for S1 here: 200 empty, then the re-run streams e1.. live: duplicates.",
        "range": ("No buffer here to range-check: 409 replay_gap naming no earliest cursor, so "
                  "the client has nothing to resume after and re-initializes. Safe by accident: "
                  "range never looked at the generation (see reconnect_after_rolling_restart)."),
        "generation": "Serving S1 here recreates it: 409 generation_mismatch, re-initialize.",
        "provenance": ("e4 is an opaque per-session counter this instance never issued, so the "
                       "format-only gate calls it a cursor of no known session: 400, the client "
                       "surfaces the error and stops. Safe, but the session is abandoned."),
        "strict": ("Cannot establish who issued e4 (opaque counter, not in this buffer): 409 "
                   "cursor_unverifiable, the client re-initializes. With tagged ids the same "
                   "request fails the generation check instead."),
        "sdk": "The process table does not hold S1: 404; the SDK client raises.",
    },
)

TRUNCATED_BUFFER_LIVE_SESSION = Scenario(
    name="truncated_buffer_live_session",
    title="A gap on a live session: 404 versus a gap signal",
    source="incident B: the truncated-buffer boundary",
    config=SystemConfig(instances=2, store="local", buffer="local", event_ids="tagged",
                        buffer_capacity=2, lb="sticky"),
    steps=tuple([route("init", 0)] + _exchange(1, 0, 2)
                + [Disconnect(0), Emit(1), Emit(1), Emit(1), route("reconnect", 0), Settle()]),
    explanation=(
        "The session stays live on its instance, but while the client was away the buffer "
        "(capacity 2) dropped the event after the client's cursor. The right answer names the "
        "gap; answering 404 would throw away a live session and its in-flight calls (a needless "
        "re-initialization: try --gate simulations.example_gates:gap_as_404)."),
    notes={
        "naive": "E is not in the buffer: replays from the head, skipping m2 without a word.",
        "range": "E below the floor: 409 replay_gap naming the floor; the client resumes after it.",
        "generation": "Same generation, E below the floor: 409 replay_gap, resume after the floor.",
        "provenance": "Provenance holds, E below the floor: 200 with a leading gap event.",
        "strict": "All but reachability hold: 409 replay_gap, the client resumes after the floor.",
        "sdk": ("The event store no longer knows E: 200, no events, close. The SDK client resets "
                "its retry counter on a clean close and asks again, forever: a stall."),
    },
)

_FOREIGN_STEPS = tuple(
    [route("init", 0), route("init", 1)] + _exchange(1, 0, 1) + _exchange(2, 1, 1)
    + [Disconnect(1), Emit(2)] + _exchange(1, 0, 1) + [ForeignCursor(1, 0), Emit(2)]
    + _exchange(1, 0, 1) + [route("reconnect", 1), Settle()])

FOREIGN_CURSOR = Scenario(
    name="foreign_cursor",
    title="Another session's cursor presented on S (buffer keyed by event id)",
    source="incident B: cursor provenance",
    config=SystemConfig(instances=1, clients=2, store="local", buffer="local",
                        buffer_keying="event_id", event_ids="global"),
    steps=_FOREIGN_STEPS,
    explanation=(
        "Two sessions on one process share a server-global counter, so their ids interleave. A "
        "client bug puts S1's cursor e4 into c1's Last-Event-ID on S2. The process keeps one event "
        "store keyed by event id (the MCP SDK's EventStore shape), so looking e4 up finds S1's "
        "stream: a gate without a provenance check replays S1's events to c1 "
        "(cross_session_delivery), then c1's own m1 and m2 are skipped (silent_loss)."),
    notes={
        "naive": "e4 is found in the store: replays S1's events after it to c1.",
        "range": "e4 is found in the store: replays S1's events after it to c1.",
        "generation": ("e4 was emitted at generation 1 and S2 is at generation 1: the check "
                       "passes, and the event-id keyed store replays S1's events to c1."),
        "provenance": ("The store finds e4 in S1's stream, not S2's: 400 "
                       "cursor_session_mismatch; the client surfaces it."),
        "strict": ("e4 is a per-process counter value, which other processes and incarnations "
                   "issue too, so it proves no issuer: 409 cursor_unverifiable, the client "
                   "re-initializes. With tagged or unique ids the same request gets 400 "
                   "cursor_session_mismatch."),
        "sdk": "No provenance check: the event store replays S1's stream onto c1's GET.",
    },
)

FOREIGN_CURSOR_SESSION_KEYED = Scenario(
    name="foreign_cursor_session_keyed",
    title="Another session's cursor presented on S (buffer keyed by session)",
    source="incident B: cursor provenance",
    config=FOREIGN_CURSOR.config.replace(buffer_keying="session"),
    steps=_FOREIGN_STEPS,
    explanation=(
        "The same client bug, but each session has its own buffer and a cursor is looked up in "
        "S2's buffer only. e4 is not there, yet it compares within S2's range (e2..e5), so a range "
        "check reads it as a position in S2's stream and replays what comes after e4: c1 never "
        "gets its m1 (silent_loss). Nothing of S1 leaks."),
    notes={
        "naive": "e4 is not in S2's buffer: replays from the head (duplicates of c1's m0).",
        "range": "e4 compares within S2's range: replays after it, skipping c1's m1.",
        "generation": ("e4 carries no generation and is not in S2's buffer, so the check has "
                       "nothing to compare: range decides, and c1's m1 is skipped."),
        "provenance": "e4 is not attributable to S2: 400 cursor_session_mismatch.",
        "strict": ("e4 is a per-process counter value that proves no issuer (and is not in "
                   "S2's buffer): 409 cursor_unverifiable, the client re-initializes."),
        "sdk": "The (session-keyed) store does not know e4: 200, empty, close, forever: a stall.",
    },
)

RESULT_LOST_IN_A_RESTART = Scenario(
    name="result_lost_in_a_restart",
    title="A rolling restart between a call's execution and the delivery of its result",
    source="incident A: the restart that re-ran a tool call",
    config=SystemConfig(instances=2, messages_per_session=6, messages_per_call=3,
                        store="shared", buffer="shared", event_ids="tagged", lb="round_robin"),
    steps=tuple([route("init", 0)] + _exchange(1, 0, 2)
                + [Emit(1), Drain(0), Stop(0), route("reconnect", 0), Settle(), Start(0)]),
    explanation=(
        "Two calls: the first one's two progress notifications reach the client, then the "
        "server executes the call and its result is in flight when the instance is drained and "
        "stopped. The client comes back through the LB to the other instance. With sessions the"
        " result is in the shared buffer, but the session's process state is gone: a gate that "
        "admits the resumption replays the result and the recreated generation runs the call "
        "again; one that refuses sends the client to re-initialize, which re-issues the call (a"
        " cost, re-executed). Without sessions the client re-issues the call as a new request: "
        "executed again, unless the server sees the call's execution record."),
    notes={
        "strict": ("The tagged cursor proves S1 issued it, but serving S1 here needs its "
                   "state recreated: 409 generation_mismatch; the re-initialized session runs "
                   "the call again (re-executed: the cost of the refusal)."),
        "stateless": ("Nothing says the call ran: the re-issued request executes it again "
                      "(duplicate_execution)."),
        "stateless+idempotency": ("The shared execution record holds the call's key: the "
                                  "re-issue gets the recorded result, unexecuted. With "
                                  "execution_record = \"local\" the record died with i0."),
    },
)

SCENARIOS: Dict[str, Scenario] = {s.name: s for s in (
    RECONNECT_AFTER_ROLLING_RESTART, FAILOVER_FORMAT_ONLY, SHARED_STORE_LOCAL_BUFFER,
    TRUNCATED_BUFFER_LIVE_SESSION, FOREIGN_CURSOR, FOREIGN_CURSOR_SESSION_KEYED,
    RESULT_LOST_IN_A_RESTART)}
#: the scenarios the fleet drills on real processes by default (`conformance --fleet`): all of
#: them (`result_lost_in_a_restart` joined once the guard's shared buffers kept stream numbers:
#: tests/test_shared_buffers.py has the regression)
FLEET_SCENARIOS = tuple(SCENARIOS)
