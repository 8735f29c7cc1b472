#include "catalog.h"
#include "mlperf.h"

#include "../core/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/units.h"
#include "scenario.h"

#define G400 UINT64_C(400000000000)
#define G800 UINT64_C(800000000000)
#define T(x) ((uint64_t)((x) * 1e12))

/* Figures as the vendor's product briefs publish them (docs/switches.md);
 * where a figure is not published the class value is used and flagged 0.
 * Class values: 12.8T = the published Teralynx 7 figures; 25.6T deep buffer
 * = CX764QD-N; 25.6T and 51.2T buffers from the Broadcom Tomahawk 4/5 class
 * (unsure). */
const struct switch_profile switch_catalog[] = {
    {"CX732Q-N", 32, G400, T(12.8), 500000, 70000000, 1, 1,
     "Marvell Teralynx 7", "RoCEv2, PFC/ECN, ECMP, INT", "docs/switches.md"},
    {"CX732Q-N-V2", 32, G400, T(12.8), 500000, 70000000, 0, 0,
     "Falcon", "RoCEv2, PFC/ECN, ECMP; latency and buffer not published",
     "docs/switches.md; 12.8T class values"},
    {"CX732Q-N-ORv3", 32, G400, T(12.8), 500000, 70000000, 0, 0,
     "12.8T class", "OCP ORv3, non-blocking leaf-spine; latency and buffer not published",
     "docs/switches.md; 12.8T class values"},
    {"CX764QH-N", 64, G400, T(25.6), 560000, 113000000, 0, 0,
     "25.6T class", "WCMP, packet spray, INT-driven routing; latency and buffer not published",
     "docs/switches.md; 25.6T class values (buffer: Tomahawk 4 class, unsure)"},
    {"CX764QD-N", 64, G400, T(25.6), 560000, 200000000, 1, 1,
     "25.6T deep buffer", "RoCEv2, PFC/ECN, WCMP, spray, INT routing; buffer published as >200MB",
     "docs/switches.md"},
    {"CX764QO-N", 64, G400, T(25.6), 560000, 200000000, 1, 1,
     "25.6T deep buffer", "WCMP, INT routing, flowlet, packet spray; buffer published as >200MB",
     "docs/switches.md"},
    {"generic-12.8T", 32, G400, T(12.8), 500000, 70000000, 0, 0,
     "12.8T class", "32 x 400G", "class of CX732Q-N"},
    {"generic-25.6T", 64, G400, T(25.6), 560000, 113000000, 0, 0,
     "25.6T class", "64 x 400G", "Tomahawk 4 class buffer (unsure), CX764 latency"},
    {"generic-25.6T-deep", 64, G400, T(25.6), 560000, 200000000, 0, 0,
     "25.6T deep buffer class", "64 x 400G", "class of CX764QD-N"},
    {"generic-51.2T", 64, G800, T(51.2), 600000, 165000000, 0, 0,
     "51.2T class", "64 x 800G", "Tomahawk 5 class buffer (unsure); latency unsure"},
    {0},
};

const struct switch_profile *switch_profile_find(const char *name)
{
    for (const struct switch_profile *p = switch_catalog; p->name; p++)
        if (!strcmp(p->name, name))
            return p;
    return NULL;
}

/* Indicative only: street prices vary by volume and vendor; users override
 * any entry (cost.prices: reference,NAME=PRICE). Switch watts are without
 * transceivers. Where no public price or data sheet figure was found the
 * source says so: an estimate to be overridden, not a quote. */
