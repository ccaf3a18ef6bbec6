"""Iteration 1 of each task: the scripted agent's first attempt (RALPH_TASK_ID says which)."""
import json
import os
import pathlib

task = os.environ["RALPH_TASK_ID"]
PARSE_SIMPLE_WRONG = '''def parse(text: str) -> int:
    """Seconds in ``text``."""
    return int(text[:-1]) * (60 if text.endswith("m") else 1)
'''
PARSE_SIMPLE = '''def parse(text: str) -> int:
    """Seconds in ``text``."""
    return int(text[:-1]) * {"h": 3600, "m": 60, "s": 1}[text[-1]]
'''
FORMAT = '''def format_seconds(seconds: int) -> str:
    """``5400`` -> ``1h30m``."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [(hours, "h"), (minutes, "m"), (secs, "s")]
    return "".join(f"{n}{unit}" for n, unit in parts if n) or "0s"
'''
STUB_FORMAT = '''def format_seconds(seconds: int) -> str:
    """``5400`` -> ``1h30m``."""
    raise NotImplementedError
'''
HEAD = '"""Durations as people write them: 90m, 45s, 2h, 1h30m."""\n\n\n'
source = pathlib.Path("durations.py")
if task == "US-001":  # wrong: hours come out as seconds
    source.write_text(HEAD + PARSE_SIMPLE_WRONG + "\n\n" + STUB_FORMAT)
elif task == "US-002":
    source.write_text(HEAD + PARSE_SIMPLE + "\n\n" + FORMAT)
else:  # US-003: ticks its own story and promises, without the work
    prd = json.loads(pathlib.Path("prd.json").read_text())
    for story in prd["userStories"]:
        story["passes"] = story["id"] == task or story["passes"]
    pathlib.Path("prd.json").write_text(json.dumps(prd, indent=2) + "\n")
    print("Done: US-003 is complete. <promise>COMPLETE</promise>")
