#!/bin/sh
# The packet engine's steady state under valgrind, per source line: a run cut
# at two simulated times (sim.time_limit), the first subtracted from the
# second line by line (valgrind 3.19's cg_diff writes every line number as 0),
# so start-up and set-up drop out. Prints the totals, then the lines with the
# most of one count: LL misses (cache model: an 8 MB last level by default,
# what this machine's shared last level holds) or, with MODE=branch, branch
# mispredictions (cachegrind's simple predictor). Build with
# CFLAGS=-DCKPT_PREFETCH_LOADS to see which misses the engine's prefetches
# hide (src/core/prefetch.h: each hint becomes a load, charged to its line).
# Usage: bench/cgsteady.sh BIN [CUT1 CUT2 [TOP [bench_burst args...]]]
#   bench/cgsteady.sh ./build/bench_burst 3ms 12ms 25 scenarios/bench-1024.yaml --set cluster.nodes=4096
# Environment: MODE=cache|branch, LL=bytes (8388608), OUT=dir (kept files).
bin=${1:?usage: bench/cgsteady.sh BIN [CUT1 CUT2 [TOP [args...]]]}
c1=${2:-3ms}
c2=${3:-12ms}
top=${4:-25}
shift 4 2>/dev/null || shift $#
[ $# -gt 0 ] || set -- scenarios/bench-1024.yaml --set cluster.nodes=4096
mode=${MODE:-cache}
ll=${LL:-8388608}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
for c in "$c1" "$c2"; do
    if [ "$mode" = branch ]; then
        sim="--cache-sim=no --branch-sim=yes"
    else
        sim="--cache-sim=yes --D1=49152,12,64 --LL=$ll,16,64"
    fi
    # shellcheck disable=SC2086
    valgrind --tool=cachegrind $sim --cachegrind-out-file="$out/cg.$c" "$bin" "$@" \
        --set sim.threads=1 --set sim.time_limit="$c" >"$out/run.$c" 2>&1
    # a cut run exits non-zero (transfers unfinished): its counts are what is wanted
    [ -s "$out/cg.$c" ] || { echo "bench/cgsteady.sh: the $c run failed ($out/run.$c)" >&2; exit 1; }
    grep '^packets delivered\|^events\|^results checksum' "$out/run.$c" | sed "s/^/$c: /"
done
# columns: cache Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw; branch Ir Bc Bcm Bi Bim
awk -v mode="$mode" -v top="$top" -v c1="$out/cg.$c1" '
    /^fl=/ { fl = substr($0, 4); n = split(fl, parts, "/"); fl = parts[n]; next }
    !/^[0-9]/ { next }
    {
        s = (FILENAME == c1) ? -1 : 1
        k = fl ":" $1
        for (i = 2; i <= NF; i++) v[k, i] += s * $i
        keys[k] = 1
        for (i = 2; i <= NF; i++) tot[i] += s * $i
        nf = NF
    }
    END {
        if (mode == "branch") {
            printf "steady state: Ir %.0f, branches %.0f, mispredicted %.0f (cond %.0f, ind %.0f)\n",
                tot[2], tot[3] + tot[5], tot[4] + tot[6], tot[4], tot[6]
            a = 4; b = 6
        } else {
            printf "steady state: Ir %.0f, D1 misses %.0f (rd %.0f wr %.0f), LL misses %.0f (rd %.0f wr %.0f)\n",
                tot[2], tot[6] + tot[9], tot[6], tot[9], tot[7] + tot[10], tot[7], tot[10]
            a = 7; b = 10
        }
        for (k in keys) {
            x = v[k, a] + v[k, b]
            if (x > 0) printf "%10.0f %10.0f %10.0f  %s\n", x, v[k, a], v[k, b], k | "sort -rn | head -" top
        }
    }' "$out/cg.$c1" "$out/cg.$c2"
[ -n "${OUT:-}" ] || rm -rf "$out"