#define NO_PRICE "estimate: no public list price found; override it"
const struct price_ref price_reference[] = {
    {"CX732Q-N", 18000, 500, "2026-12-01", NO_PRICE "; watts: 12.8T 1RU class"},
    {"CX732Q-N-V2", 18000, 500, "2026-12-01", NO_PRICE "; watts: 12.8T 1RU class"},
    {"CX732Q-N-ORv3", 18000, 500, "2026-12-01", NO_PRICE "; watts: 12.8T 1RU class"},
    {"generic-12.8T", 18000, 500, "2026-12-01", NO_PRICE "; watts: 12.8T 1RU class"},
    {"CX764QH-N", 32000, 900, "2026-12-01", NO_PRICE "; watts: 25.6T 2RU class"},
    {"generic-25.6T", 32000, 900, "2026-12-01", NO_PRICE "; watts: 25.6T 2RU class"},
    {"CX764QD-N", 38000, 950, "2026-12-01", NO_PRICE "; deep buffer; watts: 25.6T 2RU class"},
    {"CX764QO-N", 38000, 950, "2026-12-01", NO_PRICE "; deep buffer; watts: 25.6T 2RU class"},
    {"generic-25.6T-deep", 38000, 950, "2026-12-01",
     NO_PRICE "; deep buffer; watts: 25.6T 2RU class"},
    {"generic-51.2T", 60000, 1800, "2026-12-01", NO_PRICE "; watts: 51.2T 2RU class"},
    /* transceivers, per module; a link has two */
    {"optic_400g_sr", 600, 8, "2026-12-01",
     NO_PRICE "; watts: 400G QSFP56-DD SR8 data sheet, typical <= 8 W (100 m OM4)"},
    {"optic_400g_dr", 800, 9, "2026-12-01",
     NO_PRICE "; watts: NVIDIA 800G twin-port transceiver overview, a 400G "
     "single-mode transceiver draws 9 W (500 m)"},
    {"optic_400g", 700, 9, "2026-12-01", NO_PRICE "; any reach (the run's bill)"},
    {"optic_800g_sr", 1000, 14, "2026-12-01", NO_PRICE "; watts: estimate"},
    {"optic_800g_dr", 1300, 17, "2026-12-01",
     NO_PRICE "; watts: NVIDIA 800G twin-port OSFP transceiver, 17 W"},
    {"optic_800g", 1200, 17, "2026-12-01", NO_PRICE "; any reach (the run's bill)"},
    /* cables, per link */
    {"dac_400g", 150, 0, "2026-12-01",
     NO_PRICE "; watts: passive copper draws no port power (NVIDIA DGX SuperPOD "
     "cabling guide, Port Power)"},
    {"dac_800g", 250, 0, "2026-12-01", NO_PRICE "; passive copper"},
    {"fiber_mmf", 60, 0, "2026-12-01", NO_PRICE "; MPO multimode patch cable"},
    {"fiber_smf", 40, 0, "2026-12-01", NO_PRICE "; MPO single-mode patch cable"},
    /* breakout (fabric.*breakout): lane-speed parts, and one part a switch
     * port for its 2 or 4 lanes: a breakout DAC (dac_<port>g_<b>x); a
     * broken-out optical port takes one transceiver of the port's speed */
    {"optic_200g_sr", 350, 5, "2026-12-01", NO_PRICE "; indicative; watts: estimate"},
    {"optic_200g_dr", 500, 6, "2026-12-01", NO_PRICE "; indicative; watts: estimate"},
    {"optic_200g", 450, 6, "2026-12-01", NO_PRICE "; indicative; any reach"},
    {"optic_100g_sr", 120, 2.5, "2026-12-01",
     NO_PRICE "; indicative; watts: 100G QSFP28 SR4 class, typical <= 2.5 W"},
    {"optic_100g_dr", 200, 3.5, "2026-12-01", NO_PRICE "; indicative; watts: estimate"},
    {"optic_100g", 180, 3.5, "2026-12-01", NO_PRICE "; indicative; any reach"},
    {"dac_200g", 120, 0, "2026-12-01", NO_PRICE "; indicative; passive copper"},
    {"dac_100g", 60, 0, "2026-12-01", NO_PRICE "; indicative; passive copper"},
    {"dac_800g_2x", 350, 0, "2026-12-01",
     NO_PRICE "; indicative; passive breakout DAC, one 800G port to 2 x 400G"},
    {"dac_800g_4x", 400, 0, "2026-12-01",
     NO_PRICE "; indicative; passive breakout DAC, one 800G port to 4 x 200G"},
    {"dac_400g_2x", 200, 0, "2026-12-01",
     NO_PRICE "; indicative; passive breakout DAC, one 400G port to 2 x 200G"},
    {"dac_400g_4x", 250, 0, "2026-12-01",
     NO_PRICE "; indicative; passive breakout DAC, one 400G port to 4 x 100G"},
    /* breakout AOCs: one port of the first speed to 2 or 4 ports of the
     * lane's, its transceivers built in, multimode (within a row, <= 100 m);
     * the bill takes one for a broken-out leaf-spine port facing unbroken
     * ports when it costs less than the transceivers and fibres it replaces.
     * Products of the kind: OSFP breakout guide comparing DAC, ACC, AEC and
     * AOC breakouts (ascentoptics.com/blog/?p=12343); AOCs carry their
     * optics at both ends (servethehome.com, what is an AOC) */
    {"aoc_800g_2x", 1500, 18, "2026-12-02",
     NO_PRICE "; indicative; breakout AOC, one 800G port to 2 x 400G; watts: estimate "
     "(about an SR transceiver's at each end)"},
    {"aoc_800g_4x", 1700, 20, "2026-12-02",
     NO_PRICE "; indicative; breakout AOC, one 800G port to 4 x 200G; watts: estimate"},
    {"aoc_400g_2x", 900, 10, "2026-12-02",
     NO_PRICE "; indicative; breakout AOC, one 400G port to 2 x 200G; watts: estimate"},
    {"aoc_400g_4x", 800, 10, "2026-12-02",
     NO_PRICE "; indicative; breakout AOC, one 400G port to 4 x 100G; watts: estimate"},
    /* storage without a profile (storage.profile: none): a whole node with
     * its drives */
    {"storage_node", 60000, 1200, "2026-12-01", NO_PRICE "; all-flash node, estimate"},
    /* storage profiles: each node without its drives (storage_price_list
     * adds them); watts without drives */
    {"storage_nvme-gen4-12", 20000, 800, "2026-12-01",
     NO_PRICE "; 2U dual-socket NVMe server class; watts: estimate"},
    {"storage_aistore-oci-e5", 35000, 1000, "2026-12-01",
     NO_PRICE "; a cloud shape priced as a bought server of its class (2 x 64-core "
     "EPYC, 1.5 TB DRAM, 100GbE); watts: estimate"},
    {"storage_ddn-ai400x2", 150000, 2000, "2026-12-01",
     NO_PRICE "; appliance with its controllers and software; watts: estimate"},
    {"storage_ubipower-18000", 30000, 1000, "2026-12-01",
     NO_PRICE "; 2U storage server with 4 x 400G IB; watts: estimate"},
    {"storage_yanrong-f9000x", 30000, 1000, "2026-12-01",
     NO_PRICE "; 2U storage server with 4 x 400G IB; watts: estimate"},
    {"storage_turingdata-f9200", 35000, 1200, "2026-12-01",
     NO_PRICE "; 2U storage server with 4 x 400G IB, 2 x Xeon 6960P, 3 TB; watts: estimate"},
    {"storage_inspur-as13000g7", 40000, 1200, "2026-12-01",
     NO_PRICE "; storage controller with 8 x 400G IB; watts: estimate"},
    {"storage_aws-i3en-12xlarge", 15000, 600, "2026-12-01",
     NO_PRICE "; a cloud shape priced as a bought server of its class (48 vCPU, 384 GiB, "
     "50 Gb/s); watts: estimate"},
    /* enterprise NVMe drives by capacity class, each; watts: a Gen4/Gen5
     * U.2 drive's active power class */
    {"drive_3.84tb", 450, 15, "2026-12-01",
     NO_PRICE "; indicative street price class of a 3.84 TB enterprise NVMe"},
    {"drive_7.68tb", 850, 18, "2026-12-01",
     NO_PRICE "; indicative street price class of a 7.68 TB enterprise NVMe"},
    {"drive_15.36tb", 1600, 20, "2026-12-01",
     NO_PRICE "; indicative street price class of a 15.36 TB enterprise NVMe"},
    /* energy, per kWh */
    {"kwh", 0.12, 0, "2024",
     "EIA Electricity Monthly Update (2024): US median average revenue 11.46-11.94 "
     "cents/kWh, all sectors"},
    {0, 0, 0, 0, 0},
};

