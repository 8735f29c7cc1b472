/* The topology's shape: the levels topo_build describes cover its switches,
 * and what outside src/topo reads through them (the bill of materials, the
 * load balance, the packet engine's event floor, the link sets outputs
 * show, the nodes' names) matches the topology's own counts on two- and
 * three-tier fabrics, built and imported. A level special-cased by its
 * number instead of walked fails here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/api/ckpt.h"
#include "../src/api/api.h"
#include "../src/stats/bound.h"
#include "../src/topo/topo.h"
#include "harness.h"
#include "support.h"

/* The fabrics the tests walk: leaf-spine, the small Clos, the Clos with
 * storage spread over the compute pods. */
#define N_FABRICS 3
static void fabric(struct scenario *sc, int i)
{
    if (i == 0) {
        scenario_defaults(sc);
        test_set(sc, "cluster.nodes=20");
        test_set(sc, "fabric.hosts_per_leaf=8");
        test_set(sc, "storage.nodes=6");
        test_set(sc, "fabric.storage_per_leaf=4");
        test_set(sc, "fabric.spines=3");
        return;
    }
    test_small_clos(sc);
    if (i == 2)
        test_set(sc, "fabric.storage_pods=spread");
}

static const enum node_kind level_kind[PATH_MAX_LEVELS] = {NODE_LEAF, NODE_SPINE, NODE_SUPER};

/* The levels tile the switches bottom up, each of one kind, in whole
 * groups; each level's link sets join it to the level below. */
static void check_levels(const struct topo *t, const char *what)
{
    CHECKF(t->tiers >= 2 && t->tiers <= PATH_MAX_LEVELS, "%s: %u levels", what, t->tiers);
    uint32_t next = t->first_cleaf, sw = 0;
    for (uint32_t k = 0; k < t->tiers && k < PATH_MAX_LEVELS; k++) {
        const struct topo_level *L = &t->level[k];
        CHECKF(L->first == next && L->n > 0, "%s: level %u at %u (%u), want %u", what, k,
               L->first, L->n, next);
        CHECKF(L->group > 0 && L->n % L->group == 0, "%s: level %u: %u in groups of %u", what,
               k, L->n, L->group);
        uint32_t wrong = 0, split = 0;
        for (uint32_t n = L->first; n < L->first + L->n && n < t->n_nodes; n++) {
            wrong += t->nodes[n].kind != level_kind[k];
            /* above the leaves a group is one pod's spines or one plane's
             * super-spines (tnode.pod), and the next group another's */
            uint32_t g0 = L->first + (n - L->first) / L->group * L->group;
            if (k > 0 && L->group)
                split += (t->nodes[n].pod != t->nodes[g0].pod) ||
                         (n == g0 && n > L->first && t->nodes[n].pod == t->nodes[n - 1].pod);
        }
        CHECKF(!split, "%s: level %u: %u switches in groups of %u not by pod or plane", what,
               k, split, L->group);
        CHECKF(!wrong, "%s: %u nodes of level %u (%s) of another kind", what, wrong, k,
               path_level_name(k));
        next = L->first + L->n;
        sw += L->n;
    }
    CHECKF(next == t->n_nodes && sw == t->n_switches, "%s: levels end at %u of %u (%u switches)",
           what, next, t->n_nodes, sw);
    CHECK(t->n_pods ? t->tiers > 2 : t->n_supers == 0);
    /* a level's link sets: up from the level below into it, down out of it */
    uint32_t bad = 0, seen[PATH_SETS] = {0};
    for (uint32_t p = 0; p < t->n_ports; p++) {
        enum path_seg s = t->ports[p].seg;
        uint32_t from = t->ports[p].node, to = t->ports[t->ports[p].peer].node;
        seen[s]++;
        for (uint32_t k = 1; k < t->tiers; k++) {
            const struct topo_level *L = &t->level[k], *B = &t->level[k - 1];
            int in_l = from >= L->first && from < L->first + L->n;
            int to_b = to >= B->first && to < B->first + B->n;
            int in_b = from >= B->first && from < B->first + B->n;
            int to_l = to >= L->first && to < L->first + L->n;
            if (s == path_level_up(k))
                bad += !(in_b && to_l);
            if (s == path_level_down(k))
                bad += !(in_l && to_b);
        }
    }
    CHECKF(!bad, "%s: %u ports in a level's link set join other levels", what, bad);
    /* outputs show exactly the forward link sets the fabric has */
    for (int s = PATH_WRITER_NIC; s <= PATH_STORAGE_NIC; s++)
        CHECKF(path_seg_shown(s, t->tiers) == (seen[s] > 0), "%s: %s shown %d, %u ports", what,
               path_seg_key(s), path_seg_shown(s, t->tiers), seen[s]);
}

