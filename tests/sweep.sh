#!/bin/sh
# Sweep tests: the same rows whatever -j or MPI ranks, --resume after an
# interruption, failing points recorded, points files, the HTML page, bad
# input. Tiny scenarios only (make test stays short).
# Usage: tests/sweep.sh path/to/ckptnet   (or path/to/ckptnet-mpi)
bin=${1:-./build/ckptnet}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   sweep: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL sweep: $1"; }
skip() { echo "SKIP sweep: $1"; }

# expect_error NAME EXPECTED_SUBSTRING ARGS...: exit 2, one stderr line containing it
expect_error() {
    name=$1 want=$2
    shift 2
    "$bin" sweep "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$want" "$tmp/err"; then
        ok "$name"
    else
        bad "$name (exit $rc, $lines stderr lines): $(cat "$tmp/err")"
    fi
}
# rows without the perf column that varies (wall_s, the last one)
nowall() { sed -e 's/,[^,]*$//' -e 's/, "wall_s": [^}]*}$/}/' "$1"; }
same() { nowall "$1" >"$tmp/s1" && nowall "$2" >"$tmp/s2" && cmp -s "$tmp/s1" "$tmp/s2"; }

case "$bin" in *-mpi) mpi=1 ;; *) mpi=0 ;; esac

"$bin" sweep --help | grep -q -- '--resume' && ok help || bad help

# two keys x 2 seeds, one value invalid (spines=0): 6 points, 12 runs
small="--set workload.bytes_per_writer=256KB --vary fabric.spines=2,0,4 --vary cluster.nodes=16,32 --seeds 2 --quiet"
# shellcheck disable=SC2086
"$bin" sweep $small -j 1 --out "$tmp/j1.csv" 2>"$tmp/err1"
rc=$?
# shellcheck disable=SC2086
"$bin" sweep $small -j 2 --out "$tmp/j2.csv" 2>/dev/null
# shellcheck disable=SC2086
"$bin" sweep $small -j 1 --out "$tmp/j1.json" 2>/dev/null
# shellcheck disable=SC2086
"$bin" sweep $small -j 2 --out "$tmp/j2.json" 2>/dev/null
# header + 6 points x (2 runs + mean, min, max)
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/j1.csv")" -eq 32 ] &&
    [ "$(grep -c ',run,ok,packet,' "$tmp/j1.csv")" -eq 8 ] &&
    [ "$(grep -c '^[23],0,.*,run,failed,.*fabric.spines: expected a count >= 1' "$tmp/j1.csv")" -eq 4 ] &&
    grep -q '4 of 12 runs not ok' "$tmp/err1"; then
    ok failing_point_recorded
else
    bad "failing_point_recorded (exit $rc): $(cat "$tmp/err1")"
fi
same "$tmp/j1.csv" "$tmp/j2.csv" && ok csv_same_j1_j2 || bad csv_same_j1_j2
same "$tmp/j1.json" "$tmp/j2.json" && ok json_same_j1_j2 || bad json_same_j1_j2
# JSON lines: every line a document, the same figures as the CSV
if python3 -c "
import json, sys, csv
rows = [json.loads(l) for l in open(sys.argv[1])][1:]
c = list(csv.DictReader(l for l in open(sys.argv[2]) if l[0] != '#'))
assert len(rows) == len(c) == 30
for j, r in zip(rows, c):
    for k in ('row', 'status', 'completion_s', 'bound_ratio', 'error'):
        a = j[k]
        a = '' if a is None else str(a)
        b = r[k]
        assert a == b or float(a) == float(b), (k, a, b)
" "$tmp/j1.json" "$tmp/j1.csv" 2>"$tmp/err"; then
    ok json_lines_match_csv
else
    bad "json_lines_match_csv: $(tail -1 "$tmp/err")"
fi

# a violated invariant keeps the run's figures and says why; other points run
# (lossy without retries: the transfers that lose their tail fail)
"$bin" sweep --quiet --vary fabric.pfc.enabled=false,true --set fabric.buffer=8MB \
    --set cluster.nodes=32 --set workload.bytes_per_writer=1MB --set transport.retry_count=0 \
    -j 2 --out "$tmp/v.csv" 2>/dev/null
rc=$?
if [ "$rc" -eq 1 ] && grep -q '^0,false,1,run,violated,packet,.*transfers failed' "$tmp/v.csv" &&
    grep -q '^1,true,1,run,ok,packet' "$tmp/v.csv"; then
    ok violated_point_recorded
else
    bad "violated_point_recorded (exit $rc): $(cat "$tmp/v.csv")"
fi

# --resume: an output cut anywhere (a killed sweep: whole points, or a torn
# line) is completed to the uninterrupted output
size=$(wc -c <"$tmp/j1.csv")
resumed=1
for cut in 0 50 400 900 1700 $((size - 7)) "$size"; do
    head -c "$cut" "$tmp/j1.csv" >"$tmp/r.csv"
    # shellcheck disable=SC2086
    "$bin" sweep $small -j 2 --out "$tmp/r.csv" --resume 2>/dev/null
    same "$tmp/j1.csv" "$tmp/r.csv" || resumed=0
done
jsize=$(wc -c <"$tmp/j1.json")
for cut in 100 3000 $((jsize - 9)); do
    head -c "$cut" "$tmp/j1.json" >"$tmp/r.json"
    # shellcheck disable=SC2086
    "$bin" sweep $small -j 2 --out "$tmp/r.json" --resume 2>/dev/null
    same "$tmp/j1.json" "$tmp/r.json" || resumed=0
done
[ "$resumed" -eq 1 ] && ok resume_after_cut || bad resume_after_cut