const struct price_ref *price_ref_find(const char *name)
{
    for (const struct price_ref *p = price_reference; p->name; p++)
        if (!strcmp(p->name, name))
            return p;
    return NULL;
}

/* Drives a node of each storage profile (storage.c), with their capacity
 * class: disclosed where the profile's source gives it, else assumed (a
 * comment says so). */
const struct storage_price storage_price_list[] = {
    {"nvme-gen4-12", 12, "drive_7.68tb"},       /* PM1733: capacity assumed */
    {"aistore-oci-e5", 12, "drive_7.68tb"},     /* 12 x 6.8 TB (OCI DenseIO.E5) */
    {"ddn-ai400x2", 24, "drive_7.68tb"},        /* 24 NVMe: capacity assumed */
    {"ubipower-18000", 16, "drive_15.36tb"},    /* 16 x R6100 15.36 TB */
    {"yanrong-f9000x", 16, "drive_3.84tb"},     /* 16 x D7-PS1010 3.84 TB */
    {"turingdata-f9200", 16, "drive_3.84tb"},   /* as the F9000X */
    {"inspur-as13000g7", 24, "drive_7.68tb"},   /* 24 NS8000G7: capacity assumed */
    {"aws-i3en-12xlarge", 4, "drive_7.68tb"},   /* 4 x 7.5 TB instance store */
    {0, 0, 0},
};

const struct storage_price *storage_price_find(const char *profile)
{
    for (const struct storage_price *p = storage_price_list; p->profile; p++)
        if (!strcmp(p->profile, profile))
            return p;
    return NULL;
}

