/* The staged storage node (docs/storage.md): profiles fill the stage keys
 * the user left unset, then the stages resolve to the back end's write
 * rate before and after its write cache fills, and the restore's read
 * rate. */
#include <stdio.h>
#include <string.h>

#include "../core/units.h"
#include "catalog.h"
#include "scenario.h"

#define GBPS(x) ((uint64_t)((x) * 8e9)) /* GB/s (decimal) in bits/s */

/* Each figure's source is in docs/storage.md, "Profiles". */
const struct storage_profile storage_catalog[] = {
    /* 12 x PCIe Gen4 TLC NVMe, Samsung PM1733 data sheet: sequential read
     * 7.0 GB/s, write 3.8 GB/s; NICs, host and cache: the scenario's */
    {"nvme-gen4-12", 0, 0, 0, 0, 0, 12, GBPS(3.8), GBPS(7.0), 1,
     "generic NVMe server, 12 x PCIe Gen4 NVMe",
     "drives: Samsung PM1733 data sheet (7.0 / 3.8 GB/s)"},
    /* MLPerf Storage v3.0 closed/NVIDIA AIStore target on OCI
     * BM.DenseIO.E5.128: 1 x 100GbE, 12 NVMe of 6.8 TB (OCI shape docs).
     * The drive model is not in the system description found: PCIe Gen4
     * data-sheet class (PM1733) as above (unsure) */
    {"aistore-oci-e5", 1, UINT64_C(100000000000), 0, 0, 0, 12, GBPS(3.8), GBPS(7.0), 1,
     "MLPerf Storage v3.0 closed/NVIDIA AIStore target, 1 x 100GbE, 12 NVMe",
     "storage_results_v3.0 closed/NVIDIA systems; OCI DenseIO.E5 shape (12 x 6.8 TB); "
     "drive rates: Gen4 data-sheet class (unsure)"},
    /* DDN AI400X2 appliance data sheet: 8 x 200Gb ports, 24 NVMe, up to 90
     * GB/s read and 65 GB/s write: the per-drive rates are those totals
     * over 24 drives (the appliance's, not a drive data sheet) */
    {"ddn-ai400x2", 8, UINT64_C(200000000000), 0, 0, 0, 24, GBPS(65.0 / 24), GBPS(90.0 / 24),
     1, "DDN AI400X2-class appliance, 8 x 200G, 24 NVMe",
     "DDN AI400X2 data sheet (90 GB/s read, 65 GB/s write, 24 NVMe; unsure)"},
    /* MLPerf Storage v3.0 closed/UBIX UbiPower 18000 storage node: 4 x 400
     * Gb/s InfiniBand, 16 x DapuStor R6100 15.36 TB with the disclosed
     * sequential write 10,000 MB/s and read 14,500 MB/s */
    {"ubipower-18000", 4, UINT64_C(400000000000), 0, 0, 0, 16, GBPS(10.0), GBPS(14.5), 1,
     "MLPerf Storage v3.0 closed/UBIX UbiPower 18000, 4 x 400G IB, 16 NVMe",
     "storage_results_v3.0 closed/UBIX systems (drives and rates disclosed)"},
    /* MLPerf Storage v3.0 closed/YanRongTech F9000X storage node: 4 x 400
     * Gb/s InfiniBand, 16 x Solidigm D7-PS1010 3.84 TB with the disclosed
     * sequential write 10,500 MB/s and read 14,500 MB/s */
    {"yanrong-f9000x", 4, UINT64_C(400000000000), 0, 0, 0, 16, GBPS(10.5), GBPS(14.5), 1,
     "MLPerf Storage v3.0 closed/YanRongTech F9000X, 4 x 400G IB, 16 NVMe",
     "storage_results_v3.0 closed/YanRongTech systems (drives and rates disclosed)"},
    /* MLPerf Storage v3.0 closed/TuringData F9200 storage node: the same
     * NICs and drives as the F9000X (4 x 400 Gb/s InfiniBand, 16 x D7-PS1010
     * at the disclosed 10,500 / 14,500 MB/s), a larger host (2 x Xeon
     * 6960P, 3 TB) the model has no figure for */
    {"turingdata-f9200", 4, UINT64_C(400000000000), 0, 0, 0, 16, GBPS(10.5), GBPS(14.5), 1,
     "MLPerf Storage v3.0 closed/TuringData F9200, 4 x 400G IB, 16 NVMe",
     "storage_results_v3.0 closed/TuringData systems (drives and rates disclosed)"},
    /* MLPerf Storage v3.0 closed/InspurData AS13000G7 controller: 8 x 400
     * Gb/s InfiniBand (disclosed); its 24 INAGILE NS8000G7 drives have no
     * disclosed rates and no data sheet was found: no media stage */
    {"inspur-as13000g7", 8, UINT64_C(400000000000), 0, 0, 0, 0, 0, 0, 1,
     "MLPerf Storage v3.0 closed/InspurData AS13000G7, 8 x 400G IB (drive rates unknown)",
     "storage_results_v3.0 closed/InspurData systems (NICs disclosed; drive rates not)"},
    /* AWS EC2 i3en.12xlarge as the Alluxio worker of MLPerf Storage v3.0
     * closed/Alluxio: 50 Gigabit network (AWS instance type page); its 4 x
     * 7.5 TB NVMe instance store has no published sequential rate (AWS gives
     * 4 KiB IOPS only): no media stage */
    {"aws-i3en-12xlarge", 1, UINT64_C(50000000000), 0, 0, 0, 0, 0, 0, 1,
     "AWS i3en.12xlarge (Alluxio worker of closed/Alluxio), 1 x 50G",
     "AWS EC2 instance types (i3en.12xlarge: 50 Gigabit); drive rates not published"},
    {0},
};

