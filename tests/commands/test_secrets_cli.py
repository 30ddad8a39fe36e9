"""`check --secrets`, `export --redact`, `fork --redact`, `serve --redact` as
a user runs them: real subprocesses, real files; the session file is never
changed."""

from __future__ import annotations

import json
import re
import shutil

import orjson
import pytest

from session_tui.actions.export import TARGETS
from session_tui.commands.serve import app_command
from session_tui.model.privacy.secrets import mark
from tests.builders.tree import header, message
from tests.secret_samples import PLANTED
from tests.support import SAMPLES, run_cli

MARK = re.compile(r"\[REDACTED:[a-z0-9-]+:[0-9a-f]{8}\]")


def planted(kind: str, n: int = 0) -> tuple[str, str]:
    """The n-th planted (secret, text) of a kind."""
    return [(secret, text) for k, secret, text in PLANTED if k == kind][n]


ANTHROPIC, ANTHROPIC_TEXT = planted("anthropic-key")
GITHUB, GITHUB_TEXT = planted("github-token")
KEY_BLOCK, KEY_TEXT = planted("private-key")
PASSWORD, PASSWORD_TEXT = planted("url-credentials")
AWS_ID, AWS_ID_TEXT = planted("aws-access-key")
SECRETS = (ANTHROPIC, GITHUB, KEY_BLOCK, PASSWORD, AWS_ID)


def secret_session(tmp_path):
    """A healthy tree session with secrets in a prompt, tool arguments (JSON in a string), a tool output
    and an answer: (path, its bytes)."""
    arguments = json.dumps({"command": GITHUB_TEXT, "env": {"NOTE": AWS_ID_TEXT}})
    calls = [{"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": arguments}}]
    data = b"".join(
        [
            header(),
            message("u1", None, content=f"here is my key: {ANTHROPIC_TEXT}"),
            message("a1", "u1", "assistant", None, tool_calls=calls),
            message("t1", "a1", "tool", KEY_TEXT, tool_call_id="call_1"),
            message("a2", "t1", "assistant", f"connect with {PASSWORD_TEXT}"),
            message("u2", "a2", content=f"again: {ANTHROPIC}"),
        ]
    )
    path = tmp_path / "run.jsonl"
    path.write_bytes(data)
    return path, data


def test_check_without_secrets_is_unchanged(tmp_path):
    path, _ = secret_session(tmp_path)
    r = run_cli("check", str(path))
    assert r.returncode == 0 and "secret" not in r.stdout.split("\n", 1)[1]
    assert "secrets" not in json.loads(run_cli("check", "--json", str(path)).stdout)


def test_check_secrets_lists_line_entry_kind_and_a_masked_preview(tmp_path):
    path, data = secret_session(tmp_path)
    r = run_cli("check", "--secrets", str(path))
    assert r.returncode == 1, r.stderr  # a secret found
    lines = r.stdout.splitlines()
    start = lines.index("  6 secrets:")
    assert lines[start + 1 :] == [
        "    line 2: entry 0: anthropic-key: sk-a…(108 chars)",
        "    line 3: entry 1: github-token: ghp_…(40 chars)",
        "    line 3: entry 1: aws-access-key: AKIA…(20 chars)",
        f"    line 4: entry 2: private-key: ----…({len(KEY_BLOCK)} chars)",
        "    line 5: entry 3: url-credentials: …(16 chars)",
        "    line 6: entry 4: anthropic-key: sk-a…(108 chars)",
    ]
    assert not any(secret in r.stdout for secret in SECRETS)
    assert path.read_bytes() == data


def test_check_secrets_json_adds_the_list_to_each_file(tmp_path):
    path, _ = secret_session(tmp_path)
    clean = SAMPLES / "tree" / "branched-summary.jsonl"
    r = run_cli("check", "--secrets", "--json", str(path), str(clean))
    assert r.returncode == 1
    first, second = (json.loads(line) for line in r.stdout.splitlines())
    assert [set(found) for found in first["secrets"]] == [{"line", "entry", "kind", "preview"}] * 6
    assert first["secrets"][0] == {"line": 2, "entry": 0, "kind": "anthropic-key", "preview": "sk-a…(108 chars)"}
    assert [found["line"] for found in first["secrets"]] == [2, 3, 3, 4, 5, 6]
    assert second["secrets"] == []
    assert not any(secret in r.stdout for secret in SECRETS)


def test_check_secrets_of_a_clean_sample_exits_0():
    r = run_cli("check", "--secrets", str(SAMPLES / "tree" / "branched-summary.jsonl"))
    assert r.returncode == 0 and r.stdout.rstrip().endswith("no secrets")


