/*
 * provider.c — the Messages API over libcurl (see provider.h).
 *
 * One attempt is one curl_easy_perform: the header callback records the
 * status and the headers retries depend on; the write callback feeds the
 * SSE parser (status 200) or keeps the error body; the progress callback
 * enforces the stop flag, the idle limit and the round's deadline.  The
 * loop in prov_round decides, from what one attempt saw, whether to
 * return, fail, or wait and try again.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "agent/curl.h"
#include "agent/gate.h"
#include "agent/provider.h"
#include "agent/sse.h"
#include "store/credentials.h"
#include "util/json.h"
#include "util/log.h"
#include "util/utf8.h"
#include "util/util.h"

struct prov {
	const struct dlcurl *c;
	CURL *h;
	char *url;
	char *key;
	int plain_http;		/* http to loopback: never through a proxy */
	struct prov_opts o;
};

static void make_printable(char *s);

/* ---- pure parts ----------------------------------------------------- */

cJSON *prov_body(const struct prov_request *rq, char **err)
{
	if (!rq->model || !*rq->model) {
		*err = xstrdup("no model named for the request — give --model NAME");
		return NULL;
	}
	if (rq->max_tokens == 0) {
		*err = xstrdup("max_tokens is 0 — give --max-tokens 1 or more");
		return NULL;
	}
	if (!cJSON_IsArray(rq->messages) || !rq->messages->child) {
		*err = xstrdup("the request has no messages — a round needs at least the user's prompt");
		return NULL;
	}
	if (rq->tools && !cJSON_IsArray(rq->tools)) {
		*err = xstrdup("the tools of the request are not a JSON array");
		return NULL;
	}
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "model", rq->model);
	cJSON_AddNumberToObject(b, "max_tokens", (double)rq->max_tokens);
	cJSON_AddBoolToObject(b, "stream", 1);
	if (rq->system && *rq->system)
		cJSON_AddStringToObject(b, "system", rq->system);
	/* References: the conversation is not copied each round. */
	cJSON_AddItemToObject(b, "messages", cJSON_CreateArrayReference(rq->messages->child));
	if (rq->tools && rq->tools->child) {
		cJSON_AddItemToObject(b, "tools", cJSON_CreateArrayReference(rq->tools->child));
		if (rq->tool_choice_none) {
			cJSON *tc = cJSON_AddObjectToObject(b, "tool_choice");
			cJSON_AddStringToObject(tc, "type", "none");
		}
	}
	return b;
}

int prov_host_is_loopback(const char *host)
{
	char buf[256];
	size_t n = strlen(host);
	if (n >= sizeof(buf))
		return 0;
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
		memcpy(buf, host + 1, n - 2);
		buf[n - 2] = '\0';
	} else {
		memcpy(buf, host, n + 1);
	}
	char *pct = strchr(buf, '%');	/* an IPv6 zone id */
	if (pct)
		*pct = '\0';
	if (strcasecmp(buf, "localhost") == 0)
		return 1;
	struct in_addr a4;
	if (inet_pton(AF_INET, buf, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	struct in6_addr a6;
	if (inet_pton(AF_INET6, buf, &a6) == 1) {
		if (IN6_IS_ADDR_LOOPBACK(&a6))
			return 1;
		return IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127;
	}
	return 0;
}

static char *url_part(const struct dlcurl *c, CURLU *u, CURLUPart part)
{
	char *v = NULL;
	if (c->url_get(u, part, &v, 0) != CURLUE_OK || !v)
		return NULL;
	char *r = xstrdup(v);
	c->free(v);
	return r;
}

static const char *const api_tails[] = { "/v1", "/v1/messages" };

int prov_messages_url(const char *base, char **url, char **err)
{
	const struct dlcurl *c = dlcurl_load(err);
	if (!c)
		return -1;
	int rc = -1;
	char *scheme = NULL, *host = NULL, *user = NULL, *pass = NULL, *query = NULL, *frag = NULL, *path = NULL;
	CURLU *u = c->url();
	if (!u || c->url_set(u, CURLUPART_URL, base, 0) != CURLUE_OK) {
		*err = xasprintf("base URL '%s' is not a valid URL — give https://HOST[:PORT][/PATH]", base);
		goto out;
	}
	scheme = url_part(c, u, CURLUPART_SCHEME);
	host = url_part(c, u, CURLUPART_HOST);
	user = url_part(c, u, CURLUPART_USER);
	pass = url_part(c, u, CURLUPART_PASSWORD);
	query = url_part(c, u, CURLUPART_QUERY);
	frag = url_part(c, u, CURLUPART_FRAGMENT);
	path = url_part(c, u, CURLUPART_PATH);
	if (scheme && strcmp(scheme, "https") != 0 && strcmp(scheme, "http") != 0) {
		*err = xasprintf("base URL '%s' uses '%s' — only https (or http to a loopback host) is allowed", base, scheme);
		goto out;
	}
	if (!scheme || !host || !*host) {
		*err = xasprintf("base URL '%s' has no scheme or host — give https://HOST[:PORT][/PATH]", base);
		goto out;
	}
	if (strcmp(scheme, "http") == 0 && !prov_host_is_loopback(host)) {
		*err = xasprintf("base URL '%s' is plain http to a host that is not loopback — use https "
				 "(http is allowed only to localhost, 127.0.0.0/8 or ::1, where the key cannot be overheard)", base);
		goto out;
	}
	if (user || pass) {
		*err = xasprintf("base URL '%s' carries a user name or password — remove it; the API key is sent as x-api-key", base);
		goto out;
	}
	if (query || frag || strpbrk(base, "?#")) {	/* an empty one too, which libcurl drops */
		*err = xasprintf("base URL '%s' has a query or fragment — give only scheme, host, port and path", base);
		goto out;
	}
	size_t pl = path ? strlen(path) : 0;
	while (pl > 0 && path[pl - 1] == '/')
		pl--;
	/* The path sandbx adds is /v1/messages: a base URL already ending in
	 * it (copied from an endpoint's documentation) would be asked for
	 * /v1/v1/messages and answer 404 on the first turn. */
	for (size_t i = 0; i < SBX_ARRAY_LEN(api_tails); i++) {
		size_t tl = strlen(api_tails[i]);
		if (pl >= tl && strncasecmp(path + pl - tl, api_tails[i], tl) == 0) {
			*err = xasprintf("base URL '%s' ends in %.*s — drop it: sandbx adds /v1/messages to the base URL "
					 "itself", base, (int)tl, path + pl - tl);
			goto out;
		}
	}
	char *np = xasprintf("%.*s/v1/messages", (int)pl, path ? path : "");
	CURLUcode sc = c->url_set(u, CURLUPART_PATH, np, 0);
	free(np);
	char *full = sc == CURLUE_OK ? url_part(c, u, CURLUPART_URL) : NULL;
	if (!full) {
		*err = xasprintf("base URL '%s' cannot take the path /v1/messages — check --base-url", base);
		goto out;
	}
	*url = full;
	rc = 0;
out:
	free(scheme);
	free(host);
	free(user);
	free(pass);
	free(query);
	free(frag);
	free(path);
	if (u)
		c->url_cleanup(u);
	return rc;
}

int prov_status_retryable(long status, const char *x_should_retry)
{
	if (x_should_retry) {
		if (strcasecmp(x_should_retry, "true") == 0)
			return 1;
		if (strcasecmp(x_should_retry, "false") == 0)
			return 0;
	}
	return status == 408 || status == 409 || status == 429 || status >= 500;
}

enum prov_verdict prov_judge(const struct prov_outcome *o)
{
	if (o->stopped)
		return PROV_V_STOPPED;
	if (o->idle || o->over_total) {
		/* An error status whose body then stalled is still the
		 * provider's answer: the round fails on it, not as a silent
		 * server (the status and its advice are what the user needs);
		 * like any stall it is not retried. */
		if (o->headers_done && o->status >= 300 && !o->proxy_status)
			return PROV_V_FAIL;
		return PROV_V_TIMEOUT;
	}
	if (o->proxy_status >= 300)	/* nothing reached the provider */
		return prov_status_retryable(o->proxy_status, NULL) ? PROV_V_RETRY : PROV_V_FAIL;
	/* Not transient: the same server sends the same headers again. */
	if (o->header_cap || o->unasked_encoding)
		return PROV_V_FAIL;
	if (o->bad_type)
		return PROV_V_FAIL;
	if (o->stream_failed) {
		/* An error event before any content is the streamed form of a
		 * 529 or 500: worth another attempt.  Anything else is not. */
		if (o->error_event && !o->content &&
		    (strcmp(o->error_event, "overloaded_error") == 0 || strcmp(o->error_event, "api_error") == 0))
			return PROV_V_RETRY;
		return PROV_V_FAIL;
	}
	if (o->status / 100 == 2) {
		/* message_stop ends the message: a connection cut after it
		 * (no last chunk, a reset) takes nothing from it. */
		if (o->done)
			return PROV_V_DONE;
		return o->content ? PROV_V_FAIL : PROV_V_RETRY;	/* cut: replay only what nobody saw */
	}
	if (o->content)
		return PROV_V_FAIL;	/* whatever the status says now: the user saw it */
	if (o->status == 0)
		return o->transfer_retryable ? PROV_V_RETRY : PROV_V_FAIL;
	return prov_status_retryable(o->status, o->should_retry) ? PROV_V_RETRY : PROV_V_FAIL;
}

/* A non-negative decimal (fraction allowed); -1 otherwise (strtod's hex
 * and exponents too: "0x1f40" is not 8000). */
static double parse_num(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s) || s[strspn(s, "0123456789.")] > ' ')
		return -1;
	char *end;
	double v = strtod(s, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	return *end || !isfinite(v) ? -1 : v;
}

