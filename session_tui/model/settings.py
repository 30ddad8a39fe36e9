"""What a user sets, in one object, built once per run from, in order:
the defaults, the config file (``~/.config/session-tui/config.toml``, or
``--config``/``$SESSION_TUI_CONFIG``), the environment and the flags. The
command line builds it and passes it down; nothing below reads those
sources again.

The config file (TOML; every key optional)::

    redact = true            # mask secrets wherever session text is shown
    stuck_after = 120        # seconds of quiet before a call without a result is stuck
    poll_seconds = 1.0       # how often a remote session is polled
    theme = "textual-light"  # a Textual theme
    [keys]                   # the session view's actions, rebound
    go_leaf = "g"
    next_problem = "n,e"     # several keys: comma-separated

An unknown key, a wrong type or a file that is not TOML is one line of
error (``SettingsError``), never a guess."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

CONFIG_ENV = "SESSION_TUI_CONFIG"
STUCK_AFTER_ENV = "SESSION_TUI_STUCK_AFTER"
POLL_ENV = "SESSION_TUI_POLL_SECONDS"
STUCK_AFTER = 300.0  # seconds of quiet after which a call without a result is stuck (writer unknown)
POLL_SECONDS = 0.5  # a remote session's poll


class SettingsError(Exception):
    """A config file, variable or flag that cannot be used: one line."""


@dataclass(frozen=True)
class Settings:
    redact: bool = False
    stuck_after: float = STUCK_AFTER
    poll_seconds: float = POLL_SECONDS
    theme: str | None = None
    keys: Mapping[str, str] = field(default_factory=dict)  # the session view's action -> its keys
    config_file: str | None = None  # the file read, if any

    def with_flags(self, flags: Any) -> Settings:
        """These settings with what the command line's flags say (``--redact``, ``--stuck-after``)."""
        changed: dict[str, Any] = {}
        if getattr(flags, "redact", False) or getattr(flags, "secrets", False):
            changed["redact"] = True
        if getattr(flags, "stuck_after", None) is not None:
            changed["stuck_after"] = max(0.0, float(flags.stuck_after))
        return replace(self, **changed) if changed else self


def default_config_file() -> str:
    from platformdirs import user_config_dir

    return os.path.join(user_config_dir("session-tui", appauthor=False), "config.toml")


def load(config: str | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """The defaults, then the config file (``config``, else
    ``$SESSION_TUI_CONFIG``, else the default one if it exists: only a file
    named on purpose must exist), then the environment."""
    environ = os.environ if environ is None else environ
    named = config or environ.get(CONFIG_ENV)
    path = named or default_config_file()
    values: dict[str, Any] = {}
    if named or os.path.isfile(path):
        values = _read(path)
        values["config_file"] = path
    for name, variable in (("stuck_after", STUCK_AFTER_ENV), ("poll_seconds", POLL_ENV)):
        if environ.get(variable):
            values[name] = _seconds(environ[variable], f"${variable}")
    return Settings(**values)


_TYPES: dict[str, tuple[type, ...]] = {
    "redact": (bool,),
    "stuck_after": (int, float),
    "poll_seconds": (int, float),
    "theme": (str,),
    "keys": (dict,),
}


def _read(path: str) -> dict[str, Any]:
    import tomllib

    try:
        with open(path, "rb") as file:
            raw = tomllib.load(file)
    except FileNotFoundError:
        raise SettingsError(f"config file {path!r} not found") from None
    except OSError as exc:
        raise SettingsError(f"config file {path!r}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"config file {path!r} is not TOML: {str(exc).splitlines()[0]}") from None
    values: dict[str, Any] = {}
    for key, value in raw.items():
        types = _TYPES.get(key)
        if types is None:
            raise SettingsError(f"config file {path!r}: unknown setting {key!r} (known: {', '.join(_TYPES)})")
        if not isinstance(value, types) or (bool in types) != isinstance(value, bool):
            raise SettingsError(f"config file {path!r}: {key} must be {_TYPE_WORDS[key]}")
        values[key] = value
    for key in ("stuck_after", "poll_seconds"):
        if key in values:
            values[key] = _seconds(values[key], f"{key} in {path!r}")
    if "keys" in values:
        keys = values["keys"]
        bad = [action for action, keys_of in keys.items() if not isinstance(keys_of, str) or not keys_of.strip()]
        if bad:
            raise SettingsError(f'config file {path!r}: [keys] {bad[0]} must be a key name, such as "g"')
        values["keys"] = dict(keys)
    return values


_TYPE_WORDS = {
    "redact": "true or false",
    "stuck_after": "a number of seconds",
    "poll_seconds": "a number of seconds",
    "theme": "a theme's name",
    "keys": "a table of action = key",
}


def _seconds(value: object, where: str) -> float:
    try:
        seconds = float(value) if isinstance(value, (int, float, str)) and not isinstance(value, bool) else -1.0
    except ValueError:
        seconds = -1.0
    if not seconds >= 0 or seconds == float("inf"):
        raise SettingsError(f"{where} must be a number of seconds, not {value!r}")
    return seconds