/* NVIDIA ConnectX defaults (docs/engine.md, DCQCN), as mlxconfig names them:
 * DCE_TCP_G 1019 (1 - g = 1019/1024), INITIAL_ALPHA_VALUE 1023, DCE_TCP_RTT
 * 1 us, RPG_TIME_RESET 300 us, RPG_THRESHOLD 1, RPG_AI_RATE 5 / RPG_HAI_RATE
 * 50 Mb/s, RPG_MIN_RATE 1 Mb/s, RATE_REDUCE_MONITOR_PERIOD 4 us,
 * MIN_TIME_BETWEEN_CNPS 4 us, CLAMP_TGT_RATE 0, CLAMP_TGT_RATE_AFTER_TIME_INC 1.
 * The byte counter is off although the NIC's RPG_BYTE_RESET defaults to
 * 32767: NVIDIA's mstflint mlxconfig table calls it "transmitted data between
 * rate increases if no CNPs are received, given in bytes", but a 32 KB counter
 * at 400G raises the rate every ~1 us, undoing each cut: this model's 16:1
 * incast (tests/test_lossless.c) then pauses 0.136 s against 0.176 s with
 * PFC alone, and 0 with the counter off. Until the unit is confirmed it stays
 * off, as in the HPCC ns-3 model; transport.dcqcn.byte_counter=32767B tries
 * it. */
const struct preset_entry dcqcn_nvidia[] = {
    {"transport.dcqcn.g", "0.0048828125"},          /* 5/1024 */
    {"transport.dcqcn.initial_alpha", "0.9990234375"}, /* 1023/1024 */
    {"transport.dcqcn.alpha_period", "1us"},
    {"transport.dcqcn.timer", "300us"},
    {"transport.dcqcn.byte_counter", "0"},
    {"transport.dcqcn.f", "1"},
    {"transport.dcqcn.rai", "5Mbps"},
    {"transport.dcqcn.rhai", "50Mbps"},
    {"transport.dcqcn.rmin", "1Mbps"},
    {"transport.dcqcn.decrease_period", "4us"},
    {"transport.dcqcn.cnp_interval", "4us"},
    {"transport.dcqcn.clamp_target", "false"},
    {0, 0},
};

/* DCQCN paper (Zhu et al., SIGCOMM 2015): g 1/256, K 55us, T 55us, B 10MB,
 * F 5, R_AI 40Mbps, CNP every 50us. R_HAI and Rmin are not given there:
 * 10 x R_AI and the NIC minimum are used (unsure). */
const struct preset_entry dcqcn_paper[] = {
    {"transport.dcqcn.g", "0.00390625"},
    {"transport.dcqcn.initial_alpha", "1"},
    {"transport.dcqcn.alpha_period", "55us"},
    {"transport.dcqcn.timer", "55us"},
    {"transport.dcqcn.byte_counter", "10MB"},
    {"transport.dcqcn.f", "5"},
    {"transport.dcqcn.rai", "40Mbps"},
    {"transport.dcqcn.rhai", "400Mbps"},
    {"transport.dcqcn.rmin", "1Mbps"},
    {"transport.dcqcn.decrease_period", "50us"},
    {"transport.dcqcn.cnp_interval", "50us"},
    {"transport.dcqcn.clamp_target", "true"},
    {0, 0},
};

static int resolve_switch(struct scenario *sc, const char *key, char *name,
                          const struct switch_profile **out, struct err *e)
{
    if (!scenario_is_set(sc, key))
        snprintf(name, SCENARIO_TEXT, "%s", sc->fabric.switch_profile);
    const struct switch_profile *p = switch_profile_find(name);
    if (!p) {
        char list[512] = "", hint[96] = "";
        const char *names[64];
        size_t n = 0;
        for (const struct switch_profile *q = switch_catalog; q->name; q++) {
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                     list[0] ? ", " : "", q->name);
            if (n < 64)
                names[n++] = q->name;
        }
        const char *near = text_nearest(name, names, n, 3);
        if (near)
            snprintf(hint, sizeof hint, "did you mean %s? ", near);
        return err_set(e, "%s: unknown switch profile \"%s\" (%sknown: %s)",
                       scenario_is_set(sc, key) ? key : "fabric.switch", name, hint, list);
    }
    *out = p;
    return 0;
}

/* Store a planned count into key (fabric.tiers auto). */
static int plan_set(struct scenario *sc, const char *key, uint64_t v, struct err *e)
{
    char a[32];
    snprintf(a, sizeof a, "%llu", (unsigned long long)v);
    return scenario_set_default(sc, key, a, e);
}

