"""The MCP TypeScript SDK as a real server (simulations/conformance/ts/server.mjs, the SDK pinned
by its lockfile, installed by `make test` with npm ci): it starts on a socket the harness hands
over, serves the harness's tool and probes, and on the cases where the model already predicts it
(sessions that are gone: unknown token, restart, failover behind nginx) the model agrees.

Not yet a default server of `conformance` (simulations/conformance/predict.py: DEFAULT_SERVERS):
on the replay cases it departs from the model, and those departures are the next work."""
import json
import subprocess
import sys

import pytest
from conformance_support import require_conformance

from simulations.conformance.predict import DEFAULT_SERVERS, DEPLOYMENTS

AGREEING = ("unknown_session", "restart_then_resume", "round_robin_elsewhere",
            "failover_round_robin", "failover_sticky")


@pytest.fixture(scope="module")
def ts_run(tmp_path_factory):
    require_conformance(need_nginx=True, servers=("ts",))
    out = tmp_path_factory.mktemp("conformance-ts")
    argv = [sys.executable, "-m", "simulations", "conformance", "--json", "--server", "ts",
            "--logs", str(out / "logs")] + [a for case in AGREEING for a in ("--case", case)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=600)


def test_the_typescript_sdk_server_agrees_with_the_model_where_sessions_are_gone(ts_run):
    rows = json.loads(ts_run.stdout)["rows"]
    assert [(r["case"], r["server"]) for r in rows] == [(c, "ts") for c in AGREEING]
    disagreements = [f"{r['case']}: {r['differences']} ({r['evidence']})"
                     for r in rows if not r["agree"]]
    assert disagreements == [], "\n".join(disagreements)
    assert all("404" in r["evidence"] for r in rows)
    assert ts_run.returncode == 0, ts_run.stderr


def test_the_typescript_server_is_opt_in_until_the_model_predicts_it():
    assert "ts" in DEPLOYMENTS and "ts" not in DEFAULT_SERVERS
