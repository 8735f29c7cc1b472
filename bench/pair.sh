#!/bin/sh
# Two builds run at the same time, each pinned to one of two cores, the
# cores swapped every round, so the other tenants' load falls on both alike;
# prints each round's user CPU of A and B and B / A, then the ratios' median,
# the ratio of the sums, and their range. Run A against A for the noise
# floor (BENCHMARKS.md, step 14: as wide as bench/ab.sh's at load 8-10).
# Usage: bench/pair.sh N BIN_A BIN_B [bench_burst args...]
n=$1 a=$2 b=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
while [ "$i" -lt "$n" ]; do
    ca=$((i % 2))
    taskset -c $ca /usr/bin/time -f %U -o "$tmp/ua" "$a" "$@" >"$tmp/oa" &
    pa=$!
    taskset -c $((1 - ca)) /usr/bin/time -f %U -o "$tmp/ub" "$b" "$@" >"$tmp/ob" &
    pb=$!
    wait $pa $pb
    # the time's last line: a run that exits non-zero (a time limit) has
    # /usr/bin/time write "Command exited with non-zero status" first
    echo "$(tail -n 1 "$tmp/ua") $(tail -n 1 "$tmp/ub")" | awk '{ printf "%.3f %.3f %.4f\n", $1, $2, $2 / $1 }' |
        tee -a "$tmp/r"
    [ "$(awk '/^results checksum/ { print $3 }' "$tmp/oa")" = \
        "$(awk '/^results checksum/ { print $3 }' "$tmp/ob")" ] || echo "results checksums differ"
    i=$((i + 1))
done
sort -k3 -g "$tmp/r" | awk '{ u[NR] = $3; a += $1; b += $2 } END {
    m = (NR % 2) ? u[(NR + 1) / 2] : (u[NR / 2] + u[NR / 2 + 1]) / 2
    printf "B/A median %.4f, sums %.3f / %.3f = %.4f, range %.4f-%.4f\n", m, a, b, b / a, u[1], u[NR] }'
