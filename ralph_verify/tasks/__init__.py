"""Task lists: the task file (``tasks.toml``), its one validation, the rulebook of its
drivers and their state in ``.ralph/tasks/``; the loop imports it, never the other way round.
"""