long prov_retry_after_ms(const char *retry_after, const char *retry_after_ms, time_t now)
{
	double ms = -1;
	if (retry_after_ms && *retry_after_ms)
		ms = parse_num(retry_after_ms);
	if (ms < 0 && retry_after && *retry_after) {
		double s = parse_num(retry_after);
		if (s >= 0) {
			ms = s * 1000;
		} else {
			const struct dlcurl *c = dlcurl_load(NULL);
			time_t t = c ? c->getdate(retry_after, &now) : -1;
			if (t != -1)
				ms = difftime(t, now) * 1000;
		}
	}
	if (!(ms > 0))
		return -1;
	/* past the cap it is refused by the caller, not waited for; a wait
	 * of years is still "over the cap" (and fits a long) */
	return ms > PROV_RETRY_AFTER_CLAMP_MS ? (long)PROV_RETRY_AFTER_CLAMP_MS : (long)ms;
}

unsigned prov_backoff_ms(unsigned attempt, unsigned base_ms, unsigned max_ms, double jitter01)
{
	double d = base_ms;
	for (unsigned i = 1; i < attempt && d < max_ms; i++)
		d *= 2;
	if (d > max_ms)
		d = max_ms;
	if (jitter01 < 0)
		jitter01 = 0;
	if (jitter01 > 1)
		jitter01 = 1;
	return (unsigned)(d * (1.0 - 0.25 * jitter01));
}

void prov_duration(unsigned ms, char *buf, size_t n)
{
	if (ms >= 1000 && ms % 1000 == 0)
		snprintf(buf, n, "%u s", ms / 1000);
	else if (ms >= 1000)
		snprintf(buf, n, "%.1f s", ms / 1000.0);
	else
		snprintf(buf, n, "%u ms", ms);
}

char *prov_retry_text(const struct prov_retry *r)
{
	char wait[32];
	prov_duration(r->delay_ms, wait, sizeof(wait));
	return xasprintf("%s — retrying in %s, attempt %u of %u", r->what, wait, r->attempt, r->max);
}

/* ---- debug log -------------------------------------------------------- */

static int debugging(void)
{
	return log_level() >= LOG_DEBUG;
}

/*
 * The key as the server may send it back: each of its bytes as itself, as
 * a JSON escape (\u002d, or \/ for a slash) or percent-encoded (%2D), as
 * an echo of the request body or of a URL would spell it.  KEY_SPELL_MAX
 * is the longest spelling of one byte.
 */
#define KEY_SPELL_MAX 6

/* How many bytes at s (m of them) spell the byte b; 0 when they do not.
 * *cut is set when s ends inside a spelling of b.  Hex digits, and the
 * escape's u, match in either case. */
