"""``python -m robotrules.cli``: the same as the ``robotrules`` command."""

import sys

try:
    from robotrules.cli import main
except KeyboardInterrupt:  # Ctrl-C while starting: still one line, no traceback
    sys.stderr.write("robotrules: interrupted\n")
    raise SystemExit(2) from None

raise SystemExit(main())
