"""No verb prints a control: every text line of every verb (its report, its
JSON, its errors and notices) over the hostile sessions of the screen walks
(``tests.hostile``: escape sequences, C1 bytes, bidi and zero-width
characters in every string and in file names) reaches the terminal with no
C0 or C1 control but newline and tab, no bidi control, no invisible
character. Each verb runs as a real process (a child of the warm CLI server,
tests/warm_cli.py), as a user runs it."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from session_tui.inert_output import InertWriter
from tests.hostile import FORBIDDEN, FORMAT_SAMPLES, OSC52, hostile_dir
from tests.support import REPO, SAMPLES, live_snapshot
from tests.warm_cli import run_warm

# what no output may hold: C0 but \t and \n, DEL, C1, bidi controls, invisible characters, lone surrogates
CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b\u200c\u200e\u200f\u2028\u2029\u202a-\u202e"
    "\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]"
)


def run(*args: str, cache: Path, home: Path) -> str:
    env = {**os.environ, "SESSION_TUI_CACHE_DIR": str(cache), "HOME": str(home), "PATH": "/usr/bin:/bin"}
    env.pop("SESSION_TUI_DEBUG", None)
    done = run_warm(list(args), REPO, env, text=False)
    assert b"Traceback" not in done.stderr and b"internal error" not in done.stderr, (args, done.stderr.decode())
    return (done.stdout + done.stderr).decode("utf-8", "surrogateescape")


def verbs(paths: dict[str, Path], root: Path) -> list[list[str]]:
    """Every verb's text (and JSON) output on each hostile session, and over the folder."""
    out: list[list[str]] = []
    for path in paths.values():
        file = str(path)
        out += [
            ["check", file],
            ["check", "--secrets", file],
            ["check", "--json", file],
            ["diff", file],
            ["diff", "--json", file],
            ["compactions", file],
            ["compactions", "--json", file],
            ["export", file, "--to", "md"],
            ["export", file, "--to", "html"],
            ["export", file, "--to", "json"],
            ["fix", "--dry-run", "--force", file],
            ["set-leaf", "--dry-run", "--force", file, "0"],
            ["fork", "--dry-run", "--force", file, "0"],
            ["resume", file],
            ["resume", "--json", file],
            ["check", "--format", "tree", file],  # read as another format: its errors
        ]
    out += [
        ["check", str(root)],
        ["usage", str(root)],
        ["usage", "--by", "model", str(root)],
        ["usage", "--json", str(root)],
        ["search", "pwned", str(root)],
        ["search", "--json", "pwned", str(root)],
        ["search", "model:pwned", str(root)],
        ["clean", "--dry-run", str(root)],
        ["check", str(root / ("missing" + OSC52))],  # an error naming a path the user gave
    ]
    return out


def unknown_model(root: Path) -> Path:
    """A Claude Code session whose model, unknown to the price table, is an escape sequence (usage and check
    name the models they cannot price)."""
    lines = []
    for raw in (SAMPLES / FORMAT_SAMPLES["claude"]).read_text().splitlines():
        record = json.loads(raw)
        if isinstance(record.get("message"), dict) and "model" in record["message"]:
            record["message"]["model"] = "acme-unknown" + OSC52
        lines.append(json.dumps(record))
    path = root / "unknown-model.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    paths = hostile_dir(root)
    paths["unknown-model"] = unknown_model(root)
    return root, paths


PARTS = 4


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
def test_no_verb_prints_a_control_over_hostile_sessions(hostile, tmp_path, part):
    """Every PARTS-th verb from ``part`` (the parts run side by side)."""
    root, paths = hostile
    home = tmp_path / "home"
    home.mkdir()
    found = []
    printed = 0
    for args in verbs(paths, root)[part::PARTS]:
        text = run(*args, cache=tmp_path / "cache", home=home)
        printed += len(text)
        controls = sorted({f"U+{ord(c):04X}" for c in CONTROL.findall(text)})
        forbidden = [name for name, raw in FORBIDDEN.items() if raw in text.encode("utf-8", "surrogateescape")]
        if controls or forbidden:
            found.append(
                f"{' '.join(a if a not in map(str, paths.values()) else '<file>' for a in args)}: "
                f"{controls} {forbidden}"
            )
    assert printed > 10_000 // PARTS  # (the verbs did print their reports)
    assert found == [], "\n".join(found)


def test_live_prints_no_control_over_hostile_sessions(hostile, tmp_path):
    root, _ = hostile
    text = live_snapshot(str(root), 3, tmp_path / "cache").decode("utf-8", "surrogateescape")
    assert not CONTROL.search(text), sorted({f"U+{ord(c):04X}" for c in CONTROL.findall(text)})


def test_the_writer_makes_what_it_is_given_inert(capsys):
    """The floor under every verb: what a verb forgot to escape is escaped on its way out."""
    writer = InertWriter(sys.stdout)
    print("model " + OSC52 + "\x9b2J\u202eevil\u200b\tend", file=writer)
    shown = capsys.readouterr().out
    assert "\x1b" not in shown and "\x9b" not in shown and "\u202e" not in shown and "\u200b" not in shown
    assert shown.startswith("model ␛]52;c;cHduZWQ=␇") and shown.endswith("\tend\n")
