/* The outputs of the commands, one row each (outputs.h). The order of the
 * rows is the order of their --help lines, of the checks before a run and
 * of the writes after it. */
#include <errno.h>
#include <string.h>

#include "outputs.h"

/* ---- the writers ---------------------------------------------------------- */

static int run_json(FILE *f, const struct out_ctx *c, struct err *e)
{
    return report_json(f, c->sc, c->r, 1, e);
}

static int run_csv(const char *dir, const struct out_ctx *c, struct err *e)
{
    return report_csv(dir, c->sc, c->r, e);
}

static int run_html(const char *path, const struct out_ctx *c, struct err *e)
{
    return report_html(path, c->sc, c->r, e);
}

static int run_html_dir(const char *dir, const struct out_ctx *c, struct err *e)
{
    return report_html_dir(dir, c->sc, c->r, e);
}

static int run_metrics(FILE *f, const struct out_ctx *c, struct err *e)
{
    (void)e;
    report_metrics(f, c->sc, c->r);
    return 0;
}

static void metrics_prepare(struct scenario *sc)
{
    sc->telemetry.ports = 1; /* the per-port families */
}

static int run_pcap(const char *dir, const struct out_ctx *c, struct err *e)
{
    return report_pcap(dir, c->sc, c->cap, e);
}

static int pcap_usable(const struct scenario *sc, struct err *e)
{
    if (sc->engine == ENGINE_FLUID)
        return err_set(e, "the fluid engine moves no packets to capture; use --engine packet");
    if (!strcmp(sc->telemetry.pcap_ports, "none") || !sc->telemetry.pcap_ports[0])
        return err_set(e, "name the ports to capture in telemetry.pcap.ports, e.g. "
                          "--set telemetry.pcap.ports=spine0-sleaf0,sleaf0-stor0");
    return 0;
}

static int runs_json(FILE *f, const struct out_ctx *c, struct err *e)
{
    return report_compare_json(f, c->n, c->names, c->scs, c->rs, e);
}

static int topology(const char *path, const struct out_ctx *c, struct err *e)
{
    return ckpt_topology_out(c->sc, path, e);
}

static int sweep_report(const char *path, const struct out_ctx *c, struct err *e)
{
    return sweep_html(path, c->sw, c->res, e);
}

/* ---- the table ------------------------------------------------------------ */

const struct cli_output cli_outputs[] = {
    {.opt = "--json", .cmds = "run", .flags = OUT_STDOUT, .to_file = run_json,
     .help = "  --json FILE      write results and the effective scenario as JSON ('-' = stdout,\n"
             "                   the summary then goes to stderr)\n"},
    {.opt = "--csv-dir", .cmds = "run", .flags = OUT_DIR | OUT_SERIES, .check = report_csv_check,
     .to_path = run_csv,
     .help = "  --csv-dir DIR    write time series, hottest ports, pauses, writers and segments\n"
             "                   as CSV files into DIR (docs/report.md)\n"},
    {.opt = "--report", .cmds = "run", .flags = OUT_SERIES | OUT_SAYS_OPT, .to_path = run_html,
     .help = "  --report FILE    write a self-contained HTML report with plots (needs gnuplot)\n"},
    {.opt = "--report-dir", .cmds = "run", .flags = OUT_DIR | OUT_SERIES | OUT_SAYS_OPT,
     .check = report_html_dir_check, .to_path = run_html_dir,
     .help = "  --report-dir DIR the same report as DIR/report.html, keeping what drew its\n"
             "                   plots in DIR/plots: plots.gp, its data and CSV files, the\n"
             "                   SVGs (cd DIR/plots && gnuplot plots.gp redraws them)\n"},
    {.opt = "--metrics", .cmds = "run", .flags = OUT_STDOUT, .prepare = metrics_prepare,
     .to_file = run_metrics,
     .help = "  --metrics FILE   write counters and gauges in the Prometheus text format\n"
             "                   ('-' = stdout); turns on telemetry.ports\n"},
    {.opt = "--pcap", .cmds = "run", .flags = OUT_DIR | OUT_CAPTURE, .usable = pcap_usable,
     .check = report_pcap_check, .to_path = run_pcap,
     .help = "  --pcap DIR       write one pcap file per port named in telemetry.pcap.ports\n"
             "                   (RoCEv2, CNP and PFC frames; packet engine; docs/report.md)\n"},
    {.opt = "--jsonl", .cmds = "run", .flags = OUT_TABLE | OUT_STDOUT, .line = report_compare_line,
     .why_single = "is for --vary (one line per run); use --json for one run",
     .help = "  --jsonl FILE     with --vary: each run's results as one JSON line as it ends\n"},
    {.opt = "--json", .cmds = "compare", .flags = OUT_TABLE | OUT_STDOUT, .to_file = runs_json,
     .help = "  --json FILE      also write every run's results as JSON ('-' = stdout)\n"},
    {.opt = "--jsonl", .cmds = "compare", .flags = OUT_TABLE | OUT_STDOUT,
     .line = report_compare_line,
     .help = "  --jsonl FILE     each run's results as one JSON line as it ends ('-' = stdout)\n"},
    {.opt = "--topology-out", .cmds = "describe", .flags = OUT_SAYS_OPT, .to_path = topology,
     .help = "  --topology-out F write the fabric as a topology file (JSON) to F, to edit\n"
             "                   and run with fabric.topology_file: F\n"},
    /* written by sweep.c's lead() as points finish: FILE.partial, locked, --resume */
    {.opt = "--out", .cmds = "sweep", .flags = OUT_STDOUT,
     .help = "  --out FILE       .csv (default) or .json (JSON lines); '-' or none: CSV on\n"
             "                   stdout. Rows are written in run order as points finish,\n"
             "                   to FILE.partial (locked), renamed to FILE at the end\n"},
    {.opt = "--report", .cmds = "sweep", .flags = OUT_SAYS_OPT, .to_path = sweep_report,
     .help = "  --report FILE    an HTML page: plots against the varied keys and a table\n"
             "                   (needs gnuplot)\n"},
    /* written by tune.c as the search goes: every point, then the winner's results */
    {.opt = "--json", .cmds = "tune",
     .help = "  --json FILE      every point of the search and the winner's full results\n"},
};
const int cli_n_outputs = (int)(sizeof cli_outputs / sizeof cli_outputs[0]);

