#!/bin/sh
# CLI tests: help, the default run, JSON determinism, and bad input that must
# give one clear line on stderr and exit 2 (never a crash).
# Usage: tests/cli.sh path/to/ckptnet
bin=${1:-./build/ckptnet}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# expect_error NAME EXPECTED_SUBSTRING ARGS...: exit 2, one stderr line containing it
expect_error() {
    name=$1 want=$2
    shift 2
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$want" "$tmp/err"; then
        ok "$name"
    else
        bad "$name (exit $rc, $lines stderr lines): $(cat "$tmp/err")"
    fi
}

"$bin" --help | grep -q 'ckptnet run' && ok help || bad help
"$bin" run --help | grep -q -- '--json' && ok run_help || bad run_help

# the default scenario runs, summarises and passes its invariants
if "$bin" run >"$tmp/sum" 2>&1 && grep -q 'invariants  ok' "$tmp/sum"; then ok default_run; else bad default_run; fi

# the shipped default.yaml is the built-in default (same figures)
"$bin" run --quiet --json "$tmp/a.json" >/dev/null 2>&1
"$bin" run scenarios/default.yaml --quiet --json "$tmp/b.json" >/dev/null 2>&1
strip() { sed -e '/"perf": {/,/}/d' -e '/"source":/d' "$1"; }
if [ -s "$tmp/a.json" ] && [ "$(strip "$tmp/a.json")" = "$(strip "$tmp/b.json")" ]; then
    ok default_yaml_matches_builtin
else
    bad default_yaml_matches_builtin
fi

# determinism: same scenario and seed -> byte-identical JSON minus perf.*
"$bin" run --quiet --set workload.start_jitter=50us --set cluster.nodes=48 --json "$tmp/c.json"
"$bin" run --quiet --set workload.start_jitter=50us --set cluster.nodes=48 --json "$tmp/d.json"
if [ "$(strip "$tmp/c.json")" = "$(strip "$tmp/d.json")" ] && grep -q '"nodes": 48' "$tmp/c.json"; then
    ok json_deterministic
else
    bad json_deterministic
fi

# --set overrides the file and is echoed into the results
"$bin" run scenarios/default.yaml --set fabric.spines=4 --quiet --json - | grep -q '"spines": 4' &&
    ok set_override_echoed || bad set_override_echoed

# invariant violation: exit 1 with a message (lossy fabric that drops)
"$bin" run --quiet --set fabric.pfc.enabled=false --set fabric.buffer=2MB --set cluster.nodes=32 \
    --set workload.bytes_per_writer=1MB 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q 'invariant violated' "$tmp/err"; then ok invariant_exit; else bad "invariant_exit (exit $rc)"; fi

printf 'fabric:\n  spines: [1, 2\n' >"$tmp/syntax.yaml"
printf 'fabric:\n  spine: 4\n' >"$tmp/unknown.yaml"
printf 'cluster:\n  nic_speed: -400Gbps\n' >"$tmp/neg.yaml"
printf 'storage:\n  nic_speed: 0\n' >"$tmp/zero_speed.yaml"
printf 'fabric:\n  spines: 0\n' >"$tmp/zero_spines.yaml"
printf 'cluster:\n  nodes: 0\n' >"$tmp/zero_nodes.yaml"
expect_error missing_file "cannot open '$tmp/nope.yaml'" run "$tmp/nope.yaml"
expect_error yaml_syntax "$tmp/syntax.yaml:" run "$tmp/syntax.yaml"
expect_error unknown_key "$tmp/unknown.yaml:2:3: fabric.spine: unknown key" run "$tmp/unknown.yaml"
expect_error negative_speed "$tmp/neg.yaml:2:14: cluster.nic_speed:" run "$tmp/neg.yaml"
expect_error zero_speed "$tmp/zero_speed.yaml:2:14: storage.nic_speed:" run "$tmp/zero_speed.yaml"
expect_error zero_spines "$tmp/zero_spines.yaml:2:11: fabric.spines:" run "$tmp/zero_spines.yaml"
expect_error zero_nodes "$tmp/zero_nodes.yaml:2:10: cluster.nodes:" run "$tmp/zero_nodes.yaml"
expect_error set_bad_value "--set: fabric.mtu:" run --set fabric.mtu=lots
expect_error set_no_equals "--set: expected key=value" run --set fabric.mtu
expect_error headroom "fabric.buffer:" run --set fabric.buffer=100KB
expect_error bad_enum "--set: engine: expected one of packet, fluid, auto, got \"warp\"" run --set engine=warp
expect_error unknown_option "unknown option '--frobnicate'" run --frobnicate
expect_error bad_engine "--set: engine: expected one of packet, fluid, auto" run --engine warp
expect_error engine_no_value "--engine needs a value" run --engine
expect_error unknown_command "unknown command 'walk'" walk

# --engine is --set engine=..., the last one wins; auto says what it chose
"$bin" run --set engine=packet --engine fluid --quiet --json - | grep -q '"engine": "fluid"' &&
    ok engine_option || bad engine_option
"$bin" run --engine=auto | grep -q '^  engine      auto: .* <= 1e8: packet$' &&
    ok engine_auto_says_why || bad engine_auto_says_why
"$bin" run --engine fluid --quiet --json "$tmp/fl.json"
if "$bin" run --engine fluid >"$tmp/fl" && grep -q 'need the packet engine' "$tmp/fl" &&
    ! grep -q '"pause_frames"' "$tmp/fl.json" && grep -q '"max_full_s"' "$tmp/fl.json"; then
    ok fluid_no_packet_figures
else
    bad fluid_no_packet_figures
fi

# the reference checkpoint scenarios run and give the planner's answer first
for f in mlperf-llama3-70b mlperf-llama3-405b megatron-1t llama3-405b-production \
    dcp-async-llama3-70b; do
    if "$bin" run "scenarios/$f.yaml" >"$tmp/ref" 2>&1 &&
        sed -n 2,7p "$tmp/ref" | cut -c3-13 | tr -s ' ' | tr '\n' '|' |
        grep -qx 'checkpoint |completion |GPU stall |per day |interval |goodput |'; then
        ok "reference_$f"
    else
        bad "reference_$f: $(head -3 "$tmp/ref")"
    fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
