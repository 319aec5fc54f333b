/*
 * fold.c — stream events to an assistant message (see fold.h).
 *
 * Text arrives as many small deltas: each block's text grows by doubling
 * its capacity (amortised O(1) per byte, at most log2(FOLD_MAX_TEXT)
 * reallocations), never by a realloc per delta.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "agent/fold.h"
#include "tools/tools.h"
#include "util/json.h"
#include "util/utf8.h"
#include "util/util.h"

/* The fast path's helpers: inlined into it, where GCC would otherwise
 * call them once an event. */
#define FOLD_HOT inline __attribute__((always_inline))

void fold_init(struct fold_msg *m, unsigned flags, const struct fold_hooks *hooks)
{
	memset(m, 0, sizeof(*m));
	m->flags = flags;
	if (hooks)
		m->hooks = *hooks;
}

static void block_release(struct fold_block *b)
{
	free(b->type_name);
	free(b->text);
	free(b->signature);
	free(b->data);
	free(b->id);
	free(b->name);
	free(b->input_error);
	cJSON_Delete(b->input);
	cJSON_Delete(b->start_input);
}

void fold_release(struct fold_msg *m)
{
	for (size_t i = 0; i < m->nblocks; i++)
		block_release(&m->blocks[i]);
	free(m->blocks);
	free(m->id);
	free(m->model);
	free(m->stop_reason);
	free(m->stop_sequence);
	free(m->error_type);
	free(m->error_message);
	free(m->err);
	memset(m, 0, sizeof(*m));
}

/*
 * Error messages quote what the server sent (block types, the error
 * event's text) and end up on a terminal: C0 and C1 controls become '?',
 * so a stream cannot move the cursor or rewrite the screen.
 */
static void make_printable(char *s)
{
	for (unsigned char *p = (unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			p[0] = p[1] = '?';
	}
}

static int failf(struct fold_msg *m, char **err, char *msg)
{
	make_printable(msg);
	m->err = msg;
	if (err)
		*err = xstrdup(msg);
	return -1;
}

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? xstrdup(s) : NULL;
}

static void read_usage(struct fold_usage *u, const cJSON *o)
{
	static const struct {
		const char *key;
		size_t off;
	} f[] = {
		{ "input_tokens", offsetof(struct fold_usage, input_tokens) },
		{ "output_tokens", offsetof(struct fold_usage, output_tokens) },
		{ "cache_creation_input_tokens", offsetof(struct fold_usage, cache_creation_input_tokens) },
		{ "cache_read_input_tokens", offsetof(struct fold_usage, cache_read_input_tokens) },
	};
	if (!cJSON_IsObject(o))
		return;
	for (size_t i = 0; i < SBX_ARRAY_LEN(f); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, f[i].key);
		if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e15)
			*(long *)((char *)u + f[i].off) = (long)v->valuedouble;
	}
}

/*
 * A long text is written into pages never touched before, one page fault
 * each (about 1,500 for a 6 MB answer).  Past FOLD_POPULATE_FROM (fold.h) of
 * capacity, the next FOLD_POPULATE_STEP beyond the text is faulted in by
 * one madvise instead: the same pages, allocated a step at a time, and at
 * most a step more of them resident than the text needs.  A kernel
 * without MADV_POPULATE_WRITE (before 5.14) refuses it, and the block goes
 * on faulting page by page until its next reallocation.
 *
 * b->text_ready is how far appends may go with no work but the copy: the
 * capacity of a short text, the populated end of a long one.  block_room
 * makes room for need bytes of text (its NUL included) and sets it.
 */
static void block_room(struct fold_block *b, size_t need)
{
	if (need > b->text_cap) {
		size_t c = b->text_cap ? b->text_cap : 256;
		while (c < need)
			c *= 2;
		b->text = xrealloc(b->text, c);
		b->text_cap = c;
	}
	b->text_ready = b->text_cap;
	if (b->text_cap < FOLD_POPULATE_FROM)
		return;
	uintptr_t page = (uintptr_t)getpagesize(), base = (uintptr_t)b->text;
	uintptr_t from = (base + b->text_len + page - 1) & ~(page - 1);
	uintptr_t end = (base + b->text_cap) & ~(page - 1);
	if (end > from + FOLD_POPULATE_STEP)
		end = from + FOLD_POPULATE_STEP;
	if (from < end && madvise((void *)from, end - from, MADV_POPULATE_WRITE) == 0)
		b->text_ready = end - base > need ? end - base : need;
}

/* memcpy for the short runs of a text delta, without a call for the
 * common sizes: two overlapping 16-byte moves cover 16 to 32 bytes, four
 * cover up to 64. */
static FOLD_HOT void copy_short(char *d, const char *s, size_t n)
{
#ifdef __SSE2__
	if (n >= 16 && n <= 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
		__m128i z = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
		if (n > 32) {
			__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
			__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 32));
			_mm_storeu_si128((__m128i *)(void *)(d + 16), b);
			_mm_storeu_si128((__m128i *)(void *)(d + n - 32), y);
		}
		_mm_storeu_si128((__m128i *)(void *)d, a);
		_mm_storeu_si128((__m128i *)(void *)(d + n - 16), z);
		return;
	}
