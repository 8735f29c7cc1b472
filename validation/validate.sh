#!/bin/sh
# The validation pack (docs/storage.md, Validation): each case of
# validation/cases.txt runs its scenario with its MLPerf workload and prints
# the predicted figure beside the published one, with pass or fail. Exit 1
# when a case falls outside its tolerance (or a run fails), 0 otherwise.
# Usage: validation/validate.sh [path/to/ckptnet] [cases file]
bin=${1:-./build/ckptnet}
cases=${2:-validation/cases.txt}
dir=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Goodput of a NIC's line rate under a protocol's framing, per payload byte:
#  tcp9000: TCP/HTTP on Ethernet, MTU 9000: payload 9000 - 20 (IPv4) - 32
#           (TCP with timestamps, tcp_timestamps=1 disclosed) = 8948 of
#           9000 + 38 wire bytes (Ethernet 14 + FCS 4 + preamble 8 + gap 12);
#           HTTP headers add ~0.5 kB per multi-GB object: not counted
#  ib4096:  InfiniBand, 4096 B payload + LRH 8 + BTH 12 + ICRC 4 + VCRC 2
#  roce4096: RoCEv2 as ckptnet frames it (4096 + 82)
# ckptnet frames every packet as RoCEv2 at fabric.mtu 4096, so a NIC is
# given line x factor / roce4096.
factor() {
    case $1 in
    tcp9000) echo "8948 9038" ;;
    ib4096) echo "4096 4122" ;;
    roce4096) echo "4096 4178" ;;
    *) echo "" ;;
    esac
}

fails=0
n=0
printf '%-24s %-5s %10s %10s %8s %8s %5s  %-20s %s\n' case phase predicted measured stdev error tol \
    bottleneck verdict
while IFS='|' read -r name scn wl ranks phase proto cline sline meas sd tol kind src note; do
    case $name in '#'* | '') continue ;; esac
    n=$((n + 1))
    f=$(factor "$proto")
    if [ -z "$f" ]; then
        echo "$cases: $name: protocol: expected tcp9000, ib4096 or roce4096, got \"$proto\""
        fails=$((fails + 1))
        continue
    fi
    # line rate (Gbps) x payload / wire, over ckptnet's RoCE payload / wire, in Mbps
    set -- $f
    cnic=$(awk -v l="$cline" -v p="$1" -v w="$2" 'BEGIN { printf "%.0f", l * 1000 * p / w * 4178 / 4096 }')
    snic=$(awk -v l="$sline" -v p="$1" -v w="$2" 'BEGIN { printf "%.0f", l * 1000 * p / w * 4178 / 4096 }')
    "$bin" run "$dir/$scn" --quiet --json "$tmp/$name.json" \
        --set checkpoint.mlperf="$wl" --set cluster.gpus_per_node="$ranks" \
        --set cluster.nic_speed="${cnic}Mbps" --set storage.nic_speed="${snic}Mbps" \
        >/dev/null 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 0 ]; then
        printf '%-24s %-5s run failed (exit %d): %s\nFAIL %s\n' "$name" "$phase" "$rc" \
            "$(head -c 300 "$tmp/err")" "$name"
        fails=$((fails + 1))
        continue
    fi
    case $phase in
    save) q='[.mlperf.save_rank0_gibps, .bottleneck.segment]' ;;
    load) q='[.mlperf.load_gibps, .restore.bottleneck]' ;;
    *) q='' ;;
    esac
    if [ -z "$q" ]; then
        echo "$cases: $name: figure: expected save or load, got \"$phase\""
        fails=$((fails + 1))
        continue
    fi
    pred=$(jq -r "$q | .[0]" "$tmp/$name.json")
    bn=$(jq -r "$q | .[1]" "$tmp/$name.json")
    verdict=$(awk -v p="$pred" -v m="$meas" -v t="$tol" -v k="$kind" 'BEGIN {
        if (p == "" || p == "null" || m <= 0) { print "FAIL"; exit }
        e = (p - m) / m * 100
        if (k == "predict") print (e <= t && e >= -t) ? "PASS" : "FAIL"
        else if (k == "bound") print (-e <= t) ? "PASS (bound)" : "FAIL (bound)"
        else print "FAIL (kind?)"
    }')
    err=$(awk -v p="$pred" -v m="$meas" 'BEGIN { if (m > 0 && p != "null") printf "%+.1f%%", (p - m) / m * 100; else print "-" }')
    printf '%-24s %-5s %10.2f %10.2f %8.2f %8s %4s%%  %-20s %s\n' "$name" "$phase" "$pred" "$meas" \
        "$sd" "$err" "$tol" "$bn" "$verdict"
    [ -n "$note" ] && printf '    not predicted: %s\n' "$note"
    case $verdict in
    FAIL*)
        echo "FAIL $name: predicted $pred GiB/s, measured $meas GiB/s (tolerance $tol%, $kind); source $src"
        fails=$((fails + 1))
        ;;
    esac
done <"$cases"
echo "validation: $n cases, $((n - fails)) passed, $fails failed (GiB/s as DLIO reports; sources in $cases)"
[ $n -gt 0 ] && [ $fails -eq 0 ]
