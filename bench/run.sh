#!/bin/sh
# make bench: the benchmark scenarios, one after another (machine: see BENCHMARKS.md).
set -e
cd "$(dirname "$0")/.."
echo "== machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "== default scenario"
./build/bench_burst
echo "== 1024-writer burst (scenarios/bench-1024.yaml)"
./build/bench_burst scenarios/bench-1024.yaml
