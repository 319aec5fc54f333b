#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "util/log.h"
#include "util/utf8.h"

static enum log_level level = LOG_INFO;
static int holding;
/* What log_hold keeps: a record quotes the model's command or path (up
 * to 8 MiB, four bytes for each escaped one, twice for a bash call), so a
 * session of them would otherwise hold hundreds of MiB, all printed at
 * once when the screen ends.  Past this, records are counted, not kept. */
#define LOG_MAX_HELD (4u << 20)
/* ...and what else was written to stderr meanwhile, shown up to this. */
#define LOG_MAX_HELD_OTHER (1u << 20)
static size_t held_bytes;
static unsigned long long dropped, dropped_bytes;
/* While held, fd 2 is an anonymous file (hold_fd) and the real stderr is
 * kept as hold_saved: plain ints, so a fatal signal's handler can give it
 * back (log_hold_crash). */
static volatile int hold_fd = -1, hold_saved = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int (*divert_fn)(void *ctx, const char *line, size_t n);
static void *divert_ctx;

void log_init(void)
{
	const char *v = getenv("SANDBX_LOG");
	if (!v || !*v || strcmp(v, "info") == 0)
		level = LOG_INFO;
	else if (strcmp(v, "off") == 0)
		level = LOG_OFF;
	else if (strcmp(v, "debug") == 0)
		level = LOG_DEBUG;
	else
		sbx_err("unknown SANDBX_LOG value '%s' — use off, info or debug; using info", v);
}

void log_divert(int (*fn)(void *ctx, const char *line, size_t n), void *ctx)
{
	divert_fn = fn;
	divert_ctx = ctx;
}

enum log_level log_level(void) { return level; }
void log_set_level(enum log_level l) { level = l; }


/* The character of v at i (v n bytes long): its length in bytes, and
 * *esc set when a record must not carry it as it is: a C0 control, DEL,
 * a C1 or bidi control, a character that draws nothing, a byte that is
 * not UTF-8 (one byte long), and what the approval question shows
 * escaped in a name (struct utf8_name_rules: a blank that is not one, a
 * combining mark drawn on an ASCII character, a letter of Greek,
 * Cyrillic or Armenian in a word that has ASCII letters).  One that
 * draws nothing would hide in the record what ran: the model's path "x"
 * and 600 tag characters read as "x"; a no-break space makes the quoted
 * "a\u00a0b" read as two words, and ends a path unseen; "pas\u0338swd"
 * strikes an 's' through; "/etc/p\u0430sswd" (a Cyrillic a) reads as
 * the password file.  r runs over v from its start (a value's start is
 * after its '=' or '"', ASCII); an escape \xNN ends in ASCII, so each
 * mark of a run after an ASCII character is escaped, not drawn on the
 * escape's digit. */
static size_t char_at(const unsigned char *v, size_t n, size_t i, int *esc, struct utf8_name_rules *r)
{
	uint32_t cp = v[i];
	int l = v[i] < 0x80 ? 1 : utf8_decode(v + i, n - i, &cp);
	int named = utf8_name_shown(r, v, n, i, l > 0 ? cp : 0xfffd);
	if (l <= 1) {
		*esc = l <= 0 || v[i] < 0x20 || v[i] == 0x7f;
		utf8_name_drawn(r, 1);
		return 1;
	}
	*esc = named || utf8_is_unsafe(cp) || utf8_is_invisible(cp);
	utf8_name_drawn(r, *esc);
	return (size_t)l;
}

static void append_value(char **out, size_t *len, size_t *cap, const char *v)
{
	const unsigned char *u = (const unsigned char *)v;
	size_t n = strlen(v);
	int quote = n == 0, esc;
	struct utf8_name_rules r;
	utf8_name_rules_init(&r, 0, (const char *)u, n);
	for (size_t i = 0, l; i < n && !quote; i += l) {
		l = char_at(u, n, i, &esc, &r);
		quote = esc || u[i] == ' ' || u[i] == '"' || u[i] == '=' || u[i] == '\\';
	}
	size_t need = n * 4 + 3;
	if (*len + need + 1 > *cap) {
		*cap = (*len + need + 1) * 2;
		*out = xrealloc(*out, *cap);
	}
	char *o = *out + *len;
	if (quote)
		*o++ = '"';
	utf8_name_rules_init(&r, 0, (const char *)u, n);
	for (size_t i = 0; i < n;) {
		size_t l = char_at(u, n, i, &esc, &r);
		if (quote && esc) {
			for (size_t k = 0; k < l; k++)
				o += sprintf(o, "\\x%02x", u[i + k]);
		} else {
			if (quote && (u[i] == '"' || u[i] == '\\'))
				*o++ = '\\';
			memcpy(o, u + i, l);
			o += l;
		}
		i += l;
	}
	if (quote)
		*o++ = '"';
	*o = '\0';
	*len = (size_t)(o - *out);
}

