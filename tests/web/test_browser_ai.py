"""End-to-end: the AI preferences tab and the crawlers-by-purpose tab in headless Chromium.

Same harness as ``test_browser.py`` (Debian's Chromium driven by Playwright, the app under
uvicorn on 127.0.0.1). Expectations come from draft-ietf-aipref-attach-05's worked example and
"Content-Usage Rule Semantics", and the two readings of Content-Signal's scope (Cloudflare: per
group; crawler-commons: file-wide), as summarised in /work/shared/AI-PREFERENCES.md 1.2-1.3.
The 1280 px screenshot of the panel is committed as ``docs/web-ai-preferences.png``
(refreshed with ROBOTRULES_UPDATE_DOCS=1; otherwise written to tests/output/).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import expect, settled
from .test_browser import DOCS, set_agents

# attach-05's worked example in the * group, a Content-Signal line there, and GPTBot's group.
DRAFT = """\
User-agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y
Content-Signal: search=yes, ai-train=no

User-agent: GPTBot
Disallow: /private/
Content-Usage: train-ai=n, search=y
"""
URLS = ["/test", "/never/test", "/ai-ok/test", "/private/x"]
AGENTS = ["ClaudeBot", "GPTBot"]


@pytest.fixture
def page(browser: Any, live_server: str) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 1000},
                                  base_url=live_server)
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    yield page
    context.close()
    assert errors == [], errors


def load_draft(page: Any) -> None:
    page.goto("/")
    expect(page.locator("table.results tbody tr").first).to_be_visible()  # the example ran
    page.locator("#robots").fill(DRAFT)
    page.locator("#urls").fill("\n".join(URLS))
    set_agents(page, AGENTS)
    expect(page.locator("table.results tbody tr")).to_have_count(len(URLS))
    settled(page)


def row(page: Any, agent: str, url: str) -> Any:
    return page.locator(f'#usage tr.u-row[data-agent="{agent}"][data-url="{url}"]')


def value(page: Any, agent: str, url: str, column: str) -> Any:
    return row(page, agent, url).locator(f'td[data-col="{column}"]')


def test_the_ai_preferences_table_and_the_scope_switch(page: Any) -> None:
    load_draft(page)
    page.locator("#tab-ai").click()
    expect(page.locator("#pane-ai")).to_be_visible()
    expect(page.locator("#usage tr.u-row")).to_have_count(len(URLS) * len(AGENTS))
    expect(page.locator("#usage tr.u-agent")).to_have_count(len(AGENTS))

    # attach-05's worked example, for a crawler the * group applies to
    expect(value(page, "ClaudeBot", "/test", "crawl")).to_have_text("yes")
    expect(value(page, "ClaudeBot", "/test", "train-ai")).to_have_text("no")
    expect(value(page, "ClaudeBot", "/never/test", "crawl")).to_have_text("no")
    expect(value(page, "ClaudeBot", "/never/test", "train-ai")).to_have_text("–")
    expect(value(page, "ClaudeBot", "/never/test", "lines")).to_have_text("not fetched")
    expect(value(page, "ClaudeBot", "/ai-ok/test", "train-ai")).to_have_text("yes")
    expect(value(page, "ClaudeBot", "/ai-ok/test", "lines")).to_have_text("56")  # buttons 5, 6
    # Content-Signal in the * group, per group (Cloudflare's reading)
    expect(value(page, "ClaudeBot", "/test", "ai-train")).to_have_text("no")
    expect(value(page, "ClaudeBot", "/test", "search")).to_have_text("yes")
    expect(value(page, "ClaudeBot", "/test", "ai-input")).to_have_text("–")  # not stated
    # GPTBot has its own group: the * group's preferences do not reach it (RFC 9309 2.2.1)
    expect(value(page, "GPTBot", "/ai-ok/test", "train-ai")).to_have_text("no")  # its line 10
    expect(value(page, "GPTBot", "/test", "ai-train")).to_have_text("–")
    expect(value(page, "GPTBot", "/private/x", "crawl")).to_have_text("no")
    expect(page.locator("#usage-meta")).to_contain_text("per group")

    # File-wide (crawler-commons' reading): line 6 applies to GPTBot too.
    page.locator('label:has(input[name="scope"][value="file"])').click()
    expect(page.locator("#usage-meta")).to_contain_text("file-wide")
    expect(value(page, "GPTBot", "/test", "ai-train")).to_have_text("no")
    expect(value(page, "GPTBot", "/test", "lines")).to_have_text("610")
    expect(value(page, "GPTBot", "/private/x", "crawl")).to_have_text("no")  # still disallowed
    expect(value(page, "GPTBot", "/private/x", "ai-train")).to_have_text("–")

    # A deciding line's button highlights it in the editor.
    value(page, "GPTBot", "/test", "lines").locator("button", has_text="10").click()
    expect(page.locator("#backdrop .line-hl.selected")).to_have_attribute("data-line", "10")

    # Back to per group; the scope travels in the share link's fragment.
    page.locator('label:has(input[name="scope"][value="group"])').click()
    expect(value(page, "GPTBot", "/test", "ai-train")).to_have_text("–")
    page.locator('label:has(input[name="scope"][value="file"])').click()
    expect(value(page, "GPTBot", "/test", "ai-train")).to_have_text("no")
    fragment = page.evaluate("location.hash")
    page.goto("/" + fragment)
    page.locator("#tab-ai").click()
    expect(page.locator('input[name="scope"][value="file"]')).to_be_checked()
    expect(value(page, "GPTBot", "/test", "ai-train")).to_have_text("no")


def test_editing_the_draft_updates_the_open_panel(page: Any) -> None:
    load_draft(page)
    page.locator("#tab-ai").click()
    expect(value(page, "ClaudeBot", "/ai-ok/test", "train-ai")).to_have_text("yes")
    page.locator("#robots").fill(DRAFT.replace("/ai-ok/ train-ai=y", "/ai-ok/ train-ai=n"))
    expect(value(page, "ClaudeBot", "/ai-ok/test", "train-ai")).to_have_text("no")
    page.locator("#urls").fill("/ai-ok/test")
    expect(page.locator("#usage tr.u-row")).to_have_count(len(AGENTS))


def test_the_crawlers_by_purpose_overview(page: Any) -> None:
    load_draft(page)
    page.locator("#robots").fill(DRAFT.replace("Disallow: /private/", "Disallow: /"))
    page.locator("#tab-registry").click()
    meta = page.locator("#registry-meta")
    expect(meta).to_contain_text("well-known crawlers")
    expect(meta).to_contain_text("1 blocked")
    # The edit's check and lint answers redraw the page, and the registry is drawn again after
    # them: wait until every answer is drawn, so no redraw lands under a click below.
    settled(page)
    training = page.locator('#registry details[data-purpose="training"]')
    expect(training.locator('[data-count="blocked"]')).to_have_text("1 blocked")
    training.locator("summary").click()
    gpt = training.locator('li[data-token="GPTBot"]')
    expect(gpt).to_be_visible()
    settled(page)
    expect(gpt).to_have_attribute("data-access", "blocked")
    expect(gpt).to_contain_text("Blocked")
    expect(gpt.locator(".p-detail")).to_have_text("own group")
    expect(gpt.locator(".p-detail")).to_have_attribute("data-group-line", "8")
    expect(gpt.locator(".p-detail")).to_have_attribute(
        "title", "blocked by its own group (line 8): line 9 'Disallow: /'")
    gpt.locator("button.line-link").click()
    expect(page.locator("#backdrop .line-hl.selected")).to_have_attribute("data-line", "9")
    # the * group only disallows /never/: everyone else there is partly blocked
    partly = training.locator('li[data-access="partial"]').first
    expect(partly.locator(".p-detail")).to_have_text("* group")
    expect(partly.locator(".p-detail")).to_have_attribute("data-group-line", "1")
    expect(partly.locator("button.line-link")).to_have_text("line 3")
    # the unfolded purpose stays unfolded when the draft changes
    page.locator("#robots").fill(DRAFT)
    expect(meta).to_contain_text("0 blocked")
    expect(training.locator('li[data-token="GPTBot"]')).to_have_attribute("data-access",
                                                                          "partial")
    expect(training).to_have_attribute("open", "")


def test_the_panel_fits_1280_px_and_its_screenshot(page: Any) -> None:
    load_draft(page)
    page.locator("#tab-ai").click()
    expect(value(page, "GPTBot", "/private/x", "crawl")).to_have_text("no")
    sizes = page.evaluate("""() => {
        const pane = document.getElementById('pane-ai');
        return {doc: document.documentElement.scrollWidth, win: window.innerWidth,
                pane: pane.scrollWidth, paneClient: pane.clientWidth};
    }""")
    assert sizes["doc"] <= sizes["win"], sizes  # no sideways page scroll at 1280 px
    assert sizes["pane"] <= sizes["paneClient"], sizes  # nor inside the panel
    # Issue 26: the view sits in the test panel (half the page), not under the editor.
    assert sizes["paneClient"] >= 560, sizes
    value(page, "ClaudeBot", "/ai-ok/test", "lines").locator("button", has_text="5").click()
    DOCS.mkdir(exist_ok=True)
    page.locator("section.test-panel").screenshot(path=str(DOCS / "web-ai-preferences.png"))
    page.locator("#tab-registry").click()
    expect(page.locator("#registry details").first).to_be_visible()
    sizes = page.evaluate("""() => {
        const pane = document.getElementById('pane-registry');
        return {doc: document.documentElement.scrollWidth, win: window.innerWidth,
                pane: pane.scrollWidth, paneClient: pane.clientWidth};
    }""")
    assert sizes["doc"] <= sizes["win"], sizes
    assert sizes["pane"] <= sizes["paneClient"], sizes


# vocab-08 adds the category ai-use (docs/ai-preferences.md "Vocabulary versions", the table of
# robotrules.aipref.VOCABULARIES); vocab-07 reads `ai-use` as a superseded label (ignored).
# ExamplePolicy's group is a policy-token group once the tester is told the token
# (draft-kelley-aipref-training-preference-signal-00, abstract).
VOCAB = """\
User-agent: *
Allow: /
Content-Usage: train-ai=y, ai-use=n