#endif
	memcpy(d, s, n);
}

/* Append to a block's text, doubling its capacity as needed; -1 past the
 * block's cap or the message's. */
/* Whether a byte of s[0..n) is not ASCII: OR'd a word at a time with no
 * early exit, on bytes just copied (still in cache).  A block that never
 * held one needs no UTF-8 cleaning when the answer is kept: a second walk
 * over megabytes of text, whose pages are cold by then. */
static FOLD_HOT int any_high(const char *s, size_t n)
{
	uint64_t acc = 0, w;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		acc |= w;
	}
	for (; i < n; i++)
		acc |= (unsigned char)s[i];
	return (acc & 0x8080808080808080ull) != 0;
}

static FOLD_HOT int block_add(struct fold_msg *m, struct fold_block *b, const char *s, size_t n, size_t cap)
{
	if (b->text_len + n > cap || m->kept + n > FOLD_MAX_MESSAGE)
		return -1;
	m->kept += n;
	if (b->text_len + n + 1 > b->text_ready)
		block_room(b, b->text_len + n + 1);
	copy_short(b->text + b->text_len, s, n);
	b->text_len += n;
	b->text[b->text_len] = '\0';
	b->high |= any_high(s, n);
	return 0;
}

/* 1 when s[0..n) is UTF-8 throughout: the API refuses a request that is
 * not, so what goes back into one is held to it. */
static int is_utf8(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		int l = utf8_decode((const unsigned char *)s + i, n - i, &cp);
		if (l <= 0)
			return 0;
		i += (size_t)l;
	}
	return 1;
}

/* The block an event names by "index"; NULL with an error when absent,
 * out of range, or (must_exist) never started. */
static struct fold_block *block_at(struct fold_msg *m, const cJSON *ev, int must_exist, size_t *idx, char **err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, "index");
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble >= FOLD_MAX_BLOCKS ||
	    v->valuedouble != (double)(long)v->valuedouble) {
		failf(m, err, xasprintf("stream event '%s' has no valid content block index (0 to %d) — the stream is malformed",
					jstr(ev, "type"), FOLD_MAX_BLOCKS - 1));
		return NULL;
	}
	size_t i = (size_t)v->valuedouble;
	*idx = i;
	if (i >= m->nblocks) {
		if (must_exist) {
			failf(m, err, xasprintf("stream event '%s' names content block %zu, which never started — the stream is malformed",
						jstr(ev, "type"), i));
			return NULL;
		}
		m->blocks = xrealloc(m->blocks, (i + 1) * sizeof(*m->blocks));
		memset(m->blocks + m->nblocks, 0, (i + 1 - m->nblocks) * sizeof(*m->blocks));
		m->nblocks = i + 1;
	}
	struct fold_block *b = &m->blocks[i];
	if (must_exist && b->type == FOLD_NONE) {
		failf(m, err, xasprintf("stream event '%s' names content block %zu, which never started — the stream is malformed",
					jstr(ev, "type"), i));
		return NULL;
	}
	return b;
}

