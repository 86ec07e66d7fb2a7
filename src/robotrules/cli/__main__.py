"""``python -m robotrules.cli``: the same as the ``robotrules`` command."""

from robotrules.cli import main

raise SystemExit(main())
