#include "path.h"

#include <stdio.h>

static const struct {
    const char *key, *label;
} table[PATH_SETS] = {
    [PATH_HOST] = {"host_path", "GPU/host -> NIC"},
    [PATH_WRITER_NIC] = {"writer_nic", "writer NIC"},
    [PATH_CLEAF_UP] = {"compute_leaf_up", "compute-leaf uplinks"},
    [PATH_SPINE_UP] = {"spine_up", "spine -> super-spine"},
    [PATH_SUPER_DOWN] = {"superspine_down", "super -> storage pod"},
    [PATH_SPINE_DOWN] = {"spine_down", "spine -> storage leaf"},
    [PATH_STORAGE_NIC] = {"storage_nic", "storage NIC"},
    [PATH_BACKEND] = {"storage_backend", "storage back end"},
    [PATH_REVERSE] = {"reverse", "reverse (ACKs, CNPs, PFC)"},
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
    return s >= 0 && s < PATH_SETS ? table[s].label : "none";
}

int path_is_fwd_link(int s)
{
    return s >= PATH_WRITER_NIC && s <= PATH_STORAGE_NIC;
}

int path_seg_shown(int s, unsigned tiers)
{
    return tiers >= 3 || (s != PATH_SPINE_UP && s != PATH_SUPER_DOWN);
}

unsigned path_link_sets_shown(unsigned tiers, enum path_seg *out)
{
    unsigned n = 0;
    for (int i = 0; i < PATH_LINK_SETS; i++)
        if (path_seg_shown(path_link_sets[i], tiers))
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
