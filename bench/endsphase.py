#!/usr/bin/env python3
"""The writers' ends phase against predictors of it (issue 30 item 3, session 39, branch hyb43d;
BENCHMARKS.md "Hybrid: predicting the writers' ends phase").

Input: the packets' run on the hybrid's observation grid with the ends traced (trace build,
CKPT_HYBRID_NOJUMP=1 CKPT_HYBRID_ENDS=1, or =2 for each compute node's bytes sent, which the
"node" predictor needs). Pure Python, no packages.
  python3 bench/endsphase.py parse ERR PKL   obs/ep/er/el/ew/en/fit lines per observation -> PKL
  python3 bench/endsphase.py traj PKL        the phase every 0.1 s: counts, paused by tier, backlog
  python3 bench/endsphase.py eval PKL OUT    each predictor's |relative error| by horizon D from
                                             every 20th observation in 1.44-3.10 s (OUT: pickle)
  python3 bench/endsphase.py skip OUT        the skip a jump carrying each predictor could make
                                             within LAG's 3%, counting its 90th percentile error
  python3 bench/endsphase.py skip OUT LO HI  the same from t in LO-HI s only
Predictors (all causal: only what is known at t): const (the state held, what a jump carries),
lag (LAG's line: least squares over the last 64 observations), balance (queued + (in - out) D:
the senders' rate less the receivers' over two windows), fit (the hybrid's own fit line,
relative slope from the trace), and per source of the future counts -- oracle (the trace's own:
parts the ends' prediction from the mapping), quant (the writers' bytes-left quantiles, processor
sharing at the senders' rate held), node (each node's bytes left over its rate over 32 periods),
leafps (a compute leaf's rate held, shared by its nodes still sending as the others end) --
the mappings P/N (paused per node sending held), P/N64 (its level over 64 periods), reg (paused
regressed on nodes sending and live compute leaves over the last 256 observations), Q/L (queued
bytes per compute leaf with a writer sending held), reg / reg2 for Q (regressed on live leaves /
on nodes sending and live leaves, the same window).
"""
import sys, pickle, bisect
from array import array

