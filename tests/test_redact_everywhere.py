"""Every way out with ``--redact``: more than 100 secrets of more than 20
kinds planted in every text field of a session of every format (inside JSON
in a string too, some written with ``\\u`` escapes in the raw line, one in a
file name), then every output read back: export (md, html, json, the
context), fork, diff (text and JSON), check --secrets, and the terminal UI
(what ``serve --redact`` serves) walked screen by screen. No output holds a
secret, or any 16 characters of one; and the same outputs of sessions
planted with look-alikes (hashes, UUIDs, base64 images, placeholders, code)
hold no mark at all."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import orjson
import pytest

from session_tui.commands.serve import app_command
from tests.secret_samples import TRAPS, planted
from tests.support import SAMPLES, check_json, live_snapshot, run_cli
from tests.terminal import Terminal
from tests.ui.test_hostile_terminal import PICKER_KEYS, SESSION_PARTS

SOURCES = {
    "tree": "tree/branched-summary.jsonl",
    "chat": "chat/session-fix-rounding.jsonl",
    "pi": "pi/2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl",
    "claude": "claude/d7d9f764-42c4-4cfc-85bc-fce56c355e9f.jsonl",
    "codex": "codex/rollout-2026-03-14T10-30-12-019cebe5-7fec-77d8-9548-5cabe223553b.jsonl",
    "astorlm": "astorlm/3fc3f7d7-a9cc-4b2a-8f1b-80ee252c7110.jsonl",
}
#: fields holding text that is not prose (a path, a name, a command): planted too
TEXT_FIELDS = {"name", "cwd", "command", "title", "summary", "output", "text", "content", "arguments", "input"}
POOL = [(kind, secret, text) for seed in (16, 17) for kind, secret, text in planted(seed)]
# some split by a character that shows as nothing (the same secret to whoever copies it)
POOL += [
    (kind, secret, text.replace(secret, secret[: len(secret) // 2] + splitter + secret[len(secret) // 2 :]))
    for (kind, secret, text), splitter in zip(
        planted(18)[::6], "\u200b\u2060\u200d\ufeff\u202e\u00ad" * 4, strict=False
    )
]
MARK = "[REDACTED:"
WINDOW = 16


class Planter:
    """Plants texts from a pool into the text fields of records, in turn."""

    def __init__(self, pool: list[tuple[str, str, str]]) -> None:
        self.pool, self.next = pool, 0
        self.used: list[tuple[str, str, str]] = []

    def take(self) -> tuple[str, str, str]:
        item = self.pool[self.next % len(self.pool)]
        self.next += 1
        self.used.append(item)
        return item

    def value(self, value, key=None):
        if isinstance(value, dict):
            return {k: self.value(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v, key) for v in value]
        if isinstance(value, str) and (" " in value or key in TEXT_FIELDS):
            if value.startswith("{"):  # JSON in a string (tool arguments): planted inside it
                try:
                    inner = json.loads(value)
                except ValueError:
                    inner = None
                if isinstance(inner, dict):
                    return json.dumps(self.value(inner))
            return f"{value} {self.take()[2]}"
        return value


def escape_first(line: bytes, secret: str) -> bytes:
    """``line`` with the secret's first character written as a ``\\u`` escape."""
    written = orjson.dumps(secret)[1:-1]
    first = written[:1]
    if line.count(written) != 1 or not (b" " < first < b"\x7f") or first in b'\\"':
        return line
    return line.replace(written, b"\\u00%02x" % first[0] + written[1:])


