"""Metamorphic tests generated from τ-bench's retail catalogue: every option of every
variant of every product, written the ways agents write option values (the catalogue's
form, other cases, units and symbols, conversions, spellings, a size letter as its
word, a qualifier dropped) into the ways agents write item lines (options before the
id, a slash list, a short product word with the options after it, ``key: value``, a
colour word before the product). The reader must bind each to the ordered item and
read the value it stands for — and must not read a variant menu as the item's own.

The written forms here are rendered by this module's own rules, independently of
:mod:`sscbench.references.item_forms`: the test checks the reader against how text is
written, not the generator against itself.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sscbench.faults.operators.item_variants import one_option_neighbours
from sscbench.references.item_forms import catalogue_forms, product_words
from sscbench.references.item_lines import OrderItem
from sscbench.references.items import item_references
from sscbench.world.load import load_world
from test_item_error_classes import measure, scenario

PRODUCTS = sorted(
    load_world("tau-bench", "retail").base.tables["products"].values(), key=lambda p: p["name"]
)
# a second item of the order, of another product (the reader must tell them apart)
OTHERS = [next(p for p in PRODUCTS if p["name"] == n) for n in ("Water Bottle", "Yoga Mat")]


def _values(product: dict) -> dict[str, list[str]]:
    out: dict[str, set[str]] = {}
    for v in product["variants"].values():
        for k, x in v["options"].items():
            out.setdefault(k, set()).add(x)
    return {k: sorted(v, key=len, reverse=True) for k, v in out.items()}


# ---- how agents write one value (this module's own rules) ------------------------------


def _unit_swap(value: str) -> str | None:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*-?\s*(inch|inches)", value)
    return f'{m.group(1)}"' if m else None


def _liters(value: str) -> str | None:
    m = re.fullmatch(r"(\d+)ml", value)
    return f"{int(m.group(1)) / 1000:g} L" if m and int(m.group(1)) >= 500 else None


def _millilitres(value: str) -> str | None:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(?:L|liters?)", value)
    return f"{float(m.group(1)) * 1000:g} ml" if m else None


def _spaced(value: str) -> str | None:
    out = re.sub(r"(?<=\d)(?=[A-Za-z])", " ", value)
    return out if out != value else None


def _joined(value: str) -> str | None:
    out = re.sub(r"(?<=\d) (?=[A-Za-z])", "", value)
    return out if out != value else None


def _spelling(value: str) -> str | None:
    out = value.replace("grey", "gray")
    return out if out != value else None


def _hyphenated(value: str) -> str | None:
    out = value.replace(" ", "-") if re.fullmatch(r"[a-z]+ [a-z]+", value) else value
    out = out.replace("-", " ") if re.fullmatch(r"[a-z]+-[a-z]+", value) else out
    return out if out != value else None


def _bare(value: str) -> str | None:
    m = re.fullmatch(r"(\d+\s*[A-Za-z]+) (SSD|equivalent)", value)
    return m.group(1) if m else None


def _size_word(value: str, key: str) -> str | None:
    words = {"S": "small", "M": "medium", "L": "large", "XL": "extra large"}
    return words.get(value) if key == "size" else None


STYLES = {
    "as catalogued": lambda v, k: v,
    "upper case": lambda v, k: v.upper() if v.upper() != v else None,
    "title case": lambda v, k: v.title() if v.title() != v else None,
    "inch symbol": lambda v, k: _unit_swap(v),
    "in litres": lambda v, k: _liters(v),
    "in millilitres": lambda v, k: _millilitres(v),
    "number and unit spaced": lambda v, k: _spaced(v),
    "number and unit joined": lambda v, k: _joined(v),
    "other spelling": lambda v, k: _spelling(v),
    "hyphen or space": lambda v, k: _hyphenated(v),
    "qualifier dropped": lambda v, k: _bare(v),
    "size as a word": _size_word,
}


def _norm(text: str) -> str:
    return re.sub(r"[\s_-]+", "", text.lower())


def written(value: str, key: str, values: list[str], style: str) -> str | None:
    """``value`` in ``style``, or None when the style does not apply or the result is
    also a form of another value of the option (then it names neither)."""
    form = STYLES[style](value, key)
    if form is None:
        return None
    for other in values:
        if other != value and any(
            _norm(f or "") == _norm(form) for f in (s(other, key) for s in STYLES.values())
        ):
            return None
    return form


# ---- how agents write an item line ------------------------------------------------------


def _display(name, word, iid, opts):
    return f"{name} ({', '.join(opts.values())}) — Item ID {iid}"


def _slash(name, word, iid, opts):
    return f"- Item {iid}: {name}, {' / '.join(reversed(opts.values()))}"


def _short_word(name, word, iid, opts):
    return f"Your current {word} ({', '.join(opts.values())}) can be exchanged."


def _key_value(name, word, iid, opts):
    return f"Your {name} (item {iid}) has " + ", ".join(f"{k}: {v}" for k, v in opts.items())


TEMPLATES = {"display": _display, "slash": _slash, "short word": _short_word, "key": _key_value}


def _order(product: dict, item_id: str) -> list[OrderItem]:
    mine = product["variants"][item_id]["options"]
    distractor = OTHERS[0] if product is not OTHERS[0] else OTHERS[1]
    variant = next(iter(distractor["variants"].values()))
    other = OrderItem(variant["item_id"], distractor["name"], variant["options"], 1)
    return [OrderItem(item_id, product["name"], mine, 0), other]


def _reads(product: dict, item_id: str, key: str, form: str, template: str) -> bool:
    """True when the line written with ``form`` for ``key`` binds to the item and reads
    the item's value of ``key``."""
    options = dict(product["variants"][item_id]["options"])
    value = options[key]
    words = product_words(product["name"]) or (product["name"],)
    line = TEMPLATES[template](product["name"], words[0], item_id, {**options, key: form})
    refs = item_references(line, _order(product, item_id), _values(product))
    said = {(s.key, s.value) for r in refs if r.target == item_id for s in r.said}
    return (key, value) in said


