/*
 * sse.c — the resumable SSE parser (see sse.h for the rules).
 *
 * State between two slices: the bytes of the line being read, the event
 * being built (type, joined data), whether the last byte was a CR that
 * ended a line (so a LF opening the next slice is its pair, not a blank
 * line), and how much of a leading BOM was matched.  Nothing else, so any
 * split of the stream gives the same events.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "agent/sse.h"
#include "util/util.h"

struct sbuf {
	char *p;
	size_t len, cap;
};

struct sse_parser {
	size_t max;
	sse_event_fn fn;
	sse_fast_fn fast;	/* NULL: every event goes through the lines */
	void *ctx;
	struct sbuf line;	/* the line being read, without its end */
	struct sbuf data;	/* data lines joined, each followed by '\n' */
	const char *pend;	/* the event's only data line so far, still in
				 * the caller's slice (not copied); never set
				 * outside sse_feed */
	size_t pend_len;
	struct sbuf event;	/* the event field's value */
	struct sbuf id;		/* the last event id */
	long retry;
	int have_data;		/* a data field was seen for this event */
	int after_cr;		/* the previous byte was a CR ending a line */
	int bom;		/* BOM bytes matched so far, -1 once past it */
	int failed;		/* sticky */
	char *fail_msg;
};

static const unsigned char bom_bytes[3] = { 0xef, 0xbb, 0xbf };

