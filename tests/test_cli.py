"""The `python -m simulations scenario` command as a user runs it."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from model import POLICIES, VIOLATIONS
from simulations.cli import main
from simulations.scenarios import INCIDENT_ROWS, SCENARIOS

ROOT = Path(__file__).resolve().parent.parent


def cli(*args):
    return subprocess.run([sys.executable, "-m", "simulations", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_all_json_prints_one_object_per_scenario_and_policy():
    result = cli("scenario", "--all", "--json")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == len(SCENARIOS) * len(INCIDENT_ROWS)
    assert {(r["scenario"], r["policy"]) for r in rows} == \
        {(s, p) for s in SCENARIOS for p in INCIDENT_ROWS}
    for row in rows:
        assert set(row["violations"]) == set(VIOLATIONS)
        resumes = row["policy"] in POLICIES      # a stateless row decides no resumption
        assert (sum(row["decisions"].values()) >= 1) == resumes
    strict = [r for r in rows if r["policy"] == "strict"]
    assert all(not any(r["violations"].values()) for r in strict)


def test_a_narrative_shows_each_step_and_the_verdict():
    result = cli("scenario", "failover_format_only", "--policy", "naive")
    assert result.returncode == 0
    out = result.stdout
    assert "Reconnect(c0, i1)" in out and "[naive] 200 ok effect=empty" in out
    assert "VIOLATION stall" in out and "\nviolations: stall=1\n" in out


def test_one_run_as_json_carries_its_steps():
    result = cli("scenario", "foreign_cursor", "--policy", "strict", "--json")
    row = json.loads(result.stdout)
    assert row["decisions"] == {"cursor_unverifiable": 1}
    assert row["steps"][0]["action"] == "Init(c0, i0)"


@pytest.mark.parametrize("args, message", [
    (["scenario", "nope"], "unknown scenario 'nope'; valid: reconnect_after_rolling_restart"),
    (["scenario", "foreign_cursor", "--policy", "nope"],
     "unknown policy 'nope'; valid: naive, range, generation, provenance, strict, sdk"),
    (["scenario", "foreign_cursor", "--gate", "no.such.module:gate"], "cannot import"),
    (["scenario", "foreign_cursor", "--gate", "simulations.example_gates:nothing"],
     "has no attribute"),
    (["scenario", "foreign_cursor", "--gate", "simulations.example_gates"],
     "expected package.module:function"),
    (["scenario", "--all", "--client", "weird"], "unknown client profile 'weird'"),
    (["scenario"], "give a scenario NAME or --all"),
    (["nosuchverb"], "invalid choice"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, capsys):
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


def test_a_gate_that_is_not_callable_is_rejected(capsys):
    assert main(["scenario", "foreign_cursor", "--gate", "simulations.scenarios:SCENARIOS"]) == 2
    assert "is a dict, not a callable" in capsys.readouterr().err


def test_out_writes_the_matrix_and_a_manifest(tmp_path):
    result = cli("scenario", "--all", "--out", str(tmp_path / "inc"))
    assert result.returncode == 0
    files = sorted(p.name for p in (tmp_path / "inc").iterdir())
    assert files == ["manifest.json", "matrix.jsonl", "matrix.txt"]
    manifest = json.loads((tmp_path / "inc" / "manifest.json").read_text())
    assert set(manifest["config"]["scenarios"]) == set(SCENARIOS)
    assert "commit" in manifest["code"] and manifest["packages"]["python"]


def test_bad_input_writes_nothing(tmp_path):
    assert main(["scenario", "nope", "--out", str(tmp_path / "x")]) == 2
    assert not (tmp_path / "x").exists()


def test_a_users_gate_from_the_command_line():
    result = cli("scenario", "truncated_buffer_live_session", "--gate",
                 "simulations.example_gates:gap_as_404")
    assert result.returncode == 0
    assert "VIOLATION needless_reinit" in result.stdout


@pytest.mark.parametrize("verb", [[], ["scenario"]])
def test_help_on_every_verb(verb):
    result = cli(*verb, "--help")
    assert result.returncode == 0 and "usage:" in result.stdout


def test_the_readme_gate_example_runs(tmp_path):
    text = (ROOT / "README.md").read_text()
    code = text.split("# mygates.py\n", 1)[1].split("```", 1)[0]
    (tmp_path / "mygates.py").write_text(code)
    result = subprocess.run([sys.executable, "-m", "simulations", "scenario", "--all", "--json",
                             "--gate", "mygates:my_gate"], cwd=ROOT, capture_output=True,
                            text=True, timeout=120,
                            env={"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    mine = [r for r in rows if r["policy"] == "mygates:my_gate"]
    assert len(mine) == len(SCENARIOS) and len(rows) == len(SCENARIOS) * (len(INCIDENT_ROWS) + 1)
    assert all(not any(r["violations"].values()) for r in mine)


def test_no_help_text_prints_a_doubled_percent_sign(capsys):
    """argparse %-formats argument help but not descriptions: '95%%' once leaked into --help."""
    for verb in ("run", "sweep", "figures", "report", "readme", "verify", "explore", "scenario",
                 "bench", "conformance"):
        with pytest.raises(SystemExit):
            main([verb, "--help"])
        assert "%%" not in capsys.readouterr().out, verb


#: libraries a verb loads only when it runs (plotting, tables, statistics, the DES, graphs)
LOADED_WHEN_USED = ("matplotlib", "pandas", "scipy", "simpy", "networkx", "dask", "httpx",
                    "hypothesis")


def test_the_command_line_starts_without_the_engines_libraries():
    """Building the parser (every verb's --help and argument checks) imports none of them, so
    `explore` pays neither their start-up time nor their memory (they used to add about 2 s
    and 110 MB to every invocation)."""
    code = ("import sys; from simulations.cli import build_parser; build_parser(); "
            f"print([m for m in {LOADED_WHEN_USED!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_explore_loads_no_plotting_table_or_des_library():
    code = ("import sys; from simulations.cli import main; "
            "main(['explore', '--clients', '1', '--sessions', '1', '--json']); "
            "print([m for m in ('matplotlib', 'pandas', 'simpy', 'networkx', 'dask') "
            "if m in sys.modules], file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert json.loads(done.stdout)["states"] > 0
    assert done.stderr.strip().splitlines()[-1] == "[]"
