"""The error a user can fix by changing the command: the scripts report it in one line and exit 2."""
from __future__ import annotations


class UsageError(Exception):
    """Bad arguments, or a configuration that cannot run (the message says what to change)."""
