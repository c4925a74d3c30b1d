"""Quick Lookup: a fact from search snippets alone, in at most two steps; no page reads."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from webapp.ai import Usage
from webapp.tables.scope import row_places
from webapp.tables.strategies import register_strategy
from webapp.tables.strategies.base import (
    RowStep,
    RowStrategy,
    interpolate_template,
    template_subject,
)


def row_context(row: Mapping[str, Any]) -> str:
    """ "Given: Company: Acme, URL: acme.com" — the row's other values, for the query."""
    known = [f"{name}: {value}" for name, value in row.items() if value not in (None, "")]
    return "Given: " + ", ".join(known) if known else ""


class LookupStrategy(RowStrategy):
    name = "lookup"
    display_name = "Quick Lookup"
    max_steps = 2

    def typical_usage(self, params) -> Usage:
        # One call over search snippets: the prompt, the snippets read, a one-line answer.
        return Usage(input_tokens=2000, output_tokens=100, web_searches=1)

    def execute_one(self, row, params, tools, target) -> Iterator[RowStep]:
        question = interpolate_template(params["question"], row)
        subject = template_subject(params["question"], row)
        yield from tools.lookup(
            question, row_context(row), target, self.max_steps, subject, row_places(row)
        )


register_strategy(LookupStrategy())
