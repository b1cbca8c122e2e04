#!/usr/bin/env bash
# Installs everything and runs every test: lint gates, the Rust core's tests,
# then the Python suite against a wheel built from the sdist and installed
# into a fresh virtual environment (not editable), so a file missing from
# the sdist or the wheel fails.
# Usage: bash scripts/test.sh        (from anywhere; needs cargo and python3 ≥ 3.10)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PY=${PYTHON:-python3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

echo "== tools"
rustup component add rustfmt clippy >/dev/null 2>&1 || true
"$PY" -m venv "$WORK/tools"
"$WORK/tools/bin/pip" install -q --upgrade pip
# mypy needs the optional dependencies the package type-checks against.
"$WORK/tools/bin/pip" install -q "maturin>=1.7,<2" "ruff>=0.6" "mypy>=1.10" numpy \
    "pettingzoo>=1.24" "gymnasium>=0.29" "tqdm>=4.60" "pytest>=8" "hypothesis>=6" \
    "starlette>=0.37" "uvicorn>=0.29" "websockets>=12" "playwright>=1.40" "psycopg[binary]>=3.2"
export PATH="$WORK/tools/bin:$PATH"

# Lint gates run to the end and fail the run afterwards, so one report shows
# every problem.
FAILED=()
gate() { "$@" || FAILED+=("$*"); }
echo "== lint"
gate cargo fmt --all --check
gate cargo clippy --workspace --all-targets -- -D warnings
# Broken or ambiguous intra-doc links fail too (the crate docs are the API
# reference for Rust users).
gate env RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
# The whole tree: recent ruff also formats the README's Python blocks.
gate ruff check .
gate ruff format --check .
gate mypy --strict python/

echo "== rust tests"
gate cargo test -p koudian-core
# The NEON kernels, cross-compiled and run under qemu-user (as root, the
# tools are installed when missing; without them the step says it skipped).
if [ "$(id -u)" = 0 ]; then
    gate env KOUDIAN_AARCH64_OPTIONAL=1 bash scripts/test_aarch64.sh 1500
fi

echo "== sdist, and the wheel built from it"
# The tested wheel is built from the sdist, not from the tree, so a file
# missing from the sdist fails here. pip builds it in an isolated
# environment with the build backend pyproject.toml names (maturin, from
# PyPI), in release mode. The target directory must be new: maturin stamps
# every sdist file with one fixed old mtime, so cargo would take a previous
# build's artifacts for up to date and ship a stale extension.
maturin sdist --out "$WORK/dist"
SDIST=$(ls "$WORK"/dist/koudian-*.tar.gz)
CARGO_TARGET_DIR="$WORK/wheel-target" \
    "$WORK/tools/bin/pip" wheel -q --no-deps "$SDIST" -w "$WORK/dist"
WHEEL=$(ls "$WORK"/dist/koudian-*.whl)
ls -l "$SDIST" "$WHEEL"

echo "== python tests against the installed wheel"
# The web tests drive Debian's Chromium (never a downloaded browser), the
# rooms tests Debian's PostgreSQL. As root (CI) they are installed when
# missing and the tests must run; otherwise they skip, saying why. Screenshots go to $KOUDIAN_ARTIFACTS.
if [ "$(id -u)" = 0 ]; then
    if [ ! -x /usr/bin/chromium ]; then
        # A failed install fails the browser tests below, saying why.
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } \
            || echo "apt-get install chromium failed"
    fi
    export KOUDIAN_REQUIRE_BROWSER=1
    # The rooms' PostgreSQL tests start Debian's server themselves (a temp
    # data directory, a Unix socket; tests/_postgres.py): required here too.
    if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
        # Only the binaries are used: the package's own cluster is not started
        # (and a container's policy-rc.d refuses to start it anyway).
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; } \
            || echo "apt-get install postgresql failed"
    fi
    export KOUDIAN_REQUIRE_POSTGRES=1
fi
export KOUDIAN_ARTIFACTS=${KOUDIAN_ARTIFACTS:-$ROOT/target/test-artifacts}
"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q --upgrade pip
"$WORK/venv/bin/pip" install -q "${WHEEL}[test]"
# Run from a temporary directory so `python/koudian` in the checkout cannot
# shadow the installed wheel.
cd "$WORK"
gate env KOUDIAN_WHEEL="$WHEEL" KOUDIAN_SDIST="$SDIST" "$WORK/venv/bin/python" -m pytest "$ROOT/tests" \
    -p no:cacheprovider --rootdir "$ROOT" -c "$ROOT/pyproject.toml"

echo "== fuzz the text parsers (bounded)"
gate bash "$ROOT/scripts/fuzz.sh" "$WORK/venv/bin/python" 90

if [ ${#FAILED[@]} -gt 0 ]; then
    printf 'FAILED: %s\n' "${FAILED[@]}"
    exit 1
fi
echo "all gates and tests passed"