static size_t byte_spelled(const char *s, size_t m, unsigned char b, int *cut)
{
	char want[KEY_SPELL_MAX + 1];
	if (m == 0) {
		*cut = 1;
		return 0;
	}
	if ((unsigned char)s[0] == b)
		return 1;
	if (s[0] == '\\' && b == '/' && m > 1 && s[1] == '/')
		return 2;
	if (s[0] == '\\' || s[0] == '%')
		snprintf(want, sizeof(want), s[0] == '%' ? "%%%02x" : "\\u%04x", b);
	else
		return 0;
	size_t wl = strlen(want);
	for (size_t i = 1; i < wl; i++) {
		if (i == m) {
			*cut = 1;
			return 0;
		}
		if (tolower((unsigned char)s[i]) != want[i])
			return 0;
	}
	return wl;
}

/* How many bytes at s (n of them) spell the whole key; 0 when they do not.
 * *cut (when not NULL) is set when s ends inside a spelling of it. */
static size_t key_spelled(const char *s, size_t n, const char *key, size_t kl, int *cut)
{
	size_t at = 0;
	int c = 0;
	for (size_t k = 0; k < kl; k++) {
		size_t step = byte_spelled(s + at, n - at, (unsigned char)key[k], &c);
		if (!step) {
			if (cut)
				*cut = c;
			return 0;
		}
		at += step;
	}
	return at;
}

/* The first spelling of the key in s (n bytes): its offset, its length in
 * *len; n when there is none. */
static size_t key_find(const char *s, size_t n, const char *key, size_t kl, size_t *len)
{
	for (size_t i = 0; kl && i < n; i++) {
		if (s[i] != key[0] && s[i] != '%' && s[i] != '\\')
			continue;
		if ((*len = key_spelled(s + i, n - i, key, kl, NULL)))
			return i;
	}
	return n;
}

/* Where a spelling of the key that s (n bytes) ends inside begins; n
 * when it ends inside none.  A body cut short (by its cap, a stall, a
 * broken connection) may end in the first bytes of a key it echoes. */
static size_t key_cut_at(const char *s, size_t n, const char *key, size_t kl)
{
	size_t span = kl * KEY_SPELL_MAX;
	for (size_t i = n > span ? n - span : 0; kl && i < n; i++) {
		int cut = 0;
		if (!key_spelled(s + i, n - i, key, kl, &cut) && cut)
			return i;
	}
	return n;
}

/* s (malloc'd, taken) with a key's start at its end written [redacted]. */
static char *mask_cut_key(const struct prov *p, char *s)
{
	size_t n = strlen(s), kl = p->key ? strlen(p->key) : 0;
	size_t at = key_cut_at(s, n, p->key, kl);
	if (at == n)
		return s;
	char *r = xasprintf("%.*s[redacted]", (int)at, s);
	explicit_bzero(s, n);
	free(s);
	return r;
}

/* One debug line per line of s (blank lines and CRs dropped), each with
 * the prefix; the key, wherever it appears in a line, is masked, and the
 * server's bytes are drawn with their controls visible (utf8_term_write)
 * and what draws nothing as <U+XXXX> (gate_show_hidden, as the screen
 * shows it): a zero-width space or tag characters in an answer or a
 * header would hide in the log what the model or the server sent. */
static void dbg_bytes(const struct prov *p, const char *dir, const char *s, size_t n)
{
	size_t kl = p->key ? strlen(p->key) : 0;
	flockfile(stderr);
	while (n > 0) {
		const char *nl = memchr(s, '\n', n);
		size_t ll = nl ? (size_t)(nl - s) : n;
		const char *l = s;
		size_t rest = ll;
		while (rest > 0 && l[rest - 1] == '\r')
			rest--;
		if (rest > 0) {
			uint32_t prev = 0;
			fprintf(stderr, "sandbx debug provider %s ", dir);
			while (rest > 0) {
				size_t sl = 0, upto = key_find(l, rest, p->key, kl, &sl), vl;
				char *vis = gate_show_hidden(l, upto, &prev, &vl);
				utf8_term_write(stderr, vis, vl, 1);
				free(vis);
				if (upto == rest)
					break;
				fputs("[redacted]", stderr);
				prev = ']';
				l += upto + sl;
				rest -= upto + sl;
			}
			fputc('\n', stderr);
		}
		if (!nl)
			break;
		n -= ll + 1;
		s = nl + 1;
	}
	funlockfile(stderr);
}

/* The response body for the debug log, logged a whole line at a time: a
 * key cut between two network reads is masked like any other.  A line
 * longer than DBG_LINE_CAP is logged in pieces, each keeping back the
 * bytes that could start a key. */
#define DBG_LINE_CAP (1u << 20)
struct dbg_pending {
	char *buf;
	size_t len;
};

static void dbg_body(const struct prov *p, struct dbg_pending *d, const char *s, size_t n, int final)
{
	d->buf = xrealloc(d->buf, d->len + n + 1);
	memcpy(d->buf + d->len, s, n);
	d->len += n;
	size_t upto = 0;
	for (size_t i = d->len; i > 0; i--)
		if (d->buf[i - 1] == '\n') {
			upto = i;
			break;
		}
	size_t kl = p->key ? strlen(p->key) : 0;
	if (final) {
		/* what is left ends the body: a key's start there is masked */
		upto = key_cut_at(d->buf, d->len, p->key, kl);
		if (upto < d->len) {
			explicit_bzero(d->buf + upto, d->len - upto);
			d->buf = xrealloc(d->buf, upto + sizeof("[redacted]"));
			memcpy(d->buf + upto, "[redacted]", sizeof("[redacted]"));
			d->len = upto + sizeof("[redacted]") - 1;
		}
		upto = d->len;
	} else if (d->len - upto > DBG_LINE_CAP) {
		size_t span = kl * KEY_SPELL_MAX;	/* the longest spelling */
		upto = d->len > span ? d->len - (span ? span - 1 : 0) : 0;
		/* not inside a spelling of the key, whole or cut by the end of
		 * what arrived: the piece ends where it begins */
		for (size_t i = upto >= span ? upto - span + 1 : 0; kl && i < upto; i++) {
			int cut = 0;
			size_t sl = key_spelled(d->buf + i, d->len - i, p->key, kl, &cut);
			if (cut || (sl && i + sl > upto)) {
				upto = i;
				break;
			}
		}
	}
	if (!upto)
		return;
	dbg_bytes(p, "<", d->buf, upto);
	memmove(d->buf, d->buf + upto, d->len - upto);
	d->len -= upto;
}

