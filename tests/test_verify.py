"""The verification matrix (`verify`): the reduced space end to end, its JSON, its files,
resuming, bring-your-own gates and bad input."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from process_support import kill_after_files

from model import POLICIES, apply, findings_of, initial_state
from simulations.cli import main
from simulations.render import parse_action
from simulations.verify.matrix import JUDGED, failing, witnesses
from simulations.verify.space import cell_scope, load

ROOT = Path(__file__).resolve().parent.parent
REDUCED = ROOT / "simulations/spaces/reduced.toml"


@pytest.fixture(scope="module")
def reduced(tmp_path_factory):
    """The reduced space verified once for the module: (cells as printed by --json, folder)."""
    out = tmp_path_factory.mktemp("verify") / "reduced"
    import contextlib
    import io
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["verify", "--space", str(REDUCED), "--out", str(out), "--json",
                     "--workers", "2"]) == 0
    return [json.loads(line) for line in buffer.getvalue().splitlines()], out


def test_json_has_one_object_per_gate_and_deployment_with_the_documented_fields(reduced):
    cells, _ = reduced
    space = load(REDUCED)
    assert len(cells) == len(space.gates) * len(space.deployments) == 7 * 14
    for cell in cells:
        assert {"policy", "deployment", "properties", "states", "complete"} <= set(cell)
        assert isinstance(cell["deployment"], dict) and "event_ids" in cell["deployment"]
        for name in JUDGED:
            prop = cell["properties"][name]
            assert prop["verdict"] in ("holds", "violated", "unknown")
            assert (prop["trace_length"] is None) == (prop["verdict"] != "violated")


def test_strict_holds_everywhere_but_where_a_named_exception_excuses_it(reduced):
    cells, _ = reduced
    strict = [c for c in cells if c["policy"] == "strict"]
    assert strict and all(c["complete"] for c in strict)
    assert [c["deployment"] for c in strict if failing(c)] == []
    excused = {c["deployment"]["buffer_keying"] for c in strict
               if any(p["excused_by"] for p in c["properties"].values())}
    assert excused == {"request_id"}


@pytest.mark.parametrize("policy", [p for p in POLICIES if p != "strict"])
def test_every_other_policy_fails_somewhere_with_a_trace(reduced, policy):
    cells, _ = reduced
    bad = [c for c in cells if c["policy"] == policy and failing(c)]
    assert bad
    name = failing(bad[0])[0]
    assert bad[0]["properties"][name]["trace_length"] > 0


def test_every_judged_property_has_a_witness_so_none_is_vacuous(reduced):
    cells, _ = reduced
    found = witnesses(cells)
    assert [name for name, w in found.items() if w is None] == []
    assert found["needless_reinit"]["gate"] == "simulations.example_gates:gap_as_404"


def test_every_stored_trace_replays_to_its_violation(reduced):
    cells, _ = reduced
    space = load(REDUCED)
    by_key = {(d.block, json.dumps(d.key(), sort_keys=True)): d for d in space.deployments}
    checked = 0
    for cell in cells:
        if cell["policy"] not in POLICIES:
            continue
        deployment = by_key[(cell["block"], json.dumps(cell["deployment"], sort_keys=True))]
        scope = cell_scope(deployment, cell["policy"], space.client)
        for name, causes in cell["traces"].items():
            if name == "stall_liveness":
                continue
            for cause, steps in causes.items():
                state, seen = initial_state(scope.system), set()
                for step in steps:
                    state, events = apply(state, parse_action(step), scope.system, cell["policy"])
                    seen |= {(f.name, f.cause) for e in events for f in findings_of(e)}
                if name != "any_duplicate":
                    assert (name, cause) in seen, (cell["policy"], name, cause)
                checked += 1
    assert checked > 100


def test_the_files_are_written_and_a_second_run_resumes_every_cell(reduced, capsys):
    cells, out = reduced
    for name in ("verdicts.csv", "cells.jsonl", "VERIFY.md", "manifest.json"):
        assert (out / name).stat().st_size > 0
    text = (out / "VERIFY.md").read_text()
    assert "## Named exceptions" in text and "request_id_keying" in text
    rows = (out / "verdicts.csv").read_text().splitlines()
    assert len(rows) == 1 + len(cells) * 9
    before = (out / "cells.jsonl").read_text()
    assert main(["verify", "--space", str(REDUCED), "--out", str(out), "--quiet"]) == 0
    assert f"{len(cells)} cells (0 explored, {len(cells)} already done)" in capsys.readouterr().out
    assert (out / "cells.jsonl").read_text() == before


def test_a_bring_your_own_gate_runs_through_the_whole_space(tmp_path, capsys):
    out = tmp_path / "mine"
    assert main(["verify", "--space", str(REDUCED), "--gate",
                 "simulations.example_gates:tagged_strict", "--out", str(out), "--json"]) == 0
    cells = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(cells) == 14 and {c["policy"] for c in cells} == \
        {"simulations.example_gates:tagged_strict"}
    # written for tagged ids, it trusts a found counter's owner only where ids are unique
    tagged = [c for c in cells if c["deployment"]["event_ids"] == "tagged"
              and c["deployment"]["buffer_keying"] != "request_id"]
    assert tagged and not any(failing(c) for c in tagged)


SPACE_ERRORS = [
    ('[[blocks]]\n[blocks.axes]\nwidgets = [1]\n',
     "'blocks[0].axes.widgets': unknown deployment key"),
    ('title = "x"\n', "'blocks': the space is empty"),
    ('[[blocks]]\n[blocks.axes]\nevent_ids = []\n', "needs a non-empty list"),
    ('[[blocks]]\n[blocks.axes]\nlb = ["magic"]\n', "'blocks[0].axes.lb': must be one of"),
    ('[[blocks]]\n[blocks.axes]\non_404 = ["fail"]\n', "set by `client`"),
    ('policies = ["strict", "nope"]\n[[blocks]]\n[blocks.axes]\ninstances = [1]\n', "'policies'"),
    ('gates = ["no.such:gate"]\n[[blocks]]\n[blocks.axes]\ninstances = [1]\n', "cannot import"),
    ('[scope]\nrestarts = -1\n[[blocks]]\n[blocks.axes]\ninstances = [1]\n', "'scope.restarts'"),
]


@pytest.mark.parametrize("text, message", SPACE_ERRORS)
def test_a_bad_space_is_one_line_exit_2_and_nothing_written(tmp_path, capsys, text, message):
    space = tmp_path / "space.toml"
    space.write_text(text)
    out = tmp_path / "out"
    assert main(["verify", "--space", str(space), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert not out.exists()


@pytest.mark.parametrize("args, message", [
    (["--policy", "nope"], "unknown policy 'nope'"),
    (["--policy", ""], "names no policy"),
    (["--gate", "no.such:gate"], "cannot import"),
    (["--gate", "simulations.scenarios:SCENARIOS"], "not a callable"),
    (["--space", "/nonexistent.toml"], "no such space file"),
    (["--space", "simulations"], "is a directory, not a space file"),
    (["--workers", "0"], "--workers must be >= 1"),
    (["--scheduler", "tcp://127.0.0.1:9"], "no Dask scheduler reachable"),
])
def test_bad_arguments_are_one_line_exit_2_and_nothing_written(tmp_path, capsys, args, message):
    out = tmp_path / "out"
    assert main(["verify", "--space", str(REDUCED), "--out", str(out), *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert not out.exists()


SMALL = '''
policies = ["naive", "strict"]
max_states = 200000
[deployment]
buffer_capacity = 2
[scope]
clients = 2
messages_per_session = 1
messages_per_call = 1
restarts = 1
client_restarts = 1
compactions = 1
foreign_cursors = 1
[[blocks]]
name = "small"
[blocks.axes]
instances = [1]
store = ["local", "shared"]
buffer_keying = ["session", "event_id"]
event_ids = ["per_session", "tagged"]
'''


def verify(space, out, *extra, timeout=900):
    return subprocess.run([sys.executable, "-m", "simulations", "verify", "--space", str(space),
                           "--out", str(out), "--quiet", *extra], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("small")
    space = folder / "small.toml"
    space.write_text(SMALL)
    result = verify(space, folder / "whole", "--workers", "2")
    assert result.returncode == 0, result.stderr
    return space, folder / "whole"


def test_sigkill_mid_run_then_resume_equals_an_uninterrupted_run(small_run, tmp_path):
    space, whole = small_run
    broken = tmp_path / "broken"
    done = kill_after_files([sys.executable, "-m", "simulations", "verify", "--space",
                             str(space), "--out", str(broken), "--quiet", "--workers", "2"],
                            broken / "cells", 5)
    assert 0 < done < 16, done
    assert not (broken / "verdicts.csv").exists()
    for path in (broken / "cells").glob("*.json"):
        json.loads(path.read_text())  # every cell file left behind is complete
    resumed = verify(space, broken, "--workers", "2")
    assert resumed.returncode == 0, resumed.stderr
    assert f"{done} already done" in resumed.stdout
    for name in ("verdicts.csv", "cells.jsonl"):
        assert (broken / name).read_bytes() == (whole / name).read_bytes(), name


def test_a_dask_cluster_gives_the_same_matrix_as_local_processes(dask_cluster, small_run,
                                                                  tmp_path):
    space, whole = small_run
    result = verify(space, tmp_path / "dask", "--scheduler", dask_cluster)
    assert result.returncode == 0, result.stderr
    for name in ("verdicts.csv", "cells.jsonl"):
        assert (tmp_path / "dask" / name).read_bytes() == (whole / name).read_bytes(), name
    for name in ("manifest.json", "timings.json"):
        assert (tmp_path / "dask" / name).is_file(), name
    timings = json.loads((tmp_path / "dask" / "timings.json").read_text())
    assert timings["scheduler"] == dask_cluster
    manifest = json.loads((tmp_path / "dask" / "manifest.json").read_text())
    assert set(manifest["run"]) == {"cells", "code"}, "the manifest holds results, not timings"