# a sweep killed for real (SIGKILL to the coordinator), then --resume
long="--set workload.bytes_per_writer=1MB --vary cluster.nodes=64,128 --vary fabric.spines=2,4,8 --seeds 3 --quiet"
# shellcheck disable=SC2086
"$bin" sweep $long -j 2 --out "$tmp/full.csv"
# shellcheck disable=SC2086
"$bin" sweep $long -j 2 --out "$tmp/k.csv" &
pid=$!
n=0
while [ "$n" -lt 200 ] && [ "$(cat "$tmp/k.csv.partial" 2>/dev/null | wc -l)" -lt 3 ]; do
    sleep 0.02
    n=$((n + 1))
done
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
lines=$(wc -l <"$tmp/k.csv.partial")
# shellcheck disable=SC2086
"$bin" sweep $long -j 2 --out "$tmp/k.csv" --resume
if same "$tmp/full.csv" "$tmp/k.csv"; then
    ok "resume_after_kill (killed at $lines lines of $(wc -l <"$tmp/full.csv"))"
else
    bad "resume_after_kill (killed at $lines lines)"
fi
# shellcheck disable=SC2086
"$bin" sweep $long --vary storage.nodes=2 --out "$tmp/k.csv" --resume 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "is not this sweep's output" "$tmp/err" && ok resume_other_sweep ||
    bad "resume_other_sweep: $(cat "$tmp/err")"

# a worker process killed in a run: that run is recorded as failed, a new
# worker takes over, every point is written
# shellcheck disable=SC2086
"$bin" sweep $long -j 2 --out "$tmp/w.csv" 2>"$tmp/err" &
pid=$!
n=0
while [ "$n" -lt 200 ] && [ "$(cat "$tmp/w.csv.partial" 2>/dev/null | wc -l)" -lt 3 ]; do
    sleep 0.02
    n=$((n + 1))
done
victim=$(ps -o pid= --ppid "$pid" 2>/dev/null | head -1)
[ -n "$victim" ] && kill -KILL "$victim" 2>/dev/null
wait "$pid"
rc=$?
died=$(grep -c ',run,failed,.*worker process died (signal 9)' "$tmp/w.csv")
# the worker may have been between runs (then nothing is lost: exit 0)
if [ "$(wc -l <"$tmp/w.csv")" -eq 38 ] && { [ "$died" -eq 1 ] && [ "$rc" -eq 1 ]; } ||
    { [ "$died" -eq 0 ] && [ "$rc" -eq 0 ] && same "$tmp/full.csv" "$tmp/w.csv"; }; then
    ok "worker_killed (runs lost: $died)"
else
    bad "worker_killed (exit $rc, $died died rows, $(wc -l <"$tmp/w.csv") lines): $(cat "$tmp/err")"
fi

# workers run in their own sessions (on Linux each session is one CPU share:
# -j 2 in one session ran no faster than -j 1) and die with the coordinator.
# The scenario file is a FIFO: the coordinator reads it once, then every
# worker blocks opening it, alive and idle, until the coordinator is killed.
if [ "$(uname)" = Linux ] && mkfifo "$tmp/fifo.yaml" 2>/dev/null; then
    echo "seed: 1" >"$tmp/fifo.yaml" &
    feeder=$!
    "$bin" sweep "$tmp/fifo.yaml" --vary fabric.spines=2,4 -j 2 --quiet --out "$tmp/f.csv" 2>/dev/null &
    pid=$!
    wait "$feeder"
    n=0
    while [ "$n" -lt 500 ] && [ "$(ps -o pid= --ppid "$pid" | wc -l)" -lt 2 ]; do
        sleep 0.02
        n=$((n + 1))
    done
    workers=$(ps -o pid= --ppid "$pid" | tr -d ' ' | tr '\n' ' ')
    psid=$(ps -o sid= -p "$pid" | tr -d ' ')
    own=0
    for w in $workers; do
        [ "$(ps -o sid= -p "$w" | tr -d ' ')" = "$w" ] && own=$((own + 1))
    done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    n=0
    while [ "$n" -lt 500 ] && [ -n "$(ps -o pid= -p "${workers% }" 2>/dev/null)" ]; do
        sleep 0.02
        n=$((n + 1))
    done
    left=$(for w in $workers; do ps -o pid= -p "$w"; done | wc -l)
    # shellcheck disable=SC2086
    [ "$left" -gt 0 ] && kill -KILL $workers 2>/dev/null
    if [ "$own" -eq 2 ] && [ "$left" -eq 0 ]; then
        ok "workers_own_session_die_with_coordinator (coordinator session $psid)"
    else
        bad "workers_own_session_die_with_coordinator ($own of 2 in their own session, $left left after the coordinator died)"
    fi
fi

# a points file: the same points as --vary give the same rows
{
    echo "# the product of fabric.spines=2,0,4 and cluster.nodes=16,32"
    for s in 2 0 4; do
        for n in 16 32; do echo "fabric.spines=$s   cluster.nodes=$n  # point"; done
        echo
    done
} >"$tmp/points.txt"
"$bin" sweep --set workload.bytes_per_writer=256KB --points "$tmp/points.txt" --seeds 2 --quiet \
    -j 2 --out "$tmp/p.csv" 2>/dev/null
same "$tmp/j1.csv" "$tmp/p.csv" && ok points_file_same_as_vary || bad points_file_same_as_vary

