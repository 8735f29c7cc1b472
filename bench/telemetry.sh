#!/bin/sh
# Telemetry overhead on the 1024-writer burst: N alternating runs without and
# with telemetry.interval=10us. Prints each run's wall and CPU time (user +
# sys, from /usr/bin/time when present: less disturbed by other jobs on a
# shared box than wall time), the medians and the overhead of the medians.
# Usage: bench/telemetry.sh [N] [path/to/bench_burst]
n=${1:-5}
bin=${2:-./build/bench_burst}
scn=scenarios/bench-1024.yaml
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
one() { # prints "wall cpu"
    if [ -x /usr/bin/time ]; then
        w=$(/usr/bin/time -f '%U %S' -o "$tmp" "$bin" "$scn" "$@" | awk '/^wall/ { print $2 }')
        echo "$w $(awk '{ print $1 + $2 }' "$tmp")"
    else
        w=$("$bin" "$scn" "$@" | awk '/^wall/ { print $2 }')
        echo "$w $w"
    fi
}
offw="" onw="" offc="" onc=""
i=0
while [ "$i" -lt "$n" ]; do
    set -- $(one)
    offw="$offw $1" offc="$offc $2"
    a="$1 s wall, $2 s cpu"
    set -- $(one --set telemetry.interval=10us)
    onw="$onw $1" onc="$onc $2"
    echo "run $i: off $a; on $1 s wall, $2 s cpu"
    i=$((i + 1))
done
"$bin" "$scn" --set telemetry.interval=10us | grep -E 'peak RSS|checksum' | sed 's/^/telemetry on: /'
med() { printf '%s\n' $1 | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
pct() { echo "$1 $2" | awk '{ printf "%.1f%%", 100 * ($2 / $1 - 1) }'; }
echo "median wall: off $(med "$offw") s, on $(med "$onw") s: overhead $(pct "$(med "$offw")" "$(med "$onw")")"
echo "median cpu:  off $(med "$offc") s, on $(med "$onc") s: overhead $(pct "$(med "$offc")" "$(med "$onc")")"
