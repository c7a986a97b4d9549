"""The report in headless Chromium: sections in the DOM, links resolve, nothing wider than
the viewport, count links open the runs behind them, no word broken across lines and no
caveat sentence inside a cell; screenshots are saved.

Screenshots go to ``$SSCBENCH_ARTIFACTS/report-screenshots`` when that is set (CI keeps
them), else to the test's temporary folder.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html import unescape
from pathlib import Path
from urllib.parse import unquote

import pytest

from sscbench.analysis.effective import CAVEAT_TEXT, CLUSTERED_TEXT
from sscbench.report.build import build_report
from sscbench.report.sections import SECTION_IDS

WIDTH = 1280
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--hide-scrollbars",
    f"--window-size={WIDTH},2400",
    "--virtual-time-budget=5000",
]

PROBE = """<script>
window.addEventListener('load', () => {
  setTimeout(() => {
    const width = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')]
      .filter(e => e.getClientRects().length && e.getBoundingClientRect().right > width + 1)
      .map(e => e.tagName + (e.id ? '#' + e.id : ''));
    const body = document.body;
    body.setAttribute('data-page-overflow', String(document.documentElement.scrollWidth > width + 1));
    body.setAttribute('data-wide', wide.slice(0, 5).join(' ') || 'none');
    body.setAttribute('data-images', String([...document.images].filter(i => i.naturalWidth > 0).length));
    body.setAttribute('data-all-images', String(document.images.length));
  }, 50);
});
</script></body>"""


# Every word (a run of non-space text) whose glyphs sit on more than one line, found with
# Range.getClientRects per word and then per character for where it broke; each table's
# cells and the notes under it. The result goes into a <pre id="layout"> as JSON.
LAYOUT = """<script>
window.addEventListener('load', () => { setTimeout(() => {
  const out = {width: document.documentElement.clientWidth, words: 0, broken: [], cells: [], notes: []};
  const tops = (node, a, b) => {
    const r = document.createRange(); r.setStart(node, a); r.setEnd(node, b);
    return [...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top));
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    const p = node.parentElement;
    if (!p || p.closest('script, style, pre') || !p.getClientRects().length) continue;
    const re = /\\S+/g; let m;
    while ((m = re.exec(node.textContent))) {
      out.words++;
      if (new Set(tops(node, m.index, m.index + m[0].length)).size < 2) continue;
      let at = 0; const first = tops(node, m.index, m.index + 1)[0];
      while (at < m[0].length && (tops(node, m.index + at, m.index + at + 1)[0] ?? first) <= first + 2) at++;
      out.broken.push([m[0], at, !!p.closest('td, th')]);
    }
  }
  for (const t of document.querySelectorAll('table')) {
    const cells = [...t.querySelectorAll('td, th')].map(c => c.textContent);
    const wrap = t.closest('.wrap');
    const notes = wrap ? [...wrap.querySelectorAll('.table-note')].map(n => n.textContent) : [];
    out.cells.push([t.id, cells]); out.notes.push([t.id, notes]);
  }
  const pre = document.createElement('pre'); pre.id = 'layout';
  pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
}, 100); });
</script></body>"""
SENTENCES = [CLUSTERED_TEXT, *CAVEAT_TEXT.values()]
LONG_ID = 32  # a longer token (a run id, a platform string) may wrap after - _ ~ / .


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def browser() -> str:
    path = _chromium()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("CI must provide chromium (.ci/run installs Debian's package)")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    return path


@pytest.fixture(scope="module")
def page(default_study: Path) -> Path:
    return build_report(default_study)


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    root = os.environ.get("SSCBENCH_ARTIFACTS")
    folder = Path(root) / "report-screenshots" if root else tmp_path_factory.mktemp("shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _run(browser: str, profile: Path, *args: str) -> str:
    return subprocess.run(
        [browser, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout


def _probed(browser: str, profile: Path, path: Path, suffix: str = "") -> tuple[str, dict]:
    probed = path.with_name(f"probed-{path.name}")
    probed.write_text(path.read_text().replace("</body>", PROBE))
    dom = _run(browser, profile, "--dump-dom", probed.as_uri() + suffix)
    probed.unlink()
    return dom, dict(re.findall(r'data-([a-z-]+)="([^"]*)"', dom.split("<body", 1)[1][:2000]))


def test_report_page_in_chromium(browser, page, shots, tmp_path):
    dom, attrs = _probed(browser, tmp_path / "profile", page)
    shown = re.findall(r'<section id="([a-z-]+)" data-applies="true"', dom)
    skipped = re.findall(r'<span class="skipped" id="([a-z-]+)" data-applies="false">', dom)
    assert shown[0] == "headline" and sorted(shown[:-1] + skipped) == sorted(SECTION_IDS)
    for table in ("funnel-table", "arrival-table", "adoption-table", "reliance-table"):
        assert f'id="{table}"' in dom
    assert attrs["images"] == attrs["all-images"] == "5", (
        attrs
    )  # funnel, arrival, adoption, reliance, claims forest
    assert attrs["page-overflow"] == "false" and attrs["wide"] == "none", attrs
    # every link resolves to a file of the report folder (or an anchor of the page)
    hrefs = set(re.findall(r'href="([^"]+)"', dom))
    for href in hrefs:
        target, _, anchor = href.partition("#")
        if not target:
            assert f'id="{anchor}"' in dom, href
        else:
            assert (page.parent / unquote(target)).exists(), href
    shot = shots / "report.png"
    _run(browser, tmp_path / "profile", f"--screenshot={shot}", page.as_uri())
    assert shot.stat().st_size > 10_000


def test_count_links_open_their_runs_in_chromium(browser, page, shots, tmp_path):
    html = page.read_text()
    body = html.split('<section id="adoption"', 1)[1].split("</section>", 1)[0]
    number, count = re.findall(r'href="runs/index.html#set=(\d+)">(\d+)</a>', body)[0]
    index = page.parent / "runs" / "index.html"
    dom, attrs = _probed(browser, tmp_path / "profile", index, f"#set={number}")
    assert attrs["count"] == count, attrs
    assert attrs["page-overflow"] == "false" and attrs["wide"] == "none", attrs
    links = re.findall(r'<a href="([^"]+)" class="run-link">', dom)
    assert len(links) == int(count)
    run_page = index.parent / unquote(links[0])
    assert run_page.exists()
    run_dom, run_attrs = _probed(browser, tmp_path / "profile", run_page)
    assert 'id="ledger-table"' in run_dom and 'id="evaluator"' in run_dom
    assert "data-mark-at=" in run_dom
    for href in set(re.findall(r'href="([^"#]+)"', run_dom)):
        assert (run_page.parent / unquote(href)).exists(), href
    assert run_attrs["page-overflow"] == "false" and run_attrs["wide"] == "none", run_attrs
    _run(browser, tmp_path / "profile", f"--screenshot={shots / 'runs.png'}",
         index.as_uri() + f"#set={number}")  # fmt: skip
    _run(browser, tmp_path / "profile", f"--screenshot={shots / 'run.png'}", run_page.as_uri())
    assert (shots / "run.png").stat().st_size > 10_000


def _layout(browser: str, profile: Path, path: Path, width: int) -> dict:
    probed = path.with_name(f"layout-{path.name}")
    probed.write_text(path.read_text().replace("</body>", LAYOUT))
    dom = _run(browser, profile, f"--window-size={width},2400", "--dump-dom", probed.as_uri())
    probed.unlink()
    blob = re.search(r'<pre id="layout">(.*?)</pre>', dom, re.S)
    assert blob, "the layout probe did not run"
    return json.loads(unescape(blob.group(1)))


@pytest.mark.parametrize("width", [WIDTH, 1000])
def test_no_word_breaks_and_caveats_once_under_tables(browser, page, tmp_path, width):
    """No word wraps inside itself (a header mid-word; in a cell an interval at its dash
    or a name at its hyphen; prose may break after a hyphen); no cell holds a caveat sentence, each sentence is under its table at most
    once, and every ⚠ marker in a table has its sentence there."""
    layout = _layout(browser, tmp_path / "profile", page, width)
    assert layout["words"] > 1000 and abs(layout["width"] - width) < 30, layout["width"]
    broken = [  # in a cell nothing shorter than a long id breaks; prose after a hyphen
        (word, at)
        for word, at, in_cell in layout["broken"]
        if at == 0
        or word[at - 1] not in "-_~/."
        or (in_cell and len(word) <= LONG_ID)
        or (not in_cell and word[at - 1] != "-" and len(word) <= LONG_ID)
    ]
    assert broken == [], broken[:10]
    notes = dict(layout["notes"])
    marked_tables = 0
    for table, cells in layout["cells"]:
        for cell in cells:
            assert not [s for s in SENTENCES if s[:40] in cell], (table, cell[:80])
        for sentence in SENTENCES:
            assert sum(sentence in n for n in notes[table]) <= 1, (table, sentence[:40])
        for key, sentence in CAVEAT_TEXT.items():
            if any(f"⚠ {key}" in c or (f", {key}" in c and "⚠" in c) for c in cells):
                marked_tables += 1
                assert any(sentence in n for n in notes[table]), (table, key)
    assert marked_tables  # the default study's pooled cells carry caveats


def test_a_large_studys_run_list_holds_the_runs_with_a_page(
    browser, default_study, tmp_path, monkeypatch
):
    # a study above LIST_ALL_UP_TO runs (here 3) lists only its sampled runs (here at most
    # 5 pages), and a count link says how many runs it stands for and how many are listed
    from sscbench.report import run_sample, runs

    study = tmp_path / "study"
    shutil.copytree(default_study, study, ignore=shutil.ignore_patterns("report"))
    monkeypatch.setattr(runs, "LIST_ALL_UP_TO", 3)
    monkeypatch.setattr(run_sample, "SAMPLE_CAP", 5)
    page = build_report(study, run_pages="sample")
    index = page.parent / "runs" / "index.html"
    data = json.loads(re.search(r'id="run-data">(.*?)</script>', index.read_text(), re.S).group(1))
    pages = [p for p in index.parent.glob("*.html") if not p.name.startswith(("index", "system-"))]
    assert data["total"] > len(data["runs"]) == len(pages)  # the sample, each with a page
    assert all(data["rendered"]) and len(data["set_sizes"]) == len(data["sets"])
    body = page.read_text().split('<section id="adoption"', 1)[1]
    number, count = re.findall(r'href="runs/index.html#set=(\d+)">(\d+)</a>', body)[0]
    assert data["set_sizes"][int(number)] == int(count)
    dom = _run(browser, tmp_path / "profile", "--dump-dom", index.as_uri() + f"#set={number}")
    selection = unescape(re.search(r'<p id="selection">(.*?)</p>', dom).group(1))
    held = len(data["sets"][int(number)])
    assert selection.startswith(f"The {count} runs behind the count you followed")
    if held < int(count):
        assert f"; {held} of them listed here (the runs with a page;" in selection
    assert selection.endswith(f"; {held} shown.")
    everything = _run(browser, tmp_path / "profile", "--dump-dom", index.as_uri())
    whole = unescape(re.search(r'<p id="selection">(.*?)</p>', everything).group(1))
    assert whole.startswith(f"All {data['total']} runs; {len(data['runs'])} of them listed")
