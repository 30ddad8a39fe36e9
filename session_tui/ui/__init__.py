"""The Textual UI over the session model. Only this package imports Textual."""

import os

# Repaint up to 120 times a second (Textual's default is 60): an appended
# entry then waits at most ~8 ms for the next frame. Nothing repaints while
# the file is still, so idle CPU stays at zero. The user's setting wins.
os.environ.setdefault("TEXTUAL_FPS", "120")
