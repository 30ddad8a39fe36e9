"""The config file from the command line: every verb takes --config, a
setting in it takes effect, the environment and the flags win over it,
and a bad file is one line with exit 2 before anything is read."""

from __future__ import annotations

import json

import pytest

from tests.builders.tree import call, chain, fresh
from tests.support import run_cli


@pytest.fixture
def quiet_call(tmp_path, monkeypatch):
    """A session written now whose last entry is a call without a result
    (the tests' own stuck_after of 0 taken away: the file's decides)."""
    monkeypatch.delenv("SESSION_TUI_STUCK_AFTER")
    path = tmp_path / "call.jsonl"
    path.write_bytes(fresh(chain(2) + call("a1", "m1", "c1")))
    return path


def _state(result) -> str:
    return json.loads(result.stdout)["agent"]["state"]


def test_stuck_after_from_the_config_file_then_the_environment_then_the_flag(tmp_path, quiet_call, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text("stuck_after = 0\n")
    assert _state(run_cli("check", "--json", str(quiet_call))) == "tool"  # the default: 300 s
    assert _state(run_cli("--config", str(config), "check", "--json", str(quiet_call))) == "stuck"
    assert _state(run_cli("check", "--json", str(quiet_call), f"--config={config}")) == "stuck"  # (any place)
    assert _state(run_cli("check", "--json", "--config", str(config), "--stuck-after", "600", str(quiet_call))) == (
        "tool"
    )
    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "900")
    assert _state(run_cli("check", "--json", "--config", str(config), str(quiet_call))) == "tool"
    monkeypatch.setenv("SESSION_TUI_CONFIG", str(config))
    monkeypatch.delenv("SESSION_TUI_STUCK_AFTER")
    assert _state(run_cli("check", "--json", str(quiet_call))) == "stuck"


def test_the_default_config_file_is_read(tmp_path, quiet_call, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / "xdg" / "session-tui").mkdir(parents=True)
    (tmp_path / "xdg" / "session-tui" / "config.toml").write_text("stuck_after = 0\n")
    assert _state(run_cli("check", "--json", str(quiet_call))) == "stuck"


def test_redact_from_the_config_file_masks_what_a_verb_prints(tmp_path):
    key = "ghp_" + "x7Kq2mP9vR4tY8wZ3nB6cD1fG5hJ0sL2aE9u"[:36]
    path = tmp_path / "leak.jsonl"
    path.write_bytes(chain(1).replace(b"message 0", f"my key is {key}".encode()))
    config = tmp_path / "config.toml"
    config.write_text("redact = true\n")
    assert key in run_cli("export", str(path), "--to", "md").stdout
    shown = run_cli("--config", str(config), "export", str(path), "--to", "md")
    assert shown.returncode == 0 and key not in shown.stdout and "[REDACTED:" in shown.stdout


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("stuck_afer = 3\n", "unknown setting 'stuck_afer'"),
        ("redact = 'yes'\n", "redact must be true or false"),
        ("[[[\n", "is not TOML"),
    ],
)
def test_a_bad_config_file_is_one_line_and_exit_2(tmp_path, text, said):
    config = tmp_path / "config.toml"
    config.write_text(text)
    for argv in (["check", "x.jsonl"], ["x.jsonl"], ["search", "word"]):
        result = run_cli("--config", str(config), *argv)
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.count("\n") == 1 and said in result.stderr and "Traceback" not in result.stderr


def test_what_only_the_terminal_ui_uses_is_checked_before_it_starts(tmp_path):
    session = tmp_path / "s.jsonl"
    session.write_bytes(chain(1))
    for text, said in (
        ('[keys]\nfly = "z"\n', "'fly' is no action of the session view"),
        ('theme = "no-such-theme"\n', "theme 'no-such-theme' is not one of"),
    ):
        config = tmp_path / "config.toml"
        config.write_text(text)
        result = run_cli("--config", str(config), str(session))
        assert result.returncode == 2 and result.stderr.count("\n") == 1 and said in result.stderr
        assert run_cli("--config", str(config), "check", str(session)).returncode == 0  # (check has no keys)


def test_a_missing_config_file_named_on_purpose_is_an_error(tmp_path):
    result = run_cli("--config", str(tmp_path / "nope.toml"), "check", str(tmp_path))
    assert result.returncode == 2 and "not found" in result.stderr
    assert run_cli("--config").returncode == 2
