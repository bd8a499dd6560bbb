"""`python -m simulations report DIR` on a DES comparison and on a sweep."""
import json
from pathlib import Path

from simulations.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_report_of_a_des_run_has_every_section(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", str(ROOT / "simulations/configs/rolling_restart.toml"), "--set",
                 "timing.duration=300", "--replications", "2", "--policies", "naive,strict",
                 "--out", str(out)]) == 0
    assert main(["report", str(out)]) == 0
    text = (out / "REPORT.md").read_text()
    for heading in ("## The question", "## Configuration", "## Rates (95% intervals)",
                    "## Explorer verdicts", "## Provenance"):
        assert heading in text
    summary = json.loads((out / "summary.json").read_text())["summary"]
    mean = summary["naive"]["per_1000_resumptions"]["duplicate_delivery"]["mean"]
    assert "| naive | " in text and f"{mean:.1f} [" in text
    assert "| strict | holds | holds | holds | holds | holds | holds |" in text
    digest = text.split("manifest sha256 `")[1][:12]
    import hashlib
    assert digest == hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest()[:12]


def test_report_of_a_sweep_embeds_its_figures(tmp_path, capsys):
    out = tmp_path / "sweep"
    assert main(["sweep", str(ROOT / "simulations/sweeps/smoke.toml"), "--out", str(out),
                 "--quiet"]) == 0
    assert main(["figures", str(out)]) == 0
    assert main(["report", str(out), "--no-explore"]) == 0
    text = (out / "REPORT.md").read_text()
    assert "![stall_cdf](figures/stall_cdf.png)" in text
    assert "Share of sessions with a stall" in text and "## Explorer verdicts" not in text


def test_report_of_a_folder_without_results_is_a_usage_error(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    assert "manifest.json is missing" in capsys.readouterr().err


def test_regenerated_results_do_not_make_the_code_dirty(tmp_path):
    """A manifest is written after its folder's other files; rewriting committed results must
    not mark the code as changed (it did: every committed manifest said dirty=true)."""
    import subprocess
    from simulations.provenance import code_version

    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)
    (tmp_path / "model").mkdir()
    (tmp_path / "results").mkdir()
    (tmp_path / "model" / "code.py").write_text("x = 1\n")
    (tmp_path / "results" / "table.md").write_text("old\n")
    git("init", "-q")
    git("add", "-A")
    git("-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-qm", "c")
    (tmp_path / "results" / "table.md").write_text("new\n")
    assert code_version(tmp_path)["dirty"] is False
    (tmp_path / "model" / "code.py").write_text("x = 2\n")
    assert code_version(tmp_path)["dirty"] is True
