"""The user docs stay current with the code they describe.

`docs/architecture.md` is the map of `src/sscbench/`: every module must appear in it and
every module its package tables list must exist. `docs/reading-the-report.md` lists the
report's sections in the order `report/build.py` writes them.
"""

from __future__ import annotations

import re
from pathlib import Path

from sscbench.report.sections import SECTION_IDS

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "sscbench"
DOCS = ROOT / "docs"


def package_sections(doc: str) -> dict[str, str]:
    """Each package's part of the architecture page, by the `pkg/` its heading names."""
    parts: dict[str, str] = {}
    for section in re.split(r"\n## ", doc):
        heading = section.split("\n", 1)[0]
        for package in re.findall(r"`([a-z_]+)/`", heading):
            parts[package] = parts.get(package, "") + section
    return parts


def named_in_folder(rel: Path, text: str) -> bool:
    """A sub-package's module named by its stem beside its folder (`scripted/` ...
    `profiles`, `operators/{return_date,...}.py`)."""
    if len(rel.parts) < 3 or f"{rel.parts[-2]}/" not in text:
        return False
    stem = rel.stem
    return bool(re.search(rf"`{stem}(\.py)?`|[{{,]{stem}[,}}]", text))


def unmapped_modules(doc: str) -> list[str]:
    """Modules of src/sscbench the architecture page never names."""
    parts = package_sections(doc)
    missing = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        if rel.name == "__init__.py":
            continue
        if rel.as_posix() in doc:
            continue
        if len(rel.parts) == 1:
            if f"`{rel.name}`" not in doc:
                missing.append(rel.as_posix())
            continue
        text = parts.get(rel.parts[0], "")
        if Path(*rel.parts[1:]).as_posix() not in text and not named_in_folder(rel, text):
            missing.append(rel.as_posix())
    return missing


def test_architecture_names_every_module():
    doc = (DOCS / "architecture.md").read_text("utf-8")
    assert unmapped_modules(doc) == []


def test_unmapped_module_is_found():
    doc = (DOCS / "architecture.md").read_text("utf-8")
    without = doc.replace("`context.py`", "`gone.py`")
    assert "report/context.py" in unmapped_modules(without)


def test_architecture_tables_list_only_existing_modules():
    doc = (DOCS / "architecture.md").read_text("utf-8")
    stale = []
    for package, text in package_sections(doc).items():
        for row in re.findall(r"^\| (`[^|]+`) \|", text, flags=re.MULTILINE):
            for name in re.findall(r"`([\w/{},]+\.py)`", row):
                if "{" in name:
                    continue
                if not (SRC / package / name).exists() and not (SRC / name).exists():
                    stale.append(f"{package}/{name}")
    assert stale == []


def test_reading_the_report_lists_sections_in_build_order():
    doc = (DOCS / "reading-the-report.md").read_text("utf-8")
    table = doc.split("## Sections", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([a-z-]+)` \|", table, flags=re.MULTILINE)
    assert ["headline", *listed] == list(SECTION_IDS)
