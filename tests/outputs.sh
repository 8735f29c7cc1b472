#!/bin/sh
# Output robustness: SIGTERM and SIGHUP stop a run like SIGINT; every output
# file is written whole or not at all (a full disk, a size limit, a failed
# write keep the earlier file, and every other output is still written);
# pre-checks before a run; sweep --out's header, lock and --resume checks.
# Usage: tests/outputs.sh path/to/ckptnet
bin=${1:-./build/ckptnet}
tmp=$(mktemp -d)
mnt=""
cleanup() {
    [ -n "$mnt" ] && umount "$mnt" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   outputs: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL outputs: $1"; }
note() { echo "NOTE outputs: $1"; }

small="--set cluster.nodes=32 --set workload.bytes_per_writer=256KB"
# wait_for FILE PATTERN: up to 20 s for PATTERN to appear in FILE
wait_for() {
    n=0
    while ! grep -q "$2" "$1" 2>/dev/null && [ "$n" -lt 200 ]; do sleep 0.1; n=$((n + 1)); done
}
# refused NAME WANT ARGS...: exit 2 before any run (nothing on stdout), WANT on stderr
refused() {
    name=$1 want=$2
    shift 2
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] && grep -qF -- "$want" "$tmp/err"; then
        ok "$name"
    else
        bad "$name (exit $rc, stdout $(wc -c <"$tmp/out") bytes): $(head -2 "$tmp/err")"
    fi
}

# ---- SIGTERM (Slurm, timeout) and SIGHUP: partial results written, 128 + signal
for sig in TERM HUP; do
    "$bin" run scenarios/bench-1024.yaml --progress 0.05 --json "$tmp/$sig.json" \
        >"$tmp/$sig.out" 2>"$tmp/$sig.err" &
    pid=$!
    wait_for "$tmp/$sig.err" '^progress:'
    kill -"$sig" "$pid" 2>/dev/null
    wait "$pid"
    rc=$?
    want=$([ "$sig" = TERM ] && echo 143 || echo 129)
    if [ "$rc" -eq "$want" ] && grep -q 'completion  INTERRUPTED: ' "$tmp/$sig.out" &&
        grep -q '"finished": false' "$tmp/$sig.json" && grep -q '"interrupted": true' "$tmp/$sig.json" &&
        grep -q "interrupted by SIG$sig" "$tmp/$sig.err"; then
        ok "sig${sig}_partial_results (exit $rc)"
    else
        bad "sig${sig}_partial_results (exit $rc, want $want): $(tail -2 "$tmp/$sig.err")"
    fi
done

# ---- a failed write keeps the earlier file; every other output is written
# reference outputs of the same run
# shellcheck disable=SC2086
"$bin" run $small --quiet --json "$tmp/ref.json" --metrics "$tmp/ref.prom" --csv-dir "$tmp/refcsv" \
    2>/dev/null
