"""The raw-line prefilter in one pass (issue 39): an Aho-Corasick automaton
over its literals, a refined needle checked by its regex where it is found,
the forms that start with a lone ``:`` in a regex pass. It flags exactly
the lines the regex passes it replaced flagged (kept here as they were)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from session_tui.model.privacy import secrets
from session_tui.model.privacy.secrets import candidate_lines, has_candidate
from tests.secret_samples import PLANTED, TRAPS

# the passes of before, as they were written: a search per first character, the
# escapes in one, the invisible characters' bytes in one
_BEFORE_ESCAPES = (
    rb"\\u(?:00[2-7][0-9a-fA-F]|00[aA][dD]|061[cC]|180[eE]|200[b-fB-F]|202[a-eA-E]|206[0-46-9]|[fF][eE][fF][fF])"
)
_BEFORE_INVISIBLE = (
    b"\xc2\xad|\xd8\x9c|\xe1\xa0\x8e|\xe2\x80[\x8b-\x8f\xaa-\xae]|\xe2\x81[\xa0-\xa4\xa6-\xa9]|\xef\xbb\xbf"
)
BEFORE_ASCII = (*(re.compile(s.encode()) for s in secrets._SEARCHES), re.compile(_BEFORE_ESCAPES))
BEFORE = (*BEFORE_ASCII, re.compile(_BEFORE_INVISIBLE))
INVISIBLE = [chr(c) for c in (0xAD, 0x61C, 0x180E, *range(0x200B, 0x2010), *range(0x202A, 0x202F))]
INVISIBLE += [chr(c) for c in (*range(0x2060, 0x2065), *range(0x2066, 0x206A), 0xFEFF)]
NEAR = [chr(c) for c in (0xAC, 0xAE, 0x61B, 0x180F, 0x200A, 0x2010, 0x2029, 0x202F, 0x2065, 0x206A, 0xFEFE)]


def lines_before(data: bytes) -> list[tuple[int, int]]:
    """``candidate_lines`` as the regex passes found them."""
    passes = BEFORE_ASCII if data.isascii() else BEFORE
    lines: list[tuple[int, int]] = []
    for hit in sorted({found.start() for prefilter in passes for found in prefilter.finditer(data)}):
        if lines and hit <= lines[-1][1]:
            continue
        end = data.find(b"\n", hit)
        lines.append((data.rfind(b"\n", 0, hit) + 1, len(data) if end < 0 else end))
    return lines


def same(data: bytes) -> None:
    before = lines_before(data)
    assert candidate_lines(data) == before
    assert has_candidate(data) == bool(before)


def test_the_escapes_and_invisible_characters_are_found_where_they_were():
    for char in INVISIBLE + NEAR:
        for written in (char.encode(), f"\\u{ord(char):04x}".encode(), f"\\u{ord(char):04X}".encode()):
            data = b'{"a":"x' + written + b'y"}\n'
            same(data)
            assert has_candidate(data) == (char in INVISIBLE)
    for code in range(0x100):
        for written in (f"\\u00{code:02x}", f"\\u00{code:02X}"):
            same(f'{{"a":"{written}"}}'.encode())


def test_every_planted_secret_and_trap_flags_as_before():
    for text in [t for _, _, t in PLANTED] + list(TRAPS):
        for data in (text.encode(), f'{{"t":"{text}\u2014"}}'.encode(), f"x\n{text}\ny\n".encode()):
            same(data)


def test_a_refined_needle_counts_only_where_its_regex_matches():
    assert has_candidate(b'{"OPENAI_API_KEY": "x"}')  # KEY, then its assignment
    assert not has_candidate(b'{"t":"the KEY of it"}')  # KEY alone: ordinary text
    assert has_candidate(b'{"t":"AC' + b"0" * 32 + b'"}') and not has_candidate(b'{"t":"ACCESS granted"}')
    assert has_candidate(b'{"u":"https://bob:hunter2@example.com"}')  # the ":" forms: a regex pass
    assert has_candidate(b'{"u":"https:\\/\\/bob:hunter2@example.com"}')
    assert not has_candidate(b'{"u":"https://example.com/a:b"}')


def test_a_part_of_a_buffer_is_read_as_itself():
    data = b'{"a":"sk-ant-api03-abc"}\n{"b":"plain"}\n{"c":"ghp_x"}\n'
    second = data.index(b'{"b"')
    assert candidate_lines(data, second) == [(data.index(b'{"c"'), len(data) - 1)]
    assert candidate_lines(data, 0, second) == [(0, second - 1)]


def test_the_sessions_of_the_tests_flag_the_same_lines():
    files = sorted(Path(__file__).resolve().parents[1].joinpath("data").rglob("*.jsonl"))
    assert files
    for path in files:
        data = path.read_bytes()
        assert candidate_lines(data) == lines_before(data), path


_PIECES = st.sampled_from(
    ["\\u", "00", "20", "ad", "AD", "61c", "200b", "feff", "FEFF", "x", "sk-", "a", "\n", "KEY", "=", ":", "://"]
    + ["AC", "0123456789abcdef", "@", "xox", "TOKEN", '"', *INVISIBLE[:6], *NEAR[:4]]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=4)), max_size=40))
def test_any_data_flags_as_before(pieces):
    same("".join(pieces).encode("utf-8", "surrogatepass"))


# -- a string's secrets: the one pass spares an ASCII string's regex passes ---------


def secrets_as_before(text: str, name: str | None = None) -> list[secrets.Secret]:
    """``find_secrets`` as it was: the string's own regex passes always run."""
    return secrets.find_secrets(text, name, secrets.needle_hits(text))


_SAMPLES = [text for _, _, text in PLANTED] + list(TRAPS)
_STRING_PIECES = st.sampled_from(
    [*_SAMPLES, "\\u0073", "\\u00ad", "sk-", "KEY=", "OPENAI_API_KEY", " = ", "://", "bob:", "@", "\n", "é", "\u200b"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_STRING_PIECES, st.text(max_size=6)), max_size=12), st.sampled_from([None, "t", "API_KEY"]))
def test_a_string_holds_the_secrets_its_regex_passes_find(pieces, name):
    text = "".join(pieces)
    assert secrets.find_secrets(text, name) == secrets_as_before(text, name)
    items = [(name, text), (None, text.upper()), ("GITHUB_TOKEN", "".join(reversed(pieces)))]
    assert secrets.find_in_strings(items) == [secrets_as_before(t, n) for n, t in items]


def test_a_plain_string_is_answered_by_the_one_pass_alone(monkeypatch):
    def passes(text: str) -> list[int]:
        raise AssertionError("the regex passes ran")

    monkeypatch.setattr(secrets, "needle_hits", passes)
    assert secrets.find_secrets("a plain ASCII tool output, 300 KB of it\n" * 100) == []
    assert secrets.find_in_strings([(None, "plain"), ("t", "text")]) == [[], []]


def test_beyond_ascii_a_string_is_still_scanned_as_a_string():
    # a user of 600 characters is 1,200 bytes: past the raw pass's {0,1024}, within the string's
    text = "https://" + "é" * 600 + ":Hunter2-pass-word9@example.com/x"
    assert [s.value for s in secrets.find_secrets(text)] == ["Hunter2-pass-word9"]
