"""Client profiles: the one vocabulary for how a client behaves, in every engine and output.

A profile is what a real client does when its stream breaks or its resumption is refused:
how it reacts to 404 and 409 (the model's `on_404`/`on_409`) and, for the timed engine, its
reconnect schedule. Whether a client drops events it already applied stays the deployment's
choice (`client_dedupe`): an application can dedupe above any client library.

Scripts, the explorer, the verification matrix, the DES, sweeps and the conformance harness all
name clients by these profiles; two selectors stand for a choice made per gate: `auto` (the
`sdk` policy with the MCP Python SDK's client, as deployed; every other gate with a spec
client) and `config` (the deployment's own on_404/on_409, untouched).

Sources: the MCP specification's streamable-HTTP transport (a client re-initializes on 404;
2025-11-25) and the reconnect code of the official Python and TypeScript SDK clients.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from model import SystemConfig


@dataclass(frozen=True)
class ClientProfile:
    """How a client reconnects after its stream closes, and how it reacts to 404/409.

    on_404, on_409              "reinit" (the spec) or "fail" (the SDK clients raise)
    initial, growth, max_delay  backoff: initial * growth**attempt, at most max_delay (seconds)
    max_retries                 consecutive reconnects without data before it gives up
    reset_on_clean_close        a stream the server closes cleanly resets the retry counter
    request_timeout             seconds after which a call that is still waiting fails with a
                                timeout error (None: it waits as long as the stream is open)
    """

    name: str
    summary: str
    on_404: str
    on_409: str
    initial: float
    growth: float
    max_delay: float
    max_retries: int
    reset_on_clean_close: bool
    request_timeout: Optional[float] = None

    def delay(self, attempt: int) -> float:
        return min(self.initial * self.growth ** attempt, self.max_delay)

    def applied_to(self, system: SystemConfig) -> SystemConfig:
        """The deployment with this client's reactions to 404 and 409."""
        return system.replace(on_404=self.on_404, on_409=self.on_409)


PROFILES: Dict[str, ClientProfile] = {p.name: p for p in (
    ClientProfile("sdk-python", "the MCP Python SDK client: 1 s (or the server's retry), 2 "
                  "attempts, counter reset on every clean close; raises on 404/409",
                  "fail", "fail", 1.0, 1.0, 1.0, 2, True),
    ClientProfile("sdk-typescript", "the MCP TypeScript SDK client: 1 s x1.5 up to 30 s (or "
                  "the server's retry), 2 retries of a refused resumption (404/409 included), "
                  "then it stops resuming; the call fails at its request timeout (60 s). "
                  "After a stream that carried no event id closes it asks again without a "
                  "cursor (its cursor is per stream), which also ends in the timeout",
                  "fail", "fail", 1.0, 1.5, 30.0, 2, False, 60.0),
    ClientProfile("spec", "a client that follows the spec: re-initializes on 404/409, the "
                  "TypeScript backoff but more patient", "reinit", "reinit",
                  1.0, 1.5, 30.0, 5, True),
)}
AUTO, CONFIG = "auto", "config"
#: what a --client option or a `client` key accepts
CHOICES: Tuple[str, ...] = (AUTO, *PROFILES, CONFIG)
#: the client each policy runs with under `auto`: the SDK's server with the SDK's own client
NATURAL_CLIENT: Dict[str, str] = {"sdk": "sdk-python"}
DEFAULT_PROFILE = "spec"


def unknown_client(name: str, choices: Tuple[str, ...] = CHOICES) -> Optional[str]:
    """None when `name` is one of `choices`, else the one line naming the valid ones (or
    saying it is not a name at all: a config value of the wrong type)."""
    if not isinstance(name, str):
        return f"a client profile name, got {name!r}"
    if name in choices:
        return None
    return f"unknown client profile {name!r}; valid: {', '.join(choices)}"


def natural_client(policy: str) -> str:
    """The profile `auto` picks for a gate: the SDK's client for `sdk`, else the spec client."""
    return NATURAL_CLIENT.get(policy, DEFAULT_PROFILE)


def resolve_client(choice: str, gate: str) -> str:
    """The profile a choice means for `gate`: `auto` resolved, a profile or `config` as is.
    Raises ValueError for an unknown choice."""
    problem = unknown_client(choice)
    if problem is not None:
        raise ValueError(problem)
    return natural_client(gate) if choice == AUTO else choice


def with_client(system: SystemConfig, profile: str) -> SystemConfig:
    """The deployment as `profile` (a profile name, or `config`: unchanged) runs it."""
    return system if profile == CONFIG else PROFILES[profile].applied_to(system)
