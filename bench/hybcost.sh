#!/bin/sh
# Hybrid's own cost (BENCHMARKS.md "Hybrid: its own cost"): the cases it is
# measured on, one name a line, and for each what the modes below run.
# Usage: bench/hybcost.sh json BIN DIR      # hybrid JSON on one thread, its timings and path dropped, into DIR/CASE.json
#        bench/hybcost.sh cg BIN DIR        # callgrind of the hybrid run, DIR/CASE.cg; its own share
#        bench/hybcost.sh own - DIR         # that share again from DIR/CASE.cg
#        bench/hybcost.sh cpu BIN_A BIN_B N # user CPU, hybrid A / hybrid B / packet B, alternated N rounds
# CASES (environment) picks some by name (space-separated); default all six.
mode=$1
cases='bench-1024|scenarios/bench-1024.yaml|
bench-1024-dcqcn|scenarios/bench-1024.yaml|transport.cc=dcqcn
bench-1024-seed2|scenarios/bench-1024.yaml|seed=2
incast-8x256|scenarios/default.yaml|cluster.nodes=8 storage.nodes=1 workload.bytes_per_writer=256MB fabric.buffer=8MB
size-llama3-405b|scenarios/size-llama3-405b.yaml|model.name=custom model.params=10000000000
mlperf-llama3-70b|scenarios/mlperf-llama3-70b.yaml|checkpoint.mlperf=none checkpoint.phase=save model.name=custom model.params=7000000000'
pick() { [ -z "$CASES" ] && return 0; for c in $CASES; do [ "$c" = "$1" ] && return 0; done; return 1; }
sets() { a=""; for kv in $1; do a="$a --set $kv"; done; echo "$a"; }
echo "$cases" | while IFS='|' read -r name scn kv; do
    pick "$name" || continue
    args=$(sets "$kv")
    case $mode in
    json)
        # shellcheck disable=SC2086
        # one thread: sim.threads auto follows the machine's load, and the
        # JSON records the count (and memory) it picked
        "$2" run "$scn" $args --set sim.threads=1 --engine hybrid --force --quiet --json "$3/$name.raw" >/dev/null 2>&1 || echo "$name: failed"
        jq -S 'del(.perf.events_per_s, .perf.total_s, .perf.wall_s, .scenario.source)' "$3/$name.raw" >"$3/$name.json"
        echo "$name $(md5sum <"$3/$name.json" | cut -c1-16) $(jq -r '[.checkpoint.completion_s, .hybrid.jumps, .hybrid.fast_forwarded_fraction] | @tsv' "$3/$name.raw")"
        ;;
    cg)
        # shellcheck disable=SC2086
        valgrind --tool=callgrind --callgrind-out-file="$3/$name.cg" "$2" run "$scn" $args \
            --engine hybrid --force --quiet --json /dev/null >/dev/null 2>"$3/$name.cgerr"
        # hybrid's own: hybrid_loop's inclusive instructions less the packet
        # engine's stretches it runs (run_before, called from it alone)
        callgrind_annotate --inclusive=yes "$3/$name.cg" 2>/dev/null | awk -v c="$name" '
            /PROGRAM TOTALS/ { gsub(",", "", $1); t = $1 }
            $3 ~ /hybrid[.]c:hybrid_loop$/ && !h { gsub(",", "", $1); h = $1 }
            $3 ~ /sched[.]c:run_before/ && !r { gsub(",", "", $1); r = $1 }
            END { printf "%s: %.0f instructions, hybrid own %.0f (%.2f%%), packet engine %.0f\n", c, t, h - r, 100 * (h - r) / t, r }'
        ;;
    own) # the same figures from an existing DIR/CASE.cg
        callgrind_annotate --inclusive=yes "$3/$name.cg" 2>/dev/null | awk -v c="$name" '
            /PROGRAM TOTALS/ { gsub(",", "", $1); t = $1 }
            $3 ~ /hybrid[.]c:hybrid_loop$/ && !h { gsub(",", "", $1); h = $1 }
            $3 ~ /sched[.]c:run_before/ && !r { gsub(",", "", $1); r = $1 }
            END { printf "%s: %.0f instructions, hybrid own %.0f (%.2f%%), packet engine %.0f\n", c, t, h - r, 100 * (h - r) / t, r }'
        ;;
    cpu)
        i=0
        while [ "$i" -lt "$4" ]; do
            for e in "$2 hybrid" "$3 hybrid" "$3 packet"; do
                set -- $e "$@"
                # shellcheck disable=SC2086
                u=$(/usr/bin/time -f %U "$1" run "$scn" $args --engine "$2" --force --quiet --json /dev/null 2>&1 >/dev/null | tail -1)
                printf '%s %s %s %s load %s\n' "$name" "$1" "$2" "$u" "$(cut -d' ' -f1 /proc/loadavg)"
                shift 2
            done
            i=$((i + 1))
        done
        ;;
    esac
done