def plant_dir(root: Path, pool: list[tuple[str, str, str]], name_secret: str | None) -> tuple[dict, Planter]:
    """A copy of each format's sample under ``root`` with ``pool``'s texts
    planted; its paths by format."""
    planter = Planter(pool)
    paths = {}
    for fmt, sample in SOURCES.items():
        source = SAMPLES / sample
        folder = root / fmt
        folder.mkdir(parents=True)
        name = source.name
        if fmt == "tree" and name_secret:
            name = f"notes {name_secret}.jsonl"  # a secret in the file name
        lines = []
        for raw in source.read_bytes().splitlines():
            try:
                record = orjson.loads(raw)
            except orjson.JSONDecodeError:
                lines.append(raw)
                continue
            before = len(planter.used)
            line = orjson.dumps(planter.value(record))
            for _, secret, _ in planter.used[before:][::4]:  # every 4th with a \u escape in the raw line
                line = escape_first(line, secret)
            lines.append(line)
        (folder / name).write_bytes(b"\n".join(lines) + b"\n")
        for sidecar in source.parent.glob(source.name.removesuffix(".jsonl") + ".meta.json"):
            shutil.copyfile(sidecar, folder / sidecar.name)
        paths[fmt] = folder / name
    return paths, planter


def normalized(output: str) -> str:
    """An output as a reader sees it: HTML entities and Markdown escapes undone."""
    return re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>~])", r"\1", html.unescape(output))


def windows(secret: str) -> list[str]:
    """What of a secret may not be shown: each line of it, or every 16
    characters of a line (a cut preview), but runs of one character."""
    out = []
    for piece in secret.splitlines():
        if len(piece) <= WINDOW:
            out.append(piece)
            continue
        out += [w for w in (piece[i : i + WINDOW] for i in range(0, len(piece) - WINDOW + 1, 4)) if len(set(w)) >= 8]
    return [w for w in out if len(w) >= 8]


def leaks(output: str, secrets: list[tuple[str, str]]) -> list[str]:
    text = normalized(output)
    escaped = text.replace("\\n", "\n").replace("\\/", "/")
    return [kind for kind, secret in secrets if any(w in text or w in escaped for w in windows(secret))]


#: the parts of the outputs' walk, each a test of its own (they run side by side): a session of each format,
#: then the verbs over the folder
PARTS = [*SOURCES, "folder"]


def outputs(paths: dict, tmp: Path, part: str) -> list[tuple[str, str]]:
    """(what, text) of every command's output with --redact: for the session of format ``part``, or
    (``folder``) over the folder of them all."""
    out = []
    for fmt, path in paths.items():
        if fmt != part:
            continue
        for args in (
            ["export", "--to", "md"],
            ["export", "--to", "html"],
            ["export", "--to", "json"],
            ["export", "--context", "--to", "json"],
            ["export", "--context", "--to", "md"],
            ["diff"],
            ["diff", "--json"],
        ):
            done = run_cli(args[0], str(path), *args[1:], "--redact")
            assert done.returncode in (0, 1), f"{fmt} {args}: {done.stderr}"
            out.append((f"{fmt}: {' '.join(args)}", done.stdout + done.stderr))
        (report,) = check_json(path)
        leaf = str(report["active_leaf"] if report["active_leaf"] is not None else report["active_leaf_line"])
        before = set(path.parent.iterdir())
        fork = run_cli("fork", str(path), leaf, "--redact")
        assert fork.returncode == 0, f"{fmt} fork: {fork.stderr}"
        out.append((f"{fmt}: fork", fork.stdout + fork.stderr))
        for made in set(path.parent.iterdir()) - before:
            out.append((f"{fmt}: fork's file name", made.name))
            out.append((f"{fmt}: fork's file", made.read_text(encoding="utf-8", errors="replace")))
            made.unlink()
        checked = run_cli("check", "--secrets", str(path))
        out.append((f"{fmt}: check --secrets", checked.stdout + checked.stderr))
        for args in (["check"], ["check", "--json"], ["compactions"], ["compactions", "--json"]):
            done = run_cli(args[0], str(path), *args[1:], "--redact")
            assert done.returncode in (0, 1), f"{fmt} {args}: {done.stderr}"
            out.append((f"{fmt}: {' '.join(args)}", done.stdout + done.stderr))
    if part != "folder":
        return out
    root = str(next(iter(paths.values())).parent.parent)
    for args in (["usage", "--by", "model"], ["usage", "--json"], ["search", "the"], ["search", "--json", "the"]):
        done = run_cli(*args, root, "--redact")
        assert done.returncode in (0, 1), f"{args}: {done.stderr}"
        out.append((" ".join(args), done.stdout + done.stderr))
    snapshot = live_snapshot(root, len(paths), tmp / "live-cache", "--redact")
    out.append(("live --json", snapshot.decode("utf-8", "replace")))
    return out


