#!/bin/sh
# A CPython 3.12 environment for the full comparison (fastrobots ships a wheel for CPython 3.12
# only): creates .venv312 at the root of the checkout, installs robotrules from the checkout
# (`pip install -e .`, which builds the native core for 3.12 when a C compiler is present) and
# the benchmark peers, then prints the command to run. Safe to run again (it reuses the venv).
#
#     sh benchmarks/venv312.sh            # PYTHON=/path/to/python3.12 to choose the interpreter
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV="$ROOT/.venv312"

if [ -n "${PYTHON:-}" ]; then
    PY=$PYTHON
elif [ -x "$HOME/.pyenv/versions/3.12.1/bin/python" ]; then
    PY=$HOME/.pyenv/versions/3.12.1/bin/python
elif command -v python3.12 >/dev/null 2>&1; then
    PY=$(command -v python3.12)
else
    echo "venv312.sh: no CPython 3.12 found (set PYTHON=/path/to/python3.12)" >&2
    exit 1
fi
"$PY" -c 'import sys; assert sys.version_info[:2] == (3, 12), sys.version' || {
    echo "venv312.sh: $PY is not CPython 3.12" >&2
    exit 1
}

if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
fi
# keep the venv out of git without touching the checkout's .gitignore
[ -f "$VENV/.gitignore" ] || echo '*' > "$VENV/.gitignore"

"$VENV/bin/python" -m pip install --quiet --upgrade pip
# the project (its build runs in an isolated build environment from the package index)
"$VENV/bin/python" -m pip install --quiet -e "$ROOT"
# the peers benchmarks/run.py imports; the versions pinned where the tests pin them; Cython and
# setuptools build robotrules' native driver of workload (n)
"$VENV/bin/python" -m pip install --quiet "protego>=0.3" "robotspy>=0.8" "jwm-robotstxt==1.0.8" \
    "fast-robotstxt==1.1.0" \
    fastrobots "Cython>=3.0" "setuptools>=77"

"$VENV/bin/python" - <<'EOF'
import importlib.metadata as md
import robotrules
native = getattr(robotrules, "NATIVE", False)
print(f"robotrules {robotrules.__version__}: {'native core' if native else 'pure Python (no native core built)'}")
for dist in ("protego", "robotspy", "jwm-robotstxt", "fast-robotstxt", "fastrobots"):
    print(f"{dist} {md.version(dist)}")
EOF

echo
echo "Run the benchmark with CPython 3.12 (fastrobots included):"
echo "    cd $ROOT && .venv312/bin/python benchmarks/run.py --quick"
echo "    cd $ROOT && .venv312/bin/python benchmarks/run.py --json out.json --markdown out.md"
