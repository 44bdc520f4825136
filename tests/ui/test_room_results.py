"""A room's results from the store's tallies: per question and vote, the votes and the share within the
question's tolerance; the shift; the most missed questions; the CSV's rows."""
from __future__ import annotations

import io

import pandas as pd

from ui.questions import Asked, Question
from ui.room import results
from ui.room.store import Tally

NUMBER = Question("questions.collapse_rank", "number", lo=0, hi=1024, tolerance=2)
CHOICE = Question("questions.collapse_wide", "choice", options=("yes", "no"))
RANK = Asked("collapse", NUMBER, 64.0, "abc", "why", values={"d": 64})
WIDE = Asked("collapse", CHOICE, "no", "abc", "why")


def test_rows_score_each_vote_within_the_tolerance():
    tallies = [Tally(RANK.id, results.about(RANK), first=(1.0, 63.0, 256.0, 64.0), last=(62.0, 64.0, 66.5), revealed=True),
               Tally(WIDE.id, results.about(WIDE), first=None, last=("yes", "yes", "no"), revealed=False)]
    rows = results.rows(tallies)
    assert [(r.question_id, r.vote, r.votes, r.right) for r in rows] == [
        (RANK.id, 1, 4, 2), (RANK.id, 2, 3, 2), (WIDE.id, 1, 3, 1)]
    assert rows[0].share == 0.5 and rows[1].share == 2 / 3
    assert rows[0].tolerance == 2 and rows[2].tolerance is None
    shift = [results.share_right(NUMBER, 64.0, votes) for votes in (tallies[0].first, tallies[0].last)]
    assert shift == [0.5, 2 / 3]  # the share right in the first vote and in the second
    assert [r.question_id for r in results.most_wrong(rows)] == [WIDE.id, RANK.id]


def test_a_question_never_registered_has_votes_but_no_share():
    rows = results.rows([Tally("split:questions.split_share:000", {}, None, (60.0,), False)])
    assert [(r.section, r.key, r.votes, r.share, r.right) for r in rows] == [
        ("split", "questions.split_share", 1, None, None)]
    assert results.most_wrong(rows) == []


def test_the_csv_has_one_row_per_question_and_vote_and_no_identity():
    tallies = [Tally(RANK.id, results.about(RANK), first=(64.0,), last=(64.0, 1.0), revealed=True)]
    frame = results.frame(results.rows(tallies), lambda r: f"text of {r.key}")
    back = pd.read_csv(io.StringIO(frame.to_csv(index=False)))
    assert list(back.columns) == list(results.COLUMNS)
    assert back[["vote", "votes", "right", "share_right"]].values.tolist() == [[1, 1, 1, 1.0], [2, 2, 1, 0.5]]
    assert not any("token" in c or "student" in c for c in back.columns)


def test_about_keeps_what_scoring_needs_and_nothing_that_is_not_json():
    about = results.about(Asked("collapse", NUMBER, 64.0, "abc", "why", values={"d": 64, "odd": object()}))
    assert results.question_of(about) == NUMBER
    assert about["answer"] == 64.0 and about["values"]["d"] == 64 and isinstance(about["values"]["odd"], str)
    assert results.question_of({"key": "k"}) is None


def test_the_csv_gives_a_spreadsheet_no_formula_to_run():
    """A teacher's question text (or a measure, an option) that starts like a formula reaches the CSV inert."""
    import csv

    from ui.room import lesson

    texts = {"=HYPERLINK(\"http://x.example\",\"click\")": "'=HYPERLINK(\"http://x.example\",\"click\")",
             "+1+1": "'+1+1", "-2+3": "'-2+3", "@SUM(A1)": "'@SUM(A1)", "\tTAB": "'\tTAB",
             "How wide is the layer?": "How wide is the layer?", "-0.5": "-0.5"}
    about = {**results.about(RANK), "measure": "=cmd|' /C calc'!A0"}
    tallies = [Tally(f"collapse:teacher.t{i}:0", about, None, (64.0,), True) for i in range(len(texts))]
    frame = results.frame(results.rows(tallies), lambda r, it=iter(texts): next(it))
    rows = list(csv.DictReader(io.StringIO(lesson.csv_bytes(frame).decode("utf-8"))))
    assert [r["question"] for r in rows] == list(texts.values())
    assert {r["measure"] for r in rows} == {"'=cmd|' /C calc'!A0"}
    assert [r["votes"] for r in rows] == ["1"] * len(texts) and rows[0]["share_right"] == "1.0"
    assert list(frame["question"]) == list(texts)  # the table on screen keeps the text as written
