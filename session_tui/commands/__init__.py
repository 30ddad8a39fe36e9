"""The command-line verbs, one module each: ``cli.py`` only parses the
command line and hands it to one of them. ``check``, ``diff``, ``export``,
``edit`` (set-leaf, fork, fix) and ``clean`` run below the terminal UI (the
UI uses ``export`` too); ``demo``, ``serve`` and ``open`` start the UI."""
