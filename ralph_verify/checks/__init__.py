"""Checks: the Check API, the registry of check types, fingerprints, one verification, the
result cache and tool-output helpers."""
