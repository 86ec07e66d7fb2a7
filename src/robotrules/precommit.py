"""``robotrules-lint``: the linter as a pre-commit hook (``.pre-commit-hooks.yaml``).

pre-commit passes the staged files named ``robots.txt``; each is linted as ``robotrules
lint`` lints a local file (:func:`robotrules.lint`, the first 500 KiB that crawlers read plus
64 KiB so that the cut is reported, RFC 9309 2.5) and its findings are printed as
``path:line:column: severity code message``, the form editors and CI logs link. The commit
fails (exit 1) when any finding is at or above ``--fail-on`` (``error``, ``warning`` (the
default, as ``robotrules lint``), ``info``, or ``never`` to only report); an unreadable file
is exit 2. Needs only the core: no Click, no extra to install, so the hook's environment is
``pip install`` of the package alone.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from robotrules import lint
from robotrules._dialects import NAMES

__all__ = ["main"]

_RANK = {"info": 0, "warning": 1, "error": 2, "never": 3}
_MARGIN = 65_536  # read past the crawlers' limit so that the cut is reported (L018)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="robotrules-lint",
        description="Lint robots.txt files (the pre-commit hook robotrules-lint).")
    p.add_argument("files", nargs="*", metavar="FILE", help="robots.txt files to check")
    p.add_argument("--fail-on", choices=("error", "warning", "info", "never"),
                   default="warning",
                   help="the lowest severity that fails the commit (default: warning)")
    p.add_argument("--dialect", "-d", choices=NAMES, default=NAMES[0],
                   help="read the files as these crawlers do")
    p.add_argument("--show-info", action="store_true",
                   help="print info findings (advice) too; --fail-on info implies it")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from robotrules._policy import DEFAULT_MAX_BYTES

    fail_rank = _RANK[args.fail_on]
    show_rank = 0 if args.show_info or args.fail_on == "info" else 1
    failed = False
    for path in args.files:
        try:
            with open(path, "rb") as fh:
                body = fh.read(DEFAULT_MAX_BYTES + _MARGIN + 1)
        except OSError as exc:
            print(f"robotrules-lint: cannot read {path}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 2
        for f in lint(body, dialect=args.dialect):
            rank = _RANK[f.severity]
            if rank >= fail_rank:
                failed = True
            if rank >= show_rank or rank >= fail_rank:
                fix = f" (fix: {f.fix})" if f.fix else ""
                print(f"{path}:{f.line}:{f.column}: {f.severity} {f.code} {f.message}{fix}")
    return 1 if failed else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
