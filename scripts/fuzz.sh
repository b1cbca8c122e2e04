#!/usr/bin/env bash
# Fuzzes the text parsers (tile and meld notation, actions, ruleset names
# and TOML files, the JSON Lines log replay) through the installed koudian
# for a bounded time: tests/fuzz/fuzz_parsers.py under atheris (libFuzzer),
# from the committed seed corpus (tests/fuzz/corpus, left unchanged: new
# inputs go to a scratch copy). Fails on any finding; the input that found
# it is kept in $KOUDIAN_FUZZ_ARTIFACTS (default target/fuzz-artifacts/).
# Usage: bash scripts/fuzz.sh [PYTHON] [SECONDS]
#   PYTHON: an interpreter with koudian installed (default python3);
#   SECONDS: how long to fuzz (default 90; the CI gate's run).
# A longer local run: bash scripts/fuzz.sh .venv/bin/python 3600
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${1:-python3}
# The run happens in a scratch directory: a relative interpreter path is
# made absolute first (without resolving a venv's symlink).
case $PY in */*) PY="$(cd "$(dirname "$PY")" && pwd)/$(basename "$PY")" ;; esac
SECONDS_TO_RUN=${2:-90}
ARTIFACTS=${KOUDIAN_FUZZ_ARTIFACTS:-$ROOT/target/fuzz-artifacts}
"$PY" -m pip install -q "atheris>=2.3"
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
mkdir -p "$SCRATCH/corpus" "$ARTIFACTS"
cd "$SCRATCH"
# -timeout: one input over 10 s is a hang; -rss_limit_mb: the process
# past 2 GiB is unbounded memory.
"$PY" "$ROOT/tests/fuzz/fuzz_parsers.py" \
    -max_total_time="$SECONDS_TO_RUN" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$ARTIFACTS/" -print_final_stats=1 \
    "$SCRATCH/corpus" "$ROOT/tests/fuzz/corpus"
