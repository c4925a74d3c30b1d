"""Fixtures live in tests/support/ and load as plugins; test kinds register here."""

import tests.support.kinds  # noqa: F401 - registers the test run kinds

pytest_plugins = ["tests.support.services", "tests.support.app", "tests.support.openai_server"]
