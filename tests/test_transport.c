/* The transports' table (src/pkt/transport.h): the registry agrees with
 * the scenario's transport.cc, DCQCN's CNPs come from its receiver hook,
 * and the sender's rate hook is what telemetry samples. */
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/api/api.h"
#include "../src/pkt/pnet.h"
#include "harness.h"
#include "support.h"

/* Every transport.cc value has a descriptor row and a complete table, the
 * scenario parses the row's name to the same value, the key table's
 * choices are the rows' names in order, and its keys exist. */
static void transport_registry(void)
{
    static const char *const listed[] = {CC_KINDS(NAMES_STR)};
    const struct names *names = scenario_key_names("transport.cc");
    CHECK(names && names->n == CC_COUNT);
    for (unsigned k = 0; k < CC_COUNT; k++) {
        const struct cc_scheme *d = cc_scheme((int)k);
        const struct transport_ops *tp = transport_of((enum cc_kind)k);
        CHECKF(tp != NULL, "transport.cc %u has no table", k);
        if (!tp)
            continue;
        CHECKF((unsigned)tp->cc == k, "%s: cc %d at %u", d->name, (int)tp->cc, k);
        CHECK(cc_scheme_by_name(d->name) == d);
        size_t l = strlen(d->name);
        /* the enum's list, the row and the parser's table name it alike */
        CHECKF(!strcmp(listed[k], d->name), "listed \"%s\" at row %s", listed[k], d->name);
        CHECK(names && !strcmp(names_of(names, (int)k), d->name));
        CHECK(tp->on_send && tp->rate);
        CHECK(!d->sends_cnps || tp->on_cnp); /* its CNPs come back to it */
        CHECK(d->fluid && d->fluid[0] && d->tune && d->tune[0]);
        CHECK(!strncmp(d->tune, d->name, l)); /* tune's values start with its own */
        CHECK(d->events_scale[0] >= 1.0 && d->events_scale[1] >= 1.0);
        CHECK(!tp->data_ce_only || tp->on_data); /* a filter without its hook */
        CHECK(!d->sends_cnps || tp->on_data);    /* CNPs come from the receiver hook */
        /* the scenario refuses hybrid for a transport with no jump row
         * (else it ran as packet and said "internal"), and a row the
         * scenario never lets run is dead; side tables are carried or
         * refused, and a row's hooks are those its flags need */
        CHECKF(!d->no_hybrid == !!tp->jump, "%s: cc_schemes no_hybrid %s, jump row %s",
               d->name, d->no_hybrid ? d->no_hybrid : "NULL", tp->jump ? "set" : "none");
        /* whole in the run's hybrid.why ("no fast-forward: " + it) */
        CHECK(!d->no_hybrid || (!strncmp(d->no_hybrid, "transport.cc ", 13) &&
                                strlen(d->no_hybrid) + 18 < sizeof ((struct results *)0)->hybrid.why));
        if (tp->jump) {
            /* whole in the run's hybrid.why ("no jump: N steady windows
             * held by " + it) */
            CHECK(!tp->jump->held == !tp->jump->held_why);
            CHECK(!tp->jump->held_why ||
                  strlen(tp->jump->held_why) + 40 < sizeof ((struct results *)0)->hybrid.why);
            CHECKF(!tp->side || tp->jump->side, "%s: a side table no jump carries", d->name);
            CHECK(tp->jump->budget > 0 && tp->jump->budget < 0.1);
            CHECK(!tp->jump->side || tp->jump->carry);
            CHECK(!tp->jump->trend_full || tp->jump->level);
        }
        struct scenario sc;
        scenario_defaults(&sc);
        test_set(&sc, "transport.cc=%s", d->name);
        CHECKF((unsigned)sc.transport.cc == k, "transport.cc=%s parsed as %d", d->name,
               (int)sc.transport.cc);
        if (d->keys) { /* its keys exist: the first one of the prefix */
            const char *key = k == CC_DCQCN ? "transport.dcqcn.g=0.5" : NULL;
            if (key) {
                CHECK(strncmp(key, d->keys, strlen(d->keys)) == 0);
                test_set(&sc, "%s", key);
            }
        }
    }
    CHECK(sizeof listed / sizeof *listed == CC_COUNT); /* no name without its row */
    CHECK(transport_of((enum cc_kind)CC_COUNT) == NULL);
    CHECK(cc_scheme_by_name("nosuchcc") == NULL);
    CHECK(cc_scheme(CC_COUNT) == &cc_schemes[0]);
    CHECK(transport_of(CC_NONE) == &transport_line_rate);
    CHECK(transport_of(CC_DCQCN) == &transport_dcqcn);
    /* describe's estimate reads the row: DCQCN's CNPs cost events */
    struct scenario sc;
    scenario_defaults(&sc);
    double none = ckpt_pkt_events_per_packet(&sc, NULL);
    test_set(&sc, "transport.cc=dcqcn");
    test_set(&sc, "transport.dcqcn.cnp_path=fabric");
    CHECK(ckpt_pkt_events_per_packet(&sc, NULL) == none * cc_schemes[CC_DCQCN].events_scale[0]);
    test_set(&sc, "transport.dcqcn.cnp_path=direct");
    CHECK(ckpt_pkt_events_per_packet(&sc, NULL) == none * cc_schemes[CC_DCQCN].events_scale[1]);
}

