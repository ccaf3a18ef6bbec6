"""ralph-verify-diffcover: the ``diffcover>=N`` check (coverage of changed lines)."""

__version__ = "0.1.0"
