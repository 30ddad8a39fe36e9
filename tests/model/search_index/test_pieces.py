"""The word index finds what the trigram index did: a piece inside a word,
a piece across words, CJK text without spaces, phrases of punctuation, case
beyond ASCII; its vocabulary stays as whole as the index, an append or a
killed build alike."""

from __future__ import annotations

import json
import os
import time
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from session_tui.model.search_index import vocabulary
from session_tui.model.search_index.database import open_database
from session_tui.model.search_index.indexer import catch_up
from session_tui.model.search_index.marks import BASE
from session_tui.model.search_index.query import parse
from session_tui.model.search_index.search import run_query
from tests.model.fleet.builders import Writer
from tests.support import run_cli

HASH = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"
TEXTS = (
    "raise JsonlParserError: Parse failed at line 3",
    f"checked out {HASH} on the release branch",
    "hello world, and goodbye",
    "日本語のテキストを検索する",
    "Edit src/invoice_tools/totals.py then run os.path.join(a, b) and git push --force-with-lease",
    "a visit to İstanbul and a CAFÉ in Zürich",
)


@pytest.fixture
def db(tmp_path):
    connection = open_database(str(tmp_path / "cache"))
    yield connection
    connection.close()


@pytest.fixture
def roots(tmp_path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    w = Writer(folder / "pi.jsonl", "pi", time.time())
    for k, text in enumerate(TEXTS):
        w.prompt(text, ago=600 - k)
    Writer(folder / "other.jsonl", "pi", time.time()).prompt("nothing to see: parse the lines, world peace")
    return [str(folder)]


def found(db, text, roots):
    catch_up(db, roots)
    return [h.snippet for h in run_query(db, parse(text), roots).hits]


def test_a_piece_inside_a_word_is_found_ignoring_case_and_a_phrase_of_it_as_written(db, roots):
    assert len(found(db, "Parser", roots)) == 1 and len(found(db, "PARSERERR", roots)) == 1
    assert "«ParserE»" in found(db, '"ParserE"', roots)[0]
    assert found(db, '"parserE"', roots) == []  # a phrase is exact
    assert len(found(db, HASH[10:22], roots)) == 1  # a hash's middle
    assert len(found(db, HASH[-9:], roots)) == 1 and len(found(db, HASH[:9], roots)) == 1  # its end, its start


def test_a_piece_across_words_is_a_phrase_of_a_word_ending_and_a_word_starting(db, roots):
    assert len(found(db, '"Error: Par"', roots)) == 1
    assert len(found(db, '"lo wor"', roots)) == 1 and found(db, '"lo  wor"', roots) == []
    assert len(found(db, '"ror: Parse fa"', roots)) == 1  # an end, a whole word, a start
    assert found(db, '"Error: Pax"', roots) == [] and found(db, '"xError: Par"', roots) == []
    assert len(found(db, '"world, and"', roots)) == 1 and found(db, '"world and"', roots) == []


def test_cjk_text_without_spaces_is_found_by_any_piece_of_it(db, roots):
    assert len(found(db, "テキスト", roots)) == 1
    assert "«テキスト»" in found(db, '"テキスト"', roots)[0]
    assert len(found(db, "語のテ", roots)) == 1 and found(db, "語テキ", roots) == []
    assert len(found(db, "検索 role:user", roots)) == 1  # (two characters: with a filter)


def test_phrases_of_punctuation_paths_and_flags(db, roots):
    for phrase in ("src/invoice_tools/totals.py", "os.path.join(a, b)", "--force-with-lease", "_tools/tot", "n(a, b"):
        assert len(found(db, f'"{phrase}"', roots)) == 1, phrase
    assert len(found(db, "invoice_tools", roots)) == 1 and len(found(db, "path:totals.py", roots)) == 0  # (no call)
    assert found(db, '"src/invoice_tools/totals.pyc"', roots) == []


def test_case_beyond_ascii_is_ignored_for_words_and_kept_for_phrases(db, roots):
    assert len(found(db, "istanbul", roots)) == 0  # (İ lowers to i and a dot: as the check folds it)
    assert len(found(db, "İSTANBUL", roots)) == 1 and len(found(db, "café", roots)) == 1
    assert len(found(db, "zürich", roots)) == 1 and len(found(db, "ZÜRICH", roots)) == 1
    assert found(db, '"Café"', roots) == [] and len(found(db, '"CAFÉ"', roots)) == 1


def _vocabulary_is_whole(db):
    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, words, row)")
    index = {t for (t,) in db.execute("SELECT term FROM temp.v") if not (BASE <= ord(t[0]) < BASE + 0x100)}
    kept = vocabulary.words(db)
    grams = db.execute("SELECT count(*) FROM term_grams WHERE term_grams MATCH 'abc' OR term_grams MATCH 'xyz'")
    return len(kept) == len(set(kept)) and index == set(kept) and grams.fetchone()[0] >= 0 and not vocabulary.stale(db)


