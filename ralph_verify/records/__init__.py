"""The session's records, typed once: the schema of every file under ``.ralph/``, read and
written through :mod:`.files` by every producer and reader."""
