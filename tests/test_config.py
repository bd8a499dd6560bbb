"""Configuration validation: every bad value names its key."""
import pytest

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


def test_results_end_calls_and_the_last_message_ends_the_work():
    config = SystemConfig(messages_per_session=5, messages_per_call=2)
    assert [config.is_result(i) for i in range(5)] == [False, True, False, True, True]
