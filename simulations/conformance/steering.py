"""nginx round-robin in a drill's request path, steered to the instance each step names.

A scripted incident names the instance of every request (its load balancer's choice in the
model). On the fleet every client request goes through a real nginx (round-robin, one worker),
so its proxying is what the clients meet: SSE passed through unbuffered, Last-Event-ID and
Mcp-Session-Id forwarded, an upstream that stops or crashes ending the client's stream, a
stopped instance skipped. nginx still picks the upstream; the harness only lines its rotation up
with the script by sending probe requests first (nginx's round-robin over equal peers goes round
them in order, a peer that refuses the connection passed over), and every answer's `X-Upstream`
is checked: a request nginx sent elsewhere than the script is a disagreement, never a silent
re-routing. (nginx's other affinity, a hash of Mcp-Session-Id, cannot be the model's `sticky`,
which returns a session to the instance that answered its initialize: the drills realise the
scenario's affinity through the round-robin, by steering.)
"""
from __future__ import annotations

from typing import Dict, List, Optional

from . import loopback
from .nginx import Nginx
from .probe import STORED_PREFIX
from .processes import Processes, ServerInstance

#: probes sent at most before one request (more means nginx is not going round its peers)
MAX_PROBES = 8


def answered_by(x_upstream: str) -> str:
    """The upstream that answered ("127.0.0.1:port"): the last nginx tried."""
    return x_upstream.split(",")[-1].strip()


class SteeredNginx:
    """nginx round-robin in front of a fleet; `url(instance)` steers its next request."""

    def __init__(self, procs: Processes, fleet: List[ServerInstance]) -> None:
        self.fleet = fleet
        # max_fails=0: a peer is never taken out of the rotation, so an instance that starts
        # again gets requests at once (a stopped one refuses the connection and is passed over)
        self.nginx = Nginx(procs, "round_robin", [s.port for s in fleet], max_fails=0)
        self.http = loopback.client(timeout=5.0)
        self.requests = 0        # client requests sent through nginx
        self.probes = 0          # probe requests that lined its rotation up

    def _address(self, instance: int) -> str:
        return f"127.0.0.1:{self.fleet[instance].port}"

    def _probe(self) -> List[str]:
        """The upstreams nginx tried for one probe request, in order (the last answered)."""
        self.probes += 1
        answer = self.http.get(f"{self.nginx.url}{STORED_PREFIX}-")
        return [a.strip() for a in answer.headers.get("x-upstream", "").split(",")]

    def url(self, instance: int) -> str:
        """nginx's base URL, its rotation lined up so the next request goes to `instance`: probe
        until nginx's last pick was the peer before it in the rotation (answering, or refusing
        the connection: then nginx passes over it to the next, `instance`, every time)."""
        self.requests += 1
        peers = len(self.fleet)
        if peers > 1:
            before = self._address((instance - 1) % peers)
            for _ in range(MAX_PROBES):
                tried = self._probe()
                if tried[-1] == before or before in tried[:-1]:
                    break
        return self.nginx.url

    def wrong_instance(self, headers: Dict[str, str], instance: int) -> Optional[str]:
        """Why an answer nginx relayed did not come from `instance` (None: it did)."""
        got = answered_by(headers.get("x-upstream", ""))
        if got == self._address(instance):
            return None
        names = {self._address(i): f"i{i}" for i in range(len(self.fleet))}
        return f"nginx sent it to {names.get(got, got or 'no upstream')}, the scenario to " \
            f"i{instance}"

    def close(self) -> None:
        self.http.close()
