"""``python -m robotrules.dataset``, and the program file ``spark-submit`` runs:
``spark-submit --master spark://host:7077 "$(python -c 'import robotrules.dataset.__main__ as m;
print(m.__file__)')" census --engine spark ...`` (absolute imports, so it runs as a file too)."""

from __future__ import annotations

if __name__ == "__main__":
    from robotrules.dataset.cli import main

    main()
