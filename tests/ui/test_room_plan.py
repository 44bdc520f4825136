"""Lesson plans: the shipped lesson checks out against the pages, a bad plan gets a short message naming
the step, and a lesson built in the app travels in a link and back."""
from __future__ import annotations

import base64
import zlib
from pathlib import Path

import pytest

from ui.base import i18n
from ui.room import plan

GOOD_STEP = {"page": "collapse", "settings": {"act": "none", "d": 32}, "questions": ["questions.collapse_wide"],
             "note": {"en": "Ask first.", "ko": "먼저 묻습니다."}}


def raw(*steps, **extra) -> dict:
    return {"id": "t", "title": {"en": "T", "ko": "티"}, "steps": list(steps), **extra}


def test_the_shipped_lesson_tells_the_story_over_pages_1_to_8_in_both_languages():
    found, bad = plan.shipped()
    assert bad == []
    story = found["ffn-story"]
    assert 8 <= len(story.steps) <= 12
    sections = [s.section for s in story.steps]
    assert set(sections) == {"split", "position", "collapse", "sweep", "keyvalue", "sparsity", "gpt", "gptsurgery"}
    order = ["split", "position", "collapse", "sweep", "keyvalue", "sparsity", "gpt", "gptsurgery"]
    assert sorted(sections, key=order.index) == sections  # the seed texts' order
    for step in story.steps:
        assert set(step.note) == set(i18n.LANGS)
        assert any("\uac00" <= c <= "\ud7a3" for c in step.note["ko"])
    assert set(story.title) == set(i18n.LANGS)
    assert story.steps[3].settings == {"act": "none"}  # written as a link writes it


def test_a_teachers_file_in_one_language_without_notes_is_a_lesson():
    # The lesson file a teacher writes first: a title and an ask's text in one language, no notes.
    lesson = plan.lesson({"id": "mine", "title": {"ko": "내 수업"},
                          "steps": [{"page": "sweep", "settings": {"target": "abs"},
                                     "ask": [{"measure": "pieces", "where": {"m": 8}, "text": {"ko": "조각은 몇 개입니까?"},
                                              "tolerance": 0.5}]},
                                    {"page": "split", "note": {"en": "Only English."}}]})
    assert lesson.title == {"ko": "내 수업"}
    assert lesson.steps[0].note == {} and lesson.steps[1].note == {"en": "Only English."}
    with pytest.raises(plan.PlanError, match="title needs a text in"):
        plan.lesson({"id": "mine", "steps": [{"page": "split"}]})


def test_every_shipped_lesson_speaks_both_languages():
    found, bad = plan.shipped()
    assert bad == [] and found
    for lesson in found.values():
        assert set(lesson.title) == set(i18n.LANGS), lesson.id
        for step in lesson.steps:
            assert set(step.note) == set(i18n.LANGS), (lesson.id, step.section)


def test_a_good_step_is_read_as_a_link_writes_it():
    lesson = plan.lesson(raw(GOOD_STEP))
    assert lesson.steps[0].settings == {"act": "none", "d": "32"}
    assert lesson.steps[0].questions == ("questions.collapse_wide",)


@pytest.mark.parametrize("step, message", [
    ({**GOOD_STEP, "page": "nowhere"}, "step 1: no page 'nowhere'"),
    ({**GOOD_STEP, "settings": {"width": 3}}, "step 1: page 'collapse' has no setting 'width'"),
    ({**GOOD_STEP, "settings": {"d": 10_000}}, "step 1: d = 10000 is not a value page 'collapse' takes"),
    ({**GOOD_STEP, "settings": {"act": "tanh"}}, "step 1: act = 'tanh' is not a value"),
    ({**GOOD_STEP, "questions": ["questions.split_share"]}, "page 'collapse' asks no question 'questions.split_share'"),
    ({**GOOD_STEP, "note": {"fr": "Seulement."}}, "step 1: note has a text in 'fr', not one of"),
    ({**GOOD_STEP, "note": {}}, "step 1: note needs a text in"),
    ({**GOOD_STEP, "colour": "red"}, "step 1: unknown field 'colour'"),
    ("collapse", "step 1: a step is a table"),
])
def test_a_bad_step_gets_a_short_message_naming_it(step, message):
    with pytest.raises(plan.PlanError) as e:
        plan.lesson(raw(GOOD_STEP, step) if isinstance(step, dict) else raw(step))
    text = str(e.value).replace("step 2", "step 1")
    assert message in text and len(text) < 200


def test_a_bad_file_is_named_and_left_out(tmp_path: Path):
    (tmp_path / "broken.toml").write_text("id = [", encoding="utf-8")
    (tmp_path / "empty.toml").write_text('id = "e"\nsteps = []\n[title]\nen = "E"\nko = "이"\n', encoding="utf-8")
    # TOML's trap: a key written under [title] belongs to the title, so its steps are named there.
    (tmp_path / "trap.toml").write_text('id = "t"\n[title]\nen = "T"\nsteps = []\n', encoding="utf-8")
    good, bad = plan.shipped(tmp_path)
    assert good == {}
    assert len(bad) == 3 and bad[0].startswith("broken.toml: not TOML") and bad[1].startswith("empty.toml: steps")
    assert bad[2].startswith("trap.toml: title has a text in 'steps'")


def test_a_built_lesson_travels_in_a_link():
    built = plan.built("mine", [("collapse", {"act": "none"}, ()), ("split", {"d": "1024"}, ("questions.split_share",))])
    back = plan.decode(plan.encode(built))
    assert back == built
    assert [s.note for s in back.steps] == [{}, {}]


@pytest.mark.parametrize("value", [
    "", "not base64 !!", base64.urlsafe_b64encode(b"plain").decode(),
    base64.urlsafe_b64encode(zlib.compress(b'{"id": "x", "steps": [["nowhere", {}, []]]}')).decode(),
    base64.urlsafe_b64encode(zlib.compress(b"[" * 50_000)).decode()[:plan.MAX_LINK],
    "A" * (plan.MAX_LINK + 1), None,
])
def test_a_forged_lesson_link_is_refused(value):
    with pytest.raises(plan.PlanError):
        plan.decode(value)
