"""A `choose` list with a `range`: attempts draw from the list, `--set` also takes any value in
the range (a figure from a paper), validation runs the range's ends too."""

from __future__ import annotations

import random

import pytest
from pydantic import ValidationError

from quizzer.content.models import ParamSpec
from quizzer.grading.calc import CalcError, accept, describe, draw_value, extremes

GPUS = ParamSpec(choose=[64, 128, 256], range=[1, 100000])
MEASURED = ParamSpec(choose=["measured"], range=[1.0, 1.0e12])


def test_choose_with_range_is_a_valid_spec_and_value_with_range_is_not():
    assert GPUS.choose == [64, 128, 256] and GPUS.range == (1, 100000)
    with pytest.raises(ValidationError, match="choose with range"):
        ParamSpec(value=8, range=[1, 10])
    with pytest.raises(ValidationError, match="choose with range"):
        ParamSpec(choose=[1], value=1)
    with pytest.raises(ValidationError):
        ParamSpec(preset="gpus", choose=["h100-sxm"], range=[1, 2])


def test_draws_only_come_from_the_list():
    rng = random.Random(0)
    assert {draw_value(GPUS, rng) for _ in range(200)} == {64, 128, 256}
    assert {draw_value(MEASURED, rng) for _ in range(20)} == {"measured"}


def test_set_takes_a_listed_value_or_any_value_in_the_range():
    assert accept("gpus", "128", GPUS) == 128
    assert accept("gpus", "16384", GPUS) == 16384
    assert accept("tokens_per_s", "measured", MEASURED) == "measured"
    assert accept("tokens_per_s", "608000", MEASURED) == 608000.0


@pytest.mark.parametrize("raw", ["0", "100001", "12.5", "many"])
def test_set_refuses_what_neither_the_list_nor_the_range_takes(raw):
    with pytest.raises(CalcError, match="gpus takes one of 64, 128, 256, or an integer from 1"):
        accept("gpus", raw, GPUS)


def test_describe_and_extremes_name_both():
    assert (
        describe("gpus", GPUS) == "gpus takes one of 64, 128, 256, or an integer from 1 to 100000"
    )
    assert extremes(GPUS) == [64, 128, 256, 1, 100000]
    assert extremes(MEASURED) == ["measured", 1.0, 1.0e12]