static uint64_t ceil_u64(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* The largest divisor of n with n_sw x it <= ports (at least 1): parallel
 * links per switch pair that fill a switch without a remainder. */
static uint32_t parallel(uint32_t n, uint64_t n_sw, uint32_t ports)
{
    uint32_t best = 1;
    for (uint32_t k = 1; k <= n; k++)
        if (n % k == 0 && n_sw * k <= ports)
            best = k;
    return best;
}

/* fabric.tiers auto: the smallest Clos the profiles allow (docs/scenario.md,
 * Three tiers). A leaf takes as many hosts as its remaining ports carry at
 * fabric.oversubscription; every leaf has the same uplinks; storage leaves
 * (unless fabric.storage_per_leaf is set) and spines are 1:1. Two tiers when every leaf fits on a spine's ports,
 * else pods of half a spine's ports under super-spine planes. */
static int plan_auto(struct scenario *sc, uint32_t lp, uint32_t sp, uint32_t up_ports,
                     struct err *e)
{
    static const char *const chosen[] = {
        "fabric.hosts_per_leaf", "fabric.spines",
        "fabric.links_per_spine", "fabric.pods", "fabric.leaves_per_pod",
        "fabric.spines_per_pod", "fabric.superspines", "fabric.links_per_superspine"};
    for (size_t i = 0; i < sizeof chosen / sizeof *chosen; i++)
        if (scenario_is_set(sc, chosen[i]))
            return err_set(e, "%s: fabric.tiers: auto chooses it; set fabric.tiers: 2 or 3 "
                              "to choose it yourself", chosen[i]);
    double o = sc->fabric.oversubscription >= 1 ? sc->fabric.oversubscription : 1;
    double nic = (double)sc->cluster.nic_bps, snic = (double)sc->storage.nic_bps;
    double up = (double)sc->fabric.uplink_bps;
    double up2 = (double)(sc->fabric.spine_uplink_bps ? sc->fabric.spine_uplink_bps
                                                      : sc->fabric.uplink_bps);
    uint32_t nics = sc->cluster.nics_per_node, h = 0;
    /* rails: a node's NICs over `rails` leaves, nics / rails on each */
    uint32_t rails = sc->fabric.rails > 1 ? sc->fabric.rails : 1, per = nics / rails;
    for (uint32_t x = lp - 1; x >= 1 && !h; x--) /* host ports of a compute leaf */
        if (x * nic <= o * (lp - x) * up * (1 + 1e-12))
            h = x;
    uint32_t hpl = h / per;
    /* rail groups are whole: hosts_per_leaf divides the nodes (fewer hosts
     * a leaf leave it more uplinks, never fewer) */
    while (rails > 1 && hpl > 1 && sc->cluster.nodes % hpl)
        hpl--;
    uint32_t u = lp - hpl * per;
    if (rails > 1 && hpl) { /* a smaller group takes only the uplinks it needs */
        uint32_t need = (uint32_t)ceil((double)hpl * per * nic / (o * up) - 1e-9);
        u = need && need < u ? need : u;
    }
    if (!hpl)
        return err_set(e, "fabric.tiers: auto: a %u-port leaf cannot hold a node's %u NICs "
                          "at %.3g:1", lp, per, o);
    uint32_t snics = sc->storage.nics_per_node; /* a storage node takes snics ports */
    /* storage nodes the uplinks carry, at most the leaf's other ports:
     * compared as a double, a slow NIC's count passes 2^32 */
    double fit = u * up / (snic * snics) + 1e-9;
    uint32_t spl = (lp - u) / snics;
    spl = fit < (double)spl ? (uint32_t)fit : spl;
    if (scenario_is_set(sc, "fabric.storage_per_leaf")) { /* kept when it fits */
        if ((uint64_t)sc->fabric.storage_per_leaf * snics > lp - u)
            return err_set(e, "fabric.storage_per_leaf: %u storage nodes and %u uplinks do not "
                              "fit a %u-port leaf", sc->fabric.storage_per_leaf, u, lp);
        spl = sc->fabric.storage_per_leaf;
    }
    if (!spl)
        return err_set(e, "fabric.tiers: auto: a storage leaf's %u uplinks carry less than "
                          "one storage NIC", u);
    uint64_t hosts = (uint64_t)sc->cluster.nodes * nics;
    uint64_t lc = (hosts + (uint64_t)hpl * per - 1) / ((uint64_t)hpl * per);
    uint64_t ls = (sc->storage.nodes + spl - 1) / spl;
    sc->fabric.tiers_auto = 1;
    if (plan_set(sc, "fabric.hosts_per_leaf", hpl, e) < 0 ||
        plan_set(sc, "fabric.storage_per_leaf", spl, e) < 0)
        return -1;
    if (lc + ls <= sp) { /* two tiers: each leaf on every spine */
        uint32_t k = parallel(u, lc + ls, sp);
        scenario_set_levels(sc, 2);
        return plan_set(sc, "fabric.spines", u / k, e) < 0 ||
                       plan_set(sc, "fabric.links_per_spine", k, e) < 0 ? -1 : 0;
    }
    /* three tiers: a spine's ports half down (1:1 at its speeds), one
     * link to each leaf of its pod; one spine a pod per leaf uplink */
    uint32_t d = 0;
    for (uint32_t x = sp - 1; x >= 1 && !d; x--)
        if (x * up <= (sp - x) * up2 * (1 + 1e-12))
            d = x;
    uint32_t u2 = sp - d;
    /* storage_pods spread: a pod's spines also take its share of the storage
     * leaves (leaf j in compute pod j mod pods), so fewer compute leaves a pod */
    int spread = sc->fabric.storage_pods == SPODS_SPREAD;
    uint32_t lpp = d;
    while (spread && lpp && lpp + (ls + ceil_u64(lc, lpp) - 1) / ceil_u64(lc, lpp) > d)
        lpp--;
    uint64_t pods = !lpp ? 0 : spread ? ceil_u64(lc, lpp) : ceil_u64(lc, d) + ceil_u64(ls, d);
    if (!lpp || pods > up_ports)
        return err_set(e, "fabric.tiers: auto: %llu compute and %llu storage leaves need %llu "
                          "pods of %u; three tiers of these switches hold at most %llu (a "
                          "super-spine's ports); choose larger switches, fabric.breakout or "
                          "fabric.oversubscription", (unsigned long long)lc,
                       (unsigned long long)ls, (unsigned long long)pods, lpp,
                       (unsigned long long)up_ports);
    uint32_t k2 = parallel(u2, pods, up_ports);
    scenario_set_levels(sc, 3);
    if (plan_set(sc, "fabric.links_per_spine", 1, e) < 0 ||
        plan_set(sc, "fabric.spines", u, e) < 0 || plan_set(sc, "fabric.spines_per_pod", u, e) < 0 ||
        plan_set(sc, "fabric.leaves_per_pod", lpp, e) < 0 ||
        plan_set(sc, "fabric.superspines", u2 / k2, e) < 0 ||
        plan_set(sc, "fabric.links_per_superspine", k2, e) < 0)
        return -1;
    return 0;
}

/* RoCE collectives need a lossless class: under PFC and logical isolation
 * training's priority joins the lossless ones unless the user listed them
 * (an explicit list without it is refused by scenario_validate). */
static int training_lossless(struct scenario *sc, struct err *e)
{
    uint32_t p = sc->training.priority;
    int mask = scenario_prio_mask(sc->fabric.pfc_priorities);
    if (sc->training.traffic != TRAFFIC_COLLECTIVES || sc->training.isolation != ISO_LOGICAL ||
        !sc->fabric.pfc || scenario_is_set(sc, "fabric.pfc.priorities") || mask < 0 ||
        p > 7 || ((mask >> p) & 1) || p == sc->transport.cnp_priority ||
        p == sc->transport.data_priority)
        return 0; /* the class checks of scenario_validate name the conflicts */
    char list[SCENARIO_TEXT] = "";
    mask |= 1 << p;
    for (int i = 0; i < 8; i++)
        if ((mask >> i) & 1)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d",
                     list[0] ? "," : "", i);
    return scenario_set_default(sc, "fabric.pfc.priorities", list, e);
}

