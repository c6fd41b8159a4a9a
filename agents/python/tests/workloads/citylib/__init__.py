"""A tiny package the agent tests profile (package/class/method mapping, -m mode)."""
