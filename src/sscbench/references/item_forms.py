"""Every written form of a product's option values, derived from the values themselves.

Agents do not copy a catalogue's option values: they write ``15-inch`` as ``15"``,
``15″``, ``15 in`` or ``15 inch``; ``500ml`` as ``500 ml`` or ``0.5 L``; ``128GB`` as
``128 gb``; ``512GB SSD`` as ``512 GB``; ``grey`` as ``gray``; size ``M`` as
``medium``; ``waterproof: yes`` as ``waterproof``. The forms here are generated from a
value's parts (a number, a unit, a trailing qualifier word, a colour or size word) by
general rules — a unit's spellings and conversions, spelling variants, a qualifier
dropped — never from phrasings seen in some corpus. Spacing, case and hyphenation are
left to the matcher (:func:`sscbench.references.item_lines.value_pattern` joins a value's
parts by any spacing or hyphen, ignoring case).

A form that another value of the same option also has (``L`` as ``large`` where the
option has ``large`` too) names neither: :func:`option_forms` keeps only the forms
that are one value's. :func:`product_words` gives the short words a product is called
by ("helmet" for a Cycling Helmet, "vacuum" for a Vacuum Cleaner).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

__all__ = ["catalogue_forms", "option_forms", "product_words", "written_forms"]

# unit spellings, by the unit's canonical lower-case token
_UNITS: dict[str, tuple[str, ...]] = {
    "inch": ("inch", "inches", "in", '"', "″", "”", "''"),
    "inches": ("inch", "inches", "in", '"', "″", "”", "''"),
    "ft": ("ft", "feet", "foot", "'", "′", "’"),
    "gb": ("GB", "gigabyte", "gigabytes", "gig"),
    "tb": ("TB", "terabyte", "terabytes"),
    "mb": ("MB", "megabyte", "megabytes"),
    "ml": ("ml", "mL", "milliliter", "milliliters", "millilitre", "millilitres"),
    "l": ("L", "liter", "liters", "litre", "litres", "ltr"),
    "liter": ("L", "liter", "liters", "litre", "litres", "ltr"),
    "liters": ("L", "liter", "liters", "litre", "litres", "ltr"),
    "hours": ("hours", "hour", "hrs", "hr", "h"),
    "hour": ("hours", "hour", "hrs", "hr", "h"),
    "mah": ("mAh", "mah"),
    "mp": ("MP", "megapixel", "megapixels"),
    "degrees": ("degrees", "degree", "°", "deg"),
    "lbs": ("lbs", "lb", "pounds", "pound"),
    "mm": ("mm", "millimeter", "millimeters", "millimetre", "millimetres"),
    "w": ("W", "watt", "watts"),
    "cups": ("cups", "cup"),
    "cup": ("cups", "cup"),
    "bar": ("bar", "bars"),
    "%": ("%", "percent", " per cent"),
    "x": ("x", "×", "X"),
}
# a unit and the factor to another unit written for the same quantity
_CONVERSIONS: dict[str, tuple[str, float]] = {
    "ml": ("l", 0.001),
    "l": ("ml", 1000.0),
    "liter": ("ml", 1000.0),
    "liters": ("ml", 1000.0),
    "tb": ("gb", 1000.0),
}
# spelling variants of a word (both ways)
_SPELLINGS = {"grey": "gray", "gray": "grey", "colour": "color", "color": "colour"}
# letter sizes and the words for them
_SIZES = {
    "xs": ("extra small", "extra-small", "x-small"),
    "s": ("small",),
    "m": ("medium",),
    "l": ("large",),
    "xl": ("extra large", "extra-large", "x-large"),
    "xxl": ("2xl", "xx-large", "double extra large", "2x-large"),
}
_MEASURE = re.compile(
    r"^(?P<lo>\d+(?:[.,]\d+)?)(?:\s*[-–]\s*(?P<hi>\d+(?:[.,]\d+)?))?\s*-?\s*"
    r"(?P<unit>[A-Za-z%]+|[\"″”'′’°×])(?:\s+(?P<rest>[A-Za-z][\w -]*))?$"
)


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _numbers(value: float) -> list[str]:
    """A number as written: ``1000`` / ``1,000`` / ``1k``; ``0.5`` / ``.5``."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    out = [text]
    if value >= 1000 and value == int(value):
        out.append(f"{int(value):,}")
        if value % 1000 == 0:
            out.append(f"{int(value) // 1000}k")
    if text.startswith("0."):
        out.append(text[1:])
    return out


def _measure_forms(value: str) -> list[str]:
    """The forms of a measure ("15-inch", "500ml", "30-50 lbs", "512GB SSD", "10x")."""
    m = _MEASURE.match(value.strip())
    if m is None or m.group("unit").lower() not in _UNITS:
        return []
    unit = m.group("unit").lower()
    rest = m.group("rest")
    lo, hi = m.group("lo"), m.group("hi")
    first = _numbers(_number(lo)) if "," in lo or "." not in lo else [lo]
    quantities = [(first, hi, _UNITS[unit])]
    if unit in _CONVERSIONS and hi is None:
        other, factor = _CONVERSIONS[unit]
        converted = _number(lo) * factor
        if converted >= 0.1:
            quantities.append((_numbers(converted), None, _UNITS[other]))
    out: list[str] = []
    for numbers, upper, spellings in quantities:
        for n in numbers:
            amount = f"{n} to {upper}" if upper else n
            for u in spellings:
                # spacing and hyphens between a number and a word unit are the
                # matcher's (value_pattern): "15 inch" reads "15inch" and "15-inch"
                form = f"{amount}{u}" if not u[0].isalpha() else f"{amount} {u}"
                out.append(form)
                if rest:
                    out.append(f"{form} {rest}")
        if upper:
            out.append(f"{lo}-{upper} {spellings[0]}")
    return out


