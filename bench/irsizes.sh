#!/bin/sh
# Instructions a packet (cachegrind, no cache model: deterministic, so one
# run judges a change on a loaded machine): 4,096 writers' steady state
# (a run cut at 12 ms less one cut at 3 ms, start-up and set-up dropped),
# and 128 and 1,024 writers' whole runs, one thread; with each run's
# results checksum. Two valgrinds at a time.
# Usage: bench/irsizes.sh BIN [OUTDIR]
b=${1:?usage: bench/irsizes.sh BIN [OUTDIR]}
d=${2:-$(mktemp -d)}
mkdir -p "$d"
run() {
    tag=$1
    shift
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$d/cg.$tag" "$b" \
        scenarios/bench-1024.yaml --set sim.threads=1 "$@" >"$d/run.$tag" 2>&1
}
run 3ms --set cluster.nodes=4096 --set sim.time_limit=3ms &
run 12ms --set cluster.nodes=4096 --set sim.time_limit=12ms
wait
run 128 --set cluster.nodes=128 &
run 1024 --set cluster.nodes=1024
wait
ir() { awk '/^summary:/ { print $2 }' "$d/cg.$1"; }
pk() { awk '/^packets delivered/ { print $3 }' "$d/run.$1"; }
cs() { awk '/^results checksum/ { print $3 }' "$d/run.$1"; }
awk -v i1="$(ir 3ms)" -v i2="$(ir 12ms)" -v p1="$(pk 3ms)" -v p2="$(pk 12ms)" \
    -v c="$(cs 3ms) $(cs 12ms)" 'BEGIN {
    printf "4096 steady: %.0f instructions, %d packets, %.1f a packet (checksums %s)\n",
        i2 - i1, p2 - p1, (i2 - i1) / (p2 - p1), c }'
for w in 128 1024; do
    awk -v i="$(ir $w)" -v p="$(pk $w)" -v w=$w -v c="$(cs $w)" 'BEGIN {
        printf "%d whole: %.0f instructions, %d packets, %.1f a packet (checksum %s)\n",
            w, i, p, i / p, c }'
done
