"""The picker's catalog: every session file with what its head and tail say,
and the cache of that."""
