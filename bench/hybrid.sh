#!/bin/sh
# Hybrid against packet on every shipped scenario (docs/engine.md, "Hybrid:
# validation"): each case runs `ckptnet run S SETS --engine packet|hybrid
# --json F` (the summary kept for hybrid's reason when it skips nothing) and
# prints one table row: completion, paused time, largest queue, the share
# skipped, the error estimate, events and user CPU, each hybrid figure with
# its difference from packet. A row is flagged OUT where completion moves
# more than 1% or paused time or the largest queue more than 5%.
# Cases are scaled (the SETS column, the same for both engines) to what the
# packet engine runs in under a minute or two here; the model scenarios keep
# their fabric and writers and take a smaller custom model (cluster-100k-12500:
# the 12,500-node row's own fabric, ~2 min of packet CPU, 1.4 GB a run).
# SEED=N runs every case at that seed (both engines; the sets column says
# so); SEEDS="1 2 3" runs every case at each seed in turn, a row per seed,
# and ends with the cases out (or failed) at any seed. A row also says where the completion's error is past hybrid's own
# error estimate ("estimate short"): the estimate is not a bound. The flag
# also lists each segment whose largest queue or paused time, and the
# writers' median completion, moves past the same bars ("segments": said,
# not OUT: the issue's bars are on the totals).
# Usage: [SEED=N | SEEDS="N ..."] bench/hybrid.sh [path/to/ckptnet] ["case-name ..."]
# (the case names are whole names: "cluster-100k" runs that case only, not
# cluster-100k-3tier; a name that is no case is an error)
bin=${1:-./build/ckptnet}
only=${2:-}
command -v jq >/dev/null || { echo "bench/hybrid.sh: needs jq (scripts/deps.sh)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name|scenario|sets (space-separated --set values)
cases='default|scenarios/default.yaml|
default-dcqcn|scenarios/default.yaml|transport.cc=dcqcn
bench-1024|scenarios/bench-1024.yaml|
bench-1024-dcqcn|scenarios/bench-1024.yaml|transport.cc=dcqcn
default-swift|scenarios/default.yaml|transport.cc=swift workload.bytes_per_writer=64MB
bench-1024-swift|scenarios/bench-1024.yaml|transport.cc=swift
default-nscc|scenarios/default.yaml|transport.cc=nscc workload.bytes_per_writer=64MB
default-hpcc|scenarios/default.yaml|transport.cc=hpcc workload.bytes_per_writer=64MB
default-dctcp|scenarios/default.yaml|transport.cc=dctcp workload.bytes_per_writer=64MB
default-cubic|scenarios/default.yaml|transport.cc=cubic workload.bytes_per_writer=64MB
uec-lossless|scenarios/transports/uec-lossless.yaml|workload.bytes_per_writer=32MB
bench-1024-3tier|scenarios/bench-1024-3tier.yaml|
cluster-100k|scenarios/cluster-100k.yaml|cluster.nodes=640 storage.nodes=20 model.name=custom model.params=10000000000
cluster-100k-3tier|scenarios/cluster-100k.yaml|cluster.nodes=640 storage.nodes=40 fabric.tiers=3 fabric.hosts_per_leaf=32 fabric.leaves_per_pod=5 fabric.spines_per_pod=32 model.name=custom model.params=5000000000
cluster-100k-12500|scenarios/cluster-100k.yaml|model.name=custom model.params=20000000000
converged-async-70b|scenarios/converged-async-70b.yaml|model.name=custom model.params=100000000
dcp-async-llama3-70b|scenarios/dcp-async-llama3-70b.yaml|model.name=custom model.params=7000000000
llama3-405b-production|scenarios/llama3-405b-production.yaml|model.name=custom model.params=10000000000
megatron-1t|scenarios/megatron-1t.yaml|model.name=custom model.params=10000000000
mlperf-llama3-405b|scenarios/mlperf-llama3-405b.yaml|checkpoint.mlperf=none checkpoint.phase=save model.name=custom model.params=10000000000
mlperf-llama3-70b|scenarios/mlperf-llama3-70b.yaml|checkpoint.mlperf=none checkpoint.phase=save model.name=custom model.params=7000000000
mlperf-llama3-8b|scenarios/mlperf-llama3-8b.yaml|checkpoint.phase=save
size-llama3-405b|scenarios/size-llama3-405b.yaml|model.name=custom model.params=10000000000
size-llama3-405b-hand44|scenarios/size-llama3-405b-hand44.yaml|model.name=custom model.params=10000000000
roce-pfc|scenarios/transports/roce-pfc.yaml|
roce-dcqcn|scenarios/transports/roce-dcqcn.yaml|
roce-hpcc|scenarios/transports/roce-hpcc.yaml|
tcp-dctcp|scenarios/transports/tcp-dctcp.yaml|
uec-lossless|scenarios/transports/uec-lossless.yaml|
uec-lossy|scenarios/transports/uec-lossy.yaml|
uec-lossy-nscc|scenarios/transports/uec-lossy-nscc.yaml|
uec-lossy-rccc|scenarios/transports/uec-lossy-rccc.yaml|'

# one engine: writes $tmp/E.json, $tmp/E.out, $tmp/E.u (user CPU s); 1 on failure
one() { # engine scenario sets
    e=$1 s=$2
    shift 2
    args=""
    for kv in $* ${seed:+seed=$seed}; do args="$args --set $kv"; done
    # shellcheck disable=SC2086
    /usr/bin/time -f '%U' -o "$tmp/$e.u" "$bin" run "$s" $args --engine "$e" \
        --json "$tmp/$e.json" >"$tmp/$e.out" 2>"$tmp/$e.err"
}
fig() { jq -r "$2 // 0" "$tmp/$1.json"; }
# the scenario's MTU in bytes: a largest queue a few packets deep moves by one
# between seeds in the packet engine itself (mlperf-llama3-8b), so a flag says so
mtu() {
    jq -r '.scenario.fabric.mtu | tostring | capture("^(?<n>[0-9.]+) *(?<u>[A-Za-z]*)$") |
        (.n | tonumber) * ({"": 1, "B": 1, "KB": 1000, "KiB": 1024, "MB": 1e6, "MiB": 1048576}[.u] // 1)' \
        "$tmp/packet.json" 2>/dev/null || echo 0
}
rel() { awk -v p="$1" -v h="$2" 'BEGIN { if (p == 0) print (h == 0 ? 0 : 100); else printf "%.3f", 100 * (h / p - 1) }'; }
abs() { echo "$1" | tr -d -; }
over() { awk -v d="$(abs "$1")" -v lim="$2" 'BEGIN { exit !(d > lim) }'; }

for n in $only; do
    echo "$cases" | cut -d'|' -f1 | grep -qx -- "$n" ||
        { echo "bench/hybrid.sh: no case named '$n' (the names: $(echo "$cases" | cut -d'|' -f1 | tr '\n' ' '))" >&2; exit 2; }
done

echo "| case | sets | completion p / h (diff) | paused p / h (diff) | max queue p / h (diff) | skipped, jumps | error estimate | events p / h | user CPU p / h | flag |"
echo "|---|---|---|---|---|---|---|---|---|---|"
: >"$tmp/out"
: >"$tmp/segs"
echo "$cases" | while IFS='|' read -r name scn sets0; do
    [ -n "$only" ] && case " $only " in *" $name "*) ;; *) continue ;; esac
    for seed in ${SEEDS:-${SEED:--}}; do
    [ "$seed" = - ] && seed=""
    sets=$sets0
    if ! one packet "$scn" $sets; then
        echo "| $name | $sets | packet failed: $(head -c 200 "$tmp/packet.err" | tr '\n|' ' /') | | | | | | | |"
        echo "$name${seed:+ (seed $seed)}: packet failed" >>"$tmp/out"
        continue
    fi
    if ! one hybrid "$scn" $sets; then
        echo "| $name | $sets | hybrid failed: $(head -c 200 "$tmp/hybrid.err" | tr '\n|' ' /') | | | | | | | |"
        echo "$name${seed:+ (seed $seed)}: hybrid failed" >>"$tmp/out"
        continue
    fi
    pc=$(fig packet .checkpoint.completion_s) hc=$(fig hybrid .checkpoint.completion_s)
    pp=$(fig packet .network.pfc.paused_s) hp=$(fig hybrid .network.pfc.paused_s)
    pq=$(fig packet .network.max_queue_bytes) hq=$(fig hybrid .network.max_queue_bytes)
    pe=$(fig packet .perf.events) he=$(fig hybrid .perf.events)
    dc=$(rel "$pc" "$hc") dp=$(rel "$pp" "$hp") dq=$(rel "$pq" "$hq")
    frac=$(fig hybrid .hybrid.fast_forwarded_fraction) jumps=$(fig hybrid .hybrid.jumps)
    err=$(fig hybrid .hybrid.error_estimate_s)
    flag=""
    over "$dc" 1 && flag="$flag completion"
    over "$dp" 5 && flag="$flag paused"
    over "$dq" 5 && flag="$flag max-queue$(awk -v p="$pq" -v h="$hq" -v m="$(mtu)" \
        'BEGIN { d = h - p; if ((d < 0 ? -d : d) <= m) printf " (%+d B: within one MTU)", d }')"
    [ -n "$flag" ] && flag="OUT:$flag"
    # per segment (the bars are on the totals; these are said, not OUT): a
    # segment's largest queue off by over 5% and one MTU, its paused time
    # off by over 5% and 1% of the run's, the writers' median completion
    # off by over 1%
    segs=$(jq -n -r --slurpfile p "$tmp/packet.json" --slurpfile h "$tmp/hybrid.json" --argjson m "$(mtu)" '
        def rel(a; b): if a == 0 then 100 else 100 * (b / a - 1) end;
        def big(a; b; lim; floor): (rel(a; b) | fabs) > lim and ((b - a) | fabs) > floor;
        def pct(a; b; k): rel(a; b) * k | round / k | if . >= 0 then "+\(.)%" else "\(.)%" end;
        ($p[0].network) as $pn | ($h[0].network) as $hn |
        [ ($pn.queues // {} | to_entries[]) as $e | ($hn.queues[$e.key].max_bytes // 0) as $b |
            select(big($e.value.max_bytes; $b; 5; $m)) |
            "queue \($e.key) \(pct($e.value.max_bytes; $b; 100))" ] +
        [ ($pn.pfc.paused_s_by_segment // {} | to_entries[]) as $e |
            ($hn.pfc.paused_s_by_segment[$e.key] // 0) as $b |
            select(big($e.value; $b; 5; 0.01 * $pn.pfc.paused_s)) |
            "paused \($e.key) \(pct($e.value; $b; 100))" ] +
        [ ($p[0].checkpoint.writer_completion_s.p50 // 0) as $a |
            ($h[0].checkpoint.writer_completion_s.p50 // 0) as $b |
            select($a > 0 and (rel($a; $b) | fabs) > 1) |
            "writers p50 \(pct($a; $b; 1000))" ] | join(", ")' 2>/dev/null)
    if [ -n "$segs" ]; then
        flag="${flag:+$flag; }segments: $segs"
        echo "$name${seed:+ (seed $seed)}: $segs" >>"$tmp/segs"
    fi
    awk -v p="$pc" -v h="$hc" -v e="$err" 'BEGIN { d = h - p; exit !((d < 0 ? -d : d) > e) }' &&
        flag="${flag:+$flag; }estimate short"
    [ "$jumps" = 0 ] && flag="${flag:+$flag; }skips nothing$(sed -n 's/.*no fast-forward: \(.*\)$/ (\1)/p' "$tmp/hybrid.out")"
    [ "$(fig packet .engine)" = packet ] && [ "$(fig hybrid .engine)" = hybrid ] ||
        flag="$flag; engines $(fig packet .engine) / $(fig hybrid .engine)"
    [ -n "$seed" ] && sets="${sets:+$sets }seed=$seed"
    case "$flag" in OUT*) echo "$name${seed:+ (seed $seed)}: ${flag%%;*}" >>"$tmp/out" ;; esac
    awk -v n="$name" -v s="${sets:-(as shipped)}" -v pc="$pc" -v hc="$hc" -v dc="$dc" \
        -v pp="$pp" -v hp="$hp" -v dp="$dp" -v pq="$pq" -v hq="$hq" -v dq="$dq" \
        -v fr="$frac" -v j="$jumps" -v er="$err" -v pe="$pe" -v he="$he" \
        -v pu="$(tail -n 1 "$tmp/packet.u")" -v hu="$(tail -n 1 "$tmp/hybrid.u")" -v f="${flag:-ok}" 'BEGIN {
        printf "| %s | %s | %.6f / %.6f ms (%+.3f%%) | %.4g / %.4g s (%+.2f%%) | %.4g / %.4g MB (%+.2f%%) | %.1f%%, %d | %.3g us | %.4g / %.4g M | %.2f / %.2f s | %s |\n",
            n, s, pc * 1e3, hc * 1e3, dc, pp, hp, dp, pq / 1e6, hq / 1e6, dq, 100 * fr, j,
            er * 1e6, pe / 1e6, he / 1e6, pu, hu, f }'
    done
done
if [ -n "$SEEDS" ]; then
    echo
    if [ -s "$tmp/out" ]; then echo "Out of the bars at a seed:"; sed 's/^/- /' "$tmp/out"
    else echo "Every case within the bars at seeds $SEEDS."; fi
    if [ -s "$tmp/segs" ]; then echo; echo "Segment figures off at a seed (said, not a bar):"; sed 's/^/- /' "$tmp/segs"; fi
fi
