#!/bin/sh
# The public header, include/ckptnet.h (docs/architecture.md, "Public API"):
# it compiles alone, copied where no src/ header can be reached; it includes
# standard headers only; every name it declares (macro, function, type tag,
# typedef, enumerator, variable) starts with ckpt_ or CKPT_, by the
# compiler's own preprocessing of it. Then a program built against it alone
# (tests/public/embed.c) runs a scenario, and its figures and JSON document
# must equal the CLI's for the same scenario.
# Usage: tests/header.sh [CKPTNET TEST_PUBLIC [TEST_PUBLIC_ASAN]]
#        (no program: the header checks only)
cd "$(dirname "$0")/.." || exit 2
CC=${CC:-cc}
H=include/ckptnet.h
bin=$1 pub=$2 pub_asan=$3
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# alone: a copy in an empty directory, no include path, strict C11
cp "$H" "$tmp/ckptnet.h"
if (cd "$tmp" && $CC -std=c11 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only -x c ckptnet.h) \
    >"$tmp/alone.log" 2>&1; then
    ok header_compiles_alone
else
    bad "header_compiles_alone: $(head -3 "$tmp/alone.log" | tr '\n' ' ')"
fi

# includes: <standard> only, none in quotes
quoted=$(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*[^<[:space:]]' "$H")
if [ -z "$quoted" ]; then
    ok header_includes_standard_only
else
    bad "header_includes_standard_only: $quoted"
fi

# names: the lines of the header's preprocessed text that come from it or
# from a header it reaches by a relative path (with -dD: their #defines too). A name counts as declared when it stands outside any
# parentheses and braces (or is an enumerator, or the name of a function
# pointer), is no keyword and is not declared by the standard headers.
names() {
    $CC -std=c11 -E -dD -x c "$H" 2>/dev/null | awk '
    BEGIN {
        split("auto break case char const continue default do double else enum extern " \
              "float for goto if inline int long register restrict return short signed " \
              "sizeof static struct switch typedef union unsigned void volatile while " \
              "_Bool _Complex _Noreturn _Static_assert _Thread_local _Alignas _Alignof " \
              "_Atomic _Generic _Imaginary", kw, " ")
        for (i in kw) key[kw[i]] = 1
    }
    # the header and what it includes by a relative path, not system headers
    /^# [0-9]+ "/ { file = $3; gsub(/"/, "", file); mine = (file !~ /^\/|^</); next }
    /^#define / { sub(/\(.*/, "", $2); if (mine) cand[$2] = 1; else std[$2] = 1; next }
    /^#/ { next }
    {
        line = $0
        while (match(line, /[A-Za-z_][A-Za-z0-9_]*|[(){};,=*]/)) {
            tok = substr(line, RSTART, RLENGTH)
            line = substr(line, RSTART + RLENGTH)
            if (!mine) { if (tok ~ /^[A-Za-z_]/) std[tok] = 1; continue }
            if (tok ~ /^[A-Za-z_]/ && !(tok in key)) {
                if (paren == 0 && brace == 0) cand[tok] = 1
                else if (paren == 0 && brace == 1 && inenum) cand[tok] = 1
                else if (paren == 1 && brace == 0 && prev == "*" && prev2 == "(") cand[tok] = 1
            }
            if (tok == "(") paren++
            else if (tok == ")") paren--
            else if (tok == "{") { brace++; if (brace == 1) inenum = (kind == "enum") }
            else if (tok == "}") brace--
            else if (tok == ";" && brace == 0) kind = ""
            else if ((tok == "enum" || tok == "struct" || tok == "union") && brace == 0) kind = tok
            prev2 = prev
            prev = tok
        }
    }
    END { for (n in cand) if (!(n in std)) print n }' | sort -u
}
list=$(names)
unprefixed=$(printf '%s\n' "$list" | grep -v '^ckpt_\|^CKPT_' | grep . | tr '\n' ' ')
if [ -n "$list" ] && [ -z "$unprefixed" ]; then
    ok "header_names_prefixed ($(printf '%s\n' "$list" | grep -c .) names)"
else
    bad "header_names_prefixed: unprefixed: ${unprefixed:-none found at all}"
fi

[ -n "$pub" ] || { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }

# the embedding program includes <ckptnet.h> and standard headers only
if grep '^[[:space:]]*#[[:space:]]*include' tests/public/embed.c | grep -qv '<'; then
    bad "embed_includes_public_header_only: $(grep '#[[:space:]]*include[[:space:]]*"' tests/public/embed.c)"
else
    ok embed_includes_public_header_only
fi

# its figures and JSON document equal the CLI's (the internal API's) for
# a small scenario (16 writers, 4 spines: a fraction of a second)
set -- cluster.nodes=16 fabric.spines=4 seed=3
if "$pub" "$tmp/api.json" "$@" >"$tmp/api.out" 2>&1; then
    ok embed_runs
else
    bad "embed_runs: $(grep FAIL "$tmp/api.out" | head -3 | tr '\n' ' ')"
fi
sets=""
for a in "$@"; do sets="$sets --set $a"; done
# shellcheck disable=SC2086
"$bin" run --quiet --json "$tmp/cli.json" $sets >/dev/null 2>&1
jq -S 'del(.perf)' "$tmp/cli.json" >"$tmp/cli.cmp" 2>/dev/null
jq -S . "$tmp/api.json" >"$tmp/api.cmp" 2>/dev/null
if [ -s "$tmp/cli.cmp" ] && cmp -s "$tmp/cli.cmp" "$tmp/api.cmp"; then
    ok embed_json_equals_cli
else
    bad embed_json_equals_cli
fi
# each figure it printed by name is the CLI document's at that path
n=0 diffs=""
while IFS='=' read -r name val; do
    case $name in FAIL*) continue ;; esac
    path=$(printf '%s' "$name" | sed 's/\.\([0-9][0-9]*\)\(\.\|$\)/[\1]\2/g')
    want=$(jq -r ".$path | if type == \"boolean\" then (if . then 1 else 0 end) else . end" \
        "$tmp/cli.json" 2>/dev/null)
    same=$(awk -v a="$val" -v b="$want" 'BEGIN { print (b != "" && b != "null" && (a == b || a + 0 == b + 0)) }')
    n=$((n + 1))
    [ "$same" = 1 ] || diffs="$diffs $name=$val(cli $want)"
