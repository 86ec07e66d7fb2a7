"""Every ``robotrules ...`` command in the shell blocks of README.md and docs/*.md runs as
written from a fresh clone (issue 16 for the README, issue 26 for the docs).

Which blocks: every fenced block whose info string starts with ``sh``, ``bash``, ``shell`` or
``console``, in README.md and in every ``docs/*.md`` (found by globbing, so a new page is
covered without touching this file). In ``console`` blocks the commands are the lines that
start with ``$ `` (the rest is output); in the others every line is a command. A line that
ends with ``\\`` continues on the next.

The marker for a block that cannot run offline or in a test (it needs the internet, a cluster,
an hour): the word ``no-run`` after the language, as in ```` ```console no-run ````. Such a
block is shown, not run; :data:`NO_RUN_AT_MOST` keeps them few. A fenced block without a
language (usage synopses, sample output) is not a command block.

A block whose commands build on each other (one writes a file the next reads) says
``in-order`` after the language (```` ```sh in-order ````): its commands run one after the
other, as one test, in a fresh working directory where the checkout's files are linked, so the
files they write land there and not in the checkout.

The commands run from the repository root through a ``robotrules`` on PATH that is the real
entry point (``python -m robotrules.cli``), so the files they name must exist in the checkout.
What is changed, and only that, because tests must not use the network:

- ``https://example.com`` and ``https://www.example.com`` become a local HTTP server (the
  host rewritten, path kept) that serves ``examples/robots.txt``; for ``bulk`` the URLs in
  ``examples/urls.txt`` get the same host rewrite in a temporary copy;
- a ``> FILE`` redirection writes into a temporary directory instead of the checkout;
- ``robotrules serve`` listens on a free port (``--port 0``) instead of 8000, which another
  process may hold, and is stopped with Ctrl-C once it has printed its address.

Not run, with the reason: ``pip install ...`` (it changes the environment; this suite already
runs in an installed one; instead each one is checked to name extras that pyproject.toml
defines) and commands that are not ``robotrules`` (the test suite itself, benchmarks, ``curl``
against a server the page started, ``echo $?``).
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._proc import default_sigint
from tests.cli.conftest import SRC, Server

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
HOSTS = re.compile(r"https://(?:www\.)?example\.com")
SHELLS = ("sh", "bash", "shell", "console")
NO_RUN = "no-run"
NO_RUN_AT_MOST = 6  # blocks marked no-run, over all pages


def shell_blocks(text: str) -> list[tuple[str, list[str], bool]]:
    """``(language, command lines, no-run)`` for each shell block of a Markdown text."""
    out = []
    for info, body in re.findall(r"^```([^\n`]*)\n(.*?)^```", text, re.S | re.M):
        words = info.split()
        if not words or words[0] not in SHELLS:
            continue
        lines: list[str] = []
        pending = ""
        for raw in body.splitlines():
            if words[0] == "console" and not pending:
                if not raw.startswith("$ "):
                    continue
                raw = raw[2:]
            if raw.rstrip().endswith("\\"):
                pending += raw.rstrip()[:-1] + " "
                continue
            lines.append(pending + raw)
            pending = ""
        out.append((words[0], lines, NO_RUN in words[1:]))
    return out


def _commands(line: str) -> list[str]:
    words = shlex.split(line, comments=True)
    if not words:
        return []
    parts = " ".join(shlex.quote(w) if w not in ("&&", ">", "|") else w
                     for w in words).split(" && ")
    return [p.strip() for p in parts if p.strip()]


def page_commands(pages: list[Path] = PAGES, *, no_run: bool = False) -> list[tuple[str, str]]:
    """``(page, command)`` for every command of the pages' shell blocks (``pip ... &&``
    cut), of the blocks to run (or, with ``no_run``, of the blocks marked no-run)."""
    found: list[tuple[str, str]] = []
    for page in pages:
        for _, lines, marked in shell_blocks(page.read_text("utf-8")):
            if marked != no_run:
                continue
            for line in lines:
                found.extend((page.name, c) for c in _commands(line))
    return found


def readme_commands() -> list[str]:
    """``robotrules`` commands of the README's shell blocks, comments and ``pip ... &&`` cut."""
    return [c for _, c in page_commands([README]) if c.startswith("robotrules ")]


