"""inert(): untrusted text shows its control characters as visible placeholders."""

from __future__ import annotations

import pytest

from session_tui.model.sanitize import inert

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def test_c0_del_and_c1_controls_become_placeholders():
    assert inert("a\x1b[31mb\x07\x7f\x9bc") == "a\u241b[31mb\u2407\u2421<9B>c"
    assert inert("tab\there\nnext") == "tab\there\nnext"
    assert inert("tab\there\nnext", keep_newlines=False) == "tab here\u240anext"


@pytest.mark.parametrize("char", BIDI)
def test_each_bidi_control_becomes_a_visible_placeholder(char):
    shown = inert(f"x{char}y")
    assert shown == f"x<{ord(char):04X}>y"
    assert not any(c in shown for c in BIDI)


def test_trojan_source_reads_in_stored_order():
    # an RLO would show "if admin" reversed; isolates would move the comment
    line = "access = 'user\u202e \u2066// check admin\u2069 \u2066'"
    assert inert(line) == "access = 'user<202E> <2066>// check admin<2069> <2066>'"


def test_letters_of_every_script_and_emoji_are_kept():
    text = "na\u00efve \u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627 family \U0001f468\u200d\U0001f469"
    assert inert(text) == text  # right-to-left letters, and a ZWJ joining two emoji into one


@pytest.mark.parametrize("char", "\u00ad\u180e\u200b\u200c\u200d\u2060\u2061\u2064\ufeff\u2028\u2029")
def test_invisible_characters_that_hide_or_split_text_are_marked(char):
    code = f"{ord(char):02X}" if ord(char) < 0x100 else f"{ord(char):04X}"
    assert inert(f"pass{char}word") == f"pass<{code}>word"


def test_undecodable_file_name_bytes_show_as_their_hex():
    import os

    name = os.fsdecode(b"run-\x9b2J-\x9d0;x.jsonl")  # C1 CSI and OSC as raw bytes
    assert inert(name) == "run-<9B>2J-<9D>0;x.jsonl"
    assert inert(name).encode()  # printable: no lone surrogate left


def test_json_escape_invisible_writes_escapes():
    from session_tui.model.sanitize import json_escape_invisible

    assert json_escape_invisible('"a\u202eb\u200bc\x9b"') == '"a\\u202eb\\u200bc\\u009b"'