printf 'fabric.spines=2 cluster.nodes=16\nfabric.spines=4 storage.nodes=2\n' >"$tmp/mixed.txt"
printf 'fabric.spines=2\nfabric.spine=4\n' >"$tmp/unknown.txt"
printf 'fabric.spines 2\n' >"$tmp/noeq.txt"
expect_error points_other_key "$tmp/mixed.txt:2:17: expected cluster.nodes" --points "$tmp/mixed.txt"
expect_error points_no_equals "$tmp/noeq.txt:1:1: expected key=value" --points "$tmp/noeq.txt"
expect_error points_missing "cannot open '$tmp/nope.txt'" --points "$tmp/nope.txt"
expect_error vary_unknown_key "--vary: fabric.spine: unknown key" --vary fabric.spine=1,2
expect_error vary_no_values "--vary: expected key=v1,v2" --vary fabric.spines
expect_error vary_empty_value "empty value" --vary fabric.spines=1,,2
expect_error no_points "give --vary key=v1,v2,... or --points FILE"
expect_error vary_and_points "--vary and --points do not mix" --vary fabric.spines=1 --points "$tmp/points.txt"
expect_error seeds_zero "--seeds: expected a whole number in [1, 10000]" --vary fabric.spines=1 --seeds 0
expect_error jobs_bad "-j: expected a whole number" --vary fabric.spines=1 -j lots
expect_error bad_set "--set: fabric.mtu:" --vary fabric.spines=1 --set fabric.mtu=lots
expect_error resume_no_out "--resume needs --out FILE" --vary fabric.spines=1 --resume
expect_error unknown_option "unknown option '--frob'" --vary fabric.spines=1 --frob
expect_error out_no_dir "--out: cannot write '$tmp/no/x.csv'" --vary fabric.spines=1 --out "$tmp/no/x.csv"
expect_error out_is_dir "--out: '$tmp' is a directory" --vary fabric.spines=1 --out "$tmp"

# the HTML page: line plots, heat map and table, self-contained
if command -v gnuplot >/dev/null; then
    # shellcheck disable=SC2086
    "$bin" sweep $small -j 2 --out "$tmp/h.csv" --report "$tmp/h.html" 2>/dev/null
    if [ "$(grep -c '<svg' "$tmp/h.html")" -eq 3 ] && grep -q 'Completion over the first two keys' "$tmp/h.html" &&
        [ "$(grep -c '<tr' "$tmp/h.html")" -eq 7 ] && grep -q 'class="bad"' "$tmp/h.html" &&
        ! grep -qi '<script\|src="http\|href="http' "$tmp/h.html"; then
        ok report_html
    else
        bad report_html
    fi
    # the page of a resumed sweep covers the kept points too: the same page
    head -c 900 "$tmp/h.csv" >"$tmp/hr.csv"
    # shellcheck disable=SC2086
    "$bin" sweep $small -j 2 --out "$tmp/hr.csv" --resume --report "$tmp/hr.html" 2>/dev/null
    cmp -s "$tmp/h.html" "$tmp/hr.html" && ok report_after_resume_same || bad report_after_resume_same
else
    skip "report_html (gnuplot is not installed)"
fi

# a progress line on a terminal only
if command -v script >/dev/null; then
    script -qec "$bin sweep --vary fabric.spines=2,4 --set workload.bytes_per_writer=64KB --out $tmp/t.csv" \
        /dev/null >"$tmp/p" 2>&1
    "$bin" sweep --vary fabric.spines=2,4 --set workload.bytes_per_writer=64KB --out "$tmp/t.csv" 2>"$tmp/pf"
    grep -q 'sweep: 2 of 2 runs, 0 not ok' "$tmp/p" && [ ! -s "$tmp/pf" ] && ok progress_tty_only ||
        bad progress_tty_only
fi