static void dbg(const struct prov *p, const char *dir, const char *fmt, ...) SBX_ATTR_PRINTF(3, 4);
static void dbg(const struct prov *p, const char *dir, const char *fmt, ...)
{
	char *s;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s) {
		dbg_bytes(p, dir, s, strlen(s));
		free(s);
	}
}

/* ---- one attempt ------------------------------------------------------ */

#define HDR_CAP 256

enum abort_why { AB_NONE, AB_STOP, AB_IDLE, AB_TOTAL };

struct attempt {
	struct prov *p;
	struct fold_msg *m;
	struct sse_parser *sse;
	long status;
	long proxy_status;	/* CURLINFO_HTTP_CONNECTCODE when >= 300 */
	char retry_after[HDR_CAP], retry_after_ms[HDR_CAP], should_retry[HDR_CAP];
	char request_id[HDR_CAP], content_type[HDR_CAP], location[HDR_CAP];
	char content_encoding[HDR_CAP];	/* as sent; "" when absent */
	int have_retry_after, have_retry_after_ms, have_should_retry;
	int unasked_encoding;	/* a 2xx in a Content-Encoding never asked for */
	int header_cap;		/* libcurl refused a header line over its cap */
	char *body;		/* an error response's body, up to PROV_MAX_ERROR_BODY */
	size_t body_len;
	int type_checked, bad_type;
	int type_sse;		/* the content type as sent is text/event-stream */
	int headers_done;	/* the final response's header block ended */
	int in_body;		/* a body byte arrived: header lines now are trailers */
	size_t trailer_bytes;
	uint64_t done_at;	/* when message_stop arrived (0: not yet) */
	int finished;		/* ended here PROV_AFTER_STOP_MS after message_stop */
	struct dbg_pending dbg;	/* body bytes not yet logged (SANDBX_LOG=debug) */
	int stream_failed;	/* the SSE parser or the fold failed */
	char *stream_err;
	enum abort_why abort;
	uint64_t last_rx, deadline;	/* last_rx: the last byte in, or out (ul_seen) */
	curl_off_t ul_seen;	/* request bytes libcurl had sent at last_rx */
};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void copy_hdr(char dst[HDR_CAP], const char *v, size_t n)
{
	if (n >= HDR_CAP)
		n = HDR_CAP - 1;
	memcpy(dst, v, n);
	dst[n] = '\0';
	make_printable(dst);
}

static char *redact_key(const struct prov *p, char *s);

/* A Content-Encoding other than identity: none was asked for. */
static int encoding_unasked(const char *v)
{
	return *v && strcasecmp(v, "identity") != 0;
}

/*
 * Whether a failed allocation of libcurl's could have been memory running
 * out: libcurl 7.x reports a header line over CURL_MAX_HTTP_HEADER as
 * CURLE_OUT_OF_MEMORY, with nothing in the error buffer.  If twice that
 * much can be had now, the refusal was the cap.
 */
static int memory_to_spare(void)
{
	void *q = malloc(2 * (size_t)CURL_MAX_HTTP_HEADER);
	free(q);
	return q != NULL;
}

static size_t on_header(char *buf, size_t size, size_t nitems, void *ud)
{
	struct attempt *a = ud;
	size_t n = size * nitems;
	size_t l = n;
	while (l > 0 && (buf[l - 1] == '\r' || buf[l - 1] == '\n'))
		l--;
	a->last_rx = now_ms();
	if (debugging() && l)
		dbg_bytes(a->p, "<", buf, l);
	/* Chunked trailers come through here too: once the body began,
	 * nothing the server sends changes the status or the retry headers
	 * the verdict rests on. */
	if (a->in_body) {
		a->trailer_bytes += n;
		if (a->trailer_bytes <= PROV_MAX_TRAILERS)
			return n;
		/* Cut the transfer: an answer already whole stands (prov_judge),
		 * else the round fails saying why. */
		if (!a->m->done && !a->stream_failed) {
			a->stream_failed = 1;
			a->stream_err = xasprintf("the answer's chunked trailers went past the %u KiB cap — the "
						  "server sent no end to them; the round failed", PROV_MAX_TRAILERS >> 10);
		}
		return 0;
	}
	if (l > 5 && strncmp(buf, "HTTP/", 5) == 0) {
		/* A new response (after a 100 Continue, say): forget the last. */
		const char *sp = memchr(buf, ' ', l);
		a->status = sp ? strtol(sp + 1, NULL, 10) : 0;
		a->headers_done = 0;
		a->have_retry_after = a->have_retry_after_ms = a->have_should_retry = 0;
		a->request_id[0] = a->content_type[0] = a->location[0] = a->content_encoding[0] = '\0';
		a->type_sse = 0;
		return n;
	}
	if (l == 0 && a->status >= 200) {
		a->headers_done = 1;	/* the blank line after a final response's headers */
		/* sandbx sends no Accept-Encoding, so libcurl decodes nothing:
		 * a compressed stream would reach the SSE parser as noise, read
		 * as a stream that ended before its answer, and be asked for
		 * again and again.  Stop here and say what it is. */
		if (a->status / 100 == 2 && encoding_unasked(a->content_encoding)) {
			a->unasked_encoding = 1;
			return 0;
		}
	}
	const char *colon = memchr(buf, ':', l);
	if (!colon)
		return n;
	size_t nl = (size_t)(colon - buf);
	const char *v = colon + 1;
	while (v < buf + l && (*v == ' ' || *v == '\t'))
		v++;
	size_t vl = (size_t)(buf + l - v);
	while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
		vl--;
#define IS(name) (nl == strlen(name) && strncasecmp(buf, name, nl) == 0)
	if (IS("retry-after")) {
		copy_hdr(a->retry_after, v, vl);
		a->have_retry_after = 1;
	} else if (IS("retry-after-ms")) {
		copy_hdr(a->retry_after_ms, v, vl);
		a->have_retry_after_ms = 1;
	} else if (IS("x-should-retry")) {
		copy_hdr(a->should_retry, v, vl);
		a->have_should_retry = 1;
	} else if (IS("content-encoding")) {
		copy_hdr(a->content_encoding, v, vl);
	} else if (IS("request-id") || IS("content-type") || IS("location")) {
		/* judged as sent: the masked copy of a key that is part of
		 * it ('stream', 'text/event') would no longer read
		 * text/event-stream */
		if (IS("content-type"))
			a->type_sse = vl >= 17 && strncasecmp(v, "text/event-stream", 17) == 0;
		/* shown in messages: the key masked before the value is cut */
		char *full = redact_key(a->p, xstrndup(v, vl));
		copy_hdr(IS("request-id") ? a->request_id : IS("location") ? a->location : a->content_type, full,
			 strlen(full));
		free(full);
	}
#undef IS
	return n;
}