def test_an_append_and_a_new_file_bring_their_words_into_the_vocabulary_at_once(db, tmp_path, roots):
    catch_up(db, roots)
    assert _vocabulary_is_whole(db)
    big = Writer(tmp_path / "sessions" / "big.jsonl", "pi", time.time())
    for k in range(200):
        big.answer(f"filler text number {k} " * 20)
    catch_up(db, roots)
    before = os.path.getsize(big.path)
    big.prompt("an appended Xylophonist, Überraschungsei", ago=0)
    Writer(tmp_path / "sessions" / "new.jsonl", "pi", time.time()).prompt("a new Quokkaphile")
    held = db.execute("SELECT sum(indexed_to) FROM files").fetchone()[0]
    reading = os.path.getsize(big.path) - before + os.path.getsize(tmp_path / "sessions" / "new.jsonl")
    assert reading < held / 4  # (their words added batch by batch, not from a pass over the whole index)
    assert found(db, "lophon", roots) and found(db, "kkaph", roots) and found(db, "ÜBERRASCHUNG", roots)
    assert _vocabulary_is_whole(db)


def test_a_build_killed_before_its_vocabulary_is_made_whole_still_finds_pieces(db, roots):
    catch_up(db, roots)
    db.execute("INSERT OR REPLACE INTO meta VALUES('vocabulary', 'stale')")  # (as if killed mid-build)
    db.execute("DELETE FROM term_blocks")
    db.execute("DELETE FROM hex_blocks")
    assert len(run_query(db, parse("arserErr"), roots).hits) == 1  # (before a catch-up: the piece left to the check)
    catch_up(db, roots)
    assert _vocabulary_is_whole(db) and len(found(db, "arserErr", roots)) == 1


def test_search_json_finds_a_piece_inside_a_word_and_across_words(roots):
    for query, snippet in (("ParserErr", "«ParserErr»"), ('"Error: Par"', "«Error: Par»"), ("のテキ", "«のテキ»")):
        done = run_cli("search", query, *roots, "--json")  # (the test's own cache dir: tests/conftest.py)
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        assert out["total"] == 1 and snippet in out["hits"][0]["snippet"], query


def test_a_phrase_is_asked_of_the_index_word_by_word_and_checked_as_written(db, tmp_path):
    """The index keeps no positions (a third of its size): a phrase's
    candidates are the documents holding each of its words, and the check
    of each against its record keeps only those holding the phrase."""
    from session_tui.model.search_index.candidates import candidates

    folder = tmp_path / "common"
    folder.mkdir()
    w = Writer(folder / "pi.jsonl", "pi", time.time())
    for k in range(30):
        w.prompt(f"beta then alpha, turn {k}", ago=600 - k)
    w.prompt("the alphabet soup", ago=10)
    roots = [str(folder)]
    catch_up(db, roots)
    assert len(list(candidates(db, parse('"ha, tur"'), roots))) == 30
    assert len(list(candidates(db, parse('"alpha bet"'), roots))) == 30  # (each word in the 30: none in a row)
    assert len(list(candidates(db, parse('"the alphab"'), roots))) == 1
    assert len(found(db, '"the alphab"', roots)) == 1 and found(db, '"alpha bet"', roots) == []
    assert len(found(db, '"ha, tur"', roots)) == 30 and found(db, '"then, alpha"', roots) == []


def test_a_phrase_whose_ends_are_in_many_words_is_still_found(db, tmp_path):
    from session_tui.model.search_index.vocabulary import MANY

    folder = tmp_path / "many"
    folder.mkdir()
    w = Writer(folder / "pi.jsonl", "pi", time.time())
    w.prompt(" ".join(f"w{k}zork" for k in range(MANY + 10)), ago=30)  # (more words ending with it than MANY)
    w.prompt(" ".join(f"quux{k}" for k in range(MANY + 10)), ago=20)  # (more starting with it than MANY)
    w.prompt("then w7zork tailword and headword quux5 end", ago=10)
    roots = [str(folder)]
    assert len(found(db, '"zork tailw"', roots)) == 1 and len(found(db, '"headword quu"', roots)) == 1
    assert len(found(db, '"ork tailword and headword qu"', roots)) == 1 and found(db, '"zork headword"', roots) == []


