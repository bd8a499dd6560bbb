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
    for heading in ("## The question", "## Configuration",
                    "## Rates and costs (95% intervals over replications)",
                    "## Explorer verdicts for this deployment", "## Provenance"):
        assert heading in text
    summary = json.loads((out / "summary.json").read_text())["summary"]
    mean = summary["naive"]["share_of_sessions"]["duplicate_delivery"]["mean"]
    assert "| naive | spec | " in text and f"{100 * mean:.1f} [" in text
    assert "Cost of safety, per session-hour" in text
    # verdicts of the committed matrix for this deployment, with what differs named
    assert "They differ in: instances 2 (this run: 3)" in text
    assert "| strict | spec | holds | holds | holds | holds | holds | holds | holds | holds |" \
        in text
    assert main(["report", str(out), "--matrix", str(tmp_path / "none")]) == 0
    assert "no verdicts for this deployment exist yet" in (out / "REPORT.md").read_text()
    digest = text.split("manifest sha256 `")[1][:12]
    import hashlib
    assert digest == hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest()[:12]


def test_report_of_a_sweep_embeds_its_figures(tmp_path, capsys):
    out = tmp_path / "sweep"
    assert main(["sweep", str(ROOT / "simulations/sweeps/smoke.toml"), "--out", str(out),
                 "--quiet"]) == 0
    assert main(["figures", str(out)]) == 0
    assert main(["report", str(out)]) == 0
    text = (out / "REPORT.md").read_text()
    assert "![stall_cdf](figures/stall_cdf.png)" in text
    assert "sessions with a stall (%), by" in text and "## Explorer verdicts" not in text
    assert "Cost: re-initializations per session-hour" in text
    assert main(["report", str(out), "--inline"]) == 0
    assert "![stall_cdf](data:image/png;base64," in (out / "REPORT.md").read_text()


def test_report_of_a_folder_without_results_is_a_usage_error(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    assert "has neither summary.json (a `run`) nor results.csv" in capsys.readouterr().err


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
    (tmp_path / "README.md").write_text("<!-- headline:start -->\nold\n<!-- headline:end -->\n")
    git("init", "-q")
    git("add", "-A")
    git("-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-qm", "c")
    (tmp_path / "results" / "table.md").write_text("new\n")
    assert code_version(tmp_path)["dirty"] is False
    # the README's generated blocks are rewritten from the results (`readme`, in make results,
    # before the verification matrix's manifest is written): an output, not code
    (tmp_path / "README.md").write_text("<!-- headline:start -->\nnew\n<!-- headline:end -->\n")
    assert code_version(tmp_path)["dirty"] is False
    (tmp_path / "model" / "code.py").write_text("x = 2\n")
    assert code_version(tmp_path)["dirty"] is True


def test_the_readme_headline_is_generated_from_the_committed_sweeps():
    from simulations.readme_blocks import generate
    from simulations.verify.claims import block
    readme = (ROOT / "README.md").read_text()
    assert block(readme, "headline") == generate(["headline"])["headline"]


def test_the_committed_headline_figure_does_not_pool_store_placements():
    """naive at the shortest restart period: each placement's own share (the pooled line
    would show about half of each)."""
    data = json.loads((ROOT / "results/sweeps/restart_frequency/figures/data.json").read_text())
    facets = {f["facet"]["system.store"]: f["panels"]
              for f in data["rates"]["timing.restart_period"]}
    assert set(facets) == {"local", "shared"}
    stall = facets["local"]["stall"]["points"]["naive"][0]
    dup = facets["shared"]["duplicate_delivery"]["points"]["naive"][0]
    assert stall["mean"] > 0.45 and dup["mean"] > 0.45
    assert facets["local"]["duplicate_delivery"]["points"]["naive"][0]["mean"] < 0.05


def test_replication_intervals_are_wider_than_the_pooled_wilson_band_on_the_committed_sweep():
    import pandas as pd

    from simulations.des.stats import replication_interval, share_upper_bound, wilson
    frame = pd.read_csv(ROOT / "results/sweeps/restart_frequency/results.csv")
    wider = 0
    for _, group in frame[frame.policy == "naive"].groupby(
            ["param.timing.restart_period", "param.system.store"]):
        for name in ("stall", "duplicate_delivery"):
            shares = group[f"sessions_affected.{name}"] / group["sessions"]
            if shares.sum() == 0:
                continue
            ours = replication_interval(list(shares), share_upper_bound(group.sessions.sum()),
                                        1.0)
            pooled = wilson(int(group[f"sessions_affected.{name}"].sum()),
                            int(group["sessions"].sum()))
            wider += (ours["hi"] - ours["lo"]) > (pooled["hi"] - pooled["lo"])
    assert wider >= 4