/* Build fabric i, or import its export (import: 1). */
static int build(struct scenario *sc, int i, int import, struct topo *t, struct arena *a,
                 char *file, size_t len)
{
    struct err e = {{0}};
    fabric(sc, i);
    if (import) {
        snprintf(file, len, "/tmp/ckptnet-shape-%d-%d.json", (int)getpid(), i);
        int rc = ckpt_topology_out(sc, file, &e);
        CHECKF(rc == 0, "fabric %d: %s", i, e.msg);
        if (rc)
            return -1;
        test_set(sc, "fabric.topology_file=%s", file);
    }
    int rc = scenario_resolve(sc, &e) == 0 ? topo_build(t, sc, a, &e) : -1;
    CHECKF(rc == 0, "fabric %d%s: %s", i, import ? " imported" : "", e.msg);
    return rc;
}

static void shape_levels_tile_the_switches(void)
{
    for (int import = 0; import < 2; import++)
        for (int i = 0; i < N_FABRICS; i++) {
            struct scenario sc;
            struct arena a;
            struct topo t;
            char file[96] = "", what[32];
            arena_init(&a);
            snprintf(what, sizeof what, "fabric %d%s", i, import ? " imported" : "");
            if (build(&sc, i, import, &t, &a, file, sizeof file) == 0) {
                CHECKF(t.tiers == (i ? 3u : 2u), "%s: %u tiers", what, t.tiers);
                check_levels(&t, what);
            }
            arena_release(&a);
            if (file[0])
                unlink(file);
        }
}

/* What is read through the shape against the topology's own counts. */
static void shape_figures_follow_levels(void)
{
    for (int i = 0; i < N_FABRICS; i++) {
        struct scenario sc;
        struct arena a;
        struct topo t;
        char file[8] = "";
        arena_init(&a);
        if (build(&sc, i, 0, &t, &a, file, sizeof file) < 0) {
            arena_release(&a);
            continue;
        }
        /* bill of materials: the switches of each level, 0 past the top */
        uint32_t sw[PATH_MAX_LEVELS], links[TOPO_BOM_SPEEDS], n = 0, sum = 0;
        uint64_t speeds[TOPO_BOM_SPEEDS];
        topo_bom(&t, sw, speeds, links, &n);
        for (uint32_t k = 0; k < PATH_MAX_LEVELS; k++) {
            uint32_t want = 0;
            for (uint32_t x = t.first_cleaf; x < t.n_nodes; x++)
                want += t.nodes[x].kind == level_kind[k];
            CHECKF(sw[k] == want, "fabric %d: bom level %u: %u, %u built", i, k, sw[k], want);
            sum += sw[k];
        }
        CHECK(sum == t.n_switches);
        /* the event floor: two events on each link of the longest path */
        uint32_t most = 0, path[TOPO_MAX_HOPS];
        for (uint32_t s = 0; s < t.first_storage; s++)
            for (uint32_t d = t.first_storage; d < t.first_cleaf; d++) {
                uint32_t np = topo_path(&t, s, d, 4791, path, TOPO_MAX_HOPS);
                most = np > most ? np : most;
            }
        CHECKF(ckpt_pkt_events_floor(&sc, &t) == 2.0 * most &&
                   ckpt_pkt_events_floor(&sc, NULL) == 2.0 * most,
               "fabric %d: floor %g (scenario %g), longest path %u links", i,
               ckpt_pkt_events_floor(&sc, &t), ckpt_pkt_events_floor(&sc, NULL), most);
        /* the names of each level's first switch */
        static const char *const prefix[PATH_MAX_LEVELS] = {"cleaf", "spine", "super"};
        for (uint32_t k = 0; k < t.tiers; k++) {
            char name[32];
            topo_node_name(&t, t.level[k].first, name, sizeof name);
            CHECKF(!strncmp(name, prefix[k], strlen(prefix[k])), "fabric %d: level %u: %s", i,
                   k, name);
        }
        /* load balance: all of a level's counted bytes on the first switch
         * of its first group make that group group-size times the mean */
        double *bytes = calloc(t.n_ports, sizeof *bytes);
        for (uint32_t k = 1; bytes && k < t.tiers; k++) {
            const struct topo_level *L = &t.level[k];
            const struct tnode *nd = &t.nodes[L->first];
            memset(bytes, 0, t.n_ports * sizeof *bytes);
            for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++)
                if (L->load == PATH_SETS || t.ports[p].seg == L->load)
                    bytes[p] = 1000;
            struct results r;
            memset(&r, 0, sizeof r);
            balance_compute(&r, &t, bytes);
            CHECKF(r.lb_spine_imbalance == (double)L->group && r.lb_uplink_imbalance == 0,
                   "fabric %d: level %u: imbalance %g, groups of %u", i, k, r.lb_spine_imbalance,
                   L->group);
        }
        CHECK(bytes != NULL);
        free(bytes);
        arena_release(&a);
    }
}

