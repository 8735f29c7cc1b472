#include "path.h"

#include <stdio.h>

/* A restore reads over the mirrored fabric (work/restore.c): a set's
 * ports are then its mirror's, carrying the other way (rlabel, rlegend). */
static const struct {
    const char *key, *label, *legend, *rlabel, *rlegend;
} table[PATH_SETS] = {
    [PATH_HOST] = {"host_path", "GPU/host -> NIC", NULL, "NIC -> GPU/host", NULL},
    [PATH_WRITER_NIC] = {"writer_nic", "writer NIC", "writer NIC", "reader NIC", "reader NIC"},
    [PATH_CLEAF_UP] = {"compute_leaf_up", "compute-leaf uplinks", "compute-leaf uplink",
                       "spine -> compute leaf", "spine downlink"},
    [PATH_SPINE_UP] = {"spine_up", "spine -> super-spine", "spine uplink",
                       "super -> compute pod", "super-spine downlink"},
    [PATH_SUPER_DOWN] = {"superspine_down", "super -> storage pod", "super-spine downlink",
                         "storage pod -> super", "spine uplink"},
    [PATH_SPINE_DOWN] = {"spine_down", "spine -> storage leaf", "spine downlink",
                         "storage leaf -> spine", "storage-leaf uplink"},
    [PATH_STORAGE_NIC] = {"storage_nic", "storage NIC", "storage NIC", "storage NIC",
                          "storage NIC"},
    [PATH_BACKEND] = {"storage_backend", "storage back end", NULL, "storage back end", NULL},
    [PATH_REVERSE] = {"reverse", "reverse (ACKs, CNPs, PFC)", "toward hosts",
                      "reverse (ACKs, CNPs, PFC)", "toward storage"},
};

/* The switch levels bottom up and the link sets each brings. */
static const struct {
    const char *name;
    enum path_seg up, down;
} levels[PATH_MAX_LEVELS] = {
    {"leaf", PATH_SETS, PATH_SETS},
    {"spine", PATH_CLEAF_UP, PATH_SPINE_DOWN},
    {"super-spine", PATH_SPINE_UP, PATH_SUPER_DOWN},
};

const enum path_seg path_link_sets[PATH_LINK_SETS] = {
    PATH_WRITER_NIC, PATH_CLEAF_UP,    PATH_SPINE_UP, PATH_SUPER_DOWN,
    PATH_SPINE_DOWN, PATH_STORAGE_NIC, PATH_REVERSE};

const char *path_seg_key(int s)
{
    return s >= 0 && s < PATH_SETS ? table[s].key : "none";
}

const char *path_seg_label(int s)
{
    return path_seg_label_io(s, 0);
}

const char *path_seg_label_io(int s, int read)
{
    if (s < 0 || s >= PATH_SETS)
        return "none";
    return read ? table[s].rlabel : table[s].label;
}

int path_is_fwd_link(int s)
{
    return s >= PATH_WRITER_NIC && s <= PATH_STORAGE_NIC;
}

const char *path_set_legend(int s)
{
    return path_set_legend_io(s, 0);
}

const char *path_set_legend_io(int s, int read)
{
    const char *l = s >= 0 && s < PATH_SETS ? (read ? table[s].rlegend : table[s].legend) : NULL;
    return l ? l : "none";
}

const char *path_level_name(unsigned level)
{
    return level < PATH_MAX_LEVELS ? levels[level].name : "none";
}

enum path_seg path_level_up(unsigned level)
{
    return level < PATH_MAX_LEVELS ? levels[level].up : PATH_SETS;
}

enum path_seg path_level_down(unsigned level)
{
    return level < PATH_MAX_LEVELS ? levels[level].down : PATH_SETS;
}

int path_seg_shown(int s, unsigned n_levels)
{
    /* a fabric has leaves and spines at least: their sets always show */
    for (unsigned k = n_levels > 2 ? n_levels : 2; k < PATH_MAX_LEVELS; k++)
        if (s == (int)levels[k].up || s == (int)levels[k].down)
            return 0;
    return 1;
}

unsigned path_link_sets_shown(unsigned n_levels, enum path_seg *out)
{
    unsigned n = 0;
    for (int i = 0; i < PATH_LINK_SETS; i++)
        if (path_seg_shown(path_link_sets[i], n_levels))
            out[n++] = path_link_sets[i];
    return n;
}

const char *path_node_name(uint32_t node, uint32_t first_storage, uint32_t first_cleaf,
                           uint32_t first_sleaf, uint32_t first_spine, uint32_t first_super,
                           char *buf, size_t len)
{
    if (node < first_storage)
        snprintf(buf, len, "host%u", node);
    else if (node < first_cleaf)
        snprintf(buf, len, "stor%u", node - first_storage);
    else if (node < first_sleaf)
        snprintf(buf, len, "cleaf%u", node - first_cleaf);
    else if (node < first_spine)
        snprintf(buf, len, "sleaf%u", node - first_sleaf);
    else if (!first_super || node < first_super)
        snprintf(buf, len, "spine%u", node - first_spine);
    else
        snprintf(buf, len, "super%u", node - first_super);
    return buf;
}
