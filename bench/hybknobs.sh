#!/bin/sh
# The full production row under hybrid with its bounds loosened (the trace
# build's CKPT_HK_* knobs, src/pkt/hybrid.c), one row a run against the
# packet engine's figures at the same seed (BENCHMARKS.md session 36).
#
# Build the trace binary first:
#   cp -a build /tmp/tbH; touch src/pkt/hybrid.c
#   make -s B=/tmp/tbH CFLAGS=-DCKPT_HYBRID_TRACE /tmp/tbH/ckptnet
# Usage:
#   bench/hybknobs.sh run TAG [CKPT_HK_NAME=FACTOR|off ...]   # ~8 min, ~130 MB
#   bench/hybknobs.sh row TAG...                               # table rows
# Environment: BIN (/tmp/tbH/ckptnet), OUT (/tmp/hybknobs), SEED (4), NICE (0;
# a shared machine starved a run at 10 to ~8% of a core),
# SCN (scenarios/llama3-405b-production.yaml), SETS (more --set k=v, space-
# separated), and the packet reference REF_C (completion s), REF_P (paused
# s), REF_Q (largest queue B); their defaults are packet's at seed 4
# (BENCHMARKS.md "Session 33 merge (lead)").
# Knobs: CKPT_HK_LAG, _TAIL (TAIL_OFF), _WATCH, _CARRY (CARRY_MAX), _PASS
# (the ends a jump passes, one in PASS_EVERY), _CLUSTER (the clustered-ends
# stop), _BUDGET (the error budget), _RESTART (the baseline's restart share):
# each bound x FACTOR looser, or off. Switches: CKPT_HK_RXSUM=on|q,
# CKPT_HK_LAGN=on, CKPT_HK_PFALL, CKPT_HK_RXCURVE (docs/engine.md, the trace
# knobs' paragraph).
bin=${BIN:-/tmp/tbH/ckptnet}
out=${OUT:-/tmp/hybknobs}
seed=${SEED:-4}
niceness=${NICE:-0}
scn=${SCN:-scenarios/llama3-405b-production.yaml}
refc=${REF_C:-3.232034} refp=${REF_P:-5738.3} refq=${REF_Q:-185749702}
command -v jq >/dev/null || { echo "bench/hybknobs.sh: needs jq (scripts/deps.sh)" >&2; exit 2; }
mkdir -p "$out"

case "$1" in
run)
    tag=$2
    shift 2
    sets=""
    for kv in ${SETS:-}; do sets="$sets --set $kv"; done
    uptime >"$out/$tag.up"
    # shellcheck disable=SC2086
    env "$@" nice -n "$niceness" /usr/bin/time -o "$out/$tag.time" -f "%U %S %e %M" "$bin" run "$scn" \
        --engine hybrid --force --quiet --set seed="$seed" --set sim.threads=1 $sets \
        --json "$out/$tag.json" 2>"$out/$tag.err"
    uptime >>"$out/$tag.up"
    ;;
row)
    shift
    echo "| run | knobs | skipped, jumps | user s, RSS GB | completion s (vs packet) | paused s (vs packet) | largest queue MB (vs packet) | error est. (of completion) | paused est. | holds: periods' share of the run (jumps capped) |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    for tag in "$@"; do
        j=$out/$tag.json
        [ -s "$j" ] || { echo "| $tag | no JSON |"; continue; }
        knobs=$(sed -n 's/^knob CKPT_HK_\([A-Z]*\)=\([^:]*\):.*/\1=\2/p' "$out/$tag.err" | tr '\n' ' ')
        holds=$(grep '^held |' "$out/$tag.err" | awk -F' [|] ' '{ sub(/%/, "", $5); gsub(/jumps capped /, "", $6);
            if ($5 + 0 >= 0.5 || $6 + 0 > 0) printf "%s %s%% (%s); ", $2, $5, $6 }')
        jq -r '[.hybrid.fast_forwarded_fraction, .hybrid.jumps, .checkpoint.completion_s,
            .network.pfc.paused_s, .network.max_queue_bytes, .hybrid.error_estimate_s,
            .hybrid.paused_error_estimate_fraction] | @tsv' "$j" |
            awk -v t="$tag" -v k="${knobs:-(main)}" -v rc="$refc" -v rp="$refp" -v rq="$refq" \
                -v tm="$(tail -n 1 "$out/$tag.time" 2>/dev/null)" -v h="$holds" -F'\t' '{
            split(tm, u, " ");
            printf "| %s | %s | %.1f%%, %d | %.0f, %.2f | %.6f (%+.2f%%) | %.1f (%+.2f%%) | %.2f (%+.2f%%) | %.4f s (%.2f%%) | %.2f%% | %s |\n",
                t, k, 100 * $1, $2, u[1], u[4] / 1048576, $3, 100 * ($3 / rc - 1), $4, 100 * ($4 / rp - 1),
                $5 / 1e6, 100 * ($5 / rq - 1), $6, 100 * $6 / $3, 100 * $7, h }'
    done
    ;;
*)
    sed -n '2,20p' "$0"
    exit 2
    ;;
esac
