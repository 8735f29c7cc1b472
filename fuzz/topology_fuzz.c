/* libFuzzer target for the topology importer (make fuzz-topology;
 * fuzz/README.md).
 *
 * The input is a topology file (fabric.topology_file): JSON when it starts
 * with '{' or '[' (after blanks), else YAML. It is written to a file of
 * this process and built over a small scenario (4 hosts, 2 storage nodes,
 * the fuzz/topology seeds' fabric). Building must never crash, hang or
 * leak; a refusal must be one clean line naming the file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/api/ckpt.h"
#include "../src/core/arena.h"
#include "../src/topo/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void cleanup(void)
{
    char p[96];
    snprintf(p, sizeof p, "%s/t.json", dir);
    remove(p);
    snprintf(p, sizeof p, "%s/t.yaml", dir);
    remove(p);
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/ckptnet-topofuzz-XXXXXX");
        if (!mkdtemp(dir))
            abort();
        atexit(cleanup);
    }
    size_t k = 0;
    while (k < size && (data[k] == ' ' || data[k] == '\n' || data[k] == '\t' || data[k] == '\r'))
        k++;
    int json = k < size && (data[k] == '{' || data[k] == '[');
    char path[96];
    snprintf(path, sizeof path, "%s/t.%s", dir, json ? "json" : "yaml");
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    static const char *const set[] = {"cluster.nodes=4", "fabric.hosts_per_leaf=2",
                                      "storage.nodes=2", "fabric.storage_per_leaf=2",
                                      "fabric.spines=2", NULL};
    for (int i = 0; set[i]; i++)
        if (scenario_set(&sc, set[i], &e) < 0)
            abort();
    char key[160];
    snprintf(key, sizeof key, "fabric.topology_file=%s", path);
    if (scenario_set(&sc, key, &e) < 0 || scenario_validate(&sc, &e) < 0 ||
        scenario_resolve(&sc, &e) < 0)
        abort();
    struct arena a;
    struct topo t;
    arena_init(&a);
    if (topo_build(&t, &sc, &a, &e) < 0) {
        /* one clean line naming the file */
        if (!memchr(e.msg, '\0', sizeof e.msg) || !strstr(e.msg, path))
            abort();
        for (const unsigned char *p = (const unsigned char *)e.msg; *p; p++)
            if (*p < 0x20 || *p == 0x7f)
                abort();
    }
    arena_release(&a);
    return 0;
}
