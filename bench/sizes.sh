#!/bin/sh
# The packet engine's flatness on one thread (issue 30 item 2): user CPU at
# 128, 1,024 and 4,096 writers of scenarios/bench-1024.yaml, the sizes taken
# in turn each round (so the machine's load drifts alike over all three),
# then each size's minimum and median and ns a packet (user CPU over packets
# delivered). The 128-writer run lasts ~0.07 s: the timer's 0.01 s is ~14%.
# Usage: bench/sizes.sh [BIN [ROUNDS [bench_burst args...]]]
bin=${1:-./build/bench_burst}
r=${2:-6}
shift 2 2>/dev/null || shift $#
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
while [ "$i" -lt "$r" ]; do
    for w in 128 1024 4096; do
        /usr/bin/time -f '%U' -o "$tmp/u" "$bin" scenarios/bench-1024.yaml \
            --set cluster.nodes=$w --set sim.threads=1 "$@" >"$tmp/out"
        echo "$(cat "$tmp/u") $(awk '/^packets delivered/ { print $3 }' "$tmp/out")" >>"$tmp/$w"
    done
    i=$((i + 1))
done
for w in 128 1024 4096; do
    sort -g "$tmp/$w" | awk -v w=$w '{ u[NR] = $1; p = $2 } END {
        m = (NR % 2) ? u[(NR + 1) / 2] : (u[NR / 2] + u[NR / 2 + 1]) / 2
        printf "%5d writers: user min %.3f med %.3f s, %d packets, %.0f ns a packet by the min (%.0f by the median)\n",
            w, u[1], m, p, u[1] / p * 1e9, m / p * 1e9 }'
done