@pytest.mark.parametrize("to", TARGETS)
@pytest.mark.parametrize("context", [False, True])
def test_export_redact_replaces_every_secret_in_every_target(tmp_path, to, context):
    path, data = secret_session(tmp_path)
    extra = ["--context"] if context else []
    plain = run_cli("export", str(path), "--to", to, *extra)
    assert plain.returncode == 0 and ANTHROPIC in plain.stdout  # (the same export without --redact has them)
    r = run_cli("export", str(path), "--to", to, "--redact", *extra)
    assert r.returncode == 0, r.stderr
    assert r.stderr == "redacted 6 secrets\n"
    assert not any(secret in r.stdout for secret in SECRETS)
    assert not any(secret in json.dumps(r.stdout) for secret in SECRETS)  # nor escaped
    assert mark("anthropic-key", ANTHROPIC) in r.stdout.replace("\\", "")
    if to == "json":
        redacted, original = json.loads(r.stdout), json.loads(plain.stdout)
        assert len(redacted) == len(original)
        for new, old in zip(redacted, original, strict=True):
            assert new.keys() == old.keys()
    assert path.read_bytes() == data


def test_export_redact_to_a_file(tmp_path):
    path, data = secret_session(tmp_path)
    out = tmp_path / "out.html"
    r = run_cli("export", str(path), "--to", "html", "--redact", "-o", str(out))
    assert r.returncode == 0 and r.stderr == "redacted 6 secrets\n"
    text = out.read_text()
    body = text.split("</header>", 1)[1]  # (the header names the session by its first prompt, marked too)
    assert not any(secret in text for secret in SECRETS) and len(MARK.findall(body)) >= 6  # (a call's summary repeats)
    assert path.read_bytes() == data


def test_fork_redact_writes_a_redacted_fork_through_the_store(tmp_path):
    path, data = secret_session(tmp_path)
    out = tmp_path / "fork.jsonl"
    r = run_cli("fork", str(path), "u2", "--redact", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stderr == "redacted 6 secrets\n" and f"wrote {out}" in r.stdout
    fork = out.read_bytes()
    assert not any(secret.encode() in fork for secret in SECRETS)
    records = [orjson.loads(line) for line in fork.splitlines()]
    originals = [orjson.loads(line) for line in data.splitlines()]
    assert [r.get("id") for r in records[1:]] == [r.get("id") for r in originals[1:]]
    for new, old in zip(records[1:], originals[1:], strict=True):
        assert new.keys() == old.keys() and new["message"].keys() == old["message"].keys()
    arguments = records[2]["message"]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(arguments).keys() == {"command", "env"}  # JSON in a string stays JSON
    assert mark("github-token", GITHUB) in arguments
    assert run_cli("check", "--secrets", str(out)).stdout.rstrip().endswith("no secrets")
    assert run_cli("check", str(out)).returncode == 0
    assert path.read_bytes() == data


def test_fork_redact_dry_run_writes_nothing(tmp_path):
    path, data = secret_session(tmp_path)
    out = tmp_path / "fork.jsonl"
    r = run_cli("fork", str(path), "u2", "--redact", "--dry-run", "-o", str(out))
    assert r.returncode == 0 and r.stderr == "redacted 6 secrets\n"
    assert not out.exists() and path.read_bytes() == data


def test_fork_redact_of_a_claude_transcript(tmp_path):
    source = SAMPLES / "claude" / "3a2dec82-3264-4fa4-bb60-d92b18d2e064.jsonl"
    path = tmp_path / source.name
    lines = source.read_bytes().splitlines()
    first = orjson.loads(lines[0])
    first["message"]["content"] += f" My token is {GITHUB} and {ANTHROPIC_TEXT}."
    lines[0] = orjson.dumps(first)
    data = b"\n".join(lines) + b"\n"
    path.write_bytes(data)
    last = orjson.loads(lines[1])["uuid"]  # (this transcript ends in a torn line)
    out = tmp_path / "fork.jsonl"
    r = run_cli("fork", str(path), last, "--redact", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stderr == "redacted 2 secrets\n"
    fork = out.read_text()
    assert GITHUB not in fork and ANTHROPIC not in fork and mark("github-token", GITHUB) in fork
    assert path.read_bytes() == data


def test_serve_redact_runs_the_app_with_redact():
    assert app_command("x.jsonl", None, True, redact=True).endswith(" --redact")
    assert "--redact" not in app_command("x.jsonl", None, True)


def test_the_app_takes_redact(tmp_path):
    path = tmp_path / "s.jsonl"
    shutil.copy(SAMPLES / "tree" / "branched-summary.jsonl", path)
    r = run_cli("--redact", "--format", "nonesuch", str(path))
    assert r.returncode == 2 and "unrecognized arguments" not in r.stderr