def _word_forms(value: str, key: str) -> list[str]:
    """Spelling variants, letter sizes as words, a yes/no option as its name."""
    words = value.split()
    out = []
    if any(w.lower() in _SPELLINGS for w in words):
        out.append(" ".join(_SPELLINGS.get(w.lower(), w) for w in words))
    if key.lower() == "size" and value.lower() in _SIZES:
        out += list(_SIZES[value.lower()])
    name = key.strip()
    if value.lower() in ("yes", "true") and name:
        out += [name, f"{name}: yes"]
    elif value.lower() in ("no", "false", "not resistant") and name:
        out += [f"not {name}", f"non-{name}", f"no {name}", f"{name}: no"]
    return out


@lru_cache(maxsize=8192)
def written_forms(value: str, key: str = "") -> tuple[str, ...]:
    """Every written form of one option value (the value first): unit spellings and
    symbols, conversions (500ml ~ 0.5 L), thousands separators, a trailing qualifier
    dropped (512GB SSD ~ 512GB), spelling variants (grey ~ gray), a letter size as
    its word (M ~ medium), and a yes/no option as its name (waterproof)."""
    out = [value, *_measure_forms(value), *_word_forms(value, key)]
    seen: set[str] = set()
    unique = []
    for form in out:
        norm = _norm(form)
        if norm and norm not in seen:
            seen.add(norm)
            unique.append(form)
    return tuple(unique)


def _norm(form: str) -> str:
    return re.sub(r"[\s_\-\u2010-\u2015]+", "", form.lower())


def option_forms(key: str, values: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """value -> its written forms, for the values one option takes: a form that two
    values share (or that is another value as written) belongs to neither."""
    values = list(dict.fromkeys(values))
    forms = {v: written_forms(v, key) for v in values}
    owners: dict[str, set[str]] = {}
    for v, fs in forms.items():
        for f in fs:
            owners.setdefault(_norm(f), set()).add(v)
    own = {_norm(v): v for v in values}
    return {
        v: tuple(
            f
            for i, f in enumerate(fs)
            if i == 0 or (owners[_norm(f)] == {v} and own.get(_norm(f), v) == v)
        )
        for v, fs in forms.items()
    }


def catalogue_forms(product: Mapping[str, object]) -> dict[str, dict[str, tuple[str, ...]]]:
    """option key -> value -> written forms, for every option of a product record's
    variants (``get_product_details`` as delivered). A plain helper for any reader
    that needs to know what text spells a product's values."""
    by_key: dict[str, list[str]] = {}
    variants = product.get("variants") or {}
    for variant in variants.values() if isinstance(variants, Mapping) else []:
        options = variant.get("options") if isinstance(variant, Mapping) else None
        for k, v in (options or {}).items():
            by_key.setdefault(str(k), []).append(str(v))
    return {k: option_forms(k, vs) for k, vs in by_key.items()}


# adjectives that open a product name but do not name the product ("Smart Watch" is a
# watch, not a "smart"); a first word is a product word only when it names a thing
_MODIFIER = re.compile(
    r"(?:smart|indoor|outdoor|portable|wireless|electric|digital|mechanical|running|hiking|"
    r"cycling|action|office|gaming|garden|patio|bluetooth|led|fleece|wall|desk|yoga|pet|"
    r"air|tea|coffee|espresso|makeup|jigsaw|water|e)",
    re.I,
)


def product_words(name: str) -> tuple[str, ...]:
    """The short words a product is called by: its head noun (the last word: "helmet"
    for "Cycling Helmet"), singular too ("shoe" for "Running Shoes"), and a first word
    that names the thing itself when the head is generic ("vacuum" for "Vacuum
    Cleaner", "luggage" for "Luggage Set"). Words under four letters name nothing."""
    words = re.findall(r"[^\W_]+", name)
    if len(words) < 2:
        return ()
    out = []
    head = words[-1].lower()
    if len(head) >= 4:
        out.append(head)
        if head.endswith("s") and not head.endswith("ss"):
            out.append(head[:-1])
    first = words[0].lower()
    if len(words) == 2 and len(first) >= 5 and not _MODIFIER.fullmatch(first):
        out.append(first)
    return tuple(out)


@lru_cache(maxsize=4096)
def _option_forms_cached(key: str, values: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    return option_forms(key, values)


def values_written(values: Mapping[str, Sequence[str]]) -> dict[str, dict[str, tuple[str, ...]]]:
    """key -> value -> written forms for the values a reader looks for (cached)."""
    return {k: _option_forms_cached(k, tuple(vs)) for k, vs in values.items()}
