/* test_sse.c — the resumable SSE parser: every fixture gives the same
 * events whole, byte by byte, at seeded random splits and split between
 * CR and LF; field rules; the sticky cap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "agent/sse.h"
#include "sse_fixtures.h"

/* Events serialised into one string, to compare runs. */
struct rec {
	char *s;
	size_t len, cap;
	int n;
	int stop_at;		/* return 7 from the callback at this event (1-based), 0 never */
};

static void rec_add(struct rec *r, const char *s, size_t n)
{
	if (r->len + n + 1 > r->cap) {
		r->cap = (r->len + n + 1) * 2;
		r->s = xrealloc(r->s, r->cap);
	}
	memcpy(r->s + r->len, s, n);
	r->len += n;
	r->s[r->len] = '\0';
}

static int on_event(void *ctx, const struct sse_event *ev)
{
	struct rec *r = ctx;
	char head[128];
	r->n++;
	rec_add(r, "E=", 2);
	rec_add(r, ev->event, strlen(ev->event));
	snprintf(head, sizeof(head), "|I=%s|R=%ld|D(%zu)=", ev->id, ev->retry_ms, ev->data_len);
	rec_add(r, head, strlen(head));
	rec_add(r, ev->data, ev->data_len);
	rec_add(r, "\n", 1);
	return r->stop_at && r->n == r->stop_at ? 7 : 0;
}

struct feeder {
	struct sse_parser *p;
};

static int feed_cb(void *ctx, const char *s, size_t n)
{
	struct feeder *f = ctx;
	char *err = NULL;
	/* A fresh, exact copy freed at once: under ASan, a parser that kept a
	 * pointer into a slice, or read past one, is caught. */
	char *copy = xmalloc(n);
	memcpy(copy, s, n);
	int r = sse_feed(f->p, copy, n, &err);
	memset(copy, 'Z', n);
	free(copy);
	free(err);
	return r;
}

static char *parse_split(const char *buf, size_t len, enum fx_split how, unsigned seed, int *nev, int *cut)
{
	struct rec r = { 0 };
	struct feeder f = { sse_new(0, on_event, &r) };
	assert_int_equal(fx_slices(buf, len, how, seed, feed_cb, &f), 0);
	*cut = sse_finish(f.p);
	sse_free(f.p);
	*nev = r.n;
	if (!r.s)
		r.s = xstrdup("");
	return r.s;
}

static void test_sse_fixtures_every_split(void **state)
{
	struct strv names = fx_list();
	assert_true(names.n >= 10);
	for (size_t i = 0; i < names.n; i++) {
		size_t len;
		char *buf = fx_read(names.v[i], &len);
		assert_non_null(buf);
		int n0, cut0;
		char *whole = parse_split(buf, len, FX_WHOLE, 0, &n0, &cut0);
		assert_true(n0 >= 3);
		assert_int_equal(cut0, 0);
		struct {
			enum fx_split how;
			unsigned seed;
		} runs[] = { { FX_BYTES, 0 }, { FX_CRLF, 0 }, { FX_RANDOM, 1 }, { FX_RANDOM, 7 },
			     { FX_RANDOM, 1234 }, { FX_RANDOM, 99991 }, { FX_RANDOM, 0xdeadbeef } };
		for (size_t k = 0; k < SBX_ARRAY_LEN(runs); k++) {
			int n, cut;
			char *got = parse_split(buf, len, runs[k].how, runs[k].seed, &n, &cut);
			if (strcmp(got, whole) != 0)
				fail_msg("%s: split %d seed %u gave other events:\n%s\n---\n%s", names.v[i],
					 (int)runs[k].how, runs[k].seed, got, whole);
			assert_int_equal(n, n0);
			assert_int_equal(cut, 0);
			free(got);
		}
		free(whole);
		free(buf);
	}
	strv_free(&names);
}