/* Every transport.receiver value has its receiver table, complete, and
 * the scenario parses its name to the same value. */
static void transport_receivers(void)
{
    static const char *const listed[] = {RX_KINDS(NAMES_STR)};
    const struct names *names = scenario_key_names("transport.receiver");
    CHECK(names && names->n == RX_COUNT);
    for (unsigned k = 0; k < RX_COUNT; k++) {
        const struct receiver_ops *rx = receiver_of((enum receiver_kind)k);
        const struct rx_scheme *d = rx_scheme((int)k);
        CHECKF(rx != NULL, "transport.receiver %u has no table", k);
        if (!rx)
            continue;
        CHECK((unsigned)rx->kind == k);
        CHECK(rx->accepts && rx->on_nak && rx->recovery_setup);
        /* the enum's list, the row and the parser's table name it alike */
        CHECKF(!strcmp(listed[k], d->name), "listed \"%s\" at row %s", listed[k], d->name);
        CHECK(names && !strcmp(names_of(names, (int)k), d->name));
        /* one that drops past a gap resends after reordering */
        CHECK(!d->keeps_out_of_order == (d->fluid_reorder != NULL));
        struct scenario sc;
        scenario_defaults(&sc);
        test_set(&sc, "transport.receiver=%s", d->name);
        CHECKF((unsigned)sc.transport.receiver == k, "transport.receiver=%s parsed as %d",
               d->name, sc.transport.receiver);
        struct pnet n;
        pnet_bare(&n, &sc);
        CHECK(n.rx == rx); /* a bare pnet has its receiver too */
        evq_release(&n.q);
    }
    CHECK(sizeof listed / sizeof *listed == RX_COUNT);
    CHECK(receiver_of((enum receiver_kind)RX_COUNT) == NULL);
}

/* DCQCN's notification point is its receiver hook: a marked packet gets a
 * CNP, at most one per flow per cnp_interval (sent direct here: an EV_CNP
 * event toward the sender). */
static void transport_dcqcn_cnp_hook(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "transport.cc=dcqcn");
    test_set(&sc, "transport.dcqcn.cnp_interval=50us");
    struct err e;
    CHECK(scenario_resolve(&sc, &e) == 0);
    struct pnet n;
    pnet_bare(&n, &sc);
    n.tp = transport_of(sc.transport.cc);
    uint64_t lat[2] = {1000000, 0}; /* flow 0's CNPs take 1 us */
    n.cnp_lat = lat;
    struct flow f;
    memset(&f, 0, sizeof f);
    struct packet pk = {0};
    pk.kind = PK_DATA;
    pk.ce = 1;
    CHECK(n.tp->on_data && n.tp->data_ce_only);
    uint64_t at[] = {0, 49999999, 50000000, 60000000, 100000000};
    unsigned want[] = {1, 1, 2, 2, 3};
    for (unsigned i = 0; i < 5; i++) {
        n.now = at[i];
        n.tp->on_data(&n, 1, &f, &pk);
        CHECKF(n.cnps_sent == want[i], "at %llu ps: %llu CNPs, want %u",
               (unsigned long long)at[i], (unsigned long long)n.cnps_sent, want[i]);
    }
    CHECK(evq_len(&n.q) == 3);
    struct event ev;
    CHECK(evq_pop(&n.q, &ev) && EV_KIND(ev.type) == EV_CNP && ev.t == 1000000 && ev.obj == &f);
    evq_release(&n.q);
    /* no congestion control: no receiver hook, so no CNP */
    CHECK(transport_line_rate.on_data == NULL);
}

static void incast(struct scenario *sc, const char *cc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=16");
    test_set(sc, "storage.nodes=1");
    test_set(sc, "workload.bytes_per_writer=1MB");
    test_set(sc, "telemetry.flows=true");
    test_set(sc, "telemetry.interval=10us");
    test_set(sc, "transport.cc=%s", cc);
}

/* End to end: marks answered by CNPs under DCQCN only, and the sampled
 * rates are the transport's (below line rate after DCQCN's cuts; line
 * rate without congestion control). */
