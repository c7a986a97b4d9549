"""A reviewer's page in headless Chromium (Selenium + Debian's chromedriver): fill the form
from ``file://``, reload (progress survives in localStorage), export, and the downloaded
labels file round-trips through ``sscbench review agree``.

Skipped with a reason when selenium, chromium or chromedriver is missing (``.ci/run``
installs them). Selenium Manager is never used: the driver and the browser are given.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from review_round import build_generated_study

DRIVER = Path("/usr/bin/chromedriver")
FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _browser_or_skip():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed (Debian package chromium)")
    if not DRIVER.exists():
        pytest.skip("chromedriver is not installed (Debian package chromium-driver)")
    return webdriver, chromium


@pytest.fixture(scope="module")
def review(tmp_path_factory):
    from sscbench.review.plan import plan_review

    root = tmp_path_factory.mktemp("browser")
    study = build_generated_study(root / "study")
    plan = plan_review(
        study,
        root / "review",
        reviewers=["A", "B"],
        runs=3,
        calibration=1,
        seed=2,
        key=root / "key.json",
    )
    return root, plan


@pytest.fixture
def driver(review, tmp_path):
    webdriver, chromium = _browser_or_skip()
    from selenium.webdriver.chrome.service import Service

    downloads = tmp_path / "downloads"
    downloads.mkdir()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_experimental_option(
        "prefs",
        {"download.default_directory": str(downloads), "download.prompt_for_download": False},
    )
    browser = webdriver.Chrome(service=Service(executable_path=str(DRIVER)), options=options)
    browser.execute_cdp_cmd(
        "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)}
    )
    browser.downloads = downloads
    yield browser
    browser.quit()


def _wait_for(path: Path, seconds: float = 20) -> Path:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and path.stat().st_size > 0:
            return path
        time.sleep(0.1)
    raise AssertionError(f"no download at {path}")


def _click(browser, element_id: str) -> None:
    from selenium.webdriver.common.by import By

    element = browser.find_element(By.ID, element_id)
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()


def _fill(browser, review_id: str, step: int) -> None:
    from selenium.webdriver.common.by import By

    def click(suffix: str) -> None:
        element = browser.find_element(By.ID, f"{review_id}-{suffix}")
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
        element.click()

    click("T_E-inf")
    browser.find_element(By.ID, f"{review_id}-T_S-n").send_keys(str(step))  # picks "step"
    click("T_U-undecidable")
    click("A-true")
    click("Y_end-endorses")
    browser.find_element(By.ID, f"{review_id}-note").send_keys(f"note <b>{review_id}</b>")


def test_page_fills_survives_reload_exports_and_round_trips(review, driver):
    from selenium.webdriver.common.by import By
    from typer.testing import CliRunner

    from sscbench.cli import app
    from sscbench.review.case_labels import read_case_labels
    from sscbench.review.labels import read_labels

    root, plan = review
    page = root / "review" / "review-A.html"
    assert "http" not in page.read_text().replace("http-equiv", "")  # no external asset
    driver.get(page.as_uri())
    order = plan.order()
    assert order[0] == plan.calibration[0]  # calibration first
    for number, review_id in enumerate(order):
        _fill(driver, review_id, 4 + number)
    first_case = next(iter(plan.cases))
    driver.find_element(By.ID, f"{first_case}-task_relevance-no").click()

    # T_U "not applicable" is offered only once A is answered "not adopted", and chosen
    last = order[-1]
    na = driver.find_element(By.ID, f"{last}-T_U-not-applicable")
    assert not na.is_displayed()
    driver.execute_script(  # T_U not answered yet on this run
        "document.getElementById(arguments[0]).checked = false;", f"{last}-T_U-undecidable"
    )
    _click(driver, f"{last}-A-false")
    assert na.is_displayed() and na.is_selected()
    _click(driver, f"{last}-A-true")  # back to adopted: n/a withdrawn
    assert not na.is_displayed() and not na.is_selected()
    _click(driver, f"{last}-A-false")
    assert na.is_selected()

    driver.refresh()  # progress survives in localStorage
    progress = driver.find_element(By.ID, "progress").text
    assert progress == f"{len(order)} of {len(order)} runs fully labelled"
    assert driver.find_element(By.ID, f"{order[1]}-T_S-step").is_selected()
    assert driver.find_element(By.ID, f"{order[1]}-T_S-n").get_attribute("value") == "5"
    assert driver.find_element(By.ID, f"{first_case}-task_relevance-no").is_selected()
    restored = driver.find_element(By.ID, f"{last}-T_U-not-applicable")
    assert restored.is_displayed() and restored.is_selected()
    assert not driver.find_element(By.ID, f"{order[0]}-T_U-not-applicable").is_displayed()

    driver.find_element(By.ID, "export").click()
    exported = _wait_for(driver.downloads / "A.jsonl")
    labels = read_labels(exported)
    assert [lab.review_id for lab in labels] == order
    for number, lab in enumerate(labels):
        adopted = lab.review_id != last
        assert lab.reviewer == "A"
        assert lab.labelled() == {
            "T_E": "inf",
            "T_S": 4 + number,
            "T_U": "undecidable" if adopted else "not-applicable",
            "A": adopted,
            "Y_end": "endorses",
        }
        assert lab.note == f"note <b>{lab.review_id}</b>"
    assert '"T_U":"not-applicable"' in exported.read_text()  # stored as written, not ∞
    cases = read_case_labels(exported)
    assert [c.case_review_id for c in cases] == list(plan.cases)
    assert cases[0].task_relevance == "no" and cases[1].task_relevance is None

    folder = root / "review"
    shutil.copy(exported, folder / "labels" / "A.jsonl")
    other = [json.loads(lab.line()) | {"reviewer": "B"} for lab in labels]
    other[-1]["A"] = True  # B disagrees on the last drawn run's adoption (and so T_U)
    other[-1]["T_U"] = "undecidable"
    (folder / "labels" / "B.jsonl").write_text("".join(json.dumps(r) + "\n" for r in other))
    result = CliRunner().invoke(app, ["review", "agree", str(folder)])
    assert result.exit_code == 0, result.output
    data = json.loads((folder / "agreement.json").read_text())
    assert data["items"] == 3 and data["calibration"] == 1
    assert data["disputed"] == [order[-1]] and data["unanimous"] == 2
    assert data["exact_step"]["T_S"] == {"agree": 3, "located": 3}
    # A: two raters, 3 items, one split: P̄ = 2/3, p = (5/6, 1/6), P_e = 26/36 → κ = -0.2
    assert data["kappa"]["A"]["kappa"] == pytest.approx((2 / 3 - 26 / 36) / (1 - 26 / 36))
    # T_U status: undecidable, undecidable and n/a vs undecidable: P̄ = 2/3,
    # p = (5/6, 1/6) as for A → κ = -0.2 (n/a is a category, not ∞ and not missing)
    assert data["kappa"]["T_U_status"]["kappa"] == pytest.approx(data["kappa"]["A"]["kappa"])
    assert data["kappa"]["T_U_status"]["categories"] == ["not-applicable", "undecidable"]
    split = {(d["review_id"], d["quantity"]) for d in data["disagreements"]}
    assert split == {(order[-1], "A"), (order[-1], "T_U")}


def test_adjudicator_page_exports_the_adjudication_that_completes_the_reference(
    tmp_path_factory, driver
):
    import re

    from selenium.webdriver.common.by import By
    from typer.testing import CliRunner

    from review_round import build_review_round
    from sscbench.cli import app
    from sscbench.review.labels import read_labels

    root = tmp_path_factory.mktemp("adjudicator")
    folder = build_review_round(build_generated_study(root / "study"), root / "out")
    design = json.loads((root / "out" / "design.json").read_text())
    (folder / "labels" / "adjudication.jsonl").unlink()
    (folder / "reference.jsonl").unlink()
    runner = CliRunner()
    assert (
        runner.invoke(app, ["review", "adjudicate", str(folder), "--adjudicator", "D"]).exit_code
        == 0
    )
    page = folder / "adjudicate-D.html"
    config = json.loads(re.search(r'id="config">(.*?)</script>', page.read_text(), re.S).group(1))
    driver.get(page.as_uri())
    for review_id, fields in config["fields"].items():
        truth = design["truth"][review_id]
        for q in fields:
            value = truth[q]
            if isinstance(value, bool):
                value = json.dumps(value)
            if isinstance(value, int) and not isinstance(value, bool):
                driver.find_element(By.ID, f"{review_id}-{q}-n").send_keys(str(value))
            else:
                element = driver.find_element(By.ID, f"{review_id}-{q}-{value}")
                driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
                element.click()
    driver.find_element(By.ID, "export").click()
    exported = _wait_for(driver.downloads / "adjudication.jsonl")
    shutil.copy(exported, folder / "labels" / "adjudication.jsonl")
    result = runner.invoke(app, ["review", "reference", str(folder)])
    assert result.exit_code == 0, result.output
    for label in read_labels(folder / "reference.jsonl"):
        assert {q: getattr(label, q) for q in design["truth"][label.review_id]} == (
            design["truth"][label.review_id]
        )
    adjudicated = read_labels(folder / "labels" / "adjudication.jsonl")
    assert sorted(lab.review_id for lab in adjudicated) == sorted(config["fields"])
    assert all(lab.reviewer == "D" for lab in adjudicated)
