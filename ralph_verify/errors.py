"""The two exceptions a user may see: ``ERROR: ...`` and exit 2, never a traceback (anything
else that escapes is a bug, shown with its traceback: exit 4)."""

from __future__ import annotations


class UsageError(Exception):
    """Bad command line, bad ``--until`` spec, bad configuration or a broken plugin.

    The message is shown as is after ``ERROR:``; it must name the problem and
    the fix.
    """


class ConfigError(UsageError):
    """A configuration file has a bad key or value; the message names the file and key."""
