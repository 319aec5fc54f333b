/*
 * tool_read.c — read: a text file with line numbers, paged by offset and
 * limit, read as a stream so a huge file costs only the lines shown.  The
 * stream stops at the scan-bytes limit: a line with no end (a text head
 * before a sparse hole of terabytes) or an offset far into a huge file
 * would otherwise hold the harness for as long as the file lasts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "tools/tools_int.h"

#define READ_CHUNK (64 * 1024)

struct rline {
	char buf[TOOLS_MAX_LINE + 1];
	size_t len;
	int cut;
};

static void line_add(struct rline *l, const char *s, size_t n)
{
	size_t room = TOOLS_MAX_LINE - l->len;
	if (n > room) {
		n = room;
		l->cut = 1;
	}
	memcpy(l->buf + l->len, s, n);
	l->len += n;
}

static int line_emit(struct tout *o, struct rline *l, uint64_t no)
{
	size_t n = l->len;
	if (n > 0 && l->buf[n - 1] == '\r')
		n--;
	/* A NUL past the binary probe: shown, not an end of the line. */
	char *vis = memchr(l->buf, 0, n) ? tools_nul_visible(l->buf, n) : NULL;
	int r = tout_printf(o, "%6llu\t%.*s%s\n", (unsigned long long)no, vis ? (int)strlen(vis) : (int)n,
			    vis ? vis : l->buf, l->cut ? " [... line cut]" : "");
	free(vis);
	l->len = 0;
	l->cut = 0;
	return r;
}

int tool_read_run(const struct tool_ctx *c, const cJSON *in, struct tool_result *out)
{
	const char *path = tin_str(in, "path");
	uint64_t first = tin_uint(in, "offset", 1), limit = tin_uint(in, "limit", TOOLS_READ_DEFAULT_LINES);
	char *err = NULL, probe[TOOLS_BINARY_PROBE];
	struct stat st;
	int fd = fsguard_open(c->guard, path, O_RDONLY | O_NONBLOCK | O_NOCTTY, POL_READ, NULL, &err);
	if (fd < 0)
		return tool_fail_own(out, err);
	if (first == 0)
		first = 1;
	if (limit == 0)
		limit = TOOLS_READ_DEFAULT_LINES;
	uint64_t last = first + limit - 1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return tool_fail(out, "cannot read '%s': %s", path, strerror(errno));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return tool_fail(out, "'%s' is a directory — use ls to list it", path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return tool_fail(out, "'%s' is not a regular file — read shows files only", path);
	}
	ssize_t pn = pread(fd, probe, sizeof(probe), 0);
	if (pn > 0 && memchr(probe, 0, (size_t)pn)) {
		close(fd);
		return tool_ok_own(out, xasprintf("'%s' is a binary file (%lld bytes); its content is not shown",
						 path, (long long)st.st_size));
	}
	if (pn == 0) {
		close(fd);
		return tool_ok_own(out, xasprintf("'%s' is empty (0 bytes)", path));
	}

	char *chunk = xmalloc(READ_CHUNK);
	struct rline *l = xcalloc(1, sizeof(*l));
	struct tout o;
	uint64_t no = 1, shown_last = 0, scanned = 0, max_scan = tlim_bytes(c);
	int more = 0, capped = 0, cancelled = 0, partial = 0, scan_cut = 0;
	tout_init(&o, TOOLS_MAX_OUTPUT);
	for (;;) {
		if (tool_stopped(c)) {
			cancelled = 1;
			break;
		}
		if (scanned >= max_scan) {
			/* cut only when something is left to read */
			char one;
			ssize_t k;
			while ((k = read(fd, &one, 1)) < 0 && errno == EINTR)
				;
			if (no > last)
				more = k > 0;	/* the page is whole */
			else
				scan_cut = k > 0;
			break;
		}
		uint64_t left = max_scan - scanned;
		ssize_t n = read(fd, chunk, left < READ_CHUNK ? (size_t)left : READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		scanned += (uint64_t)n;
		const char *p = chunk, *end = chunk + n;
		if (no > last || capped) {
			more = 1;
			break;
		}
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *se = nl ? nl : end;
			if (no >= first)
				line_add(l, p, (size_t)(se - p));
			partial = !nl;
			if (!nl)
				break;
			if (no >= first) {
				if (line_emit(&o, l, no) < 0) {
					capped = 1;
					more = 1;
					break;
				}
				shown_last = no;
			}
			no++;
			p = nl + 1;
			if (no > last) {
				more = p < end;
				break;
			}
		}
		if (capped || (no > last && more))
			break;
	}
	if (!cancelled && !capped && partial && no >= first && no <= last) {
		if (scan_cut)
			l->cut = 1;	/* the line goes on past the cap */
		if (line_emit(&o, l, no) < 0)
			capped = more = 1;
		else
			shown_last = no;
	}
	uint64_t total = no - (partial ? 0 : 1);	/* lines seen so far */
	close(fd);
	free(chunk);
	free(l);
	if (cancelled) {
		tout_release(&o);
		return tool_fail(out, "cancelled");
	}
	char *lim = tsize_words(max_scan);
	if (shown_last == 0 && scan_cut) {
		tout_release(&o);
		char *m = xasprintf("read stopped after %s of '%s', at line %llu, before line %llu — raise "
				    "--max-scan-bytes to read that far, or use bash (sed -n '%llu,%llup')", lim, path,
				    (unsigned long long)no, (unsigned long long)first, (unsigned long long)first,
				    (unsigned long long)last);
		free(lim);
		return tool_fail_own(out, m);
	}
	if (shown_last == 0) {
		free(lim);
		tout_release(&o);
		return tool_fail(out, "'%s' has %llu lines — offset %llu is past its end", path,
				 (unsigned long long)total, (unsigned long long)first);
	}
	if (more) {
		char *m = xasprintf("(showing lines %llu-%llu of '%s'%s; more follows — read again with offset=%llu)\n",
				    (unsigned long long)first, (unsigned long long)shown_last, path,
				    capped ? ", output cap of 256 KiB reached" : "",
				    (unsigned long long)shown_last + 1);
		tout_force(&o, m);
		free(m);
	}
	if (scan_cut) {
		/* the cap, not the limit, ended the page */
		char *m = partial ? xasprintf("(stopped after reading %s of '%s', in line %llu, which goes on: raise "
					      "--max-scan-bytes to read further, or use bash)\n", lim, path,
					      (unsigned long long)no)
				  : xasprintf("(stopped after reading %s of '%s': more follows — read again with "
					      "offset=%llu, or raise --max-scan-bytes)\n", lim, path,
					      (unsigned long long)shown_last + 1);
		tout_force(&o, m);
		free(m);
	}
	free(lim);
	return tool_ok_own(out, tout_detach(&o));
}
