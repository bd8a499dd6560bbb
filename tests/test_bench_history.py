"""`bench history`: a past version's explorer against this checkout's, and its refusals."""
import json
import subprocess

import pytest

from simulations import bench_history
from simulations.cli import main


def _in_git_checkout() -> bool:
    try:
        return subprocess.run(["git", "-C", str(bench_history.REPO_ROOT), "rev-parse",
                               "HEAD"], capture_output=True).returncode == 0
    except FileNotFoundError:
        return False


needs_git = pytest.mark.skipif(not _in_git_checkout(),
                               reason="bench history reads past versions from git history")


def _round(states, cpu, build="b"):
    return {"states": states, "transitions": 2 * states, "cpu_seconds": cpu, "build": build}


def test_the_speedup_is_the_median_rounds_past_cpu_over_this_checkouts():
    past = [_round(100, 4.0), _round(100, 3.0), _round(100, 6.0), _round(100, 2.0)]
    now = [_round(100, 1.0), _round(100, 1.0), _round(100, 1.0), _round(100, 1.0)]
    r = bench_history.summarize(past, now)
    assert r["speedups"] == [4.0, 3.0, 6.0, 2.0]
    assert r["speedup"] == 3.0          # the lower middle of an even count
    assert r["past_cpu_seconds"] == 3.0 and r["repeats"] == 4
    assert r["states_equal"] and r["past_states_per_s"] == pytest.approx(100 / 3.0)
    assert "different state spaces" not in bench_history.text({**r, "rev": "x",
                                                               "commit": "abc",
                                                               "policy": "strict"})


def test_both_versions_are_put_over_the_yardsticks_this_checkouts_process_ran():
    now = {**_round(100, 0.5), "baseline_states_per_s": 160.0,
           "grid_baseline_states_per_s": 400.0}
    r = bench_history.summarize([_round(100, 2.0)], [now])
    assert r["ratio"] == pytest.approx(1.25) and r["past_ratio"] == pytest.approx(0.3125)
    assert r["grid_ratio"] == pytest.approx(0.5) and r["past_grid_ratio"] == pytest.approx(0.125)
    shown = bench_history.text({**r, "rev": "x", "commit": "abc", "policy": "strict"})
    assert "yardstick, 160 states/s): ratio 1.250 here, 0.312 for the past version" in shown
    assert "(400 states/s): 0.500 here, 0.125 for the past version" in shown
    assert "ratio" not in bench_history.summarize([_round(100, 2.0)], [_round(100, 1.0)])


def test_different_state_spaces_are_said_to_be_compared_per_scope_not_per_state():
    r = bench_history.summarize([_round(120, 2.0)], [_round(100, 1.0)])
    assert not r["states_equal"]
    shown = bench_history.text({**r, "rev": "x", "commit": "abc", "policy": "strict"})
    assert "different state spaces" in shown and "2.00x" in shown


@needs_git
def test_a_revision_not_in_the_history_is_refused_before_any_search(capsys):
    assert main(["bench", "history", "--rev", "no-such-revision-here"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "no commit 'no-such-revision-here'" in err


@needs_git
def test_a_commit_before_the_explorer_existed_is_refused(capsys):
    first = subprocess.run(["git", "-C", str(bench_history.REPO_ROOT), "rev-list",
                            "--max-parents=0", "HEAD"], capture_output=True,
                           text=True).stdout.split()[0]
    assert main(["bench", "history", "--rev", first]) == 2
    assert "has no explorer" in capsys.readouterr().err


def test_outside_a_git_checkout_it_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bench_history, "REPO_ROOT", tmp_path)
    assert main(["bench", "history", "--rev", "HEAD"]) == 2
    assert "is not a git checkout" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["bench", "explore", "--rev", "HEAD"], "--rev goes with `bench history` only"),
    (["bench", "history", "--repeats", "0"], "--repeats N (N >= 1)"),
    (["bench", "history", "--policy", "nonesuch"], "nonesuch"),
    (["bench", "history", "--rev=--all"], "not a revision"),
])
def test_bad_arguments_get_one_line_and_exit_2(argv, message, capsys):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err


@needs_git
def test_this_checkout_against_its_own_last_commit_searches_the_same_states(capsys):
    assert main(["bench", "history", "--rev", "HEAD", "--repeats", "1", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    head = subprocess.run(["git", "-C", str(bench_history.REPO_ROOT), "rev-parse", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    assert r["commit"] == head and r["rev"] == "HEAD" and r["policy"] == "strict"
    # the default scope, every state visited by both (the export runs from source)
    assert r["states"] == r["past_states"] == 24_170 and r["states_equal"]
    assert r["transitions"] == r["past_transitions"] == 59_862
    assert r["past_build"].startswith("Python sources") or "source" in r["past_build"]
    assert r["speedup"] > 0 and r["repeats"] == 1
    # both versions over this checkout's yardsticks, run in this checkout's process
    assert r["baseline_states_per_s"] > 0
    assert r["ratio"] == pytest.approx(r["states_per_s"] / r["baseline_states_per_s"])
    assert r["past_ratio"] == pytest.approx(r["past_states_per_s"] / r["baseline_states_per_s"])
    grid = r["grid_baseline_states_per_s"]
    assert r["grid_ratio"] == pytest.approx(r["states_per_s"] / grid)
    assert r["past_grid_ratio"] == pytest.approx(r["past_states_per_s"] / grid)


@needs_git
def test_a_past_search_that_fails_is_named_with_its_last_error_line(monkeypatch, capsys):
    monkeypatch.setattr(bench_history, "DRIVER", "import sys\nsys.exit('no such policy here')")
    assert main(["bench", "history", "--rev", "HEAD", "--repeats", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "the search of the default scope by commit HEAD failed: no such policy here" in err


@needs_git
def test_a_past_search_that_prints_no_figures_is_named(monkeypatch, capsys):
    monkeypatch.setattr(bench_history, "DRIVER", "print('hello')")
    assert main(["bench", "history", "--rev", "HEAD", "--repeats", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "by commit HEAD printed no figures (its last line: 'hello')" in err
