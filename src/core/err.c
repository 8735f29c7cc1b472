#include "err.h"

#include <stdarg.h>
#include <stdio.h>

/* The escape of the control character at s (1 or 2 bytes, *n set), or NULL
 * for an ordinary byte. */
static const char *escape_of(const unsigned char *s, size_t *n, char tmp[16])
{
    unsigned c = s[0];
    *n = 1;
    switch (c) {
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: break;
    }
    if (c < 0x20 || c == 0x7f) {
        snprintf(tmp, 16, "\\x%02x", c);
        return tmp;
    }
    if (c == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f) { /* C1, e.g. CSI */
        *n = 2;
        snprintf(tmp, 16, "\\xc2\\x%02x", (unsigned)s[1]);
        return tmp;
    }
    return NULL;
}

char *err_escape(char *buf, size_t len, const char *s)
{
    size_t o = 0;
    if (!len)
        return buf;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        char tmp[16];
        size_t n;
        const char *x = escape_of(p, &n, tmp);
        size_t xl = x ? 0 : 1;
        if (x)
            for (xl = 0; x[xl]; xl++)
                ;
        if (o + xl >= len)
            break;
        for (size_t i = 0; i < xl; i++)
            buf[o++] = x ? x[i] : (char)*p;
        p += n;
    }
    buf[o] = '\0';
    return buf;
}

int err_set(struct err *e, const char *fmt, ...)
{
    if (!e)
        return -1;
    char raw[sizeof e->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    err_escape(e->msg, sizeof e->msg, raw);
    return -1;
}
