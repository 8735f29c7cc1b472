#!/bin/sh
# Hybrid against packet on random small fabrics: each case's invariants and
# completion (hybrid within 1% and at or above its bound, or BAD), and
# whether its error passed hybrid's own estimate ("past its estimate").
# Usage: bench/hybfuzz.sh BIN [N] [FIRST]   # N cases (20) from case FIRST (1)
# A case is fixed by its number (the draw below), so a BAD line reruns alone.
bin=${1:?usage: bench/hybfuzz.sh BIN [N] [FIRST]} n=${2:-20} first=${3:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0 past=0
i=$first
while [ "$i" -lt $((first + n)) ]; do
    # the case's draw: an LCG seeded by its number, one pick a key
    kv=$(awk -v s="$i" 'BEGIN {
        x = s * 2654435761 % 4294967296
        split("1 2 3 4 8 16 32", nodes, " "); split("1Gbps 10Gbps 25Gbps 100Gbps 400Gbps", nic, " ")
        split("10Gbps 100Gbps 400Gbps", snic, " "); split("1 2 4", sn, " "); split("none dcqcn", cc, " ")
        split("4MB 16MB 64MB", mb, " "); split("save restore", ph, " ")
        x = (x * 1103515245 + 12345) % 2147483648; a = nodes[int(x / 2147483648 * 7) + 1]
        x = (x * 1103515245 + 12345) % 2147483648; b = nic[int(x / 2147483648 * 5) + 1]
        x = (x * 1103515245 + 12345) % 2147483648; c = snic[int(x / 2147483648 * 3) + 1]
        x = (x * 1103515245 + 12345) % 2147483648; d = sn[int(x / 2147483648 * 3) + 1]
        x = (x * 1103515245 + 12345) % 2147483648; e = cc[int(x / 2147483648 * 2) + 1]
        x = (x * 1103515245 + 12345) % 2147483648; f = mb[int(x / 2147483648 * 3) + 1]
        x = (x * 1103515245 + 12345) % 2147483648; g = ph[int(x / 2147483648 * 2) + 1]
        x = (x * 1103515245 + 12345) % 2147483648; h = int(x / 2147483648 * 3) + 1
        printf "cluster.nodes=%s cluster.nic_speed=%s storage.nic_speed=%s storage.nodes=%s transport.cc=%s workload.bytes_per_writer=%s checkpoint.phase=%s seed=%d", a, b, c, d, e, f, g, h }')
    args=""
    for s in $kv sim.threads=1; do args="$args --set $s"; done
    # shellcheck disable=SC2086
    timeout 600 "$bin" run $args --engine packet --force --quiet --json "$tmp/p.json" >/dev/null 2>&1
    # shellcheck disable=SC2086
    timeout 600 "$bin" run $args --engine hybrid --force --quiet --json "$tmp/h.json" >/dev/null 2>&1
    line=$(jq -rn --slurpfile p "$tmp/p.json" --slurpfile h "$tmp/h.json" '
        ($p[0].checkpoint.completion_s) as $pc | ($h[0].checkpoint.completion_s) as $hc |
        (($hc - $pc) / $pc * 100) as $d |
        (if ($h[0].invariants.ok | not) or ($d > 1 or $d < -1) then "BAD" else "ok " end) +
        " " + ($d * 1000 | round / 1000 | tostring) + "% jumps " + ($h[0].hybrid.jumps | tostring) +
        " skipped " + ($h[0].hybrid.fast_forwarded_fraction * 100 | round | tostring) + "%" +
        " estimate " + ($h[0].hybrid.error_estimate_s / $pc * 100 * 1000 | round / 1000 | tostring) + "%" +
        (if ($hc - $pc | fabs) > $h[0].hybrid.error_estimate_s then " past its estimate" else "" end) +
        (if $h[0].invariants.ok then "" else " (" + $h[0].invariants.violation + ")" end)' 2>/dev/null)
    [ -n "$line" ] || line="BAD a run failed"
    case $line in BAD*) bad=$((bad + 1)) ;; esac
    case $line in *"past its estimate"*) past=$((past + 1)) ;; esac
    echo "case $i: $line: $kv"
    i=$((i + 1))
done
echo "hybfuzz: $bad of $n cases BAD, $past past their own error estimate"