IN_ORDER = "in-order"


def in_order_blocks(pages: list[Path] = PAGES) -> list[tuple[str, list[str]]]:
    """``(page, commands)`` of every ``in-order`` shell block (see the module docstring)."""
    found = []
    for page in pages:
        text = page.read_text("utf-8")
        for info, body in re.findall(r"^```([^\n`]*)\n(.*?)^```", text, re.S | re.M):
            words = info.split()
            if words and words[0] in SHELLS and IN_ORDER in words[1:]:
                lines = [c for line in body.splitlines() for c in _commands(line)]
                found.append((page.name, lines))
    return found


ORDERED = in_order_blocks()
_ORDERED = {c for _, block in ORDERED for c in block}
ALL = page_commands()
RUN = [(page, c) for page, c in ALL if c.startswith("robotrules ") and c not in _ORDERED]
COMMANDS = readme_commands()


def test_the_readme_has_the_commands_of_the_issue() -> None:
    assert any(c.startswith("robotrules check --robots examples/robots.txt") for c in COMMANDS)
    assert len(COMMANDS) >= 10


def test_the_docs_commands_are_found() -> None:
    """The docs' own blocks are collected too (issue 26), and no-run stays the exception."""
    pages = {page for page, _ in RUN}
    assert "cli.md" in pages
    assert len({c for p, c in RUN if p != "README.md"}) >= 8
    marked = sum(m for page in PAGES for *_, m in shell_blocks(page.read_text("utf-8")))
    assert marked <= NO_RUN_AT_MOST


def test_block_reader_on_a_sample() -> None:
    text = ("```console\n$ robotrules lint a.txt \\\n    --json\noutput\n```\n"
            "```sh no-run\nrobotrules fetch https://far.example\n```\n"
            "```\nrobotrules synopsis [OPTIONS]\n```\n")
    assert shell_blocks(text) == [("console", ["robotrules lint a.txt      --json"], False),
                                  ("sh", ["robotrules fetch https://far.example"], True)]


def test_every_file_the_commands_name_exists() -> None:
    named = 0
    for page, command in RUN:
        for word in shlex.split(command):
            if word.startswith("examples/"):
                named += 1
                assert (ROOT / word).is_file(), (page, command, word)
    assert named > 0  # the pages' commands name example files: the loop checked some


def test_install_lines_name_extras_that_exist() -> None:
    """Every ``pip install`` of the pages' shell blocks and inline code names extras that
    pyproject.toml defines, and a page that shows the published form
    (``pip install 'robotrules[x]'``) shows the checkout form (``pip install -e '.[x]'``)."""
    import tomllib

    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"])
    seen = 0
    for page in PAGES:
        text = page.read_text("utf-8")
        published = set()
        for m in re.finditer(r"pip install (?:-e )?'?(robotrules|\.)\[([\w,-]+)\]'?", text):
            names = set(m.group(2).split(","))
            assert names <= extras, (page.name, m.group())
            if m.group(1) == "robotrules":
                published |= names
            seen += 1
        for name in sorted(published):
            assert f"pip install -e '.[{name}]'" in text or re.search(
                rf"pip install -e '\.\[[\w,-]*\b{name}\b", text), (page.name, name)
    assert seen >= 10


def test_the_quick_start_installs_what_its_command_needs() -> None:
    """Issue 26: `.[all]` pulled 400 MB to answer two URLs; `check --robots` needs `cli`."""
    first = next(line for _, lines, _ in shell_blocks(README.read_text("utf-8"))
                 for line in lines if "robotrules check --robots" in line)
    assert first.startswith("pip install -e '.[cli]' && robotrules check")


