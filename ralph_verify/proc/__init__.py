"""Process plumbing: run a tool in its own process group with a timeout, what we know of
other processes, the agent's watchdog and reaper, and clean stops on signals."""