# the man page lists every option of sweep --help, and the command
man_opts=$(sed 's/\\//g' docs/ckptnet.1)
missing=""
for o in $("$bin" sweep --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
    printf '%s' "$man_opts" | grep -qF -- "$o" || missing="$missing $o"
done
grep -q '^\.B.* sweep' docs/ckptnet.1 || missing="$missing (command)"
[ -z "$missing" ] && ok man_page_sweep || bad "man_page_sweep: missing$missing"

# tune: coordinate descent finds the grid's best point here (completion falls
# with spines and rises with nodes, one knob at a time), the same whatever -j
tk="--set workload.bytes_per_writer=256KB --knob fabric.spines=0,2,4,8 --knob cluster.nodes=32,16 --method coordinate"
# shellcheck disable=SC2086
"$bin" tune $tk -j 1 --json "$tmp/t1.json" >"$tmp/t1" 2>"$tmp/err"
rc=$?
# shellcheck disable=SC2086
"$bin" tune $tk -j 2 >"$tmp/t2" 2>/dev/null
"$bin" sweep --set workload.bytes_per_writer=256KB --vary fabric.spines=0,2,4,8 \
    --vary cluster.nodes=32,16 --quiet --out "$tmp/grid.csv" 2>/dev/null
gridbest=$(awk -F, 'NR > 1 && $6 == "ok" && (n++ == 0 || $9 + 0 < b) { b = $9 + 0; p = "fabric.spines=" $2 " cluster.nodes=" $3 } END { print p }' "$tmp/grid.csv")
if [ "$rc" -eq 0 ] && cmp -s "$tmp/t1" "$tmp/t2" && [ -n "$gridbest" ] &&
    grep -q "^best    $gridbest: completion_s " "$tmp/t1" && grep -q 'fabric.spines:  0=(failed)' "$tmp/t1" &&
    grep -q '8 of 8 points evaluated (9 runs)' "$tmp/t1"; then
    ok tune_finds_grid_best
else
    bad "tune_finds_grid_best (exit $rc, grid best '$gridbest'): $(cat "$tmp/t1" "$tmp/err")"
fi
"$bin" tune --set workload.bytes_per_writer=256KB --knob fabric.spines=2,8 --maximize goodput \
    --quiet >"$tmp/t3" 2>&1
[ "$(sed -n 1p "$tmp/t3" | grep -c '^best    fabric.spines=8: goodput ')" -eq 1 ] &&
    ok tune_maximize || bad "tune_maximize: $(cat "$tmp/t3")"
"$bin" tune --knob fabric.spines=0 --quiet >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'no feasible point' "$tmp/err" && ok tune_nothing_ok || bad "tune_nothing_ok: $(cat "$tmp/err")"
tune_error() {
    name=$1 want=$2
    shift 2
    "$bin" tune "$@" >/dev/null 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$want" "$tmp/err" && ok "$name" ||
        bad "$name (exit $rc): $(cat "$tmp/err")"
}
tune_error tune_constraint_op "--constraint: expected FIGURE<=X" --constraint 'drops<1'
tune_error tune_constraint_fig "--constraint: expected a figure" --constraint 'speed<=1'
tune_error tune_constraint_num "--constraint drops==lots: expected a number" --constraint drops==lots
tune_error tune_constraint_empty "--constraint: expected FIGURE<=X" --constraint 'drops=='
tune_error tune_budget "--budget: expected a whole number" --budget 0
tune_error tune_compound_key "--knob fabric.load_balancing: transport.reciever: unknown key" \
    --knob 'fabric.load_balancing=ecmp,spray;transport.reciever=ooo'
tune_error tune_compound_syntax "expected ';key=value'" --knob 'fabric.load_balancing=spray;ooo'
tune_error tune_compound_empty "--knob fabric.load_balancing: empty value" \
    --knob 'fabric.load_balancing=ecmp,;transport.receiver=ooo'

# --recheck: the 2 best points again with 4x the seeds, the winner among them;
# --json names every key a compound value sets
"$bin" tune --set workload.bytes_per_writer=256KB --knob fabric.spines=2,4 --seeds 2 --method coordinate \
    --knob 'fabric.load_balancing=ecmp,spray;transport.receiver=ooo' --recheck 2 \
    --json "$tmp/t7.json" >"$tmp/t7" 2>&1
# (runs: 2 as given + 4 points x 2 seeds + 2 points x 8 seeds; the winner ran 2 + 8;
# at 4 spines ECMP's collisions cost 19%, spray reaches the storage NICs' bound)
if grep -q '^best    fabric.spines=4 fabric.load_balancing=spray;transport.receiver=ooo: .*(26 runs, with the recheck)' "$tmp/t7" &&
    [ "$(jq '.runs | length' "$tmp/t7.json")" = 26 ] &&
    [ "$(jq '[.runs[] | select(.point["fabric.spines"] == "4" and .point["transport.receiver"] == "ooo")] | length' "$tmp/t7.json")" = 10 ]; then
    ok tune_recheck
else
    bad "tune_recheck: $(cat "$tmp/t7")"
fi
# --method lhs (the default): a Latin hypercube sample of a third of the
# budget (here 13 runs: 13 points), successive halving, coordinate descent
tl="--set workload.bytes_per_writer=256KB --knob fabric.spines=1,2,3,4,5,6,7,8,9,10,11,12,13 --knob cluster.nodes=16,32 --budget 40"
# shellcheck disable=SC2086
"$bin" tune $tl -j 1 --json "$tmp/l1.json" >"$tmp/l1" 2>"$tmp/err"
rc=$?
# shellcheck disable=SC2086
"$bin" tune $tl -j 2 --json "$tmp/l2.json" >"$tmp/l2" 2>/dev/null
# the sample deals each knob's values evenly: 13 points, each of the 13
# spines values once, each nodes value 6 or 7 times
if [ "$rc" -eq 0 ] && cmp -s "$tmp/l1" "$tmp/l2" && cmp -s "$tmp/l1.json" "$tmp/l2.json" &&
    grep -q '^sample  13 points, Latin hypercube (sample seed 1): 13 feasible; best ' "$tmp/l1" &&
    python3 -c "
import json, sys, collections
runs = json.load(open(sys.argv[1]))['runs'][1:14]
for key, lo, hi, n in (('fabric.spines', 1, 1, 13), ('cluster.nodes', 6, 7, 2)):
    c = collections.Counter(r['point'][key] for r in runs)
    assert len(c) == n and min(c.values()) >= lo and max(c.values()) <= hi, (key, c)
" "$tmp/l1.json" 2>"$tmp/err"; then
    ok tune_lhs_sample_stratified
else
    bad "tune_lhs_sample_stratified (exit $rc): $(cat "$tmp/err" "$tmp/l1")"
fi
# successive halving: the best third (5 of 13, then 2 of 5; one of 2 is no
# choice) again with new seeds: seed 2, then seeds 3 and 4; every point ran
# seeds 1, 2, ... with none twice, the last two survivors 1 to 4
if grep -q '^halve   round 1: the best 5 with 2 seeds; best ' "$tmp/l1" &&
    grep -q '^halve   round 2: the best 2 with 4 seeds; best ' "$tmp/l1" &&
    ! grep -q '^halve   round 3' "$tmp/l1" &&
    [ "$(jq '[.runs[].seed] | max' "$tmp/l1.json")" = 4 ] &&
    python3 -c "
import json, sys, collections
runs = json.load(open(sys.argv[1]))['runs']
seeds = collections.defaultdict(list)
for r in runs:
    seeds[json.dumps(r['point'], sort_keys=True)].append(r['seed'])
assert sorted(len(v) for v in seeds.values())[-2:] == [4, 4], seeds
for v in seeds.values():
    assert sorted(v) == list(range(1, len(v) + 1)), v
" "$tmp/l1.json" 2>"$tmp/err"; then
    ok tune_lhs_halving_new_seeds
else
    bad "tune_lhs_halving_new_seeds: $(cat "$tmp/err") $(grep '^halve' "$tmp/l1")"
fi
# another sample seed, another sample
# shellcheck disable=SC2086
"$bin" tune $tl --sample-seed 2 >"$tmp/l3" 2>/dev/null
grep -q '^sample  13 points, Latin hypercube (sample seed 2)' "$tmp/l3" &&
    [ "$(sed -n 3p "$tmp/l1" | cut -d: -f2)" != "$(sed -n 3p "$tmp/l3" | cut -d: -f2)" ] &&
    ok tune_lhs_sample_seed || bad "tune_lhs_sample_seed: $(sed -n 3p "$tmp/l3")"
# default knobs on a run already at its bound: every sampled change only
# ties the scenario as given, so the descent takes each back
"$bin" tune --set workload.bytes_per_writer=256KB --budget 60 -j 2 >"$tmp/l4" 2>&1
grep -q '^best    (the scenario as given): completion_s ' "$tmp/l4" &&
    grep -q '^# none: the scenario as given is the best point found' "$tmp/l4" &&
    ok tune_lhs_ties_keep_given || bad "tune_lhs_ties_keep_given: $(grep -v '^pass' "$tmp/l4")"
tune_error tune_bad_method "--method: expected lhs or coordinate" --method grid
tune_error tune_bad_sample_seed "--sample-seed: expected a whole number" --sample-seed -1

# training and restore figures: filled when the run has them, empty otherwise
"$bin" sweep --set workload.bytes_per_writer=256KB --set cluster.nodes=16 --set training.grad_bytes=4MB \
    --set training.step_time=2ms --engine fluid --quiet --out "$tmp/tr.csv" \
    --vary 'training.traffic=none,collectives;fabric.isolation=none' \
    --vary checkpoint.phase=save,both >/dev/null 2>&1
col() { grep -v '^#' "$1" | head -1 | tr ',' '\n' | grep -n "^$2\$" | cut -d: -f1; }
ts=$(col "$tmp/tr.csv" training_slowdown) rs=$(col "$tmp/tr.csv" restore_s)
got=$(tail -n +3 "$tmp/tr.csv" | awk -F, -v a="$ts" -v b="$rs" '{printf "%s:%s ", ($a != ""), ($b != "")}')
[ -n "$ts" ] && [ -n "$rs" ] && [ "$got" = "0:0 0:1 1:0 1:1 " ] && ok sweep_training_restore_columns ||
    bad "sweep_training_restore_columns: columns $ts $rs, got '$got': $(cat "$tmp/tr.csv")"
# sweep --vary takes the same compound values: both keys set in the run
"$bin" sweep --set workload.bytes_per_writer=256KB --set fabric.spines=4 --quiet --out "$tmp/c.csv" \
    --vary 'fabric.load_balancing=ecmp,ecmp;fabric.spines=8' >/dev/null 2>&1
[ $? -eq 0 ] && [ "$(cut -d, -f2,5,8 "$tmp/c.csv" | tail -n +3 | tr '\n' ' ')" = \
    "ecmp,ok,0.00022508916 ecmp;fabric.spines=8,ok,0.00017289692 " ] && ok sweep_compound_value ||
    bad "sweep_compound_value: $(cat "$tmp/c.csv")"

# compound values: spray only pays with the out-of-order receiver; the YAML
# snippet holds the changed keys as nested sections; --constraint; --budget
"$bin" tune --set workload.bytes_per_writer=256KB --set fabric.spines=4 --quiet \
    --knob 'fabric.load_balancing=ecmp,spray;transport.receiver=ooo' --constraint drops==0 \
    >"$tmp/t4" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^best    fabric.load_balancing=spray;transport.receiver=ooo: ' "$tmp/t4" &&
    [ "$(sed -n '/^# recommended/,$p' "$tmp/t4" | tail -n +2 | tr '\n' '|')" = \
        "fabric:|  load_balancing: spray|transport:|  receiver: ooo|" ]; then
    sed -n '/^# recommended/,$p' "$tmp/t4" >"$tmp/rec.yaml"
    # the snippet is a scenario file: it loads and sets both keys
    if "$bin" describe "$tmp/rec.yaml" 2>&1 | grep -q '^  transport.receiver = ooo' &&
        "$bin" describe "$tmp/rec.yaml" 2>&1 | grep -q '^  fabric.load_balancing = spray'; then
        ok tune_compound_yaml
    else
        bad "tune_compound_yaml: the snippet does not load: $(cat "$tmp/rec.yaml")"
    fi
else
    bad "tune_compound_yaml (exit $rc): $(cat "$tmp/t4")"
fi
"$bin" tune --set workload.bytes_per_writer=256KB --knob fabric.spines=2,4,8 \
    --constraint 'completion_s<=1.5x' --constraint 'drops==0' >"$tmp/t5" 2>&1
grep -q 'fabric.spines:  2=(completion_s .* > .*)' "$tmp/t5" && grep -q '^best    fabric.spines=8' "$tmp/t5" &&
    ok tune_constraint_infeasible || bad "tune_constraint_infeasible: $(cat "$tmp/t5")"
"$bin" tune --set workload.bytes_per_writer=256KB --knob fabric.spines=2,4,8 \
    --constraint 'completion_s>=1' --quiet >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'no feasible point' "$tmp/err" && ok tune_constraint_none ||
    bad "tune_constraint_none: $(cat "$tmp/err")"
"$bin" tune --set workload.bytes_per_writer=256KB --knob fabric.spines=2,4,8 --knob cluster.nodes=32,16 \
    --budget 3 --json "$tmp/t6.json" >"$tmp/t6" 2>&1
if grep -q '^best .*points evaluated (3 runs), stopped at the budget' "$tmp/t6" &&
    [ "$(jq '.runs | length' "$tmp/t6.json")" = 3 ] &&
    [ "$(jq -r '.best.changes["fabric.spines"]' "$tmp/t6.json")" != null ] &&
    jq -e '.best.result.checkpoint and .best.result.bound and (.runs[0].point == {})' \
        "$tmp/t6.json" >/dev/null; then
    ok tune_budget_json
else
    bad "tune_budget_json: $(cat "$tmp/t6")"
fi

# Done-when cases (tests/sweep.sh on the plain build only: the MPI build runs
# the same tune). 1. The default scenario with 8 MB per writer ends at 106%
# of its bound with one queue pair per writer; tune's default knobs and
# budget find a point within 1% of the bound (more queue pairs, or spray with
# the out-of-order receiver), the same whatever -j.
case $bin in
*-mpi) skip "tune done-when cases (run on the plain build)" ;;
*)
    "$bin" tune --engine packet --set workload.bytes_per_writer=8MB -j 2 >"$tmp/d1" 2>&1
    rc=$?
    r0=$(sed -n 's/^why: as given .* at \([0-9.]*\) of the bound;.*/\1/p' "$tmp/d1")
    r1=$(sed -n "s/^why: .*the best point's is .* at \([0-9.]*\) (.*/\1/p" "$tmp/d1")
    if [ $rc -eq 0 ] && grep -q '^tune: .*method lhs$' "$tmp/d1" && [ -n "$r0" ] && [ -n "$r1" ] &&
        awk -v a="$r0" -v b="$r1" 'BEGIN { exit !(a > 1.01 && b <= 1.01) }' &&
        grep -q '^best .*runs), \(no knob improves alone\|stopped at the budget\)$' "$tmp/d1"; then
        ok "tune_default_reaches_bound (as given $r0, best $r1 of the bound)"
    else
        bad "tune_default_reaches_bound (exit $rc, $r0 -> $r1): $(cat "$tmp/d1")"
    fi
    # 2. 127 writers x 4 MB into one storage node: PFC pauses dominate; the
    # tuner halves the paused time with completion within 10% of the default's
    "$bin" tune --engine packet --set cluster.nodes=127 --set storage.nodes=1 \
        --set workload.bytes_per_writer=4MB --minimize paused_s \
        --constraint 'completion_s<=1.1x' -j 2 >"$tmp/d3" 2>&1
    rc=$?
    dc=$(sed -n 's/^why: .*(completion \([-+0-9.]*\)%, paused time \([-+0-9.]*\)%)/\1/p' "$tmp/d3")
    dp=$(sed -n 's/^why: .*(completion \([-+0-9.]*\)%, paused time \([-+0-9.]*\)%)/\2/p' "$tmp/d3")
    if [ $rc -eq 0 ] && [ -n "$dc" ] && [ -n "$dp" ] &&
        awk -v c="$dc" -v p="$dp" 'BEGIN { exit !(c <= 10 && p <= -50) }'; then
        ok "tune_incast_pauses (completion $dc%, paused time $dp%)"
    else
        bad "tune_incast_pauses (exit $rc, completion $dc%, paused $dp%): $(cat "$tmp/d3")"
    fi
    ;;
