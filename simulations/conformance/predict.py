"""The model's prediction for a conformance case: its scenario run under a policy, read as an
Outcome. This module needs only the model (no `mcp`), so predictions can be listed anywhere.

The deployment the model is given is the one the harness builds: instance-local session table
and event store; with the SDK's store, cursors are opaque uuids looked up by event id across
sessions, and streams are keyed by JSON-RPC request id (buffer_keying "request_id"), so sessions
whose requests carry the same ids share a stream; behind the guard, ids are tagged and looked up
in the session's own buffer.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from model.actions import Reconnect
from model.history import Applied, ClientFailed, Decided, Initialized

from ..clients import PROFILES
from ..script import ScenarioRun, run_script
from .cases import CLIENT_DRIVERS
from .outcome import (
    COMPLETED,
    EMPTY,
    FOREIGN,
    GAVE_UP,
    NO_CLIENT,
    REINITIALIZED,
    STALLED,
    Outcome,
)

#: What each harness server is, as the model sees it: (policy, config overrides).
DEPLOYMENTS = {
    # The Python SDK primes a resumed stream after its replay (found by differential testing).
    "sdk": ("sdk", {"event_ids": "uuid", "buffer_keying": "request_id",
                    "priming_on_resume": True, "on_attached_stream": "replay_then_close"}),
    "guard": ("strict", {"event_ids": "tagged", "buffer_keying": "session",
                         "priming_on_resume": True,
                         "on_attached_stream": "replay_then_close"}),
    # The TypeScript SDK as its own example deploys it: one transport and one example event
    # store per session, random ids naming the stream, looked up in the session's own store;
    # an unknown cursor gets a stream attached to nothing (model.policies.sdk_typescript).
    "ts": ("sdk-typescript", {"event_ids": "uuid", "buffer_keying": "session"}),
}
#: The Python SDK behind ResumptionGuard with each other policy of the comparison: the same
#: deployment as `guard`, decided by that policy (`--server guard-naive`, ...).
GUARDED = {f"guard-{policy}": policy for policy in ("naive", "range", "generation", "provenance")}
DEPLOYMENTS.update({server: (policy, DEPLOYMENTS["guard"][1])
                    for server, policy in GUARDED.items()})
#: the client profile of each server's own SDK client, which drives its sdk_client cases
SDK_CLIENTS = {"sdk": "sdk-python", "guard": "sdk-python", "ts": "sdk-typescript",
               **{server: "sdk-python" for server in GUARDED}}
#: the servers `conformance` runs unless --server names others
DEFAULT_SERVERS = ("sdk", "guard", "ts")
#: what a real client can see of a stream effect in a case's quiet window: a detached stream
#: is open and silent, like an empty one (the difference shows only in what never arrives)
OBSERVABLE_EFFECT = {"detached": EMPTY}


def client_profile(case, server: str) -> str:
    """The profile of the real client that drives `case` on `server`: the one its driver names,
    else the server's own SDK's (SDK_CLIENTS: neither re-initializes on 404/409; no dedupe)."""
    return CLIENT_DRIVERS.get(case.driver) or SDK_CLIENTS[server]


def model_run(case, server: str) -> ScenarioRun:
    """The case's scenario under the policy that models `server` (DEPLOYMENTS), with the
    client that drives it (client_profile)."""
    policy, overrides = DEPLOYMENTS[server]
    return run_script(case.scenario, policy, client_profile=client_profile(case, server),
                      overrides=overrides)


def first_resumption(run: ScenarioRun) -> Tuple[Optional[Decided], List]:
    """The decision on the script's own resumption (the case's request), and every event after
    it."""
    events = [(r, e) for r in run.steps for e in r.events]
    for n, (record, event) in enumerate(events):
        if record.phase == "script" and isinstance(record.action, Reconnect) \
                and type(event) is Decided:
            return event, [e for _, e in events[n + 1:]]
    return None, []


def stream_effect(decided: Decided, after: List) -> str:
    """The decision's effect, or FOREIGN when the stream it admitted carried another session's
    messages to the client (what the real side can see), whatever the gate meant to replay."""
    for event in after:
        if type(event) is Decided and event.client == decided.client:
            break
        if type(event) is Applied and event.client == decided.client \
                and event.owner != decided.client:
            return FOREIGN
    return OBSERVABLE_EFFECT.get(decided.effect, decided.effect)


def client_outcome(run: ScenarioRun, client: int = 0) -> str:
    """Where the model's SDK client ended: it gave up on an error, kept resuming without
    progress (cut short by the settle phase), re-initialized, or applied its whole work."""
    events = [e for r in run.steps for e in r.events]
    if any(type(e) is ClientFailed and e.client == client for e in events):
        return GAVE_UP
    if any(f"c{client} " in line for line in run.cut_short):
        # a client whose call has a request timeout surfaces the stall as an error
        return GAVE_UP if PROFILES[run.client_profile].request_timeout else STALLED
    inits = [e for e in events if type(e) is Initialized and e.client == client]
    if len(inits) > 1:
        return REINITIALIZED
    last = run.config.messages_per_session - 1      # the result of the client's last call
    applied = any(type(e) is Applied and e.owner == client and e.msg == last for e in events)
    return COMPLETED if applied else STALLED


def predict(case, server: str) -> Outcome:
    run = model_run(case, server)
    if run.gate_error:
        raise RuntimeError(f"{case.name}: the model's gate failed: {run.gate_error}")
    decided, after = first_resumption(run)
    if decided is None:
        raise RuntimeError(f"{case.name}: the script's resumption was not enabled in the model")
    client = client_outcome(run, decided.client) if case.driver in CLIENT_DRIVERS else NO_CLIENT
    return Outcome(decided.status, decided.code, stream_effect(decided, after), client)
