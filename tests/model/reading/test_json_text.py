"""JSON text of values at any depth a session can hold."""

from __future__ import annotations

import orjson
import pytest

from session_tui.model.reading import json_text

SHALLOW = [[], {}, 1, -2.5, None, True, 'x"\u2028é', [1, {"a": [], "b": {}, "c": [1, "x", None, {"k": [{}]}]}]]


@pytest.mark.parametrize("value", SHALLOW)
def test_written_as_orjson_writes_it(value):
    assert json_text.dumps(value) == orjson.dumps(value).decode()
    assert json_text.dumps(value, indent=True) == orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    assert json_text._deep(value, False) == orjson.dumps(value).decode()
    assert json_text._deep(value, True) == orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()


def test_every_depth_reading_takes_is_written():
    text = '{"a":' * 1023 + '[1,"x"]' + "}" * 1023  # 1024 levels: the most orjson reads
    value = orjson.loads(text)
    with pytest.raises(orjson.JSONEncodeError):
        orjson.dumps(value)
    assert json_text.dumps(value) == text
    indented = json_text.dumps(value, indent=True)
    assert "".join(indented.split()) == text
    assert "\n" + "  " * 1024 + '"x"\n' + "  " * 1023 + "]\n" + "  " * 1022 + "}\n" in indented
