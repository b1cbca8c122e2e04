#!/usr/bin/env bash
# The Rust core's SIMD tests on aarch64, where the batch kernels run on
# NEON: rust/core/tests/simd.rs (every kernel against the scalar path and
# the brute-force searches, every wild count) and the unit tests of
# src/simd (NEON's lane operations among them), in release mode. On an
# x86-64 host the core is cross-compiled and the tests run under
# qemu-user; on an aarch64 host they run natively.
#
# As root, installs what is missing: the rustup target, Debian's cross
# gcc (the linker) and qemu-user. The linker and runner are set here, in
# the environment, not in .cargo/config.toml, whose settings would apply
# to native aarch64 builds too.
#
# Usage: bash scripts/test_aarch64.sh [SECONDS]
#   SECONDS bounds the build and the tests together (default 1800); the
#   run fails when they take longer. CARGO_TARGET_DIR is honoured.
#   KOUDIAN_AARCH64_OPTIONAL=1 (scripts/test.sh) turns a failure to get
#   the cross tools (no network to the rustup or Debian servers) into a
#   skip that says so; a failed build or test still fails.
set -euo pipefail
cd "$(dirname "$0")/.."
LIMIT=${1:-1800}
TARGET=aarch64-unknown-linux-gnu

if [ "$(uname -m)" != aarch64 ]; then
    echo "== cross tools for $TARGET"
    # Why the tools are missing, as a skip (when optional) or a failure.
    no_tools() {
        echo "test_aarch64.sh: $1" >&2
        if [ "${KOUDIAN_AARCH64_OPTIONAL:-0}" = 1 ]; then
            echo "test_aarch64.sh: skipped: the NEON kernels were not tested" >&2
            exit 0
        fi
        exit 1
    }
    if ! rustup target list --installed | grep -qx "$TARGET"; then
        rustup target add "$TARGET" || no_tools "rustup target add $TARGET failed"
    fi
    if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
        if [ "$(id -u)" != 0 ]; then
            no_tools "missing aarch64-linux-gnu-gcc or qemu-aarch64: install Debian's gcc-aarch64-linux-gnu and qemu-user (or run this as root)"
        fi
        { apt-get update -qq \
            && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-aarch64-linux-gnu qemu-user; } \
            || no_tools "apt-get install gcc-aarch64-linux-gnu qemu-user failed"
    fi
    export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
    export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
fi

# What is left of the time bound, for the next step (at least 1 s).
left() { echo $((LIMIT - SECONDS > 0 ? LIMIT - SECONDS : 1)); }
run() {
    timeout --foreground -k 10 "$(left)" "$@" || {
        status=$?
        [ $status = 124 ] && echo "test_aarch64.sh: over the ${LIMIT} s bound" >&2
        exit $status
    }
}
CARGO=(cargo test -p koudian-core --release --target "$TARGET")

echo "== build ($TARGET, release)"
run "${CARGO[@]}" --lib --test simd --no-run
echo "== src/simd unit tests"
run "${CARGO[@]}" --lib simd::
echo "== tests/simd.rs"
run "${CARGO[@]}" --test simd
echo "aarch64 SIMD tests passed in ${SECONDS} s"
