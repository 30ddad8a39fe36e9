"""Records whose fields hold the wrong JSON type (a list or an object where
a string belongs, a number where a list belongs) are read as damaged data,
never a crash: for every sample of every format, each string field of the
first records is replaced by other types, and the file is checked and its
context built."""

from __future__ import annotations

import orjson
import pytest

from session_tui.commands.check import report
from session_tui.model.errors import SessionError
from session_tui.model.session.context import context_items
from session_tui.model.session.session import open_session
from tests.support import SAMPLES

FILES = sorted(p for p in SAMPLES.rglob("*.jsonl") if p.stat().st_size < 40_000)
WRONG = ([], ["x"], {"x": 1}, 7, None, True)


def variants(record: dict, depth: int = 0):
    """(description, record) with one field's value swapped for a wrong type."""
    for key, value in record.items():
        if isinstance(value, dict) and depth < 2:
            for what, inner in variants(value, depth + 1):
                yield f"{key}.{what}", {**record, key: inner}
        elif isinstance(value, list) and value and isinstance(value[0], dict) and depth < 2:
            for what, inner in variants(value[0], depth + 1):
                yield f"{key}[0].{what}", {**record, key: [inner, *value[1:]]}
        if isinstance(value, (str, list)):
            for wrong in WRONG:
                if type(wrong) is not type(value):
                    yield f"{key}={orjson.dumps(wrong).decode()}", {**record, key: wrong}


@pytest.mark.parametrize("sample", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_field_of_the_wrong_type_is_never_a_crash(sample, tmp_path):
    lines = sample.read_bytes().splitlines(keepends=True)
    target = tmp_path / sample.name
    for n in range(min(len(lines), 6)):
        try:
            record = orjson.loads(lines[n])
        except orjson.JSONDecodeError:
            continue
        if not isinstance(record, dict):
            continue
        for what, changed in variants(record):
            target.write_bytes(b"".join([*lines[:n], orjson.dumps(changed) + b"\n", *lines[n + 1 :]]))
            try:
                with open_session(target) as session:
                    report(session, str(target))
                    context_items(session, session.active_leaf())
            except SessionError:
                pass  # a one-line refusal (for example, a header no longer recognised)
            except Exception as exc:  # pragma: no cover - the failure message
                raise AssertionError(f"line {n + 1}, {what}: {type(exc).__name__}: {exc}") from exc
