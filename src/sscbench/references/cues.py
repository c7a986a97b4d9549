"""Words that question or negate what a text states: a value checked ("let me verify",
"doesn't match", "seems odd") or denied ("not", "failed", "wrong"). The references find
them; what they mean for a use (verification, a correct use against v′, a statement of
unclear scope) is decided by the use rules above."""

from __future__ import annotations

import re

VERIFY_CUE = re.compile(
    r"\b(inconsisten\w*|contradict\w*|discrepan\w*|doesn'?t match|does not match|mismatch|"
    r"verify|double-check|re-?check|let me check|appears to|seems to|looks like an error|"
    r"is that correct|can you confirm|differs?|differ from|instead of|cannot be right|"
    r"can'?t be right|not possible|impossible|unusual|odd|strange|unexpected|suspicious|"
    r"(?:does not|doesn'?t|not) (?:look|seem) right|confirm (?:the |your )?(?:correct|right|actual))\b",
    re.IGNORECASE,
)
NEGATION_CUE = re.compile(
    r"\b(not|never|did not|didn'?t|no longer|wasn'?t|isn'?t|failed|could not|couldn'?t|"
    r"unable|incorrect|wrong)\b",
    re.IGNORECASE,
)
