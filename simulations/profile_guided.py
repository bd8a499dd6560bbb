"""Profile-guided optimisation of the compiled build (GCC's `-fprofile-generate/-use`).

`python -m simulations compile` builds the model and the engine groups twice where the C
compiler is GCC 11 or later: first instrumented, then (after `TRAINING` has run on that build,
in the scratch copy it was built in) with the profile it wrote, which tells the compiler which
branches are taken and which calls are hot. Functions the training never ran are optimised as
usual (`-fprofile-partial-training`), so a deployment it did not cover is no slower than without
a profile. Every build by GCC 11 or later, guided or not, also compiles with `COMMON_FLAGS`:
calls between a group's own functions may be inlined and go straight to them, not through the
dynamic linker.

The profile changes how the C code is laid out and inlined, never what it computes: the same
states, verdicts, traces and DES records as the sources (tests/test_compiled.py compares). The
training is the same every time (the same searches and replication; only the interpreter's
string hashing varies, and with it a few counts), so builds of the same sources get alike
profiles. If anything in it fails, the build goes on without a profile and says why.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Dict, Optional

#: with every build by GCC 11 or later: no semantic interposition (a group's functions call and
#: inline each other directly), hidden symbols (a group's globals read without the GOT; the
#: modules' init functions stay exported), calls into libpython without the PLT
COMMON_FLAGS = "-fno-semantic-interposition -fvisibility=hidden -fno-plt"
#: the first major GCC version with `-fprofile-prefix-path` (the profile names objects by their
#: path in the scratch directory, which both builds share)
MIN_GCC = 11
#: seconds the training may take on the instrumented build before it counts as failed
TRAINING_TIMEOUT = 900

#: what the instrumented build runs (a few seconds compiled; a little more instrumented): the
#: explorer alone and with five gates together, on the shapes of the verification matrix's
#: scopes (one and two instances; a shared store and buffer, local ones with per-session ids
#: and a round-robin balancer), and one DES replication of the default config. It checks that
#: the modules it runs are the compiled ones of the build in the directory it is given.
TRAINING = """
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from model import transitions
from simulations.explore import frontier
from simulations.des import world
from pathlib import Path
for module in (transitions, frontier, world):
    if not module.__file__.endswith(tuple(EXTENSION_SUFFIXES)):
        sys.exit(f"{module.__name__} did not load compiled ({module.__file__})")
    if Path(sys.argv[1]).resolve() not in Path(module.__file__).resolve().parents:
        sys.exit(f"{module.__name__} is not the build in {sys.argv[1]} ({module.__file__})")
from simulations.bench import DEFAULT_CONFIG
from simulations.des import config as des_config
from simulations.des.runner import run_replication
from simulations.explore.scope import Scope, default_system
from simulations.explore.search import explore, explore_together
from simulations.runtime import cyclic_gc_paused
GATES = ["naive", "range", "generation", "provenance", "strict"]
shared = default_system()
local = shared.replace(store="local", buffer="local", buffer_keying="session",
                       event_ids="per_session", lb="round_robin")
with cyclic_gc_paused():
    explore(Scope(), "strict")
    explore_together(Scope(system=shared.replace(instances=2), sessions=2, client_restarts=0),
                     GATES)
    explore_together(Scope(system=local), GATES)
    explore_together(Scope(system=local.replace(instances=2), sessions=2), GATES)
config = des_config.load(DEFAULT_CONFIG, ["timing.duration=3600.0"], replications=1,
                         policies=["strict"], baseline="strict")
run_replication(config, "strict", 0)
"""


def unavailable() -> Optional[str]:
    """Why this machine's C compiler cannot build with a profile (nor `COMMON_FLAGS`), or None
    where it is GCC 11 or later."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    try:
        about = subprocess.run([compiler, "--version"], capture_output=True, text=True,
                               timeout=30).stdout
        version = subprocess.run([compiler, "-dumpfullversion"], capture_output=True,
                                 text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as error:
        return f"{compiler} could not be asked its version: {error}"
    first = (about.splitlines() or [compiler])[0].strip()
    major = re.match(r"(\d+)\.", version + ".")
    if "clang" in about.lower() or "Free Software Foundation" not in about or major is None:
        return f"the C compiler is not GCC ({first})"
    if int(major.group(1)) < MIN_GCC:
        return f"GCC {version} is older than {MIN_GCC}"
    return None


def flags(mode: str, work: Path) -> str:
    """The flags of the instrumented build (`mode` "generate") or of the guided one ("use"),
    the profile kept in `work`/profile under object paths relative to `work`."""
    common = f"-fprofile-{mode}={work / 'profile'} -fprofile-prefix-path={work}"
    if mode == "use":
        return common + " -fprofile-partial-training -fprofile-correction -Wno-missing-profile"
    return common


def with_flags(env: Dict[str, str], extra: str) -> Dict[str, str]:
    """`env` with `extra` added to the compiler's and the linker's flags."""
    return {**env, "CFLAGS": f"{env.get('CFLAGS', '')} {extra}".strip(),
            "LDFLAGS": f"{env.get('LDFLAGS', '')} {extra}".strip()}


def train(work: Path) -> Optional[str]:
    """Run `TRAINING` on the instrumented build in `work` (its modules load from there, built
    in place); None when it ran and wrote a profile, else why not."""
    env = {k: v for k, v in os.environ.items() if k != "MCP_MODEL_PURE"}
    env["PYTHONPATH"] = str(work)
    try:
        done = subprocess.run([sys.executable, "-c", TRAINING, str(work)], cwd=work, env=env,
                              capture_output=True, text=True, timeout=TRAINING_TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"the training run took over {TRAINING_TIMEOUT} s"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        return f"the training run failed: {last}"
    if not any((work / "profile").glob("*.gcda")):
        return "the training run wrote no profile"
    return None
