"""A lone surrogate escape (``"\\ud83d"``: half an emoji cut from tool
output) is valid JSON for every client (Node's and Python's parsers take
it): each format reads such a record like any other, keeps it, shows it
inert, and no repair drops it."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from session_tui.model.reading import json_text
from session_tui.model.reading.records import loads
from session_tui.model.session.context import context_at
from session_tui.model.session.session import open_session
from session_tui.store import NothingToDo, edits
from tests.support import ONE_PER_FORMAT, SAMPLES, check_json, run_cli


def texts(value: object):
    todo = [value]
    while todo:
        node = todo.pop()
        pairs = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
        for key, child in pairs:
            if key in ("text", "content") and isinstance(child, str) and len(child) > 8:
                yield child
            elif isinstance(child, (dict, list)):
                todo.append(child)


def with_first_char(sample: Path, tmp: Path, escape: bytes) -> Path:
    """A copy of ``sample`` (and its sidecar) where the last message text
    that is written plainly once starts with ``escape`` instead."""
    out = tmp / sample.name
    for sidecar in sample.parent.glob(sample.name.removesuffix(".jsonl") + ".*"):
        shutil.copyfile(sidecar, tmp / sidecar.name)
    lines = sample.read_bytes().split(b"\n")
    for n in range(len(lines) - 1, -1, -1):
        try:
            record = orjson.loads(lines[n])
        except orjson.JSONDecodeError:
            continue
        for text in texts(record):
            written = orjson.dumps(text)
            if lines[n].count(written) == 1 and written[1:2].isalpha():
                lines[n] = lines[n].replace(written, b'"' + escape + written[2:])
                out.write_bytes(b"\n".join(lines))
                return out
    raise AssertionError(f"{sample}: no message text to change")


@pytest.mark.parametrize("name", ONE_PER_FORMAT, ids=lambda n: n.split("/")[0])
def test_a_lone_surrogate_is_read_kept_and_shown_inert_in_every_format(tmp_path, name):
    (tmp_path / "plain").mkdir()
    (tmp_path / "lone").mkdir()
    plain = with_first_char(SAMPLES / name, tmp_path / "plain", b"X")
    lone = with_first_char(SAMPLES / name, tmp_path / "lone", b"\\ud83d")
    (plain_report,) = check_json(plain)
    (lone_report,) = check_json(lone)
    assert {**lone_report, "path": ""} == {**plain_report, "path": ""}  # no bad line, no false fork or dangling call
    assert lone_report["problems"] == []
    with open_session(lone) as session, open_session(plain) as twin:
        assert len(context_at(session)) == len(context_at(twin))
        assert "\\ud83d" in json_text.dumps(context_at(session))  # kept, and written back as it was read
        with pytest.raises(NothingToDo):
            edits.plan_drop_bad(session)
    for form in ("md", "html", "json"):
        out = tmp_path / f"out.{form}"
        done = run_cli("export", str(lone), "--to", form, "-o", str(out))
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        text = out.read_text(encoding="utf-8")  # valid UTF-8: the surrogate is never written raw
        assert "D83D" in text or "\\ud83d" in text  # md and html show a placeholder, json the escape
    context = run_cli("export", str(lone), "--context", "--to", "json")
    assert context.returncode == 0 and "\\ud83d" in context.stdout


def test_loads_keeps_the_surrogate_and_refuses_what_orjson_refuses():
    assert loads(b'{"a":"\\ud83d!"}') == {"a": "\ud83d!"}
    with pytest.raises(orjson.JSONDecodeError):
        loads(b'{"a":NaN,"b":"\\ud83d"}')
    with pytest.raises(orjson.JSONDecodeError):
        loads(b'{"a":"\\ud83d"')
