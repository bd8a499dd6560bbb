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


def test_the_committed_matrix_covers_the_committed_space(cells):
    space = load(ROOT / "simulations/spaces/matrix.toml")
    expected = {(gate, d.block, json.dumps(d.key(), sort_keys=True))
                for gate in space.gates for d in space.deployments}
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
    assert len(space.deployments) == 240 and len(space.gates) == 7
    assert data["scope"]["clients"] >= 2
