"""api/microversion.py on its own: parsing, header precedence, folding, the version gate."""

from __future__ import annotations

import pytest

from metalwire.api import microversion as mv
from metalwire.errors import NotFound, RouteNotFound, VersionNotAcceptable
from tests.conftest import ABOVE_LATEST, LATEST


def version(ironic: str | None = None, generic: str | None = None) -> str:
    return str(mv.from_headers(ironic, generic))


def refusal(ironic: str | None = None, generic: str | None = None) -> VersionNotAcceptable:
    with pytest.raises(VersionNotAcceptable) as caught:
        mv.from_headers(ironic, generic)
    assert caught.value.code == 406
    return caught.value


# -- parsing ---------------------------------------------------------------------------------


def test_no_header_is_the_minimum() -> None:
    assert version() == "1.1"


@pytest.mark.parametrize("value", ["", "  ", "1.30,", " , "])
def test_an_empty_value_is_the_minimum(value: str) -> None:
    assert version(ironic=value) == "1.1"


@pytest.mark.parametrize("value", ["latest", "LATEST", " Latest "])
def test_latest_is_the_maximum_in_any_case(value: str) -> None:
    assert version(ironic=value) == LATEST


@pytest.mark.parametrize(
    ("value", "expected"), [("1.1", "1.1"), (" 1.50 ", "1.50"), ("1.05", "1.5")]
)
def test_a_served_version_is_taken(value: str, expected: str) -> None:
    assert version(ironic=value) == expected


@pytest.mark.parametrize("value", ["1.0", ABOVE_LATEST, "1.999999999"])
def test_a_minor_version_out_of_range_names_the_range(value: str) -> None:
    error = refusal(ironic=value)
    assert error.names_range
    assert f"[1.1, {LATEST}]" in error.message


@pytest.mark.parametrize("value", ["2.1", "0.5", "3.0"])
def test_another_major_version_names_the_range(value: str) -> None:
    error = refusal(ironic=value)
    assert error.names_range
    assert f"Version {value} was requested" in error.message
    assert "major version 1" in error.message


@pytest.mark.parametrize("value", ["abc", "1", "1.", ".5", "1.x", "1.2.3", "v1.2", "1,2", "1.-1"])
def test_a_malformed_version_does_not_name_the_range(value: str) -> None:
    error = refusal(ironic=value)
    assert not error.names_range
    assert error.message.startswith("Invalid value for X-OpenStack-Ironic-API-Version header")


def test_a_malformed_generic_version_names_the_generic_header() -> None:
    error = refusal(generic="baremetal 1.x")
    assert error.message.startswith("Invalid value for OpenStack-API-Version header: '1.x'")


# -- precedence and folding -------------------------------------------------------------------


def test_the_generic_header_wins_over_the_ironic_one() -> None:
    assert version(ironic="1.30", generic="baremetal 1.50") == "1.50"


def test_a_malformed_generic_header_is_refused_even_with_a_good_ironic_one() -> None:
    assert not refusal(ironic="1.30", generic="baremetal nope").names_range


@pytest.mark.parametrize("generic", ["compute 2.1", "baremetal", "baremetal ", "", ","])
def test_a_generic_header_without_a_baremetal_version_leaves_the_ironic_one(generic: str) -> None:
    assert version(ironic="1.30", generic=generic) == "1.30"
    assert version(generic=generic) == "1.1"


@pytest.mark.parametrize(
    ("generic", "expected"),
    [
        ("compute 2.1, baremetal 1.50", "1.50"),
        ("baremetal 1.50,compute 2.1", "1.50"),
        ("BareMetal 1.40", "1.40"),
        ("baremetal\t1.40", "1.40"),
        ("baremetal 1.40, baremetal 1.45", "1.45"),  # the last entry counts, as in Ironic
        ("baremetal latest, compute 2.90", LATEST),
    ],
)
def test_folded_generic_values_are_searched_for_baremetal(generic: str, expected: str) -> None:
    assert version(generic=generic) == expected


def test_a_folded_ironic_header_counts_its_last_value() -> None:
    assert version(ironic="1.20,1.40") == "1.40"


# -- the version gate and the response headers -----------------------------------------------


def test_require_passes_from_the_given_minor_version() -> None:
    mv.require(mv.Version(28), mv.VIFS)
    mv.require(mv.MAX_VERSION, mv.VIFS)


def test_require_below_the_minor_version_is_a_route_not_found() -> None:
    with pytest.raises(RouteNotFound) as caught:
        mv.require(mv.Version(27), mv.VIFS)
    assert isinstance(caught.value, NotFound)
    assert caught.value.routing
    assert caught.value.message == (
        "The resource could not be found at API version 1.27; it exists from 1.28."
    )


def test_require_by_the_handler_below_the_minor_version_is_an_objects_not_found() -> None:
    mv.require(mv.Version(23), mv.PORTGROUPS, by_handler=True)
    with pytest.raises(NotFound) as caught:
        mv.require(mv.Version(22), mv.PORTGROUPS, by_handler=True)
    assert not caught.value.routing
    assert caught.value.message == (
        "The resource could not be found at API version 1.22; it exists from 1.23."
    )


def test_response_headers_without_a_version_name_only_the_range() -> None:
    assert mv.response_headers(None) == {
        mv.MIN_HEADER: "1.1",
        mv.MAX_HEADER: LATEST,
    }
    with_version = mv.response_headers(mv.Version(50))
    assert with_version[mv.IRONIC_HEADER] == "1.50"
    assert with_version[mv.GENERIC_HEADER] == "baremetal 1.50"
