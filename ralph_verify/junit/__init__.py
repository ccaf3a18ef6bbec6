"""JUnit XML, whoever wrote it: a bounded streaming reader and what one ``<testcase>`` says.

A ground-floor folder: imports only the standard library and the leaves (``redact``,
``terminal_text``); anything above may import it.
"""
