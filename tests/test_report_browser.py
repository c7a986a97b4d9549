"""The report in headless Chromium: every table and figure in the DOM, nothing overflows."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from sscbench.measure.study import measure_study
from sscbench.report.build import build_report
from sscbench.run.config import load_config
from sscbench.run.executor import execute_study

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
    "--window-size=1280,2400",
    "--virtual-time-budget=5000",
]

PROBE = """<script>
window.addEventListener('load', () => {
  const width = window.innerWidth;
  const outside = [...document.querySelectorAll('h1,h2,p,figure,img,.card,.wrap')]
    .filter(e => e.getBoundingClientRect().right > width + 1).length;
  const body = document.body;
  body.setAttribute('data-page-overflow', String(document.documentElement.scrollWidth > width + 1));
  body.setAttribute('data-outside', String(outside));
  body.setAttribute('data-images', String([...document.images].filter(i => i.naturalWidth > 0).length));
});
</script></body>"""


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def test_report_renders_in_chromium(tmp_path):
    browser = _chromium()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("CI must provide chromium (.ci/run installs Debian's package)")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    out = tmp_path / "study"
    config, text = load_config(None)
    execute_study(config, text, out, progress=False)
    measure_study(out)
    page = build_report(out)
    probed = tmp_path / "probed.html"
    probed.write_text(page.read_text().replace("</body>", PROBE))
    profile = [f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [browser, *FLAGS, *profile, "--dump-dom", probed.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    for table in ("funnel-table", "cell-table", "crossing-table"):
        assert f'id="{table}"' in dom
    for figure in ("funnel", "arrival", "adoption_forest", "gap"):
        assert f'id="fig-{figure}"' in dom
    attrs = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', dom))
    assert attrs.get("images") == "4", attrs
    assert attrs.get("page-overflow") == "false" and attrs.get("outside") == "0", attrs
    shot = tmp_path / "report.png"
    subprocess.run(
        [browser, *FLAGS, *profile, f"--screenshot={shot}", page.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert shot.stat().st_size > 10_000
    saved = out / "report-screenshot.png"
    shutil.copy(shot, saved)