int scenario_auto_plans(const struct scenario *sc)
{
    static const char *const planned[] = {
        "fabric.hosts_per_leaf", "fabric.storage_per_leaf", "fabric.spines",
        "fabric.links_per_spine", "fabric.pods", "fabric.leaves_per_pod",
        "fabric.spines_per_pod", "fabric.superspines", "fabric.links_per_superspine"};
    struct scenario *t = malloc(sizeof *t); /* large (failed_link_names) */
    struct err e;
    if (!t)
        return 0;
    *t = *sc;
    for (size_t i = 0; i < sizeof planned / sizeof *planned; i++)
        scenario_unset(t, planned[i]);
    t->fabric.tiers = TIERS_AUTO;
    int ok = scenario_resolve(t, &e) == 0;
    free(t);
    return ok;
}

/* The next "key=value" of a row's "key=value;..." (*s moves past it):
 * 1, 0 at its end, -1 for an entry too long for key[64] or val[64]. */
static int row_next(const char **s, char key[64], char val[64])
{
    if (!*s || !**s)
        return 0;
    size_t kl = strcspn(*s, "="), vl = strcspn(*s + kl + 1, ";");
    if (kl >= 64 || vl >= 64)
        return -1;
    memcpy(key, *s, kl);
    key[kl] = '\0';
    memcpy(val, *s + kl + 1, vl);
    val[vl] = '\0';
    *s += kl + 1 + vl;
    *s += **s == ';';
    return 1;
}

