#!/bin/sh
# CI hook: fuzz the scenario loader for FUZZ_SECONDS (default 60) when clang
# with libFuzzer is available; otherwise say so visibly and succeed.
# Usage: scripts/fuzz-ci.sh   (from the repository root)
set -e
cc=${FUZZ_CC:-clang}
seconds=${FUZZ_SECONDS:-60}
note() { echo "fuzz-ci: NOTE: $*" >&2; }
if ! command -v "$cc" >/dev/null 2>&1; then
    note "no $cc: scenario fuzzing skipped (Debian: apt-get install clang libclang-rt-14-dev)"
    exit 0
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\n%s\n' \
    'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
    >"$probe/p.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined -o "$probe/p" "$probe/p.c" >/dev/null 2>&1; then
    note "$cc has no libFuzzer: scenario fuzzing skipped (Debian: apt-get install libclang-rt-14-dev)"
    exit 0
fi
echo "fuzz-ci: fuzzing the scenario loader for ${seconds}s"
make -j"$(nproc 2>/dev/null || echo 1)" fuzz FUZZ_CC="$cc" FUZZ_SECONDS="$seconds"
