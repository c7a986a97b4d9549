"""Size parameters of a generated world."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class GeneratedSize:
    """How much a generated world holds; every field is a count.

    The airline world uses ``users``, ``airports``, ``routes`` and ``reservations``;
    the retail world uses ``users``, ``products`` and ``orders``. Both make
    ``tasks_per_kind`` tasks of each intent kind of their domain.
    """

    users: int = 200
    airports: int = 20
    routes: int = 40
    reservations: int = 500
    products: int = 30
    orders: int = 500
    tasks_per_kind: int = 6

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(
                    f"GeneratedSize.{f.name} must be a positive integer, got {value!r}"
                )
        if not 3 <= self.airports <= 20:
            raise ValueError(
                f"GeneratedSize.airports must be between 3 and 20, got {self.airports}"
            )
        if self.routes < self.airports - 1:
            raise ValueError(
                f"GeneratedSize.routes must be at least airports - 1 ({self.airports - 1}) "
                f"to connect every airport, got {self.routes}"
            )
