"""Payment category words and amounts in other languages (references/locale_words.py, read by
references/payment_mentions.py and payments.py)."""

from __future__ import annotations

import pytest

from sscbench.references.locale_words import WORDS, is_plural, number_value
from sscbench.references.payment_mentions import category_hits, piece_mentions
from sscbench.references.payments import amounts


def _categories(text: str) -> list[str]:
    return [category for _, _, category in category_hits(text)]


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("payé avec votre carte cadeau", "gift_card"),
        ("la Carte-Cadeau de 90 $", "gift_card"),
        ("con su tarjeta de regalo", "gift_card"),
        ("mit Ihrer Geschenkkarte", "gift_card"),
        ("con la carta regalo", "gift_card"),
        ("com o cartão-presente", "gift_card"),
        ("met uw cadeaukaart", "gift_card"),
        ("подарочной картой", "gift_card"),
        ("votre certificat", "certificate"),
        ("el certificado de viaje", "certificate"),
        ("Ihr Gutschein", "certificate"),
        ("il certificato", "certificate"),
        ("сертификатом на 250 долларов", "certificate"),
        ("votre carte de crédit", "credit_card"),
        ("votre carte de credit", "credit_card"),  # accents optional
        ("su tarjeta de crédito", "credit_card"),
        ("Ihre Kreditkarte", "credit_card"),
        ("la carta di credito", "credit_card"),
        ("o cartão de crédito", "credit_card"),
        ("кредитную карту", "credit_card"),
    ],
)
def test_category_words_of_other_languages(text, category):
    assert _categories(text) == [category]
    (mention,) = piece_mentions(text)
    assert mention.category == category and mention.positive


@pytest.mark.parametrize(
    "text",
    [
        "votre carte",  # a card, of no category
        "un regalo para usted",
        "die Karte",
        "gift_card_7156 and certificate_1234567",  # ids are the id readers'
        "кредит",  # credit, not a credit card
    ],
)
def test_words_that_name_no_category(text):
    assert _categories(text) == []


def test_english_negation_still_reads_a_foreign_category_word():
    (mention,) = piece_mentions("it is not a carte de crédit")
    assert mention.category == "credit_card" and not mention.positive


def test_every_table_form_is_read_as_its_category_and_plurals_are_plural():
    for category, languages in WORDS.items():
        for language, (singular, plural) in languages.items():
            assert _categories(f"the {singular} here") == [category], (language, singular)
            assert _categories(f"two {plural} here") == [category], (language, plural)
            assert not is_plural(singular), (language, singular)
            assert is_plural(plural) or plural.lower().endswith("s"), (language, plural)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("1 234,56 €", [1234.56]),
        ("1.234,56 $", [1234.56]),
        ("1'234.56 USD", [1234.56]),
        ("274,00 $", [274.0]),
        ("90 dólares", [90.0]),
        ("$1,234.50 and $ 90", [1234.5, 90.0]),  # English as before
        ("USD 90, 90 dollars", [90.0, 90.0]),
    ],
)
def test_amounts_written_with_any_locale_separators(text, want):
    assert amounts(text) == want


def test_number_value_reads_grouping_and_decimal_marks():
    assert number_value("1.234") == 1234.0  # a group of three is no decimal
    assert number_value("12,5") == 12.5
    assert number_value("1 000 000,00") == 1_000_000.0
