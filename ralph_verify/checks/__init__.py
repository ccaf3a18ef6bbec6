"""Checks: the Check API, the registry of check types, fingerprints, one verification, the
result cache and the readers of tool output."""