/* A row's "key=value;..." defaults, under the keys the user set. */
static int row_defaults(struct scenario *sc, const char *s, struct err *e)
{
    char key[64], val[64];
    int got;
    while ((got = row_next(&s, key, val)) > 0)
        if (scenario_set_default(sc, key, val, e) < 0)
            return -1;
    return got < 0 ? err_set(e, "internal: transport.protocol's defaults") : 0;
}

size_t scenario_protocol_kept(const struct scenario *sc, char *buf, size_t len)
{
    int p = sc->transport.protocol;
    const char *s = p >= 0 && p < PROTO_COUNT ? proto_defaults[p] : NULL;
    size_t n = 0;
    if (len)
        buf[0] = '\0';
    char key[64], val[64], at[96];
    while (n < len && row_next(&s, key, val) > 0) {
        if (!scenario_is_set(sc, key) || scenario_value_is(sc, key, val) != 0)
            continue;
        struct scenario_pos pos = scenario_key_pos(sc, key);
        if (pos.line == 0)
            snprintf(at, sizeof at, "--set");
        else if (pos.line == SCENARIO_EARLIER_FILE)
            snprintf(at, sizeof at, "an earlier file");
        else
            snprintf(at, sizeof at, "%s:%u", sc->source, pos.line);
        int w = snprintf(buf + n, len - n, "%s%s (%s) over %s's %s", n ? "; " : "", key, at,
                         proto_scheme(p)->name, val);
        n = w < 0 ? n : n + (size_t)w < len ? n + (size_t)w : len - 1;
    }
    return n;
}

/* transport.protocol's defaults (its row). */
static int protocol_defaults(struct scenario *sc, struct err *e)
{
    int p = sc->transport.protocol;
    return row_defaults(sc, p >= 0 && p < PROTO_COUNT ? proto_defaults[p] : NULL, e);
}

