"""Checks: what decides whether work is done.

Owns the Check API (:mod:`.api`), each check's options (:mod:`.options`), the ``--until``
grammar (:mod:`.until`), failure fingerprints (:mod:`.fingerprint`), one verification that
runs the checks of a gate (:mod:`.verification`), the result cache (:mod:`.cache`) and the
helpers that turn a tool's output into failures (:mod:`.tool_output`).

Imported by the loop, hook mode, the fleet, reports and plugins; imports only leaves,
``config``, ``proc``, ``project`` and ``junit``. The grammar modules (``until``,
``fingerprint``) need nothing but the standard library and :mod:`ralph_verify.errors`.
"""
