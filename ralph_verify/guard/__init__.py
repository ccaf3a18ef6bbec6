"""The safety guard (:mod:`.decide` judges an agent's tool call) and the OS sandbox the agent
runs under (:mod:`.sandbox`). Floor 3: imports only the leaves; docs/safety.md has the design."""