static int on_block_start(struct fold_msg *m, const cJSON *ev, int has_nul, char **err)
{
	size_t i;
	struct fold_block *b = block_at(m, ev, 0, &i, err);
	if (!b)
		return -1;
	if (b->type != FOLD_NONE)
		return failf(m, err, xasprintf("content block %zu started twice — the stream is malformed", i));
	const cJSON *cb = cJSON_GetObjectItemCaseSensitive(ev, "content_block");
	const char *t = jstr(cb, "type");
	if (!t)
		return failf(m, err, xasprintf("content block %zu starts without a type — the stream is malformed", i));
	b->type_name = xstrdup(t);
	b->text = xstrdup("");
	b->text_cap = 1;
	size_t cap = FOLD_MAX_TEXT;
	const char *init = NULL;
	if (strcmp(t, "text") == 0) {
		b->type = FOLD_TEXT;
		init = (m->flags & FOLD_DROP_TEXT) ? NULL : jstr(cb, "text");
	} else if (strcmp(t, "thinking") == 0) {
		b->type = FOLD_THINKING;
		init = jstr(cb, "thinking");
		if (jstr(cb, "signature") && *jstr(cb, "signature"))
			b->signature = xstrdup(jstr(cb, "signature"));
	} else if (strcmp(t, "redacted_thinking") == 0) {
		b->type = FOLD_REDACTED_THINKING;
		b->data = xstrdup(jstr(cb, "data") ? jstr(cb, "data") : "");
	} else if (strcmp(t, "tool_use") == 0) {
		b->type = FOLD_TOOL_USE;
		const char *id = jstr(cb, "id"), *name = jstr(cb, "name");
		if (!id || !name || !*id || !*name)
			return failf(m, err, xasprintf("tool_use block %zu starts without an id or a name — the stream is malformed", i));
		b->id = xstrdup(id);
		/* A name that is not UTF-8 names no tool; it is kept, and
		 * quoted back, with U+FFFD for its stray bytes. */
		b->name = tools_utf8_clean(xstrdup(name));
		/* The API refuses every later request whose history holds an
		 * id outside its pattern or one id twice: such a call is not
		 * run, nor kept (its input is not parsed at the stop). */
		if (!fold_tool_id_ok(id)) {
			b->id_refused = 1;
			b->input_error = xasprintf("tool call '%s' (%s) has an id the API refuses (letters, digits, '_' and "
						   "'-' only)", name, id);
		}
		for (size_t k = 0; k < m->nblocks && !b->id_refused; k++) {
			if (k != i && m->blocks[k].type == FOLD_TOOL_USE && strcmp(m->blocks[k].id, id) == 0) {
				b->id_refused = 1;
				b->input_error = xasprintf("tool call '%s' (%s) has the id of an earlier call of this "
							   "answer", name, id);
			}
		}
		const cJSON *in = cJSON_GetObjectItemCaseSensitive(cb, "input");
		if (cJSON_IsObject(in) && in->child) {
			/* Kept only when flat and short, like a joined input. */
			int n = 0, flat = 1;
			for (const cJSON *c = in->child; c && flat; c = c->next)
				flat = !cJSON_IsObject(c) && !cJSON_IsArray(c) && ++n <= TOOLS_MAX_INPUT_MEMBERS;
			if (flat)
				b->start_input = cJSON_Duplicate(in, 1);
			else
				b->start_bad = 1;
			for (const cJSON *c = b->start_input ? b->start_input->child : NULL; c; c = c->next)
				if (!is_utf8(c->string, strlen(c->string)) ||
				    (c->valuestring && !is_utf8(c->valuestring, strlen(c->valuestring))))
					b->start_badutf8 = 1;
			/* cJSON cut its strings at the NUL when it parsed the
			 * event: refused at the stop, like a joined input. */
			b->start_nul = has_nul;
		}
	} else {
		b->type = FOLD_OTHER;
	}
	/* What the block keeps besides its text counts against the message's
	 * cap too, or 1,024 starts of 4 MiB each would hold gigabytes. */
	size_t meta = (b->type == FOLD_OTHER ? strlen(b->type_name) : 0) + (b->id ? strlen(b->id) : 0) + (b->name ? strlen(b->name) : 0) +
		      (b->data ? strlen(b->data) : 0) + (b->signature ? strlen(b->signature) : 0);
	for (const cJSON *c = b->start_input ? b->start_input->child : NULL; c; c = c->next)
		meta += strlen(c->string) + (c->valuestring ? strlen(c->valuestring) : 24);
	if (m->kept + meta > FOLD_MAX_MESSAGE)
		return failf(m, err, xasprintf("content block %zu would take the message past its %u-byte cap — lower --max-tokens",
					       i, FOLD_MAX_MESSAGE));
	m->kept += meta;
	if (init && *init && block_add(m, b, init, strlen(init), cap) < 0)
		return failf(m, err, xasprintf("content block %zu is larger than its %u-byte cap or the message's %u — lower --max-tokens",
					       i, FOLD_MAX_TEXT, FOLD_MAX_MESSAGE));
	m->content = 1;
	if (m->hooks.block_start)
		m->hooks.block_start(m->hooks.ctx, i, b);
	if (init && *init) {
		if (b->type == FOLD_TEXT && m->hooks.text)
			m->hooks.text(m->hooks.ctx, i, init, strlen(init));
		else if (b->type == FOLD_THINKING && m->hooks.thinking)
			m->hooks.thinking(m->hooks.ctx, i, init, strlen(init));
	}
	return 0;
}

static int on_block_delta(struct fold_msg *m, const cJSON *ev, int has_nul, char **err)
{
	size_t i;
	struct fold_block *b = block_at(m, ev, 1, &i, err);
	if (!b)
		return -1;
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(ev, "delta");
	const char *dt = jstr(d, "type");
	if (!dt)
		return failf(m, err, xasprintf("content block %zu got a delta without a type — the stream is malformed", i));
	if (b->stopped)
		return failf(m, err, xasprintf("content block %zu got a delta after it stopped — the stream is malformed", i));
	enum fold_type want;
	const char *key;
	if (strcmp(dt, "text_delta") == 0) {
		want = FOLD_TEXT;
		key = "text";
	} else if (strcmp(dt, "thinking_delta") == 0) {
		want = FOLD_THINKING;
		key = "thinking";
	} else if (strcmp(dt, "signature_delta") == 0) {
		want = FOLD_THINKING;
		key = "signature";
	} else if (strcmp(dt, "input_json_delta") == 0) {
		want = FOLD_TOOL_USE;
		key = "partial_json";
	} else {
		return 0;	/* citations_delta and later kinds: nothing to keep */
	}
	if (b->type != want)
		return failf(m, err, xasprintf("content block %zu ('%s') got a '%s' — the stream is malformed", i, b->type_name, dt));
	const char *s = jstr(d, key);
	if (!s)
		return failf(m, err, xasprintf("'%s' for content block %zu has no '%s' string — the stream is malformed", dt, i, key));
	size_t n = strlen(s);
	if (strcmp(key, "signature") == 0) {
		size_t have = b->signature ? strlen(b->signature) : 0;
		if (have + n > FOLD_MAX_SIGNATURE || m->kept + n > FOLD_MAX_MESSAGE)
			return failf(m, err, xasprintf("the signature of content block %zu is larger than its %u-byte cap", i,
						       FOLD_MAX_SIGNATURE));
		m->kept += n;
		b->signature = xrealloc(b->signature, have + n + 1);
		memcpy(b->signature + have, s, n + 1);
		return 0;
	}
	if (want == FOLD_TOOL_USE && has_nul)
		b->delta_nul = 1;	/* its input is refused at the stop */
	if (want == FOLD_TEXT && (m->flags & FOLD_DROP_TEXT)) {
		/* printed by the hook, not kept */
	} else if (block_add(m, b, s, n, want == FOLD_TOOL_USE ? FOLD_MAX_TOOL_INPUT : FOLD_MAX_TEXT) < 0) {
		return failf(m, err, xasprintf("content block %zu ('%s') is larger than its %u-byte cap or the message's %u — lower --max-tokens",
					       i, b->type_name, want == FOLD_TOOL_USE ? FOLD_MAX_TOOL_INPUT : FOLD_MAX_TEXT,
					       FOLD_MAX_MESSAGE));
	}
	if (n == 0)
		return 0;	/* no text for the hook (the fast path hands none either) */
	if (want == FOLD_TEXT && m->hooks.text)
		m->hooks.text(m->hooks.ctx, i, s, n);
	else if (want == FOLD_THINKING && m->hooks.thinking)
		m->hooks.thinking(m->hooks.ctx, i, s, n);
	return 0;
}

