"""Reading a filter expression: a tokenizer and a recursive-descent parser.

    expression  := conjunction ( "||" conjunction )*
    conjunction := operand ( "&&" operand )*
    operand     := "(" expression ")" | function | variable comparator literal
    function    := "port.is_port" | "port.is_portgroup"
    comparator  := "==" | "!=" | ">=" | ">" | "<=" | "<" | "=~"
    literal     := "'" [A-Za-z0-9_.-]* "'"

Every mistake raises :class:`~metalwire.errors.TbnRulesInvalid` naming the column (counted
from 1) and what was expected there.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

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

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_LITERAL_BODY = re.compile(r"[A-Za-z0-9_.\-]*")
# Longest first, so that ">=" is not read as ">" followed by "=".
_SYMBOLS = ("&&", "||", "==", "!=", ">=", "<=", "=~", ">", "<", "(", ")")


@dataclass(frozen=True)
class Token:
    kind: str  # "name", "literal", "symbol" or "end"
    text: str
    column: int  # 1-based

    def shown(self) -> str:
        return "the end" if self.kind == "end" else repr(self.text)


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    position = 0
    while position < len(text):
        char = text[position]
        if char.isspace():
            position += 1
            continue
        column = position + 1
        if char == "'":
            body = _LITERAL_BODY.match(text, position + 1)
            end = body.end() if body else position + 1
            if end >= len(text) or text[end] != "'":
                where = "the closing quote is missing" if end >= len(text) else None
                bad = where or f"{text[end]!r} cannot appear in a literal"
                raise _error(
                    text,
                    end + 1,
                    f"{bad} (a literal has letters, digits, '_', '-' and '.' only)",
                )
            tokens.append(Token("literal", text[position + 1 : end], column))
            position = end + 1
            continue
        if char == '"':
            raise _error(text, column, "literals take single quotes ('...'), not double")
        symbol = next((s for s in _SYMBOLS if text.startswith(s, position)), None)
        if symbol is not None:
            tokens.append(Token("symbol", symbol, column))
            position += len(symbol)
            continue
        name = _NAME.match(text, position)
        if name is None:
            raise _error(text, column, f"unexpected character {char!r}")
        tokens.append(Token("name", name.group(), column))
        position = name.end()
    tokens.append(Token("end", "", len(text) + 1))
    return tokens


def parse_filter(text: str) -> Expression:
    """The tree of a filter expression; raises TbnRulesInvalid naming the column."""
    return _Parser(text).parse()


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.index = 0

    @property
    def current(self) -> Token:
        return self.tokens[self.index]

    def advance(self) -> Token:
        token = self.current
        self.index += 1
        return token

    def fail(self, token: Token, expected: str) -> TbnRulesInvalid:
        return _error(self.text, token.column, f"expected {expected}, found {token.shown()}")

    def parse(self) -> Expression:
        if self.current.kind == "end":
            raise self.fail(self.current, "a filter")
        tree = self.disjunction()
        if self.current.kind != "end":
            raise self.fail(self.current, "'&&', '||' or the end")
        return tree

    def disjunction(self) -> Expression:
        return self.chain(Junction.OR, self.conjunction)

    def conjunction(self) -> Expression:
        return self.chain(Junction.AND, self.operand)

    def chain(self, junction: Junction, operand: Callable[[], Expression]) -> Expression:
        """``operand (junction operand)*``, grouped from the left."""
        tree = operand()
        while self.current.kind == "symbol" and self.current.text == junction.value:
            self.advance()
            tree = Compound(tree, junction, operand())
        return tree

    def operand(self) -> Expression:
        token = self.current
        if token.kind == "symbol" and token.text == "(":
            self.advance()
            inner = self.disjunction()
            if not (self.current.kind == "symbol" and self.current.text == ")"):
                raise self.fail(self.current, f"')' closing the '(' at column {token.column}")
            self.advance()
            return inner
        if token.kind != "name":
            raise self.fail(token, "a variable, port.is_port, port.is_portgroup or '('")
        self.advance()
        if token.text in FUNCTIONS:
            return Predicate(token.text)
        if token.text not in VARIABLES:
            known = ", ".join((*VARIABLES, *FUNCTIONS))
            raise _error(
                self.text, token.column, f"unknown variable {token.text!r} (known: {known})"
            )
        return self.comparison(token)

    def comparison(self, variable: Token) -> Comparison:
        token = self.advance()
        try:
            comparator = Comparator(token.text) if token.kind == "symbol" else None
        except ValueError:
            comparator = None
        if comparator is None:
            raise self.fail(token, f"a comparator (== != >= > <= < =~) after {variable.text}")
        if variable.text in SET_VARIABLES and comparator not in SET_COMPARATORS:
            raise _error(
                self.text,
                token.column,
                f"{comparator.value} cannot compare {variable.text}, a set of tags "
                "(== and != test membership, =~ a tag's prefix)",
            )
        literal = self.advance()
        if literal.kind != "literal":
            raise self.fail(literal, f"a quoted literal after {comparator.value}")
        return Comparison(variable.text, comparator, literal.text)


def _error(text: str, column: int, reason: str) -> TbnRulesInvalid:
    return TbnRulesInvalid(f"filter {text!r}, column {column}: {reason}")
