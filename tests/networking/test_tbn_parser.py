"""The filter language: a table of valid and invalid expressions, precedence, properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metalwire.errors import TbnRulesInvalid
from metalwire.networking.tbn.expression import (
    FUNCTIONS,
    SET_COMPARATORS,
    SET_VARIABLES,
    VARIABLES,
    Comparator,
    Comparison,
    Compound,
    Expression,
    Junction,
    Predicate,
)
from metalwire.networking.tbn.parser import parse_filter
from metalwire.networking.tbn.views import NetworkView, PortView

A = Comparison("port.vendor", Comparator.EQUAL, "a")
B = Comparison("port.category", Comparator.EQUAL, "b")
C = Comparison("network.name", Comparator.EQUAL, "c")


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("port.vendor == 'a'", A),
        ("  port.vendor=='a'  ", A),
        ("port.is_port", Predicate("port.is_port")),
        ("port.is_portgroup", Predicate("port.is_portgroup")),
        ("network.tags != 'x-1.b_c'", Comparison("network.tags", Comparator.NOT_EQUAL, "x-1.b_c")),
        ("network.tags =~ 'ten'", Comparison("network.tags", Comparator.STARTS_WITH, "ten")),
        ("port.address >= '52'", Comparison("port.address", Comparator.AT_LEAST, "52")),
        ("port.address > '52'", Comparison("port.address", Comparator.GREATER, "52")),
        ("port.address <= '52'", Comparison("port.address", Comparator.AT_MOST, "52")),
        ("port.address < '52'", Comparison("port.address", Comparator.LESS, "52")),
        ("port.vendor == ''", Comparison("port.vendor", Comparator.EQUAL, "")),
        ("(port.vendor == 'a')", A),
        ("((port.vendor == 'a'))", A),
        # && binds tighter than ||, on either side
        ("port.vendor == 'a' || port.category == 'b' && network.name == 'c'",
         Compound(A, Junction.OR, Compound(B, Junction.AND, C))),
        ("port.vendor == 'a' && port.category == 'b' || network.name == 'c'",
         Compound(Compound(A, Junction.AND, B), Junction.OR, C)),
        # parentheses override it
        ("port.vendor == 'a' && (port.category == 'b' || network.name == 'c')",
         Compound(A, Junction.AND, Compound(B, Junction.OR, C))),
        # chains read left to right
        ("port.vendor == 'a' || port.category == 'b' || network.name == 'c'",
         Compound(Compound(A, Junction.OR, B), Junction.OR, C)),
        ("port.is_port&&port.vendor=='a'", Compound(Predicate("port.is_port"), Junction.AND, A)),
    ],
)  # fmt: skip
def test_valid_expressions_parse_to_their_tree(text: str, tree: Expression) -> None:
    assert parse_filter(text) == tree


@pytest.mark.parametrize(
    ("text", "column", "reason"),
    [
        ("", 1, "expected a filter, found the end"),
        ("port.vendor", 12, "expected a comparator"),
        ("port.vendor == ", 16, "expected a quoted literal after ==, found the end"),
        ("port.vendor == 'a", 18, "the closing quote is missing"),
        ("port.vendor == 'a b'", 18, "' ' cannot appear in a literal"),
        ("port.vendor == 'a/b'", 18, "'/' cannot appear in a literal"),
        ('port.vendor == "a"', 16, "literals take single quotes"),
        ("port.colour == 'a'", 1, "unknown variable 'port.colour'"),
        ("port.vendor = 'a'", 13, "unexpected character '='"),
        ("port.vendor ~= 'a'", 13, "unexpected character '~'"),
        (
            "port.vendor == 'a' &&",
            22,
            "expected a variable, port.is_port, port.is_portgroup or '('",
        ),
        ("port.vendor == 'a' & port.is_port", 20, "unexpected character '&'"),
        ("port.vendor == 'a' port.is_port", 20, "expected '&&', '||' or the end"),
        ("(port.vendor == 'a'", 20, "expected ')' closing the '(' at column 1, found the end"),
        ("port.vendor == 'a')", 19, "expected '&&', '||' or the end, found ')'"),
        ("()", 2, "expected a variable"),
        ("port.is_port == 'a'", 14, "expected '&&', '||' or the end, found '=='"),
        ("network.tags > 'a'", 14, "> cannot compare network.tags, a set of tags"),
        ("network.tags <= 'a'", 14, "<= cannot compare network.tags"),
        ("'a' == port.vendor", 1, "expected a variable, port.is_port, port.is_portgroup or '('"),
        ("port.vendor == port.category", 16, "expected a quoted literal after =="),
    ],
)
def test_invalid_expressions_name_the_column_and_the_reason(
    text: str, column: int, reason: str
) -> None:
    with pytest.raises(TbnRulesInvalid) as caught:
        parse_filter(text)
    assert caught.value.code == 400
    assert f"column {column}: " in caught.value.message
    assert reason in caught.value.message
    assert repr(text) in caught.value.message


# -- properties ------------------------------------------------------------------------------

LITERALS = st.text(alphabet="abcAB01_-.", max_size=6)
COMPARISONS = st.one_of(
    st.builds(
        Comparison,
        st.sampled_from([v for v in VARIABLES if v not in SET_VARIABLES]),
        st.sampled_from(list(Comparator)),
        LITERALS,
    ),
    st.builds(
        Comparison,
        st.sampled_from(sorted(SET_VARIABLES)),
        st.sampled_from(sorted(SET_COMPARATORS, key=lambda c: c.value)),
        LITERALS,
    ),
    st.builds(Predicate, st.sampled_from(FUNCTIONS)),
)
EXPRESSIONS = st.recursive(
    COMPARISONS,
    lambda inner: st.builds(Compound, inner, st.sampled_from(list(Junction)), inner),
    max_leaves=8,
)
FIELDS = st.one_of(st.none(), st.just(""), LITERALS)
PORTS = st.builds(
    PortView,
    id=st.integers(1, 9),
    uuid=st.just("p"),
    is_portgroup=st.booleans(),
    address=FIELDS,
    category=FIELDS,
    physical_network=FIELDS,
    vendor=FIELDS,
)
NETWORKS = st.builds(
    NetworkView,
    id=st.just("net"),
    name=FIELDS,
    tags=st.frozensets(LITERALS, max_size=3),
)


@settings(max_examples=400, deadline=None)
@given(EXPRESSIONS)
def test_printing_and_reparsing_gives_the_same_tree(tree: Expression) -> None:
    assert parse_filter(tree.render()) == tree


@settings(max_examples=300, deadline=None)
@given(EXPRESSIONS, EXPRESSIONS, PORTS, NETWORKS)
def test_and_and_or_evaluate_as_the_boolean_operators(
    left: Expression, right: Expression, port: PortView, network: NetworkView
) -> None:
    one = left.evaluate(port, network).holds
    other = right.evaluate(port, network).holds
    for junction, expected in ((Junction.AND, one and other), (Junction.OR, one or other)):
        text = f"({left.render()}) {junction.value} ({right.render()})"
        assert parse_filter(text).evaluate(port, network).holds is expected


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([v for v in VARIABLES if v.startswith("port.")]),
    st.sampled_from(list(Comparator)),
    LITERALS,
    st.sampled_from([None, ""]),
)
def test_an_empty_field_compares_false_whatever_the_comparator(
    variable: str, comparator: Comparator, literal: str, empty: str | None
) -> None:
    port = PortView(1, "p", False, **{variable.split(".")[1]: empty})  # type: ignore[arg-type]
    verdict = Comparison(variable, comparator, literal).evaluate(port, NetworkView("net"))
    assert not verdict.holds
    assert f"{variable} is empty" in verdict.reason


@pytest.mark.parametrize(
    ("text", "tags", "holds"),
    [
        ("network.tags == 'bonded'", {"bonded", "x"}, True),
        ("network.tags == 'bonded'", {"x"}, False),
        ("network.tags != 'bonded'", {"x"}, True),
        ("network.tags != 'bonded'", set(), True),
        ("network.tags != 'bonded'", {"bonded"}, False),
        ("network.tags =~ 'bon'", {"x", "bonded"}, True),
        ("network.tags =~ 'bon'", set(), False),
    ],
)
def test_tags_compare_by_membership(text: str, tags: set[str], holds: bool) -> None:
    network = NetworkView("net", tags=frozenset(tags))
    assert parse_filter(text).evaluate(PortView(1, "p", False), network).holds is holds


def test_strings_compare_in_lexical_order_and_prefix() -> None:
    port = PortView(1, "p", False, vendor="mellanox")
    assert (
        parse_filter("port.vendor > 'intel' && port.vendor < 'nvidia'")
        .evaluate(port, NetworkView("n"))
        .holds
    )
    assert parse_filter("port.vendor =~ 'mell'").evaluate(port, NetworkView("n")).holds
    assert not parse_filter("port.vendor =~ 'ell'").evaluate(port, NetworkView("n")).holds


def test_a_refusal_says_which_clause_failed() -> None:
    port = PortView(1, "p", False, vendor="intel", category="storage")
    verdict = parse_filter("port.vendor == 'intel' && port.category == 'network'").evaluate(
        port, NetworkView("n")
    )
    assert not verdict.holds
    assert verdict.reason == "port.category is 'storage', the filter wants == 'network'"
    either = parse_filter("port.is_portgroup || port.vendor == 'mlx'").evaluate(
        port, NetworkView("n")
    )
    assert either.reason == (
        "it is a port, the filter wants port.is_portgroup; "
        "and port.vendor is 'intel', the filter wants == 'mlx'"
    )


def test_without_a_network_the_network_clauses_hold() -> None:
    tree = parse_filter("port.vendor == 'a' && network.name == 'other'")
    port = PortView(1, "p", False, vendor="a")
    assert tree.evaluate(port, None).holds
    assert not tree.evaluate(port, NetworkView("n", name="mine")).holds
