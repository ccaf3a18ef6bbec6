"""The marker of every ralph-verify hook specification (``@hookspec``)."""

import pluggy

hookspec = pluggy.HookspecMarker("ralph_verify")
