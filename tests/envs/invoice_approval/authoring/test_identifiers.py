"""Tests for officegym.envs.invoice_approval.shared.authoring.identifiers.

Published identifiers appear here only as test vectors (domain-facts A12); everything else is generated
from seeded ``random.Random`` instances. Hypothesis runs without its example database so the tests leave
no files behind.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from officegym.envs.invoice_approval.shared.authoring.identifiers import (
    IBAN_COUNTRIES,
    VAT_ID_COUNTRIES,
    at_uid_check_digit,
    de_vat_check_digit,
    format_iban,
    iban_check_digits,
    is_valid_at_uid,
    is_valid_de_vat,
    is_valid_iban,
    is_valid_nl_btw,
    is_valid_vat_id,
    iso7064_mod97,
    make_at_uid,
    make_de_vat,
    make_iban,
    make_nl_btw,
    make_vat_id,
    nl_eleven_test,
    normalize_identifier,
)

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
MANY = settings(max_examples=1000, database=None, deadline=None)
SOME = settings(max_examples=200, database=None, deadline=None)

Maker = Callable[[random.Random], str]
Validator = Callable[[str], bool]

# name -> (generator, validator for exactly that kind)
KINDS: dict[str, tuple[Maker, Validator]] = {
    "de_vat": (make_de_vat, is_valid_de_vat),
    "at_uid": (make_at_uid, is_valid_at_uid),
    "nl_btw": (make_nl_btw, is_valid_nl_btw),
    "iban_de": (lambda rng: make_iban(rng, "DE"), is_valid_iban),
    "iban_at": (lambda rng: make_iban(rng, "AT"), is_valid_iban),
    "iban_nl": (lambda rng: make_iban(rng, "NL"), is_valid_iban),
}
IBAN_LENGTHS = {"DE": 22, "AT": 20, "NL": 18}


def digit_mutations(s: str, positions: range | None = None) -> Iterator[str]:
    """Every string that differs from ``s`` in exactly one digit (at ``positions`` if given)."""
    for i in positions if positions is not None else range(len(s)):
        if s[i].isdigit():
            for d in "0123456789":
                if d != s[i]:
                    yield s[:i] + d + s[i + 1 :]


# --------------------------------------------------------------------------------------------------
# Published test vectors
# --------------------------------------------------------------------------------------------------

VALID_VAT_IDS = ["DE136695976", "ATU13585627", "NL004495445B01", "NL002455799B11"]
VALID_IBANS = ["DE89370400440532013000", "AT611904300234573201", "NL91ABNA0417164300"]


def test_de_vat_vectors() -> None:
    assert de_vat_check_digit("13669597") == "6"
    assert is_valid_de_vat("DE136695976")
    assert not is_valid_de_vat("DE136695978")


def test_at_uid_vector() -> None:
    assert at_uid_check_digit("1358562") == "7"
    assert is_valid_at_uid("ATU13585627")


def test_nl_btw_vectors_use_the_two_rules() -> None:
    # The old form passes the 11-test; the 2020 form passes only the mod-97 rule.
    assert is_valid_nl_btw("NL004495445B01")
    assert nl_eleven_test("004495445")
    assert is_valid_nl_btw("NL002455799B11")
    assert not nl_eleven_test("002455799")
    assert iso7064_mod97("NL002455799B11") == 1


@pytest.mark.parametrize("iban", VALID_IBANS)
def test_iban_vectors(iban: str) -> None:
    assert is_valid_iban(iban)
    assert iban_check_digits(iban[:2], iban[4:]) == iban[2:4]
    assert len(iban) == IBAN_LENGTHS[iban[:2]]


@pytest.mark.parametrize("vat_id", VALID_VAT_IDS)
def test_vat_vectors_dispatch(vat_id: str) -> None:
    assert is_valid_vat_id(vat_id)


@pytest.mark.parametrize("ident", ["DE136695976", "ATU13585627", *VALID_IBANS])
def test_single_digit_mutations_of_vectors_are_invalid(ident: str) -> None:
    validator = is_valid_iban if len(ident) > 11 else is_valid_vat_id
    mutations = list(digit_mutations(ident))
    assert mutations
    assert not any(validator(m) for m in mutations)


def test_single_digit_mutations_of_nl_vectors() -> None:
    # The NL btw-id is accepted under either of two rules, so a mutation rejected by the rule the original
    # satisfies may still (by chance) satisfy the other one; each rule on its own catches every mutation.
    old_form, new_form = "NL004495445B01", "NL002455799B11"
    assert not any(nl_eleven_test(m[2:11]) for m in digit_mutations(old_form, range(2, 11)))
    assert not any(iso7064_mod97(m) == 1 for m in digit_mutations(new_form))
    assert not is_valid_nl_btw("NL004495445B00")


# --------------------------------------------------------------------------------------------------
# Format rules
# --------------------------------------------------------------------------------------------------


def test_de_vat_first_digit_must_not_be_zero() -> None:
    body = "03669597"
    assert not is_valid_de_vat(f"DE{body}{de_vat_check_digit(body)}")


@pytest.mark.parametrize(
    "s",
    [
        "",
        "DE",
        "DE13669597",  # too short
        "DE1366959760",  # too long
        "DX136695976",
        "136695976",
        "DE13669597A",
        "DE13669597６",  # fullwidth digit is not an ASCII digit
        "DE-136695976",
        "AT13585627",  # missing U
        "ATU1358562",
        "NL004495445C01",
        "NL004495445B1",
        "NL000000000B01",  # passes the 11-test trivially but is no number
        "FR136695976",
    ],
)
def test_malformed_vat_ids_are_invalid(s: str) -> None:
    assert not is_valid_vat_id(s)


def test_whitespace_and_case_are_ignored() -> None:
    assert normalize_identifier(" de 136\u00a0695 976\n") == "DE136695976"
    assert is_valid_vat_id("de 136 695 976")
    assert is_valid_vat_id("atu 1358 5627")
    assert is_valid_vat_id("nl004495445b01")
    assert is_valid_iban("nl91 abna 0417 1643 00")


def test_format_iban() -> None:
    assert format_iban("DE89370400440532013000") == "DE89 3704 0044 0532 0130 00"
    assert format_iban("at61 1904 3002 3457 3201") == "AT61 1904 3002 3457 3201"
    assert format_iban("NL91ABNA0417164300") == "NL91 ABNA 0417 1643 00"
    assert all(is_valid_iban(format_iban(iban)) for iban in VALID_IBANS)


@pytest.mark.parametrize(
    "s",
    [
        "",
        "DE89",
        "DE8937040044053201300",  # DE is 22 characters
        "DE893704004405320130000",
        "DE89 3704 0044 0532 0130 0X",
        "NL91ABN10417164300",  # the NL bank code is four letters
        "NL91ABNA041716430A",
        "AT61-1904-3002-3457-3201",
        "XX89370400440532013000",
    ],
)
def test_malformed_ibans_are_invalid(s: str) -> None:
    assert not is_valid_iban(s)


def test_iban_of_unsupported_country_is_invalid_even_with_right_check_digits() -> None:
    bban = "12345678901234567"
    iban = f"CH{iban_check_digits('CH', bban)}{bban}"
    assert iso7064_mod97(iban[4:] + iban[:4]) == 1
    assert not is_valid_iban(iban)


def test_iban_check_digits_00_01_99_are_rejected_even_if_mod97_works() -> None:
    # With remainder r for the "00" placeholder, check digits c pass mod 97 when r + c ≡ 1 (mod 97).
    # ISO 13616 only issues 98 - r (02..98); r = 0 also admits 01, r = 1 admits 00 and r = 96 admits 99.
    wanted = {0: "01", 1: "00", 96: "99"}
    found: set[str] = set()
    for n in range(100_000):
        bban = f"70020270{n:010d}"
        r = iso7064_mod97(bban + "DE00")
        if r in wanted and wanted[r] not in found:
            odd = f"DE{wanted[r]}{bban}"
            assert iso7064_mod97(odd[4:] + odd[:4]) == 1
            assert not is_valid_iban(odd)
            assert is_valid_iban(f"DE{iban_check_digits('DE', bban)}{bban}")
            found.add(wanted[r])
        if len(found) == 3:
            break
    assert found == {"00", "01", "99"}


def test_check_digit_functions_reject_malformed_bodies() -> None:
    for body in ["1366959", "136695970", "1366959A", "１３６６９５９７"]:
        with pytest.raises(ValueError):
            de_vat_check_digit(body)
    with pytest.raises(ValueError):
        at_uid_check_digit("135856")
    with pytest.raises(ValueError):
        iban_check_digits("D1", "370400440532013000")
    with pytest.raises(ValueError):
        iban_check_digits("DE", "3704-0044")
    with pytest.raises(ValueError):
        iso7064_mod97("de89")


def test_make_iban_with_bank_code() -> None:
    rng = random.Random(7)
    iban = make_iban(rng, "DE", bank_code="70020270")
    assert iban[4:12] == "70020270" and is_valid_iban(iban)
    assert make_iban(rng, "nl", bank_code="rabo")[4:8] == "RABO"
    for country, code in [("DE", "7002027"), ("AT", "1904A"), ("NL", "AB12")]:
        with pytest.raises(ValueError):
            make_iban(rng, country, bank_code=code)
    with pytest.raises(ValueError):
        make_iban(rng, "FR")


def test_make_vat_id_dispatch() -> None:
    rng = random.Random(3)
    for country in sorted(VAT_ID_COUNTRIES):
        vat_id = make_vat_id(rng, country)
        assert vat_id.startswith(country) and is_valid_vat_id(vat_id)
    with pytest.raises(ValueError):
        make_vat_id(rng, "FR")


# --------------------------------------------------------------------------------------------------
# Properties of the generators
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(KINDS))
@MANY
@given(seed=SEEDS)
def test_generated_ids_are_valid(kind: str, seed: int) -> None:
    make, validate = KINDS[kind]
    ident = make(random.Random(seed))
    assert validate(ident)
    assert ident == normalize_identifier(ident)  # generators return the compact form
    if kind.startswith("iban_"):
        assert len(ident) == IBAN_LENGTHS[ident[:2]]
    else:
        assert is_valid_vat_id(ident)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_thousand_ids_from_one_stream_are_valid_and_varied(kind: str) -> None:
    make, validate = KINDS[kind]
    rng = random.Random(20260101)
    idents = [make(rng) for _ in range(1000)]
    assert all(validate(i) for i in idents)
    assert len(set(idents)) >= 990


@pytest.mark.parametrize("kind", sorted(KINDS))
@SOME
@given(seed=SEEDS)
def test_generators_are_deterministic_and_ignore_global_random(kind: str, seed: int) -> None:
    make, _ = KINDS[kind]
    random.seed(1)
    first = [make(random.Random(seed)) for _ in range(3)]
    random.seed(2)
    second = [make(random.Random(seed)) for _ in range(3)]
    assert first[0] == first[1] == first[2] == second[0]


@pytest.mark.parametrize("country", sorted(IBAN_COUNTRIES))
@SOME
@given(seed=SEEDS)
def test_every_single_digit_change_of_a_generated_iban_is_invalid(country: str, seed: int) -> None:
    iban = make_iban(random.Random(seed), country)
    assert not any(is_valid_iban(m) for m in digit_mutations(iban))


@SOME
@given(seed=SEEDS)
def test_every_single_digit_change_of_a_generated_de_vat_is_invalid(seed: int) -> None:
    vat_id = make_de_vat(random.Random(seed))
    assert not any(is_valid_de_vat(m) for m in digit_mutations(vat_id))


@SOME
@given(seed=SEEDS)
def test_every_single_digit_change_of_a_generated_at_uid_is_invalid(seed: int) -> None:
    uid = make_at_uid(random.Random(seed))
    assert not any(is_valid_at_uid(m) for m in digit_mutations(uid))


@SOME
@given(seed=SEEDS)
def test_generated_nl_btw_old_form(seed: int) -> None:
    btw = make_nl_btw(random.Random(seed))
    assert nl_eleven_test(btw[2:11])
    assert 1 <= int(btw[12:]) <= 99
    # The 11-test alone catches every change in the nine digits (the suffix is not covered).
    assert not any(nl_eleven_test(m[2:11]) for m in digit_mutations(btw, range(2, 11)))
