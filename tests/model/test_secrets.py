"""Secrets found and redacted: every planted kind found, no trap flagged, the
preview never the secret, the same secret the same mark, redacted JSON
valid with its structure unchanged (real files in tmp dirs)."""

from __future__ import annotations

import json
import re

import orjson
import pytest

from session_tui.model.privacy.redact import Redactor
from session_tui.model.privacy.secret_scan import line_secrets, scan_blocks, session_secrets
from session_tui.model.privacy.secrets import KINDS, find_secrets, has_candidate, mark, preview
from session_tui.model.session.session import open_session
from tests.builders.tree import header, message
from tests.secret_samples import PLANTED, TRAPS
from tests.support import SAMPLES

MARK = re.compile(r"\[REDACTED:([a-z0-9-]+):([0-9a-f]{8})\]")


def shape(value):
    """The structure of a JSON value: every string replaced by one marker."""
    if isinstance(value, dict):
        return {key: shape(child) for key, child in value.items()}
    if isinstance(value, list):
        return [shape(child) for child in value]
    return "<str>" if isinstance(value, str) else value


def test_every_kind_is_planted():
    assert {kind for kind, _, _ in PLANTED} == set(KINDS)


@pytest.mark.parametrize(("kind", "secret", "text"), PLANTED, ids=[f"{k}-{n}" for n, (k, _, _) in enumerate(PLANTED)])
def test_every_planted_secret_is_found_in_text_and_in_records(kind, secret, text):
    for where in (text, f"some prose before it: {text}\nand a line after"):
        found = find_secrets(where)
        assert [(s.kind, s.value) for s in found] == [(kind, secret)]
        assert where[found[0].start : found[0].end] == secret
    # as a record's string, nested, and as JSON inside a string (tool arguments), once and twice encoded
    records = [
        {"message": {"content": text}},
        {"message": {"content": [{"type": "toolCall", "arguments": json.dumps({"command": text})}]}},
        {"payload": {"arguments": json.dumps(json.dumps({"input": text}))}},
    ]
    for record in records:
        raw = orjson.dumps(record)
        assert has_candidate(raw)
        assert [s.kind for s in line_secrets(raw)] == [kind]


@pytest.mark.parametrize("trap", TRAPS, ids=[f"trap-{n}" for n in range(len(TRAPS))])
def test_no_trap_is_a_secret(trap):
    assert find_secrets(trap) == []
    assert find_secrets(f"text before\n{trap}\ntext after") == []
    assert line_secrets(orjson.dumps({"message": {"content": trap}})) == []
    assert line_secrets(orjson.dumps({"input": {"arguments": json.dumps({"command": trap})}})) == []


def test_the_preview_never_holds_the_secret():
    for kind, secret, _ in PLANTED:
        shown = preview(secret, kind)
        assert secret not in shown and secret[:5] not in shown
        assert shown.endswith(f"…({len(secret)} chars)")
        assert len(shown.split("…")[0]) <= min(4, len(secret) // 4)
    anthropic = next(secret for kind, secret, _ in PLANTED if kind == "anthropic-key")
    assert preview(anthropic, "anthropic-key") == "sk-a…(108 chars)"
    for kind in ("url-credentials", "env-assignment", "aws-secret-key"):  # no public prefix: only the length
        secret = next(secret for k, secret, _ in PLANTED if k == kind)
        assert preview(secret, kind) == f"…({len(secret)} chars)"


def test_the_same_secret_gives_the_same_mark():
    secrets = [secret for _, secret, _ in PLANTED]
    marks = [mark("openai-key", secret) for secret in secrets]
    assert marks == [mark("openai-key", secret) for secret in secrets]
    assert len(set(marks)) == len(secrets)
    for found in marks:
        assert MARK.fullmatch(found)
    redactor = Redactor()
    key = secrets[0]
    out = redactor.text(f"{key} and again {key}")
    assert out.count(mark("anthropic-key", key)) == 2 and key not in out and redactor.count == 2


def test_a_field_named_like_a_secret_holds_one():
    found = find_secrets("Xk9" + "a7Bq2" * 4, name="OPENAI_API_KEY")
    assert [s.kind for s in found] == ["env-assignment"]
    assert find_secrets("Xk9" + "a7Bq2" * 4, name="model") == []
    assert find_secrets("none", name="OPENAI_API_KEY") == []


def test_each_prefilter_search_finds_its_literals():
    # what find_secrets looks for is what the raw-line prefilter finds
    for _, _, text in PLANTED:
        assert has_candidate(text.encode())
    assert not has_candidate(b'{"type":"message","message":{"role":"user","content":"hello there"}}')


def planted_session(tmp_path):
    """A tree session: each planted text in a message (content, tool arguments, a nested field), a secret
    in the header, one clean message; returns (path, the secrets in order of lines)."""
    lines = [header()]
    expected = []
    parent = None
    for n, (_, secret, text) in enumerate(PLANTED):
        eid = f"m{n}"
        if n % 3 == 0:
            lines.append(message(eid, parent, content=text))
        elif n % 3 == 1:
            calls = [
                {
                    "id": f"c{n}",
                    "type": "function",
                    "function": {"name": "bash", "arguments": json.dumps({"cmd": text})},
                }
            ]
            lines.append(message(eid, parent, "assistant", None, tool_calls=calls))
        else:
            lines.append(message(eid, parent, content="see the settings", settings={"deep": [{"value": text}]}))
        expected.append(secret)
        parent = eid
    lines.append(message("clean", parent, content="nothing secret here, just sha " + "ab12" * 10))
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(lines))
    return path, expected