int scenario_resolve(struct scenario *sc, struct err *e)
{
    const struct switch_profile *leaf, *spine, *super;
    if (protocol_defaults(sc, e) < 0 || mlperf_apply(sc, e) < 0 || storage_resolve(sc, e) < 0)
        return -1;
    if (resolve_switch(sc, "fabric.leaf_switch", sc->fabric.leaf_switch, &leaf, e) < 0 ||
        resolve_switch(sc, "fabric.spine_switch", sc->fabric.spine_switch, &spine, e) < 0 ||
        (scenario_is_set(sc, "fabric.superspine_switch") &&
         resolve_switch(sc, "fabric.superspine_switch", sc->fabric.superspine_switch, &super,
                        e) < 0)) {
        scenario_locate(sc, e); /* where the profile was named */
        return -1;
    }
    if (!scenario_is_set(sc, "fabric.superspine_switch")) { /* the spine's */
        snprintf(sc->fabric.superspine_switch, SCENARIO_TEXT, "%s", sc->fabric.spine_switch);
        super = spine;
    }
    uint32_t bo = sc->fabric.breakout ? sc->fabric.breakout : 1;
    /* per tier: a leaf's host ports, its uplinks, the spines' (and the
     * super-spines') ports; 0 = fabric.breakout */
    uint32_t bd = sc->fabric.leaf_down_breakout ? sc->fabric.leaf_down_breakout : bo;
    uint32_t bu = sc->fabric.leaf_up_breakout ? sc->fabric.leaf_up_breakout : bo;
    uint32_t bs = sc->fabric.spine_breakout ? sc->fabric.spine_breakout : bo;
    static const char *const bkey[] = {"fabric.breakout", "fabric.leaf_down_breakout",
                                       "fabric.leaf_up_breakout", "fabric.spine_breakout"};
    const uint32_t bval[] = {bo, bd, bu, bs};
    for (int i = 0; i < 4; i++)
        if (bval[i] != 1 && bval[i] != 2 && bval[i] != 4) {
            err_set(e, "%s: expected 1, 2 or 4, got %u", bkey[i], bval[i]);
            scenario_locate(sc, e);
            return -1;
        }
    sc->fabric.bo_down = bd;
    sc->fabric.bo_up = bu;
    sc->fabric.bo_spine = bs;
    int buf_set = scenario_is_set(sc, "fabric.buffer");
    int lat_set = scenario_is_set(sc, "fabric.switch_latency");
    sc->fabric.leaf_buffer = buf_set ? sc->fabric.buffer_bytes : leaf->buffer_bytes;
    sc->fabric.spine_buffer = buf_set ? sc->fabric.buffer_bytes : spine->buffer_bytes;
    sc->fabric.leaf_latency_ps = lat_set ? sc->fabric.switch_latency_ps : leaf->latency_ps;
    sc->fabric.spine_latency_ps = lat_set ? sc->fabric.switch_latency_ps : spine->latency_ps;
    /* a leaf of two breakouts: its ports counted per side (api/run.c
     * fabric_radix); here the larger count and the faster lane */
    sc->fabric.leaf_ports = leaf->ports * (bd > bu ? bd : bu);
    sc->fabric.spine_ports = spine->ports * bs;
    sc->fabric.super_ports = super->ports * bs;
    sc->fabric.leaf_port_bps = leaf->port_bps / (bd < bu ? bd : bu);
    sc->fabric.leaf_down_bps = leaf->port_bps / bd;
    sc->fabric.leaf_up_bps = leaf->port_bps / bu;
    sc->fabric.spine_port_bps = spine->port_bps / bs;
    sc->fabric.super_port_bps = super->port_bps / bs;
    /* links run at their ports' lane speed unless the user set it: the
     * slower end of a leaf uplink and a spine port; above the spines, the
     * slower of a spine and a super-spine lane (when it differs) */
    char lane[32];
    uint64_t up = sc->fabric.leaf_up_bps < sc->fabric.spine_port_bps ? sc->fabric.leaf_up_bps
                                                                     : sc->fabric.spine_port_bps;
    uint64_t up2 = sc->fabric.spine_port_bps < sc->fabric.super_port_bps
                       ? sc->fabric.spine_port_bps
                       : sc->fabric.super_port_bps;
    /* (a field still at the table's 400Gbps: one assigned directly keeps its value) */
    if (!scenario_is_set(sc, "fabric.uplink_speed") &&
        sc->fabric.uplink_bps == UINT64_C(400000000000)) {
        if (scenario_set_default(sc, "fabric.uplink_speed",
                                 units_fmt_rate(up, lane, sizeof lane), e) < 0)
            return -1;
        if (up2 != up && scenario_set_default(sc, "fabric.spine_uplink_speed",
                                              units_fmt_rate(up2, lane, sizeof lane), e) < 0)
            return -1;
    }
    if (sc->fabric.tiers == TIERS_AUTO && bd != bu) {
        err_set(e, "fabric.tiers: auto plans leaves of one breakout: fabric.leaf_down_breakout "
                   "(%u) and fabric.leaf_up_breakout (%u) differ; set fabric.tiers 2 or 3", bd, bu);
        scenario_locate(sc, e);
        return -1;
    }
    if (sc->fabric.tiers == TIERS_AUTO &&
        plan_auto(sc, sc->fabric.leaf_ports, sc->fabric.spine_ports, sc->fabric.super_ports,
                  e) < 0) {
        scenario_locate(sc, e);
        return -1;
    }
    /* the echo shows what the leaves use */
    char v[32];
    if (scenario_set_default(sc, "fabric.buffer",
                             units_fmt_size(leaf->buffer_bytes, v, sizeof v), e) < 0 ||
        scenario_set_default(sc, "fabric.switch_latency",
                             units_fmt_time(leaf->latency_ps, v, sizeof v), e) < 0)
        return -1;
    const struct preset_entry *pr =
        sc->transport.dcqcn.preset == DCQCN_PAPER ? dcqcn_paper : dcqcn_nvidia;
    for (; pr->key; pr++)
        if (scenario_set_default(sc, pr->key, pr->value, e) < 0)
            return -1;
    /* TCP: its protocol, a TCP congestion control (DCTCP unless named) and
     * TCP's receiver come together */
    if (sc->transport.protocol == PROTO_TCP && !scenario_is_set(sc, "transport.cc") &&
        scenario_set_default(sc, "transport.cc", "dctcp", e) < 0)
        return -1;
    if (cc_scheme(sc->transport.cc)->tcp &&
        (scenario_set_default(sc, "transport.protocol", "tcp", e) < 0 ||
         scenario_set_default(sc, "transport.receiver", "tcp", e) < 0))
        return -1;
    /* transport.cc's row, once the protocol has named it */
    if (row_defaults(sc, cc_scheme(sc->transport.cc)->defaults, e) < 0)
        return -1;
    return training_lossless(sc, e);
}