esac
tune_error tune_bad_key "--knob: fabric.spine: unknown key" --knob fabric.spine=1,2
tune_error tune_bad_figure "--minimize: expected a figure" --knob fabric.spines=1,2 --minimize speed
tune_error tune_bad_set "--set: fabric.mtu:" --knob fabric.spines=1,2 --set fabric.mtu=lots
# --objective pareto: capital per day against money lost per day. The fluid
# engine does not see the deep buffer, so every CX764QD-N point costs more for
# the same loss and is dominated; 4 spines of CX732Q-N by hand (size's rule:
# DACs in the rack, optics and fibre beyond it): 13 switches x 18000 +
# 2 x 36 optics x 900 + 132 DACs x 100 + 36 fibres x 50 = 313800 over
# 5 x 365.25 days = 171.83
pk="--engine fluid --objective pareto --set cost.prices=CX732Q-N=18000,CX764QD-N=32000,optic_400g=900,dac_400g=100,fiber_mmf=50,storage_node=0 --knob fabric.switch=CX732Q-N,CX764QD-N --knob fabric.spines=4,8,16"
"$bin" tune $pk -j 1 --json "$tmp/p1.json" >"$tmp/p1" 2>"$tmp/err"; rc=$?
"$bin" tune $pk -j 2 --json "$tmp/p2.json" >"$tmp/p2" 2>/dev/null
if [ $rc -eq 0 ] && cmp -s "$tmp/p1" "$tmp/p2" && cmp -s "$tmp/p1.json" "$tmp/p2.json" &&
    grep -q '171.83 USD .* fabric.switch=CX732Q-N fabric.spines=4$' "$tmp/p1" &&
    ! grep -q 'CX764QD-N fabric' "$tmp/p1" &&
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["pareto"]; assert p and all(a["capital_per_day"]<b["capital_per_day"] and a["lost_money_per_day"]>b["lost_money_per_day"] for a,b in zip(p,p[1:])); assert all(x["settings"]["fabric.switch"]=="CX732Q-N" for x in p)' "$tmp/p1.json"; then
    ok tune_pareto
