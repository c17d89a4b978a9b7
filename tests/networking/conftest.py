"""The conductor's fixtures: a task is opened by a conductor on the test's database."""

from tests.conductor.conftest import conductor, new_node

__all__ = ["conductor", "new_node"]
