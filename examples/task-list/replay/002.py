"""Iteration 2: the scripted agent reads the feedback and does the work."""
import os
import pathlib
import re

task = os.environ["RALPH_TASK_ID"]
source = pathlib.Path("durations.py")
text = source.read_text()
if task == "US-001":  # the feedback said parse('2h') == 2
    text = text.replace('return int(text[:-1]) * (60 if text.endswith("m") else 1)',
                        'return int(text[:-1]) * {"h": 3600, "m": 60, "s": 1}[text[-1]]')
elif task == "US-003":
    simple = '    return int(text[:-1]) * {"h": 3600, "m": 60, "s": 1}[text[-1]]\n'
    text = re.sub(re.escape(simple),
                  '    units = {"h": 3600, "m": 60, "s": 1}\n'
                  '    parts = re.findall(r"(\\\\d+)([hms])", text)\n'
                  '    return sum(int(n) * units[unit] for n, unit in parts)\n', text)
    text = text.replace('"""\n\n\ndef parse', '"""\n\nimport re\n\n\ndef parse', 1)
source.write_text(text)