done <"$tmp/api.out"
if [ "$n" -ge 9 ] && [ -z "$diffs" ]; then
    ok "embed_figures_equal_cli ($n figures)"
else
    bad "embed_figures_equal_cli: $n figures,${diffs:- none differ}"
fi
# C++ programs call it too: a C++ translation unit links against the library
CXX=${CXX:-c++}
lib=$(dirname "$pub")/libckptnet.a
if command -v "$CXX" >/dev/null 2>&1; then
    printf '%s\n' '#include <ckptnet.h>' \
        'int main() { ckpt_scenario_free(ckpt_scenario_new()); return 0; }' >"$tmp/cxx.cc"
    if $CXX -std=c++11 -Wall -Wextra -Werror -Iinclude -o "$tmp/cxx" "$tmp/cxx.cc" "$lib" \
        $(pkg-config --libs yaml-0.1 jansson yajl 2>/dev/null || echo -lyaml -ljansson -lyajl) -lm -pthread \
        >"$tmp/cxx.log" 2>&1 && "$tmp/cxx"; then
        ok header_links_from_cxx
    else
        bad "header_links_from_cxx: $(grep -m2 'error\|undefined' "$tmp/cxx.log" | tr '\n' ' ')"
    fi
else
    echo "skip header_links_from_cxx: no $CXX"
fi
if [ -n "$pub_asan" ]; then
    if ASAN_OPTIONS=detect_leaks=1 "$pub_asan" "$tmp/asan.json" "$@" >"$tmp/asan.out" 2>&1 &&
        cmp -s "$tmp/api.json" "$tmp/asan.json"; then
        ok embed_asan_clean
    else
        bad "embed_asan_clean: $(grep -m3 'FAIL\|ERROR\|SUMMARY' "$tmp/asan.out" | tr '\n' ' ')"
    fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
