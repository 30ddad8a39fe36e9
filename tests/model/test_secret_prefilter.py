"""The raw-line prefilter in fewer passes (issue 39): it flags every line
the passes it replaced flagged, at the same places (the escapes in one
search, the invisible characters' bytes a search per lead byte)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from session_tui.model.privacy import secrets
from session_tui.model.privacy.secrets import candidate_lines, has_candidate
from tests.secret_samples import PLANTED, TRAPS

# the passes of before, as they were written: the escapes in two, the invisible characters' bytes in one
_BEFORE_ESCAPES = (
    rb"\\u00[2-7][0-9a-fA-F]",
    rb"\\u(?:00[aA][dD]|061[cC]|180[eE]|200[b-fB-F]|202[a-eA-E]|206[0-46-9]|[fF][eE][fF][fF])",
)
_BEFORE_INVISIBLE = (
    b"\xc2\xad|\xd8\x9c|\xe1\xa0\x8e|\xe2\x80[\x8b-\x8f\xaa-\xae]|\xe2\x81[\xa0-\xa4\xa6-\xa9]|\xef\xbb\xbf"
)
BEFORE_ASCII = (*(re.compile(s.encode()) for s in secrets._SEARCHES), *map(re.compile, _BEFORE_ESCAPES))
BEFORE = (*BEFORE_ASCII, re.compile(_BEFORE_INVISIBLE))
INVISIBLE = [chr(c) for c in (0xAD, 0x61C, 0x180E, *range(0x200B, 0x2010), *range(0x202A, 0x202F))]
INVISIBLE += [chr(c) for c in (*range(0x2060, 0x2065), *range(0x2066, 0x206A), 0xFEFF)]
NEAR = [chr(c) for c in (0xAC, 0xAE, 0x61B, 0x180F, 0x200A, 0x2010, 0x2029, 0x202F, 0x2065, 0x206A, 0xFEFE)]


def hits_before(data: bytes) -> set[int]:
    passes = BEFORE_ASCII if data.isascii() else BEFORE
    return {found.start() for prefilter in passes for found in prefilter.finditer(data)}


def hits_now(data: bytes) -> set[int]:
    passes = secrets._ASCII_PREFILTERS if data.isascii() else secrets.PREFILTERS
    return {found.start() for prefilter in passes for found in prefilter.finditer(data)}


def test_the_escapes_and_invisible_characters_are_found_where_they_were():
    for char in INVISIBLE + NEAR:
        for written in (char.encode(), f"\\u{ord(char):04x}".encode(), f"\\u{ord(char):04X}".encode()):
            data = b'{"a":"x' + written + b'y"}\n'
            assert hits_now(data) == hits_before(data)
            assert has_candidate(data) == (char in INVISIBLE)
    for code in range(0x100):
        data = f'{{"a":"\\u00{code:02x}"}}'.encode()
        assert hits_now(data) == hits_before(data)


def test_every_planted_secret_and_trap_flags_as_before():
    for text in [t for _, _, t in PLANTED] + list(TRAPS):
        for data in (text.encode(), f'{{"t":"{text}\u2014"}}'.encode()):
            assert hits_now(data) == hits_before(data)


def test_the_sessions_of_the_tests_flag_the_same_lines():
    files = sorted(Path(__file__).resolve().parents[1].joinpath("data").rglob("*.jsonl"))
    assert files
    for path in files:
        data = path.read_bytes()
        assert hits_now(data) == hits_before(data), path
        found = candidate_lines(data)
        assert all(data.rfind(b"\n", 0, start + 1) in (-1, start - 1) for start, _ in found)


_PIECES = st.sampled_from(
    ["\\u", "00", "20", "ad", "AD", "61c", "200b", "feff", "FEFF", "x", "sk-", "a", "\n", *INVISIBLE[:6], *NEAR[:4]]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=4)), max_size=30))
def test_any_line_flags_as_before(pieces):
    data = "".join(pieces).encode("utf-8", "surrogatepass")
    assert hits_now(data) == hits_before(data)