def test_session_secrets_give_line_entry_kind_and_preview(tmp_path):
    path, _ = planted_session(tmp_path)
    with open_session(str(path)) as session:
        found = session_secrets(session)
    assert [(f.line, f.entry) for f in found] == [(n + 2, n) for n in range(len(PLANTED))]
    assert [f.kind for f in found] == [kind for kind, _, _ in PLANTED]
    assert [f.preview for f in found] == [preview(secret, kind) for kind, secret, _ in PLANTED]
    assert set(found[0].as_json()) == {"line", "entry", "kind", "preview"}
    text = json.dumps([f.as_json() for f in found])
    assert not any(secret in text for _, secret, _ in PLANTED)


def test_lines_that_are_not_entries_bad_lines_and_a_torn_tail(tmp_path):
    key = next(secret for kind, secret, _ in PLANTED if kind == "github-token")
    path = tmp_path / "s.jsonl"
    head = {"type": "session", "version": 1, "id": "s", "createdAt": "2026-03-14T11:05:00.000Z", "cwd": f"/x/{key}"}
    path.write_bytes(
        orjson.dumps(head)
        + b"\n"
        + message("a", None, content="hi")
        + b'{"type":"message","id":"b", "broken '
        + key.encode()
        + b"\n"
        + message("c", "a", content=key)
        + b'{"type":"message","id":"d","message":{"content":"'
        + key.encode()
    )
    with open_session(str(path)) as session:
        found = session_secrets(session)
    assert [(f.line, f.entry, f.kind) for f in found] == [
        (1, None, "github-token"),
        (3, None, "github-token"),
        (4, 1, "github-token"),
        (5, None, "github-token"),
    ]


def test_blocks_split_anywhere_read_the_same(tmp_path):
    path, _ = planted_session(tmp_path)
    data = path.read_bytes()
    whole = list(scan_blocks(iter([data])))
    for size in (1, 7, 100, 4096):
        blocks = (data[k : k + size] for k in range(0, len(data), size))
        assert list(scan_blocks(blocks)) == whole


def test_no_sample_session_holds_a_secret():
    files = sorted(SAMPLES.rglob("*.jsonl"))
    assert len(files) > 15
    for path in files:
        with open_session(str(path)) as session:
            assert session_secrets(session) == [], path
        assert list(scan_blocks(iter([path.read_bytes()]))) == [], path


def test_redaction_keeps_json_valid_and_its_structure(tmp_path):
    path, secrets = planted_session(tmp_path)
    data = path.read_bytes()
    redactor = Redactor()
    out = redactor.jsonl(data)
    assert redactor.count == len(PLANTED)
    assert sorted(redactor.kinds.elements()) == sorted(kind for kind, _, _ in PLANTED)
    before, after = data.splitlines(), out.splitlines()
    assert len(before) == len(after)
    for old, new in zip(before, after, strict=True):
        old_value, new_value = orjson.loads(old), orjson.loads(new)
        assert shape(old_value) == shape(new_value)
        if old == new:
            continue
        # JSON inside a string stays JSON, with the same structure
        for old_s, new_s in zip(strings_of(old_value), strings_of(new_value), strict=True):
            if old_s.startswith("{"):
                assert shape(json.loads(old_s)) == shape(json.loads(new_s))
    assert before[0] == after[0] and before[-1] == after[-1]  # lines without a secret keep their bytes
    text = out.decode()
    assert not any(secret in text for secret in secrets)
    # each secret's mark, and the same mark for the same secret
    for kind, secret, _ in PLANTED:
        assert mark(kind, secret) in text or mark(kind, secret) in json.dumps(text)
    again = Redactor()
    assert again.jsonl(out) == out and again.count == 0
    assert path.read_bytes() == data


