/* The output-file helper: a file is replaced whole or not at all. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/core/outfile.h"
#include "harness.h"

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int holds(const char *path, const char *text)
{
    char buf[256] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return !strcmp(buf, text);
}

/* Entries of dir besides . and .. */
static int entries(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));)
        n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static int fail_half(FILE *f, void *ud, struct err *e)
{
    (void)ud;
    fputs("half", f);
    return err_set(e, "encoder failed");
}

static void test_outfile_commit_abort(void)
{
    char dir[] = "/tmp/ckptnet-test-ofile-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128], link[128];
    snprintf(path, sizeof path, "%s/r.json", dir);
    put(path, "old\n");
    chmod(path, 0640);
    struct ofile o;
    struct err e = {{0}};
    /* abort: the earlier file as it was, no temporary left */
    CHECK(ofile_open(&o, path, &e) != NULL);
    fputs("half", o.f);
    CHECK(entries(dir) == 2); /* the file and its temporary */
    ofile_abort(&o);
    CHECK(holds(path, "old\n"));
    CHECK(entries(dir) == 1);
    /* commit: the new content, the old mode */
    CHECK(ofile_open(&o, path, &e) != NULL);
    fputs("new\n", o.f);
    CHECK(holds(path, "old\n")); /* not yet in place */
    CHECK(ofile_commit(&o, &e) == 0);
    CHECK(holds(path, "new\n"));
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640);
    CHECK(entries(dir) == 1);
    /* a symbolic link: its target replaced, the link kept */
    snprintf(link, sizeof link, "%s/l.json", dir);
    CHECK(symlink(path, link) == 0);
    CHECK(ofile_write(link, fail_half, NULL, &e) < 0 && !strcmp(e.msg, "encoder failed"));
    CHECK(holds(path, "new\n") && entries(dir) == 2);
    CHECK(ofile_open(&o, link, &e) != NULL);
    fputs("via link\n", o.f);
    CHECK(ofile_commit(&o, &e) == 0);
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(holds(path, "via link\n"));
    /* a dangling link and a directory are refused, checked and opened */
    unlink(link);
    snprintf(path, sizeof path, "%s/none/x", dir);
    CHECK(symlink(path, link) == 0);
    CHECK(ofile_check(link, &e) < 0 && strstr(e.msg, "dangling symbolic link"));
    CHECK(ofile_open(&o, link, &e) == NULL && strstr(e.msg, "dangling"));
    CHECK(ofile_check(dir, &e) < 0 && strstr(e.msg, "is a directory"));
    CHECK(ofile_check(path, &e) < 0 && strstr(e.msg, "no directory"));
    CHECK(ofile_check("-", &e) == 0 && ofile_check(NULL, &e) == 0);
    /* /dev/full: written in place (never replaced), its error reported */
    CHECK(ofile_open(&o, "/dev/full", &e) != NULL);
    fputs("x\n", o.f);
    CHECK(ofile_commit(&o, &e) < 0 && strstr(e.msg, "No space left on device"));
    struct stat dev;
    CHECK(stat("/dev/full", &dev) == 0 && S_ISCHR(dev.st_mode));
    unlink(link);
    snprintf(path, sizeof path, "%s/r.json", dir);
    unlink(path);
    rmdir(dir);
}

SUITE(suite_outfile) = {
    {"outfile_commit_abort", test_outfile_commit_abort},
    {NULL, NULL},
};
