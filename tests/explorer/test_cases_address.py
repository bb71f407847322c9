"""evalcore.explorer.cases_address: the Cases page's view round-trips through the address bar."""

from __future__ import annotations

from evalcore.explorer.cases_address import CasesState, decode_cases, encode_cases


def test_a_cases_view_round_trips_through_the_address():
    state = CasesState(
        by="fake/oracle · t=0",
        case=("fake/flaky", "tax_preparation", "vague/003", 1),
        only=("failures", "errors"),
        search="client 3",
    )
    params = encode_cases(state)
    assert params["case"] == "tax_preparation/vague/003" and params["of"] == "fake/flaky"
    assert decode_cases(params) == state
    assert decode_cases(encode_cases(CasesState())) == CasesState()


def test_a_case_in_an_address_without_its_contender_is_left_out():
    assert decode_cases({"case": "roofing/003", "only": ["failures", "nonsense"]}) == CasesState(only=("failures",))
