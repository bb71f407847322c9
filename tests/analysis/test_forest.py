"""The forest plot picture: one line per name at its difference, in its panel's unit, coloured by verdict,
zero marked, and every text from a run file escaped."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from evalcore.analysis.decisions.compare import Change
from evalcore.analysis.decisions.forest import forest_svg

SVG = "{http://www.w3.org/2000/svg}"


def change(name: str, diff: float, lo: float, hi: float, p: float, base: float = 0.8, higher: bool = True) -> Change:
    return Change(name, higher, base, base + diff, diff, lo, hi, p, 40, "McNemar test, Tango interval")


def lines_of(svg: str) -> dict[str, dict]:
    """Each name's group: its label, its interval's ends, its point and its colour."""
    root = ET.fromstring(svg)
    found = {}
    for group in root.iter(f"{SVG}g"):
        bar, point = group.find(f"{SVG}line"), group.find(f"{SVG}circle")
        name = group.find(f"{SVG}text").text
        found[name] = {
            "x1": float(bar.get("x1")),
            "x2": float(bar.get("x2")),
            "cx": float(point.get("cx")),
            "colour": point.get("fill"),
            "tooltip": group.find(f"{SVG}title").text,
        }
    return found


def zero_lines(svg: str) -> list[float]:
    root = ET.fromstring(svg)
    return [float(line.get("x1")) for line in root.iter(f"{SVG}line") if line.get("stroke-dasharray")]


def test_a_significant_drop_is_red_and_wholly_left_of_zero():
    svg = forest_svg([change("score", -0.2, -0.3, -0.1, 0.001), change("errors", 0.0, -0.01, 0.01, 1.0, higher=False)])
    lines = lines_of(svg)
    (zero,) = zero_lines(svg)
    score = lines["score"]
    assert score["colour"] == "#d62728"
    assert score["x1"] < score["cx"] < score["x2"] < zero
    assert lines["errors"]["colour"] == "#7f7f7f"  # within noise
    assert lines["errors"]["x1"] < zero < lines["errors"]["x2"]
    assert "score: regression (higher is better)" in score["tooltip"]
    assert "-20 pts [-30 to -10], p 0.001, 40 cases" in score["tooltip"]


def test_cost_and_time_are_a_share_of_the_base_in_a_panel_of_their_own():
    svg = forest_svg(
        [change("score", 0.1, 0.05, 0.15, 0.01), change("cost", -0.5, -0.6, -0.4, 0.001, base=2.0, higher=False)]
    )
    lines = lines_of(svg)
    assert lines["score"]["colour"] == "#2ca02c"
    assert lines["cost"]["colour"] == "#2ca02c"  # cheaper: an improvement
    assert "-25%" in lines["cost"]["tooltip"]  # -0.5 of a base of 2.0
    assert len(zero_lines(svg)) == 2  # one panel each
    assert "cost and time: % of base" in svg and "scores and rates: points" in svg


def test_names_without_data_are_left_out_and_named_in_the_title():
    empty = change("time", math.nan, math.nan, math.nan, math.nan)
    svg = forest_svg([change("score", 0.0, 0.0, 0.0, 1.0), empty])
    assert set(lines_of(svg)) == {"score"}
    assert "(time: no data)" in svg
    assert len(zero_lines(forest_svg([]))) == 1  # nothing to show: an empty panel, still a picture


def test_names_from_a_run_file_are_escaped():
    svg = forest_svg([change('<script>alert("x")</script>', -0.1, -0.2, 0.0, 0.5)])
    assert "<script>" not in svg
    ET.fromstring(svg)  # still a well-formed picture
