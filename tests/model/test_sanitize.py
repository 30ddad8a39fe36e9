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


def test_other_format_characters_and_text_are_kept():
    text = "na\u00efve \u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627 zero\u200bwidth emoji\u200d\U0001f600"
    assert inert(text) == text  # right-to-left letters themselves, ZWSP and ZWJ are not controls here