/* Append without a cap check (the caller checks); keeps a NUL after. */
static void sbuf_add(struct sbuf *b, const void *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		b->p = xrealloc(b->p, cap);
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sbuf_set(struct sbuf *b, const void *s, size_t n)
{
	b->len = 0;
	sbuf_add(b, s, n);
}

static void sbuf_release(struct sbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

struct sse_parser *sse_new(size_t max_event, sse_event_fn fn, void *ctx)
{
	struct sse_parser *p = xcalloc(1, sizeof(*p));
	p->max = max_event ? max_event : SSE_MAX_EVENT;
	p->fn = fn;
	p->ctx = ctx;
	p->retry = -1;
	sbuf_set(&p->id, "", 0);
	return p;
}

void sse_set_fast(struct sse_parser *p, sse_fast_fn fast)
{
	p->fast = fast;
}

void sse_reset(struct sse_parser *p)
{
	p->line.len = p->data.len = p->event.len = 0;
	sbuf_set(&p->id, "", 0);
	p->retry = -1;
	p->have_data = p->after_cr = p->bom = 0;
	p->failed = 0;
	free(p->fail_msg);
	p->fail_msg = NULL;
}

void sse_free(struct sse_parser *p)
{
	if (!p)
		return;
	sbuf_release(&p->line);
	sbuf_release(&p->data);
	sbuf_release(&p->event);
	sbuf_release(&p->id);
	free(p->fail_msg);
	free(p);
}

static int fail(struct sse_parser *p, char *msg, char **err)
{
	p->failed = 1;
	p->pend = NULL;
	p->pend_len = 0;
	p->fail_msg = msg;
	if (err)
		*err = xstrdup(msg);
	return -1;
}

/* Counted the same whatever the slices: a pending in-slice data line
 * counts with the '\n' it gets once copied into data. */
static size_t event_size(const struct sse_parser *p)
{
	return p->line.len + p->data.len + (p->pend ? p->pend_len + 1 : 0) + p->event.len;
}

/* Copy a pending in-slice data line into the data buffer. */
static void flush_pend(struct sse_parser *p)
{
	if (!p->pend)
		return;
	sbuf_add(&p->data, p->pend, p->pend_len);
	sbuf_add(&p->data, "\n", 1);
	p->pend = NULL;
	p->pend_len = 0;
}

static __attribute__((noinline, cold)) int fail_cap(struct sse_parser *p, char **err)
{
	fail(p, xasprintf("stream event is larger than the %zu-byte cap — the server sent an oversized event", p->max), err);
	return 1;
}

/* Would n more bytes of the current line take the event past the cap?
 * (Checked for every line: inline, the failure out of the way.) */
static inline int over_cap(struct sse_parser *p, size_t n, char **err)
{
	if (n > p->max || event_size(p) + n > p->max)
		return fail_cap(p, err);
	return 0;
}

static int dispatch(struct sse_parser *p)
{
	if (!p->have_data) {
		p->event.len = 0;
		return 0;
	}
	struct sse_event ev = {
		.event = p->event.len ? p->event.p : "message",
		.id = p->id.p,
		.retry_ms = p->retry,
	};
	if (p->pend) {
		/* One data line, still in the caller's slice: no copy. */
		ev.data = p->pend;
		ev.data_len = p->pend_len;
	} else {
		p->data.len--;		/* the '\n' after the last data line */
		p->data.p[p->data.len] = '\0';
		ev.data = p->data.p;
		ev.data_len = p->data.len;
	}
	int r = p->fn ? p->fn(p->ctx, &ev) : 0;
	p->pend = NULL;
	p->pend_len = 0;
	p->data.len = 0;
	p->event.len = 0;
	p->have_data = 0;
	return r;
}

static int is_field(const char *f, size_t n, const char *name)
{
	return strlen(name) == n && memcmp(f, name, n) == 0;
}

/* The colon ending the field name, or NULL: the two fields of nearly
 * every line are matched by their prefix, without a scan. */
static const char *field_end(const char *l, size_t n)
{
	if (n >= 5 && memcmp(l, "data:", 5) == 0)
		return l + 4;
	if (n >= 6 && memcmp(l, "event:", 6) == 0)
		return l + 5;
	return memchr(l, ':', n);
}

/* One whole line, l[0..n): in the input slice (in_slice) or in p->line. */
static int process_line(struct sse_parser *p, const char *l, size_t n, int in_slice)
{
	if (n == 0)
		return dispatch(p);
	if (l[0] == ':')
		return 0;
	const char *colon = field_end(l, n);
	size_t flen = colon ? (size_t)(colon - l) : n;
	const char *v = colon ? colon + 1 : l + n;
	size_t vlen = (size_t)(l + n - v);
	if (vlen && *v == ' ') {
		v++;
		vlen--;
	}
	if (is_field(l, flen, "data")) {
		if (!p->have_data && in_slice) {
			p->pend = v;
			p->pend_len = vlen;
		} else {
			flush_pend(p);
			sbuf_add(&p->data, v, vlen);
			sbuf_add(&p->data, "\n", 1);
		}
		p->have_data = 1;
	} else if (is_field(l, flen, "event")) {
		sbuf_set(&p->event, v, vlen);
	} else if (is_field(l, flen, "id")) {
		if (!memchr(v, '\0', vlen))
			sbuf_set(&p->id, v, vlen);
	} else if (is_field(l, flen, "retry")) {
		long r = 0;
		size_t i;
		for (i = 0; i < vlen && v[i] >= '0' && v[i] <= '9'; i++)
			r = r > (LONG_MAX - 9) / 10 ? LONG_MAX : r * 10 + (v[i] - '0');
		if (vlen && i == vlen)
			p->retry = r;
	}
	return 0;
}

/* The handler returned r, non-zero: the parser fails for good. */
static int stopped(struct sse_parser *p, int r)
{
	p->failed = 1;
	p->fail_msg = xstrdup("the stream was stopped by its event handler");
	p->pend = NULL;
	p->pend_len = 0;
	return r;
}

int sse_feed(struct sse_parser *p, const void *buf, size_t n, char **err)
{
	const unsigned char *s = buf, *end = s + n;
	/* The next LF at or after s, found with memchr and kept until
	 * passed; a CR is looked for only in the line the LF ends (or the
	 * rest of the slice when there is none), so a slice of LF lines is
	 * not also scanned to its end for a CR it lacks. */
	const unsigned char *nl = NULL;
	int nl_known = 0;
	if (p->failed) {
		if (err)
			*err = xstrdup(p->fail_msg);
		return -1;
	}
	while (s < end) {
		if (p->bom >= 0) {
			if (*s == bom_bytes[p->bom]) {
				s++;
				if (++p->bom == 3)
					p->bom = -1;
				continue;
			}
			/* Not a BOM after all: the matched bytes are line text. */
			size_t matched = (size_t)p->bom;
			p->bom = -1;
			if (matched) {
				if (over_cap(p, matched, err))
					return -1;
				sbuf_add(&p->line, bom_bytes, matched);
			}
		}
		if (p->after_cr) {
			p->after_cr = 0;
			if (*s == '\n') {
				s++;
				continue;
			}
		}
		if (p->fast && *s == 'e' && p->line.len == 0 && !p->have_data && p->event.len == 0) {
			/* An event's first line: whole events of the common
			 * shape may be taken at once (see sse.h). */
			size_t took = p->fast(p->ctx, (const char *)s, (size_t)(end - s), p->max);
			if (took) {
				s += took;
				continue;
			}
		}
		if (*s == '\n' && p->line.len == 0) {
			/* A blank line, the end of nearly every event: no scan. */
			int r = dispatch(p);
			s++;
			if (r)
				return stopped(p, r);
			continue;
		}
		if (!nl_known || (nl && nl < s)) {
			nl = memchr(s, '\n', (size_t)(end - s));
			nl_known = 1;
		}
		const unsigned char *e = nl ? nl : end;
		const unsigned char *cr = memchr(s, '\r', (size_t)(e - s));
		if (cr)
			e = cr;
		size_t len = (size_t)(e - s);
		if (len && over_cap(p, len, err))
			return -1;
		if (e == end) {
			flush_pend(p);		/* the slice goes away: keep a copy */
			sbuf_add(&p->line, s, len);	/* the rest of the line comes later */
			break;
		}
		p->after_cr = (*e == '\r');
		int r;
		if (p->line.len == 0) {
			r = process_line(p, (const char *)s, len, 1);	/* whole in this slice: no copy */
		} else {
			sbuf_add(&p->line, s, len);
			size_t whole = p->line.len;
			p->line.len = 0;
			r = process_line(p, p->line.p, whole, 0);
		}
		s = e + 1;
		if (r)
			return stopped(p, r);
	}
	flush_pend(p);
	return 0;
}

int sse_finish(struct sse_parser *p)
{
	int cut = p->line.len > 0 || p->have_data || p->event.len > 0 || p->bom > 0;
	p->line.len = p->data.len = p->event.len = 0;
	p->have_data = 0;
	if (p->bom > 0)
		p->bom = -1;
	return cut;
}
