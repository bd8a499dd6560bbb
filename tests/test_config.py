"""Configuration validation: every bad value names its key."""
import dataclasses
from pathlib import Path

import pytest
from hypothesis import given
from strategies import configs

from model import ConfigError, SystemConfig


@pytest.mark.parametrize("changes, key, problem", [
    ({"instances": 0}, "instances", ">= 1"),
    ({"buffer_capacity": 0}, "buffer_capacity", ">= 1"),
    ({"clients": "2"}, "clients", "expected an integer"),
    ({"clients": True}, "clients", "expected an integer"),
    ({"client_dedupe": "yes"}, "client_dedupe", "true or false"),
    ({"lb": "magic"}, "lb", "must be one of round_robin, random"),
    ({"event_ids": "snowflake"}, "event_ids", "per_session, global, tagged, uuid"),
    ({"store": "redis"}, "store", "local, shared"),
    ({"on_404": "retry"}, "on_404", "reinit, fail"),
])
def test_bad_values_name_the_key(changes, key, problem):
    with pytest.raises(ConfigError, match=problem) as info:
        SystemConfig.from_mapping(changes)
    assert info.value.key == key and key in str(info.value)


def test_unknown_keys_are_errors_naming_the_key():
    with pytest.raises(ConfigError, match="'restart_period': unknown key"):
        SystemConfig.from_mapping({"restart_period": 3})


def test_replace_validates_and_round_trips():
    config = SystemConfig().replace(lb="sticky")
    assert config.lb == "sticky"
    assert SystemConfig.from_mapping(config.as_dict()) == config
    with pytest.raises(ConfigError):
        config.replace(messages_per_call=0)


@given(configs())
def test_as_dict_is_every_field_as_asdict_gives_it(config):
    """`as_dict` and `replace` read the fields directly (asdict deep-copied each scalar, a
    second of every `verify`'s planning): the same values, and the same config back."""
    data = config.as_dict()
    full = dataclasses.asdict(config)
    assert data == {k: v for k, v in full.items() if k in data}
    assert set(full) - set(data) <= {"transport", "execution_record"}
    assert SystemConfig.from_mapping(data) == config == config.replace()


def test_results_end_calls_and_the_last_message_ends_the_work():
    config = SystemConfig(messages_per_session=5, messages_per_call=2)
    assert [config.is_result(i) for i in range(5)] == [False, True, False, True, True]


def test_the_readme_config_reference_is_generated_and_complete():
    """Every key a DES config accepts has a default and a meaning in the default file, and the
    README's table is what the generator makes of them."""
    from simulations.des.reference import comments, keys, reference_markdown
    from simulations.verify.claims import block
    notes = comments()
    assert [k for k in keys() if not notes.get(k)] == []
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert block(readme, "config-reference") == reference_markdown()


def test_a_partial_config_is_the_default_file_but_for_its_keys(tmp_path):
    from simulations.des import config as dc
    partial = tmp_path / "p.toml"
    partial.write_text("[timing]\nrestart_period = 150.0\n")
    mine, default = dc.load(partial), dc.load(dc.DEFAULT_CONFIG)
    assert mine.timing.restart_period == 150.0
    assert mine.system == default.system and mine.seed == default.seed
    assert mine.timing.arrival_rate == default.timing.arrival_rate


def test_explorer_only_keys_are_refused_in_a_des_config(tmp_path):
    from simulations.des import config as dc
    with pytest.raises(ConfigError, match="clients arrive at timing.arrival_rate"):
        dc.load(None, ["system.clients=4"])
