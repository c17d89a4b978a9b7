"""Options with a lower bound refuse values below it, naming the option."""

from __future__ import annotations

import pytest

from metalwire.config import load_config
from metalwire.errors import Invalid


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("METALWIRE_CONDUCTOR_DB_WORKERS", "0"),
        ("METALWIRE_API_MAX_LIMIT", "-1"),
        ("METALWIRE_DATABASE_POOL_SIZE", "0"),
    ],
)
def test_value_below_minimum_is_refused(variable: str, value: str) -> None:
    option = variable.split("_", 2)[2].lower()
    with pytest.raises(Invalid, match=f"{option}: {value} is below the minimum 1"):
        load_config(environ={variable: value})


def test_minimum_itself_is_accepted() -> None:
    assert load_config(environ={"METALWIRE_CONDUCTOR_DB_WORKERS": "1"}).conductor.db_workers == 1