/* fabric.tiers: each choice's level count, set back by the auto planner's
 * call; auto unresolved counts the fewest. */
static void shape_scenario_levels(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    for (unsigned n = 2; n <= 3; n++) {
        test_set(&sc, "fabric.tiers=%u", n);
        CHECKF(scenario_levels(&sc) == n, "fabric.tiers %u: %u levels", n, scenario_levels(&sc));
        test_set(&sc, "fabric.tiers=auto");
        CHECK(scenario_levels(&sc) == 2);
        CHECK(scenario_set_levels(&sc, n) == 0 && scenario_levels(&sc) == n);
    }
    int t0 = sc.fabric.tiers;
    CHECK(scenario_set_levels(&sc, 0) < 0 && scenario_set_levels(&sc, PATH_MAX_LEVELS + 1) < 0 &&
          sc.fabric.tiers == t0);
    /* the names outputs print for the levels */
    CHECK(!strcmp(path_level_name(0), "leaf") && !strcmp(path_level_name(1), "spine") &&
          !strcmp(path_level_name(2), "super-spine") &&
          !strcmp(path_level_name(PATH_MAX_LEVELS), "none"));
}

/* Both builders share the leaves' default routes: a leaf cut off by a
 * failed link is named alike on two tiers and three (two tiers named a
 * wrong leaf and "switch" with its index before). */
static void shape_leaf_without_uplink_named(void)
{
    for (int i = 0; i < 2; i++) {
        struct scenario sc;
        struct arena a;
        struct topo t;
        struct err e = {{0}};
        fabric(&sc, i);
        test_set(&sc, "fabric.spines=1");
        test_set(&sc, "fabric.failed_link_names=cleaf1-spine0");
        arena_init(&a);
        int rc = scenario_resolve(&sc, &e) == 0 ? topo_build(&t, &sc, &a, &e) : -1;
        CHECKF(rc < 0 && strstr(e.msg, "fabric: leaf 1 has no working uplink (failed links)"),
               "fabric %d: %d %s", i, rc, e.msg);
        arena_release(&a);
    }
}

SUITE(suite_shape) = {
    {"shape_leaf_without_uplink_named", shape_leaf_without_uplink_named},
    {"shape_levels_tile_the_switches", shape_levels_tile_the_switches},
    {"shape_figures_follow_levels", shape_figures_follow_levels},
    {"shape_scenario_levels", shape_scenario_levels},
    {NULL, NULL},
};
