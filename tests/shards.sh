#!/bin/sh
# make test runs the unit tests in shards (test_unit --shard K/N): the N
# shards' lists together must be the whole list, each test in one shard.
bin=$1 n=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" --list | sort >"$tmp/all" || exit 1
k=1
while [ "$k" -le "$n" ]; do
    "$bin" --shard "$k/$n" --list >>"$tmp/shards" || exit 1
    k=$((k + 1))
done
sort "$tmp/shards" >"$tmp/sorted"
if [ -s "$tmp/all" ] && cmp -s "$tmp/all" "$tmp/sorted"; then
    echo "shards: $n shards run the $(wc -l <"$tmp/all") unit tests, each once"
else
    echo "FAIL shards: the $n shards do not run each of the $(wc -l <"$tmp/all") unit tests once:"
    diff "$tmp/all" "$tmp/sorted" | head -20
    exit 1
fi
