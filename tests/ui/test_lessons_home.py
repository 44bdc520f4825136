"""The home page's verdict: a fixed block, so a stated fact whose sentence agrees with its counts."""
from hypothesis import given
from hypothesis import strategies as st

from ffn_core import params
from tests.lesson_checks import assert_readable, sentences
from ui.verdicts import home as verdicts


def test_the_home_block_is_two_thirds_stated_as_a_fact():
    v = verdicts.judge(params.split(512, "4"))
    [claim] = v.claims
    assert claim.ok is None and claim.key == "home.claim"
    assert (claim.values["ffn"], claim.values["block"]) == (8 * 512**2, 12 * 512**2)
    shown = sentences(v)
    assert "2,097,152" in shown["en"][0] and "3,145,728" in shown["ko"][0]
    assert "2×" in shown["en"][1] and "2배" in shown["ko"][1]


# The judge is only ever given the lesson's block, but its sentence must follow the counts it gets.
@given(d=st.integers(1, 128).map(lambda k: 64 * k), expansion=st.sampled_from(params.EXPANSIONS), bias=st.booleans())
def test_the_two_thirds_sentence_needs_two_thirds(d, expansion, bias):
    s = params.split(d, expansion, 8, 8, bias)
    v = verdicts.judge(s)
    [claim] = v.claims
    assert (claim.key == "home.claim") == (3 * s.ffn_params == 2 * s.block_params)
    assert_readable(v)
