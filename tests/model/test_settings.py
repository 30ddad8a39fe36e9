"""One Settings, built from the defaults, the config file, the environment
and the flags, in that order; a bad config file is one line, never a guess."""

from __future__ import annotations

import argparse

import pytest

from session_tui.model.settings import STUCK_AFTER, Settings, SettingsError, default_config_file, load


def flags(**given) -> argparse.Namespace:
    return argparse.Namespace(**{"redact": False, "stuck_after": None, **given})


def test_the_defaults_without_a_config_file_or_variables():
    assert load(environ={}) == Settings()
    assert Settings().stuck_after == STUCK_AFTER and not Settings().redact and not Settings().keys


def test_each_source_overrides_the_one_before(tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text('stuck_after = 120\npoll_seconds = 2\nredact = true\ntheme = "nord"\n[keys]\ngo_leaf = "g"\n')
    from_file = load(str(config), environ={})
    assert (from_file.stuck_after, from_file.poll_seconds, from_file.redact, from_file.theme) == (120, 2, True, "nord")
    assert from_file.keys == {"go_leaf": "g"} and from_file.config_file == str(config)
    from_env = load(str(config), environ={"SESSION_TUI_STUCK_AFTER": "30", "SESSION_TUI_POLL_SECONDS": "0.25"})
    assert (from_env.stuck_after, from_env.poll_seconds) == (30, 0.25)
    assert from_env.with_flags(flags(stuck_after=5.0)).stuck_after == 5.0
    assert from_env.with_flags(flags()).stuck_after == 30  # (a flag not given changes nothing)
    assert load(environ={}).with_flags(flags(redact=True)).redact


def test_the_default_config_file_is_read_and_a_variable_names_another(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    default = tmp_path / "xdg" / "session-tui" / "config.toml"
    assert default_config_file() == str(default)
    default.parent.mkdir(parents=True)
    default.write_text("stuck_after = 7\n")
    assert load(environ={}).stuck_after == 7
    other = tmp_path / "other.toml"
    other.write_text("stuck_after = 8\n")
    assert load(environ={"SESSION_TUI_CONFIG": str(other)}).stuck_after == 8
    assert load(str(default), environ={"SESSION_TUI_CONFIG": str(other)}).stuck_after == 7  # (--config wins)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("stuck_afer = 3\n", "unknown setting 'stuck_afer'"),
        ('stuck_after = "soon"\n', "stuck_after must be a number of seconds"),
        ("stuck_after = -1\n", "must be a number of seconds, not -1"),
        ("stuck_after = nan\n", "must be a number of seconds"),
        ("stuck_after = true\n", "stuck_after must be a number of seconds"),
        ('redact = "yes"\n', "redact must be true or false"),
        ("redact = 1\n", "redact must be true or false"),
        ("keys = 3\n", "keys must be a table"),
        ("[keys]\ngo_leaf = 3\n", "[keys] go_leaf must be a key name"),
        ('[keys]\ngo_leaf = " "\n', "[keys] go_leaf must be a key name"),
        ("stuck_after = \n", "is not TOML"),
        ("\xff\xfe", "is not TOML"),
    ],
)
def test_a_bad_config_file_is_one_line(tmp_path, text, said):
    config = tmp_path / "config.toml"
    config.write_bytes(text.encode("latin-1"))
    with pytest.raises(SettingsError) as raised:
        load(str(config), environ={})
    assert said in str(raised.value) and "\n" not in str(raised.value)


def test_a_named_config_file_must_exist_and_a_bad_variable_is_refused(tmp_path):
    with pytest.raises(SettingsError, match="not found"):
        load(str(tmp_path / "missing.toml"), environ={})
    with pytest.raises(SettingsError, match=r"\$SESSION_TUI_STUCK_AFTER must be a number of seconds"):
        load(environ={"SESSION_TUI_STUCK_AFTER": "five"})
