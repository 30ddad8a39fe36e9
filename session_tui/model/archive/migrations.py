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

Version 3 (docs/guide/archive.md, "Usage by machine" and "Who sees what"):

- ``files.project`` and ``files.os_user``: the session's project (its
  recorded working directory, as local ``usage`` says it) and the OS user
  owning the file, as the pushing machine found them.
- ``file_usage``: one row per file, its usage by (day, model) as the
  pushing machine's ``usage`` worked it out (``groups``, the ledger's form;
  or ``error``), for the file's size and time then, and the price table.
  ``usage DB_URL`` sums these small rows; it never reads the lines.
- ``archive_grants``: who may push as which machine, who may read which
  machines and projects (``archive grant``); a role is its oid (a dropped
  role matches no one), ``project_like`` the ``LIKE`` form of the glob.
- Row-level security on every table but ``schema_version``: a role sees and
  writes only the rows its grants allow (the tables' owner is not subject
  to it: it owns the archive). Policies are written inline, never through
  a function (whose body would be resolved with the caller's
  ``search_path``: a temp table could stand in for ``archive_grants``).

Version 4 (docs/guide/archive.md, "Search"): search's own table.

- ``chunks``: one row per piece of a line's searched text (what a local
  search checks: its record's strings, ``reading/searched.py``), a text of
  up to 2,048 characters overlapping the next by 128, in lower case (as
  Python's ``str.lower``); ``whole`` when the
  piece is the line's whole text. The trigram index is over the chunks
  (``chunks_trigrams``), no longer over the lines (their index and
  ``lines_escaped`` are dropped): a candidate is a few KB, never a 300 KB
  tool result. Row-level security as on ``lines``; the roles granted
  before get on ``chunks`` what ``archive grant`` gives on ``lines``. Long values of
  ``lines`` and ``chunks`` are compressed with lz4 where the server has it
  (pglz, the default, took a push's time: values already there stay so).
- ``files.chunked``: whether the file's lines have their chunks (pushed by
  a session-tui writing version 4). A file pushed before has none: search
  reads its every line until its machine's next push sends it again.
- ``files.newest_entry``: the newest time (seconds since the epoch) of an
  entry of the file that a search may hit, as the check reads it (None:
  none has a time): search reads the files a few at a time in that order,
  and none whose newest entry is older than its page's oldest hit.
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


#: the roles a grant names, and the machine a pusher may write (the inline form every write policy repeats)
_PUSHES = (
    "SELECT m.id FROM machines m JOIN archive_grants g ON g.machine = m.name "
    "WHERE g.kind = 'pusher' AND pg_has_role(g.role, 'USAGE')"
)
_PUSHED_FILES = f"SELECT f.id FROM files f WHERE f.machine_id IN ({_PUSHES})"
_MAY_PUSH_MACHINE = (
    "EXISTS (SELECT 1 FROM archive_grants g WHERE g.kind = 'pusher' AND g.machine = machines.name "
    "AND pg_has_role(g.role, 'USAGE'))"
)

V3 = f"""
ALTER TABLE files ADD COLUMN project text, ADD COLUMN os_user text;

CREATE TABLE file_usage (
    file_id bigint PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
    size bigint NOT NULL,
    mtime_ns bigint NOT NULL,
    priced_by text NOT NULL,
    groups jsonb,
    error text,
    computed_at timestamptz NOT NULL DEFAULT now(),
    CHECK ((groups IS NULL) <> (error IS NULL))
);

CREATE TABLE archive_grants (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    role oid NOT NULL,
    role_name text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('pusher', 'reader')),
    machine text CHECK (machine <> ''),
    project text CHECK (project <> ''),
    project_like text,
    granted_at timestamptz NOT NULL DEFAULT now(),
    granted_by text NOT NULL DEFAULT current_user,
    CHECK (kind = 'reader' OR (machine IS NOT NULL AND project IS NULL)),
    CHECK ((project IS NULL) = (project_like IS NULL))
);
CREATE UNIQUE INDEX archive_grants_once ON archive_grants (role, kind, coalesce(machine, ''), coalesce(project, ''));

ALTER TABLE archive_grants ENABLE ROW LEVEL SECURITY;
ALTER TABLE machines ENABLE ROW LEVEL SECURITY;
ALTER TABLE files ENABLE ROW LEVEL SECURITY;
ALTER TABLE lines ENABLE ROW LEVEL SECURITY;
ALTER TABLE file_usage ENABLE ROW LEVEL SECURITY;

CREATE POLICY own ON archive_grants FOR SELECT USING (pg_has_role(role, 'USAGE'));

CREATE POLICY granted ON machines FOR SELECT USING (EXISTS (
    SELECT 1 FROM archive_grants g
    WHERE pg_has_role(g.role, 'USAGE') AND (g.machine IS NULL OR g.machine = machines.name)
));
CREATE POLICY pushed ON machines FOR INSERT WITH CHECK ({_MAY_PUSH_MACHINE});
CREATE POLICY pushed_again ON machines FOR UPDATE USING ({_MAY_PUSH_MACHINE}) WITH CHECK ({_MAY_PUSH_MACHINE});

CREATE POLICY granted ON files FOR SELECT USING (EXISTS (
    SELECT 1 FROM archive_grants g JOIN machines m ON m.id = files.machine_id
    WHERE pg_has_role(g.role, 'USAGE') AND (g.machine IS NULL OR g.machine = m.name)
    AND (g.project_like IS NULL OR files.project LIKE g.project_like)
));
CREATE POLICY pushed ON files FOR INSERT WITH CHECK (machine_id IN ({_PUSHES}));
CREATE POLICY pushed_again ON files FOR UPDATE USING (machine_id IN ({_PUSHES})) WITH CHECK (machine_id IN ({_PUSHES}));
CREATE POLICY pushed_out ON files FOR DELETE USING (machine_id IN ({_PUSHES}));
"""
for _table in ("lines", "file_usage"):
    V3 += f"""
CREATE POLICY granted ON {_table} FOR SELECT USING (file_id IN (SELECT id FROM files));
CREATE POLICY pushed ON {_table} FOR INSERT WITH CHECK (file_id IN ({_PUSHED_FILES}));
CREATE POLICY pushed_again ON {_table} FOR UPDATE USING (file_id IN ({_PUSHED_FILES}))
    WITH CHECK (file_id IN ({_PUSHED_FILES}));
CREATE POLICY pushed_out ON {_table} FOR DELETE USING (file_id IN ({_PUSHED_FILES}));
"""

#: the trigram index of schema 4 (``archive init`` makes it once pg_trgm is there: ``schema.migrate``)
CHUNK_TRIGRAMS = "CREATE INDEX IF NOT EXISTS chunks_trigrams ON chunks USING gin (text gin_trgm_ops)"

V4 = f"""
DROP INDEX IF EXISTS lines_trigrams;
DROP INDEX IF EXISTS lines_escaped;
ALTER TABLE files ADD COLUMN chunked boolean NOT NULL DEFAULT false, ADD COLUMN newest_entry double precision;

CREATE TABLE chunks (
    file_id bigint NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    start bigint NOT NULL,
    piece integer NOT NULL CHECK (piece >= 0),
    whole boolean NOT NULL,
    text text NOT NULL,
    PRIMARY KEY (file_id, start, piece)
) WITH (toast_tuple_target = 8160);
DO $$ BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
        EXECUTE '{CHUNK_TRIGRAMS}';
    END IF;
END $$;

DO $$ BEGIN
    EXECUTE 'ALTER TABLE lines ALTER COLUMN text SET COMPRESSION lz4, ALTER COLUMN record SET COMPRESSION lz4';
    EXECUTE 'ALTER TABLE chunks ALTER COLUMN text SET COMPRESSION lz4';
EXCEPTION WHEN feature_not_supported OR syntax_error THEN NULL;  -- (a server without lz4, or before 14: pglz)
END $$;

ALTER TABLE chunks ENABLE ROW LEVEL SECURITY;
CREATE POLICY granted ON chunks FOR SELECT USING (file_id IN (SELECT id FROM files));
CREATE POLICY pushed ON chunks FOR INSERT WITH CHECK (file_id IN ({_PUSHED_FILES}));
CREATE POLICY pushed_again ON chunks FOR UPDATE USING (file_id IN ({_PUSHED_FILES}))
    WITH CHECK (file_id IN ({_PUSHED_FILES}));
CREATE POLICY pushed_out ON chunks FOR DELETE USING (file_id IN ({_PUSHED_FILES}));

DO $$ DECLARE g record; BEGIN  -- (the roles granted before: what ``archive grant`` now gives on chunks)
    FOR g IN SELECT DISTINCT r.rolname, a.kind FROM archive_grants a JOIN pg_roles r ON r.oid = a.role LOOP
        EXECUTE format('GRANT SELECT ON chunks TO %I', g.rolname);
        IF g.kind = 'pusher' THEN
            EXECUTE format('GRANT INSERT, UPDATE, DELETE ON chunks TO %I', g.rolname);
        END IF;
    END LOOP;
END $$;
"""

#: version n is MIGRATIONS[n - 1]
MIGRATIONS: tuple[str, ...] = (V1, V2, V3, V4)
LATEST = len(MIGRATIONS)