static size_t on_body(char *buf, size_t size, size_t nmemb, void *ud)
{
	struct attempt *a = ud;
	size_t n = size * nmemb;
	a->last_rx = now_ms();
	a->in_body = 1;
	if (debugging())
		dbg_body(a->p, &a->dbg, buf, n, 0);
	if (a->status / 100 != 2) {
		size_t room = PROV_MAX_ERROR_BODY - a->body_len;
		size_t take = n < room ? n : room;
		if (take) {
			a->body = xrealloc(a->body, a->body_len + take + 1);
			memcpy(a->body + a->body_len, buf, take);
			a->body_len += take;
			a->body[a->body_len] = '\0';
		}
		/* The status is the answer and the kept start its detail: the
		 * rest of a long (or endless) error body is not waited for. */
		return a->body_len < PROV_MAX_ERROR_BODY ? n : 0;
	}
	if (!a->type_checked) {
		a->type_checked = 1;
		if (!a->type_sse) {
			/* Its start is kept: a gateway answering 200 with a
			 * JSON error says there what is wrong. */
			size_t take = n < PROV_MAX_ERROR_BODY ? n : PROV_MAX_ERROR_BODY;
			a->body = xrealloc(a->body, take + 1);
			memcpy(a->body, buf, take);
			a->body_len = take;
			a->body[take] = '\0';
			a->bad_type = 1;
			return 0;
		}
	}
	if (a->m->done)
		return n;	/* after message_stop: nothing is read into the message */
	char *err = NULL;
	if (sse_feed(a->sse, buf, n, &err) != 0) {
		a->stream_failed = 1;
		a->stream_err = a->m->err ? xstrdup(a->m->err) : err;
		if (a->m->err)
			free(err);
		return 0;	/* abort the transfer: CURLE_WRITE_ERROR */
	}
	if (a->p->o.on_flush)
		a->p->o.on_flush(a->p->o.ctx);
	if (a->m->done && !a->done_at)
		a->done_at = a->last_rx;
	return n;
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	struct attempt *a = ud;
	const struct prov_opts *o = &a->p->o;
	uint64_t t = now_ms();
	/* The request going out is traffic too: a long conversation sent
	 * over a slow link is not a silent server. */
	if (ulnow > a->ul_seen) {
		a->ul_seen = ulnow;
		a->last_rx = t;
	}
	if (o->stop && *o->stop) {
		a->abort = AB_STOP;
	} else if (a->done_at && t - a->done_at >= PROV_AFTER_STOP_MS) {
		/* The answer is whole; a connection held open after it (pings,
		 * silence) must not turn it into a timeout.  The wait lets a
		 * stream that ends as it should keep its connection. */
		a->finished = 1;
		return 1;
	} else if (t >= a->deadline)
		a->abort = AB_TOTAL;
	else if (t - a->last_rx >= o->idle_ms)
		a->abort = AB_IDLE;
	return a->abort != AB_NONE;
}

static struct curl_slist *headers(struct prov *p)
{
	const struct dlcurl *c = p->c;
	char *k = xasprintf("x-api-key: %s", p->key);
	struct curl_slist *l = c->slist_append(NULL, k);
	explicit_bzero(k, strlen(k));
	free(k);
	l = c->slist_append(l, "anthropic-version: " PROV_ANTHROPIC_VERSION);
	l = c->slist_append(l, "content-type: application/json");
	l = c->slist_append(l, "accept: text/event-stream");
	l = c->slist_append(l, "Expect:");	/* no 100-continue wait on large bodies */
	return l;
}

static CURLcode perform(struct prov *p, struct attempt *a, const char *body, size_t body_len,
			struct curl_slist *hdrs, char errbuf[CURL_ERROR_SIZE])
{
	const struct dlcurl *c = p->c;
	CURL *h = p->h;
	c->easy_reset(h);
	errbuf[0] = '\0';
	c->easy_setopt(h, CURLOPT_URL, p->url);
	c->easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https,http");
	c->easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	c->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	c->easy_setopt(h, CURLOPT_POST, 1L);
	c->easy_setopt(h, CURLOPT_POSTFIELDS, body);
	c->easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
	c->easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	c->easy_setopt(h, CURLOPT_USERAGENT, "sandbx");
	c->easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)p->o.connect_ms);
	if (p->plain_http)
		c->easy_setopt(h, CURLOPT_PROXY, "");	/* an http_proxy would see the key in clear */
	/* A proxy's answer to CONNECT is not the provider's: its status must
	 * not read as the provider refusing the key (curl names the proxy's
	 * refusal in its error). */
	c->easy_setopt(h, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);
	c->easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	c->easy_setopt(h, CURLOPT_BUFFERSIZE, PROV_RECV_BUFFER);
	c->easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	c->easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	c->easy_setopt(h, CURLOPT_HEADERDATA, a);
	c->easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	c->easy_setopt(h, CURLOPT_WRITEDATA, a);
	c->easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	c->easy_setopt(h, CURLOPT_XFERINFODATA, a);
	c->easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	CURLcode rc = c->easy_perform(h);
	/* A status line came, its header block did not end: libcurl stopped
	 * inside the headers.  Out of memory there (7.x) or too large (8.x)
	 * is a header line over its cap (CURLE_TOO_LARGE, 8.6, is 100). */
	if (a->status > 0 && !a->headers_done && !a->in_body &&
	    ((rc == CURLE_OUT_OF_MEMORY && memory_to_spare()) || (int)rc == 100))
		a->header_cap = 1;
	if (a->status == 0) {
		long st = 0;
		c->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &st);
		a->status = st;
	}
	/* An interim 1xx that no final response followed is no answer: the
	 * connection failed (curl says how), it was not a refusal. */
	if (a->status < 200)
		a->status = 0;
	long pc = 0;
	if (c->easy_getinfo(h, CURLINFO_HTTP_CONNECTCODE, &pc) == CURLE_OK && pc >= 300)
		a->proxy_status = pc;
	/* Forget the pointers to this stack frame (error buffer, callbacks'
	 * data) before returning; live connections are kept. */
	c->easy_reset(h);
	return rc;
}

