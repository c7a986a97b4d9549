"""Refuse a study whose ``[cases] operators`` name an operator of no study domain.

(Only a list the study gives: the default list, left out of the TOML, keeps its
operators of other domains, which plan nothing and are counted by
:mod:`sscbench.run.plan_caps`.)

An SSCBench operator (ReturnDate, PaySource, WriteEffect: airline; ItemOption: retail)
makes cases in one domain only. Listed for a world without that domain it would plan
nothing, silently; the study is refused instead, naming the operators and the domains.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sscbench.errors import DataError


def operator_domains(names: Iterable[str]) -> dict[str, str]:
    """Each named operator that makes cases in one domain only, with that domain
    (typed families and plugins without a ``domain`` apply to every world)."""
    from sscbench.faults.registry import get_operator

    out: dict[str, str] = {}
    for name in names:
        try:
            domain = getattr(get_operator(name), "domain", None)
        except KeyError:
            continue  # unknown names are refused by the config's own validation
        if isinstance(domain, str):
            out[name] = domain
    return out


def foreign_operators(operators: Iterable[str], domains: Iterable[str]) -> dict[str, str]:
    """The operators (with their domain) that apply to none of ``domains``."""
    wanted = set(domains)
    return {n: d for n, d in operator_domains(operators).items() if d not in wanted}


def check_operator_domains(
    operators: Sequence[str], domains: Sequence[str], path: object, cases_file: str | None
) -> None:
    """Raise DataError naming each operator that applies to none of the study's domains
    (nothing is planned for it); a study reading a cases file plans no operators."""
    if cases_file:
        return
    foreign = foreign_operators(operators, domains)
    if not foreign:
        return
    by_domain: dict[str, list[str]] = {}
    for name, domain in foreign.items():
        by_domain.setdefault(domain, []).append(name)
    named = "; ".join(
        f"{', '.join(names)} appl{'ies' if len(names) == 1 else 'y'} only to {d}"
        for d, names in by_domain.items()
    )
    raise DataError(
        str(path),
        "cases.operators",
        f"{named}, which is not among the study's domains ({', '.join(domains)}; "
        "world.domains): they would plan no case. Remove them, or add their domain",
    )


def narrow_operators(operators: list[str], domains: list[str]) -> list[str]:
    """``operators`` without those of no domain in ``domains`` (``--world DOMAIN``
    without ``--operators`` keeps the study's operators that fit the domain)."""
    foreign = foreign_operators(operators, domains)
    return [name for name in operators if name not in foreign]
