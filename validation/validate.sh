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

fails=0
cannot=0
n=0
printf '%-24s %-5s %10s %10s %8s %8s %5s  %-20s %s\n' case phase predicted measured stdev error tol \
    bottleneck verdict
while IFS='|' read -r name scn wl ranks phase proto cline sline meas sd tol kind src note; do
    case $name in '#'* | '') continue ;; esac
    n=$((n + 1))
    # the scenario sets the protocols (transport.protocol, storage.protocol)
    # and the line rates: no scaling here
    "$bin" run "$dir/$scn" --quiet --json "$tmp/$name.json" \
        --set checkpoint.mlperf="$wl" --set cluster.gpus_per_node="$ranks" \
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
        else if (k == "cannot") print "CANNOT PREDICT"
        else print "FAIL (kind: predict or cannot)"
    }')
    err=$(awk -v p="$pred" -v m="$meas" 'BEGIN { if (m > 0 && p != "null") printf "%+.1f%%", (p - m) / m * 100; else print "-" }')
    printf '%-24s %-5s %10.2f %10.2f %8.2f %8s %4s%%  %-20s %s\n' "$name" "$phase" "$pred" "$meas" \
        "$sd" "$err" "$tol" "$bn" "$verdict"
    [ -n "$note" ] && printf '    cannot be predicted: %s\n' "$note"
    [ "$verdict" = "CANNOT PREDICT" ] && cannot=$((cannot + 1))
    case $verdict in
    FAIL*)
        echo "FAIL $name: predicted $pred GiB/s, measured $meas GiB/s (tolerance $tol%, $kind); source $src"
        fails=$((fails + 1))
        ;;
    esac
done <"$cases"
echo "validation: $n cases, $((n - fails - cannot)) passed, $fails failed, $cannot cannot be predicted" \
    "(GiB/s as DLIO reports; sources in $cases)"
[ $n -gt 0 ] && [ $fails -eq 0 ]
