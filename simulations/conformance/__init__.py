"""Conformance of the model against the real MCP Python SDK, plain and behind the strict guard
(StrictResumptionGuard, from the top-level package `mcp_resume_guard`), and against the MCP
TypeScript SDK (`--server ts`, Node; in progress).

Needs the optional extra `conformance` (`pip install -e '.[conformance]'`: the PyPI `mcp`
package, uvicorn, httpx) and, for the load-balanced cases, nginx on PATH. `cases`, `predict`,
`outcome` and `probe` need only the model, so predictions are listed anywhere; the modules that
import `mcp` load only when a harness run starts, and `python -m simulations conformance` says
what is missing first.

  event_store.py   a bounded in-memory EventStore with the SDK example store's semantics
  server.py        the server process the harness starts (one per instance)
  ts/              server.mjs: the same server on the TypeScript SDK (package.json, lockfile)
  processes.py     starting and stopping server and nginx processes (by pid, bounded waits)
  nginx.py         the generated nginx config (round-robin, or sticky on Mcp-Session-Id)
  wire.py          raw HTTP + SSE with headers under the harness's control
  sdk_driver.py    the SDK's own client, through a recording and gating HTTP transport
  cases.py         the cases: topology, what the harness does, and the model scenario
  predict.py       the model's prediction for a case (a policy in the same topology)
  harness.py       runs every case against real servers and builds the table
  outcome.py       what a case ended as, comparable between the model and a real run
  drills.py        the real side of each case
  probe.py         the probe endpoints servers answer outside MCP; HarnessError
  report.py        the results folder (conformance.json, CONFORMANCE.md, manifest)
"""