/*
 * An error quotes names it was given or found (a grant, a symlink's
 * target, a program): each character a record would escape is written
 * \xNN here too, so the message stays one line (a name cannot forge an
 * audit record after it) and no escape sequence reaches the terminal.
 *
 * The message takes no memory of the heap: it is made in buffers on the
 * stack and leaves in one write, so a shortage of memory, which it may be
 * reporting, cannot lose it (it went through vasprintf before, and a
 * failed one wrote nothing).  What the escaping and the writing ask for
 * is made once in the process, at its first need, and kept: the C.UTF-8
 * locale object that tells a mark (utf8_is_combining) and, on a terminal,
 * the terminal's charset (utf8_term_legacy).  When either cannot be made,
 * more is escaped (the marks' fallback) or the text goes out as UTF-8.
 * While a relay runs on fd 2 (log_divert) the line is handed to it, which
 * copies it to the heap; when that fails, it is written here as ever.
 */
void sbx_err(const char *fmt, ...)
{
	static const char head[] = "sandbx: ";
	char buf[2048], line[sizeof(head) + sizeof(buf) * 4 + 1];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	const unsigned char *u = (const unsigned char *)buf;
	size_t n = strlen(buf), w = sizeof(head) - 1;
	int ascii = 1;
	memcpy(line, head, w);
	struct utf8_name_rules r;
	utf8_name_rules_init(&r, 0, (const char *)u, n);
	for (size_t i = 0, l; i < n; i += l) {
		int esc;
		l = char_at(u, n, i, &esc, &r);
		for (size_t k = 0; k < l; k++) {
			if (esc) {
				w += (size_t)snprintf(line + w, 5, "\\x%02x", u[i + k]);
			} else {
				line[w++] = (char)u[i + k];
				ascii &= u[i + k] < 0x80;
			}
		}
	}
	line[w++] = '\n';
	if (divert_fn && divert_fn(divert_ctx, line, w) == 0)
		return;
	/* on a terminal that is not UTF-8, in its charset (utf8_term_printf's
	 * way, without its copy) */
	if (!ascii && utf8_term_legacy(STDERR_FILENO))
		utf8_term_write(stderr, line, w, 1);
	else
		fwrite(line, 1, w, stderr);
	fflush(stderr);
}

char *audit_format(const char *event, const char *const *kv, size_t nkv)
{
	size_t cap = 256, len = 0;
	char *out = xmalloc(cap);
	len = (size_t)snprintf(out, cap, "sandbx audit %s", event);
	for (size_t i = 0; i + 1 < nkv; i += 2) {
		size_t klen = strlen(kv[i]);
		if (len + klen + 3 > cap) {
			cap = (len + klen + 3) * 2;
			out = xrealloc(out, cap);
		}
		out[len++] = ' ';
		memcpy(out + len, kv[i], klen);
		len += klen;
		out[len++] = '=';
		out[len] = '\0';
		append_value(&out, &len, &cap, kv[i + 1] ? kv[i + 1] : "");
	}
	return out;
}

/* A record of n bytes to the divert, its NUL its newline meanwhile: 0
 * when taken. */
static int record_diverted(char *line, size_t n)
{
	if (!divert_fn)
		return -1;
	line[n] = '\n';
	int r = divert_fn(divert_ctx, line, n + 1);
	line[n] = '\0';
	return r;
}

static __thread int muted;

void audit_mute(int on)
{
	muted = on;
}

