"""The integrity check's parts: what a project's tree says about its own strictness.

``picture`` takes one picture of a tree, ``rules`` holds the static rules (one table) and
``judge`` compares two pictures once, rule after rule; ``ralph_verify.plugins.integrity``
turns the judgement into the ``integrity`` check.

Floor 5: imports checks, recorder, project and the leaves; imported by the loop's
drivers, hook mode and the integrity plugin.
"""