else
    bad "tune_pareto (exit $rc): $(cat "$tmp/p1" "$tmp/err")"
fi
tune_error tune_pareto_no_prices "--objective pareto needs the fabric's prices: set cost.prices" \
    --objective pareto --knob fabric.spines=4,8
tune_error tune_pareto_no_knob "--objective pareto: give the fabric choices to weigh with --knob" \
    --objective pareto --set cost.prices=CX732Q-N=1
tune_error tune_pareto_budget "runs the whole grid: 2 points and the scenario as given at 1 seed need a --budget of 3 runs (have 2)" \
    --objective pareto --set cost.prices=CX732Q-N=1 --knob fabric.spines=4,8 --budget 2
tune_error tune_objective "--objective: expected pareto" --objective money --knob fabric.spines=4,8
missing=""
for o in $("$bin" tune --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
    printf '%s' "$man_opts" | grep -qF -- "$o" || missing="$missing $o"
done
grep -q '^\.B.* tune' docs/ckptnet.1 || missing="$missing (command)"
[ -z "$missing" ] && ok man_page_tune || bad "man_page_tune: missing$missing"

# MPI: rank 0 writes the same rows as -j 1, with dynamic load balancing
if ! command -v mpirun >/dev/null; then
    skip "mpirun tests (mpirun is not installed: apt-get install openmpi-bin libopenmpi-dev)"
elif [ "$mpi" -eq 0 ]; then
    # the plain build refuses to run one whole sweep per rank
    timeout 120 mpirun --allow-run-as-root --oversubscribe -n 2 "$bin" sweep --vary fabric.spines=2 \
        --out "$tmp/x.csv" >/dev/null 2>"$tmp/err"
    grep -q 'built without MPI (use build/ckptnet-mpi' "$tmp/err" && ok mpi_plain_build_refuses ||
        bad "mpi_plain_build_refuses: $(head -3 "$tmp/err")"
    timeout 120 mpirun --allow-run-as-root --oversubscribe -n 2 "$bin" tune --knob fabric.spines=2,4 \
        >/dev/null 2>"$tmp/err"
    grep -q 'tune: started with 2 MPI ranks, but this ckptnet was built without MPI' "$tmp/err" &&
        ok mpi_plain_build_refuses_tune || bad "mpi_plain_build_refuses_tune: $(head -3 "$tmp/err")"
else
    # shellcheck disable=SC2086
    timeout 120 mpirun --allow-run-as-root --oversubscribe -n 2 "$bin" sweep $small --out "$tmp/m2.csv" \
        >/dev/null 2>&1
    same "$tmp/j1.csv" "$tmp/m2.csv" && ok csv_same_mpirun_2 || bad csv_same_mpirun_2
    # rank 0 only coordinates (-j 0); ranks 1 and 2 run
    # shellcheck disable=SC2086
    timeout 120 mpirun --allow-run-as-root --oversubscribe -n 3 "$bin" sweep $small -j 0 --out "$tmp/m3.json" \
        >/dev/null 2>&1
    same "$tmp/j1.json" "$tmp/m3.json" && ok json_same_mpirun_3 || bad json_same_mpirun_3
    head -c 900 "$tmp/j1.csv" >"$tmp/mr.csv"
    # shellcheck disable=SC2086
    timeout 120 mpirun --allow-run-as-root --oversubscribe -n 2 "$bin" sweep $small --out "$tmp/mr.csv" \
        --resume >/dev/null 2>&1
    same "$tmp/j1.csv" "$tmp/mr.csv" && ok resume_mpirun || bad resume_mpirun
    # rank 0 refusing the file to resume lets the other ranks go
    # shellcheck disable=SC2086
    timeout 120 mpirun --allow-run-as-root --oversubscribe -n 2 "$bin" sweep $long --vary storage.nodes=2 \
        --out "$tmp/k.csv" --resume >/dev/null 2>"$tmp/err"
    grep -q "is not this sweep's output" "$tmp/err" && ok mpi_resume_other_sweep ||
        bad "mpi_resume_other_sweep: $(head -3 "$tmp/err")"
    # a rank that dies: mpirun ends the job, the rows so far are whole points,
    # and --resume (here without MPI) finishes the same file
    # shellcheck disable=SC2086
    timeout 120 mpirun --allow-run-as-root --oversubscribe -n 2 "$bin" sweep $long \
        --out "$tmp/rd.csv" >/dev/null 2>&1 &
    mpid=$!
    n=0
    while [ "$n" -lt 300 ] && [ "$(cat "$tmp/rd.csv.partial" 2>/dev/null | wc -l)" -lt 3 ]; do
        sleep 0.02
        n=$((n + 1))
    done
    # timeout -> mpirun -> the ranks: kill the last one started
    mpirun_pid=$(ps -o pid= --ppid "$mpid" 2>/dev/null | head -1)
    victim=$(ps -o pid= --ppid "${mpirun_pid:-0}" 2>/dev/null | tail -1)
    [ -n "$victim" ] && kill -KILL "$victim" 2>/dev/null
    wait "$mpid" 2>/dev/null
    lines=$(wc -l <"$tmp/rd.csv.partial")
    # shellcheck disable=SC2086
    "$bin" sweep $long -j 2 --out "$tmp/rd.csv" --resume 2>/dev/null
    same "$tmp/full.csv" "$tmp/rd.csv" && ok "resume_after_rank_died (at $lines lines)" ||
        bad "resume_after_rank_died (at $lines lines)"
    # a usage error stops every rank with one message
    timeout 120 mpirun --allow-run-as-root --oversubscribe -n 2 "$bin" sweep --vary fabric.spine=1 \
        >/dev/null 2>"$tmp/err"
    [ "$(grep -c 'unknown key' "$tmp/err")" -eq 1 ] && ok mpi_error_once ||
        bad "mpi_error_once: $(head -3 "$tmp/err")"
    # tune over ranks: each batch of points spread over the ranks, the same
    # answer and runs as -j 1; with -j 0 rank 0 only coordinates, so ranks 1
    # and 2 ran every run
    # shellcheck disable=SC2086
    timeout 300 mpirun --allow-run-as-root --oversubscribe -n 2 "$bin" tune $tk --json "$tmp/tm2.json" \
        >"$tmp/tm2" 2>&1
    # shellcheck disable=SC2086
    timeout 300 mpirun --allow-run-as-root --oversubscribe -n 3 "$bin" tune $tk -j 0 --json "$tmp/tm3.json" \
        >"$tmp/tm3" 2>&1
    # shellcheck disable=SC2086
    timeout 300 mpirun --allow-run-as-root --oversubscribe -n 3 "$bin" tune $tl -j 0 --json "$tmp/lm3.json" \
        >"$tmp/lm3" 2>&1
    if cmp -s "$tmp/t1" "$tmp/tm2" && cmp -s "$tmp/t1" "$tmp/tm3" &&
        cmp -s "$tmp/t1.json" "$tmp/tm2.json" && cmp -s "$tmp/t1.json" "$tmp/tm3.json" &&
        cmp -s "$tmp/l1" "$tmp/lm3" && cmp -s "$tmp/l1.json" "$tmp/lm3.json"; then
        ok tune_same_mpirun_2_3
    else
        bad "tune_same_mpirun_2_3: $(diff "$tmp/t1" "$tmp/tm3" | head -5)"
    fi
    # a rank that cannot read an input rank 0 reads (standard input: only rank 0
    # gets it) stops every rank, and rank 0 says so
    printf 'fabric.spines=2\n' | timeout 120 mpirun --allow-run-as-root --oversubscribe -n 2 "$bin" sweep \
        --points /dev/stdin --out "$tmp/x.csv" >/dev/null 2>"$tmp/err"
    rc=$?
    [ "$rc" -ne 0 ] && [ "$(grep -c 'sweep: another MPI rank could not set up' "$tmp/err")" -eq 1 ] &&
        ok mpi_other_rank_setup_fails || bad "mpi_other_rank_setup_fails (exit $rc): $(head -3 "$tmp/err")"
    timeout 120 mpirun --allow-run-as-root --oversubscribe -n 2 "$bin" tune --knob fabric.spine=1,2 \
        >/dev/null 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(grep -c 'unknown key' "$tmp/err")" -eq 1 ] && ok mpi_tune_error_once ||
        bad "mpi_tune_error_once (exit $rc): $(head -3 "$tmp/err")"
fi

# size over MPI ranks: the ranks take leaf shapes from rank 0 as they ask;
# the front, its figures and the recommendation are one process's
if ! command -v mpirun >/dev/null; then
    skip "size over MPI ranks (mpirun is not installed: apt-get install openmpi-bin libopenmpi-dev)"
elif [ "$mpi" -eq 0 ]; then
    skip "size over MPI ranks (this is the plain build; make test-sweep runs build/ckptnet-mpi when mpicc is installed)"
else
    szm="size --set cluster.nodes=48 --set storage.nodes=2 --target checkpoint_overhead<=5% --quiet"
    # shellcheck disable=SC2086
    "$bin" $szm -j 1 --json "$tmp/szm1.json" >"$tmp/szm1.out" 2>&1
    # shellcheck disable=SC2086
    timeout 300 mpirun --allow-run-as-root --oversubscribe -n 3 "$bin" $szm --json "$tmp/szm3.json" \
        >"$tmp/szm3.out" 2>"$tmp/err"
    rc=$?
    fo='[.front, .recommended, [.candidates[.front[]] | [.loss_per_day, .save_s, .cost_per_day]]]'
    f1=$(jq -c "$fo" "$tmp/szm1.json" 2>/dev/null)
    f3=$(jq -c "$fo" "$tmp/szm3.json" 2>/dev/null)
    by=$(sed -n 's/^MPI: 2 ranks beside rank 0 screened \([0-9]*\) of.*/\1/p' "$tmp/szm3.out")
    if [ "$rc" -eq 0 ] && [ -n "$f1" ] && [ "$f1" = "$f3" ] && [ "${by:-0}" -gt 0 ] &&
        [ "$(grep -c '^front: ' "$tmp/szm3.out")" -eq 1 ]; then
        ok size_mpi_same_front
    else
        bad "size_mpi_same_front (exit $rc; ranks screened '$by'; -j 1 $f1; 3 ranks $f3): $(head -3 "$tmp/err")"
    fi
fi

# transport.uec.rccc as a sweep key and a tune knob (bool values): the row
# carries RCCC's own counter (credits_granted: 0 without, the run's JSON
# figure with), credits cost events (the events column rises); a value that
# is not a bool, or credits without Ultra Ethernet, fail that row by key
rc_set="--set transport.protocol=uec --set cluster.nodes=32 --set storage.nodes=2 --set workload.bytes_per_writer=1MB"
# shellcheck disable=SC2086
"$bin" sweep $rc_set --vary transport.uec.rccc=false,true,maybe --quiet --out "$tmp/rc.csv" >/dev/null 2>&1
# shellcheck disable=SC2086
"$bin" run $rc_set --set transport.uec.rccc=true --quiet --json "$tmp/rc1.json" >/dev/null 2>&1
cg=$(jq -r '.transport.uec.credits_granted' "$tmp/rc1.json" 2>/dev/null)
ev=$(col "$tmp/rc.csv" events) st=$(col "$tmp/rc.csv" status) er=$(col "$tmp/rc.csv" error)
cc=$(col "$tmp/rc.csv" credits_granted)
got=$(tail -n +3 "$tmp/rc.csv" | awk -F, -v e="$ev" -v s="$st" -v c="$cc" '{printf "%s:%s:%s ", $2, $s, $c} NR == 1 {a = $e} NR == 2 {b = $e} END {printf "%s", (a > 0 && b > a)}')
[ -n "$ev" ] && [ -n "$cc" ] && [ "${cg:-0}" -gt 0 ] 2>/dev/null &&
    [ "$got" = "false:ok:0 true:ok:$cg maybe:failed: 1" ] &&
    grep -q 'transport.uec.rccc: expected true or false, got ""maybe""' "$tmp/rc.csv" &&
    ok sweep_rccc_key || bad "sweep_rccc_key: got '$got' (run JSON credits '$cg', error column $er): $(cat "$tmp/rc.csv")"
"$bin" sweep --vary transport.uec.rccc=true --quiet --out "$tmp/rc2.csv" >/dev/null 2>&1
grep -q 'transport.uec.rccc: receiver credits (RCCC) are Ultra Ethernet.s: transport.protocol: uec' \
    "$tmp/rc2.csv" && ok sweep_rccc_needs_uec || bad "sweep_rccc_needs_uec: $(cat "$tmp/rc2.csv")"
# a point is feasible only if its receivers granted credits: the answer is
# rccc=true only when the knob's runs really ran RCCC
# shellcheck disable=SC2086
if "$bin" tune $rc_set --knob transport.uec.rccc=false,true --constraint 'credits_granted>=1' \
    --quiet -j 1 >"$tmp/rct" 2>&1 &&
    grep -q '^best    transport.uec.rccc=true: completion_s ' "$tmp/rct" &&
    grep -q '2 of 2 points evaluated' "$tmp/rct"; then
    ok tune_rccc_knob
else
    bad "tune_rccc_knob: $(cat "$tmp/rct")"
fi

echo "sweep: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
