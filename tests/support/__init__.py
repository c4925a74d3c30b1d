"""Test fixtures and helpers, loaded as a pytest plugin from tests/conftest.py."""
