"""Counting the objects of a type that a piece of code keeps alive, apart from those other
tests left alive before it began (the suite runs in one process: a session fixture or a
cache elsewhere may hold index entries of the same study)."""

from __future__ import annotations

import gc
from typing import Any


class NewObjects:
    """Live objects of ``kind`` made after this was created. Those alive before are held
    here, so none of their ids is reused by a new object."""

    def __init__(self, kind: type) -> None:
        gc.collect()
        self.kind = kind
        self._before: list[Any] = [o for o in gc.get_objects() if isinstance(o, kind)]
        self._known = {id(o) for o in self._before}

    def count(self) -> int:
        """How many objects of the kind are alive now that were not alive at the start."""
        return sum(isinstance(o, self.kind) and id(o) not in self._known for o in gc.get_objects())