User-agent: ExamplePolicy
Disallow: /private/
"""


def test_the_vocabulary_selector_and_policy_tokens(page: Any) -> None:
    page.goto("/")
    expect(page.locator("table.results tbody tr").first).to_be_visible()
    page.locator("#robots").fill(VOCAB)
    page.locator("#urls").fill("/a\n/private/x")
    set_agents(page, ["ClaudeBot"])
    page.locator("#tab-ai").click()
    expect(page.locator("#vocabulary")).to_have_value("vocab-07")
    expect(value(page, "ClaudeBot", "/a", "train-ai")).to_have_text("yes")
    expect(page.locator('#usage thead th[data-col="ai-use"]')).to_have_count(0)
    expect(value(page, "ClaudeBot", "/a", "ai-use")).to_have_count(0)
    expect(page.locator("#usage-meta")).to_contain_text("vocab-07")

    page.locator("#vocabulary").select_option("vocab-08")
    expect(page.locator('#usage thead th[data-col="ai-use"]')).to_have_text("ai-use")
    expect(value(page, "ClaudeBot", "/a", "ai-use")).to_have_text("no")
    expect(value(page, "ClaudeBot", "/a", "train-ai")).to_have_text("yes")  # the same in both
    expect(page.locator("#usage-meta")).to_contain_text("vocab-08")
    expect(page.locator("#usage tr.u-agent th")).to_have_attribute("colspan", "8")

    # Not told the token, the ExamplePolicy group states nothing for other crawlers.
    expect(value(page, "ClaudeBot", "/private/x", "train-ai")).to_have_text("yes")
    page.locator("#policy-tokens").fill("ExamplePolicy=train-ai")
    page.locator("#policy-tokens").blur()
    expect(value(page, "ClaudeBot", "/private/x", "train-ai")).to_have_text("no")  # y and n: n
    expect(value(page, "ClaudeBot", "/private/x", "lines")).to_have_text("36")
    expect(value(page, "ClaudeBot", "/a", "train-ai")).to_have_text("yes")
    expect(page.locator("#usage-meta")).to_contain_text("policy tokens: ExamplePolicy=train-ai")
    expect(page.locator("#usage-meta")).to_contain_text("ExamplePolicy (train-ai, line 5)")

    # Both travel in the share link's fragment.
    fragment = page.evaluate("location.hash")
    page.goto("/" + fragment)
    page.locator("#tab-ai").click()
    expect(page.locator("#vocabulary")).to_have_value("vocab-08")
    expect(page.locator("#policy-tokens")).to_have_value("ExamplePolicy=train-ai")
    expect(value(page, "ClaudeBot", "/private/x", "train-ai")).to_have_text("no")

    # Back to vocab-07: the ai-use column goes, train-ai is unchanged.
    page.locator("#vocabulary").select_option("vocab-07")
    expect(page.locator('#usage thead th[data-col="ai-use"]')).to_have_count(0)
    expect(value(page, "ClaudeBot", "/private/x", "train-ai")).to_have_text("no")
