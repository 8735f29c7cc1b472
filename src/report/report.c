/* Reports: the human summary and the JSON document of one run. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/ckptnet.h"

/* "12.345 ms" style with 4 significant digits. */
static const char *fmt_secs(double s, char *buf, size_t len)
{
    const char *u = "s";
    if (s < 1e-6) {
        s *= 1e9;
        u = "ns";
    } else if (s < 1e-3) {
        s *= 1e6;
        u = "us";
    } else if (s < 1.0) {
        s *= 1e3;
        u = "ms";
    }
    snprintf(buf, len, "%.4g %s", s, u);
    return buf;
}

static const char *fmt_bytes(double b, char *buf, size_t len)
{
    static const char *const u[] = {"B", "KB", "MB", "GB", "TB", "PB"};
    int i = 0;
    while (b >= 1000.0 && i < 5) {
        b /= 1000.0;
        i++;
    }
    snprintf(buf, len, i ? "%.4g %s" : "%.0f %s", b, u[i]);
    return buf;
}

void report_summary(FILE *out, const struct scenario *sc, const struct results *r)
{
    char a[32], b[32], c[32], d[32];
    fprintf(out, "ckptnet: %s engine, scenario %s, seed %llu\n", r->engine,
            sc->source[0] ? sc->source : "default", (unsigned long long)sc->seed);
    fprintf(out, "  fabric      %u switches, %u links; oversubscription %.2f:1 "
                 "compute leaves, %.2f:1 storage leaves\n",
            r->switches, r->links, r->oversub_compute, r->oversub_storage);
    fprintf(out, "  checkpoint  %s from %u writers to %u storage nodes\n",
            fmt_bytes((double)r->ckpt_bytes, a, sizeof a), r->writers,
            sc->storage.nodes);
    fprintf(out, "  completion  %s  (bound %s, set by %s; %.1f%% of bound)\n",
            fmt_secs(r->completion_s, a, sizeof a), fmt_secs(r->bound_s, b, sizeof b),
            bound_limit_name(r->bound_limit),
            r->bound_s > 0 ? 100.0 * r->completion_s / r->bound_s : 0.0);
    fprintf(out, "  writers     p50 %s  p99 %s  max %s\n",
            fmt_secs(r->writer_p50_s, a, sizeof a), fmt_secs(r->writer_p99_s, b, sizeof b),
            fmt_secs(r->writer_max_s, c, sizeof c));
    fprintf(out, "  network     drops %llu; PFC %llu pause frames, %s paused "
                 "(all ports), %s worst port; max queue %s, max switch buffer %s\n",
            (unsigned long long)r->drops, (unsigned long long)r->pause_frames,
            fmt_secs(r->paused_s, a, sizeof a), fmt_secs(r->max_port_paused_s, b, sizeof b),
            fmt_bytes((double)r->max_queue_bytes, c, sizeof c),
            fmt_bytes((double)r->max_buffer_bytes, d, sizeof d));
    if (r->ok)
        fprintf(out, "  invariants  ok: %llu B sent = %llu B delivered, no drops, "
                     "time monotone, buffers within limits\n",
                (unsigned long long)r->bytes_sent, (unsigned long long)r->bytes_delivered);
    else
        fprintf(out, "  invariants  VIOLATED: %s\n", r->violation);
    fprintf(out, "  perf        %llu events in %s (%.3g M events/s), memory %s\n",
            (unsigned long long)r->events, fmt_secs(r->wall_s, a, sizeof a),
            r->wall_s > 0 ? (double)r->events / r->wall_s / 1e6 : 0.0,
            fmt_bytes((double)r->mem_bytes, b, sizeof b));
}

/* Place value under the dotted key inside obj, creating sections. */
static void put_dotted(json_t *obj, const char *key, json_t *value)
{
    char part[128];
    const char *dot;
    while ((dot = strchr(key, '.'))) {
        size_t n = (size_t)(dot - key) < sizeof part - 1 ? (size_t)(dot - key)
                                                         : sizeof part - 1;
        memcpy(part, key, n);
        part[n] = '\0';
        json_t *sub = json_object_get(obj, part);
        if (!sub) {
            sub = json_object();
            json_object_set_new(obj, part, sub);
        }
        obj = sub;
        key = dot + 1;
    }
    json_object_set_new(obj, key, value);
}

