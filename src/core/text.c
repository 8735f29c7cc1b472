#include "text.h"

#include <string.h>

size_t text_distance(const char *a, size_t la, const char *b, size_t lb)
{
    enum { MAXL = 64 };
    if (la >= MAXL || lb >= MAXL)
        return (size_t)-1;
    size_t d[MAXL + 1][MAXL + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

const char *text_nearest(const char *name, const char *const *cands, size_t n,
                         size_t max_dist)
{
    const char *best = NULL;
    size_t bd = max_dist + 1, nl = strlen(name);
    for (size_t i = 0; i < n; i++) {
        if (!cands[i])
            continue;
        size_t d = text_distance(name, nl, cands[i], strlen(cands[i]));
        if (d < bd) {
            bd = d;
            best = cands[i];
        }
    }
    return best;
}
