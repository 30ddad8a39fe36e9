"""opencode: its database read as one stream per session, and the client that resumes it."""

from .client import CLIENT as CLIENT
from .reader import FORMAT as FORMAT
