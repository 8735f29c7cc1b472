#!/bin/sh
# Two builds of bench_burst (or one build with two option sets) alternated on
# one scenario, the way speed changes are measured on a shared machine: N
# runs of each, interleaved, then the minimum and median wall and user CPU of
# each side (a single run can swing 2x when other tenants load the box; the
# minimum is the figure, the median says how busy it was). Each side's
# results checksum is printed, so a speed change that moved results shows.
# Usage: bench/ab.sh N BIN_A BIN_B [bench_burst args...]
#        bench/ab.sh 8 ./build/bench_burst ./build/bench_burst scenarios/bench-1024.yaml
#   A and B may also be "BIN|extra args", e.g. "./build/bench_burst|--set sim.threads=2"
n=${1:-5}
a=${2:-./build/bench_burst}
b=${3:-./build/bench_burst}
shift 3 2>/dev/null
[ $# -gt 0 ] || set -- scenarios/bench-1024.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
one() { # side file, bin|extra, args...
    f=$1 spec=$2
    shift 2
    bin=${spec%%|*}
    extra=""
    [ "$bin" != "$spec" ] && extra=${spec#*|}
    # shellcheck disable=SC2086
    /usr/bin/time -f '%U' -o "$tmp/u" "$bin" "$@" $extra >"$tmp/out"
    w=$(awk '/^wall/ { print $2 }' "$tmp/out")
    echo "$w $(tail -n 1 "$tmp/u")" >>"$tmp/$f" # (a non-zero exit adds a line first)
    awk '/^results checksum/ { print $3 }' "$tmp/out" >"$tmp/$f.sum"
}
i=0
while [ "$i" -lt "$n" ]; do
    one A "$a" "$@"
    one B "$b" "$@"
    i=$((i + 1))
done
stat() { # file column -> "min med"
    cut -d' ' -f"$2" "$1" | sort -g |
        awk '{ v[NR] = $1 } END { printf "%.3f %.3f", v[1], (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
for s in A B; do
    [ $s = A ] && spec=$a || spec=$b
    set -- $(stat "$tmp/$s" 1) $(stat "$tmp/$s" 2)
    echo "$s ($spec): wall min $1 med $2 s, user min $3 med $4 s, results checksum $(cat "$tmp/$s.sum")"
done
