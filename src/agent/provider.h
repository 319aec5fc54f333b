/*
 * provider.h — one round against the Anthropic Messages API, streamed:
 * POST {base}/v1/messages with "stream": true, the SSE answer folded into
 * a struct fold_msg as it arrives (fold.h), retries while nothing of the
 * answer has arrived yet.
 *
 * Life cycle and ownership:
 *   1. prov_new(&opts, &p, &err) — checks the key (cred_key_problem) and
 *      the base URL (https, or http to a loopback host only), loads
 *      libcurl (curl.h), copies the URL and the key; opts.on_retry/on_flush/ctx/stop are kept as given (the
 *      caller keeps them alive until prov_free).
 *   2. For each round:
 *        struct fold_msg m;
 *        fold_init(&m, flags, &hooks);          hooks print deltas live
 *        rc = prov_round(p, &req, &m, &err);    req and its cJSON borrowed
 *        ... m.stop_reason, m.usage; tool calls: blocks i with
 *            fold_tool_ready(&m, i) (id, name, input) ...
 *        content = fold_content_take(&m);       moved into the history as
 *                                               {"role":"assistant","content":...}
 *        fold_release(&m);
 *      prov_round resets m (keeping its flags and hooks) before each
 *      attempt, so a retried attempt starts from an empty message.
 *      The connection is kept between rounds when the server allows it.
 *   3. prov_free(p).
 * One struct prov is used by one thread at a time.
 *
 * prov_round returns
 *   0             m is complete: message_stop seen, m.stop_reason set
 *   PROV_STOPPED  *opts.stop became non-zero (checked from libcurl's
 *                 progress callback — within tens of ms in practice, about
 *                 a second at worst — and every 50 ms while waiting to retry)
 *   PROV_TIMEOUT  no byte in or out for opts.idle_ms (pings count, and so
 *                 does the request going out), or the
 *                 round went past opts.total_ms, retries and waits included
 *                 (in the body of an HTTP error status neither counts: the
 *                 round fails on that status, -1, not retried)
 *   -1            any other failure; *err says what, in sbx_err() form
 * and on every non-zero return fills *err (malloc'd, caller frees); m then
 * holds whatever arrived (m.content tells whether the answer had begun).
 *
 * Retries happen only before any content block arrived: on connection
 * errors, HTTP 408, 409, 429 and >= 500 (529 overloaded included), and on
 * an "error" stream event of type overloaded_error or api_error.  An
 * x-should-retry: true|false header overrides the status.  The wait is
 * retry-after-ms or retry-after (seconds or an HTTP date) when in (0, 60 s],
 * else exponential backoff (backoff_ms doubling up to backoff_max_ms) with
 * up to 25 % jitter taken off.  Each retry is reported to on_retry first.
 * Never retried, as the same server would send them again: a header line
 * over libcurl's CURL_MAX_HTTP_HEADER, and a 2xx with a Content-Encoding
 * (none is asked for, so libcurl decodes nothing); both are named.
 * Once content arrived any failure fails the round.  Redirects are never
 * followed (the key would go along).  Plain http (loopback only) never
 * goes through a proxy from http_proxy/ALL_PROXY; https may (a CONNECT
 * tunnel keeps TLS end to end).  A proxy's refusal of the tunnel fails the
 * round as the proxy's, retried only for a transient status.
 *
 * Signals: libcurl runs with CURLOPT_NOSIGNAL (no SIGALRM, safe with
 * threads), so the program should ignore SIGPIPE, as libcurl asks of such
 * callers; the stop flag is the way to interrupt a round.
 *
 * SANDBX_LOG=debug writes the request (URL, headers, body) and the
 * response (status, headers, body as it streams) to stderr, as lines
 * starting "sandbx debug provider"; the API key is written as [redacted].
 */
#ifndef SBX_PROVIDER_H
#define SBX_PROVIDER_H

#include <errno.h>
#include <signal.h>
#include <time.h>

#include "util/cjson.h"

#include "agent/fold.h"

#define PROV_STOPPED (-ECANCELED)
#define PROV_TIMEOUT (-ETIMEDOUT)

#define PROV_ANTHROPIC_VERSION "2023-06-01"
#define PROV_DEFAULT_BASE_URL "https://api.anthropic.com"
#define PROV_DEFAULT_RETRIES 4
#define PROV_NO_RETRIES (~0u)		/* max_retries value meaning "none" */
#define PROV_DEFAULT_IDLE_MS 90000u
#define PROV_DEFAULT_TOTAL_MS 900000u
#define PROV_DEFAULT_CONNECT_MS 30000u
#define PROV_DEFAULT_BACKOFF_MS 500u
#define PROV_DEFAULT_BACKOFF_MAX_MS 8000u
#define PROV_MAX_RETRY_AFTER_MS 60000u	/* a longer retry-after fails the round at once */
#define PROV_RETRY_AFTER_CLAMP_MS 1000000000u	/* prov_retry_after_ms's largest answer */
#define PROV_MAX_ERROR_BODY (64u << 10)	/* bytes of an HTTP error body kept */
/* Chunked trailers taken before the transfer is cut: libcurl keeps each
 * one (curl_easy_header) for the whole transfer, and caps only the
 * headers before the body. */
#define PROV_MAX_TRAILERS (64u << 10)
/* The largest request body sent: the Messages API takes no more than
 * 32 MB, and printing a longer history (a hostile endpoint's 64 MiB
 * answers, their control characters 6 bytes each once escaped) would cost
 * gigabytes over a few rounds. */
#define PROV_MAX_REQUEST (32u << 20)
#define PROV_RECV_BUFFER (128L << 10)	/* libcurl's receive buffer: fewer reads */
#define PROV_AFTER_STOP_MS 1000u	/* the stream's own end awaited after message_stop */