/*
 * cJSON ends a string at a NUL: the text after a \u0000 escape (or a raw
 * NUL byte, which it takes into a string as it is) would be lost without a
 * word, from the screen, the output, the session and the history alike.
 * The copy returned spells each such NUL \\x00 instead, so the string
 * holds the four characters \x00, as the tools write a NUL in a result,
 * and what follows is kept.  NULL when the JSON text s[0..n) holds none;
 * else malloc'd, its length in *out_n.  An escaped backslash before
 * "u0000" is text, not a NUL (tools_json_has_nul).
 */
static char *nul_spelled(const char *s, size_t n, size_t *out_n)
{
	const char *end = s + n, *p;
	size_t count = 0;
	for (p = s; (p = memchr(p, '\0', (size_t)(end - p))); p++)
		count++;
	for (p = s; (p = memchr(p, '\\', (size_t)(end - p))) && end - p > 1; p += 2)
		if (p[1] == 'u' && end - p >= 6 && memcmp(p + 2, "0000", 4) == 0)
			count++;
	if (!count)
		return NULL;
	char *out = xmalloc(n + 4 * count + 1), *o = out;
	size_t made = 0;
	for (p = s; p < end; p++) {
		if (*p == '\0') {
			memcpy(o, "\\\\x00", 5);
			o += 5;
			made++;
		} else if (*p == '\\' && end - p >= 6 && memcmp(p + 1, "u0000", 5) == 0) {
			memcpy(o, "\\\\x00", 5);
			o += 5;
			p += 5;
			made++;
		} else if (*p == '\\' && end - p > 1 && p[1] != '\0') {
			*o++ = *p++;	/* the escaped character, a backslash included */
			*o++ = *p;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	if (!made) {	/* only a "\\u0000" that is text: nothing to spell */
		free(out);
		return NULL;
	}
	*out_n = (size_t)(o - out);
	return out;
}

static int only_space(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return 0;
	return 1;
}

static char *flat_error(const struct fold_block *b)
{
	return xasprintf("the input of tool call '%s' (%s) is not a flat JSON object of at most %d members: every "
			 "tool takes a few plain values (strings, numbers, booleans)", b->name, b->id,
			 TOOLS_MAX_INPUT_MEMBERS);
}

/* 1 when a member name appears twice in the flat object o: a tool reads
 * the first, a reader of the question may take the second. */
static int repeats_member(const cJSON *o)
{
	for (const cJSON *a = o ? o->child : NULL; a; a = a->next)
		for (const cJSON *b = a->next; b; b = b->next)
			if (strcmp(a->string, b->string) == 0)
				return 1;
	return 0;
}

static char *repeat_error(const struct fold_block *b)
{
	return xasprintf("the input of tool call '%s' (%s) names a member twice: a tool would take the first, "
			 "the question may be read for the second", b->name, b->id);
}

static char *nul_error(const struct fold_block *b)
{
	return xasprintf("the input of tool call '%s' (%s) holds a NUL character (\\u0000), which no tool argument "
			 "may contain", b->name, b->id);
}

static char *utf8_error(const struct fold_block *b)
{
	return xasprintf("the input of tool call '%s' (%s) holds bytes that are not UTF-8, which no tool argument "
			 "may contain", b->name, b->id);
}

static int on_block_stop(struct fold_msg *m, const cJSON *ev, char **err)
{
	size_t i;
	struct fold_block *b = block_at(m, ev, 1, &i, err);
	if (!b)
		return -1;
	if (b->stopped)
		return failf(m, err, xasprintf("content block %zu stopped twice — the stream is malformed", i));
	b->stopped = 1;
	if (b->type == FOLD_TOOL_USE) {
		if (b->id_refused) {
			/* said at the start (input_error) */
		} else if (b->delta_nul) {
			b->input_error = nul_error(b);
		} else if (only_space(b->text, b->text_len) && b->start_bad) {
			b->input_error = flat_error(b);
		} else if (only_space(b->text, b->text_len) && b->start_nul) {
			b->input_error = nul_error(b);
		} else if (only_space(b->text, b->text_len) && b->start_badutf8) {
			b->input_error = utf8_error(b);
		} else if (only_space(b->text, b->text_len) && repeats_member(b->start_input)) {
			b->input_error = repeat_error(b);
		} else if (only_space(b->text, b->text_len)) {
			b->input = b->start_input ? cJSON_Duplicate(b->start_input, 1) : cJSON_CreateObject();
		} else if (!tools_json_is_flat(b->text, b->text_len, TOOLS_MAX_INPUT_MEMBERS)) {
			b->input_error = flat_error(b);
		} else if (!is_utf8(b->text, b->text_len)) {
			b->input_error = utf8_error(b);
		} else {
			const char *end = NULL;
			cJSON *in = cJSON_ParseWithLengthOpts(b->text, b->text_len, &end, 0);
			if (in && tools_json_has_nul(b->text, b->text_len)) {
				cJSON_Delete(in);
				b->input_error = nul_error(b);
			} else if (in && cJSON_IsObject(in) && repeats_member(in)) {
				cJSON_Delete(in);
				b->input_error = repeat_error(b);
			} else if (in && cJSON_IsObject(in) && only_space(end, (size_t)(b->text + b->text_len - end))) {
				b->input = in;
			} else {
				cJSON_Delete(in);
				b->input_error = xasprintf("the input of tool call '%s' (%s) is not a JSON object", b->name, b->id);
			}
		}
	}
	if (m->hooks.block_stop)
		m->hooks.block_stop(m->hooks.ctx, i, b);
	return 0;
}

static int on_error(struct fold_msg *m, const cJSON *ev, char **err)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(ev, "error");
	const char *t = jstr(e, "type"), *msg = jstr(e, "message");
	set_str(&m->error_type, t ? t : "error");
	set_str(&m->error_message, msg ? msg : "");
	make_printable(m->error_type);
	make_printable(m->error_message);
	return failf(m, err, xasprintf("the model provider failed the round: %s%s%s", m->error_type,
				       *m->error_message ? ": " : "", m->error_message));
}

/*
 * The common event is a text delta in the API's compact form:
 *
 *   {"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"..."}}
 *
 * It is folded without a cJSON tree (a dozen items for one string), by
 * matching its fixed bytes.  Anything else, other spacing included, takes
 * the general path, which also gives the errors.
 */
#define DELTA_HEAD_TEXT "{\"type\":\"content_block_delta\",\"index\":"
static const char delta_head[] = DELTA_HEAD_TEXT;
static const char delta_mid[] = ",\"delta\":{\"type\":\"text_delta\",\"text\":\"";
#define DELTA_HEAD (sizeof(delta_head) - 1)
#define DELTA_MID (sizeof(delta_mid) - 1)

/* memcmp(a, b, n) == 0 for the fixed strings here (n >= 16, both readable
 * for n bytes): sixteen bytes a compare, the last one overlapping. */
static FOLD_HOT int same_bytes(const char *a, const char *b, size_t n)
{
#ifdef __SSE2__
	__m128i acc = _mm_set1_epi8(-1);
	size_t i = 0;
#pragma GCC unroll 8
	for (; i + 16 < n; i += 16)
		acc = _mm_and_si128(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(a + i)),
							_mm_loadu_si128((const __m128i *)(const void *)(b + i))));
	acc = _mm_and_si128(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(a + n - 16)),
						_mm_loadu_si128((const __m128i *)(const void *)(b + n - 16))));
	return _mm_movemask_epi8(acc) == 0xffff;
