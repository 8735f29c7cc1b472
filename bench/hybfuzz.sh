#!/bin/sh
# Hybrid against packet on random small fabrics: each case's invariants and
# completion (hybrid within 1% and at or above its bound, or BAD), and
# whether its error passed hybrid's own estimate ("past its estimate").
# Usage: bench/hybfuzz.sh BIN [N] [FIRST] [WIDE]   # N cases (20) from case FIRST (1)
# A case is fixed by its number (the draw below), so a BAD line reruns alone.
# WIDE 1 (or HYBFUZZ_WIDE=1) draws more keys after a case's own (three tiers,
# load balancing, spines and uplinks, failed links, a storage back end,
# jitter, NICs a node, placement and stripes, a model's writer rule, phase
# both): wide case N keeps case N's keys but its phase. A draw the scenario
# refuses is "skip", not BAD. WIDE 2 draws one more key after those, the
# receiver (gbn, ooo, uec), so the per-packet and flowlet schemes jump too
# (over go-back-N hybrid runs them as packet); wide 2 case N keeps wide case
# N's keys but the receiver. HYBFUZZ_TIMEOUT: seconds a run (600).
# HYBFUZZ_CC (e.g. swift) sets transport.cc in every case, its other keys
# the case's own. HYBFUZZ_SET ("key=v key=v") appends keys to every case.
# HYBFUZZ_DELAYS=N reruns each BAD case's both engines over N link delays
# about 1 us (1 ns apart) and prints their means and the packets' spread: a
# case whose writers' order turns on a nanosecond is one draw of it.
bin=${1:?usage: bench/hybfuzz.sh BIN [N] [FIRST] [WIDE]} n=${2:-20} first=${3:-1}
wide=${4:-${HYBFUZZ_WIDE:-0}} tmo=${HYBFUZZ_TIMEOUT:-600}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0 past=0 skip=0
i=$first
while [ "$i" -lt $((first + n)) ]; do
    # the case's draw: an LCG seeded by its number, one pick a key
    kv=$(awk -v s="$i" -v w="$wide" 'BEGIN {
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
        if (w >= 1) {
            # one draw a key, in this order, each after the case own keys
            split("16 4 2", hpl, " "); split("16 4 2 1", sp, " "); split("400Gbps 100Gbps 25Gbps", up, " ")
            split("ecmp wcmp flowlet adaptive spray", lb, " "); split("2 2 3 3", ti, " ")
            split("0 0 0 1 2", fl, " "); split("0 0 2Gbps 20Gbps 150Gbps", dr, " ")
            split("0 0 1MB 8MB", ib, " "); split("0 0 20us 200us 2ms", jt, " ")
            split("1 1 2 4", cn, " "); split("1 1 2", snn, " "); split("round_robin hash file_mod", pl, " ")
            split("1 2 4", sc, " "); split("none dcp megatron deepspeed", wr, " ")
            split("keep keep both", pb, " ")
            x = (x * 1103515245 + 12345) % 2147483648; k1 = hpl[int(x / 2147483648 * 3) + 1]
            x = (x * 1103515245 + 12345) % 2147483648; k2 = sp[int(x / 2147483648 * 4) + 1]
            x = (x * 1103515245 + 12345) % 2147483648; k3 = up[int(x / 2147483648 * 3) + 1]
            x = (x * 1103515245 + 12345) % 2147483648; k4 = lb[int(x / 2147483648 * 5) + 1]
            x = (x * 1103515245 + 12345) % 2147483648; k5 = ti[int(x / 2147483648 * 4) + 1]
            x = (x * 1103515245 + 12345) % 2147483648; k6 = fl[int(x / 2147483648 * 5) + 1]
            x = (x * 1103515245 + 12345) % 2147483648; k7 = dr[int(x / 2147483648 * 5) + 1]
            x = (x * 1103515245 + 12345) % 2147483648; k8 = ib[int(x / 2147483648 * 4) + 1]
            x = (x * 1103515245 + 12345) % 2147483648; k9 = jt[int(x / 2147483648 * 5) + 1]
            x = (x * 1103515245 + 12345) % 2147483648; k10 = cn[int(x / 2147483648 * 4) + 1]
            x = (x * 1103515245 + 12345) % 2147483648; k11 = snn[int(x / 2147483648 * 3) + 1]
            x = (x * 1103515245 + 12345) % 2147483648; k12 = pl[int(x / 2147483648 * 3) + 1]
            x = (x * 1103515245 + 12345) % 2147483648; k13 = sc[int(x / 2147483648 * 3) + 1]
            x = (x * 1103515245 + 12345) % 2147483648; k14 = wr[int(x / 2147483648 * 4) + 1]
            x = (x * 1103515245 + 12345) % 2147483648; k15 = pb[int(x / 2147483648 * 3) + 1]
            if (k13 + 0 > d + 0) k13 = d
            if (k2 == 1) k6 = 0 # a leaf with one uplink cannot lose it
            if (k15 == "both") g = "both"
            if (w == 2) {
                split("gbn ooo uec", rv, " ")
                x = (x * 1103515245 + 12345) % 2147483648; k16 = rv[int(x / 2147483648 * 3) + 1]
            }
        }
        printf "cluster.nodes=%s cluster.nic_speed=%s storage.nic_speed=%s storage.nodes=%s transport.cc=%s workload.bytes_per_writer=%s checkpoint.phase=%s seed=%d", a, b, c, d, e, f, g, h
        if (w >= 1) {
            printf " fabric.allow_oversize=true fabric.hosts_per_leaf=%s fabric.spines=%s fabric.uplink_speed=%s fabric.load_balancing=%s fabric.tiers=%s", k1, k2, k3, k4, k5
            if (k5 == 3) printf " fabric.leaves_per_pod=1"
            printf " fabric.failed_links=%s storage.drain_rate=%s storage.ingest_buffer=%s workload.start_jitter=%s", k6, k7, k8, k9
            printf " cluster.nics_per_node=%s storage.nics_per_node=%s storage.placement=%s storage.stripe_count=%s", k10, k11, k12, k13
            if (k14 != "none") printf " model.name=custom model.params=20000000 checkpoint.writer_rule=%s", k14
            if (w == 2) printf " transport.receiver=%s", k16
        }
    }')
    [ -n "${HYBFUZZ_CC:-}" ] && kv=$(echo "$kv" | sed "s/transport\.cc=[a-z]*/transport.cc=$HYBFUZZ_CC/")
    [ -n "${HYBFUZZ_SET:-}" ] && kv="$kv $HYBFUZZ_SET"
    args=""
    for s in $kv sim.threads=1; do args="$args --set $s"; done
    # shellcheck disable=SC2086
    rm -f "$tmp/p.json" "$tmp/h.json"
    timeout "$tmo" "$bin" run $args --engine packet --force --quiet --json "$tmp/p.json" >/dev/null 2>"$tmp/p.err"
    prc=$?
    if [ "$prc" = 2 ]; then
        # the scenario refused the draw (a wide one): no run to compare
        skip=$((skip + 1))
        echo "case $i: skip (refused: $(head -c 160 "$tmp/p.err" | head -1)): $kv"
        i=$((i + 1))
        continue
    fi
    # shellcheck disable=SC2086
    timeout "$tmo" "$bin" run $args --engine hybrid --force --quiet --json "$tmp/h.json" >/dev/null 2>"$tmp/h.err"
    hrc=$?
    line=$(jq -rn --slurpfile p "$tmp/p.json" --slurpfile h "$tmp/h.json" '
        ($p[0].checkpoint.completion_s) as $pc | ($h[0].checkpoint.completion_s) as $hc |
        (($hc - $pc) / $pc * 100) as $d |
        (if ($h[0].invariants.ok | not) or ($d > 1 or $d < -1) then "BAD" else "ok " end) +
        " " + ($d * 1000 | round / 1000 | tostring) + "% jumps " + ($h[0].hybrid.jumps | tostring) +
        " skipped " + ($h[0].hybrid.fast_forwarded_fraction * 100 | round | tostring) + "%" +
        " estimate " + ($h[0].hybrid.error_estimate_s / $pc * 100 * 1000 | round / 1000 | tostring) + "%" +
        (if ($hc - $pc | fabs) > $h[0].hybrid.error_estimate_s then " past its estimate" else "" end) +
        (if $h[0].invariants.ok then "" else " (" + $h[0].invariants.violation + ")" end) +
        (if $p[0].invariants.ok then "" else " (packet: " + $p[0].invariants.violation + ")" end)' 2>/dev/null)
    [ -n "$line" ] || line="BAD a run failed (packet exit $prc, hybrid exit $hrc; 124 is a timeout)"
    case $line in BAD*) bad=$((bad + 1)) ;; esac
    case $line in *"past its estimate"*) past=$((past + 1)) ;; esac
    echo "case $i: $line: $kv"
    case $line in
    BAD*%*)
        # which writer falls behind can turn on a nanosecond (HPCC's parting
        # shares): one draw's error is then mostly that chance. Both engines
        # over N link delays about 1 us (HYBFUZZ_DELAYS=N), their means.
        if [ "${HYBFUZZ_DELAYS:-0}" -gt 0 ]; then
            : >"$tmp/d.txt"
            k=0
            while [ "$k" -lt "$HYBFUZZ_DELAYS" ]; do
                ns=$((1000 - HYBFUZZ_DELAYS / 2 + k))
                for e in packet hybrid; do
                    # shellcheck disable=SC2086
                    timeout "$tmo" "$bin" run $args --set fabric.link_delay=${ns}ns --engine $e \
                        --force --quiet --json "$tmp/d.json" >/dev/null 2>&1 &&
                        echo "$e $(jq -r .checkpoint.completion_s "$tmp/d.json")" >>"$tmp/d.txt"
                done
                k=$((k + 1))
            done
            awk -v n="$HYBFUZZ_DELAYS" '{ s[$1] += $2; q[$1] += $2 * $2; c[$1]++ }
                END { if (!c["packet"] || !c["hybrid"]) { print "  over link delays: a run failed"; exit }
                      mp = s["packet"] / c["packet"]; mh = s["hybrid"] / c["hybrid"]
                      sd = sqrt(q["packet"] / c["packet"] - mp * mp)
                      printf "  over %d link delays (%d-%d ns): packet mean %.6g s (sd %.2f%%), hybrid mean %.6g s: %+.3f%%\n",
                          n, 1000 - int(n / 2), 999 - int(n / 2) + n, mp, sd / mp * 100, mh, (mh - mp) / mp * 100 }' "$tmp/d.txt"
        fi
        ;;
    esac
    i=$((i + 1))
done
[ "$wide" -ge 1 ] && past="$past" skip=", $skip skipped (refused draws)" || skip=""
echo "hybfuzz: $bad of $n cases BAD, $past past their own error estimate$skip"
