"""JUnit XML, whoever wrote it: a bounded streaming reader and what one ``<testcase>`` says."""