#else
	return memcmp(a, b, n) == 0;
#endif
}

/*
 * The length of the run at s[0..n) that a JSON string holds as it is: no
 * '"', no '\\', no control byte (a raw control is left to cJSON, and a
 * raw CR or LF would end an SSE line).  Sixteen bytes a step with SSE2
 * (every x86-64 has it), then eight with the classic word tricks ("has a
 * zero byte", "has a byte below k": exact for "any"), then one.
 */
static FOLD_HOT size_t plain_run(const char *s, size_t n)
{
	size_t i = 0;
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
	/* Thirty-two bytes a step, then sixteen. */
	for (; i + 32 <= n; i += 32) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i w = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
		__m128i hv = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
					  _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));
		__m128i hw = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, quote), _mm_cmpeq_epi8(w, bslash)),
					  _mm_cmpeq_epi8(_mm_min_epu8(w, ctl), w));
		unsigned mask = (unsigned)_mm_movemask_epi8(hv) | (unsigned)_mm_movemask_epi8(hw) << 16;
		if (mask)
			return i + (size_t)__builtin_ctz(mask);
	}
	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
					   _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));	/* v <= 0x1f, unsigned */
		int mask = _mm_movemask_epi8(hit);
		if (mask)
			return i + (size_t)__builtin_ctz((unsigned)mask);
	}
