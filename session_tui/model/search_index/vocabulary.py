"""The words of the index, and the pieces inside them.

The ``words`` table (``database``) is a contentless FTS5 index of whole
words (not their positions): the ``ascii`` tokenizer, every character
beyond ASCII a word character, ``_`` (as ``.``, ``/``, ``-``) not: an
identifier, a path, a uuid is its words, found as each of them (kept
whole, each snake_case compound was a word of its own: the bench's varied
100 MB archive had 1.6 M words, not 0.9 M). Those rules are the ones ``split`` below
applies to a query, character for character: no Unicode table of SQLite's
and Python's has to agree for a query to find what the text holds (a word
of ``İ``, Cherokee or a script newer than SQLite's tables would otherwise
be cut or folded one way in the index and another in the query). Case is
folded for ASCII only; beyond it a word is kept as written, and found
ignoring case through the vocabulary below.

A query's words match anywhere inside the text's (``Parser`` in
``JsonlParserError``, a hash's middle, a run of CJK text, which has no
spaces and is one word): the vocabulary keeps each word the index holds,
once, in blocks of BLOCK words (``term_blocks``, compressed), and
``term_grams`` is a trigram index over the blocks (lower-cased as Python
does, as the check of a hit does), so the blocks that may hold a piece are
found and read through, word by word, without reading the vocabulary
through; the index is then asked for the words found. Long hex words
(hashes, ids: a quarter of a real vocabulary, whose trigrams every block
of them would hold) are kept apart (``hex_blocks``, two digits a byte),
out of the trigrams, and read through only for a piece of hex digits. The vocabulary is kept
as current as the index: in the transaction that writes a batch's
documents (its words read by a scratch FTS5 table of the same tokenizer,
those the index does not hold yet written as new blocks), or, for a build
of much at once, made anew from the index's own sorted list
(``fts5vocab``) once at its end, the index marked ``stale`` meanwhile (a
killed build's vocabulary is made whole by the next catch-up; a search
meanwhile takes a piece as unconstrained, and reads more)."""

from __future__ import annotations

import re
import sqlite3
import zlib
from collections.abc import Iterable

from .marks import BASE

TOKENIZER = "ascii"
_WORD = re.compile(r"[0-9A-Za-z\x80-\U0010ffff]+")  # (what the ascii tokenizer keeps together)
MANY = 1000  # words holding a piece past which the piece is left to the check (an OR of them costs more than it saves)
GRAM = 3


def split(text: str) -> list[tuple[str, bool, bool]]:
    """The words of ``text`` as the index cuts them, each with whether
    something comes before it and after it in ``text`` (then the text's word
    starts, or ends, there too)."""
    return [(m.group(), m.start() > 0, m.end() < len(text)) for m in _WORD.finditer(text)]


def _mark(term: str) -> bool:
    """Whether ``term`` is one of ``marks``'s fields (never a piece's word)."""
    return len(term) == 3 and BASE <= ord(term[0]) < BASE + 0x100


