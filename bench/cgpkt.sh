#!/bin/sh
# Instructions a packet of one bench_burst run under cachegrind (no cache
# simulation: deterministic), and the run's results checksum.
# Usage: bench/cgpkt.sh BIN [bench_burst args...]
#        bench/cgpkt.sh ./build/bench_burst scenarios/bench-1024.yaml --set cluster.nodes=256
bin=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$tmp/cg" "$bin" "$@" \
    --set sim.threads=1 >"$tmp/out" 2>"$tmp/err"
ir=$(awk '/I[ ]+refs:/ { gsub(",", "", $NF); print $NF }' "$tmp/err")
pk=$(awk '/^packets delivered/ { print $3 }' "$tmp/out")
sum=$(awk '/^results checksum/ { print $3 }' "$tmp/out")
echo "$ir $pk $sum" | awk '{ printf "%.0f instructions, %d packets, %.1f a packet, results checksum %s\n", $1, $2, $1 / $2, $3 }'
