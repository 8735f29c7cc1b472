/* Transport endings: runs that deliver every byte end ok, DCQCN resends
 * recover their rate, and lossy fabrics recover their drops (retransmission
 * timeout for go-back-N, selective repeat for the out-of-order receiver). */
#include <stdio.h>
#include <string.h>

#include "../include/ckptnet.h"
#include "harness.h"
#include "support.h"

/* A run that delivered every byte exactly once, without the time limit. */
static void check_complete(const struct scenario *sc, const struct results *r, uint32_t flows,
                           const char *what)
{
    CHECKF(r->ok, "%s: %s", what, r->violation);
    CHECKF(r->flows_done == flows, "%s: %u of %u transfers", what, r->flows_done, flows);
    CHECKF(r->bytes_delivered == (uint64_t)flows * sc->workload.bytes_per_writer,
           "%s: %llu B delivered", what, (unsigned long long)r->bytes_delivered);
    CHECKF(r->bytes_sent == r->bytes_delivered, "%s: sent %llu, delivered %llu", what,
           (unsigned long long)r->bytes_sent, (unsigned long long)r->bytes_delivered);
}

/* Issue 25 item 1: every byte in at 608 us, then a superseded pacing
 * wake-up at the 1 Mbps floor, left in the queue past the time limit,
 * failed the run as "stopped at the time limit". On 1 and 2 threads. */
static void loss_done_run_ends_ok(void)
{
    for (unsigned th = 1; th <= 2; th++) {
        struct scenario sc;
        scenario_defaults(&sc);
        test_set(&sc, "cluster.nodes=16");
        test_set(&sc, "storage.nodes=1");
        test_set(&sc, "workload.bytes_per_writer=1MB");
        test_set(&sc, "fabric.load_balancing=spray");
        test_set(&sc, "transport.cc=dcqcn");
        test_set(&sc, "sim.threads=%u", th);
        struct results r;
        CHECK(test_run(&sc, &r) == 0);
        check_complete(&sc, &r, 16, "item 1");
        /* the run ended at its last event, not at the limit */
        CHECKF(r.completion_s < 1e-3, "completion %g s", r.completion_s);
        results_release(&r);
    }
}

/* A run that stops with work left still says so. */
static void loss_time_limit_still_reported(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=16");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "workload.bytes_per_writer=1MB");
    test_set(&sc, "sim.time_limit=100us");
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    CHECK(!r.ok && r.flows_done < 16);
    CHECK(strstr(r.violation, "time limit") != NULL);
    results_release(&r);
}

/* Issue 25 item 2: a go-back-N NAK that reaches a DCQCN sender after it
 * sent everything restarted the sending but not the rate-increase timer:
 * 2 of 32 transfers resent at the 1 Mbps floor for good. */
static void loss_dcqcn_resend_recovers_rate(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=32");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "workload.bytes_per_writer=2MB");
    test_set(&sc, "fabric.load_balancing=spray");
    test_set(&sc, "transport.cc=dcqcn");
    test_set(&sc, "transport.dcqcn.preset=paper");
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    check_complete(&sc, &r, 32, "item 2");
    CHECK(r.naks > 0 && r.retx_bytes > 0); /* it did resend */
    CHECKF(r.completion_s < 20e-3, "completion %g s", r.completion_s);
    results_release(&r);
}

SUITE(suite_loss) = {
    {"loss_done_run_ends_ok", loss_done_run_ends_ok},
    {"loss_time_limit_still_reported", loss_time_limit_still_reported},
    {"loss_dcqcn_resend_recovers_rate", loss_dcqcn_resend_recovers_rate},
    {0, 0},
};
