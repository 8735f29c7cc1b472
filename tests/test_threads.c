/* sim.threads auto: the rule that picks the thread count, the key's word,
 * and the same results whatever count runs. */
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/core/machine.h"
#include "../src/scenario/scenario.h"
#include "harness.h"
#include "support.h"

static void threads_auto_rule(void)
{
    /* two cores, load 0.45: the second core is ours */
    CHECK(machine_auto_threads(1.55, 2, 8) == 2);
    /* another process holds a core: one thread */
    CHECK(machine_auto_threads(1.0, 2, 8) == 1);
    CHECK(machine_auto_threads(0.2, 2, 8) == 1);
    CHECK(machine_auto_threads(-0.7, 2, 8) == 1); /* overloaded */
    CHECK(machine_auto_threads(-1, 2, 8) == 1);   /* unknown */
    /* at most the usable cores (affinity, cgroup quota) and the cap */
    CHECK(machine_auto_threads(7.6, 4, 8) == 4);
    CHECK(machine_auto_threads(15.9, 16, 8) == 8);
    CHECK(machine_auto_threads(3.9, 4, 2) == 2);
    CHECK(machine_auto_threads(3.9, 4, 1) == 1);
    int u = machine_usable_cores();
    CHECK(u >= 1);
    double idle = machine_idle_cores();
    CHECK(idle == -1 || idle <= u);
}

static void threads_auto_key(void)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECKF(sc.sim.threads == 0, "default sim.threads %u, want auto (0)", sc.sim.threads);
    CHECK(scenario_set(&sc, "sim.threads=2", &e) == 0 && sc.sim.threads == 2);
    CHECK(scenario_set(&sc, "sim.threads=auto", &e) == 0 && sc.sim.threads == 0);
    CHECK(scenario_set(&sc, "sim.threads=0", &e) < 0);
    CHECKF(strstr(e.msg, "sim.threads") != NULL, "%s", e.msg);
    CHECK(scenario_set(&sc, "sim.threads=9", &e) < 0);
    CHECK(scenario_set(&sc, "sim.threads=autox", &e) < 0);
}

/* The count auto picks never changes a figure: a short run under auto is
 * one thread and says so; 1 and 2 give the same completion. */
static void threads_auto_same_results(void)
{
    struct scenario sc;
    struct err e = {{0}};
    double c[3] = {0};
    const char *set[3] = {"sim.threads=auto", "sim.threads=1", "sim.threads=2"};
    for (int i = 0; i < 3; i++) {
        scenario_defaults(&sc);
        CHECK(scenario_set(&sc, "cluster.nodes=16", &e) == 0);
        CHECK(scenario_set(&sc, set[i], &e) == 0);
        CHECK(scenario_resolve(&sc, &e) == 0 && scenario_validate(&sc, &e) == 0);
        struct results r;
        CHECKF(ckpt_run(&sc, &r, &e) == 0, "%s", e.msg);
        c[i] = r.completion_s;
        if (i == 0)
            CHECKF(r.threads == 1 && r.threads_auto, "auto ran %u threads (auto %d)", r.threads,
                   r.threads_auto);
        else
            CHECK(r.threads == (uint32_t)(i == 1 ? 1 : 2) && !r.threads_auto);
        results_release(&r);
    }
    CHECK(c[0] > 0 && c[0] == c[1] && c[1] == c[2]);
}

SUITE(suite_threads) = {
    {"threads_auto_rule", threads_auto_rule},
    {"threads_auto_key", threads_auto_key},
    {"threads_auto_same_results", threads_auto_same_results},
    {NULL, NULL},
};