#endif
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	for (; i + 8 <= n; i += 8) {
		uint64_t w, q, b;
		memcpy(&w, s + i, 8);
		q = w ^ (ones * '"');
		b = w ^ (ones * '\\');
		if (((q - ones) & ~q & highs) | ((b - ones) & ~b & highs) | ((w - ones * 0x20) & ~w & highs))
			break;
	}
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\' || c < 0x20)
			break;
	}
	return i;
}

/* The block index of a delta whose head matched at d; the bytes after it
 * in *rest.  -1 when no index of at most 4 digits is followed by the text
 * delta's fixed middle. */
static FOLD_HOT long delta_index(const char *d, const char *end, const char **rest)
{
	const char *k = d;
	long i = 0;
	if (end - d > 1 && (unsigned)(d[0] - '0') < 10 && d[1] == ',') {
		i = d[0] - '0';	/* the usual: one digit */
		k++;
	} else {
		while (k < end && k - d < 4 && *k >= '0' && *k <= '9')
			i = i * 10 + (*k++ - '0');
	}
	if (k == d || (size_t)(end - k) < DELTA_MID || !same_bytes(k, delta_mid, DELTA_MID))
		return -1;
	*rest = k + DELTA_MID;
	return i;
}

/* Fold n bytes of plain text into text block i, when that is what the
 * general path would do with them, without calling the text hook.  1 when
 * done, 0 when not (a block that is not an open text block, or a cap: the
 * general path says why). */
static FOLD_HOT int keep_text_delta(struct fold_msg *m, long i, const char *t, size_t n)
{
	if (i < 0 || (size_t)i >= m->nblocks || m->blocks[i].type != FOLD_TEXT || m->blocks[i].stopped)
		return 0;
	return (m->flags & FOLD_DROP_TEXT) || block_add(m, &m->blocks[i], t, n, FOLD_MAX_TEXT) == 0;
}

/* keep_text_delta, then the text hook. */
static inline int take_text_delta(struct fold_msg *m, long i, const char *t, size_t n)
{
	if (!keep_text_delta(m, i, t, n))
		return 0;
	if (n && m->hooks.text)
		m->hooks.text(m->hooks.ctx, (size_t)i, t, n);
	return 1;
}

/* The fast path's text not yet handed to the hook: block *hi's kept text
 * from offset from on.  Handed on, and *hi cleared. */
static void hook_kept(struct fold_msg *m, long *hi, size_t from)
{
	if (*hi >= 0 && m->hooks.text) {
		const struct fold_block *b = &m->blocks[*hi];
		if (b->text_len > from)
			m->hooks.text(m->hooks.ctx, (size_t)*hi, b->text + from, b->text_len - from);
	}
	*hi = -1;
}

/* The event's data, data[0..len): 1 when folded here. */
static int fast_text_delta(struct fold_msg *m, const char *data, size_t len)
{
	const char *end = data + len, *q;
	if (len < DELTA_HEAD + 1 + DELTA_MID + 3 || memcmp(data, delta_head, DELTA_HEAD) != 0)
		return 0;
	long i = delta_index(data + DELTA_HEAD, end, &q);
	if (i < 0 || memcmp(end - 3, "\"}}", 3) != 0 || q > end - 3)
		return 0;
	size_t tn = (size_t)(end - 3 - q);
	if (plain_run(q, tn) == tn)
		return take_text_delta(m, i, q, tn);
	/* Escapes (or raw controls): only the string goes through cJSON,
	 * one item instead of a dozen. */
	const char *after = NULL, *js = q - 1;
	size_t jn = (size_t)(end - q) + 1;
	char *spelled = nul_spelled(js, jn, &jn);
	if (spelled)
		js = spelled;
	cJSON *str = cJSON_ParseWithLengthOpts(js, jn, &after, 0);
	int done = cJSON_IsString(str) && after && after == js + jn - 2 &&
		   take_text_delta(m, i, str->valuestring, strlen(str->valuestring));
	cJSON_Delete(str);
	free(spelled);
	return done;
}

/*
 * The SSE parser's fast path (sse.h): whole events of the form
 *
 *   event: content_block_delta LF data: <compact text delta, plain text> LF LF
 *
 * folded straight from the network's bytes, without the parser's line
 * machinery.  An event with an escape in its text, CR line ends, other
 * fields or spacing, a block in another state, or one cut by the slice's
 * end stops the run: the parser takes it from there.
 */
