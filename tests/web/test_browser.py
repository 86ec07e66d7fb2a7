"""End-to-end: the tester in a real headless Chromium (Debian's, driven by Playwright).

The app runs under uvicorn on a free 127.0.0.1 port (``live_server``); nothing leaves the
machine. The screenshot lands in ``tests/output/web-tester.png`` (git-ignored).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("ROBOTRULES_CHROMIUM", "/usr/bin/chromium")
if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
    pytest.skip(f"no Chromium at {CHROMIUM} (.ci/run installs Debian's chromium)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
expect.set_options(timeout=15_000)  # generous: CI machines are small and busy

OUTPUT = Path(__file__).resolve().parents[1] / "output"
LAUNCH_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

DRAFT = """\
# Staging draft for www.example.com
User-agent: *
Disallow: /private/
Allow: /private/press/
Disallow: /search

User-agent: Googlebot
Disallow: /*.pdf$
Disallow: /search
Crawl-delay: 5

User-agent: GPTBot
Disallow: /
Sitemap: /sitemap.xml
"""
URLS = ["/", "/private/report.html", "/private/press/launch.html", "/docs/guide.pdf",
        "/search?q=shoes"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, live_server: str) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1440, "height": 1000},
                                  base_url=live_server)
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    yield page
    context.close()
    assert errors == [], errors


def cell(page: Any, agent: str, url: str) -> Any:
    return page.locator(f'button.verdict[data-agent="{agent}"][data-url="{url}"]')


def set_agents(page: Any, agents: list[str]) -> None:
    while page.locator("#agents .remove").count():
        page.locator("#agents .remove").first.click()
    for agent in agents:
        page.locator("#agent-input").fill(agent)
        page.locator("#agent-input").press("Enter")


def type_draft(page: Any, text: str, urls: list[str], agents: list[str]) -> None:
    """Type like a person: the editor and the URL list take keystrokes, agents are added."""
    page.goto("/")
    expect(page.locator("table.results tbody tr").first).to_be_visible()  # the example ran
    page.locator("#robots").fill("")
    page.locator("#robots").press_sequentially(text, delay=0)
    page.locator("#urls").fill("")
    page.locator("#urls").press_sequentially("\n".join(urls), delay=0)
    set_agents(page, agents)


def test_typed_draft_gives_verdicts_and_a_click_highlights_the_line(page: Any) -> None:
    type_draft(page, DRAFT, URLS, ["Googlebot", "GPTBot"])

    gpt = cell(page, "GPTBot", "/private/press/launch.html")
    expect(gpt).to_contain_text("Blocked")
    expect(gpt).to_contain_text("line 13 · Disallow: /")
    report = cell(page, "Googlebot", "/private/report.html")
    expect(report).to_contain_text("Allowed")  # Googlebot's own group drops the * rules
    expect(report).to_contain_text("no rule matches")
    pdf = cell(page, "Googlebot", "/docs/guide.pdf")
    expect(pdf).to_contain_text("Blocked")
    expect(pdf).to_contain_text("line 8 · Disallow: /*.pdf$")
    expect(cell(page, "Googlebot", "/search?q=shoes")).to_contain_text("line 9")
    expect(page.locator("#summary")).to_contain_text("GPTBot blocked from 5 of 5 URLs")
    expect(page.locator("#summary")).to_contain_text("Googlebot blocked from 2 of 5 URLs")

    # Clicking a cell highlights its deciding line in the editor.
    pdf.click()
    selected = page.locator("#backdrop .line-hl.selected")
    expect(selected).to_have_count(1)
    expect(selected).to_have_attribute("data-line", "8")
    expect(selected.locator(".ghost")).to_have_text("Disallow: /*.pdf$")
    expect(page.locator("#gutter .gutter-sel")).to_have_count(1)
    # The bar sits on line 8 of the textarea: 7 line heights below the first line.
    bar = selected.bounding_box()
    first = page.locator("#robots").bounding_box()
    line_height = float(page.evaluate(
        "parseFloat(getComputedStyle(document.getElementById('robots')).lineHeight)"))
    assert bar is not None
    assert first is not None
    assert abs(bar["y"] - (first["y"] + 10 + 7 * line_height)) < 2

    gpt.click()
    expect(selected).to_have_attribute("data-line", "13")

    # The dialect column flags the .pdf rule: 1994 has no wildcards.
    row = page.locator("table.results tbody tr", has=page.locator('th:text-is("/docs/guide.pdf")'))
    expect(row.locator("td.diff .diff-line")).to_have_count(1)  # GPTBot: blocked in all three
    expect(row.locator("td.diff .diff-line strong")).to_have_text("Googlebot")
    expect(row.locator("td.diff .dialect")).to_have_text(
        ["RFC 9309 blocks", "Google blocks", "1994 allows"])
    expect(page.locator("table.results tbody tr.disagree")).to_have_count(1)
    page.locator('label:has(input[value="1994"])').click()
    expect(pdf).to_contain_text("Allowed")

    # Lint findings sit on their lines (the relative sitemap URL on line 14).
    page.locator('label:has(input[value="rfc9309"])').click()
    expect(pdf).to_contain_text("Blocked")
    sitemap = page.locator('#backdrop .line-hl[data-line="14"] .lens')
    expect(sitemap).to_be_visible()
    expect(page.locator("#findings")).to_contain_text("line 14")

    pdf.click()
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / "web-tester.png"), full_page=True)


def test_a_shared_link_restores_the_same_state(page: Any, browser: Any, live_server: str) -> None:
    type_draft(page, "User-agent: *\nDisallow: /tmp/\n", ["/tmp/a", "/ok"], ["BingBot", "ÜberBot"])
    page.locator('label:has(input[value="google"])').click()
    expect(cell(page, "BingBot", "/tmp/a")).to_contain_text("Blocked")
    expect(page).to_have_url(re.compile(r"#z=[A-Za-z0-9_-]+$"))
    expect(page.locator("#status")).to_contain_text("Google")
    link = page.url

    other = browser.new_context(base_url=live_server).new_page()
    try:
        other.goto(link)
        expect(other.locator("#robots")).to_have_value("User-agent: *\nDisallow: /tmp/\n")
        expect(other.locator("#urls")).to_have_value("/tmp/a\n/ok")
        expect(other.locator("#agents .chip")).to_have_text(["BingBot×", "ÜberBot×"])
        expect(other.locator('input[name="dialect"][value="google"]')).to_be_checked()
        expect(cell(other, "ÜberBot", "/tmp/a")).to_contain_text("line 2 · Disallow: /tmp/")
        expect(cell(other, "BingBot", "/ok")).to_contain_text("Allowed")
    finally:
        other.context.close()


def test_markup_in_the_file_shows_as_text(page: Any) -> None:
    evil = ('User-agent: * # <img src=x onerror="window.pwned=1">\n'
            "Disallow: /<script>window.pwned=2</script>\n"
            "<script>window.pwned=3</script>\n")
    type_draft(page, evil, ["/<script>window.pwned=2</script>"],
               ['<img src=x onerror="window.pwned=1">'])
    verdict = page.locator("button.verdict").first
    expect(verdict).to_contain_text("Blocked")
    expect(verdict).to_contain_text("Disallow: /<script>window.pwned=2</script>")
    img = '<img src=x onerror="window.pwned=1">'
    expect(page.locator("#agents .chip").first).to_contain_text(img)
    expect(page.locator("table.results thead th").nth(1)).to_have_text(img)
    expect(page.locator('#backdrop .line-hl[data-line="3"] .ghost')).to_have_text(
        "<script>window.pwned=3</script>")
    assert page.evaluate("window.pwned") is None
    injected = "#results script, #results img, #backdrop script, #findings script, #agents img"
    assert page.locator(injected).count() == 0


def test_fetch_by_url_fills_the_editor(page: Any, origin: str) -> None:
    page.goto("/")
    page.locator("#fetch-url").fill(origin + "/any/page")
    page.locator("#fetch-form button").click()
    expect(page.locator("#robots")).to_have_value("User-agent: *\nDisallow: /from-origin/\n")
    expect(page.locator("#source")).to_contain_text("Fetched " + origin + "/robots.txt: 200")


def test_well_known_crawlers_can_be_picked(page: Any) -> None:
    type_draft(page, "User-agent: GPTBot\nDisallow: /\n", ["/a"], [])
    page.locator("#agent-pick").select_option("GPTBot")
    expect(page.locator("#agents .chip")).to_have_text(["GPTBot×"])
    expect(page.locator("#agents .chip")).to_have_attribute("title", re.compile("OpenAI"))
    expect(cell(page, "GPTBot", "/a")).to_contain_text("line 2 · Disallow: /")
