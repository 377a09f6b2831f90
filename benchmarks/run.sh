#!/usr/bin/env bash
# Run every benchmark against autogradlab and its peers, and write benchmarks/RESULTS.md.
#
#   bash benchmarks/run.sh             # full run (~5 min): results/latest.json + RESULTS.md
#   bash benchmarks/run.sh --quick     # any run.py options instead (then RESULTS.md is not written)
#
# The peers live in their own venv, .venv-bench/ at the repository root (git-ignored; override
# with BENCH_VENV=/path). It is created on first use: pinned peers from requirements-bench.txt,
# plus this project in editable mode.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
VENV="${BENCH_VENV:-$ROOT/.venv-bench}"
PY="${PYTHON:-python3}"

if ! "$VENV/bin/python" -c "import torch, autograd, mygrad, micrograd, autogradlab" >/dev/null 2>&1; then
  echo "== setting up $VENV (pinned peers from benchmarks/requirements-bench.txt + autogradlab -e)" >&2
  [ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install -q -r "$HERE/requirements-bench.txt"
  "$VENV/bin/pip" install -q -e "$ROOT"
fi

cd "$ROOT"
if [ "$#" -eq 0 ]; then
  set -- --markdown benchmarks/RESULTS.md
  export BENCH_COMMAND="bash benchmarks/run.sh"
fi
exec "$VENV/bin/python" "$HERE/run.py" "$@"
