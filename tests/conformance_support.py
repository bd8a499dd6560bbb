"""Conformance tests need the 'conformance' extra (and nginx for the harness, redis-server for a
Redis-backed fleet). On a developer's machine without them they skip, naming what is missing; in
CI (MCP_CONFORMANCE_REQUIRED=1, set by .ci/run) a missing requirement fails instead, so the
conformance claim is always checked."""
import os

import pytest

REQUIRED = os.environ.get("MCP_CONFORMANCE_REQUIRED") == "1"


def require_conformance(need_nginx: bool = False, servers=(), cases=(),
                        need_redis: bool = False) -> None:
    """Skip (or, in CI, fail) unless the harness's requirements (for `servers` and `cases`:
    "ts" and the cases the TypeScript client drives need Node and the TypeScript SDK; with
    `need_redis`, redis-server and the `redis` client) are present."""
    from simulations.conformance.harness import missing_requirements
    missing = missing_requirements(servers, cases=cases, redis=need_redis)
    if not need_nginx:
        missing = [m for m in missing if "nginx" not in m]
    if missing:
        message = "conformance requirements missing: " + "; ".join(missing)
        if REQUIRED:
            pytest.fail(message)
        pytest.skip(message)
