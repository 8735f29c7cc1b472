#!/bin/sh
# Instructions and last-level misses a packet (cachegrind's cache model:
# D1 48 KB 12-way, LL 8 MB 16-way as bench/cgsteady.sh; deterministic, so
# one run judges a change at any load): 4,096 writers' steady state (a run
# cut at 12 ms less one cut at 3 ms), 1,024 writers' whole run and 128
# writers' at 64 MB a writer (bench/flat.sh's case), one thread; with each
# run's results checksum. Two valgrinds at a time.
# Usage: bench/llsizes.sh BIN [OUTDIR]
b=${1:?usage: bench/llsizes.sh BIN [OUTDIR]}
d=${2:-$(mktemp -d)}
mkdir -p "$d"
run() {
    tag=$1
    shift
    valgrind --tool=cachegrind --cache-sim=yes --D1=49152,12,64 --LL=8388608,16,64 \
        --cachegrind-out-file="$d/cg.$tag" "$b" \
        scenarios/bench-1024.yaml --set sim.threads=1 "$@" >"$d/run.$tag" 2>&1
}
run 3ms --set cluster.nodes=4096 --set sim.time_limit=3ms &
run 12ms --set cluster.nodes=4096 --set sim.time_limit=12ms
wait
run 128 --set cluster.nodes=128 --set workload.bytes_per_writer=64MB &
run 1024 --set cluster.nodes=1024
wait
# summary: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
ir() { awk '/^summary:/ { print $2 }' "$d/cg.$1"; }
ll() { awk '/^summary:/ { print $7 + $10 }' "$d/cg.$1"; }
pk() { awk '/^packets delivered/ { print $3 }' "$d/run.$1"; }
cs() { awk '/^results checksum/ { print $3 }' "$d/run.$1"; }
awk -v i1="$(ir 3ms)" -v i2="$(ir 12ms)" -v l1="$(ll 3ms)" -v l2="$(ll 12ms)" \
    -v p1="$(pk 3ms)" -v p2="$(pk 12ms)" -v c="$(cs 3ms) $(cs 12ms)" 'BEGIN {
    printf "4096 steady: %d packets, %.1f instructions, %.3f LL misses a packet (checksums %s)\n",
        p2 - p1, (i2 - i1) / (p2 - p1), (l2 - l1) / (p2 - p1), c }'
for w in 128 1024; do
    awk -v i="$(ir $w)" -v l="$(ll $w)" -v p="$(pk $w)" -v w=$w -v c="$(cs $w)" 'BEGIN {
        printf "%d whole: %d packets, %.1f instructions, %.3f LL misses a packet (checksum %s)\n",
            w, p, i / p, l / p, c }'
done
