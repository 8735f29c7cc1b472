#include "support.h"
#include "../src/topo/internal.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../src/pkt/engine.h"
#include "harness.h"

void test_set(struct scenario *sc, const char *fmt, ...)
{
    char a[160];
    struct err e;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a, sizeof a, fmt, ap);
    va_end(ap);
    if (scenario_set(sc, a, &e) < 0)
        fprintf(stderr, "  %s\n", e.msg);
}

void test_set_design(struct scenario *sc, const struct design *d)
{
    char keys[1024], *save = NULL;
    design_keys(d, keys, sizeof keys, ";");
    for (char *tok = strtok_r(keys, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
        test_set(sc, "%s", tok);
}

int test_run(const struct scenario *sc, struct results *r)
{
    struct err e = {{0}};
    int rc = ckpt_run(sc, r, &e);
    if (rc)
        fprintf(stderr, "  ckpt_run: %s\n", e.msg);
    return rc;
}

int test_build(struct test_built *b, const struct scenario *sc, struct err *e)
{
    struct scenario fab;
    workload_fabric(sc, &fab);
    arena_init(&b->a);
    if (topo_build(&b->t, &fab, &b->a, e) < 0)
        return -1;
    return workload_build(&b->w, sc, &b->t, &b->a, e);
}

int test_export_topology(const struct scenario *sc, const char *path, int runs, struct err *e)
{
    struct scenario s2 = *sc, fab;
    struct arena a;
    struct topo t;
    arena_init(&a);
    int rc = scenario_resolve(&s2, e);
    if (rc == 0) {
        workload_fabric(&s2, &fab);
        rc = topo_build(&t, &fab, &a, e);
    }
    if (rc == 0)
        rc = topo__export_runs(&t, &fab, path, runs, e);
    arena_release(&a);
    return rc;
}

int test_build_ok(struct test_built *b, const struct scenario *sc)
{
    struct err e = {""};
    int rc = test_build(b, sc, &e);
    if (rc)
        fprintf(stderr, "  workload_build: %s\n", e.msg);
    return rc;
}

int test_run_incast(struct test_built *b, struct scenario *sc, uint32_t nf, uint32_t stride,
                    uint64_t bytes, const struct transport_ops *o, struct results *r)
{
    struct err e = {{0}};
    arena_init(&b->a);
    memset(r, 0, sizeof *r);
    memset(&b->w, 0, sizeof b->w);
    if (scenario_resolve(sc, &e) < 0 || topo_build(&b->t, sc, &b->a, &e) < 0) {
        CHECKF(0, "%s", e.msg);
        return -1;
    }
    struct transfer *x = arena_calloc(&b->a, nf, sizeof *x);
    for (uint32_t i = 0; i < nf; i++)
        x[i] = (struct transfer){.src = i * stride, .dst = b->t.first_storage, .bytes = bytes,
                                 .sport = (uint16_t)(50000 + i), .writer = i};
    b->w.xfers = x;
    b->w.n = b->w.n_writers = nf;
    b->w.total_bytes = bytes * nf;
    int rc = pkt_run_transport(sc, &b->t, &b->w, r, o, &e);
    CHECKF(rc == 0, "%s", e.msg);
    CHECKF(rc || r->ok, "%s", r->violation);
    CHECKF(rc || r->bytes_delivered == bytes * nf, "%llu of %llu B delivered",
           (unsigned long long)r->bytes_delivered, (unsigned long long)(bytes * nf));
    return rc;
}

void test_uec_incast(struct scenario *sc, uint32_t nodes)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=%u", nodes);
    test_set(sc, "storage.nodes=1");
    test_set(sc, "workload.bytes_per_writer=1MB");
    test_set(sc, "transport.protocol=uec");
    test_set(sc, "transport.cc=none");
    test_set(sc, "transport.ack_path=fabric");
}

char *test_summary(const struct scenario *sc, const struct results *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    report_summary(f, sc, r);
    fclose(f);
    return buf;
}

char *test_json(const struct scenario *sc, const struct results *r)
{
    char *buf = NULL;
    size_t len = 0;
    struct err e = {{0}};
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    report_json(f, sc, r, 0, &e);
    fclose(f);
    return buf;
}
/* 2 compute pods of 2 leaves of 4 hosts, 4 spines a pod; 8 storage nodes
 * on 2 storage leaves, one storage pod. */
void test_small_clos(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "fabric.tiers=3");
    test_set(sc, "fabric.leaves_per_pod=2");
    test_set(sc, "fabric.spines=4");
    test_set(sc, "cluster.nodes=16");
    test_set(sc, "fabric.hosts_per_leaf=4");
    test_set(sc, "storage.nodes=8");
    test_set(sc, "fabric.storage_per_leaf=4");
}

json_t *test_json_at(json_t *root, const char *dotted)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", dotted);
    json_t *v = root;
    for (char *save = NULL, *tok = strtok_r(buf, ".", &save); tok && v;
         tok = strtok_r(NULL, ".", &save))
        v = json_object_get(v, tok);
    return v;
}

void test_spray3(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=600");
    test_set(sc, "storage.nodes=8");
    test_set(sc, "fabric.tiers=auto");
    test_set(sc, "fabric.switch=CX732Q-N");
    test_set(sc, "fabric.load_balancing=spray");
    test_set(sc, "transport.receiver=ooo");
    test_set(sc, "transport.qps_per_writer=2");
    test_set(sc, "engine=fluid");
}

int test_prepare(struct test_prep *p, const struct scenario *sc)
{
    memset(p, 0, sizeof *p);
    arena_init(&p->a);
    return ckpt_prepare(sc, &p->eff, &p->a, &p->t, &p->w, &p->r, &p->e);
}

void test_prep_release(struct test_prep *p)
{
    results_release(&p->r);
    arena_release(&p->a);
}