size_t fold_sse_fast(void *ctx, const char *s, size_t n, size_t max_event)
{
	/* The event line, the data field's name and the data's fixed head. */
	static const char head[] = "event: content_block_delta\ndata: " DELTA_HEAD_TEXT;
	const size_t nhead = sizeof(head) - 1;
	struct fold_msg *m = ctx;
	const char *e = s, *end = s + n;
	/* Kept text is handed to the hook once per run of deltas to one
	 * block, from where it is kept, not once per delta: the hook sees the
	 * same bytes in the same order, in fewer calls. */
	int kept = !(m->flags & FOLD_DROP_TEXT);
	long hi = -1;
	size_t from = 0;
	if (m->err || m->done)
		return 0;
	while ((size_t)(end - e) > nhead + DELTA_MID + 5 && same_bytes(e, head, nhead)) {
		const char *t;
		long i = delta_index(e + nhead, end, &t);
		if (i < 0)
			break;
		size_t tn = plain_run(t, (size_t)(end - t));
		const char *z = t + tn;	/* a '"' closing the text, if all is well */
		if ((size_t)(end - z) < 5 || memcmp(z, "\"}}\n\n", 5) != 0 || (size_t)(z + 5 - e) > max_event)
			break;
		if (!kept) {
			if (!take_text_delta(m, i, t, tn))
				break;
		} else {
			if (!keep_text_delta(m, i, t, tn))
				break;
			if (hi != i) {	/* another block: the last one's run first */
				hook_kept(m, &hi, from);
				hi = i;
				from = m->blocks[i].text_len - tn;
			}
		}
		e = z + 5;
	}
	hook_kept(m, &hi, from);
	return (size_t)(e - s);
}

int fold_event(struct fold_msg *m, const char *type, const char *data, size_t len, char **err)
{
	if (m->err) {
		if (err)
			*err = xstrdup(m->err);
		return -1;
	}
	if (m->done)
		return 0;	/* after message_stop nothing belongs to the message */
	if (fast_text_delta(m, data, len))
		return 0;
	/* A NUL in the event's strings is kept as the text \x00; tool input
	 * holding one is refused (on_block_start, on_block_delta). */
	size_t sn;
	char *spelled = nul_spelled(data, len, &sn);
	int has_nul = spelled != NULL;
	if (spelled) {
		data = spelled;
		len = sn;
	}
	const char *end = NULL;
	cJSON *ev = cJSON_ParseWithLengthOpts(data, len, &end, 0);
	if (ev && (!end || !only_space(end, (size_t)(data + len - end)))) {
		cJSON_Delete(ev);	/* trailing bytes: not one JSON value */
		ev = NULL;
	}
	const char *t = ev ? jstr(ev, "type") : NULL;
	if (!t) {
		/* Not our JSON: an unknown event may carry anything; one we
		 * know must not. */
		static const char *const known[] = { "message_start", "content_block_start", "content_block_delta",
						     "content_block_stop", "message_delta", "message_stop", "error" };
		int is_known = 0;
		for (size_t i = 0; type && i < SBX_ARRAY_LEN(known); i++)
			if (strcmp(type, known[i]) == 0)
				is_known = 1;
		cJSON_Delete(ev);
		free(spelled);
		if (!is_known)
			return 0;
		return failf(m, err, xasprintf("stream event '%s' does not carry a JSON object with a type — the stream is malformed", type));
	}
	int r = 0;
	if (strcmp(t, "content_block_delta") == 0) {
		r = on_block_delta(m, ev, has_nul, err);
	} else if (strcmp(t, "message_start") == 0) {
		const cJSON *msg = cJSON_GetObjectItemCaseSensitive(ev, "message");
		m->started = 1;
		set_str(&m->id, jstr(msg, "id"));
		set_str(&m->model, jstr(msg, "model"));
		read_usage(&m->usage, cJSON_GetObjectItemCaseSensitive(msg, "usage"));
	} else if (strcmp(t, "content_block_start") == 0) {
		r = on_block_start(m, ev, has_nul, err);
	} else if (strcmp(t, "content_block_stop") == 0) {
		r = on_block_stop(m, ev, err);
	} else if (strcmp(t, "message_delta") == 0) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(ev, "delta");
		if (jstr(d, "stop_reason"))
			set_str(&m->stop_reason, jstr(d, "stop_reason"));
		if (jstr(d, "stop_sequence"))
			set_str(&m->stop_sequence, jstr(d, "stop_sequence"));
		read_usage(&m->usage, cJSON_GetObjectItemCaseSensitive(ev, "usage"));
	} else if (strcmp(t, "message_stop") == 0) {
		m->done = 1;
	} else if (strcmp(t, "error") == 0) {
		r = on_error(m, ev, err);
	}
	/* ping and unknown types: nothing */
	cJSON_Delete(ev);
	free(spelled);
	return r;
}

int fold_sse_event(void *ctx, const struct sse_event *ev)
{
	return fold_event(ctx, ev->event, ev->data, ev->data_len, NULL) < 0 ? -1 : 0;
}

int fold_tool_id_ok(const char *id)
{
	if (!id || !*id)
		return 0;
	for (const char *p = id; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
		      *p == '-'))
			return 0;
	return 1;
}

void fold_refuse_call(struct fold_msg *m, size_t i, char *why)
{
	struct fold_block *b = &m->blocks[i];
	cJSON_Delete(b->input);
	b->input = NULL;
	free(b->input_error);
	b->input_error = why;
	b->id_refused = 1;
}

int fold_tool_ready(const struct fold_msg *m, size_t i)
{
	return i < m->nblocks && m->blocks[i].type == FOLD_TOOL_USE && m->blocks[i].stopped && m->blocks[i].input;
}

