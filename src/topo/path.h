/* The checkpoint path: one enum and one table for the path segments and the
 * fabric's link sets, used by topology (each port's class), bound, series,
 * reports and CSV.
 *
 * Path segments run in the order of the product's table: host path, writer
 * NIC, compute-leaf uplinks, spine -> storage leaf, storage NIC, storage back
 * end. Four of them are link sets (every port belongs to one); PATH_REVERSE
 * is the link set facing away from storage (ACKs, CNPs, PFC frames) and no
 * path segment. */
#ifndef CKPT_PATH_H
#define CKPT_PATH_H

enum path_seg {
    PATH_HOST,          /* GPU / host -> NIC: device-to-host copy and rate caps */
    PATH_WRITER_NIC,    /* compute node -> compute leaf */
    PATH_CLEAF_UP,      /* compute leaf -> spine */
    PATH_SPINE_DOWN,    /* spine -> storage leaf */
    PATH_STORAGE_NIC,   /* storage leaf -> storage node */
    PATH_BACKEND,       /* storage node -> its back end (storage.drain_rate) */
    PATH_COUNT,         /* path segments above; link sets below too */
    PATH_REVERSE = PATH_COUNT, /* ports facing away from storage */
    PATH_SETS
};

/* The link sets, in CSV column order: the four forward ones, then reverse. */
#define PATH_LINK_SETS 5
extern const enum path_seg path_link_sets[PATH_LINK_SETS];

/* "writer_nic" (JSON, CSV, metrics) and "writer NIC" (people); "none" for
 * anything else. */
const char *path_seg_key(int s);
const char *path_seg_label(int s);
/* A forward link set (writer NIC .. storage NIC). */
int path_is_fwd_link(int s);

#endif
