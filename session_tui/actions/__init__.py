"""The work the command line and the terminal UI share: exports, resuming a
session with its client, the dry run and its fake model API. Below the UI
(which calls it) and above the store and the model; it prints nothing but
what a ``run_*`` function of a verb prints, and never imports Textual."""