# seed DIR: an earlier run's files, each holding "old NAME"
seed() {
    mkdir -p "$1/csv"
    echo '{"old": true}' >"$1/r.json"
    echo "old metrics" >"$1/m.prom"
    for f in "$tmp"/refcsv/*.csv; do echo "old $(basename "$f")" >"$1/csv/$(basename "$f")"; done
}
# whole_or_old DIR: every file is the new one or the old one, never a torn
# one; prints "new old" counts; no temporary left behind
whole_or_old() {
    new=0 old=0 torn=""
    for pair in "r.json:ref.json" "m.prom:ref.prom"; do
        f=${pair%%:*} r=${pair#*:}
        if cmp -s "$1/$f" "$tmp/$r"; then new=$((new + 1));
        elif head -1 "$1/$f" | grep -q old; then old=$((old + 1)); else torn="$torn $f"; fi
    done
    for r in "$tmp"/refcsv/*.csv; do
        f=$1/csv/$(basename "$r")
        if cmp -s "$f" "$r"; then new=$((new + 1));
        elif [ "$(cat "$f")" = "old $(basename "$r")" ]; then old=$((old + 1)); else torn="$torn $f"; fi
    done
    [ -n "$(find "$1" -name '.*.tmp-*')" ] && torn="$torn (temporaries left)"
    echo "$new $old$torn"
}

# a file-size limit (SIGXFSZ ignored: the write fails with EFBIG): the JSON
# (38 KB) and the metrics (110 KB) do not fit, the small CSV files do
seed "$tmp/lim"
(
    ulimit -f 32
    trap '' XFSZ
    # shellcheck disable=SC2086
    exec "$bin" run $small --quiet --json "$tmp/lim/r.json" --metrics "$tmp/lim/m.prom" \
        --csv-dir "$tmp/lim/csv" >"$tmp/lim.out" 2>"$tmp/lim.err"
)
rc=$?
got=$(whole_or_old "$tmp/lim")
# shellcheck disable=SC2086
set -- $got
if [ "$rc" -eq 2 ] && [ "$#" -eq 2 ] && [ "$1" -ge 1 ] && [ "$2" -ge 2 ] &&
    [ "$(cat "$tmp/lim/r.json")" = '{"old": true}' ] &&
    grep -q "^ckptnet: --json: cannot write '$tmp/lim/r.json': File too large" "$tmp/lim.err" &&
    grep -q "^ckptnet: --metrics: cannot write" "$tmp/lim.err" &&
    grep -q 'outputs not written; the summary instead' "$tmp/lim.err" &&
    grep -q 'invariants  ok' "$tmp/lim.err"; then
    ok "size_limit_keeps_earlier_files (new, old: $got)"
else
    bad "size_limit_keeps_earlier_files (exit $rc; new, old, torn: $got): $(head -4 "$tmp/lim.err")"
fi

# a full file system: a 64 KB tmpfs when this user may mount one (CI runs
# as root); the metrics go outside it and are written
mkdir -p "$tmp/fs"
if mount -t tmpfs -o size=64k tmpfs "$tmp/fs" 2>/dev/null; then
    mnt="$tmp/fs"
    seed "$tmp/fs"
    # shellcheck disable=SC2086
    "$bin" run $small --quiet --json "$tmp/fs/r.json" --metrics "$tmp/fsm.prom" \
        --csv-dir "$tmp/fs/csv" >/dev/null 2>"$tmp/fs.err"
    rc=$?
    got=$(whole_or_old "$tmp/fs")
    # shellcheck disable=SC2086
    set -- $got
    if [ "$rc" -eq 2 ] && [ "$#" -eq 2 ] && [ "$2" -ge 1 ] && cmp -s "$tmp/fsm.prom" "$tmp/ref.prom" &&
        grep -q 'No space left on device' "$tmp/fs.err"; then
        ok "full_tmpfs_keeps_earlier_files (new, old: $got)"
    else
        bad "full_tmpfs_keeps_earlier_files (exit $rc; new, old, torn: $got): $(head -3 "$tmp/fs.err")"
    fi
    # a sweep on a full disk: exit 2, the earlier --out file intact
    rm -rf "$tmp/fs/csv" "$tmp/fs/r.json"
    echo "earlier sweep" >"$tmp/fs/s.csv"
    dd if=/dev/zero of="$tmp/fs/fill" bs=1k count=200 2>/dev/null
    # shellcheck disable=SC2086
    "$bin" sweep --quiet $small --vary fabric.spines=2,4 -j 1 --out "$tmp/fs/s.csv" 2>"$tmp/fs.err"
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(cat "$tmp/fs/s.csv")" = "earlier sweep" ] && ok sweep_full_disk_keeps_out ||
        bad "sweep_full_disk_keeps_out (exit $rc): $(cat "$tmp/fs/s.csv") $(head -2 "$tmp/fs.err")"
    umount "$tmp/fs" && mnt=""
else
    note "SKIPPED full_tmpfs_keeps_earlier_files and sweep_full_disk_keeps_out: cannot mount a tmpfs here (not root?); the size-limit test above covers a failing write"
fi

# --report-dir over an earlier report: a write that fails (the page is
# 200 KB, past the limit) leaves the earlier page and every plot file as
# they were, and no staging directory
if command -v gnuplot >/dev/null 2>&1; then
    # shellcheck disable=SC2086
    "$bin" run $small --quiet --report-dir "$tmp/rdo" 2>/dev/null
    cp -r "$tmp/rdo" "$tmp/rdo.before"
    (
        ulimit -f 64
        trap '' XFSZ
        # shellcheck disable=SC2086
        exec "$bin" run $small --set fabric.spines=4 --quiet --report-dir "$tmp/rdo" >/dev/null 2>"$tmp/rdo.err"
    )
    rc=$?
    if [ "$rc" -eq 2 ] && diff -r "$tmp/rdo" "$tmp/rdo.before" >/dev/null &&
        [ -z "$(find "$tmp/rdo" -name '.*')" ] && [ -s "$tmp/rdo/plots/plots.gp" ]; then
        ok report_dir_failure_keeps_earlier_report
    else
        bad "report_dir_failure_keeps_earlier_report (exit $rc): $(head -2 "$tmp/rdo.err"; diff -rq "$tmp/rdo" "$tmp/rdo.before")"
    fi
else
    note "SKIPPED report_dir_failure_keeps_earlier_report: gnuplot is not installed"
fi

# two outputs failing (/dev/full takes no byte): both said, the third written
# shellcheck disable=SC2086
"$bin" run $small --quiet --json /dev/full --metrics /dev/full --csv-dir "$tmp/two" >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q '^ckptnet: --json: cannot write' "$tmp/err" &&
    grep -q '^ckptnet: --metrics: cannot write' "$tmp/err" && cmp -s "$tmp/two/segments.csv" "$tmp/refcsv/segments.csv"; then
    ok every_output_tried
else
    bad "every_output_tried (exit $rc): $(head -3 "$tmp/err")"
fi

# compare: a run that cannot run (the packet engine refuses 1.6e10 events)
# still leaves the runs before it in --jsonl and --json; exit 2
"$bin" compare --vary workload.bytes_per_writer=64KB,64GB --set engine=packet --jsonl "$tmp/cr.jsonl" \
    --json "$tmp/cr.json" >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/cr.jsonl")" -eq 1 ] &&
    [ "$(grep -c '"name": "workload.bytes_per_writer=' "$tmp/cr.json")" -eq 1 ] &&
    grep -q 'workload.bytes_per_writer=64GB: .*packet engine would take' "$tmp/err"; then
    ok compare_failed_run_keeps_earlier_runs
else
    bad "compare_failed_run_keeps_earlier_runs (exit $rc): $(head -2 "$tmp/err")"
fi

# the summary, a description, a table or the catalog to a full stdout: exit 2
for c in "run $small" "describe" "compare --vary fabric.spines=2,4 $small" "catalog"; do
    # shellcheck disable=SC2086
    "$bin" $c >/dev/full 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q 'to standard output: No space left on device' "$tmp/err"; then
        ok "full_stdout_${c%% *}"
    else
        bad "full_stdout_${c%% *} (exit $rc): $(head -2 "$tmp/err")"
    fi
done

# a symbolic link to a file is written through (the link stays)
mkdir -p "$tmp/real"
ln -s "$tmp/real/target.json" "$tmp/link.json"
echo '{"old": true}' >"$tmp/real/target.json"
# shellcheck disable=SC2086
"$bin" run $small --quiet --json "$tmp/link.json" 2>/dev/null
[ -L "$tmp/link.json" ] && grep -q '"finished": true' "$tmp/real/target.json" &&
    ok json_through_symlink || bad json_through_symlink

# ---- pre-checks: refused before the run (no summary), naming the file
ln -s "$tmp/nodir/x.json" "$tmp/dangling.json"
# shellcheck disable=SC2086
refused dangling_symlink "--json: cannot write '$tmp/dangling.json': a dangling symbolic link" \
    run $small --json "$tmp/dangling.json"
mkdir -p "$tmp/cd/timeseries.csv"
# shellcheck disable=SC2086
refused csv_dir_file_is_dir "--csv-dir: '$tmp/cd/timeseries.csv' is a directory" \
    run $small --csv-dir "$tmp/cd"
mkdir -p "$tmp/cd2"
ln -s "$tmp/nodir/w.csv" "$tmp/cd2/writers.csv"
# shellcheck disable=SC2086
refused csv_dir_dangling "--csv-dir: cannot write '$tmp/cd2/writers.csv': a dangling symbolic link" \
    run $small --csv-dir "$tmp/cd2"
mkdir -p "$tmp/pc/spine0-sleaf0.pcap"
# shellcheck disable=SC2086
refused pcap_file_is_dir "--pcap: '$tmp/pc/spine0-sleaf0.pcap' is a directory" \
    run $small --set telemetry.pcap.ports=spine0-sleaf0 --pcap "$tmp/pc"
mkdir -p "$tmp/rd/plots/plots.gp"
# shellcheck disable=SC2086
refused report_dir_file_is_dir "--report-dir: '$tmp/rd/plots/plots.gp' is a directory" \
    run $small --report-dir "$tmp/rd"
ln -s "$tmp/nodir" "$tmp/dangling_dir"
# shellcheck disable=SC2086
refused csv_dir_dangling_link "--csv-dir: cannot create directory '$tmp/dangling_dir': a dangling symbolic link" \
    run $small --csv-dir "$tmp/dangling_dir"
# shellcheck disable=SC2086
refused sweep_report_no_dir "--report: cannot write '$tmp/nodir/s.html': no directory" \
    sweep $small --vary fabric.spines=2,4 --report "$tmp/nodir/s.html" --out "$tmp/pre.csv"
[ ! -e "$tmp/pre.csv" ] && ok sweep_report_checked_before_rows || bad sweep_report_checked_before_rows

# ---- sweep --out: the header, --resume checks, the lock, a dead worker
printf 'fabric:\n  spines: 2\n' >"$tmp/sc.yaml"
sw="$tmp/sc.yaml --set workload.bytes_per_writer=256KB --set cluster.nodes=16 --vary fabric.spines=2,4 --quiet -j 1"
# shellcheck disable=SC2086
"$bin" sweep $sw --out "$tmp/h.csv" 2>/dev/null
hash=$(python3 -c "
import sys
h = 0xcbf29ce484222325
for b in open(sys.argv[1], 'rb').read():
    h = ((h ^ b) * 0x100000001b3) % 2**64
print('%016x' % h)" "$tmp/sc.yaml")
if head -1 "$tmp/h.csv" | grep -q '^# {"sweep": "ckptnet", "version": "' &&
    head -1 "$tmp/h.csv" | grep -qF "\"scenario_fnv1a64\": \"$hash\"" &&
    head -1 "$tmp/h.csv" | grep -qF '"set": ["workload.bytes_per_writer=256KB", "cluster.nodes=16"], "engine": "packet", "seed": 1' &&
    sed -n 2p "$tmp/h.csv" | grep -q '^point,fabric.spines,seed,row,' && [ "$(wc -l <"$tmp/h.csv")" -eq 4 ]; then
    ok sweep_header
else
    bad "sweep_header: $(head -2 "$tmp/h.csv")"
fi
cp "$tmp/h.csv" "$tmp/h0.csv"
# shellcheck disable=SC2086
"$bin" sweep $sw --engine fluid --out "$tmp/h.csv" --resume 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "is not this sweep's output: its set is" "$tmp/err" && cmp -s "$tmp/h.csv" "$tmp/h0.csv" &&
    ok resume_refuses_other_engine || bad "resume_refuses_other_engine (exit $rc): $(cat "$tmp/err")"
# shellcheck disable=SC2086
"$bin" sweep $sw --set cluster.nodes=32 --out "$tmp/h.csv" --resume 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "its set is" "$tmp/err" && ok resume_refuses_other_set ||
    bad "resume_refuses_other_set (exit $rc): $(cat "$tmp/err")"
printf 'fabric:\n  spines: 2\nseed: 7\n' >"$tmp/sc.yaml"
# shellcheck disable=SC2086
"$bin" sweep $sw --out "$tmp/h.csv" --resume 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "its scenario_fnv1a64 is \"$hash\"" "$tmp/err" && cmp -s "$tmp/h.csv" "$tmp/h0.csv" &&
    ok resume_refuses_changed_scenario || bad "resume_refuses_changed_scenario (exit $rc): $(cat "$tmp/err")"
printf 'fabric:\n  spines: 2\n' >"$tmp/sc.yaml"
# a finished file resumed: nothing to run, the same file
# shellcheck disable=SC2086
"$bin" sweep $sw --out "$tmp/h.csv" --resume 2>/dev/null
[ $? -eq 0 ] && cmp -s "$tmp/h.csv" "$tmp/h0.csv" && [ ! -e "$tmp/h.csv.partial" ] &&
    ok resume_finished_file || bad resume_finished_file

# a slow second point (about 1.5 s): a second sweep on the same --out is
# refused while the first runs; then the first's worker is killed in that run
slow="--set workload.bytes_per_writer=8MB --set fabric.allow_oversize=true --vary cluster.nodes=16,512 --quiet -j 1"
# shellcheck disable=SC2086
"$bin" sweep $slow --out "$tmp/d.csv" 2>"$tmp/d.err" &
pid=$!
n=0
while [ "$n" -lt 500 ] && [ "$(cat "$tmp/d.csv.partial" 2>/dev/null | wc -l)" -lt 3 ]; do
    sleep 0.02
    n=$((n + 1))
done
# shellcheck disable=SC2086
"$bin" sweep $slow --out "$tmp/d.csv" 2>"$tmp/err2"
rc2=$?
worker=$(ps -o pid= --ppid "$pid" 2>/dev/null | head -1)
[ -n "$worker" ] && kill -KILL $worker 2>/dev/null
wait "$pid"
rc=$?
if [ "$rc2" -eq 2 ] && grep -q "another sweep is writing '$tmp/d.csv'" "$tmp/err2"; then
    ok second_sweep_refused
else
    bad "second_sweep_refused (exit $rc2): $(cat "$tmp/err2")"
fi
row=$(grep '^1,512,' "$tmp/d.csv")
if [ "$rc" -eq 1 ] && echo "$row" | grep -q '^1,512,1,run,failed,.*worker process died (signal 9)'; then
    ok dead_worker_row_has_seed
    # shellcheck disable=SC2086
    "$bin" sweep $slow --out "$tmp/d.csv" --resume 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 0 ] && grep -q '^1,512,1,run,ok,packet,' "$tmp/d.csv" && [ "$(wc -l <"$tmp/d.csv")" -eq 4 ] &&
        [ "$(grep '^0,16,' "$tmp/d.csv")" = "$(grep '^0,16,' "$tmp/d.csv" | head -1)" ]; then
        ok dead_worker_run_retried_on_resume
    else
        bad "dead_worker_run_retried_on_resume (exit $rc): $(cat "$tmp/d.csv" "$tmp/err")"
    fi
else
    bad "dead_worker_row_has_seed (exit $rc, worker ${worker:-none}): $row $(cat "$tmp/d.err")"
fi

# ---- the table of outputs (cli/outputs.c): one row per output option
# run --vary names every one-run output it refuses; run names why a table
# output needs --vary; two outputs cannot share stdout in compare either
# shellcheck disable=SC2086 # $small is several words
refused vary_refuses_one_run_outputs \
    'run: --vary prints a table; --json, --csv-dir, --report, --report-dir, --metrics and --pcap need a single run (--jsonl writes each run'"'"'s results)' \
    run $small --vary seed=1,2 --pcap "$tmp/vp"
# shellcheck disable=SC2086
refused run_jsonl_needs_vary 'run: --jsonl is for --vary (one line per run); use --json for one run' \
    run $small --jsonl "$tmp/r.jsonl"
# shellcheck disable=SC2086
refused compare_two_on_stdout 'compare: --json - and --jsonl - cannot both take stdout' \
    compare $small --vary seed=1,2 --json - --jsonl -
# shellcheck disable=SC2086
refused sweep_report_checked_first "sweep: --report: cannot write '$tmp/none/s.html'" \
    sweep $small --vary seed=1,2 --report "$tmp/none/s.html"
# shellcheck disable=SC2086
refused tune_json_checked "tune: --json: cannot write '$tmp/none/t.json': no directory" \
    tune $small --budget 1 --json "$tmp/none/t.json"
# every option a command's --help lists is in its synopsis and in the
# manual (a new output row brings its help line; these say what else to add)
undocumented=""
for c in run compare describe sweep tune; do
    "$bin" "$c" --help >"$tmp/help"
    syn=$(sed '/^$/q' "$tmp/help")
    # shellcheck disable=SC2013 # option names are single words
    for o in $(grep -oE '^  (-[a-z], )?--[a-z-]+' "$tmp/help" | grep -oE -- '--[a-z-]+$'); do
        [ "$o" = --help ] && continue
        s=$o
        [ "$o" = --jobs ] && s=-j
        case "$syn" in *"$s "* | *"$s]"*) ;; *) undocumented="$undocumented $c:$o(synopsis)" ;; esac
        grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" docs/ckptnet.1 ||
            undocumented="$undocumented $c:$o(manual)"
    done
done
if [ -z "$undocumented" ]; then ok options_documented; else bad "options_documented:$undocumented"; fi

# every option with a value in a command's --help is one the command takes
# (a row's help line and its option agree): alone, it needs a value
untaken=""
for c in run compare describe sweep tune; do
    for o in $("$bin" "$c" --help | grep -oE '^  (-[a-z], )?--[a-z-]+ [A-Za-z]' | grep -oE -- '--[a-z-]+'); do
        "$bin" "$c" "$o" >/dev/null 2>"$tmp/err"
        grep -qF -- "$o needs a value" "$tmp/err" || untaken="$untaken $c:$o"
    done
done
if [ -z "$untaken" ]; then ok help_options_taken; else bad "help_options_taken:$untaken"; fi

echo "outputs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
