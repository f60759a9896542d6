"""The run core: from a run's configuration to each item's result (wiring, runner, episode, engine,
shards, preflight). The pytest adapter (:mod:`pytest_vitabench.pytest_plugin`) drives it."""