static void test_sse_line_ends_equivalent(void **state)
{
	const char *files[] = { "text.sse", "text_crlf.sse", "text_cr.sse" };
	char *first = NULL;
	for (size_t i = 0; i < SBX_ARRAY_LEN(files); i++) {
		size_t len;
		char *buf = fx_read(files[i], &len);
		assert_non_null(buf);
		for (int how = FX_WHOLE; how <= FX_CRLF; how++) {
			int n, cut;
			char *got = parse_split(buf, len, (enum fx_split)how, 42, &n, &cut);
			assert_int_equal(n, 9);
			if (!first)
				first = xstrdup(got);
			assert_string_equal(got, first);
			free(got);
		}
		free(buf);
	}
	free(first);
}

static char *parse_str(const char *s, int *n)
{
	int cut;
	return parse_split(s, strlen(s), FX_WHOLE, 0, n, &cut);
}

static void test_sse_field_rules(void **state)
{
	int n;
	char *got = parse_str("\xef\xbb\xbf: comment\n"
			      "data:no space\n"
			      "data:  two spaces\n"
			      "\n"
			      "event: named\n"
			      "id: 7\n"
			      "retry: 1500\n"
			      "retry: 12x\n"
			      "unknown: x\n"
			      "data\n"
			      "data: last\n"
			      "\n"
			      "event: nodata\n"
			      "\n"
			      "id: a\0b\n"
			      "data: after\n\n", &n);
	assert_int_equal(n, 2);
	assert_string_equal(got, "E=message|I=|R=-1|D(20)=no space\n two spaces\n"
				 "E=named|I=7|R=1500|D(5)=\nlast\n");
	free(got);

	/* Names that only start like the common fields are other fields. */
	got = parse_str("datax: no\n"
			"eventy: no\n"
			"data: yes\n"
			"event\n"
			"\n", &n);
	assert_int_equal(n, 1);
	assert_string_equal(got, "E=message|I=|R=-1|D(3)=yes\n");
	free(got);

	/* The NUL id line above was cut by strlen; feed it whole. */
	struct rec r = { 0 };
	struct sse_parser *p = sse_new(0, on_event, &r);
	static const char in[] = "id: 5\n\nid: a\0b\ndata: x\n\n";
	assert_int_equal(sse_feed(p, in, sizeof(in) - 1, NULL), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.s, "E=message|I=5|R=-1|D(1)=x\n");
	sse_free(p);
	free(r.s);
}

static void test_sse_bom_only_at_start(void **state)
{
	int n;
	char *got = parse_str("\xef\xbb" "data: x\n\n", &n);	/* half a BOM: kept as text */
	assert_int_equal(n, 0);
	free(got);
	got = parse_str("data: \xef\xbb\xbf\n\n", &n);
	assert_int_equal(n, 1);
	assert_string_equal(got, "E=message|I=|R=-1|D(3)=\xef\xbb\xbf\n");
	free(got);
}

