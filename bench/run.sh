#!/bin/sh
# make bench: the benchmark scenarios, one after another (machine: see BENCHMARKS.md).
set -e
cd "$(dirname "$0")/.."
echo "== machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "== default scenario"
./build/bench_burst
echo "== 1024-writer burst (scenarios/bench-1024.yaml)"
./build/bench_burst scenarios/bench-1024.yaml
echo "== flat scaling: the same fabric and 8 MB per writer, 128, 2048 and 4096 writers (issue 15)"
for nodes in 128 2048 4096; do
    echo "== bench-1024 with cluster.nodes=$nodes"
    ./build/bench_burst scenarios/bench-1024.yaml --set cluster.nodes=$nodes
done
echo "== two threads (sim.threads=2): 128, 1024 and 4096 writers, and 1024 with DCQCN (issue 15's flat and DCQCN targets)"
./build/bench_burst scenarios/bench-1024.yaml --set cluster.nodes=128 --set sim.threads=2
./build/bench_burst scenarios/bench-1024.yaml --set sim.threads=2
./build/bench_burst scenarios/bench-1024.yaml --set cluster.nodes=4096 --set sim.threads=2
./build/bench_burst scenarios/bench-1024.yaml --set transport.cc=dcqcn --set sim.threads=2
echo "== 1024-writer burst with DCQCN (cnp_path auto, the default: direct here, the reverse paths carry only ACKs and CNPs)"
./build/bench_burst scenarios/bench-1024.yaml --set transport.cc=dcqcn
echo "== the same, CNPs hop by hop through the fabric (transport.dcqcn.cnp_path=fabric: a model choice, other results)"
./build/bench_burst scenarios/bench-1024.yaml --set transport.cc=dcqcn --set transport.dcqcn.cnp_path=fabric
for lb in wcmp "flowlet --set transport.receiver=ooo" "adaptive --set transport.receiver=ooo" \
          "adaptive --set fabric.lb.adaptive_per_packet=true --set transport.receiver=ooo" \
          "spray --set transport.receiver=ooo"; do
    echo "== 1024-writer burst, fabric.load_balancing=$lb"
    # shellcheck disable=SC2086
    ./build/bench_burst scenarios/bench-1024.yaml --set fabric.load_balancing=$lb
done
echo "== fluid engine: Llama 3 405B on 16,384 GPUs (scenarios/llama3-405b-production.yaml)"
./build/bench_fluid scenarios/llama3-405b-production.yaml
echo "== fluid engine: 100,000 GPUs (scenarios/cluster-100k.yaml)"
./build/bench_fluid scenarios/cluster-100k.yaml
echo "== whole process, 100,000 nodes (800,000 GPUs and transfers) on a radix-true three-tier fabric (issue 13)"
big="run scenarios/cluster-100k.yaml --set cluster.nodes=100000 --set storage.nodes=1920
     --set fabric.switch=generic-51.2T --set fabric.breakout=2 --quiet --json /dev/null"
if [ -x /usr/bin/time ]; then
    # shellcheck disable=SC2086
    /usr/bin/time -f "wall %e s, user %U s, sys %S s, peak RSS %M KB" ./build/ckptnet $big
else
    echo "(no /usr/bin/time: apt-get install time for user CPU and peak RSS)"
    s0=$(date +%s.%N)
    # shellcheck disable=SC2086
    ./build/ckptnet $big
    echo "wall $(awk -v a="$s0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s"
fi
echo "== fluid engine: wall time against flows, 1/5 .. 5/5 of scenarios/cluster-100k.yaml"
./build/bench_fluid --growth scenarios/cluster-100k.yaml
echo "== fluid engine against the packet engine and the bound (docs/fluid.md)"
./build/bench_agree
echo "== fluid engine, stress: writers start over 500 ms (a rate update per start and per end)"
./build/bench_fluid --growth scenarios/cluster-100k.yaml --set checkpoint.policy=jitter --set checkpoint.offset=500ms
./build/bench_fluid scenarios/llama3-405b-production.yaml --set checkpoint.policy=jitter --set checkpoint.offset=500ms
echo "== telemetry overhead: 1024-writer burst with telemetry.interval=10us against without"
./bench/telemetry.sh 5
