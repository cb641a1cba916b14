"""The pytest plugin's example tests (run by tests/test_pytest_plugin.py)."""
