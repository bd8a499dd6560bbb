"""Deployments a gate explores in the same scope are one cell of the verification matrix:
`execution_record` on a row whose transport keeps no records (sessions, plain stateless). The
plan explores the first and names the others aliases; VERIFY.md shows them with `=`; and the
exploration of either placement is the same, state for state and trace for trace."""
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model import POLICIES, SystemConfig
from simulations.explore.scope import Scope
from simulations.explore.search import explore
from simulations.verify.cell import _record
from simulations.verify.matrix import write_outputs
from simulations.verify.run import plan, run_space
from simulations.verify.space import cell_scope, parse

ROWS = ["strict", "stateless", "stateless+idempotency", "tasks"]


def _space():
    return parse({"title": "aliases", "policies": ROWS, "max_states": 200000,
                  "scope": {"clients": 1, "messages_per_session": 1, "restarts": 1,
                            "client_restarts": 0, "compactions": 0, "foreign_cursors": 0},
                  "blocks": [{"name": "records", "axes": {
                      "instances": [2], "execution_record": ["local", "shared"]}}]})


def test_a_record_placement_no_row_reads_is_one_cell_and_the_later_deployment_an_alias(
        tmp_path):
    space, aliases = _space(), []
    cells = plan(space, tmp_path, aliases)
    per_row = {row: [c["deployment"].get("execution_record", "shared") for c in cells
                     if c["policy"] == row] for row in ROWS}
    assert per_row == {"strict": ["local"], "stateless": ["local"],
                       "stateless+idempotency": ["local", "shared"],
                       "tasks": ["local", "shared"]}
    assert [(a["policy"], a["deployment"]["execution_record"] if "execution_record" in
             a["deployment"] else "shared") for a in aliases] == [("strict", "shared"),
                                                                   ("stateless", "shared")]
    by_key = {c["key"]: c for c in cells}
    assert [by_key[a["same_as"]]["policy"] for a in aliases] == ["strict", "stateless"]
    # the cell explores the default placement, whichever deployment names it
    local = next(d for d in space.deployments if d.system.execution_record == "local")
    assert cell_scope(local, "strict", "auto").system.execution_record == "shared"
    assert cell_scope(local, "tasks", "auto").system.execution_record == "local"


def test_verify_md_shows_an_alias_with_the_labels_of_the_cell_it_is(tmp_path):
    space = _space()
    run = run_space(space, tmp_path, progress=False)
    records = write_outputs(space, run, tmp_path, "verify (test)")
    assert len(records) == 6 and len(run["aliases"]) == 2
    text = (tmp_path / "VERIFY.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| local") or
            line.startswith("| shared")]
    cells = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
             for line in rows}
    strict, stateless = ROWS.index("strict"), ROWS.index("stateless")
    assert cells["shared"][strict] == "= " + cells["local"][strict]
    assert cells["shared"][stateless] == "= " + cells["local"][stateless] == "= EXEC"
    assert not cells["local"][strict].startswith("=")
    assert "6 cells" in text
    assert json.loads((tmp_path / "manifest.json").read_text())["run"]["cells"] == 6
    assert "aliases" not in json.loads((tmp_path / "timings.json").read_text())


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(row=st.sampled_from(list(POLICIES) + ["stateless"]),
       instances=st.sampled_from([1, 2]),
       lb=st.sampled_from(["round_robin", "sticky"]),
       store=st.sampled_from(["local", "shared"]),
       drops=st.sampled_from([0, 1]))
def test_either_placement_explores_the_same_where_the_transport_keeps_no_records(
        row, instances, lb, store, drops):
    """The soundness of the alias: what the cell of the default placement found is what the
    other placement's own exploration finds (states, transitions, verdicts, traces)."""
    found = []
    for placement in ("local", "shared"):
        system = SystemConfig(instances=instances, clients=2, messages_per_session=1,
                              lb=lb, store=store, buffer_capacity=2,
                              execution_record=placement)
        if row == "stateless":
            system = system.replace(transport="stateless")
        scope = Scope(system=system, restarts=1, client_restarts=0, compactions=0,
                      foreign_cursors=0, drops=drops)
        record = _record(explore(scope, row))
        record.pop("seconds")
        found.append(record)
    assert found[0] == found[1]
    assert not SystemConfig(transport="stateless").keeps_records


def test_the_committed_matrix_names_its_aliases_in_verify_md():
    text = (Path(__file__).resolve().parent.parent /
            "results/verification/matrix/VERIFY.md").read_text()
    section = text.split("## two instances: execution and task records, local or shared")[1]
    table = section.split("\n## ")[0]
    assert "| round_robin" in table and "= " in table
