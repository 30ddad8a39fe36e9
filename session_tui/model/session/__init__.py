"""An open session file and what is worked out from it: the ``Session``
(opening, refreshing, the tree), the context the model is sent, problems,
live state, branches, rows, search in the file, usage. Above the formats.

Nothing is imported here: the picker's first frame needs only some of these."""