WALKS = ["picker", *(f"{fmt}-{part}" for fmt in ("tree", "claude") for part in range(len(SESSION_PARTS)))]


def screens(paths: dict, root: Path, walk: str) -> list[tuple[str, str]]:
    """What the terminal UI shows with --redact: the picker over every
    session (``picker``), or each screen of one session (``tree-N``, ``claude-N``: part N of its
    keys), one text per key."""
    if walk == "picker":
        target, keys, ready = str(root), PICKER_KEYS, "claude"
    else:
        fmt, part = walk.rsplit("-", 1)
        target, keys, ready = str(paths[fmt]), SESSION_PARTS[int(part)], "entries"
    out = []
    with Terminal(target, "--no-watch", "--redact") as term:
        term.wait_text(ready)
        out.append((f"{walk}: first screen", term.text()))
        for key in keys:
            term.send(key)
            term.wait_quiet(0.15)
            assert term.alive(), f"the app died after {key!r}"
            out.append((f"{walk}: after {key}", term.text()))
    return out


@pytest.fixture(scope="module")
def planted_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("planted")
    name_secret = next(secret for kind, secret, _ in POOL if kind == "github-token" and secret.startswith("ghp_"))
    paths, planter = plant_dir(root / "sessions", POOL, name_secret)
    secrets = {(kind, secret) for kind, secret, _ in planter.used} | {("github-token", name_secret)}
    return root / "sessions", paths, sorted(secrets)


def test_enough_secrets_of_enough_kinds_are_planted(planted_dir):
    _, paths, secrets = planted_dir
    assert len(secrets) >= 100 and len({kind for kind, _ in secrets}) >= 20
    data = b"".join(path.read_bytes() for path in paths.values())
    assert data.count(b"\\u00") >= 20  # some written with escapes in the raw line
    unescaped = sum(secret.encode() in data or orjson.dumps(secret)[1:-1] in data for _, secret in secrets)
    assert unescaped < len(secrets)


@pytest.mark.slow
@pytest.mark.parametrize("part", PARTS)
def test_no_output_with_redact_shows_a_secret(planted_dir, tmp_path, part):
    _, paths, secrets = planted_dir
    found = [(what, leaked) for what, text in outputs(paths, tmp_path, part) if (leaked := leaks(text, secrets))]
    assert found == [], "\n".join(f"{what}: {leaked}" for what, leaked in found)


@pytest.mark.slow
@pytest.mark.parametrize("walk", WALKS)
def test_no_screen_of_the_terminal_ui_with_redact_shows_a_secret(planted_dir, walk):
    root, paths, secrets = planted_dir
    shown = screens(paths, root, walk)
    assert any(MARK in text for _, text in shown)
    found = [(what, leaked) for what, text in shown if (leaked := leaks(text, secrets))]
    assert found == []
    assert "--redact" in app_command(str(paths["tree"]), None, True, redact=True)  # what serve --redact runs


@pytest.mark.slow
@pytest.mark.parametrize("part", PARTS)
def test_look_alikes_are_never_masked_anywhere(tmp_path, part):
    pool = [("trap", trap, trap) for trap in TRAPS if MARK not in trap]  # (a mark itself is written as it is)
    paths, _ = plant_dir(tmp_path / "traps", pool, None)
    shown = outputs(paths, tmp_path, part)
    assert [what for what, text in shown if MARK in text] == []
    assert all("redacted 0 secrets" in text for what, text in shown if what.endswith(("--to md", "fork")))
