"""One client vocabulary (simulations/clients.py) in every engine: the same names are accepted
everywhere, an unknown one is refused everywhere with the same line, and a profile means the
same reactions to 404/409 in the scripted, explored and timed engines."""
import pytest

from model import ConfigError
from simulations.cli import main
from simulations.clients import CHOICES, PROFILES, resolve_client, with_client
from simulations.des import config as des_config
from simulations.explore.scope import default_system
from simulations.scenarios import SCENARIOS
from simulations.script import run_script
from simulations.verify.space import cell_scope, parse

SPACE = {"deployment": {"instances": 1}, "blocks": [{"name": "b", "axes": {"store": ["local"]}}]}


def test_auto_is_the_sdk_client_for_the_sdk_policy_and_spec_otherwise():
    assert resolve_client("auto", "sdk") == "sdk-python"
    assert {resolve_client("auto", g) for g in ("naive", "strict", "m:gate")} == {"spec"}
    assert resolve_client("sdk-typescript", "strict") == "sdk-typescript"


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_a_profile_means_the_same_reactions_in_every_engine(profile):
    scenario = next(iter(SCENARIOS.values()))
    scripted = run_script(scenario, "strict", client_profile=profile)
    timed = des_config.load(des_config.DEFAULT_CONFIG, [], 1, 1, [f"strict+{profile}"],
                            f"strict+{profile}").model_config(f"strict+{profile}")
    space = parse({**SPACE, "policies": ["strict"], "client": profile})
    explored = cell_scope(space.deployments[0], "strict", profile).system
    expected = (PROFILES[profile].on_404, PROFILES[profile].on_409)
    assert scripted.client_profile == profile
    for system in (scripted.config, timed, explored):
        assert (system.on_404, system.on_409) == expected


def test_config_keeps_the_deployments_reactions():
    system = default_system().replace(on_404="fail", on_409="reinit")
    assert with_client(system, "config") == system


@pytest.mark.parametrize("argv", [
    ["scenario", "reconnect_after_rolling_restart", "--client", "sdk"],
    ["explore", "--client", "sdk", "--max-states", "10"],
])
def test_every_verb_refuses_an_unknown_client_with_the_same_line(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "unknown client profile 'sdk'; valid: " + ", ".join(CHOICES) in err


def test_configs_refuse_an_unknown_client_naming_the_profiles():
    with pytest.raises(ConfigError, match="unknown client profile 'sdk'"):
        parse({**SPACE, "client": "sdk"})
    with pytest.raises(ConfigError, match="unknown client profile 'sdk'"):
        des_config.parse_row("strict+sdk")


def test_a_client_that_is_not_a_name_is_refused_in_every_config():
    with pytest.raises(ConfigError, match="a client profile name, got 3"):
        parse({**SPACE, "client": 3})
    with pytest.raises(ConfigError, match="a client profile name, got 3"):
        des_config.DesConfig(client_profile=3)