def test_all_means_every_feature_extra() -> None:
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    (ref,) = extras["all"]
    named = set(re.fullmatch(r"robotrules\[([\w,-]+)\]", ref).group(1).split(","))  # type: ignore[union-attr]
    assert named == set(extras) - {"all", "test"}


@pytest.fixture(scope="module")
def site() -> Iterator[Server]:
    s = Server()
    s.robots((ROOT / "examples" / "robots.txt").read_bytes())
    yield s
    s.close()


@pytest.fixture
def shell_env(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "robotrules"
    script.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m robotrules.cli "$@"\n')
    script.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
               PYTHONPATH=SRC + os.pathsep + env.get("PYTHONPATH", ""),
               XDG_CACHE_HOME=str(tmp_path / "cache"), NO_PROXY="*")
    for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env.pop(k, None)
    return env


def _local(command: str, site: Server, tmp_path: Path) -> str:
    command = HOSTS.sub(site.base, command)
    if "examples/urls.txt" in command and command.startswith("robotrules bulk"):
        urls = tmp_path / "urls.txt"
        urls.write_text(HOSTS.sub(site.base, (ROOT / "examples" / "urls.txt").read_text()))
        command = command.replace("examples/urls.txt", shlex.quote(str(urls)))
    return re.sub(r"> (\S+)", lambda m: "> " + shlex.quote(str(tmp_path / m.group(1))),
                  command)


FIRST = {c: (p, c) for p, c in reversed(RUN)}  # each command once, under its first page


@pytest.mark.parametrize(("page", "command"),
                         [pc for c, pc in FIRST.items() if not c.startswith("robotrules serve")])
def test_command_runs_as_written(page: str, command: str, site: Server, tmp_path: Path,
                                 shell_env: dict[str, str]) -> None:
    p = subprocess.run(["sh", "-c", _local(command, site, tmp_path)], cwd=ROOT,
                       env=shell_env, capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode in (0, 1), (page, command, p.stderr)
    assert "Traceback" not in p.stderr
    assert not [x for x in p.stderr.splitlines() if x.startswith("robotrules:")
                and "note:" not in x], p.stderr
    written = list(tmp_path.glob("*.csv"))
    assert p.stdout.strip() or any(f.stat().st_size for f in written), command


@pytest.mark.parametrize(("page", "block"), ORDERED, ids=[p for p, _ in ORDERED])
def test_block_runs_in_order(page: str, block: list[str], site: Server, tmp_path: Path,
                             shell_env: dict[str, str]) -> None:
    work = tmp_path / "work"
    work.mkdir()
    for entry in ROOT.iterdir():
        if entry.name != ".git":
            (work / entry.name).symlink_to(entry)
    ran = 0
    for command in block:
        if not command.startswith("robotrules "):
            continue
        ran += 1
        p = subprocess.run(["sh", "-c", _local(command, site, tmp_path)], cwd=work,
                           env=shell_env, capture_output=True, text=True, timeout=300,
                           check=False)
        if p.returncode == 2 and "is not installed: pip install" in p.stderr:
            # an install without this block's extra (nox's sessions install cli and fetch);
            # CI's main run installs every extra, where the block runs
            pytest.skip(p.stderr.strip())
        assert p.returncode in (0, 1), (page, command, p.stderr)
        assert "Traceback" not in p.stderr
        assert p.stdout.strip() or p.stderr.strip(), command  # it says what it did
    assert ran > 0, (page, block)  # a block of no robotrules command would check nothing


@pytest.mark.parametrize("command", sorted({c for _, c in RUN if c.startswith("robotrules serve")}))
def test_serve_starts_and_stops(command: str, shell_env: dict[str, str]) -> None:
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    p = subprocess.Popen([*shlex.split(command), "--port", "0"], cwd=ROOT, env=shell_env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=default_sigint)
    assert p.stdout is not None
    line = p.stdout.readline()
    assert re.search(r"http://127\.0\.0\.1:\d+/", line), line
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode in (0, 130), err
    assert "Traceback" not in err