static void transport_incast_hooks(void)
{
    double line = 0;
    for (int dc = 0; dc <= 1; dc++) {
        struct scenario sc;
        incast(&sc, dc ? "dcqcn" : "none");
        struct results r;
        CHECK(test_run(&sc, &r) == 0);
        CHECKF(r.ok, "%s", r.violation);
        CHECK(r.ecn_marked > 0);
        if (dc) {
            CHECK(r.cnps_sent > 0 && r.cnps_sent <= r.ecn_marked);
            CHECK(r.rate_decreases > 0);
        } else {
            CHECK(r.cnps_sent == 0 && r.rate_decreases == 0);
        }
        double lo = 1e300, hi = 0;
        size_t m = (size_t)r.n_samples * r.n_sample_flows;
        for (size_t i = 0; i < m; i++)
            if (r.sample_rate[i] > 0) {
                lo = r.sample_rate[i] < lo ? r.sample_rate[i] : lo;
                hi = r.sample_rate[i] > hi ? r.sample_rate[i] : hi;
            }
        CHECK(m > 0 && hi > 0);
        if (!dc) {
            line = hi;
            CHECKF(lo == hi, "no cc: rates %g..%g", lo, hi);
        } else {
            CHECKF(lo < line && hi <= line, "dcqcn: rates %g..%g, line %g", lo, hi, line);
        }
        results_release(&r);
    }
}

/* transport.protocol frames each packet: RoCE's MTU is payload, TCP's is
 * the IP MTU with 52 bytes of IPv4, TCP and timestamps inside; the bound's
 * wire bytes follow the framing. */
static void transport_protocol_framing(void)
{
    struct scenario sc;
    struct err e;
    scenario_defaults(&sc);
    CHECK(scenario_set(&sc, "fabric.mtu=4096B", &e) == 0);
    struct wire_fmt w = scenario_wire(&sc);
    CHECK(sc.transport.protocol == PROTO_ROCE && w.payload == 4096 && w.overhead == 82);
    CHECK(wire_bytes(10000, w) == 10000 + 3 * 82);
    CHECK(scenario_set(&sc, "transport.protocol=tcp", &e) == 0);
    CHECK(scenario_set(&sc, "fabric.mtu=9000B", &e) == 0);
    w = scenario_wire(&sc);
    CHECK(sc.transport.protocol == PROTO_TCP && w.payload == 8948 && w.overhead == 90);
    CHECK(wire_frame(w) == 9038); /* 9000 IP + 14 Ethernet + 4 FCS + 20 preamble and gap */
    CHECK(wire_bytes(8949, w) == 8949 + 2 * 90);
    CHECK(scenario_set(&sc, "transport.protocol=quic", &e) < 0 && strstr(e.msg, "roce"));
}

/* A table marked line_rate has its on_send skipped (nic.c sent_packet
 * takes f->line_bps): each such table's on_send must return just that,
 * at any line rate and size, with no hook that keeps state; the line-rate
 * transport is one (its packets skip the call). Fails when a transport
 * that paces below the line is marked. */
static void transport_line_rate_flag(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    static const uint64_t bps[] = {25000000000, 400000000000, 800000000000};
    static const uint64_t wire[] = {64, 1100, 4160};
    unsigned marked = 0;
    for (unsigned k = 0; k < CC_COUNT; k++) {
        const struct transport_ops *tp = transport_of((enum cc_kind)k);
        if (!tp || !tp->line_rate)
            continue;
        marked++;
        CHECKF(!tp->start && !tp->may_send && !tp->on_data && !tp->side && !tp->on_ack &&
                   !tp->on_timer && !tp->on_cnp,
               "transport.cc %u: marked line_rate with hooks of its own", k);
        struct pnet *n = aligned_alloc(64, (sizeof *n + 63) / 64 * 64);
        struct flow *f = aligned_alloc(64, sizeof *f);
        if (!n || !f) {
            CHECK(0);
            free(n);
            free(f);
            return;
        }
        pnet_bare(n, &sc);
        memset(f, 0, sizeof *f);
        n->tp = tp;
        for (size_t i = 0; i < sizeof bps / sizeof bps[0]; i++)
            for (size_t j = 0; j < sizeof wire / sizeof wire[0]; j++) {
                f->line_bps = bps[i];
                f->sent = wire[j] * i;
                CHECKF(tp->on_send(n, f, &(struct packet){0}, wire[j]) == bps[i],
                       "transport.cc %u: on_send below the line at %llu bps", k,
                       (unsigned long long)bps[i]);
            }
        evq_release(&n->q);
        free(n);
        free(f);
    }
    CHECK(transport_of(CC_NONE)->line_rate && marked >= 1);
}

SUITE(suite_transport) = {
    {"transport_registry", transport_registry},
    {"transport_line_rate_flag", transport_line_rate_flag},
    {"transport_receivers", transport_receivers},
    {"transport_dcqcn_cnp_hook", transport_dcqcn_cnp_hook},
    {"transport_incast_hooks", transport_incast_hooks},
    {"transport_protocol_framing", transport_protocol_framing},
    {0, 0},
};
