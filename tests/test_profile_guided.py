"""The profile-guided build: which compilers get it, what the final build is given in each
case, and a training run that refuses to profile a build that did not load compiled."""
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from model import native
from simulations import compile_model, profile_guided

ROOT = Path(__file__).resolve().parent.parent
GCC_12 = ("gcc (Debian 12.2.0-14+deb12u1) 12.2.0\nCopyright (C) 2022 Free Software "
          "Foundation, Inc.\n", "12.2.0")


def _compiler(monkeypatch, about: str, version: str):
    def run(args, **kwargs):
        return SimpleNamespace(stdout=version if "-dumpfullversion" in args else about,
                               returncode=0)
    monkeypatch.setattr(profile_guided.subprocess, "run", run)


@pytest.mark.parametrize("about, version, why", [
    (*GCC_12, None),
    ("cc (Debian 12.2.0-14) 12.2.0\nCopyright (C) 2022 Free Software Foundation, Inc.\n",
     "12.2.0", None),                                        # cc is GCC under another name
    ("gcc (GCC) 10.2.1\nCopyright (C) 2020 Free Software Foundation, Inc.\n", "10.2.1",
     "GCC 10.2.1 is older than 11"),
    ("Debian clang version 14.0.6\nTarget: x86_64-pc-linux-gnu\n", "14.0.6",
     "the C compiler is not GCC (Debian clang version 14.0.6)"),
    ("icc (ICC) 2021.1\n", "2021.1", "the C compiler is not GCC (icc (ICC) 2021.1)"),
])
def test_only_gcc_11_or_later_builds_with_a_profile(monkeypatch, about, version, why):
    _compiler(monkeypatch, about, version)
    assert profile_guided.unavailable() == why


def test_a_compiler_that_cannot_be_asked_gets_no_profile(monkeypatch):
    def run(args, **kwargs):
        raise OSError("no such file")
    monkeypatch.setattr(profile_guided.subprocess, "run", run)
    assert "could not be asked its version: no such file" in profile_guided.unavailable()


def _final(monkeypatch, tmp_path, unavailable=None, instrumented=None, trained=None,
           profile=True):
    """_final_env with the compiler, the builds and the training faked: (env, why, builds)."""
    builds = []
    monkeypatch.setattr(profile_guided, "unavailable", lambda: unavailable)
    monkeypatch.setattr(compile_model, "_setup",
                        lambda work, groups, env, *more: builds.append(env["CFLAGS"])
                        or instrumented)
    monkeypatch.setattr(profile_guided, "train", lambda work: trained)
    env, why = compile_model._final_env(tmp_path, [], {"CFLAGS": "-fwrapv"}, profile)
    return env, why, builds


def test_a_trained_profile_guides_the_final_build(monkeypatch, tmp_path):
    env, why, builds = _final(monkeypatch, tmp_path)
    assert why is None
    assert builds == [f"-fwrapv {profile_guided.COMMON_FLAGS} "
                      f"-fprofile-generate={tmp_path / 'profile'} "
                      f"-fprofile-prefix-path={tmp_path}"]
    assert f"-fprofile-use={tmp_path / 'profile'}" in env["CFLAGS"]
    assert "-fprofile-partial-training" in env["CFLAGS"]
    assert "-fprofile-generate" not in env["CFLAGS"] and profile_guided.COMMON_FLAGS in \
        env["CFLAGS"] and env["LDFLAGS"].startswith(profile_guided.COMMON_FLAGS)


@pytest.mark.parametrize("case, why", [
    (dict(unavailable="GCC 10.2.1 is older than 11"), "GCC 10.2.1 is older than 11"),
    (dict(profile=False), "--no-profile"),
    (dict(instrumented="x.c:1: error: bad\n  error: command 'gcc' failed"),
     "the instrumented build failed: error: command 'gcc' failed"),
    (dict(trained="the training run failed: boom"), "the training run failed: boom"),
])
def test_without_a_profile_the_final_build_says_why(monkeypatch, tmp_path, case, why):
    env, found, builds = _final(monkeypatch, tmp_path, **case)
    assert found == why
    assert "-fprofile-use" not in env["CFLAGS"]
    # the flags every GCC 11 build gets, and nothing where the compiler is not one
    assert (profile_guided.COMMON_FLAGS in env["CFLAGS"]) == ("unavailable" not in case)
    assert len(builds) == (1 if "trained" in case or "instrumented" in case else 0)


def test_the_training_refuses_a_build_that_did_not_load_compiled():
    # from source, a profile would be written by nothing it trains: it stops and says so
    env = {**os.environ, native.PURE_ENV: "1"}
    done = subprocess.run([sys.executable, "-c", profile_guided.TRAINING, str(ROOT)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "model.transitions did not load compiled" in done.stderr


def test_the_training_refuses_a_build_from_elsewhere(tmp_path):
    # a directory without the build: the installed model is found instead (compiled or not),
    # and not trained on
    why = profile_guided.train(tmp_path)
    assert why.startswith("the training run failed: model.transitions ")
    assert "is not the build in" in why or "did not load compiled" in why


def test_a_build_that_fails_with_the_flags_is_made_again_without_them(monkeypatch, tmp_path):
    builds = []

    def setup(work, groups, env, *more):
        builds.append((env["CFLAGS"], more))
        return "x.c:9: error: unknown flag" if "-fprofile-use" in env["CFLAGS"] else None
    monkeypatch.setattr(profile_guided, "unavailable", lambda: None)
    monkeypatch.setattr(profile_guided, "train", lambda work: None)
    monkeypatch.setattr(compile_model, "_setup", setup)
    failed, why = compile_model._build_kept(tmp_path, [], {"CFLAGS": "-fwrapv"}, True)
    assert failed is None
    assert why == "the build with GCC's flags failed: x.c:9: error: unknown flag"
    # instrumented, guided (failed), then plain: the flags CPython builds with alone
    assert [more for _, more in builds] == [(), ("--force",), ("--force",)]
    assert builds[-1][0] == "-fwrapv"


def test_a_build_that_fails_plain_reports_its_errors(monkeypatch, tmp_path):
    monkeypatch.setattr(profile_guided, "unavailable", lambda: "the C compiler is not GCC (x)")
    monkeypatch.setattr(compile_model, "_setup", lambda work, groups, env, *more: "boom")
    assert compile_model._build_kept(tmp_path, [], {"CFLAGS": "-fwrapv"}, True) == \
        ("boom", "the C compiler is not GCC (x)")
