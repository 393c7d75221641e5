"""Check digits for the identifiers in supplier master data: VAT IDs (DE, AT, NL) and IBANs (DE, AT, NL).

The world generator needs supplier master data that survives a real validator, and the tools and tests
need to tell a valid identifier from a mistyped one. Everything here is a pure function. The generators
(``make_*``) draw only from the ``random.Random`` instance they are given, never from the module-level
``random`` state, so one world seed gives the same suppliers in every process. Bodies are always drawn
fresh and the check digits computed; published example identifiers (which may belong to real firms)
appear only in the tests, as test vectors.

Input rules shared by every validator: surrounding and inner whitespace is ignored and letters are
upper-cased (``"de 136 695 976"`` is the USt-IdNr ``DE136695976``), because that is how people print
and type these numbers. Only ASCII digits count as digits. Validators never raise; they return ``False``
for anything malformed. The check-digit functions raise ``ValueError`` on malformed input, because a
wrong body there is a programming error, not data.

Which errors each scheme catches, and why:

* ISO 7064 MOD 11,10 (DE USt-IdNr) and the Luhn-like Austrian UID catch every single-digit substitution
  (see :func:`de_vat_check_digit` and :func:`at_uid_check_digit`).
* ISO 7064 MOD 97-10 (IBAN, and the 2020 form of the Dutch btw-id) catches every single substitution
  (see :func:`iso7064_mod97`).
* The Dutch "11-test" catches every single-digit substitution in the nine digits, but the btw-id is
  accepted in *either* of two forms, so a mistyped old-form number still passes in the rare case
  (about 1 in 97) that it happens to satisfy the 2020 mod-97 rule. The branch suffix is not covered by
  the 11-test at all.

Sources: ISO 7064, ISO 13616 and the procedures summarised in ``/work/shared/notes/domain-facts.md`` A12.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Final

__all__ = [
    "IBAN_COUNTRIES",
    "VAT_ID_COUNTRIES",
    "at_uid_check_digit",
    "de_vat_check_digit",
    "format_iban",
    "iban_check_digits",
    "is_valid_at_uid",
    "is_valid_de_vat",
    "is_valid_iban",
    "is_valid_nl_btw",
    "is_valid_vat_id",
    "iso7064_mod97",
    "make_at_uid",
    "make_de_vat",
    "make_iban",
    "make_nl_btw",
    "make_vat_id",
    "nl_eleven_test",
    "normalize_identifier",
]

_DIGITS: Final = "0123456789"
_UPPER: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

_DE_VAT: Final = re.compile(r"DE[1-9][0-9]{8}")
_AT_UID: Final = re.compile(r"ATU[0-9]{8}")
_NL_BTW: Final = re.compile(r"NL[0-9]{9}B[0-9]{2}")
_IBAN_HEAD: Final = re.compile(r"[A-Z]{2}[0-9]{2}")
_ALNUM: Final = re.compile(r"[0-9A-Z]+")


def normalize_identifier(s: str) -> str:
    """``s`` without any whitespace and upper-cased: the compact form every validator compares.

    ``"de89 3704 0044 0532 0130 00"`` becomes ``"DE89370400440532013000"``. Nothing else is removed, so
    dots or hyphens still make an identifier invalid (they are not part of any of these formats).
    """
    return "".join(s.split()).upper()


def _require_digits(value: str, length: int, what: str) -> None:
    if len(value) != length or not all(c in _DIGITS for c in value):
        raise ValueError(f"{what} must be exactly {length} ASCII digits, got {value!r}")


def _random_digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(_DIGITS) for _ in range(n))


def _random_padded_number(rng: random.Random, width: int, min_significant: int) -> str:
    """A number of ``min_significant``..``width`` significant digits, left-padded with zeros to ``width``.

    Real account numbers are often shorter than the national field and are stored zero-padded
    (``0532013000``); drawing the significant length gives the generated data the same look.
    """
    significant = rng.randint(min_significant, width)
    body = rng.choice("123456789") + _random_digits(rng, significant - 1)
    return body.rjust(width, "0")


# --------------------------------------------------------------------------------------------------
# Germany: USt-IdNr, ISO 7064 MOD 11,10
# --------------------------------------------------------------------------------------------------


def _mod11_10_state(digits: str) -> int:
    """Run the ISO 7064 MOD 11,10 recursion over ``digits`` and return the final state ``p`` (1..10)."""
    p = 10
    for ch in digits:
        s = (int(ch) + p) % 10 or 10
        p = (2 * s) % 11
    return p


def de_vat_check_digit(body8: str) -> str:
    """The ISO 7064 MOD 11,10 check digit for the first 8 digits of a German USt-IdNr.

    Procedure: start with ``p = 10``; for each digit, ``s = (digit + p) mod 10`` (10 if that is 0), then
    ``p = 2·s mod 11``; the check digit is ``11 − p``, with 10 written as 0.

    Why every single-digit substitution is caught: for a fixed state ``p`` the step is one-to-one in the
    digit (``d ↦ (d + p) mod 10`` is a permutation of 0..9, and ``s ↦ 2·s mod 11`` is one-to-one on
    1..10 because 2 is invertible modulo the prime 11), and for a fixed digit it is one-to-one in ``p``.
    So a changed digit changes the state at that point, every later state, and hence the final state;
    ``p ↦ (11 − p) mod 10`` is one-to-one on 1..10, so the expected check digit changes too. A changed
    check digit no longer equals the (unchanged) expected one.

    >>> de_vat_check_digit("13669597")
    '6'
    """
    _require_digits(body8, 8, "body8")
    return str((11 - _mod11_10_state(body8)) % 10)


def is_valid_de_vat(s: str) -> bool:
    """Whether ``s`` is a well-formed German USt-IdNr: ``DE`` + 9 digits, first not 0, MOD 11,10 check."""
    if not isinstance(s, str):
        return False
    compact = normalize_identifier(s)
    if not _DE_VAT.fullmatch(compact):
        return False
    return de_vat_check_digit(compact[2:10]) == compact[10]


def make_de_vat(rng: random.Random) -> str:
    """A fresh, valid German USt-IdNr (``DE`` + 8 random digits, the first 1..9, + check digit)."""
    body = rng.choice("123456789") + _random_digits(rng, 7)
    return f"DE{body}{de_vat_check_digit(body)}"


# --------------------------------------------------------------------------------------------------
# Austria: UID, Luhn variant
# --------------------------------------------------------------------------------------------------


def _digit_sum(n: int) -> int:
    return n // 10 + n % 10


def at_uid_check_digit(body7: str) -> str:
    """The check digit for the 7 digits after ``ATU`` of an Austrian UID.

    ``S = d1 + q(2·d2) + d3 + q(2·d4) + d5 + q(2·d6) + d7`` with ``q`` the digit sum; the check digit is
    ``(10 − (S + 4) mod 10) mod 10``. This is the Luhn scheme with a constant offset of 4 (for the
    leading "U").

    Why every single-digit substitution is caught: at an undoubled position a change of the digit by
    ``δ`` (1..9 in absolute value) changes ``S`` by ``δ``, not a multiple of 10; at a doubled position
    ``d ↦ q(2·d)`` is a permutation of 0..9 (0,2,4,6,8,1,3,5,7,9), so ``S`` changes by a non-zero amount
    below 10 as well. Either way ``S mod 10`` and with it the check digit changes.

    >>> at_uid_check_digit("1358562")
    '7'
    """
    _require_digits(body7, 7, "body7")
    total = 0
    for i, ch in enumerate(body7):
        d = int(ch)
        total += _digit_sum(2 * d) if i % 2 == 1 else d
    return str((10 - (total + 4) % 10) % 10)


def is_valid_at_uid(s: str) -> bool:
    """Whether ``s`` is a well-formed Austrian UID: ``ATU`` + 8 digits, the last a valid check digit."""
    if not isinstance(s, str):
        return False
    compact = normalize_identifier(s)
    if not _AT_UID.fullmatch(compact):
        return False
    return at_uid_check_digit(compact[3:10]) == compact[10]


def make_at_uid(rng: random.Random) -> str:
    """A fresh, valid Austrian UID (``ATU`` + 7 random digits + check digit)."""
    body = _random_digits(rng, 7)
    return f"ATU{body}{at_uid_check_digit(body)}"


# --------------------------------------------------------------------------------------------------
# ISO 7064 MOD 97-10 (IBAN and the 2020 Dutch btw-id)
# --------------------------------------------------------------------------------------------------


def iso7064_mod97(s: str) -> int:
    """The remainder mod 97 of ``s`` read as a number, with letters mapped A=10 … Z=35.

    ``s`` must be ASCII digits and upper-case letters (raises ``ValueError`` otherwise). A letter stands
    for its two-digit value, so ``"NL91"`` is read as the digits ``232191`` (N=23, L=21).

    Why mod 97 catches every single substitution: replacing one character changes the number by
    ``δ·10^k``, where ``δ`` is the difference of the two values (at most 9 for digits, at most 25 for one
    letter replaced by another in the same two-digit slot) and ``k`` its position. 97 is prime and does
    not divide 10, so it divides ``δ·10^k`` only if it divides ``δ``, which is impossible for
    ``0 < |δ| < 97``. The remainder therefore always changes.
    """
    if not _ALNUM.fullmatch(s):
        raise ValueError(f"expected ASCII digits and upper-case letters, got {s!r}")
    remainder = 0
    for ch in s:
        value = int(ch) if ch in _DIGITS else ord(ch) - ord("A") + 10
        remainder = (remainder * (100 if value >= 10 else 10) + value) % 97
    return remainder


# --------------------------------------------------------------------------------------------------
# Netherlands: btw-id
# --------------------------------------------------------------------------------------------------

_ELEVEN_TEST_WEIGHTS: Final = (9, 8, 7, 6, 5, 4, 3, 2, -1)


def nl_eleven_test(digits9: str) -> bool:
    """Whether 9 digits pass the Dutch BSN/RSIN "11-test" (weights 9..2, then −1; sum ≡ 0 mod 11).

    Every single-digit substitution is caught: it changes the sum by ``w·δ`` with ``w`` in
    {9..2, −1} and ``0 < |δ| ≤ 9``; 11 is prime and divides neither factor. Returns ``False`` for
    anything that is not 9 ASCII digits.
    """
    if len(digits9) != 9 or not all(c in _DIGITS for c in digits9):
        return False
    total = sum(w * int(c) for w, c in zip(_ELEVEN_TEST_WEIGHTS, digits9, strict=True))
    return total % 11 == 0


def is_valid_nl_btw(s: str) -> bool:
    """Whether ``s`` is a well-formed Dutch btw-id: ``NL`` + 9 digits + ``B`` + 2-digit branch, not ``B00``.

    Two check rules are in use and either one is accepted:

    * the old form (legal entities, and everyone before 2020): the 9 digits are an RSIN/BSN and pass
      the 11-test (:func:`nl_eleven_test`);
    * the form issued to sole traders since 1 January 2020, which no longer contains the BSN: the whole
      string ``NL…B..`` passes ISO 7064 mod 97 == 1 (:func:`iso7064_mod97`).

    Nine zeros are rejected: they pass the 11-test trivially but are no number.
    """
    if not isinstance(s, str):
        return False
    compact = normalize_identifier(s)
    if not _NL_BTW.fullmatch(compact):
        return False
    digits, branch = compact[2:11], compact[12:]
    if branch == "00" or digits == "000000000":
        return False
    return nl_eleven_test(digits) or iso7064_mod97(compact) == 1


def make_nl_btw(rng: random.Random) -> str:
    """A fresh, valid Dutch btw-id in the old (11-test) form, with a branch suffix ``B01``..``B99``.

    Eight random digits are drawn and the ninth chosen so the 11-test holds: with ``S`` the weighted sum
    of the first eight, the last digit (weight −1) must be ``S mod 11``. When that is 10 no digit works
    and the eight digits are drawn again (about 1 draw in 11).
    """
    while True:
        body = _random_digits(rng, 8)
        partial = sum(w * int(c) for w, c in zip(_ELEVEN_TEST_WEIGHTS[:8], body, strict=True))
        last = partial % 11
        if last < 10 and (body != "00000000" or last != 0):
            break
    branch = rng.randint(1, 99)
    return f"NL{body}{last}B{branch:02d}"


# --------------------------------------------------------------------------------------------------
# IBAN (ISO 13616), national layouts for DE, AT, NL
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _IbanLayout:
    """The BBAN of one country: a bank code (digits or letters) followed by a digit account number."""

    bank_code_length: int
    bank_alphabet: str
    account_length: int
    account_min_digits: int

    @property
    def length(self) -> int:
        return 4 + self.bank_code_length + self.account_length

    def is_bank_code(self, code: str) -> bool:
        return len(code) == self.bank_code_length and all(c in self.bank_alphabet for c in code)

    def is_bban(self, bban: str) -> bool:
        code, account = bban[: self.bank_code_length], bban[self.bank_code_length :]
        return self.is_bank_code(code) and len(account) == self.account_length and all(c in _DIGITS for c in account)


_IBAN_LAYOUTS: Final[dict[str, _IbanLayout]] = {
    # DE: 22 = DE + 2 check + 8-digit Bankleitzahl + 10-digit Kontonummer (zero-padded).
    "DE": _IbanLayout(bank_code_length=8, bank_alphabet=_DIGITS, account_length=10, account_min_digits=6),
    # AT: 20 = AT + 2 check + 5-digit Bankleitzahl + 11-digit Kontonummer (zero-padded).
    "AT": _IbanLayout(bank_code_length=5, bank_alphabet=_DIGITS, account_length=11, account_min_digits=5),
    # NL: 18 = NL + 2 check + 4-letter bank code + 10-digit account number.
    "NL": _IbanLayout(bank_code_length=4, bank_alphabet=_UPPER, account_length=10, account_min_digits=9),
}

IBAN_COUNTRIES: Final[frozenset[str]] = frozenset(_IBAN_LAYOUTS)
"""Countries whose IBAN layout :func:`is_valid_iban` and :func:`make_iban` know."""


def iban_check_digits(country: str, bban: str) -> str:
    """The two IBAN check digits for ``country`` + ``bban`` (ISO 13616, ISO 7064 MOD 97-10).

    Rearrange to ``bban + country + "00"``, read it with letters as A=10 … Z=35, take ``n mod 97``; the
    check digits are ``98 − n``, two digits. The result lies in 02..98, and the finished IBAN then gives
    remainder 1. Works for any country; the national layout is not checked here.
    """
    country, bban = country.upper(), bban.upper()
    if len(country) != 2 or not all(c in _UPPER for c in country):
        raise ValueError(f"country must be two letters, got {country!r}")
    if not _ALNUM.fullmatch(bban):
        raise ValueError(f"bban must be ASCII letters and digits, got {bban!r}")
    return f"{98 - iso7064_mod97(bban + country + '00'):02d}"


def is_valid_iban(s: str) -> bool:
    """Whether ``s`` is a valid DE, AT or NL IBAN: national length and layout, check digits, mod 97 == 1.

    Other countries return ``False``: the simulation only has suppliers from these three, and an IBAN
    from anywhere else is therefore an anomaly. Check digits ``00``, ``01`` and ``99`` are rejected even
    when the remainder works out, because ISO 13616 only issues 02..98 (see :func:`iban_check_digits`).
    """
    if not isinstance(s, str):
        return False
    compact = normalize_identifier(s)
    layout = _IBAN_LAYOUTS.get(compact[:2])
    if layout is None or len(compact) != layout.length or not _IBAN_HEAD.fullmatch(compact[:4]):
        return False
    if not 2 <= int(compact[2:4]) <= 98 or not layout.is_bban(compact[4:]):
        return False
    return iso7064_mod97(compact[4:] + compact[:4]) == 1


def make_iban(rng: random.Random, country: str, bank_code: str | None = None) -> str:
    """A fresh, valid IBAN of ``country`` (DE, AT or NL) in compact form.

    ``bank_code`` fixes the bank (8 digits for DE, 5 for AT, 4 letters for NL), so several suppliers can
    share one bank; without it one is drawn (DE and AT codes start with 1..9, as real ones do). The
    account number is random and zero-padded to the national width. No bank-internal account check
    (e.g. the Bundesbank's per-bank methods) is applied; ISO validators do not check those either.
    """
    country = country.upper()
    layout = _IBAN_LAYOUTS.get(country)
    if layout is None:
        raise ValueError(f"unsupported IBAN country {country!r}; known: {sorted(IBAN_COUNTRIES)}")
    if bank_code is None:
        if layout.bank_alphabet == _DIGITS:
            code = rng.choice("123456789") + _random_digits(rng, layout.bank_code_length - 1)
        else:
            code = "".join(rng.choice(layout.bank_alphabet) for _ in range(layout.bank_code_length))
    else:
        code = normalize_identifier(bank_code)
        if not layout.is_bank_code(code):
            raise ValueError(f"bank code {bank_code!r} does not fit the {country} layout")
    account = _random_padded_number(rng, layout.account_length, layout.account_min_digits)
    bban = code + account
    return f"{country}{iban_check_digits(country, bban)}{bban}"


def format_iban(s: str) -> str:
    """``s`` in print form: compact, upper-case, in groups of four separated by single spaces.

    Only for display; it does not validate. ``format_iban("DE89370400440532013000")`` gives
    ``"DE89 3704 0044 0532 0130 00"``, and :func:`is_valid_iban` accepts that form too.
    """
    compact = normalize_identifier(s)
    return " ".join(compact[i : i + 4] for i in range(0, len(compact), 4))


# --------------------------------------------------------------------------------------------------
# Any VAT ID
# --------------------------------------------------------------------------------------------------

VAT_ID_COUNTRIES: Final[frozenset[str]] = frozenset({"DE", "AT", "NL"})
"""Countries whose VAT IDs :func:`is_valid_vat_id` and :func:`make_vat_id` know."""


def is_valid_vat_id(s: str) -> bool:
    """Whether ``s`` is a valid DE, AT or NL VAT ID, dispatched by its two-letter prefix."""
    if not isinstance(s, str):
        return False
    prefix = normalize_identifier(s)[:2]
    if prefix == "DE":
        return is_valid_de_vat(s)
    if prefix == "AT":
        return is_valid_at_uid(s)
    if prefix == "NL":
        return is_valid_nl_btw(s)
    return False


def make_vat_id(rng: random.Random, country: str) -> str:
    """A fresh, valid VAT ID of ``country`` (DE, AT or NL); see the ``make_*`` functions."""
    country = country.upper()
    if country == "DE":
        return make_de_vat(rng)
    if country == "AT":
        return make_at_uid(rng)
    if country == "NL":
        return make_nl_btw(rng)
    raise ValueError(f"unsupported VAT ID country {country!r}; known: {sorted(VAT_ID_COUNTRIES)}")