def parse(argv):
    rows = []; cur = None
    for line in open(argv[0]):
        k = line[:3]
        if line.startswith('obs '):
            x = line.split()
            cur = {'t': float(x[1]), 'q': [float(v) for v in x[5:10]], 'pc': [float(v) for v in x[11:16]],
                   'sum': float(x[17])}
            rows.append(cur)
        elif cur is None:
            continue
        elif k == 'ep ':
            x = line.split(); cur['ep'] = [float(v) * 1e-12 for v in x[3:11]]
        elif k == 'er ':
            x = line.split()[1:]; cur['er'] = [(float(x[3 * i]), int(x[3 * i + 1]), int(x[3 * i + 2])) for i in range(len(x) // 3)]
        elif k == 'el ':
            x = line.split()[1:]; cur['el'] = [(int(float(x[2 * i])), float(x[2 * i + 1]) * 1e-12) for i in range(len(x) // 2)]
        elif k == 'ew ':
            x = line.split()[1:]; cur['W'] = int(x[0]); cur['N'] = int(x[1]); cur['left'] = [float(v) for v in x[2:]]
        elif k == 'en ':
            cur['en'] = array('d', (float(v) * 1e3 for v in line.split()[1:]))
        elif line.startswith('fit at'):
            x = line.replace(',', '').split()
            cur['fitq'] = (float(x[4]), float(x[6])); cur['fitp'] = (float(x[9]), float(x[11]))
    pickle.dump(rows, open(argv[1], 'wb'))
    print(len(rows), sorted(rows[-1].keys()))

def traj(argv):
    R = pickle.load(open(argv[0], 'rb')); K = 8
    def r8(i, f): return (f(R[i]) - f(R[i - K])) / (R[i]['t'] - R[i - K]['t'])
    print('| t (s) | writers | nodes | live cleaves | rx GB/s | paused ports | per node | cNIC/node | cleaf-up/node | spine->sleaf | Q cleaf GB | per live cleaf MB | Q spine GB | Q sleaf GB |')
    print('|' + '---|' * 14)
    last = -1
    for i in range(K, len(R)):
        r = R[i]
        if r['t'] < 1.44 or r['t'] > 3.16 or int(r['t'] * 10 + 1e-9) == last: continue
        last = int(r['t'] * 10 + 1e-9)
        L = sum(1 for e in r['el'] if e[0] > 0); P = r8(i, lambda x: x['sum'])
        rx = r8(i, lambda x: sum(e[0] for e in x['er']))
        tier = [r8(i, lambda x, k=k: x['ep'][k]) for k in range(8)]
        q = r['q']
        print('| %.3f | %d | %d | %d | %.0f | %.0f | %.3f | %.3f | %.3f | %.1f | %.2f | %.0f | %.2f | %.2f |' % (
            r['t'], r['W'], r['N'], L, rx / 1e9, P, P / max(r['N'], 1), tier[0] / max(r['N'], 1), tier[1] / max(r['N'], 1),
            tier[4], q[1] / 1e9, q[1] / max(L, 1) / 1e6, q[3] / 1e9, q[2] / 1e9))

def evaluate(argv):
    R = pickle.load(open(argv[0], 'rb'))
    T0, T1, K, HPL = 1.44, 3.10, 8, 34      # phase; two windows (a jump's credit); hosts a leaf
    n = len(R); t = [r['t'] for r in R]; per = t[1] - t[0]
    Q = [r['q'][1] + r['q'][2] + r['q'][3] for r in R]
    S = [r['sum'] for r in R]
    W = [r['W'] for r in R]; N = [r['N'] for r in R]
    L = [sum(1 for e in r['el'] if e[0] > 0) for r in R]           # compute leaves with a writer sending
    RX = [sum(e[0] for e in r['er']) for r in R]
    has_en = 'en' in R[-1]
    if has_en:
        tot = list(R[-1]['en'])                                    # each node's bytes at the end
        # (a node still sending at the last observation: its writers' mean bytes left added)
        still = [v for v in range(len(tot)) if R[-1]['en'][v] > R[-2]['en'][v]]
        for v in still:
            tot[v] += R[-1]['W'] / max(R[-1]['N'], 1) * sum(R[-1]['left']) / 9
    def p1(k): return (S[k] - S[k - 1]) / (t[k] - t[k - 1])
    def p8(i): return (S[i] - S[i - K]) / (t[i] - t[i - K])
    def sl(i, y, k=K): return (y[i] - y[i - k]) / (t[i] - t[i - k])
    def ls(xs, ys):
        m = len(xs); mx = sum(xs) / m; my = sum(ys) / m
        sxx = sum((x - mx) ** 2 for x in xs)
        b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0
        return my - b * mx, b
    def ls2(x1, x2, ys):          # y = a + b1 x1 + b2 x2; b2 = 0 where x2 does not move
        m = len(ys); m1 = sum(x1) / m; m2 = sum(x2) / m; my = sum(ys) / m
        s11 = sum((a - m1) ** 2 for a in x1); s22 = sum((a - m2) ** 2 for a in x2)
        s12 = sum((a - m1) * (b - m2) for a, b in zip(x1, x2))
        s1y = sum((a - m1) * (y - my) for a, y in zip(x1, ys)); s2y = sum((a - m2) * (y - my) for a, y in zip(x2, ys))
        det = s11 * s22 - s12 * s12
        if s22 <= 0 or det <= 1e-9 * s11 * s22:
            return (s1y / s11 if s11 > 0 else 0), 0.0
        return (s1y * s22 - s2y * s12) / det, (s2y * s11 - s1y * s12) / det
    # --- the ends from the state at t
    def cdf(left, x):
        if x <= left[0]: return 0.0
        if x >= left[8]: return 1.0
        k = min(bisect.bisect_right(left, x) - 1, 7); span = left[k + 1] - left[k]
        return (k + (x - left[k]) / span) / 8 if span > 0 else (k + 1) / 8
    def w_ps(i, D):
        """writers sending at t+D from the 9 quantiles of bytes left: processor sharing at the
        senders' total rate held (delivered + the backlog's growth)"""
        left = R[i]['left']; w = W[i]
        sent = sl(i, RX) + sl(i, Q)
        def tm(x):
            h = x / 64
            return sum((1 - cdf(left, (j + 0.5) * h)) * h for j in range(64)) * w / sent
        lo, hi = 0.0, left[8]
        if tm(hi) <= D: return 0.0
        for _ in range(30):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if tm(mid) < D else (lo, mid)
        return w * (1 - cdf(left, lo))
    RK = 32   # a node's recent rate: over 32 periods (~25 ms)
    def node_ends(i):
        """each node still sending: the time to its last byte at its own recent rate"""
        en, en0 = R[i]['en'], R[i - RK]['en']; dt = t[i] - t[i - RK]; out = []
        for v in range(len(en)):
            left = tot[v] - en[v]
            if left <= 0: continue
            r = (en[v] - en0[v]) / dt
            out.append((left / r if r > 0 else 1e9, v // HPL, v))
        return out
    def leaf_ends(i):
        """each node's end where its leaf's rate is held and shared: a node ending hands its
        share to the leaf's others still sending, by their recent rates"""
        en, en0 = R[i]['en'], R[i - RK]['en']; dt = t[i] - t[i - RK]; leaves = {}; out = []
        for v in range(len(en)):
            left = tot[v] - en[v]
            if left > 0:
                leaves.setdefault(v // HPL, []).append([left, max((en[v] - en0[v]) / dt, 1.0), v])
        for lf, nodes in leaves.items():
            rl = sum(x[1] for x in nodes); now = 0.0; live = nodes[:]
            while live:
                w = sum(x[1] for x in live)
                step = min(x[0] / (x[1] * rl / w) for x in live)
                now += step; keep = []
                for x in live:
                    x[0] -= step * x[1] * rl / w
                    if x[0] <= 1e-6 * rl: out.append((now, lf, x[2]))
                    else: keep.append(x)
                live = keep
        return out
    def feat(kind, i, s, cache):
        """(W, N, L) at t+s: the trace's own (oracle) or predicted from the state at t"""
        if kind == 'oracle':
            j = i + int(round(s / per)); return W[j], N[j], L[j]
        if kind == 'quant':
            w = w_ps(i, s) if s > 0 else W[i]; return w, w * N[i] / W[i], L[i]
        ends = cache.setdefault((kind, i), (node_ends if kind == 'node' else leaf_ends)(i)) if s > 0 else None
        if s == 0: return W[i], N[i], L[i]
        live = [lf for (te, lf, v) in ends if te > s]
        nn = len(live); return nn * W[i] / max(N[i], 1), nn, len(set(live))
    def pct(v, p):
        v = sorted(v); return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]
    kinds = ['oracle', 'quant'] + (['node', 'leafps'] if has_en else [])
    HOR = (0.010, 0.030, 0.100, 0.300)
    out = {}; ts = {}
    for D in HOR:
        E = {}; TS = {}; cache = {}
        def add(key, pred, true): E.setdefault(key, []).append((pred - true) / true); TS.setdefault(key, []).append(t[i])
        h = int(round(D / per))
        for i in range(0, n, 20):
            if t[i] < T0 or t[i] + D > T1 + per / 2: continue
            j = i + h; P0, Pt, Q0, Qt, It = p8(i), p8(j), Q[i], Q[j], S[j] - S[i]
            add(('const', 'P'), P0, Pt); add(('const', 'Q'), Q0, Qt); add(('const', 'I'), P0 * D, It)
            # LAG's line: the later half of the last 128 observations, least squares
            ks = range(i - 63, i + 1); xs = [t[k] for k in ks]
            a, b = ls(xs, [Q[k] for k in ks]); add(('lag', 'Q'), a + b * (t[i] + D), Qt)
            a, b = ls(xs, [p1(k) for k in ks]); add(('lag', 'P'), a + b * (t[i] + D), Pt)
            add(('lag', 'I'), (P0 + b * D / 2) * D, It)
            # the flow balance: queued + (in - out) D, in the senders' rate over two windows (the
            # nodes' bytes sent; without them, delivered + the backlog's growth), out the receivers'
            if has_en:
                sin = (sum(R[i]['en']) - sum(R[i - K]['en'])) / (t[i] - t[i - K])
            else:
                sin = sl(i, RX) + sl(i, Q)
            add(('balance', 'Q'), Q0 + (sin - sl(i, RX)) * D, Qt)
            fp, fq = R[i].get('fitp'), R[i].get('fitq')   # the hybrid's own fit (its restarting baseline)
            if fp:
                add(('fit', 'P'), P0 * (1 + fp[0] * D), Pt); add(('fit', 'Q'), Q0 * (1 + fq[0] * D), Qt)
                add(('fit', 'I'), P0 * (1 + fp[0] * D / 2) * D, It)
            # the causal regressions, over the last 256 observations (every 4th)
            ws = range(i - 256, i + 1, 4)
            aN, aL = ls2([N[k] for k in ws], [L[k] for k in ws], [p8(k) for k in ws])
            cL = ls([L[k] for k in ws], [Q[k] for k in ws])[1]
            qN, qL = ls2([N[k] for k in ws], [L[k] for k in ws], [Q[k] for k in ws])
            lvl = N[i] * sum(p1(k) / N[k] for k in ks) / 64     # paused per node sending, 64 periods
            for kind in kinds:
                f0 = feat(kind, i, 0, cache); fD = feat(kind, i, D, cache)
                fs = [feat(kind, i, D * (k + 0.5) / 10, cache) for k in range(10)]
                add((kind, 'W'), fD[0], W[j]); add((kind, 'N'), max(fD[1], 0.5), N[j]); add((kind, 'L'), max(fD[2], 0.5), L[j])
                # paused: per node sending held (the level over two windows, or over 64 periods)
                add((kind + ' P/N', 'P'), P0 * fD[1] / N[i], Pt)
                add((kind + ' P/N', 'I'), P0 * sum(f[1] for f in fs) / 10 / N[i] * D, It)
                add((kind + ' P/N64', 'P'), lvl * fD[1] / N[i], Pt)
                add((kind + ' P/N64', 'I'), lvl * sum(f[1] for f in fs) / 10 / N[i] * D, It)
                # paused: its regression on nodes sending and live leaves
                add((kind + ' reg', 'P'), P0 + aN * (fD[1] - N[i]) + aL * (fD[2] - L[i]), Pt)
                add((kind + ' reg', 'I'), sum(P0 + aN * (f[1] - N[i]) + aL * (f[2] - L[i]) for f in fs) / 10 * D, It)
                # queued: per live compute leaf held, or its regression on the live leaves
                add((kind + ' Q/L', 'Q'), Q0 * fD[2] / L[i], Qt)
                add((kind + ' reg', 'Q'), Q0 + cL * (fD[2] - L[i]), Qt)
                add((kind + ' reg2', 'Q'), Q0 + qN * (fD[1] - N[i]) + qL * (fD[2] - L[i]), Qt)
        out[D] = E; ts[D] = TS
    pickle.dump((out, ts), open(argv[1], 'wb'))
    def table(series, title):
        print('\n%s: |relative error| median / p90 (signed mean) by horizon' % title)
        print('%-18s' % 'predictor' + ''.join('%26s' % ('D = %.0f ms' % (D * 1e3)) for D in HOR))
        keys = [k for k in out[HOR[0]] if k[1] == series]
        for k in keys:
            cells = []
            for D in HOR:
                v = out[D].get(k)
                cells.append('%7.2f%% %7.2f%% (%+6.2f%%)' % (100 * pct([abs(x) for x in v], .5), 100 * pct([abs(x) for x in v], .9), 100 * sum(v) / len(v)) if v else ' ' * 26)
            print('%-18s' % k[0] + ''.join(cells))
    table('P', 'paused rate at t+D (ports paused, over two windows)')
    table('I', 'paused time over [t, t+D]')
    table('Q', 'switches\' queued bytes at t+D')
    for s in ('W', 'N', 'L'): table(s, {'W': 'writers sending', 'N': 'nodes sending', 'L': 'compute leaves with one sending'}[s] + ' at t+D')
    print('\npoints:', ' '.join('D=%g: %d' % (D, len(out[D][('const', 'P')])) for D in HOR))

    # the same by part of the phase: before and after 2.3 s (the backlog starts to drain)
    def split(series, title):
        print('\n%s by part of the phase: |relative error| p90 before 2.3 s / from 2.3 s' % title)
        print('%-18s' % 'predictor' + ''.join('%22s' % ('D = %.0f ms' % (D * 1e3)) for D in HOR))
        for k in [k for k in out[HOR[0]] if k[1] == series]:
            cells = []
            for D in HOR:
                v = out[D].get(k); w = ts[D].get(k)
                a = [abs(x) for x, y in zip(v, w) if y < 2.3]; b = [abs(x) for x, y in zip(v, w) if y >= 2.3]
                cells.append('%8.2f%% / %7.2f%%' % (100 * pct(a, .9) if a else 0, 100 * pct(b, .9) if b else 0))
            print('%-18s' % k[0] + ''.join(cells))
    split('P', 'paused rate'); split('Q', 'queued bytes')
    if has_en:   # each node's rate ahead against its recent one, and its end time's error
        endi = [None] * len(tot)
        for k in range(n):
            for v in range(len(tot)):
                if endi[v] is None and R[k]['en'][v] >= tot[v]:
                    endi[v] = k
        print('\na node\'s mean rate over [t, t+D] / its rate over the 32 periods before t (nodes sending through t+D):')
        for D in HOR:
            h = int(round(D / per)); rr = []
            for i in range(0, n, 20):
                if t[i] < T0 or t[i] + D > T1 + per / 2: continue
                en, en0, en1 = R[i]['en'], R[i - RK]['en'], R[i + h]['en']
                for v in range(len(tot)):
                    if en1[v] < tot[v] and en[v] > en0[v]:
                        rr.append((en1[v] - en[v]) / (t[i + h] - t[i]) / ((en[v] - en0[v]) / (t[i] - t[i - RK])))
            print('  D = %.0f ms: %d node-points, median %.3f, 10th-90th percentile %.3f-%.3f' % (D * 1e3, len(rr), pct(rr, .5), pct(rr, .1), pct(rr, .9)))
        for kind, fn in (('node', node_ends), ('leafps', leaf_ends)):
            er = {}
            for i in range(0, n, 20):
                if t[i] < T0 or t[i] > T1: continue
                for (te, lf, v) in fn(i):
                    if endi[v] is None: continue
                    ta = t[endi[v]] - t[i]
                    for D in HOR:
                        if ta <= D:
                            er.setdefault(D, []).append(te - ta); break
            print('  %s: predicted less true end, nodes ending within D (ms): ' % kind + '; '.join(
                'D<=%.0f: median %+.1f, |.| p90 %.1f' % (D * 1e3, 1e3 * pct(er[D], .5), 1e3 * pct([abs(x) for x in er[D]], .9)) for D in HOR if D in er))
    # the noise a two-window rate carries: adjacent windows, scaled by the true nodes sending
    aa = [abs(p8(i + K) / p8(i) * N[i] / N[i + K] - 1) for i in range(0, n - K, 20) if T0 <= t[i] <= T1]
    qa = [abs(Q[i + K] / Q[i] * L[i] / L[i + K] - 1) for i in range(0, n - K, 20) if T0 <= t[i] <= T1]
    print('\nA/A, adjacent two-window spans scaled by the true nodes (paused) / live leaves (queued): |rel| median %.2f%% p90 %.2f%% / median %.2f%% p90 %.2f%%' % (100 * pct(aa, .5), 100 * pct(aa, .9), 100 * pct(qa, .5), 100 * pct(qa, .9)))

def skip(argv):
    """LAG sums over jumps the drift x the time jumped (the state off by that much after each)
    and stops at 3%. A jump carrying a predictor would leave the state off by its error at D:
    (A) counted as its 90th percentile |error| a jump, (B) as its bias only (its signed mean
    error: LAG counts a fitted drift less 3 standard errors, not the noise). Each takes the
    larger of the paused rate's and the queued bytes' (as LAG does); jumps of D, two windows
    (8 periods) observed between them; the share of 1.44-3.10 s they could skip."""
    out, ts = pickle.load(open(argv[0], 'rb'))
    lo, hi = (float(argv[1]), float(argv[2])) if len(argv) > 2 else (1.44, 3.10)   # a part only
    for D in out:
        for k in out[D]:
            keep = [j for j, y in enumerate(ts[D][k]) if lo <= y < hi]
            out[D][k] = [out[D][k][j] for j in keep]; ts[D][k] = [ts[D][k][j] for j in keep]
    PH, GAP, BUD = hi - lo, 8 * 0.000769, 0.03
    print('from t in %.2f-%.2f s' % (lo, hi))
    def p90(v): v = sorted(abs(x) for x in v); return v[min(len(v) - 1, int(.9 * (len(v) - 1) + .5))]
    PARTS = ((1.44, 2.3), (2.3, 2.7), (2.7, 3.1))
    def bias(v, w):   # the largest |mean| over three parts of the phase (signs cancel across them)
        m = [[x for x, y in zip(v, w) if a <= y < b] for a, b in PARTS]
        return max(abs(sum(x) / len(x)) for x in m if x) if any(m) else 0.0
    preds = sorted({k[0] for D in out for k in out[D] if k[1] == 'P' and out[D][k]}, key=lambda s: (s != 'const', s != 'lag', s != 'fit', s))
    def qkey(p, E):
        if (p, 'Q') in E: return (p, 'Q')
        k = (p.split()[0] + ' Q/L', 'Q')
        return k if k in E else None
    for name, f in (('(A) 90th percentile |error| a jump', lambda v, w: p90(v)),
                    ('(B) the bias a jump (|signed mean error|, the largest of 1.44-2.3, 2.3-2.7, 2.7-3.1 s)', bias)):
        print('\n%s: paused / queued error at D; time jumped within 3%% (share of the phase)' % name)
        print('| predictor | ' + ' | '.join('D = %.0f ms' % (D * 1e3) for D in sorted(out)) + ' |')
        print('|---|' + '---|' * len(out))
        for p in preds:
            cells = []
            for D in sorted(out):
                E = out[D]; eP = f(E[(p, 'P')], ts[D][(p, 'P')]); qk = qkey(p, E)
                eQ = f(E[qk], ts[D][qk]) if qk else 0
                e = max(eP, eQ, 1e-9)
                J = BUD * D / e
                frac = min(J, PH * D / (D + GAP)) / PH
                cells.append('%.2f%% / %.2f%%; %.0f ms (%.1f%%)' % (100 * eP, 100 * eQ, 1e3 * J, 100 * frac))
            print('| %s | %s |' % (p, ' | '.join(cells)))

if __name__ == '__main__':
    cmds = {'parse': parse, 'traj': traj, 'eval': evaluate, 'skip': skip}
    if len(sys.argv) < 3 or sys.argv[1] not in cmds:
        sys.exit(__doc__)
    cmds[sys.argv[1]](sys.argv[2:])
