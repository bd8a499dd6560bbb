"""What the README and the notebooks claim about where policies hold is what the committed
verification matrix (results/verification/matrix) says, and the matrix says what it must."""
import json
import tomllib
from pathlib import Path

import pytest

from model import POLICIES
from simulations.verify.claims import block, properties_markdown, summary_markdown
from simulations.verify.exceptions import EXCEPTIONS
from simulations.verify.matrix import failing, unknown, witnesses
from simulations.verify.space import load

ROOT = Path(__file__).resolve().parent.parent
MATRIX = ROOT / "results/verification/matrix"
README = (ROOT / "README.md").read_text()


@pytest.fixture(scope="module")
def cells():
    return [json.loads(line) for line in (MATRIX / "cells.jsonl").read_text().splitlines()]


def test_the_readme_property_table_is_the_registry():
    assert block(README, "properties") == properties_markdown()


def test_the_readme_verification_summary_is_generated_from_the_committed_matrix(cells):
    timings = json.loads((MATRIX / "timings.json").read_text())
    assert block(README, "verification-summary") == summary_markdown(cells, timings)


def test_the_committed_matrix_covers_the_committed_space(cells, tmp_path):
    from simulations.verify.run import plan
    space = load(ROOT / "simulations/spaces/matrix.toml")
    planned = plan(space, tmp_path)
    expected = {(c["policy"], c["block"], json.dumps(c["deployment"], sort_keys=True))
                for c in planned}
    assert len(expected) == len(planned) == len(cells)
    found = {(c["policy"], c["block"], json.dumps(c["deployment"], sort_keys=True))
             for c in cells}
    assert found == expected
    manifest = json.loads((MATRIX / "manifest.json").read_text())
    assert manifest["code"]["dirty"] is False


def test_strict_holds_everywhere_but_where_a_named_exception_excuses_it(cells):
    strict = [c for c in cells if c["policy"] == "strict"]
    assert [c["deployment"] for c in strict if failing(c) or unknown(c)] == []
    assert all(c["complete"] for c in strict)


@pytest.mark.parametrize("policy", [p for p in POLICIES if p != "strict"])
def test_every_other_policy_fails_somewhere_with_a_trace(cells, policy):
    bad = [c for c in cells if c["policy"] == policy and failing(c)]
    assert bad, policy
    name = failing(bad[0])[0]
    assert bad[0]["properties"][name]["trace_length"] >= 1


def test_every_judged_property_has_a_witness(cells):
    assert [name for name, w in witnesses(cells).items() if w is None] == []


def test_every_named_exception_is_needed_somewhere(cells):
    used = {n for c in cells for p in c["properties"].values() if p["excused_by"]
            for n in p["excused_by"].split(", ")}
    assert used == {e.name for e in EXCEPTIONS}


def test_the_space_file_is_valid_toml_with_the_documented_size():
    data = tomllib.loads((ROOT / "simulations/spaces/matrix.toml").read_text())
    space = load(ROOT / "simulations/spaces/matrix.toml")
    assert len(space.deployments) == 248 and len(space.gates) == 10
    assert data["scope"]["clients"] >= 2


def _records(cell) -> str:
    return cell["deployment"].get("execution_record", "shared")


def _expires(cell) -> bool:
    return cell["scope"].get("expiries", 0) > 0


def test_plain_stateless_executes_a_call_twice_somewhere(cells):
    rows = [c for c in cells if c["policy"] == "stateless"]
    assert rows and all(c["complete"] for c in rows)
    causes = {k for c in rows if "duplicate_execution" in failing(c)
              for k in c["properties"]["duplicate_execution"]["causes"]}
    assert causes == {"reissued_after_break"}


def test_a_shared_execution_record_within_its_ttl_holds_everywhere(cells):
    """stateless+idempotency: every judged property holds in every deployment whose record is
    shared and never expires; a local record, or one that expires, executes a call twice."""
    rows = [c for c in cells if c["policy"] == "stateless+idempotency"]
    kept = [c for c in rows if _records(c) == "shared" and not _expires(c)]
    assert kept and all(c["complete"] and not failing(c) for c in kept)
    for broken in ([c for c in rows if _records(c) == "local"],
                   [c for c in rows if _records(c) == "shared" and _expires(c)]):
        assert broken and any("duplicate_execution" in failing(c) for c in broken)


def test_tasks_stall_on_a_shared_record_and_run_twice_on_a_local_one(cells):
    """tasks: a shared task record never has a call executed twice within its TTL, but a
    worker that stops leaves it saying "working" (a stall) wherever the scope restarts an
    instance; a local record never stalls, and a poll elsewhere runs the call twice."""
    rows = [c for c in cells if c["policy"] == "tasks"]
    shared = [c for c in rows if _records(c) == "shared"]
    local = [c for c in rows if _records(c) == "local"]
    assert shared and local and all(c["complete"] for c in rows)
    assert not any("duplicate_execution" in failing(c) for c in shared if not _expires(c))
    restarting = [c for c in shared if c["scope"]["restarts"] > 0]
    assert restarting and all("stall" in failing(c) for c in restarting)
    assert not any("stall" in failing(c) for c in local)
    assert any("duplicate_execution" in failing(c) for c in local)