_Static_assert(sizeof cli_outputs / sizeof cli_outputs[0] <= CLI_MAX_OUTPUTS,
               "CLI_MAX_OUTPUTS: room for every row");

/* ---- walking it ----------------------------------------------------------- */

int cli_output_for(const struct cli_output *row, const char *cmd)
{
    size_t l = strlen(cmd);
    for (const char *p = row->cmds; (p = strstr(p, cmd)); p += l)
        if ((p == row->cmds || p[-1] == ' ') && (p[l] == ' ' || p[l] == '\0'))
            return 1;
    return 0;
}

int cli_output_find(const char *cmd, const char *opt, int len)
{
    size_t l = len < 0 ? strlen(opt) : (size_t)len;
    for (int k = 0; k < cli_n_outputs; k++)
        if (strlen(cli_outputs[k].opt) == l && !strncmp(cli_outputs[k].opt, opt, l) &&
            (!cmd || cli_output_for(&cli_outputs[k], cmd)))
            return k;
    return -1;
}

void cli_outputs_help(FILE *f, const char *cmd)
{
    for (int k = 0; k < cli_n_outputs; k++)
        if (cli_output_for(&cli_outputs[k], cmd))
            fputs(cli_outputs[k].help, f);
}

int cli_output_opt(const char *cmd, int argc, char **argv, int *i, const char **outs,
                   const char **v)
{
    for (int k = 0; k < cli_n_outputs; k++) {
        int got = cli_output_for(&cli_outputs[k], cmd)
                      ? sweep_opt(argc, argv, i, cli_outputs[k].opt, NULL, v)
                      : 0;
        if (got > 0)
            outs[k] = *v;
        if (got)
            return got;
    }
    return 0;
}

/* "opt: why" in e, unless the row's messages name it. */
static int said(const struct cli_output *row, struct err *e)
{
    if (!(row->flags & OUT_SAYS_OPT)) {
        char m[sizeof e->msg];
        memcpy(m, e->msg, sizeof m);
        err_set(e, "%s: %s", row->opt, m);
    }
    return -1;
}

int cli_output_write(const struct cli_output *row, const char *path, const struct out_ctx *c,
                     struct err *e)
{
    e->msg[0] = '\0';
    if (row->to_path)
        return row->to_path(path, c, e) < 0 ? said(row, e) : 0;
    struct ofile of;
    if (!ofile_open(&of, path, e) || row->to_file(of.f, c, e) < 0) {
        if (of.f && ferror(of.f)) /* the file's error, not the encoder's */
            err_set(e, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
        ofile_abort(&of);
        return said(row, e);
    }
    return ofile_commit(&of, e) < 0 ? said(row, e) : 0;
}