static void test_sse_cr_at_slice_end(void **state)
{
	struct rec r = { 0 };
	struct sse_parser *p = sse_new(0, on_event, &r);
	assert_int_equal(sse_feed(p, "data: a\r", 8, NULL), 0);
	assert_int_equal(sse_feed(p, "\n\r", 2, NULL), 0);
	/* CR | LF is one line end; the lone CR after it is the blank line. */
	assert_int_equal(r.n, 1);
	/* The LF opening this slice pairs with that CR: no second blank line. */
	assert_int_equal(sse_feed(p, "\ndata: b\r", 9, NULL), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(sse_feed(p, "\r", 1, NULL), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.s, "E=message|I=|R=-1|D(1)=a\nE=message|I=|R=-1|D(1)=b\n");
	assert_int_equal(sse_finish(p), 0);
	sse_free(p);
	free(r.s);
}

static void test_sse_cap_is_sticky(void **state)
{
	struct rec r = { 0 };
	struct sse_parser *p = sse_new(64, on_event, &r);
	char *err = NULL;
	assert_int_equal(sse_feed(p, "data: small\n\n", 13, &err), 0);
	assert_int_equal(r.n, 1);
	char big[200];
	memset(big, 'x', sizeof(big));
	memcpy(big, "data: ", 6);
	int rc = 0;
	/* Over the cap whether it comes whole or in many short lines. */
	for (size_t i = 0; i < sizeof(big) && rc == 0; i += 10)
		rc = sse_feed(p, big + i, 10, &err);
	assert_int_equal(rc, -1);
	assert_non_null(err);
	assert_non_null(strstr(err, "64-byte cap"));
	free(err);
	err = NULL;
	assert_int_equal(sse_feed(p, "\n\ndata: ok\n\n", 12, &err), -1);
	assert_non_null(strstr(err, "cap"));
	free(err);
	assert_int_equal(r.n, 1);
	sse_reset(p);
	assert_int_equal(sse_feed(p, "data: ok\n\n", 10, NULL), 0);
	assert_int_equal(r.n, 2);
	sse_free(p);
	free(r.s);

	/* Many data lines: the joined data counts against the cap too. */
	r = (struct rec){ 0 };
	p = sse_new(64, on_event, &r);
	rc = 0;
	for (int i = 0; i < 20 && rc == 0; i++)
		rc = sse_feed(p, "data: 12345\n", 12, &err);
	assert_int_equal(rc, -1);
	free(err);
	assert_int_equal(r.n, 0);
	sse_free(p);
	free(r.s);
}

/* The cap gives the same verdict whatever the cuts: a data line counts
 * with the '\n' that joins it to the next, also while it is still in the
 * caller's slice (fed whole) rather than copied (fed byte by byte).
 * The stream's event counts 1 (name) + 51 (data and its '\n') + 8 (the
 * unknown field's line) = 60 bytes when its last line is read. */
static void test_sse_cap_same_at_any_cut(void **state)
{
	const char *s = "event: x\ndata: 01234567890123456789012345678901234567890123456789\nfoo: bar\n\n";
	size_t len = strlen(s);
	for (size_t cap = 59; cap <= 60; cap++) {
		for (int bytes = 0; bytes < 2; bytes++) {
			struct rec r = { 0 };
			struct sse_parser *p = sse_new(cap, on_event, &r);
			int rc = 0;
			for (size_t i = 0; i < len && rc == 0; i += bytes ? 1 : len)
				rc = sse_feed(p, s + i, bytes ? 1 : len, NULL);
			if (rc != (cap == 59 ? -1 : 0) || r.n != (cap == 59 ? 0 : 1))
				fail_msg("cap %zu fed %s: rc %d, %d events", cap, bytes ? "byte by byte" : "whole", rc, r.n);
			sse_free(p);
			free(r.s);
		}
	}
}

static void test_sse_callback_stops(void **state)
{
	struct rec r = { .stop_at = 2 };
	struct sse_parser *p = sse_new(0, on_event, &r);
	char *err = NULL;
	assert_int_equal(sse_feed(p, "data: 1\n\ndata: 2\n\ndata: 3\n\n", 27, &err), 7);
	assert_null(err);
	assert_int_equal(r.n, 2);
	assert_int_equal(sse_feed(p, "data: 4\n\n", 9, &err), -1);
	assert_non_null(err);
	free(err);
	assert_int_equal(r.n, 2);
	sse_free(p);
	free(r.s);
}

static void test_sse_finish_reports_cut(void **state)
{
	struct rec r = { 0 };
	struct sse_parser *p = sse_new(0, on_event, &r);
	assert_int_equal(sse_feed(p, "data: done\n\ndata: half", 22, NULL), 0);
	assert_int_equal(sse_finish(p), 1);
	assert_int_equal(r.n, 1);
	assert_int_equal(sse_feed(p, "data: whole\n", 12, NULL), 0);
	assert_int_equal(sse_finish(p), 1);	/* no blank line: not dispatched */
	assert_int_equal(r.n, 1);
	assert_int_equal(sse_finish(p), 0);
	sse_free(p);
	free(r.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sse_fixtures_every_split),
		cmocka_unit_test(test_sse_line_ends_equivalent),
		cmocka_unit_test(test_sse_field_rules),
		cmocka_unit_test(test_sse_bom_only_at_start),
		cmocka_unit_test(test_sse_cr_at_slice_end),
		cmocka_unit_test(test_sse_cap_is_sticky),
		cmocka_unit_test(test_sse_cap_same_at_any_cut),
		cmocka_unit_test(test_sse_callback_stops),
		cmocka_unit_test(test_sse_finish_reports_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
