"""The archive's schema, as ordered migrations: ``MIGRATIONS[n - 1]`` takes
a database from version ``n - 1`` to ``n`` (``schema.py`` applies them in one
transaction, and records each in ``schema_version``). A migration, once
released, is never changed: a change of the schema is a new one at the end.

Version 1 (docs/guide/archive.md, "The tables"):

- ``machines``: one row per machine pushing (its name, unique).
- ``files``: one row per session file of a machine: its path there (unique
  per machine), format, size, identity (device, inode) and time, the
  fingerprint of its first bytes (a replaced file starts otherwise) and of
  its last complete line, and how far it was pushed: ``complete_to`` (the
  byte after the last complete line: the next push reads from there),
  ``size`` (what the push covered, an unterminated last line included),
  ``lines``, and the size of the archived copy (``stream_size``: redacted
  lines may be longer or shorter than the file's). ``generation`` counts
  the times the file was sent again from its start (a reader's identity).
- ``lines``: one row per line: its number, its offset in the file
  (``byte_offset``) and in the archived copy (``start``: the key, so a byte
  range is one index range), whether it ended with a newline, its text —
  ``text`` when it is UTF-8 without NUL, else its bytes in ``raw`` (exactly
  one of the two) — and ``record``, the line as ``jsonb`` where it parses
  as JSON that PostgreSQL accepts (none for a bad or torn line). Only one
  index: the primary key (file, start), which reads a file back in order
  and serves a byte range; the search indexes come with search.

Version 2 (search, docs/guide/archive.md "Search"): a pg_trgm GIN index
over what each line says (``SEARCHED``: its record as jsonb prints it, else
its text), made where the extension is there; a small index of the lines
with no record whose text escapes a character (``\\u``), which every search
reads (what it asks may be written escaped there).
"""

from __future__ import annotations

V1 = """
CREATE TABLE machines (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name text NOT NULL UNIQUE CHECK (name <> '' AND length(name) <= 255 AND strpos(name, '/') = 0),
    first_push timestamptz NOT NULL DEFAULT now(),
    last_push timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE files (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    machine_id bigint NOT NULL REFERENCES machines (id),
    path text NOT NULL CHECK (path LIKE '/%'),
    format text NOT NULL,
    size bigint NOT NULL CHECK (size >= 0),
    complete_to bigint NOT NULL CHECK (complete_to BETWEEN 0 AND size),
    lines bigint NOT NULL CHECK (lines >= 0),
    complete_lines bigint NOT NULL CHECK (complete_lines BETWEEN 0 AND lines),
    stream_size bigint NOT NULL CHECK (stream_size >= 0),
    stream_complete bigint NOT NULL CHECK (stream_complete BETWEEN 0 AND stream_size),
    device bigint,
    inode bigint,
    mtime_ns bigint NOT NULL,
    head_length integer NOT NULL,
    head_sha256 bytea NOT NULL,
    tail_start bigint NOT NULL,
    tail_sha256 bytea NOT NULL,
    redacted boolean NOT NULL,
    generation integer NOT NULL DEFAULT 1,
    pushed_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (machine_id, path)
);

CREATE TABLE lines (
    file_id bigint NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    start bigint NOT NULL,
    line_no bigint NOT NULL,
    byte_offset bigint NOT NULL,
    terminated boolean NOT NULL,
    text text,
    raw bytea,
    record jsonb,
    CHECK ((text IS NULL) <> (raw IS NULL)),
    PRIMARY KEY (file_id, start)
);
"""

#: what search asks the trigram index (``search_index/archive_search.py`` writes the same expression): the
#: line's record as jsonb prints it (its strings unescaped: no ``\u00e9``, no ``\/``), else its text
SEARCHED = "coalesce(record::text, text)"
TRIGRAMS = f"CREATE INDEX IF NOT EXISTS lines_trigrams ON lines USING gin (({SEARCHED}) gin_trgm_ops)"

# Version 2 (search): the trigram index over what each line says, where pg_trgm is there (else
# ``archive init`` creates it once a DBA has created the extension: ``schema.search_indexes``); and the
# lines whose text alone says it (no record) but writes some character as ``\u…``, which a search
# reads whatever it asks (a piece of text may be escaped there).
V2 = f"""
DO $$ BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
        EXECUTE '{TRIGRAMS}';
    END IF;
END $$;
CREATE INDEX lines_escaped ON lines (file_id) WHERE record IS NULL AND text IS NOT NULL AND strpos(text, '\\u') > 0;
"""

#: version n is MIGRATIONS[n - 1]
MIGRATIONS: tuple[str, ...] = (V1, V2)
LATEST = len(MIGRATIONS)
