#!/bin/sh
# What a burst is made of, phase by phase, and what any steady-state skip
# could take of it (BENCHMARKS.md "Hybrid: what holds bench-1024 and the
# 3-tier burst", issue 30 item 3, session 37).
#
# Reads the packets' own run observed on hybrid's grid: the trace build's
# per-receiver line (CKPT_HYBRID_RX: at each observation each receiver's
# bytes delivered and transfers sending / live, the run's events and
# process CPU so far), built as
#   cp -a build /tmp/tbH; touch src/pkt/hybrid.c
#   make -s B=/tmp/tbH CFLAGS=-DCKPT_HYBRID_TRACE /tmp/tbH/ckptnet
# and run as (TRACE=/tmp/tbH/ckptnet)
#   CKPT_HYBRID_NOJUMP=1 CKPT_HYBRID_RX=1 TRACE run S --engine hybrid \
#       --set sim.threads=1 2> packets.trace
# and, optionally, the same build's jumping run (no CKPT_HYBRID_NOJUMP) for
# what holds hybrid in each phase.
#
# Phases, from the packets' series: fill (from the first packet to the
# period in which the paused ports first reach 95% of their most), middle
# (after it, every transfer still sending), ends (some have sent their
# last), drain (none sends, every receiver still has a transfer live), last
# receivers (some receiver done). Each with its share of simulated time, of
# the run's events and of its process CPU (SETUP_S, the CPU before the first
# event, is taken out of the fill's first period and shown alone).
#
# The bound: a period is steady where, over the two windows of W periods
# ending at it, every receiver's bytes and the paused time summed over the
# ports each moved by at most TOL (R: the receivers only; RP: and the
# paused time; RPS: and no transfer ended or finished sending in them). Any
# steady-state skip takes at most the steady periods; the speed-up it could
# give is at most the events (CPU) of the whole run over those of the
# periods it cannot skip (setup included), hybrid's own cost left out; the
# last column as if the fill cost nothing too (set without packets).
#
# Usage: bench/phases.sh packets.trace [hybrid.trace] [SETUP_S]
pt=${1:?usage: bench/phases.sh packets.trace [hybrid.trace] [SETUP_S]}
ht=${2:-/dev/null}
setup=${3:-0}
awk -v setup="$setup" -v HT="$ht" '
function phase_of(t,   i) { for (i = 1; i <= np; i++) if (t <= pend[i] + 1e-12) return i; return np }
FNR == 1 { file++ }
file == 1 && /^obs / { ot[++no] = $2; psum[no] = $18; pp = 0; for (i = 12; i <= 16; i++) pp += $i; pports[no] = pp;
    qq = 0; for (i = 5; i <= 9; i++) qq += $i; qb[no] = qq; next }
file == 1 && /^rx / { n++; t[n] = $2; ev[n] = $4; cpu[n] = $6; nr = split($0, rec, "|") - 1
    se = 0; li = 0; done = 0
    for (r = 1; r <= nr; r++) { split(rec[r + 1], f, " "); by[n, r] = f[1]; se += f[2]; li += f[3]; done += f[3] == 0 }
    send[n] = se; live[n] = li; rdone[n] = done; next }
file == 1 && /^hold at / { match($0, /^hold at [0-9.]+: /); w = substr($0, RSTART + RLENGTH)
    sub(/ \([^)]*\)$/, "", w); sub(/:.*/, "", w); nh++; ht1[nh] = $3 + 0; hw1[nh] = w; next }
file == 2 && /^hold at / { match($0, /^hold at [0-9.]+: /); w = substr($0, RSTART + RLENGTH)
    sub(/ \([^)]*\)$/, "", w); sub(/:.*/, "", w); nh2++; ht2[nh2] = $3 + 0; hw2[nh2] = w; next }