static void emit_key(void *ud, const char *key, const char *value, int kind)
{
    json_t *v;
    if (kind == SCN_INT)
        v = json_integer((json_int_t)strtoull(value, NULL, 10));
    else if (kind == SCN_REAL)
        v = json_real(strtod(value, NULL));
    else if (!strcmp(value, "true") || !strcmp(value, "false"))
        v = json_boolean(value[0] == 't');
    else
        v = json_string(value);
    put_dotted(ud, key, v);
}

#define U(x) json_integer((json_int_t)(x))

int report_json(FILE *out, const struct scenario *sc, const struct results *r,
                int perf, struct err *e)
{
    json_t *root = json_object();
    put_dotted(root, "engine", json_string(r->engine));
    put_dotted(root, "checkpoint.bytes", U(r->ckpt_bytes));
    put_dotted(root, "checkpoint.writers", U(r->writers));
    put_dotted(root, "checkpoint.completion_s", json_real(r->completion_s));
    put_dotted(root, "checkpoint.writer_completion_s.p50", json_real(r->writer_p50_s));
    put_dotted(root, "checkpoint.writer_completion_s.p99", json_real(r->writer_p99_s));
    put_dotted(root, "checkpoint.writer_completion_s.max", json_real(r->writer_max_s));
    put_dotted(root, "bound.completion_s", json_real(r->bound_s));
    put_dotted(root, "bound.limit", json_string(bound_limit_name(r->bound_limit)));
    put_dotted(root, "bound.ratio", json_real(r->bound_s > 0 ? r->completion_s / r->bound_s : 0));
    put_dotted(root, "bound.base_latency_s", json_real(r->base_latency_s));
    json_t *terms = json_object();
    for (int l = 0; l < LIMIT_COUNT; l++)
        json_object_set_new(terms, bound_limit_name((enum bound_limit)l),
                            json_real(r->bound_term_s[l]));
    put_dotted(root, "bound.terms_s", terms);
    put_dotted(root, "fabric.switches", U(r->switches));
    put_dotted(root, "fabric.links", U(r->links));
    put_dotted(root, "fabric.oversubscription.compute", json_real(r->oversub_compute));
    put_dotted(root, "fabric.oversubscription.storage", json_real(r->oversub_storage));
    put_dotted(root, "network.drops", U(r->drops));
    put_dotted(root, "network.pfc.pause_frames", U(r->pause_frames));
    put_dotted(root, "network.pfc.resume_frames", U(r->resume_frames));
    put_dotted(root, "network.pfc.paused_s", json_real(r->paused_s));
    put_dotted(root, "network.pfc.max_port_paused_s", json_real(r->max_port_paused_s));
    put_dotted(root, "network.max_queue_bytes", U(r->max_queue_bytes));
    put_dotted(root, "network.max_buffer_bytes", U(r->max_buffer_bytes));
    put_dotted(root, "network.packets_delivered", U(r->packets_delivered));
    put_dotted(root, "invariants.ok", json_boolean(r->ok));
    put_dotted(root, "invariants.violation", json_string(r->violation));
    put_dotted(root, "invariants.bytes_sent", U(r->bytes_sent));
    put_dotted(root, "invariants.bytes_delivered", U(r->bytes_delivered));
    put_dotted(root, "invariants.bytes_dropped", U(r->bytes_dropped));
    put_dotted(root, "invariants.bytes_in_flight", U(r->bytes_in_flight));
    put_dotted(root, "invariants.writers_completed", U(r->flows_done));
    put_dotted(root, "invariants.time_monotone", json_boolean(r->time_monotone));
    if (perf) {
        put_dotted(root, "perf.events", U(r->events));
        put_dotted(root, "perf.wall_s", json_real(r->wall_s));
        put_dotted(root, "perf.events_per_s",
                   json_real(r->wall_s > 0 ? (double)r->events / r->wall_s : 0));
        put_dotted(root, "perf.max_pending_events", U(r->max_pending_events));
        put_dotted(root, "perf.mem_bytes", U(r->mem_bytes));
    }
    json_t *scn = json_object();
    json_object_set_new(scn, "source", json_string(sc->source[0] ? sc->source : "default"));
    scenario_echo(sc, emit_key, scn);
    json_object_set_new(root, "scenario", scn);
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    json_decref(root);
    if (rc < 0 || fputc('\n', out) == EOF)
        return err_set(e, "cannot write JSON output");
    return 0;
}