CASES = [
    (p, iid, key)
    for p in PRODUCTS
    for iid in sorted(p["variants"])
    for key in p["variants"][iid]["options"]
]


def test_every_option_of_every_variant_in_a_display_line_and_another_line():
    """Every option of every variant (the whole catalogue), as catalogued, in a display
    line with its options before the id and in one other item line (rotating)."""
    misses = []
    others = [t for t in TEMPLATES if t != "display"]
    for n, (product, iid, key) in enumerate(CASES):
        value = product["variants"][iid]["options"][key]
        for template in ("display", others[n % len(others)]):
            if not _reads(product, iid, key, value, template):
                misses.append((product["name"], iid, key, value, template))
    assert not misses, misses[:20]
    assert len(CASES) > 1500  # the whole catalogue, not a sample


STYLED = [
    (p, iid, key, style)
    for p, iid, key in CASES
    for style in STYLES
    if style != "as catalogued"
    and written(p["variants"][iid]["options"][key], key, _values(p)[key], style) is not None
]


def test_every_value_has_a_written_form_and_units_are_covered():
    styles = {s for *_, s in STYLED}
    assert {"inch symbol", "in litres", "number and unit spaced", "size as a word"} <= styles


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(STYLED), template=st.sampled_from(sorted(TEMPLATES)))
def test_a_value_in_any_written_form_binds_and_reads(case, template):
    product, iid, key, style = case
    value = product["variants"][iid]["options"][key]
    form = written(value, key, _values(product)[key], style)
    assert form is not None
    assert _reads(product, iid, key, form, template), (product["name"], key, value, form)


@pytest.mark.parametrize("style", sorted(STYLES))
def test_each_style_reads_on_every_value_it_applies_to(style):
    """Each written form, exhaustively over the catalogue, in the display line."""
    misses = [
        (p["name"], key, p["variants"][iid]["options"][key])
        for p, iid, key, s in STYLED
        if s == style
        and not _reads(
            p,
            iid,
            key,
            written(p["variants"][iid]["options"][key], key, _values(p)[key], s) or "",
            "display",
        )
    ]
    assert not misses, misses[:20]


# ---- a variant menu is not the item's own option ------------------------------------------

MENUS = [
    (p, iid, key)
    for p, iid, key in CASES
    if len(_values(p)[key]) >= 3 and iid == sorted(p["variants"])[0]
]
MENU_LINES = [
    "The {name} (item {iid}) is also available in {a}, {b} and {c}.",
    "Your {name} (item {iid}) comes in {a}, {b} or {c}.",
    "{name} (item {iid}) — available {key} options: {a} / {b} / {c}",
]


@pytest.mark.parametrize("line", MENU_LINES)
def test_a_one_line_menu_of_variants_states_no_option_of_the_item(line):
    misses = []
    for product, iid, key in MENUS:
        a, b, c = _values(product)[key][:3]
        text = line.format(name=product["name"], iid=iid, key=key, a=a, b=b, c=c)
        refs = item_references(text, _order(product, iid), _values(product))
        said = [s for r in refs if r.target == iid for s in r.said if s.key == key]
        if any(s.role == "current" for s in said):
            misses.append(text)
    assert len(MENUS) > 40 and not misses, misses[:10]


def test_catalogue_forms_lists_every_option_of_a_product():
    """The public helper: every option of every variant, each value among its forms."""
    for product in PRODUCTS:
        forms = catalogue_forms(product)
        for k, values in _values(product).items():
            assert set(values) == set(forms[k])
            assert all(forms[k][v][0] == v for v in values)


# ---- end to end: the measurement of a faulted order, over the catalogue ----------------

FAULTS = [
    (p["name"], iid, key)
    for p in PRODUCTS
    for iid in sorted(p["variants"])[:3]
    for key in sorted({n[1] for n in one_option_neighbours(p, iid)})
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fault=st.sampled_from(FAULTS), style=st.sampled_from(sorted(STYLES)), data=st.data())
def test_a_display_line_of_the_faulted_item_is_measured_in_any_form(fault, style, data):
    """A faulted order item (any product, any option with a one-option neighbour) named
    in a display line with the shown value v′ in a written form: reliance at that step;
    with the true value v in a written form: a use that states v."""
    name, iid, key = fault
    sc = scenario(name, key, iid)
    values = _values(sc.product)[key]
    shown = data.draw(st.sampled_from([sc.injected, sc.true]), label="value")
    form = written(shown, key, values, style) or shown
    options = {**sc.product["variants"][iid]["options"], key: form}
    line = f"Here is your order:\n- {_display(name, '', iid, options)}\nShall I go on?"
    m, (step,) = measure(sc, line)
    assert step == m.T_S
    assert (m.A, m.Y_end) == ((1, "endorses") if shown == sc.injected else (0, "rejects"))
