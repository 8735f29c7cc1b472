#!/bin/sh
# The packet engine's flatness on one thread (issue 30 item 2): bench/flat.sh
# with every size as shipped (the 128-writer run lasts ~0.07 s: the timer's
# 0.01 s is ~14% of it; bench/flat.sh times a longer one), 6 rounds unless
# told. Kept for the commands of BENCHMARKS.md's earlier sections.
# Usage: bench/sizes.sh [BIN [ROUNDS [bench_burst args...]]]
bin=${1:-./build/bench_burst}
r=${2:-6}
shift 2 2>/dev/null || shift $#
FLAT_SMALL= exec sh "$(dirname "$0")/flat.sh" "$bin" "$r" "$@"