const struct storage_profile *storage_profile_find(const char *name)
{
    for (const struct storage_profile *p = storage_catalog; p->name; p++)
        if (!strcmp(p->name, name))
            return p;
    return NULL;
}

const char *storage_stage_name(int stage)
{
    static const char *const names[] = {"none", "drain", "host", "cache", "media", "nic"};
    return stage >= STAGE_NONE && stage <= STAGE_NIC ? names[stage] : "none";
}

/* The smaller of two rates, 0 = unlimited; *stage names the one taken
 * (ties go to a, the earlier stage). */
static uint64_t min_rate(uint64_t a, int sa, uint64_t b, int sb, int *stage)
{
    if (a && (!b || a <= b)) {
        *stage = sa;
        return a;
    }
    *stage = b ? sb : STAGE_NONE;
    return b;
}

static void fill(struct scenario *sc, const char *key, void *field, const void *v, size_t n)
{
    if (!scenario_is_set(sc, key))
        memcpy(field, v, n);
}

/* Each protocol's request defaults; their sources are in docs/storage.md,
 * "Requests". */
static const struct {
    uint64_t size, latency_ps;
    uint32_t inflight;
} sproto_defaults[] = {
    [SPROTO_RDMA] = {UINT64_C(1) << 20, UINT64_C(20000000), 128},
    [SPROTO_NFS] = {UINT64_C(1) << 20, UINT64_C(1000000000), 16},
    [SPROTO_S3] = {UINT64_C(16) << 20, UINT64_C(100000000000), 16},
};

/* storage.protocol: the keys the user left unset take its defaults */
static void request_defaults(struct scenario *sc)
{
    int p = sc->storage.protocol;
    if (p <= SPROTO_NONE || p > SPROTO_S3)
        return;
    fill(sc, "storage.request_size", &sc->storage.request_size, &sproto_defaults[p].size,
         sizeof sproto_defaults[p].size);
    fill(sc, "storage.request_latency", &sc->storage.req_latency_ps,
         &sproto_defaults[p].latency_ps, sizeof sproto_defaults[p].latency_ps);
    fill(sc, "storage.requests_in_flight", &sc->storage.req_inflight,
         &sproto_defaults[p].inflight, sizeof sproto_defaults[p].inflight);
}