def test_long_hex_words_are_found_by_any_piece_without_trigrams(db, roots):
    catch_up(db, roots)
    assert HASH in vocabulary.words(db)  # (kept whole, apart from the trigram-indexed blocks)
    assert vocabulary.holding(db, HASH[9:21], False, False) == [HASH]
    assert vocabulary.holding(db, HASH[:7], True, False) == [HASH]
    assert vocabulary.holding(db, HASH[-6:], False, True) == [HASH]
    assert vocabulary.holding(db, HASH[3:9], True, False) == []
    for piece in (HASH[9:21], HASH[:7].upper(), f'"{HASH[5:30]}"', f'"out {HASH[:10]}"'):
        assert len(found(db, piece, roots)) == 1, piece


def test_hex_words_of_an_odd_length_are_packed_and_found_as_written(db, tmp_path, roots):
    Writer(tmp_path / "sessions" / "odd.jsonl", "pi", time.time()).prompt("deadbeefcafe12345 0123456789abcdef0")
    catch_up(db, roots)
    assert {"deadbeefcafe12345", "0123456789abcdef0"} <= set(vocabulary.words(db))
    assert vocabulary.holding(db, "ef0", False, True) == ["0123456789abcdef0"]
    assert vocabulary.holding(db, "e12345", False, True) == ["deadbeefcafe12345"]
    assert vocabulary.holding(db, "3450", False, False) == []  # (its padding is no digit of it)
    assert vocabulary.holding(db, "ef00dead", False, False) == []  # (nor is a word packed after it)
    assert len(found(db, "BEEFCAFE", roots)) == 1 and len(found(db, "89abcdef0", roots)) == 1


def test_a_word_holding_a_piece_twice_is_found_by_either_end(db, tmp_path, roots):
    Writer(tmp_path / "sessions" / "twice.jsonl", "pi", time.time()).prompt("ababab xyzabcxyz")
    catch_up(db, roots)
    assert vocabulary.holding(db, "bab", False, True) == ["ababab"]
    assert vocabulary.holding(db, "xyz", False, True) == ["xyzabcxyz"]
    assert vocabulary.holding(db, "xyz", True, False) == ["xyzabcxyz"]
    assert len(found(db, '"abcxyz"', roots)) == 1 and len(found(db, "zabcx", roots)) == 1


@st.composite
def _hex_block(draw):
    """A block of long hex words of one length (odd ones too), as the
    vocabulary packs them, and a piece: from one of its words, across two
    of them, or any digits; few digits, so pieces recur."""
    digits = draw(st.integers(5, 20))
    words = draw(st.lists(st.text("abc0", min_size=digits, max_size=digits), min_size=1, max_size=40, unique=True))
    text = "".join(w if digits % 2 == 0 else w + "0" for w in words)
    at = draw(st.integers(0, len(text) - 1))
    piece = draw(
        st.one_of(
            st.just(text[at : at + draw(st.integers(1, digits))]),  # (from a word, or across two, or into padding)
            st.text("abc0", min_size=1, max_size=digits),
        )
    )
    return digits, bytes.fromhex(text), piece


@given(block=_hex_block(), starts=st.booleans(), ends=st.booleans(), many=st.sampled_from([vocabulary.MANY, 2]))
@settings(max_examples=400, deadline=None)
def test_a_packed_hex_block_is_looked_through_as_its_text_would_be(block, starts, ends, many):
    """The scan of a block's bytes finds the words, in the order, that the
    scan of its text finds (``_scan_hex``, the plain reading: the oracle),
    and says "too many" where it does."""
    digits, packed, piece = block
    plain: list[str] = []
    fast: list[str] = []
    with patch.object(vocabulary, "MANY", many):  # (2: "too many" comes up)
        told = vocabulary._scan_packed(packed, digits, piece, starts, ends, fast)
        assert told == vocabulary._scan_hex(packed.hex(), digits, piece, starts, ends, plain)
    if told:
        assert fast == plain, piece
