"""``python -m robotrules.cli``: the same as the ``robotrules`` command."""

import sys

try:
    from robotrules.cli import main
except KeyboardInterrupt:  # Ctrl-C while starting: the usual 130, and no traceback
    raise SystemExit(130) from None

sys.exit(main())
