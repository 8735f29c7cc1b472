#!/bin/sh
# Chosen source lines' counts in the steady state that bench/cgsteady.sh
# kept (OUT=DIR): the CUT1 run subtracted from the CUT2 run, line by line.
# Usage: bench/cglines.sh DIR CUT1 CUT2 FILE:LINE...
#   bench/cglines.sh /tmp/cg 3ms 12ms nic.c:217 nic.c:315 sched.c:540
# Prints per line: Ir, D1 read misses, LL read misses, D1 write misses.
dir=${1:?usage: bench/cglines.sh DIR CUT1 CUT2 FILE:LINE...}
c1=${2:?}
c2=${3:?}
shift 3
awk -v c1="$dir/cg.$c1" -v want="$*" '
    BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) pick[w[i]] = 1 }
    /^fl=/ { fl = substr($0, 4); m = split(fl, parts, "/"); fl = parts[m]; next }
    !/^[0-9]/ { next }
    {
        k = fl ":" $1
        if (!(k in pick)) next
        s = (FILENAME == c1) ? -1 : 1
        ir[k] += s * $2; d1r[k] += s * $6; llr[k] += s * $7; d1w[k] += s * $9
    }
    END {
        printf "%-16s %14s %12s %12s %12s\n", "line", "Ir", "D1mr", "DLmr", "D1mw"
        for (i = 1; i <= n; i++) {
            k = w[i]
            printf "%-16s %14.0f %12.0f %12.0f %12.0f\n", k, ir[k], d1r[k], llr[k], d1w[k]
        }
    }' "$dir/cg.$c1" "$dir/cg.$c2"