def strings_of(value):
    todo, out = [value], []
    while todo:
        node = todo.pop()
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, dict):
            todo.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            todo.extend(reversed(node))
    return out


def test_a_value_is_redacted_in_a_copy():
    key = PLANTED[0][1]
    record = {"message": {"content": [{"text": f"key {key}"}]}, "n": 1}
    redactor = Redactor()
    copy = redactor.value(record)
    assert record["message"]["content"][0]["text"] == f"key {key}"
    assert copy["message"]["content"][0]["text"] == f"key {mark('anthropic-key', key)}"
    clean = {"message": "hello"}
    assert redactor.value(clean) is clean


def test_a_sidecar_document_is_redacted_as_it_was_written():
    key = PLANTED[0][1]
    data = json.dumps({"id": "x", "metadata": {"title": f"uses {key}"}}, indent=2).encode() + b"\n"
    redactor = Redactor()
    out = redactor.document(data)
    assert key not in out.decode() and shape(json.loads(out)) == shape(json.loads(data)) and out.endswith(b"}\n")
    assert redactor.file("a.meta.json", data) == out


@pytest.mark.parametrize("kind, secret", [(k, s) for k, s, _ in PLANTED if len(s) > 20 and "\n" not in s][:8])
def test_a_preview_is_never_cut_through_a_secret(kind, secret):
    """The branch list and the compare cut previews: a piece of a key would
    no longer be recognised (so no longer masked); the cut moves before it."""
    from session_tui.model.session.branches import PREVIEW, cut

    for before in range(PREVIEW - len(secret) + 1, PREVIEW):
        text = "x" * before + " " + secret + " and more"
        shown = cut(text)
        assert len(shown) <= PREVIEW
        assert secret[:12] not in shown or secret in shown, (kind, before)


def test_a_secret_used_as_a_key_is_redacted_too():
    secret = next(s for kind, s, _ in PLANTED if kind.startswith("anthropic"))
    raw = orjson.dumps({"type": "note", "tokens": {secret: 1, "other": secret}, "z": 2})
    redactor = Redactor()
    out = orjson.loads(redactor.line(raw))
    assert secret not in orjson.dumps(out).decode() and redactor.count == 2
    assert list(out) == ["type", "tokens", "z"] and list(out["tokens"])[1] == "other"


def test_a_redacted_line_keeps_every_other_byte():
    """Only the string holding the secret changes: numbers beyond 64 bits,
    repeated keys and spacing stay as the writer wrote them."""
    secret = next(s for kind, s, _ in PLANTED if kind.startswith("anthropic"))
    raw = b'{"type":"x", "big":123456789012345678901234567890,"a":1,"a":2,"t":' + orjson.dumps(f"k {secret} e") + b"}"
    out = Redactor().line(raw)
    head, _, tail = raw.partition(orjson.dumps(f"k {secret} e"))
    assert out.startswith(head) and out.endswith(tail) and secret not in out.decode()


@pytest.mark.parametrize("splitter", ["\u200b", "\u200d", "\u2060", "\ufeff", "\u202e", "\u00ad"])
@pytest.mark.parametrize("kind", ["anthropic-key", "github-token", "aws-access-key", "private-key", "user-password"])
def test_a_secret_split_by_an_invisible_character_is_the_secret(kind, splitter):
    secret, text = next((s, t) for k, s, t in PLANTED if k == kind)
    for cut in (1, len(secret) // 2, len(secret) - 1):  # inside its prefix, its body, before its end
        split = secret[:cut] + splitter + secret[cut:]
        where = text.replace(secret, split)
        found = find_secrets(where)
        assert [(s.kind, s.value) for s in found] == [(kind, secret)]  # the same secret: the same mark
        assert where[found[0].start : found[0].end].replace(splitter, "") == secret
        for raw in (orjson.dumps({"content": where}), json.dumps({"content": where}).encode()):  # raw, \u-escaped
            assert has_candidate(raw)
            assert [s.kind for s in line_secrets(raw)] == [kind]
        redacted = Redactor().text(where)
        assert secret[:cut] + splitter not in redacted and splitter + secret[cut:] not in redacted
