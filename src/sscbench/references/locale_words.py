"""Payment category words in other languages: a small table of our own.

CLDR (and so Babel) names months, weekdays, currencies and territories, not kinds of
payment, and no maintained library holds these words, so this is data we keep:
for each τ-bench payment category, how French, Spanish, Portuguese, Italian, German,
Dutch and Russian write it, singular and plural. The operators' category patterns
(:mod:`sscbench.references.payment_mentions`) add them to the English words.

``WORDS[category][language]`` is (singular, plural) as written; ``PATTERNS`` is the
case-insensitive pattern of every form (accents optional, a space or a hyphen between
words, Russian endings of any case).
"""

from __future__ import annotations

import re

WORDS: dict[str, dict[str, tuple[str, str]]] = {
    "credit_card": {
        "fr": ("carte de crédit", "cartes de crédit"),
        "es": ("tarjeta de crédito", "tarjetas de crédito"),
        "pt": ("cartão de crédito", "cartões de crédito"),
        "it": ("carta di credito", "carte di credito"),
        "de": ("Kreditkarte", "Kreditkarten"),
        "nl": ("creditcard", "creditcards"),
        "ru": ("кредитная карта", "кредитные карты"),
    },
    "gift_card": {
        "fr": ("carte cadeau", "cartes cadeaux"),
        "es": ("tarjeta de regalo", "tarjetas de regalo"),
        "pt": ("cartão-presente", "cartões-presente"),
        "it": ("carta regalo", "carte regalo"),
        "de": ("Geschenkkarte", "Geschenkkarten"),
        "nl": ("cadeaukaart", "cadeaukaarten"),
        "ru": ("подарочная карта", "подарочные карты"),
    },
    "certificate": {
        "fr": ("certificat", "certificats"),
        "es": ("certificado", "certificados"),
        "pt": ("certificado", "certificados"),
        "it": ("certificato", "certificati"),
        "de": ("Gutschein", "Gutscheine"),
        "nl": ("tegoedbon", "tegoedbonnen"),
        "ru": ("сертификат", "сертификаты"),
    },
}

# forms written beside the table's: other spellings, and longer names of the same kind
_MORE = {
    "credit_card": [r"tarjetas? credito", r"carta credito"],
    "gift_card": [r"tarjetas? regalo", r"cart(?:ão|ões) de presente", r"cartes?-cadeaux?"],
    "certificate": [
        r"certificats? de voyage",
        r"bons? de voyage",
        r"certificados? de viaje",
        r"vales? de viaje",
        r"certificat[oi] di viaggio",
        r"buon[oi] viaggio",
        r"reisegutscheine?",
        r"zertifikate?",
        r"certificaten?",
    ],
}
_ACCENTS = {"é": "[ée]", "ã": "[ãa]", "õ": "[õo]", "-": "[ -]"}


def _form(written: str) -> str:
    """The pattern of one written form: accents optional, space or hyphen between words,
    a Russian word with any case ending."""
    words = []
    for word in written.lower().split():
        if re.fullmatch(r"[а-яё]+", word):
            words.append(re.escape(word.rstrip("аяыиеоуюйё")) + r"[а-яё]*")
        else:
            words.append("".join(_ACCENTS.get(c, re.escape(c)) for c in word))
    return r"[ -]".join(words)


def _patterns() -> dict[str, str]:
    out = {}
    for category, languages in WORDS.items():
        forms = {_form(w) for pair in languages.values() for w in pair} | set(_MORE[category])
        out[category] = "|".join(sorted(forms, key=len, reverse=True))
    return out


PATTERNS: dict[str, str] = _patterns()
# plural forms that do not end in "s" (the English test for a plural)
PLURAL = re.compile(
    r"^(?:tarjetas|cartes|cart(?:õ|o)es|carte (?:di|regalo)|кредитные|подарочные)\b"
    r"|(?:karten|kaarten|gutscheine|zertifikate|tegoedbonnen|certificaten|certificati|"
    r"сертификаты)$",
    re.IGNORECASE,
)


def is_plural(word: str) -> bool:
    """Whether a category word of another language is plural ("Kreditkarten",
    "tarjetas de crédito"): a plural names a kind, or several, not one method."""
    return bool(PLURAL.search(word))


# an amount's number as any locale groups it: "1,234.56", "1.234,56", "1 234,56",
# "1'234.56" (a group is three digits; one or two digits after the last mark are cents)
NUMBER = (
    r"\d{1,3}(?:[,.'’\u00a0\u202f ]\d{3})+(?:[.,]\d{1,2})?(?![\d,]*\d)"
    r"|\d+(?:[.,]\d{1,2})?(?![\d,]*\d)"
)
# currency words written after the number in other languages ("274,00 $", "90 dólares")
CURRENCY_AFTER = r"\$|€|USD|EUR|dollars?|d[óo]lares|dollari|долл\w*|euros?|евро"


def number_value(written: str) -> float:
    """The value of a number written with any locale's marks ("1.234,56" → 1234.56)."""
    digits = written
    cents = re.search(r"[.,](\d{1,2})$", digits)
    if cents:
        digits = digits[: cents.start()]
    whole = re.sub(r"\D", "", digits)
    return float(whole + "." + (cents.group(1) if cents else "0"))
