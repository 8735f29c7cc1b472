#!/usr/bin/env python3
"""The fill's end state: predicted from the fabric's parameters, measured
from the packets (BENCHMARKS.md "Hybrid: can the fill be set, not
simulated?", issue 30 item 3, session 38).

  bench/fillstate.py predict S.yaml [--set k=v]... [--bin B]
  bench/fillstate.py measured TRACE
  bench/fillstate.py compare S.yaml TRACE [--set k=v]... [--bin B]

predict reads the effective scenario and the built shape from `ckptnet
describe` (B: ./build/ckptnet) and prints, per link class, the bytes queued
at the class's sending end, the links paused and the mean threshold at the
receiving end, then T_fill, each writer's bytes sent and each receiver's
delivered. The model, level by level from the writers to the receivers:
  - a switch's lossless pool P = buffer - ports x (8 reserves + headroom);
    headroom = 2 frames + the cable's round trip + the peer's response
    (src/core/wire.c); its M ingresses that carry the burst settle at the
    dynamic threshold, each P / (1 + M) (alpha 1), the pool M / (1 + M)
    full, plus a round trip of line rate in headroom where the pause caught
    the ingress at line rate;
  - ECMP places f flows on u equal links: u (1 - (1 - 1/u)^f) of them carry
    any (the rest stay idle), so M and a level's out capacity count those;
  - a fluid fill: writers send at line rate until their leaf's level is
    full or their bytes are sent, a level drains at its out capacity until
    the level below is full, then at what that one frees; receivers take
    line rate from the first packet's arrival (the unloaded path's
    latency); a full level pauses its used in-links;
  - T_fill: the paused links first at 95% of their most (bench/phases.sh's
    test).
measured reads a trace build's run with CKPT_HYBRID_FILL=T (the `fc`
lines every observation, the snapshot at T): the same figures, and the
packets' own T_fill on its grid.
"""
import math
import re
import subprocess
import sys

PAYLOAD_OVER = 82  # RoCEv2 wire bytes a frame beyond its payload (src/core/wire.h)
PEER_RESP = {100e9: 394, 200e9: 453}


def size(v):
    m = re.match(r'^([0-9.e+]+)\s*([A-Za-z/]*)$', v.strip())
    if not m:
        raise ValueError(v)
    x, u = float(m.group(1)), m.group(2)
    mult = {'': 1, 'B': 1, 'KB': 1e3, 'kB': 1e3, 'MB': 1e6, 'GB': 1e9, 'KiB': 1024, 'MiB': 2**20,
            'GiB': 2**30, 'Gbps': 1e9, 'Tbps': 1e12, 'Mbps': 1e6, 'bps': 1, 'us': 1e-6, 'ns': 1e-9,
            'ms': 1e-3, 's': 1}
    return x * mult[u]


