"""Conformance of the model against the real MCP Python SDK, plain and behind the guard (any
policy: ResumptionGuard, from the top-level package `mcp_resume_guard`), and against the MCP
TypeScript SDK (Node): hand-written cases, differential testing (random sequences in lockstep
with the model), and the incident matrix on a real fleet (scripts in lockstep).

Needs the optional extra `conformance` (`pip install -e '.[conformance]'`: the PyPI `mcp`
package, uvicorn, httpx, redis) and, for the load-balanced cases, nginx on PATH (redis-server
for a Redis-backed fleet). `cases`, `predict`, `outcome` and `probe` need only the model, so
predictions are listed anywhere; the modules that import `mcp` load only when a harness run
starts, and `python -m simulations conformance` says what is missing first.

  event_store.py   a bounded in-memory EventStore with the SDK example store's semantics
  server.py        the server process the harness starts (one per instance)
  ts/              server.mjs: the same server on the TypeScript SDK; client.mjs: its client
                   driven like sdk_driver's (package.json, lockfile)
  processes.py     starting and stopping server and nginx processes (by pid, bounded waits)
  nginx.py         the generated nginx config (round-robin, or sticky on Mcp-Session-Id)
  redis_server.py  a Redis server on loopback for a Redis-backed fleet (no persistence)
  wire.py          raw HTTP + SSE with headers under the harness's control
  sdk_driver.py    the SDK's own client, through a recording and gating HTTP transport
  node_driver.py   the TypeScript SDK's client (ts/client.mjs), the same hooks over stdin/out
  cases.py         the cases: topology, what the harness does, and the model scenario
  predict.py       the model's prediction for a case (a policy in the same topology)
  harness.py       runs every case against real servers and builds the table
  outcome.py       what a case ended as, comparable between the model and a real run
  drills.py        the real side of each case
  probe.py         the probe endpoints servers answer outside MCP; HarnessError
  report.py        the results folders (CONFORMANCE.md, DIFFERENTIAL.md, JSON, manifests)
  fleet.py         the incident matrix on real processes: every scenario x policy in lockstep
  steering.py      nginx round-robin in a drill's path, lined up for each request by probes
  fleet_report.py  its results folder (FLEET.md, fleet.json, manifest)
  differential/    random sequences in lockstep on the model and a real fleet:
    scope.py         the default scope (no third-party imports)
    streams.py       SSE streams held open across steps, read by background tasks
    lockstep.py      one sequence, step by step on both sides, compared after every step
    labels.py        how the lockstep names what a stream carries (tool message, priming)
    machine.py       Hypothesis stateful sequences over a running fleet; the run's summary
    findings.py      what it found: named minimal sequences, replayed by every conformance run
  the stateless transport (protocol 2026-07-28, `--transport stateless`; STATELESS.md):
  modern_server.py   the SDK server in its modern mode, with an execution ledger per case
  stateless_cases.py the cases and the model's predictions (model only)
  stateless_wire.py  a raw 2026-07-28 client: one POST per call, re-issued under a new id
  stateless_drills.py the real side of each stateless case
  stateless_report.py its rows, table and results folder (STATELESS-RESULTS.md, JSON)
"""