/* Connection-level failures that a new attempt may cure. */
static int curl_retryable(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
	case CURLE_WEIRD_SERVER_REPLY:
		return 1;
	default:
		return 0;
	}
}

static const char *status_what(long status, char buf[64])
{
	switch (status) {
	case 408:
		return "request timed out";
	case 409:
		return "conflict";
	case 429:
		return "rate limited";
	case 529:
		return "overloaded";
	default:
		snprintf(buf, 64, status >= 500 ? "server error %ld" : "HTTP %ld", status);
		return buf;
	}
}

static const char *status_advice(long status)
{
	switch (status) {
	case 400:
		return "the provider did not accept the request; SANDBX_LOG=debug shows it";
	case 401:
	case 403:
		return "check the API key (ANTHROPIC_API_KEY or 'sandbx auth login')";
	case 404:
		return "check --model and --base-url";
	case 413:
		return "the conversation is too large; start a new session";
	case 429:
		return "wait a while, or lower the request rate";
	default:
		return status >= 500 ? "the provider has trouble; try again later" : "SANDBX_LOG=debug shows the exchange";
	}
}

/* What the server wrote goes into messages shown on a terminal: one
 * line, C0 and C1 controls made '?'. */
static void make_printable(char *s)
{
	for (unsigned char *p = (unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			p[0] = p[1] = '?';
	}
}

/* s (taken) with every copy of the key written [redacted]: what a server
 * echoes back, an error page quoting the request, never shows the key. */
static char *redact_key(const struct prov *p, char *s)
{
	size_t kl = p->key ? strlen(p->key) : 0, hits = 0, sl, kn;
	if (!s || !kl)
		return s;
	sl = strlen(s);
	for (size_t at = 0; (at += key_find(s + at, sl - at, p->key, kl, &kn)) < sl; at += kn)
		hits++;
	if (!hits)
		return s;
	/* a spelling is never shorter than the key, nor the key than 1 */
	char *r = xmalloc(sl + hits * sizeof("[redacted]") + 1), *w = r;
	for (size_t at = 0;;) {
		size_t upto = key_find(s + at, sl - at, p->key, kl, &kn);
		memcpy(w, s + at, upto);
		w += upto;
		at += upto;
		if (at == sl)
			break;
		memcpy(w, "[redacted]", 10);
		w += 10;
		at += kn;
	}
	*w = '\0';
	explicit_bzero(s, sl);
	free(s);
	return r;
}

/* The error type and message of an {"type":"error","error":{...}} body
 * (the caller masks the key in what it builds from it). */
static char *error_body_text(const struct prov *p, const char *body, size_t len)
{
	if (!body || !len)
		return xstrdup("");
	cJSON *j = cJSON_ParseWithLength(body, len);
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(e, "type");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
	char *r;
	if (cJSON_IsString(t) && cJSON_IsString(m))
		r = xasprintf("%s: %s", t->valuestring, m->valuestring);
	else if (cJSON_IsString(m))
		r = xstrdup(m->valuestring);
	else {
		/* not the API's shape: its start, the key masked before the
		 * cut, also a key's start where the body was cut short */
		char *full = mask_cut_key(p, redact_key(p, xstrndup(body, len)));
		r = xasprintf("%.200s", full);
		free(full);
	}
	cJSON_Delete(j);
	make_printable(r);
	return r;
}

/* The detail of an error status: its body's text, or what it is when it
 * came compressed (never asked for, so libcurl left it so). */
static char *attempt_body_text(const struct attempt *a)
{
	if (a->body_len && encoding_unasked(a->content_encoding))
		return xasprintf("(a body in Content-Encoding %s, which sandbx did not ask for)", a->content_encoding);
	return error_body_text(a->p, a->body, a->body_len);
}

static void attempt_release(struct attempt *a)
{
	if (a->dbg.len)
		dbg_body(a->p, &a->dbg, "", 0, 1);
	free(a->dbg.buf);
	sse_free(a->sse);
	free(a->body);
	free(a->stream_err);
}

static double jitter(void)
{
	uint32_t r = 0;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = (uint32_t)now_ms() * 2654435761u;
	return r / 4294967296.0;
}

/* Wait ms, waking every 50 ms for the stop flag; PROV_STOPPED or 0. */
static int wait_ms(const struct prov_opts *o, unsigned ms)
{
	uint64_t end = now_ms() + ms;
	for (;;) {
		if (o->stop && *o->stop)
			return PROV_STOPPED;
		uint64_t t = now_ms();
		if (t >= end)
			return 0;
		uint64_t d = end - t < 50 ? end - t : 50;
		struct timespec ts = { 0, (long)d * 1000000L };
		nanosleep(&ts, NULL);
	}
}

int prov_round(struct prov *p, const struct prov_request *rq, struct fold_msg *m, char **err)
{
	cJSON *bj = prov_body(rq, err);
	if (!bj)
		return -1;
	size_t body_len;
	char *body = json_print_capped(bj, PROV_MAX_REQUEST, &body_len);
	cJSON_Delete(bj);
	if (!body) {
		*err = xasprintf("the request would be larger than the %u MiB the model provider takes — the "
				 "conversation is too long to go on: start a new session", PROV_MAX_REQUEST >> 20);
		return -1;
	}
	struct curl_slist *hdrs = headers(p);
	const unsigned flags = m->flags;
	const struct fold_hooks hooks = m->hooks;
	const uint64_t deadline = now_ms() + p->o.total_ms;
	const unsigned max = p->o.max_retries;
	unsigned retries = 0;
	int rc = -1;
	char errbuf[CURL_ERROR_SIZE];

	if (debugging()) {
		dbg(p, ">", "POST %s", p->url);
		for (struct curl_slist *l = hdrs; l; l = l->next)
			dbg(p, ">", "%s", strncmp(l->data, "x-api-key:", 10) == 0 ? "x-api-key: [redacted]" : l->data);
		dbg_bytes(p, ">", body, body_len);
	}
	for (;;) {
		if (p->o.stop && *p->o.stop) {
			*err = xstrdup("the round was stopped");
			rc = PROV_STOPPED;
			break;
		}
		fold_release(m);
		fold_init(m, flags, &hooks);
		struct attempt a = { .p = p, .m = m, .sse = sse_new(0, fold_sse_event, m) };
		sse_set_fast(a.sse, fold_sse_fast);
		a.last_rx = now_ms();
		a.deadline = deadline;
		CURLcode cc = perform(p, &a, body, body_len, hdrs, errbuf);
		const char *cerr = errbuf[0] ? errbuf : p->c->easy_strerror(cc);

		/* What the attempt came to: done, failed, or worth a retry. */
		struct prov_outcome o = {
			.stopped = a.abort == AB_STOP,
			.idle = a.abort == AB_IDLE,
			.over_total = a.abort == AB_TOTAL,
			.bad_type = a.bad_type,
			.header_cap = a.header_cap,
			.unasked_encoding = a.unasked_encoding,
			.stream_failed = a.stream_failed,
			.error_event = m->error_type,
			.content = m->content,
			.done = m->done,
			.status = a.status,
			.headers_done = a.headers_done,
			.proxy_status = a.proxy_status,
			.transfer_ok = cc == CURLE_OK || (a.finished && cc == CURLE_ABORTED_BY_CALLBACK),
			.transfer_retryable = curl_retryable(cc),
			.should_retry = a.have_should_retry ? a.should_retry : NULL,
		};
		enum prov_verdict v = prov_judge(&o);
		char whatbuf[64];
		const char *what = NULL;
		char *detail = NULL;
		switch (v) {
		case PROV_V_DONE:
			rc = 0;
			break;
		case PROV_V_STOPPED:
			*err = xstrdup("the round was stopped");
			rc = PROV_STOPPED;
			break;
		case PROV_V_TIMEOUT: {
			/* the limit as set: one under a second read "0 s",
			 * one not whole lost its fraction */
			char lim[32];
			prov_duration(o.idle ? p->o.idle_ms : p->o.total_ms, lim, sizeof(lim));
			if (o.idle)
				*err = xasprintf("the model provider sent nothing for %s — the round failed; try again", lim);
			else
				*err = xasprintf("the round took longer than its %s cap — the round failed; try again", lim);
			rc = PROV_TIMEOUT;
			break;
		}
		case PROV_V_RETRY:
			if (o.proxy_status) {
				what = "the proxy failed the tunnel";
				detail = xstrdup(cerr);
			} else if (o.stream_failed) {
				what = strcmp(o.error_event, "overloaded_error") == 0 ? "overloaded" : "server error";
				detail = xstrdup(m->error_message ? m->error_message : "");
			} else if (o.status / 100 == 2) {
				what = "connection lost";
				detail = xstrdup(!o.transfer_ok ? cerr : "the stream ended before the answer began");
			} else if (o.status == 0) {
				what = "connection failed";
				detail = xstrdup(cerr);
			} else {
				what = status_what(o.status, whatbuf);
				detail = attempt_body_text(&a);
			}
			break;
		case PROV_V_FAIL:
		default:
			if (o.proxy_status) {
				*err = xasprintf("the proxy refused the tunnel to the model provider: HTTP %ld — the request "
						 "never reached '%s'; check https_proxy, HTTPS_PROXY, ALL_PROXY and no_proxy",
						 o.proxy_status, p->url);
			} else if (o.header_cap) {
				*err = xasprintf("the model provider sent a response header line longer than libcurl's %d KiB "
						 "cap (CURL_MAX_HTTP_HEADER) in its HTTP %ld answer%s%s%s — the round failed, not "
						 "retried (the same answer would come again); check --base-url: the API sends no "
						 "such header, a proxy or gateway in between may",
						 CURL_MAX_HTTP_HEADER >> 10, o.status, errbuf[0] ? " (" : "", errbuf,
						 errbuf[0] ? ")" : "");
			} else if (o.unasked_encoding) {
				*err = xasprintf("the model provider sent its answer compressed (Content-Encoding: %s), which "
						 "sandbx did not ask for and does not decode — the round failed, not retried; "
						 "check --base-url: a proxy or gateway in between may be compressing",
						 a.content_encoding);
			} else if (o.bad_type) {
				char *body_text = attempt_body_text(&a);
				*err = xasprintf("the model provider answered with '%s', not an event stream%s%s — check "
						 "--base-url", a.content_type[0] ? a.content_type : "no content type",
						 *body_text ? ": " : "", body_text);
				free(body_text);
			} else if (o.stream_failed) {
				*err = xstrdup(a.stream_err ? a.stream_err : "the answer stream could not be read");
			} else if (o.status / 100 == 2) {
				if (!o.transfer_ok)
					*err = xasprintf("the connection to the model provider broke mid-answer (%s) — the round failed; try again", cerr);
				else
					*err = xstrdup("the answer stream ended before message_stop — the round failed; try again");
			} else if (o.status == 0) {
				*err = xasprintf("cannot reach the model provider at '%s': %s — check --base-url and the network", p->url, cerr);
			} else if (o.status / 100 == 3) {
				*err = xasprintf("the model provider answered with a redirect: HTTP %ld%s%s%s — redirects are "
						 "not followed (the API key would go along); check --base-url", o.status,
						 a.location[0] ? " to '" : "", a.location, a.location[0] ? "'" : "");
			} else {
				char *body_text = attempt_body_text(&a);
				*err = xasprintf("the model provider refused the request: HTTP %ld%s%s%s%s%s — %s", o.status,
						 *body_text ? " " : "", body_text, a.request_id[0] ? " (request-id " : "", a.request_id,
						 a.request_id[0] ? ")" : "", status_advice(o.status));
				free(body_text);
			}
			break;
		}
		if (v != PROV_V_RETRY) {
			attempt_release(&a);
			break;
		}
		detail = redact_key(p, detail);

		long ra = prov_retry_after_ms(a.have_retry_after ? a.retry_after : NULL,
					      a.have_retry_after_ms ? a.retry_after_ms : NULL, time(NULL));
		if (ra > (long)PROV_MAX_RETRY_AFTER_MS) {
			/* Retrying sooner than the provider asked would only be
			 * refused again (and counts against the account); waiting
			 * that long is the user's call, not a round's. */
			char asked[48];
			if (ra >= (long)PROV_RETRY_AFTER_CLAMP_MS)
				snprintf(asked, sizeof(asked), "over %ld s", (long)(PROV_RETRY_AFTER_CLAMP_MS / 1000));
			else
				snprintf(asked, sizeof(asked), "%ld s", (ra + 999) / 1000);
			*err = xasprintf("the model provider failed the round: %s%s%s — it asked to wait %s before a retry "
					 "(%s), longer than the %u s sandbx waits, so it was not retried; try again later",
					 what, *detail ? ": " : "", detail, asked,
					 a.have_retry_after_ms && prov_retry_after_ms(NULL, a.retry_after_ms, time(NULL)) > 0
						 ? "retry-after-ms" : "retry-after",
					 PROV_MAX_RETRY_AFTER_MS / 1000);
			free(detail);
			attempt_release(&a);
			break;
		}

		/* A retry, if any are left and the deadline allows. */
		if (retries >= max) {
			/* A handshake that failed every time is most often a
			 * server without TLS (a local proxy given https://). */
			char *tls = !a.proxy_status && !a.status && cc == CURLE_SSL_CONNECT_ERROR
					    ? xasprintf("check that the server at '%s' speaks TLS (one on loopback without it "
							"takes http://)", p->url)
					    : NULL;
			/* No answer at all: the address is the likelier fault
			 * than the provider (a server not running, a typo). */
			char *unreached = !a.proxy_status && !a.status && !tls
						  ? xasprintf("check --base-url ('%s') and the network", p->url)
						  : NULL;
			*err = xasprintf("the model provider failed the round: %s%s%s — gave up after %u %s; %s", what,
					 *detail ? ": " : "", detail, retries, retries == 1 ? "retry" : "retries",
					 a.proxy_status ? "check https_proxy, HTTPS_PROXY, ALL_PROXY and no_proxy"
					 : tls		? tls
					 : unreached	? unreached
							: status_advice(a.status ? a.status : 500));
			free(unreached);
			free(tls);
			free(detail);
			attempt_release(&a);
			break;
		}
		retries++;
		unsigned delay = ra > 0 ? (unsigned)ra : prov_backoff_ms(retries, p->o.backoff_ms, p->o.backoff_max_ms, jitter());
		if (now_ms() + delay >= deadline) {
			char lim[32];
			prov_duration(p->o.total_ms, lim, sizeof(lim));
			*err = xasprintf("the model provider failed the round: %s%s%s — no time left in the round's %s cap to retry",
					 what, *detail ? ": " : "", detail, lim);
			rc = PROV_TIMEOUT;
			free(detail);
			attempt_release(&a);
			break;
		}
		struct prov_retry r = { retries, max, delay, a.status, what, detail };
		if (debugging()) {
			char *t = prov_retry_text(&r);
			dbg(p, "!", "%s (%s)", t, detail);
			free(t);
		}
		if (p->o.on_retry)
			p->o.on_retry(p->o.ctx, &r);
		free(detail);
		attempt_release(&a);
		if (wait_ms(&p->o, delay) == PROV_STOPPED) {
			*err = xstrdup("the round was stopped");
			rc = PROV_STOPPED;
			break;
		}
	}
	if (rc != 0 && err && *err)
		*err = redact_key(p, *err);
	for (struct curl_slist *l = hdrs; l; l = l->next)	/* the key's copy */
		explicit_bzero(l->data, strlen(l->data));
	p->c->slist_free_all(hdrs);
	free(body);
	return rc;
}

int prov_new(const struct prov_opts *o, struct prov **out, char **err)
{
	if (!o->api_key || !*o->api_key) {
		*err = xstrdup("no API key — set ANTHROPIC_API_KEY or run 'sandbx auth login'");
		return -1;
	}
	/* The callers checked it where it came in (credentials.h); this is
	 * the last door before it goes into a header. */
	const char *why = cred_key_problem(o->api_key);
	if (why) {
		*err = xasprintf("the API key is not one: %s — check ANTHROPIC_API_KEY, or run 'sandbx auth login'", why);
		return -1;
	}
	const struct dlcurl *c = dlcurl_load(err);
	if (!c)
		return -1;
	char *url = NULL;
	if (prov_messages_url(o->base_url ? o->base_url : PROV_DEFAULT_BASE_URL, &url, err) < 0)
		return -1;
	CURL *h = c->easy_init();
	if (!h) {
		free(url);
		*err = xstrdup("libcurl could not start a transfer (curl_easy_init failed) — " DLCURL_OOM_ADVICE);
		return -1;
	}
	struct prov *p = xcalloc(1, sizeof(*p));
	p->c = c;
	p->h = h;
	p->url = url;
	p->key = xstrdup(o->api_key);
	p->plain_http = strncmp(url, "http://", 7) == 0;
	p->o = *o;
	p->o.base_url = NULL;
	p->o.api_key = NULL;
	if (p->o.max_retries == 0)
		p->o.max_retries = PROV_DEFAULT_RETRIES;
	else if (p->o.max_retries == PROV_NO_RETRIES)
		p->o.max_retries = 0;
	if (!p->o.idle_ms)
		p->o.idle_ms = PROV_DEFAULT_IDLE_MS;
	if (!p->o.total_ms)
		p->o.total_ms = PROV_DEFAULT_TOTAL_MS;
	if (!p->o.connect_ms)
		p->o.connect_ms = PROV_DEFAULT_CONNECT_MS;
	if (!p->o.backoff_ms)
		p->o.backoff_ms = PROV_DEFAULT_BACKOFF_MS;
	if (!p->o.backoff_max_ms)
		p->o.backoff_max_ms = PROV_DEFAULT_BACKOFF_MAX_MS;
	*out = p;
	return 0;
}

void prov_free(struct prov *p)
{
	if (!p)
		return;
	p->c->easy_cleanup(p->h);
	if (p->key) {
		explicit_bzero(p->key, strlen(p->key));
		free(p->key);
	}
	free(p->url);
	free(p);
}
