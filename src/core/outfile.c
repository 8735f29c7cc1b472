/* Output files written to a temporary beside them and renamed into place
 * (outfile.h). */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"

/* The directory part of path into dir ("." when none). */
static void dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else
        snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

int ofile_dest(const char *path, char *out, size_t len, struct err *e)
{
    struct stat st;
    if (lstat(path, &st) < 0 || !S_ISLNK(st.st_mode)) {
        if ((size_t)snprintf(out, len, "%s", path) >= len)
            return err_set(e, "cannot write '%s': the path is too long", path);
        return 0;
    }
    char *real = realpath(path, NULL);
    if (!real) {
        char to[512];
        ssize_t n = readlink(path, to, sizeof to - 1);
        to[n > 0 ? n : 0] = '\0';
        return err_set(e, "cannot write '%s': a dangling symbolic link (to '%s')", path, to);
    }
    int too_long = (size_t)snprintf(out, len, "%s", real) >= len;
    free(real);
    return too_long ? err_set(e, "cannot write '%s': the path is too long", path) : 0;
}

/* Exists and is neither a regular file nor a directory (a terminal,
 * /dev/null, a pipe): written in place, never replaced. */
static int is_special(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

FILE *ofile_open(struct ofile *o, const char *path, struct err *e)
{
    memset(o, 0, sizeof *o);
    snprintf(o->shown, sizeof o->shown, "%s", path);
    if (!strcmp(path, "-")) {
        o->f = stdout;
        return o->f;
    }
    if (is_special(path)) {
        o->f = fopen(path, "w");
        if (!o->f)
            err_set(e, "cannot write '%s': %s", path, strerror(errno));
        return o->f;
    }
    if (ofile_dest(path, o->path, sizeof o->path, e) < 0)
        return NULL;
    struct stat st;
    int exists = stat(o->path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        err_set(e, "cannot write '%s': it is a directory", path);
        return NULL;
    }
    char dir[4096];
    dir_of(o->path, dir, sizeof dir);
    const char *slash = strrchr(o->path, '/'), *base = slash ? slash + 1 : o->path;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int fd = -1;
    for (unsigned try = 0; fd < 0 && try < 64; try++) {
        /* unique enough with O_EXCL: pid, clock, this struct's address */
        unsigned long tag = (unsigned long)ts.tv_nsec ^ ((unsigned long)(uintptr_t)o >> 4) ^
                            ((unsigned long)try << 24);
        if ((size_t)snprintf(o->tmp, sizeof o->tmp, "%s/.%.180s.tmp-%ld-%lx", dir, base,
                             (long)getpid(), tag) >= sizeof o->tmp) {
            err_set(e, "cannot write '%s': the path is too long", path);
            o->tmp[0] = '\0';
            return NULL;
        }
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        err_set(e, "cannot write '%s': %s", path, strerror(errno));
        o->tmp[0] = '\0';
        return NULL;
    }
    if (exists)
        (void)fchmod(fd, st.st_mode & 07777); /* as the file it replaces */
    o->f = fdopen(fd, "w");
    if (!o->f) {
        err_set(e, "cannot write '%s': %s", path, strerror(errno));
        close(fd);
        unlink(o->tmp);
        o->tmp[0] = '\0';
    }
    return o->f;
}

int ofile_commit(struct ofile *o, struct err *e)
{
    if (!o->f)
        return err_set(e, "cannot write '%s'", o->shown);
    FILE *f = o->f;
    o->f = NULL;
    int bad = 0;
    if (fflush(f) != 0)
        bad = errno ? errno : EIO;
    else if (ferror(f))
        bad = errno ? errno : EIO; /* an earlier write failed: its errno */
    if (f != stdout && fclose(f) != 0 && !bad)
        bad = errno ? errno : EIO;
    if (!bad && o->tmp[0] && rename(o->tmp, o->path) < 0)
        bad = errno ? errno : EIO;
    if (bad && o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = '\0';
    if (!bad)
        return 0;
    if (f == stdout)
        return err_set(e, "cannot write to standard output: %s", strerror(bad));
    return err_set(e, "cannot write '%s': %s", o->shown, strerror(bad));
}

void ofile_abort(struct ofile *o)
{
    if (o->f && o->f != stdout)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = '\0';
}

int ofile_write(const char *path, int (*fn)(FILE *f, void *ud, struct err *e), void *ud,
                struct err *e)
{
    struct ofile o;
    if (!ofile_open(&o, path, e))
        return -1;
    if (fn(o.f, ud, e) < 0) {
        ofile_abort(&o);
        return -1;
    }
    return ofile_commit(&o, e);
}

int ofile_check(const char *path, struct err *e)
{
    if (!path || !strcmp(path, "-"))
        return 0;
    if (!*path)
        return err_set(e, "empty file name");
    if (is_special(path))
        return access(path, W_OK) < 0 ? err_set(e, "cannot write '%s': %s", path,
                                                strerror(errno))
                                      : 0;
    char dest[4096], dir[4096];
    if (ofile_dest(path, dest, sizeof dest, e) < 0)
        return -1;
    struct stat st;
    if (stat(dest, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return err_set(e, "'%s' is a directory", path);
        if (access(dest, W_OK) < 0)
            return err_set(e, "cannot write '%s': %s", path, strerror(errno));
    }
    /* the temporary goes beside it: its directory must take a new file */
    dir_of(dest, dir, sizeof dir);
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
        return err_set(e, "cannot write '%s': no directory '%s'", path, dir);
    if (access(dir, W_OK | X_OK) < 0)
        return err_set(e, "cannot write '%s': %s", path, strerror(errno));
    return 0;
}

int ofile_check_in(const char *dir, const char *name, struct err *e)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return err_set(e, "cannot write '%s/%s': the path is too long", dir, name);
    return ofile_check(path, e);
}

int ofile_check_dir(const char *dir, struct err *e)
{
    struct stat st;
    if (!*dir)
        return err_set(e, "empty directory name");
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return err_set(e, "'%s' is not a directory", dir);
        if (access(dir, W_OK | X_OK) < 0)
            return err_set(e, "cannot write into '%s': %s", dir, strerror(errno));
        return 0;
    }
    if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)) {
        char to[512];
        ssize_t n = readlink(dir, to, sizeof to - 1);
        to[n > 0 ? n : 0] = '\0';
        return err_set(e, "cannot create directory '%s': a dangling symbolic link (to '%s')",
                       dir, to);
    }
    if (mkdir(dir, 0777) < 0)
        return err_set(e, "cannot create directory '%s': %s", dir, strerror(errno));
    return 0;
}
