"""The command line itself (``robotrules/cli/_app.py``): short usage, help with examples,
Click's usage errors as one line and exit 2, suggestions, completion, version, ``--color``
and the lazily attached ``dataset`` group (issue 16).

Sources: issue 16's own list (named per test), no-color.org, and Click's documented completion
protocol. Each test runs the real entry point (``python -m robotrules.cli`` in a subprocess, or
``main()`` in-process where noted).
"""

from __future__ import annotations

import json
import os
import re
import sys
import types
from pathlib import Path
from typing import Any

import click
import pytest

from robotrules.cli import COMMANDS, main
from tests.cli.conftest import SRC, one_line_error


def test_no_arguments_short_usage_and_commands(cli: Any) -> None:
    """Issue 16: no arguments prints the short usage and the commands, not the whole help;
    issue 39: on stdout with exit 0, as ``robotrules dataset`` (a group without a command)
    does, and as ``--help`` does. The usage line says the command is optional."""
    r = cli()
    assert r.code == 0
    assert r.err == ""
    lines = r.out.splitlines()
    assert lines[0] == "Usage: robotrules [OPTIONS] [COMMAND] [ARGS]..."
    assert lines[0].startswith("Usage: robotrules")
    assert len(lines) < 20
    for name in COMMANDS:
        assert any(x.strip().startswith(name + " ") for x in lines), name
    assert "--color" not in r.out  # the options are one --help away
    dataset = cli("dataset")
    assert (dataset.code, dataset.err) == (0, "")
    assert dataset.out.startswith("Usage: robotrules dataset")


def test_top_level_help_lists_serve_and_dataset_always(cli: Any) -> None:
    """Issue 16: docs/cli.md said serve is listed only with the web extra; it is always."""
    r = cli("--help")
    assert r.code == 0
    for name in ("serve", "dataset", "check", "bulk"):
        assert re.search(rf"^\s+{name}\s", r.out, re.M), name
    assert "examples:" in r.out


@pytest.mark.parametrize("command", ["serve", "diff", "agents"])
def test_help_of_every_command_has_examples(cli: Any, command: str) -> None:
    r = cli(command, "--help")
    assert r.code == 0
    assert f"robotrules {command}" in r.out
    assert "exit status" in r.out


@pytest.mark.parametrize(
    "args",
    [
        ("check", "--frobnicate", "--agent", "A", "https://e.com/"),  # unknown option
        ("check", "--agent"),  # option without its value
        ("bulk", "-", "--agent", "A", "--concurrency", "many"),  # not an integer
        ("bulk", "-", "--agent", "A", "--concurrency", "0"),  # out of range
        ("lint", "--min-severity", "loud", "x.txt"),  # bad choice
        ("chek",),  # unknown command
        ("--color", "sometimes", "check"),
    ],
)
def test_click_usage_errors_are_one_line_exit_2(cli: Any, args: tuple[str, ...]) -> None:
    """Issue 16: Click's own usage errors follow the project's rule: one line, exit 2."""
    r = cli(*args)
    assert one_line_error(r), r.err
    assert "Usage:" not in r.err


def test_unknown_command_suggests_a_real_one(cli: Any) -> None:
    r = cli("chek")
    assert "did you mean 'check'" in r.err


@pytest.mark.parametrize("bad", ["/relative/path", "not a url"])
def test_no_invalid_did_you_mean(cli: Any, bad: str) -> None:
    """Issue 16: never suggest 'https:///relative/path' or 'https://not a url'."""
    r = cli("fetch", bad)
    assert one_line_error(r)
    assert "did you mean" not in r.err
    b = cli("bulk", "-", "--agent", "A", input=bad + "\n")
    assert b.code == 2
    assert "did you mean" not in b.out
    assert "invalid URL" in b.out


def test_valid_did_you_mean_is_kept(cli: Any) -> None:
    b = cli("bulk", "-", "--agent", "A", "--format", "jsonl", input="example.com\n")
    assert "did you mean 'https://example.com'" in json.loads(b.out)["reason"]


def test_shell_completion_is_clicks(cli: Any) -> None:
    """Click's completion protocol: the script, then completions for a partial word."""
    script = cli(env={"_ROBOTRULES_COMPLETE": "bash_source"})
    assert script.code == 0
    assert "_robotrules_completion" in script.out
    words = cli(env={"_ROBOTRULES_COMPLETE": "bash_complete", "COMP_WORDS": "robotrules ch",
                     "COMP_CWORD": "1"})
    assert "check" in words.out
    opts = cli(env={"_ROBOTRULES_COMPLETE": "bash_complete",
                    "COMP_WORDS": "robotrules check --dia", "COMP_CWORD": "2"})
    assert "--dialect" in opts.out


def test_version(cli: Any) -> None:
    r = cli("--version")
    assert r.code == 0
    assert r.out.startswith("robotrules ")


def test_color_always_and_never_and_no_color(cli: Any, sample_robots: Path) -> None:
    """no-color.org: NO_COLOR turns colour off; an explicit --color always outranks it."""
    args = ("check", "--robots", str(sample_robots), "--agent", "A", "https://e.com/private/")
    assert "\x1b[" in cli("--color", "always", *args).out
    assert "\x1b[" in cli(*args, "--color", "always").out  # after the command too
    assert "\x1b[" not in cli("--color", "never", *args).out
    assert "\x1b[" in cli("--color", "always", *args, env={"NO_COLOR": "1"}).out


def test_dataset_missing_says_what_to_install(cli: Any, tmp_path: Path) -> None:
    """When ``robotrules.dataset.cli`` cannot be imported: one line, exit 2."""
    # A stand-in package raising ImportError, found before the real robotrules.dataset (if
    # any) by a meta-path hook: the only way to remove one subpackage for one process.
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        "import sys\n"
        "class _NoDataset:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'robotrules.dataset' or name.startswith('robotrules.dataset.'):\n"
        "            raise ImportError('no dataset extra', name=name)\n"
        "        return None\n"
        "sys.meta_path.insert(0, _NoDataset())\n")
    for args in (("dataset",), ("dataset", "census", "--help"), ("dataset", "--help")):
        r = cli(*args, env={"PYTHONPATH": f"{hook}{os.pathsep}{SRC}"})
        assert one_line_error(r), (args, r.err)
        assert "robotrules[dataset]" in r.err


def test_dataset_group_attached_lazily(monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """When the module is importable its Click group runs as ``robotrules dataset``.

    The real group is another branch's work; a group of the same shape stands in here."""
    @click.group("dataset")
    def group() -> None:
        """stand-in"""

    @group.command("hello")
    @click.argument("name")
    def hello(name: str) -> None:
        click.echo(f"hello {name}")

    module = types.ModuleType("robotrules.dataset.cli")
    module.dataset = group  # type: ignore[attr-defined]
    package = types.ModuleType("robotrules.dataset")
    package.__path__ = []
    monkeypatch.setitem(sys.modules, "robotrules.dataset", package)
    monkeypatch.setitem(sys.modules, "robotrules.dataset.cli", module)
    assert main(["dataset", "hello", "world"]) == 0
    assert capsys.readouterr().out == "hello world\n"
    assert main(["dataset", "nope"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_real_dataset_group_runs(cli: Any) -> None:
    """The real group answers ``--help`` where the dataset extra is installed (CI's main run;
    nox's sessions install the cli and fetch extras only)."""
    pytest.importorskip("duckdb", reason="the dataset extra is not installed")
    r = cli("dataset", "--help")
    assert r.code == 0
    assert "census" in r.out
