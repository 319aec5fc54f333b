/*
 * fuzz_session.c — libFuzzer target for the session line parser.
 *
 * The first input byte picks the slice lengths; the rest is a session file.
 * The file is parsed twice, whole and sliced, and the two parses must agree
 * (error, offset kept, turns, the notes, the dangling tool calls, the title,
 * the replay array): the parser is resumable, so the slicing may never
 * change the result.  A disagreement aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct session_parser *run(const char *buf, size_t size, size_t step, unsigned flags)
{
	struct session_parser *p = session_parser_new(flags);
	size_t i = 0;
	while (i < size) {
		size_t n = size - i < step ? size - i : step;
		if (session_parser_feed(p, buf + i, n) < 0)
			break;
		i += n;
		step = step * 7 % 61 + 1;
	}
	session_parser_finish(p);
	return p;
}

static int same_strv(const struct strv *x, const struct strv *y)
{
	if (x->n != y->n)
		return 0;
	for (size_t i = 0; i < x->n; i++)
		if (strcmp(x->v[i], y->v[i]) != 0)
			return 0;
	return 1;
}

static char *dump(struct session_parser *p)
{
	cJSON *m = session_parser_take_messages(p);
	char *s = m ? cJSON_PrintUnformatted(m) : NULL;
	cJSON_Delete(m);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t step = (data[0] & 0x3f) + 1;
	unsigned flags = (data[0] & 0x80) ? SESSION_PARSE_SUMMARY : 0;
	const char *buf = (const char *)data + 1;
	size--;
	struct session_parser *a = run(buf, size, size ? size : 1, flags);
	struct session_parser *b = run(buf, size, step, flags);
	const char *ea = session_parser_error(a), *eb = session_parser_error(b);
	if ((ea == NULL) != (eb == NULL) || (ea && strcmp(ea, eb) != 0))
		abort();
	if (session_parser_good_end(a) != session_parser_good_end(b) ||
	    session_parser_info(a)->turns != session_parser_info(b)->turns ||
	    session_parser_info(a)->cut_short != session_parser_info(b)->cut_short)
		abort();
	if (!same_strv(session_parser_notes(a), session_parser_notes(b)) ||
	    !same_strv(session_parser_dangling(a), session_parser_dangling(b)))
		abort();
	const char *ta = session_parser_info(a)->first_prompt, *tb = session_parser_info(b)->first_prompt;
	if ((ta == NULL) != (tb == NULL) || (ta && strcmp(ta, tb) != 0))
		abort();
	/* The listing's title: one line, cut, no C0 or DEL byte. */
	if (ta && strlen(ta) > SESSION_TITLE_MAX)
		abort();
	for (const unsigned char *c = (const unsigned char *)ta; c && *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			abort();
	char *sa = dump(a), *sb = dump(b);
	if ((sa == NULL) != (sb == NULL) || (sa && strcmp(sa, sb) != 0))
		abort();
	free(sa);
	free(sb);
	session_parser_free(a);
	session_parser_free(b);
	return 0;
}