file == 2 && /^jump at / { nj++; jt[nj] = $3 + 0; jd[nj] = substr($5, 2) + 0; next }
END {
    if (n < 3) { print "phases.sh: no rx lines (the trace build, CKPT_HYBRID_RX=1)" > "/dev/stderr"; exit 2 }
    per = (t[n] - t[1]) / (n - 1); T = t[n]; N = send[1] # (times printed to 1 us)
    # per period: events, CPU, paused time, each receiver s bytes
    for (p = 1; p <= n; p++) {
        dev[p] = ev[p] - (p > 1 ? ev[p - 1] : 0); dcp[p] = cpu[p] - (p > 1 ? cpu[p - 1] : setup)
        dps[p] = psum[p] - (p > 1 ? psum[p - 1] : 0)
        for (r = 1; r <= nr; r++) d[p, r] = by[p, r] - (p > 1 ? by[p - 1, r] : 0)
        if (pports[p] > pmax) pmax = pports[p]
    }
    E = ev[n]; C = cpu[n]
    # phases
    split("fill middle ends drain last-receivers", pname, " "); np = 5
    for (p = 1; p <= n; p++) {
        if (!fdone) { ph[p] = 1; if (pports[p] >= 0.95 * pmax) fdone = 1; continue }
        ph[p] = rdone[p] > 0 ? 5 : send[p] == N ? 2 : send[p] > 0 ? 3 : 4
    }
    for (p = 1; p <= n; p++) { k = ph[p]; pn[k]++; pe[k] += dev[p]; pc[k] += dcp[p]
        if (!(k in p0)) p0[k] = t[p] - per; pend[k] = t[p] }
    printf "periods %d of %.3f us, simulated %.6f ms, events %d, process CPU %.3f s (setup %.3f s)\n\n", n, per * 1e6, T * 1e3, E, C, setup
    print "| phase | ms | share of time | events (M) | share of events | CPU s | share of CPU | packets held by (periods) | hybrid held by (periods), jumps |"
    print "|---|---|---|---|---|---|---|---|---|"
    for (i = 1; i <= nh; i++) { k = ph[int(ht1[i] / per + 0.5)]; hk[k, hw1[i]]++; hn[hw1[i]] = 1 }
    for (i = 1; i <= nh2; i++) { k = phase_of(ht2[i]); hk2[k, hw2[i]]++; hn2[hw2[i]] = 1 }
    for (i = 1; i <= nj; i++) { k = phase_of(jt[i]); njk[k]++; sjk[k] += jd[i] }
    for (k = 1; k <= np; k++) {
        if (!pn[k]) continue
        s = ""; for (w in hn) if ((k, w) in hk) s = s (s ? "; " : "") w " " hk[k, w]
        s2 = ""; for (w in hn2) if ((k, w) in hk2) s2 = s2 (s2 ? "; " : "") w " " hk2[k, w]
        if (njk[k]) s2 = s2 (s2 ? "; " : "") sprintf("%d jumps %.3f ms", njk[k], sjk[k] * 1e3)
        printf "| %s | %.3f-%.3f | %.1f%% | %.2f | %.1f%% | %.3f | %.1f%% | %s | %s |\n", pname[k], p0[k] * 1e3,
            pend[k] * 1e3, 100 * pn[k] * per / T, pe[k] / 1e6, 100 * pe[k] / E, pc[k], 100 * pc[k] / (C - setup), s, s2
    }
    print ""
    print "| W | TOL | steady periods R / RP / RPS (share of time) | by phase, RP (periods) | speed-up cap by events R / RP / RPS | by CPU | by events, the fill free too |"
    print "|---|---|---|---|---|---|---|"
    split("1 2 4", Ws, " "); split("0.01 0.02 0.05 0.1", Ts, " ")
    for (wi = 1; wi <= 3; wi++) for (ti = 1; ti <= 4; ti++) {
        W = Ws[wi]; tol = Ts[ti]; for (c = 1; c <= 3; c++) { ns[c] = 0; ke[c] = 0; kc[c] = 0; fx[c] = 0 }
        delete kp
        for (p = 1; p <= n; p++) {
            st = p > 2 * W; okr = st; okp = st; oks = st
            if (st) {
                for (r = 1; r <= nr; r++) { a = 0; b = 0
                    for (j = p - W + 1; j <= p; j++) a += d[j, r]
                    for (j = p - 2 * W + 1; j <= p - W; j++) b += d[j, r]
                    if ((a - b > tol * b || b - a > tol * b) && !(a == 0 && b == 0)) okr = 0 }
                a = psum[p] - psum[p - W]; b = psum[p - W] - psum[p - 2 * W]
                if ((a - b > tol * b || b - a > tol * b) && !(a == 0 && b == 0)) okp = 0
                oks = send[p] == send[p - 2 * W] && live[p] == live[p - 2 * W]
            }
            v[1] = okr; v[2] = okr && okp; v[3] = okr && okp && oks
            for (c = 1; c <= 3; c++) if (v[c]) { ns[c]++; ke[c] += dev[p]; kc[c] += dcp[p] }
            if (v[2]) kp[ph[p]]++
            if (ph[p] == 1) for (c = 1; c <= 3; c++) if (!v[c]) fx[c] += dev[p]
        }
        s = ""; for (k = 1; k <= np; k++) if (pn[k]) s = s (s ? ", " : "") pname[k] " " kp[k] + 0 "/" pn[k]
        printf "| %d | %g | %d / %d / %d (%.1f%% / %.1f%% / %.1f%%) | %s | %.2fx / %.2fx / %.2fx | %.2fx / %.2fx / %.2fx | %.2fx / %.2fx / %.2fx |\n", W, tol,
            ns[1], ns[2], ns[3], 100 * ns[1] / n, 100 * ns[2] / n, 100 * ns[3] / n, s,
            E / (E - ke[1]), E / (E - ke[2]), E / (E - ke[3]), C / (C - kc[1]), C / (C - kc[2]), C / (C - kc[3]),
            E / (E - ke[1] - fx[1]), E / (E - ke[2] - fx[2]), E / (E - ke[3] - fx[3])
    }
}' "$pt" "$ht"