struct prov_retry {
	unsigned attempt;	/* this retry's number, 1..max */
	unsigned max;
	unsigned delay_ms;	/* the wait before it */
	long status;		/* HTTP status; 0 for a connection error */
	const char *what;	/* "overloaded", "rate limited", "server error 502",
				 * "connection failed", ... */
	const char *detail;	/* the server's message or curl's; may be "" */
};

struct prov_opts {
	const char *base_url;	/* NULL: PROV_DEFAULT_BASE_URL; the caller
				 * resolves --base-url / ANTHROPIC_BASE_URL */
	const char *api_key;	/* required */
	unsigned max_retries;	/* 0: PROV_DEFAULT_RETRIES; PROV_NO_RETRIES: none */
	unsigned idle_ms;	/* 0: defaults above */
	unsigned total_ms;
	unsigned connect_ms;
	unsigned backoff_ms;
	unsigned backoff_max_ms;
	void (*on_retry)(void *ctx, const struct prov_retry *r);
	/* Called after each piece read from the network was folded (so after
	 * a batch of hook calls): flush printed deltas here, not per delta.
	 * May be NULL. */
	void (*on_flush)(void *ctx);
	void *ctx;		/* for on_retry and on_flush */
	volatile sig_atomic_t *stop;	/* may be NULL */
};

struct prov_request {
	const char *model;		/* required */
	unsigned max_tokens;		/* > 0 */
	const char *system;		/* NULL or "": none */
	const cJSON *messages;		/* non-empty array; borrowed */
	const cJSON *tools;		/* array of {name, description,
					 * input_schema}; NULL: none; borrowed */
	int tool_choice_none;		/* wrap-up round: tool_choice {"type":"none"} */
};

struct prov;

int prov_new(const struct prov_opts *o, struct prov **out, char **err);
int prov_round(struct prov *p, const struct prov_request *rq, struct fold_msg *m, char **err);
void prov_free(struct prov *p);

/* "overloaded — retrying in 4 s, attempt 2 of 4" (malloc'd). */
char *prov_retry_text(const struct prov_retry *r);

/* --- pure parts, exposed for tests --------------------------------- */

/* A wait or a limit as the messages name it: "4 s", "1.5 s", under a
 * second "375 ms" (never "0 s" for a wait that was not nothing). */
void prov_duration(unsigned ms, char *buf, size_t n);

/*
 * The request body as a JSON object, or NULL with *err when rq is not
 * usable.  messages and tools are referenced, not copied: free the result
 * with cJSON_Delete before them.
 */
cJSON *prov_body(const struct prov_request *rq, char **err);

/*
 * Check a base URL and build {base}/v1/messages into *url (malloc'd).
 * Accepted: https://HOST[:PORT][/PREFIX], or http:// to localhost,
 * 127.0.0.0/8 or ::1.  Refused: other schemes, http elsewhere, user
 * names or passwords, a query or fragment.  0, or -1 with *err.
 */
int prov_messages_url(const char *base, char **url, char **err);

/* 1 when host (as in a URL; "[::1]" brackets allowed) is loopback. */
int prov_host_is_loopback(const char *host);

/* Whether an HTTP status is worth a retry, x-should-retry (NULL when
 * absent) overriding. */
int prov_status_retryable(long status, const char *x_should_retry);

/* What one attempt saw, for prov_judge. */
struct prov_outcome {
	int stopped;		/* the stop flag ended it */
	int idle;		/* the idle limit ended it */
	int over_total;		/* the round's total cap ended it */
	int bad_type;		/* a 2xx that is not text/event-stream */
	int header_cap;		/* a header line over libcurl's cap
				 * (CURL_MAX_HTTP_HEADER) stopped it */
	int unasked_encoding;	/* a 2xx sent with a Content-Encoding,
				 * though none was asked for */
	int stream_failed;	/* the SSE parser or the fold failed */
	const char *error_event;	/* an error event's type, or NULL */
	int content;		/* a content block had arrived */
	int done;		/* message_stop was seen */
	long status;		/* the final HTTP status; 0 when none came */
	int headers_done;	/* that response's headers all arrived */
	long proxy_status;	/* a proxy's refusal of the CONNECT tunnel
				 * (>= 300), or 0 */
	int transfer_ok;	/* libcurl ended without an error */
	int transfer_retryable;	/* its error is a connection failure worth
				 * another attempt (refused, reset, cut...) */
	const char *should_retry;	/* x-should-retry, or NULL */
};

enum prov_verdict {
	PROV_V_DONE,		/* the message is complete */
	PROV_V_RETRY,		/* nothing was shown yet: another attempt may */
	PROV_V_FAIL,		/* the round fails */
	PROV_V_STOPPED,		/* the round fails as PROV_STOPPED */
	PROV_V_TIMEOUT,		/* the round fails as PROV_TIMEOUT */
};

/* The retry rule of the header comment, as a pure function (whether a
 * retry is left, and the wait, are decided after it). */
enum prov_verdict prov_judge(const struct prov_outcome *o);

/* The server's wait in ms from retry-after-ms / retry-after (either may
 * be NULL), or -1 when absent, unparsable or <= 0; at most
 * PROV_RETRY_AFTER_CLAMP_MS.  One over PROV_MAX_RETRY_AFTER_MS is not
 * waited for: prov_round fails the round, saying how long was asked. */
long prov_retry_after_ms(const char *retry_after, const char *retry_after_ms, time_t now);

/* Backoff before retry number attempt (1-based): base * 2^(attempt-1)
 * capped at max, less jitter01 * 25 %. */
unsigned prov_backoff_ms(unsigned attempt, unsigned base_ms, unsigned max_ms, double jitter01);

#endif
