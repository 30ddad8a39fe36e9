"""The team archive on PostgreSQL: its schema and its migrations
(``schema.py``, ``migrations.py``) and the push of a machine's session files
into it (``push.py``). Reading one archived session back is
``reading/archived.py``: the readers below this room open it as any file."""
