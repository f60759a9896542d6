"""Test configuration of the plugin's own test suite (``pytest`` at the repository root)."""

pytest_plugins = ["pytester"]

# Suite-shaped fixtures (official-format and 1.0 samples) live under tests/data; the plugin would collect them by
# their shape, but they are inputs of the tests, not suites to run.
collect_ignore = ["tests/data"]
