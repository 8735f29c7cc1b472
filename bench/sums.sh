#!/bin/sh
# The packet engine's results checksums on the cases every packet branch
# shows (BENCHMARKS.md), for one build or two: each case's checksum, "same"
# or "DIFFER" against the second build. One thread unless the case says
# (its --set comes after the default one).
# Usage: bench/sums.sh BIN [BIN_MAIN]
a=$1 b=$2
# `make all` does not rebuild bench_burst: a stale one checks old code.
newer=$(find src bench -name '*.[ch]' -newer "$a" 2>/dev/null | head -n 1)
[ -z "$newer" ] || echo "sums.sh: $a is older than $newer (make $a first)" >&2
s=scenarios/bench-1024.yaml
n256="--set cluster.nodes=256"
while IFS='|' read -r name args; do
    [ -n "$name" ] || continue
    first=${args%% *} rest=
    case $args in *" "*) rest=${args#* } ;; esac
    # shellcheck disable=SC2086
    ca=$("$a" $first --set sim.threads=1 $rest 2>&1 | awk '/^results checksum/ { print $3 }')
    line="$name $ca"
    if [ -n "$b" ]; then
        # shellcheck disable=SC2086
        cb=$("$b" $first --set sim.threads=1 $rest 2>&1 | awk '/^results checksum/ { print $3 }')
        [ "$ca" = "$cb" ] && line="$line same" || line="$line DIFFER ($cb)"
    fi
    echo "$line"
done <<CASES
256|$s $n256
256-two-threads|$s $n256 --set sim.threads=2
dcqcn|$s $n256 --set transport.cc=dcqcn
spray-ooo|$s $n256 --set fabric.load_balancing=spray --set transport.receiver=ooo
128|$s --set cluster.nodes=128
1024|$s --set cluster.nodes=1024
4096|$s --set cluster.nodes=4096
3tier|scenarios/bench-1024-3tier.yaml
128-64MB|$s --set cluster.nodes=128 --set workload.bytes_per_writer=64MB
watchdog-stuck|$s $n256 --set fabric.pfc.watchdog=true --set storage.stuck_nodes=1 --set storage.ingest_buffer=64MB
hpcc|$s $n256 --set transport.cc=hpcc
swift|$s $n256 --set transport.cc=swift
nscc|$s $n256 --set transport.cc=nscc
dctcp|$s $n256 --set transport.cc=dctcp
cubic|$s $n256 --set transport.cc=cubic
uec-rccc|$s $n256 --set transport.cc=nscc --set transport.protocol=uec --set transport.uec.rccc=true
requests|$s $n256 --set storage.max_outstanding=2 --set storage.request_size=64KB
nfs|$s $n256 --set storage.protocol=nfs
nics2|$s $n256 --set storage.nics_per_node=2
pfc-off-3MB|$s $n256 --set fabric.pfc.enabled=false --set workload.bytes_per_writer=3MB
CASES
