/* A program that embeds ckptnet through include/ckptnet.h alone (built with
 * only -Iinclude; tests/header.sh checks that it includes nothing else):
 * runs the scenario the assignments give, prints figures by name, writes
 * the JSON document (perf omitted) to OUT.json, and checks the API's
 * refusals. tests/header.sh compares its figures and document with the
 * CLI's. Exit 0 when every check held.
 * Usage: test_public OUT.json [key=value]... */
#include <ckptnet.h>
#include <stdio.h>
#include <string.h>

static int fails;

static void check(int ok, const char *what)
{
    if (!ok) {
        fails++;
        printf("FAIL %s\n", what);
    }
}

/* the refusals: -1 or NULL with a message naming what was wrong */
static void refusals(void)
{
    struct ckpt_err e = {{0}};
    struct ckpt_scenario *sc = ckpt_scenario_new();
    check(sc != NULL, "scenario_new");
    if (!sc)
        return;
    check(ckpt_scenario_load(sc, "no/such/file.yaml", &e) == -1 &&
              strstr(e.msg, "no/such/file.yaml") != NULL,
          "load of a missing file names it");
    check(ckpt_scenario_set(sc, "fabric.spinez=4", &e) == -1 &&
              strstr(e.msg, "fabric.spinez") != NULL,
          "set of an unknown key names it");
    check(ckpt_scenario_load_string(sc, "cluster:\n  nodes: -3\n", "inline.yaml", &e) == -1 &&
              strstr(e.msg, "inline.yaml:2:") != NULL && strstr(e.msg, "cluster.nodes") != NULL,
          "YAML text: error names its name, line and key");
    check(ckpt_scenario_set(sc, "cluster.nodes=16", NULL) == 0, "a NULL err is allowed");
    check(ckpt_scenario_set(sc, "storage.nodes=0", NULL) == -1, "set refuses storage.nodes=0");
    /* a cross-key refusal: leaves with more ports than their switch has */
    check(ckpt_scenario_set(sc, "fabric.spines=64", &e) == 0, "set fabric.spines");
    e.msg[0] = '\0';
    check(ckpt_scenario_validate(sc, &e) == -1 && strstr(e.msg, "fabric.leaf_switch") != NULL,
          "validate refuses, naming the key");
    e.msg[0] = '\0';
    check(ckpt_scenario_run(sc, &e) == NULL && strstr(e.msg, "fabric.leaf_switch") != NULL,
          "run refuses the same");
    check(ckpt_scenario_set(sc, "fabric.spines=4", &e) == 0 && ckpt_scenario_validate(sc, &e) == 0,
          "validate left the scenario as it was");
    ckpt_scenario_free(sc);
    ckpt_scenario_free(NULL);
    ckpt_results_free(NULL);
}

struct seen {
    int calls, stop_at;
    double last_s, total;
};

/* counts the calls; sim_s never goes back; nonzero (stop) at call stop_at */
static int on_progress(void *ud, double sim_s, double delivered, double total, double events)
{
    struct seen *p = ud;
    check(sim_s >= p->last_s && delivered <= total && events > 0, "progress figures");
    p->last_s = sim_s;
    p->total = total;
    return ++p->calls == p->stop_at;
}

int main(int argc, char **argv)
{
    static const char *const numbers[] = {
        "checkpoint.completion_s", "checkpoint.bytes", "checkpoint.writers",
        "checkpoint.writer_completion_s.p99", "bound.completion_s", "bound.ratio",
        "storage.node_bytes.0", "checkpoint.finished",
    };
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUT.json [key=value]...\n", argv[0]);
        return 2;
    }
    refusals();
    struct ckpt_err e = {{0}};
    struct ckpt_scenario *sc = ckpt_scenario_new();
    if (!sc)
        return 1;
    for (int i = 2; i < argc; i++)
        if (ckpt_scenario_set(sc, argv[i], &e) < 0) {
            printf("FAIL set %s: %s\n", argv[i], e.msg);
            return 1;
        }
    check(ckpt_scenario_validate(sc, &e) == 0, "validate");
    struct ckpt_results *r = ckpt_scenario_run(sc, &e);
    if (!r) {
        printf("FAIL run: %s\n", e.msg);
        return 1;
    }
    check(ckpt_results_ok(r), "results ok");
    for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++) {
        double v = -1;
        check(ckpt_result_number(r, numbers[i], &v) == 0, numbers[i]);
        printf("%s=%.17g\n", numbers[i], v);
    }
    const char *engine = NULL;
    check(ckpt_result_text(r, "engine", &engine) == 0 && engine, "engine text");
    printf("engine=%s\n", engine ? engine : "");
    double v = 42;
    check(ckpt_result_number(r, "checkpoint.no_such_figure", &v) == -1 && v == 42,
          "unknown figure: -1, value untouched");
    check(ckpt_result_number(r, "engine", &v) == -1, "a text is not a number");
    check(ckpt_result_number(r, "checkpoint.", &v) == -1, "a trailing dot names nothing");
    check(ckpt_result_number(r, "storage.node_bytes.99999", &v) == -1, "index past the array");

    /* the same run with a progress function: called, and the same figures;
     * then stopped at its first call: partial results */
    struct seen p = {0, 0, 0, 0};
    struct ckpt_results *r2 = ckpt_scenario_run_progress(sc, on_progress, &p, &e);
    double done = -1, want = -2, fin = -1, intr = -1, bytes = -1;
    check(r2 && ckpt_result_number(r2, "checkpoint.completion_s", &done) == 0 &&
              ckpt_result_number(r, "checkpoint.completion_s", &want) == 0 && done == want,
          "a progress function changes no figure");
    check(p.calls > 0 && ckpt_result_number(r, "checkpoint.bytes", &bytes) == 0 &&
              p.total == bytes,
          "progress called with the checkpoint's bytes");
    ckpt_results_free(r2);
    p = (struct seen){0, 1, 0, 0};
    r2 = ckpt_scenario_run_progress(sc, on_progress, &p, &e);
    check(r2 && p.calls == 1 && ckpt_result_number(r2, "checkpoint.finished", &fin) == 0 &&
              fin == 0 && ckpt_result_number(r2, "checkpoint.interrupted", &intr) == 0 &&
              intr == 1 && !ckpt_results_ok(r2),
          "a nonzero return stops the run: partial results");
    ckpt_results_free(r2);

    FILE *f = fopen(argv[1], "w");
    check(f && ckpt_report_json(f, r, 0, &e) == 0, "report_json");
    if (f)
        check(fclose(f) == 0, "close OUT.json");
    /* every writer, to a sink: none may fail or crash on a public handle */
    FILE *sink = fopen("/dev/null", "w");
    if (sink) {
        const struct ckpt_results *rs[2] = {r, r};
        const char *const names[2] = {"a", "b"};
        ckpt_report_summary(sink, r);
        ckpt_report_segments(sink, r);
        ckpt_report_metrics(sink, r);
        ckpt_report_catalog(sink);
        check(ckpt_report_json_line(sink, r, 1, &e) == 0, "report_json_line");
        check(ckpt_report_compare(sink, 2, names, rs, &e) == 0, "report_compare");
        check(ckpt_report_compare_json(sink, 2, names, rs, &e) == 0, "report_compare_json");
        check(ckpt_scenario_describe(sink, sc, &e) == 0, "describe");
        fclose(sink);
    }
    ckpt_results_free(r);
    ckpt_scenario_free(sc);
    return fails ? 1 : 0;
}