def stale(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM meta WHERE key='vocabulary' AND value='stale'").fetchone() is not None


def mark_stale(db: sqlite3.Connection) -> None:
    db.execute("INSERT OR REPLACE INTO meta VALUES('vocabulary', 'stale')")


BLOCK = 128  # words per block of the vocabulary, its trigrams indexed per block (64: 14 % more trigrams)
WBITS = -12  # a block's deflate stream: raw (no header nor checksum), a 4 KB window (a quarter quicker to make)
HEX_BLOCK = 8192  # long hex words per block (never looked up by trigram: read through, as they are)
_HEX = re.compile(r"[0-9a-f]{16,}")  # a long hex word (a hash, an id): its trigrams are every block's
_HEX_PIECE = re.compile(r"[0-9a-f]+")


def _blocks(db: sqlite3.Connection, terms: Iterable[str]) -> None:
    """``terms`` (new to the vocabulary, sorted) written as blocks: the long
    hex words in ``hex_blocks`` (a block for each length), the others in
    ``term_blocks`` with their trigrams (lower-cased as Python does) in
    ``term_grams`` under the block's id."""
    words: list[str] = []
    hexes: dict[int, list[str]] = {}
    for term in terms:
        if _mark(term):
            continue
        if _HEX.fullmatch(term):
            same = hexes.setdefault(len(term), [])
            same.append(term)
            if len(same) >= HEX_BLOCK:
                _write_hex(db, same)
                same.clear()
        else:
            words.append(term)
            if len(words) >= BLOCK:
                _write(db, words)
                words = []
    _write(db, words)
    for same in hexes.values():
        _write_hex(db, same)


def _write(db: sqlite3.Connection, terms: list[str]) -> None:
    """A block of words, one a line, compressed (a third of the size; a
    block is read back in microseconds)."""
    if not terms:
        return
    text = "\n".join(terms)
    packed = zlib.compress(text.encode(), 6, WBITS)
    block = db.execute("INSERT INTO term_blocks(terms) VALUES(?)", (packed,)).lastrowid
    # (a word of ASCII is lower case already: the tokenizer folds it)
    db.execute("INSERT INTO term_grams(rowid, term) VALUES(?, ?)", (block, text if text.isascii() else text.lower()))


def _write_hex(db: sqlite3.Connection, terms: list[str]) -> None:
    """A block of long hex words of one length, two digits a byte (an odd
    length padded with a ``0``): half their text, read through as text
    again by ``bytes.hex`` (no decompressing: zlib only halved them too)."""
    if not terms:
        return
    digits = len(terms[0])
    packed = b"".join(bytes.fromhex(term if digits % 2 == 0 else term + "0") for term in terms)
    db.execute("INSERT INTO hex_blocks(digits, terms) VALUES(?, ?)", (digits, packed))


def _text(block: bytes) -> str:
    """The words of a block of ``term_blocks``, one a line."""
    return zlib.decompress(block, WBITS).decode()


def _known(db: sqlite3.Connection, term: str) -> bool:
    """Whether the index holds ``term`` (a first document of it found: no
    list of its documents read through)."""
    return (
        db.execute("SELECT 1 FROM words WHERE words MATCH ? LIMIT 1", ('"' + term.replace('"', '""') + '"',)).fetchone()
        is not None
    )


def add_texts(db: sqlite3.Connection, texts: list[str]) -> None:
    """The words of ``texts`` (a batch about to be indexed, in the caller's
    transaction) that the index does not hold yet into the vocabulary, as
    the index's tokenizer cuts them. (Asked of the index itself before the
    batch is written: no second list of the words, nor a unique index of
    them, to keep them once.)"""
    if not texts:
        return
    scratch = sqlite3.connect(":memory:")
    try:
        scratch.execute(
            f"CREATE VIRTUAL TABLE b USING fts5(body, tokenize=\"{TOKENIZER}\", content='', detail=none, columnsize=0)"
        )
        scratch.execute("CREATE VIRTUAL TABLE v USING fts5vocab(b, row)")
        scratch.executemany("INSERT INTO b(rowid, body) VALUES(?, ?)", enumerate(texts, 1))
        terms = [row[0] for row in scratch.execute("SELECT term FROM v")]
    finally:
        scratch.close()
    _blocks(db, [t for t in terms if not _mark(t) and not _known(db, t)])


def refresh(db: sqlite3.Connection) -> None:
    """The vocabulary made anew from the index's own list of its words, in
    order (one transaction), the index's lists merged first (each word's
    list in one piece: 9 % smaller on the bench's archive, and read in one
    piece), then the pages they and the old blocks took given back (the
    file shrinks: ``auto_vacuum``)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("INSERT INTO words(words) VALUES('optimize')")
        db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.words_vocab USING fts5vocab(main, words, row)")
        db.execute("DELETE FROM term_blocks")
        db.execute("DELETE FROM hex_blocks")
        db.execute("INSERT INTO term_grams(term_grams) VALUES('delete-all')")
        _blocks(db, (row[0] for row in db.execute("SELECT term FROM temp.words_vocab")))
        db.execute("INSERT INTO term_grams(term_grams) VALUES('optimize')")
        db.execute("DELETE FROM meta WHERE key='vocabulary'")
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.executescript("PRAGMA incremental_vacuum;")  # (a page a step: ``execute`` would step it once)


def words(db: sqlite3.Connection) -> list[str]:
    """Every word the vocabulary keeps, block by block (a test's and a
    diagnostic's: each word once, the index's own words all there)."""
    out: list[str] = []
    for (block,) in db.execute("SELECT terms FROM term_blocks ORDER BY id"):
        out += _text(block).split("\n")
    for digits, packed in db.execute("SELECT digits, terms FROM hex_blocks ORDER BY id"):
        text, width = packed.hex(), (digits + 1) // 2 * 2
        out += [text[at : at + digits] for at in range(0, len(text), width)]
    return out


def holding(
    db: sqlite3.Connection,
    piece: str,
    starts: bool,
    ends: bool,
    most_blocks: int | None = None,
    blocks: list[int] | None = None,
) -> list[str] | None:
    """The index's words that hold ``piece`` ignoring case (``starts``: that
    begin with it; ``ends``: that end with it; both: that are it); None:
    too many of them to be worth asking for (or in more than ``most_blocks``
    blocks), or a piece too short to look up. The blocks whose trigrams
    hold the piece's (``blocks``: as ``blocks_of`` found them already) are
    read through, and the long hex words too when the piece could be in one."""
    folded = piece.lower()
    if starts and ends and folded.isascii():
        return [folded]  # (the tokenizer folds ASCII as lower() does)
    if blocks is None:
        blocks = blocks_of(db, folded, starts, ends)
        if blocks is None:
            return None
    if most_blocks is not None and len(blocks) > most_blocks:
        return None
    found: list[str] = []
    for (block,) in db.execute(
        "SELECT terms FROM term_blocks WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id", (str(blocks),)
    ):
        if not _scan(_text(block), folded, starts, ends, found):
            return None
    if _HEX_PIECE.fullmatch(folded):
        for digits, packed in db.execute("SELECT digits, terms FROM hex_blocks"):
            if not _scan_packed(packed, digits, folded, starts, ends, found):
                return None
    return found


def blocks_of(db: sqlite3.Connection, piece: str, starts: bool, ends: bool) -> list[int] | None:
    """The vocabulary's blocks ``holding`` reads for ``piece``, by id (None:
    none, the piece is a whole word of ASCII, or too short to look up)."""
    folded = piece.lower()
    expression = None if starts and ends and folded.isascii() else _grams(db, folded)
    if expression is None:
        return None
    return [rowid for (rowid,) in db.execute("SELECT rowid FROM term_grams WHERE term_grams MATCH ?", (expression,))]


def _grams(db: sqlite3.Connection, folded: str) -> str | None:
    """The FTS5 expression of the blocks that may hold ``folded`` (None:
    too short to look up, or no vocabulary to look it up in)."""
    if len(folded) < GRAM or stale(db):
        return None
    grams = list(dict.fromkeys(folded[k : k + GRAM] for k in range(len(folded) - GRAM + 1)))
    return " AND ".join('"' + g.replace('"', '""') + '"' for g in grams)


def _scan_packed(packed: bytes, digits: int, piece: str, starts: bool, ends: bool, found: list[str]) -> bool:
    """``_scan_hex`` of a block as it is kept, two digits a byte, without
    making the block text: the piece's bytes looked for in the block's (the
    piece at an even digit; then, for one at an odd digit, its bytes after
    its first digit), each place found checked in its word's digits. The
    words come in the block's order, as ``_scan_hex`` gives them. A piece
    of fewer than five digits has too few bytes to look for: the block is
    read as text."""
    if len(piece) < 5:
        return _scan_hex(packed.hex(), digits, piece, starts, ends, found)
    width = (digits + 1) // 2  # (the bytes of a word)
    words: dict[int, str | None] = {}  # (None: it holds the piece, not where ``starts`` or ``ends`` asks)
    held = 0
    for shift in (0, 1):
        inner = piece[shift:]
        needle = bytes.fromhex(inner[: len(inner) // 2 * 2])
        at = packed.find(needle)
        while at >= 0:
            begin = 2 * at - shift  # (where the piece would start, in the block's digits)
            word, within = divmod(begin, 2 * width)
            if begin >= 0 and word not in words:
                text = packed[word * width : (word + 1) * width].hex()[:digits]
                if text.startswith(piece, within):  # (not into the word's padding, nor across into the next)
                    wanted = (not starts or text.startswith(piece)) and (not ends or text.endswith(piece))
                    words[word] = text if wanted else None
                    held += wanted
                    if len(found) + held > MANY:
                        return False
            at = packed.find(needle, at + 1)
    found += [text for _, text in sorted(words.items()) if text is not None]
    return True


def _scan_hex(text: str, digits: int, piece: str, starts: bool, ends: bool, found: list[str]) -> bool:
    """``_scan`` of a block of long hex words of ``digits`` each (``text``:
    their digits one after the other, each ``(digits + 1) // 2 * 2`` wide);
    a match across two of them is passed over."""
    width = (digits + 1) // 2 * 2
    at = text.find(piece)
    while at >= 0:
        begin = at - at % width
        word = text[begin : begin + digits]
        if piece not in word:
            at = text.find(piece, at + 1)  # (across two words, or into the padding)
            continue
        if (not starts or word.startswith(piece)) and (not ends or word.endswith(piece)):
            found.append(word)
            if len(found) > MANY:
                return False
        at = text.find(piece, begin + width)  # (the next word: each word once)
    return True


def _scan(text: str, folded: str, starts: bool, ends: bool, found: list[str]) -> bool:
    """The words of a block (``text``, one a line) holding ``folded`` onto
    ``found``; False once there are more than MANY."""
    if text.isascii():  # (lower case already: found in the block's text at once)
        # (a word's start or end is a line's: looked for with it, only the words that match are come upon)
        text = "\n" + text + "\n"
        lead = 1 if starts else 0
        needle = "\n" * lead + folded + ("\n" if ends else "")
        at = text.find(needle)
        while at >= 0:
            begin = text.rfind("\n", 0, at + lead) + 1
            end = text.find("\n", at + lead + len(folded))
            found.append(text[begin:end])
            if len(found) > MANY:
                return False
            at = text.find(needle, end)  # (the next word: each word once)
        return True
    for term in text.split("\n"):
        low = term.lower()
        if folded not in low or (starts and not low.startswith(folded)) or (ends and not low.endswith(folded)):
            continue
        found.append(term)
        if len(found) > MANY:
            return False
    return True
