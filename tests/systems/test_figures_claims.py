"""Every figure in figures.json carries its source and the sentence that states it, and that
sentence states the figure's value (a number never without its cited source)."""

import re

import pytest

from webapp.systems.calculators.figures import figures

NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def cited_figures(node, path=()):
    """(path, figure) for every dict with a value under node."""
    if isinstance(node, dict):
        if "value" in node:
            yield path, node
        for key, child in node.items():
            if key != "value":
                yield from cited_figures(child, (*path, key))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from cited_figures(child, (*path, str(index)))


def numbers_in(claim):
    return {float(n.replace(",", ".")) for n in NUMBER.findall(claim)}


FIGURES = list(cited_figures(figures()))


def test_there_are_figures():
    assert len(FIGURES) > 50


@pytest.mark.parametrize(("path", "figure"), FIGURES, ids=["/".join(p) for p, _ in FIGURES])
def test_a_figure_states_its_source_and_its_claim_states_its_value(path, figure):
    assert {"value", "unit", "source", "url", "claim"} <= set(figure)
    assert figure["source"].strip() and figure["claim"].strip() and figure["unit"].strip()
    values = figure["value"] if isinstance(figure["value"], list) else [figure["value"]]
    for value in values:
        assert float(value) in numbers_in(figure["claim"]), (value, figure["claim"])


def test_a_machinery_cost_says_what_it_covers():
    # A job in full includes fuel; an implement's cost covers the implement alone: never both.
    for options in figures()["machinery"].values():
        for option in options:
            assert not (option.get("includes_fuel") and option.get("implement_only"))
    [drilling] = figures()["machinery"]["semis_monograine"]
    assert drilling["includes_fuel"] is True