int storage_resolve(struct scenario *sc, struct err *e)
{
    request_defaults(sc);
    if (strcmp(sc->storage.profile, "none") != 0) {
        const struct storage_profile *p = storage_profile_find(sc->storage.profile);
        if (!p) {
            char list[512] = "";
            size_t o = 0;
            for (const struct storage_profile *q = storage_catalog; q->name && o < sizeof list;
                 q++)
                o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", o ? ", " : "", q->name);
            scenario_fail(sc, e, "storage.profile",
                          "unknown storage profile \"%s\" (known: none, %s; ckptnet catalog)",
                          sc->storage.profile, list);
            return -1;
        }
        if (p->nics) {
            fill(sc, "storage.nics_per_node", &sc->storage.nics_per_node, &p->nics,
                 sizeof p->nics);
            fill(sc, "storage.nic_speed", &sc->storage.nic_bps, &p->nic_bps, sizeof p->nic_bps);
        }
        if (p->host_bps)
            fill(sc, "storage.host_rate", &sc->storage.host_bps, &p->host_bps, sizeof p->host_bps);
        if (p->cache_bytes) {
            fill(sc, "storage.cache_size", &sc->storage.cache_bytes, &p->cache_bytes,
                 sizeof p->cache_bytes);
            fill(sc, "storage.cache_rate", &sc->storage.cache_bps, &p->cache_bps,
                 sizeof p->cache_bps);
        }
        if (p->drives) {
            fill(sc, "storage.drives", &sc->storage.drives, &p->drives, sizeof p->drives);
            fill(sc, "storage.drive_write_rate", &sc->storage.drive_w_bps, &p->drive_w_bps,
                 sizeof p->drive_w_bps);
            fill(sc, "storage.drive_read_rate", &sc->storage.drive_r_bps, &p->drive_r_bps,
                 sizeof p->drive_r_bps);
            fill(sc, "storage.write_amplification", &sc->storage.write_amp, &p->write_amp,
                 sizeof p->write_amp);
        }
    }
    struct { /* aliases, for the arithmetic below */
        uint64_t host, cache, cache_bps, media_w, media_r;
    } s = {sc->storage.host_bps, sc->storage.cache_bytes, sc->storage.cache_bps, 0, 0};
    sc->storage.staged = s.host || s.cache || sc->storage.drives;
    if (!sc->storage.staged) { /* the simple form: storage.drain_rate alone */
        sc->storage.media_bps = sc->storage.drain_bps;
        sc->storage.fast_stage = sc->storage.slow_stage =
            sc->storage.drain_bps ? STAGE_DRAIN : STAGE_NONE;
        return 0;
    }
    if (scenario_is_set(sc, "storage.drain_rate"))
        return scenario_fail(sc, e, "storage.drain_rate",
                             "is the simple form of the back end: with the storage stages "
                             "(storage.profile, host_rate, cache_size or drives) leave it "
                             "unset and give storage.host_rate or the drive rates instead");
    if (sc->storage.drives && !sc->storage.drive_w_bps)
        return scenario_fail(sc, e, "storage.drive_write_rate",
                             "needed with storage.drives (%u): each drive's sequential write "
                             "rate from its data sheet", sc->storage.drives);
    if (sc->storage.drives) {
        /* per node: the drives' rates (limits keep the product in range) */
        double wa = sc->storage.write_amp >= 1 ? sc->storage.write_amp : 1;
        s.media_w = (uint64_t)((double)sc->storage.drives * (double)sc->storage.drive_w_bps / wa);
        s.media_r = (uint64_t)sc->storage.drives * sc->storage.drive_r_bps;
    }
    int slow_stage, fast_stage;
    uint64_t slow = min_rate(s.host, STAGE_HOST, s.media_w, STAGE_MEDIA, &slow_stage);
    uint64_t fast = slow;
    fast_stage = slow_stage;
    if (s.cache && slow) {
        /* the cache absorbs at its rate, or at what arrives: the NICs */
        uint32_t k = sc->storage.nics_per_node > 1 ? sc->storage.nics_per_node : 1;
        uint64_t absorb = s.cache_bps ? s.cache_bps : k * sc->storage.nic_bps;
        fast = min_rate(s.host, STAGE_HOST, absorb, STAGE_CACHE, &fast_stage);
        if (fast <= slow) { /* a cache slower than its media changes nothing */
            fast = slow;
            fast_stage = slow_stage;
        }
    }
    sc->storage.drain_bps = fast;
    sc->storage.media_bps = slow;
    sc->storage.fast_stage = fast_stage;
    sc->storage.slow_stage = slow_stage;
    /* the restore reads from the media, through the host */
    int rstage;
    uint64_t rd = min_rate(s.host, STAGE_HOST, s.media_r, STAGE_MEDIA, &rstage);
    if (rd && !scenario_is_set(sc, "restore.read_rate"))
        sc->restore.read_bps = rd;
    sc->storage.read_stage = scenario_is_set(sc, "restore.read_rate") ? STAGE_DRAIN : rstage;
    return 0;
}
