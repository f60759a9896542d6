"""Test configuration of the plugin's own test suite (``pytest`` at the repository root)."""

pytest_plugins = ["pytester"]
