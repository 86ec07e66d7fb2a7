"""``robotrules._memo.TextMemo``: readings of short texts kept within a byte budget.

The bound is the module's own statement (its docstring: only texts of at most ``max_text``
characters, each charged ``entry_bytes + char_bytes * len(text)``, the oldest dropped first
past ``budget``), and the reproduction of the hostile shape: a file of distinct Content-Usage
lines must not leave its readings behind in the process (the issue "Hostile input above the
kernel": lint over 500 KiB of Content-Usage lines kept about 20x the memory of a benign file).
"""

from __future__ import annotations

import threading

from robotrules._memo import TextMemo
from robotrules.aipref import content_signal, content_usage
from robotrules.aipref._paths import PATTERNS


def _memo(budget: int = 1000, max_text: int = 8) -> tuple[TextMemo[str], list[str]]:
    made: list[str] = []

    def make(text: str, variant: str) -> str:
        made.append(text)
        return text.upper() + variant

    return TextMemo(make, budget=budget, max_text=max_text, entry_bytes=100, char_bytes=10), made


def test_a_short_text_is_read_once_per_variant() -> None:
    memo, made = _memo()
    assert memo("ab", "x") == "ABx"
    assert memo("ab", "x") == "ABx"
    assert memo("ab", "y") == "ABy"
    assert made == ["ab", "ab"]  # once per (text, variant)
    assert memo.kept == 2 * (100 + 10 * 2)


def test_a_text_past_max_text_is_read_every_time_and_never_kept() -> None:
    memo, made = _memo(max_text=4)
    for _ in range(3):
        assert memo("abcdefgh", "") == "ABCDEFGH"
    assert made == ["abcdefgh"] * 3
    assert len(memo) == 0
    assert memo.kept == 0


def test_the_oldest_entries_go_first_past_the_budget() -> None:
    memo, made = _memo(budget=3 * 110)  # three one-character texts
    for t in "abcd":
        memo(t, "")
    assert len(memo) == 3
    assert memo.kept == 3 * 110 <= memo.budget
    memo("b", "")
    memo("a", "")  # "a", the oldest, was dropped for "d": read again
    assert made == ["a", "b", "c", "d", "a"]
    assert memo.kept <= memo.budget


def test_threads_keep_the_count_exact() -> None:
    memo, _ = _memo(budget=50 * 120, max_text=8)

    def ask(k: int) -> None:
        for i in range(400):
            memo(f"{(i * 7 + k) % 90:02d}", "")

    threads = [threading.Thread(target=ask, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert memo.kept == sum(memo.cost(t) for t, _ in memo._entries) <= memo.budget


def test_the_aipref_memos_stay_within_their_budgets_after_a_hostile_file() -> None:
    # the shape: distinct Content-Usage lines (and Content-Signal lines), linted
    import robotrules

    body = "User-agent: *\n" + "".join(
        f"Content-Usage: /p{j}/ train-ai=n, search=y, k{j}=y\nContent-Signal: s{j}=yes\n"
        for j in range(6000))
    robotrules.lint(body)
    rules = robotrules.parse(body)
    rules.usage("/p5/x")
    for memo in (content_usage.PREFERENCES, content_signal.SIGNALS, PATTERNS):
        assert 0 < memo.kept <= memo.budget
        assert len(memo) < 6000  # the oldest went; the budget, not the count, bounds them
