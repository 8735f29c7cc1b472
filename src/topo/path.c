#include "path.h"

static const struct {
    const char *key, *label;
} table[PATH_SETS] = {
    [PATH_HOST] = {"host_path", "GPU/host -> NIC"},
    [PATH_WRITER_NIC] = {"writer_nic", "writer NIC"},
    [PATH_CLEAF_UP] = {"compute_leaf_up", "compute-leaf uplinks"},
    [PATH_SPINE_DOWN] = {"spine_down", "spine -> storage leaf"},
    [PATH_STORAGE_NIC] = {"storage_nic", "storage NIC"},
    [PATH_BACKEND] = {"storage_backend", "storage back end"},
    [PATH_REVERSE] = {"reverse", "reverse (ACKs, CNPs, PFC)"},
};

const enum path_seg path_link_sets[PATH_LINK_SETS] = {
    PATH_WRITER_NIC, PATH_CLEAF_UP, PATH_SPINE_DOWN, PATH_STORAGE_NIC, PATH_REVERSE};

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
