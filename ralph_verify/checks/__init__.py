"""Checks: what decides whether work is done.

Owns the Check API (:mod:`.api`), the registry of check types (:mod:`.registry`), failure
fingerprints (:mod:`.fingerprint`), one verification that runs the checks of a gate
(:mod:`.verification`), the result cache (:mod:`.cache`) and the helpers that turn a tool's
output into failures (:mod:`.tool_output`). The ``--until`` grammar and the options a check
declares live a floor below, in :mod:`ralph_verify.config`.

Imported by the loop, hook mode, the fleet, reports and plugins; imports only leaves,
``config``, ``proc``, ``project`` and ``junit``. :mod:`.fingerprint` needs nothing but the
standard library.
"""