void audit(enum log_level lvl, const char *event, ...)
{
	const char *kv[64];
	size_t n = 0;
	va_list ap;
	if (lvl > level || level == LOG_OFF || muted)
		return;
	va_start(ap, event);
	for (;;) {
		const char *k = va_arg(ap, const char *);
		if (!k || n + 2 > SBX_ARRAY_LEN(kv))
			break;
		kv[n++] = k;
		kv[n++] = va_arg(ap, const char *);
	}
	va_end(ap);
	char *line = audit_format(event, kv, n);
	pthread_mutex_lock(&lock);
	size_t ln = strlen(line) + 1;
	if (holding && held_bytes + ln > LOG_MAX_HELD) {
		dropped++;
		dropped_bytes += ln;
	} else if (record_diverted(line, ln - 1) != 0) {
		held_bytes += holding ? ln : 0;
		utf8_term_printf(stderr, "%s\n", line);
		fflush(stderr);
	}
	free(line);
	pthread_mutex_unlock(&lock);
}

/* Copy up to cap bytes of fd from offset 0 to fd 2; the bytes left.
 * Async-signal-safe unless conv: then fd 2 is a terminal that is not
 * UTF-8, and the bytes go through utf8_term_write (util/utf8.h). */
static size_t copy_held(int fd, size_t cap, int conv)
{
	char buf[4096 + 4];
	size_t nc = 0;		/* conv: the start of a sequence the next read completes */
	off_t off = 0;
	ssize_t r;
	while ((r = pread(fd, buf + nc, sizeof(buf) - 4, off)) > 0 || (r < 0 && errno == EINTR)) {
		if (r < 0)
			continue;
		size_t n = (size_t)r;
		if ((size_t)off + n > cap)
			n = cap - (size_t)off;
		if (conv) {
			size_t used = utf8_term_write(stderr, buf, nc + n, 0);
			memmove(buf, buf + used, nc + n - used);
			nc = nc + n - used;
		}
		for (size_t w = 0; !conv && w < n;) {
			ssize_t k = write(2, buf + w, n - w);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				return 0;
			w += (size_t)k;
		}
		off += (off_t)n;
		if ((size_t)off == cap)
			break;
	}
	if (conv) {
		utf8_term_write(stderr, buf, nc, 1);
		fflush(stderr);
	}
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_size > off ? (size_t)(st.st_size - off) : 0;
}

void log_hold(int on)
{
	pthread_mutex_lock(&lock);
	if (on && !holding) {
		/* fd 2 goes to an anonymous file: records and anything else
		 * written there cannot tear the screen, and a crash can still
		 * print them (log_hold_crash) */
		int fd = memfd_create("sandbx-stderr", MFD_CLOEXEC);
		int saved = fd < 0 ? -1 : fcntl(2, F_DUPFD_CLOEXEC, 3);
		fflush(stderr);
		if (saved >= 0 && dup2(fd, 2) == 2) {
			hold_fd = fd;
			hold_saved = saved;
			holding = 1;
		} else {	/* printed as they come, which may tear the screen */
			if (saved >= 0)
				close(saved);
			if (fd >= 0)
				close(fd);
		}
	} else if (!on && holding) {
		int fd = hold_fd, saved = hold_saved;
		size_t left = 0;
		fflush(stderr);
		hold_saved = -1;	/* before fd 2 changes: a crash now has nothing to give back */
		if (saved >= 0) {	/* else log_hold_crash gave it back, and what was held */
			dup2(saved, 2);
			close(saved);
			left = copy_held(fd, held_bytes + LOG_MAX_HELD_OTHER, utf8_term_legacy(2));
		}
		hold_fd = -1;
		close(fd);
		if (left)
			utf8_term_printf(stderr, "sandbx: %zu more bytes written to stderr while the screen was up are not shown\n",
				left);
		if (dropped)
			utf8_term_printf(stderr, "sandbx: %llu more audit record%s (%llu bytes) came while the screen was up, "
				"past the %u MiB kept meanwhile, and %s not shown — the transcript above says what each "
				"tool call did; to keep every record, redirect stderr to a file (2>audit.log), which "
				"holds none back\n", dropped, dropped == 1 ? "" : "s", dropped_bytes, LOG_MAX_HELD >> 20,
				dropped == 1 ? "is" : "are");
		fflush(stderr);
		holding = 0;
		held_bytes = 0;
		dropped = dropped_bytes = 0;
	}
	pthread_mutex_unlock(&lock);
}

void log_hold_crash(void)
{
	int saved = hold_saved, fd = hold_fd;
	if (saved < 0 || fd < 0)
		return;
	hold_saved = -1;
	dup2(saved, 2);
	copy_held(fd, LOG_MAX_HELD + LOG_MAX_HELD_OTHER, 0);
}
