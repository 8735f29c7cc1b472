#!/bin/sh
# The packet engine's flatness on one thread (issue 30 item 2), each size
# long enough to time: 128 writers of scenarios/bench-1024.yaml with 64 MB a
# writer (2.0 M packets, ~0.6 s: the shipped 8 MB lasts 0.05 s, below the
# timer's 0.01 s), 1,024 and 4,096 writers as shipped (2.0 M and 8.0 M
# packets). The sizes run in turn each round (the load drifts alike over
# the three); prints each size's user CPU minimum and median, ns a packet
# (user CPU over packets delivered) and each size's ratio to 128 writers'.
# Usage: bench/flat.sh [BIN [ROUNDS [bench_burst args...]]]
# FLAT_SMALL: 128 writers' bytes a writer (empty: as shipped, bench/sizes.sh).
bin=${1:-./build/bench_burst}
r=${2:-5}
small=${FLAT_SMALL-64MB}
shift 2 2>/dev/null || shift $#
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
while [ "$i" -lt "$r" ]; do
    for w in 128 1024 4096; do
        extra=
        [ "$w" = 128 ] && [ -n "$small" ] && extra="--set workload.bytes_per_writer=$small"
        # shellcheck disable=SC2086
        /usr/bin/time -f '%U' -o "$tmp/u" "$bin" scenarios/bench-1024.yaml \
            --set cluster.nodes=$w --set sim.threads=1 $extra "$@" >"$tmp/out"
        echo "$(cat "$tmp/u") $(awk '/^packets delivered/ { print $3 }' "$tmp/out")" >>"$tmp/$w"
    done
    i=$((i + 1))
done
for w in 128 1024 4096; do
    sort -g "$tmp/$w" | awk -v w=$w '{ u[NR] = $1; p = $2 } END {
        m = (NR % 2) ? u[(NR + 1) / 2] : (u[NR / 2] + u[NR / 2 + 1]) / 2
        printf "%d %.3f %.3f %d %.1f %.1f\n", w, u[1], m, p, u[1] / p * 1e9, m / p * 1e9 }'
done | awk '{ if (NR == 1) { b = $5; bm = $6 }
    printf "%5d writers: user min %.3f med %.3f s, %d packets, %.0f ns a packet by the min (%.0f by the median), %.2fx / %.2fx 128 writers'"'"'\n",
        $1, $2, $3, $4, $5, $6, $5 / b, $6 / bm }'
