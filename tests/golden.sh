#!/bin/sh
# Golden results: each reference scenario's JSON (without the perf block,
# which holds wall times) must match tests/golden/NAME.json byte for byte.
# A change to a golden file says why in its commit message.
# Usage: tests/golden.sh [path/to/ckptnet] [--update]   (make golden updates)
bin=${1:-./build/ckptnet}
update=${2:-}
dir=tests/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
# name|arguments (run from the repository root)
cases="default|
default-fluid|--engine fluid
default-seed7|--set seed=7
bench-1024|scenarios/bench-1024.yaml
cluster-100k|scenarios/cluster-100k.yaml
dcp-async-llama3-70b|scenarios/dcp-async-llama3-70b.yaml
llama3-405b-production|scenarios/llama3-405b-production.yaml
megatron-1t|scenarios/megatron-1t.yaml
mlperf-llama3-405b|scenarios/mlperf-llama3-405b.yaml
mlperf-llama3-70b|scenarios/mlperf-llama3-70b.yaml
converged-async-70b|scenarios/converged-async-70b.yaml
mlperf-llama3-8b|scenarios/mlperf-llama3-8b.yaml"
strip() { sed -e '/^  "perf": {/,/^  }/d' "$1"; }
IFS='
'
for c in $cases; do
    name=${c%%|*}
    args=${c#*|}
    IFS=' '
    # shellcheck disable=SC2086
    "$bin" run $args --quiet --json "$tmp/$name.json" >/dev/null 2>"$tmp/err"
    rc=$?
    IFS='
'
    strip "$tmp/$name.json" >"$tmp/$name.stripped"
    if [ "$update" = "--update" ]; then
        cp "$tmp/$name.stripped" "$dir/$name.json"
        echo "wrote $dir/$name.json (exit $rc)"
        continue
    fi
    if [ ! -f "$dir/$name.json" ]; then
        fail=$((fail + 1))
        echo "FAIL golden_$name: no $dir/$name.json (make golden writes it)"
    elif cmp -s "$tmp/$name.stripped" "$dir/$name.json"; then
        pass=$((pass + 1))
        echo "ok   golden_$name"
    else
        fail=$((fail + 1))
        echo "FAIL golden_$name: results differ from $dir/$name.json (make golden rewrites it;"
        echo "     say why in the commit):"
        diff "$dir/$name.json" "$tmp/$name.stripped" | head -20
    fi
done
[ "$update" = "--update" ] && exit 0
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
