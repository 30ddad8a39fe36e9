"""GitHub Copilot CLI: its reader and the client that resumes its files."""

from .client import CLIENT as CLIENT
from .reader import FORMAT as FORMAT
