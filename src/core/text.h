/* Text helpers for messages: the nearest of a set of names, for "did you
 * mean" hints. */
#ifndef CKPT_TEXT_H
#define CKPT_TEXT_H

#include <stddef.h>

/* Optimal string alignment distance (edits and adjacent swaps) between a[0,
 * la) and b[0, lb); (size_t)-1 for strings of 64 characters or more. */
size_t text_distance(const char *a, size_t la, const char *b, size_t lb);

/* The candidate nearest to name within max_dist edits (ties: the first), or
 * NULL. cands has n entries; NULL entries are skipped. */
const char *text_nearest(const char *name, const char *const *cands, size_t n,
                         size_t max_dist);

#endif
