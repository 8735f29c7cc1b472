#!/bin/sh
# Layering check: a module of src/ includes only modules below it (docs/architecture.md,
# "Layers"). Each arrow src/X -> src/Y (or include/, the public API, as api) that goes up
# fails unless tests/layers.allow lists it with its reason; a listed arrow that is gone
# fails too, so the list only shrinks. include/ckptnet.h, the public API that
# src/api/public.c implements, is left out (tests/header.sh checks it). Two files
# of src/api must not call each other's functions both ways.
# Usage: tests/layers.sh [--list]   (--list: print every upward arrow and where)
cd "$(dirname "$0")/.." || exit 2
allow=tests/layers.allow
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# rank: a module may include modules of a lower rank; equal ranks (topo/work,
# pkt/fluid) may include each other one way only
rank() {
    case $1 in
    core) echo 0 ;; scenario) echo 1 ;; topo | work) echo 2 ;; pkt | fluid) echo 3 ;;
    stats) echo 4 ;; cost) echo 5 ;; report) echo 6 ;; api) echo 7 ;; *) echo 99 ;;
    esac
}

# every arrow "X Y file:line" between two modules of src/
arrows() {
    for f in src/*/*.c src/*/*.h; do
        from=${f#src/}
        from=${from%%/*}
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r l; do
            line=${l%%:*}
            inc=$(printf '%s\n' "$l" | sed 's/[^"]*"\([^"]*\)".*/\1/')
            case $inc in
            ../../include/*) continue ;;
            ../*/*) to=${inc#../}; to=${to%%/*} ;;
            */*) to=${inc%%/*} ;;
            *) to=$from ;;
            esac
            [ "$to" != "$from" ] && echo "$from $to $f:$line"
        done
    done
}

all=$(arrows)
up=$(printf '%s\n' "$all" | while read -r x y where; do
    rx=$(rank "$x") ry=$(rank "$y")
    if [ "$ry" -gt "$rx" ]; then
        echo "$x -> $y $where"
    elif [ "$ry" -eq "$rx" ] && printf '%s\n' "$all" | grep -q "^$y $x "; then
        echo "$x -> $y $where (both ways)"
    fi
done)
if [ "$1" = --list ]; then
    printf '%s\n' "$up"
    exit 0
fi

# "X -> Y" pairs of the allow-list (comments after #)
listed=$(sed -n 's/^\([a-z]*\) -> \([a-z]*\).*/\1 -> \2/p' "$allow" | sort -u)
found=$(printf '%s\n' "$up" | awk 'NF {print $1, $2, $3}' | sort -u)
printf '%s\n' "$found" | while IFS= read -r a; do
    [ -n "$a" ] || continue
    printf '%s\n' "$listed" | grep -qxF "$a" || echo "$a"
done >/tmp/layers.$$.new
printf '%s\n' "$listed" | while IFS= read -r a; do
    [ -n "$a" ] || continue
    printf '%s\n' "$found" | grep -qxF "$a" || echo "$a"
done >/tmp/layers.$$.gone
if [ -s /tmp/layers.$$.new ]; then
    while IFS= read -r a; do
        bad "upward include $a: $(printf '%s\n' "$up" | grep -F "$a " | awk '{print $4}' | tr '\n' ' ')"
    done </tmp/layers.$$.new
else
    ok no_new_upward_include
fi
if [ -s /tmp/layers.$$.gone ]; then
    while IFS= read -r a; do bad "$allow lists $a, which no file includes any more: drop it"; done \
        </tmp/layers.$$.gone
else
    ok allow_list_current
fi
rm -f /tmp/layers.$$.new /tmp/layers.$$.gone

# src/api: the external functions each file defines, and which other file calls them
defs() { sed -n 's/^[a-z][a-z_ 0-9]*[ *]\([a-z_][a-z_0-9]*\)(.*/\1/p' "$1" | sort -u; }
calls() { # file1 calls a function of file2
    for fn in $(defs "$2"); do
        grep -q "\\<$fn(" "$1" && { echo "$fn"; return; }
    done
}
api_ok=1
for a in src/api/*.c; do
    for b in src/api/*.c; do
        [ "$a" \< "$b" ] || continue
        ab=$(calls "$a" "$b") ba=$(calls "$b" "$a")
        if [ -n "$ab" ] && [ -n "$ba" ]; then
            bad "$a calls $b ($ab) and $b calls $a ($ba)"
            api_ok=0
        fi
    done
done
[ $api_ok -eq 1 ] && ok api_files_one_way

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