def describe(scn, sets, binary):
    cmd = [binary, 'describe', scn] + [a for kv in sets for a in ('--set', kv)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    kv = dict(re.findall(r'^\s+([a-z_.0-9]+) = (.*)$', out, re.M))
    clos = re.search(r'^\s+clos\s+(.*)$', out, re.M)
    return kv, clos.group(1) if clos else ''


def occupied(f, u):
    """Expected links of u carrying any of f flows hashed uniformly."""
    return u * (1 - (1 - 1 / u) ** f) if u > 0 else 0


def levels_of(kv, clos):
    """The switch levels from the writers to the receivers: name of the class
    whose egress holds the level's bytes, switches, ports a switch, in-links
    (the class feeding it), used in-links per switch (M), used out-links."""
    N = int(kv['cluster.nodes'])
    ns = int(kv['storage.nodes'])
    spl = int(kv['fabric.storage_per_leaf'])
    nsl = math.ceil(ns / spl)
    m = re.search(r'(\d+) pods of up to (\d+) leaves \((\d+) nodes.*?\) and (\d+) spines; '
                  r'(\d+) planes of (\d+) super-spines, (\d+) links each', clos)
    if not m:  # two tiers
        h = int(kv['fabric.hosts_per_leaf'])
        S = int(kv['fabric.spines'])
        ncl = math.ceil(N / h)
        up = occupied(h, S)  # a leaf's used uplinks
        m_sp = ncl * up / S  # a spine's used ingresses
        f_sp = N / S
        return [
            dict(cls='cleaf-up', feed='nic-writer', n=ncl, ports=h + S, M=h, in_links=N,
                 out=ncl * up, u=S),
            dict(cls='spine-down-s', feed='cleaf-up', n=S, ports=ncl + nsl, M=m_sp,
                 in_links=ncl * up, out=S * occupied(f_sp, nsl) if nsl > 1 else S),
            dict(cls='sleaf-down', feed='spine-down-s', n=nsl, ports=spl + S,
                 M=S * (1 - (1 - 1 / nsl) ** f_sp) if nsl > 1 else S,
                 in_links=S * nsl, out=ns),
        ]
    pods, lpp, hpl, spp, planes, spl_, lps = map(int, m.groups())
    ncl = math.ceil(N / hpl)
    ncp = math.ceil(ncl / lpp)  # compute pods
    nsup = planes * spl_
    up_leaf = occupied(hpl, spp)
    sp_ports_up = spl_ * lps  # a spine's links to its plane's super-spines
    f_csp = N / (ncp * spp)
    up_csp = occupied(f_csp, sp_ports_up)
    f_sup = N / nsup
    down_sup = occupied(f_sup, lps)  # links to the storage pod's spine
    f_ssp = N / spp
    return [
        dict(cls='cleaf-up', feed='nic-writer', n=ncl, ports=hpl + spp, M=hpl, in_links=N,
             out=ncl * up_leaf, u=spp),
        dict(cls='spine-up-c', feed='cleaf-up', n=ncp * spp, ports=lpp + sp_ports_up,
             M=lpp * up_leaf / spp, in_links=ncl * up_leaf, out=ncp * spp * up_csp),
        dict(cls='super-down-s', feed='spine-up-c', n=nsup, ports=(ncp + 1) * lps,
             M=ncp * spp * up_csp / nsup, in_links=ncp * spp * up_csp, out=nsup * down_sup),
        dict(cls='spine-down-s', feed='super-down-s', n=spp, ports=sp_ports_up + nsl,
             M=nsup * down_sup / spp, in_links=nsup * down_sup,
             out=spp * occupied(f_ssp, nsl)),
        dict(cls='sleaf-down', feed='spine-down-s', n=nsl, ports=spl + spp,
             M=spp * (1 - (1 - 1 / nsl) ** f_ssp), in_links=spp * nsl, out=ns),
    ]


def predict(kv, clos, quiet=False, at=None):
    R = size(kv['cluster.nic_speed'])  # every link at one rate here
    delay = size(kv['fabric.link_delay'])
    lat = size(kv['fabric.switch_latency'])
    buf = size(kv['fabric.buffer'])
    mtu = size(kv['fabric.mtu'])
    res = size(kv['fabric.mmu.reserve'])
    alpha = float(kv['fabric.mmu.alpha'])
    N = int(kv['cluster.nodes'])
    ns = int(kv['storage.nodes'])
    S = size(kv['workload.bytes_per_writer'])
    frame = mtu + PAYLOAD_OVER
    eff = mtu / frame
    Bps = R / 8
    cable = math.ceil(2 * delay * R / 8)
    hdrm = 2 * frame + cable + next((q for b, q in sorted(PEER_RESP.items()) if R <= b), 905) * 64
    lv = levels_of(kv, clos)
    for L in lv:
        L['P'] = buf - L['ports'] * (8 * res + hdrm)
        M = L['M']
        L['th'] = alpha * L['P'] / (1 + alpha * M)
        # held: the pool's share, the reserves, a round trip in headroom
        L['cap'] = L['n'] * (M * L['th'] + M * res + M * cable)
        L['C'] = L['out'] * Bps  # out capacity, wire bytes/s
    hops = len(lv) + 1
    t0 = hops * (delay + frame * 8 / R) + len(lv) * lat  # the first packet's arrival
    # the fluid fill, wire bytes; q[l]: level l's bytes; full[l]
    dt = 1e-8
    q = [0.0] * len(lv)
    sent = 0.0  # per writer, wire bytes (all alike)
    Sw = S / eff
    deliv = 0.0
    t = 0.0
    hist = []
    full_t = [None] * len(lv)
    Tend = 4e-3
    while t < Tend:
        # out of the last level: the receivers at line rate (after t0)
        outs = [0.0] * len(lv)
        full = [q[l] >= lv[l]['cap'] for l in range(len(lv))]
        sink = ns * Bps if t >= t0 else 0.0
        for l in range(len(lv) - 1, -1, -1):
            C = lv[l]['C']
            lim = sink if l == len(lv) - 1 else (outs[l + 1] if full[l + 1] else math.inf)
            outs[l] = min(C, lim)
        inj = N * Bps if sent < Sw else 0.0
        if full[0]:
            inj = min(inj, outs[0])
        ins = [inj] + outs[:-1]
        for l in range(len(lv)):
            # an empty level passes at most what comes in
            if q[l] <= 0:
                outs[l] = min(outs[l], ins[l])
        ins = [inj] + outs[:-1]
        for l in range(len(lv)):
            q[l] = max(0.0, q[l] + (ins[l] - outs[l]) * dt)
            if full_t[l] is None and q[l] >= lv[l]['cap']:
                full_t[l] = t
        sent += inj / N * dt
        deliv += outs[-1] * dt
        paused = sum((N if l == 0 else lv[l - 1]['out']) * (q[l] >= lv[l]['cap'])
                     for l in range(len(lv)))
        hist.append((t, paused, list(q), sent, deliv))
        t += dt
        if sent >= Sw and sum(q) <= 0:
            break
    pmax = max(h[1] for h in hist)
    tfill = next(h[0] for h in hist if h[1] >= 0.95 * pmax)
    snap = next(h for h in hist if h[0] >= tfill)
    qq = snap[2]
    sent_at = min(Sw, tfill * Bps)  # before any pause
    # a writer's sent: what entered the fabric by tfill, alike for all
    entered = sum(qq) + max(0.0, tfill - t0) * ns * Bps
    out = dict(tfill=tfill, t0=t0, pmax=pmax, levels=lv, q=qq, full_t=full_t,
               sent=min(S, entered / N * eff), deliv=max(0.0, tfill - t0) * Bps * eff,
               hdrm=hdrm, frame=frame)
    # the state at a given time (the packets' snapshot's)
    if at is not None:
        h = next((h for h in hist if h[0] >= at), hist[-1])
        out['at'] = dict(t=h[0], paused=h[1], q=h[2], sent=h[3] * eff, deliv=h[4] * eff / ns)
    out['S_wire'] = Sw
    out['Bps'] = Bps
    if not quiet:
        print('predicted: first arrival %.2f us, T_fill %.1f us (paused links most %d)' %
              (t0 * 1e6, tfill * 1e6, pmax))
        print('| class (egress at) | switches | ports | P MB | M (used in-links a switch) | threshold MB | holds when full GB | full at us | queued at T_fill GB | paused in-links |')
        print('|---|---|---|---|---|---|---|---|---|---|')
        for l, L in enumerate(lv):
            pl = (N if l == 0 else lv[l - 1]['out']) if qq[l] >= L['cap'] else 0
            print('| %s | %d | %d | %.2f | %.1f | %.3f | %.3f | %s | %.3f | %s: %d |' % (
                L['cls'], L['n'], L['ports'], L['P'] / 1e6, L['M'], L['th'] / 1e6, L['cap'] / 1e9,
                '%.1f' % (full_t[l] * 1e6) if full_t[l] is not None else '-', qq[l] / 1e9,
                L['feed'], pl))
        print('writer sent %.3f MB each; receiver delivered %.3f MB each; in the fabric %.3f GB' %
              (out['sent'] / 1e6, out['deliv'] / 1e6, sum(qq) / 1e9))
    return out


def uplinks_by_k(L, sent, t, Bps):
    """A compute leaf's uplinks by the flows ECMP put on each (k of the h
    writers on u links, binomial): while the level above takes what they
    send, one with k flows gains (k - 1) x line rate until its writers are
    done, then drains at line rate. The level's mean misses it once the
    writers are done: the expected bytes they still hold and the most on
    one (the k that 1 link in all reaches)."""
    h, u, n = int(L['M']), L['u'], L['n']
    tot, most = 0.0, 0.0
    for k in range(1, h + 1):
        pk = math.comb(h, k) * (1 / u) ** k * (1 - 1 / u) ** (h - k)
        qk = max(0.0, k * sent - Bps * t)
        tot += n * u * pk * qk
        if n * u * sum(math.comb(h, j) * (1 / u) ** j * (1 - 1 / u) ** (h - j)
                       for j in range(k, h + 1)) >= 1:
            most = qk
    return tot, most


def measured(path, quiet=False):
    fc = {}
    snap = None
    sw = []
    ff = []
    for line in open(path):
        a = line.split()
        if not a:
            continue
        if a[0] == 'fc':
            t = float(a[1])
            d = dict(zip(a[3::2], map(float, a[4::2])))
            fc.setdefault(t, {})[a[2]] = d
        elif a[0] == 'fsnap':
            snap = float(a[1])
            events = int(a[3])
        elif a[0] == 'fs':
            sw.append(a)
        elif a[0] == 'ff':
            ff.append(tuple(map(int, a[1:])))
    times = sorted(fc)
    pp = [(t, sum(c['paused'] for c in fc[t].values())) for t in times]
    pmax = max(p for _, p in pp)
    tfill = next(t for t, p in pp if p >= 0.95 * pmax)
    out = dict(tfill=tfill, pmax=pmax, snap=snap, cls=fc.get(snap, {}), ff=ff)
    if not quiet:
        print('measured: T_fill %.1f us on a %.1f us grid (paused links most %d, by %.1f us)' % (
            tfill * 1e6, (times[1] - times[0]) * 1e6, pmax, times[-1] * 1e6))
        if snap is not None:
            print('snapshot at %.1f us (%d events):' % (snap * 1e6, events))
            print('| class | links | queued GB | most on one MB | paused | XOFF | shared GB | headroom GB | mean threshold MB |')
            print('|---|---|---|---|---|---|---|---|---|')
            for k, c in fc[snap].items():
                if c['q'] or c['paused'] or c['xoff']:
                    print('| %s | %d | %.3f | %.2f | %d | %d | %.3f | %.4f | %.3f |' % (
                        k, c['links'], c['q'] / 1e9, c['qmax'] / 1e6, c['paused'], c['xoff'],
                        c['sh'] / 1e9, c['hd'] / 1e9, c['th'] / 1e6))
        if ff:
            s = sorted(f[4] for f in ff)
            n = len(s)
            rx = {}
            for f in ff:
                rx[f[2]] = rx.get(f[2], 0) + f[5]
            print('writers sent: mean %.3f MB, min %.3f, p10 %.3f, p50 %.3f, p90 %.3f, max %.3f; '
                  'in the network %.3f GB; receivers delivered %.3f-%.3f MB' % (
                      sum(s) / n / 1e6, s[0] / 1e6, s[n // 10] / 1e6, s[n // 2] / 1e6,
                      s[9 * n // 10] / 1e6, s[-1] / 1e6,
                      sum(f[4] - f[5] for f in ff) / 1e9, min(rx.values()) / 1e6,
                      max(rx.values()) / 1e6))
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd = argv[1]
    rest = argv[2:]
    sets, binary, pos = [], './build/ckptnet', []
    i = 0
    while i < len(rest):
        if rest[i] == '--set':
            sets.append(rest[i + 1])
            i += 2
        elif rest[i] == '--bin':
            binary = rest[i + 1]
            i += 2
        else:
            pos.append(rest[i])
            i += 1
    if cmd == 'predict':
        kv, clos = describe(pos[0], sets, binary)
        predict(kv, clos)
    elif cmd == 'measured':
        measured(pos[0])
    elif cmd == 'compare':
        kv, clos = describe(pos[0], sets, binary)
        m = measured(pos[1])
        print()
        p = predict(kv, clos, at=m['snap'])
        print()
        N = int(kv['cluster.nodes'])
        st = p['at']
        print('at the snapshot, %.1f us (the model at %.2f us):' % (m['snap'] * 1e6, st['t'] * 1e6))
        print('| class | queued GB predicted / packets (diff) | in-links paused predicted / packets |')
        print('|---|---|---|')
        lv = p['levels']
        for l, L in enumerate(lv):
            c = m['cls'].get(L['cls'], {})
            mq = c.get('q', 0)
            f = m['cls'].get(L['feed'], {})
            pl = (N if l == 0 else lv[l - 1]['out']) if st['q'][l] >= L['cap'] else 0
            print('| %s | %.3f / %.3f (%+.1f%%) | %s: %d / %d |' % (
                L['cls'], st['q'][l] / 1e9, mq / 1e9, 100 * (st['q'][l] / mq - 1) if mq else 0,
                L['feed'], pl, f.get('paused', 0)))
        tq = sum(c['q'] for c in m['cls'].values())
        tp = sum(c['paused'] for c in m['cls'].values())
        print('| all | %.3f / %.3f (%+.1f%%) | %d / %d |' % (
            sum(st['q']) / 1e9, tq / 1e9, 100 * (sum(st['q']) / tq - 1) if tq else 0, st['paused'], tp))
        ms = sorted(f[4] for f in m['ff'])
        rx = {}
        for f in m['ff']:
            rx[f[2]] = rx.get(f[2], 0) + f[5]
        print('writer sent: predicted %.3f MB each, packets %.3f-%.3f MB (mean %.3f); receiver '
              'delivered: predicted %.3f MB, packets %.3f-%.3f MB' % (
                  st['sent'] / 1e6, ms[0] / 1e6, ms[-1] / 1e6, sum(ms) / len(ms) / 1e6,
                  st['deliv'] / 1e6, min(rx.values()) / 1e6, max(rx.values()) / 1e6))
        c0 = m['cls'].get(lv[0]['cls'], {})
        if st['q'][1] < lv[1]['cap']:
            eff = (p['frame'] - PAYLOAD_OVER) / p['frame']
            tot, most = uplinks_by_k(lv[0], st['sent'] / eff, st['t'], p['Bps'])
            print('%s by ECMP collisions (the level above taking all): %.3f GB, the most on one '
                  '%.2f MB; packets %.3f GB, %.2f MB' % (lv[0]['cls'], tot / 1e9, most / 1e6,
                                                         c0.get('q', 0) / 1e9,
                                                         c0.get('qmax', 0) / 1e6))
        print('T_fill predicted %.1f us, packets %.1f us (%+.1f%%)' % (
            p['tfill'] * 1e6, m['tfill'] * 1e6, 100 * (p['tfill'] / m['tfill'] - 1)))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
