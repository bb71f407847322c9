"""The near-duplicate rule: word 3-shingles of normalized inputs, Jaccard similarity from 0.8."""

from __future__ import annotations

from evalcore.suite.duplicates import THRESHOLD, Seen, normalized, shingles, similarity

BASE = "Can I return a blender I bought twelve days ago if it is still in the box"


def test_case_punctuation_and_spacing_do_not_make_a_new_case() -> None:
    seen = Seen([("tickets/r01", BASE)])
    found = seen.match("  can i RETURN a blender, i bought twelve days ago -- if it is still in the box?")
    assert found is not None and found.name == "tickets/r01" and found.similarity == 1.0


def test_one_changed_word_in_a_long_input_is_still_a_near_duplicate() -> None:
    longer = BASE + " and the receipt is lost but the order number is 4471 from the web shop"
    changed = longer.replace("blender", "toaster")
    score = similarity(shingles(longer), shingles(changed))
    assert THRESHOLD <= score < 1.0
    assert Seen([("a", longer)]).match(changed) is not None


def test_a_different_question_is_not_a_near_duplicate() -> None:
    assert Seen([("a", BASE)]).match("Where is my parcel? The tracking page has not moved since Monday.") is None


def test_short_inputs_compare_as_one_shingle() -> None:
    assert shingles("Refund please") == frozenset([("refund", "please")])
    assert Seen([("a", "Refund please!")]).match("refund PLEASE") is not None
    assert Seen([("a", "Refund please")]).match("Refund now") is None


def test_an_object_input_compares_by_its_canonical_json() -> None:
    assert normalized({"b": 1, "a": "X"}) == normalized({"a": "x", "b": 1})
    assert Seen([("a", {"question": BASE})]).match({"question": BASE.upper()}) is not None


def test_the_most_similar_seen_input_is_named() -> None:
    seen = Seen([("far", BASE + " and more words about shipping times here"), ("near", BASE)])
    found = seen.match(BASE)
    assert found is not None and found.name == "near"
