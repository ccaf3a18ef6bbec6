"""The session's records, typed once: the schema of every file under ``.ralph/``.

``session`` holds the types of ``state.json`` and ``history.jsonl``, ``plugin_state`` the
typed view of the built-in plugins' saved state, ``integrity`` the integrity picture
(``integrity-baseline.json`` and its frozen copy); ``files`` reads and writes them (checked
by ``codec`` against the types themselves). Every producer (the loop, the Stop hook, task
lists) and every reader (``status``, reports, ``fleet``) goes through here; it sits low
enough that all of them may import it.
"""