/* Why block i is left out of the content array, or NULL when it is in. */
static const char *dropped_reason(const struct fold_msg *m, size_t i)
{
	const struct fold_block *b = &m->blocks[i];
	switch (b->type) {
	case FOLD_NONE:
		return "never started";
	case FOLD_TEXT:
		if (m->flags & FOLD_DROP_TEXT)
			return "text not kept";
		/* "\n\n" before a tool call: shown, but the API refuses it
		 * in the history of every later request */
		return b->text_len && !json_text_blank(b->text, b->text_len) ? NULL : "empty text";
	/* The API refuses either without its proof in a history, and the
	 * session will not store a round holding one (session.c): kept,
	 * such a block cost the stored session the whole round. */
	case FOLD_THINKING:
		return b->signature && *b->signature ? NULL : "thinking without a signature";
	case FOLD_REDACTED_THINKING:
		return b->data && *b->data ? NULL : "redacted thinking without its data";
	case FOLD_TOOL_USE:
		if (!b->stopped)
			return "tool call cut off before its end";
		if (b->id_refused)
			return "tool call id refused";
		return b->input ? NULL : "tool call input is not a JSON object";
	case FOLD_OTHER:
		return "block type not supported";
	default:
		return "unknown";
	}
}

/* A cJSON string that takes over b's text buffer (malloc'd, NUL-terminated). */
static cJSON *take_text(struct fold_block *b)
{
	cJSON *s = cJSON_CreateString("");
	free(s->valuestring);
	s->valuestring = b->text;
	b->text = xstrdup("");
	b->text_len = 0;
	b->text_cap = 1;
	b->text_ready = 0;
	return s;
}

/* A string item of the content array, as UTF-8: the model's bytes that
 * are not (a broken or hostile stream's) become U+FFFD, or every later
 * request would be refused. */
static cJSON *utf8_item(cJSON *s)
{
	s->valuestring = tools_utf8_clean(s->valuestring);
	return s;
}

/* The same for a block's text, which block_add saw whole: ASCII needs none. */
static cJSON *utf8_text(const struct fold_block *b, cJSON *s)
{
	return b->high ? utf8_item(s) : s;
}

static cJSON *content_json(struct fold_msg *m, int take)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < m->nblocks; i++) {
		struct fold_block *b = &m->blocks[i];
		if (dropped_reason(m, i))
			continue;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "type", b->type_name);
		switch (b->type) {
		case FOLD_TEXT:
			cJSON_AddItemToObject(o, "text", utf8_text(b, take ? take_text(b) : cJSON_CreateString(b->text)));
			break;
		case FOLD_THINKING:
			cJSON_AddItemToObject(o, "thinking", utf8_text(b, take ? take_text(b) : cJSON_CreateString(b->text)));
			cJSON_AddItemToObject(o, "signature", utf8_item(cJSON_CreateString(b->signature)));
			break;
		case FOLD_REDACTED_THINKING:
			cJSON_AddItemToObject(o, "data", utf8_item(cJSON_CreateString(b->data)));
			break;
		case FOLD_TOOL_USE:
			cJSON_AddStringToObject(o, "id", b->id);
			cJSON_AddStringToObject(o, "name", b->name);
			cJSON_AddItemToObject(o, "input", cJSON_Duplicate(b->input, 1));
			break;
		case FOLD_NONE:
		case FOLD_OTHER:
		default:
			break;
		}
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

cJSON *fold_content_json(const struct fold_msg *m)
{
	return content_json((struct fold_msg *)m, 0);	/* take == 0 writes nothing */
}

cJSON *fold_content_take(struct fold_msg *m)
{
	return content_json(m, 1);
}

static void add_str_or_null(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

cJSON *fold_msg_json(const struct fold_msg *m)
{
	cJSON *o = cJSON_CreateObject();
	add_str_or_null(o, "id", m->id);
	add_str_or_null(o, "model", m->model);
	add_str_or_null(o, "stop_reason", m->stop_reason);
	add_str_or_null(o, "stop_sequence", m->stop_sequence);
	cJSON *u = cJSON_AddObjectToObject(o, "usage");
	cJSON_AddNumberToObject(u, "input_tokens", (double)m->usage.input_tokens);
	cJSON_AddNumberToObject(u, "output_tokens", (double)m->usage.output_tokens);
	cJSON_AddNumberToObject(u, "cache_creation_input_tokens", (double)m->usage.cache_creation_input_tokens);
	cJSON_AddNumberToObject(u, "cache_read_input_tokens", (double)m->usage.cache_read_input_tokens);
	cJSON_AddItemToObject(o, "content", fold_content_json(m));
	cJSON *dr = cJSON_AddArrayToObject(o, "dropped");
	for (size_t i = 0; i < m->nblocks; i++) {
		const char *why = dropped_reason(m, i);
		if (!why || m->blocks[i].type == FOLD_NONE)
			continue;
		cJSON *d = cJSON_CreateObject();
		cJSON_AddNumberToObject(d, "index", (double)i);
		cJSON_AddStringToObject(d, "type", m->blocks[i].type_name);
		cJSON_AddStringToObject(d, "reason", why);
		cJSON_AddItemToArray(dr, d);
	}
	if (m->error_type) {
		cJSON *e = cJSON_AddObjectToObject(o, "error");
		cJSON_AddStringToObject(e, "type", m->error_type);
		cJSON_AddStringToObject(e, "message", m->error_message);
	}
	return o;
}
