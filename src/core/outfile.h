/* Output files written whole or not at all: every writer opens a temporary
 * file beside the destination (same directory, so the same file system),
 * writes it, and renames it over the destination only when every byte was
 * written. A full disk, a failed write or a killed process leaves the
 * destination as it was (an earlier good file stays) and at most a hidden
 * ".NAME.tmp-*" file beside it; no fsync (a crash of the machine itself may
 * still lose the newest file, never leave a torn one after rename).
 * "-" means stdout: written in place, its errors reported the same way. */
#ifndef CKPT_OUTFILE_H
#define CKPT_OUTFILE_H

#include <stdio.h>

#include "err.h"

struct ofile {
    FILE *f;
    char path[4096]; /* the destination (a symbolic link's target) */
    char tmp[4096];  /* the temporary beside it; "" for stdout */
    char shown[512]; /* the name as the user gave it, for messages */
};

/* Open a temporary for path ("-": stdout) and return its stream, or NULL
 * with e = "cannot write 'path': why". A symbolic link is followed: its
 * target is replaced, the link stays; an existing file's mode is kept. */
FILE *ofile_open(struct ofile *o, const char *path, struct err *e);
/* Check the stream, close it and rename the temporary into place. On any
 * error the temporary is removed, the destination left alone, and e says
 * "cannot write 'path': why". Returns 0 or -1. */
int ofile_commit(struct ofile *o, struct err *e);
/* Give up: close and remove the temporary (the destination is untouched). */
void ofile_abort(struct ofile *o);
/* open, fn(stream, ud, e), commit (or abort when fn returns < 0). */
int ofile_write(const char *path, int (*fn)(FILE *f, void *ud, struct err *e), void *ud,
                struct err *e);

/* Before a run: could path be written? 0, or -1 with e = why (no such
 * directory, a directory, a dangling symbolic link, not writable). "-" and
 * NULL pass. */
int ofile_check(const char *path, struct err *e);
/* The same for name inside dir (an existing directory). */
int ofile_check_in(const char *dir, const char *name, struct err *e);
/* dir can hold outputs: an existing writable directory, or one that mkdir
 * (with its parent existing) creates now. 0 or -1 with e set. */
int ofile_check_dir(const char *dir, struct err *e);
/* The destination path would write to: path itself, or the target of the
 * symbolic link path names. 0, or -1 with e set (dangling, too long). */
int ofile_dest(const char *path, char *out, size_t len, struct err *e);

#endif
