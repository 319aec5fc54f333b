/*
 * provcat — one provider round against a server, the folded message as
 * JSON on stdout: tests the provider end to end before agent-run exists.
 *
 *   provcat --base-url URL [--key KEY] [--model M] [--max-tokens N]
 *           [--system TEXT] (--prompt TEXT | --messages FILE) [--tools FILE]
 *           [--wrap-up] [--drop-text] [--retries N] [--idle-ms N]
 *           [--total-ms N] [--backoff-ms N] [--stop-after-ms N] [--stream-out]
 *
 * The key defaults to $ANTHROPIC_API_KEY.  stdout gets one line:
 *   {"rc":N,"error":STR|null,"streamed":STR,"retries":N,"message":{...}}
 * where streamed is the text the hooks saw and message is fold_msg_json.
 * stderr gets "retry: <prov_retry_text>" for each retry.  With
 * --stream-out the text deltas go to stdout as they arrive (as agent-run
 * prints them), are not gathered into "streamed", and the JSON line goes
 * to stderr instead, with stop_reason, blocks and kept_bytes in place of
 * the message: for throughput and memory measurements.  Exit status: 0
 * answered, 1 failed, 4 timed out, 5 stopped.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "agent/fold.h"
#include "agent/provider.h"
#include "util/log.h"
#include "util/util.h"

static volatile sig_atomic_t stop_flag;

static void on_alarm(int sig)
{
	stop_flag = 1;
}

struct out {
	int stream_out;
	char *text;
	size_t len, cap;
	int retries;
};

static void on_text(void *ctx, size_t index, const char *s, size_t n)
{
	struct out *o = ctx;
	if (o->stream_out) {
		fwrite_unlocked(s, 1, n, stdout);	/* one thread: no lock per delta */
		return;
	}
	if (o->len + n + 1 > o->cap) {
		o->cap = (o->len + n + 1) * 2;
		o->text = xrealloc(o->text, o->cap);
	}
	memcpy(o->text + o->len, s, n);
	o->len += n;
	o->text[o->len] = '\0';
}

static void on_retry(void *ctx, const struct prov_retry *r)
{
	struct out *o = ctx;
	char *t = prov_retry_text(r);
	fprintf(stderr, "retry: %s\n", t);
	fflush(stderr);
	free(t);
	o->retries++;
}

static void on_flush(void *ctx)
{
	if (((struct out *)ctx)->stream_out)
		fflush(stdout);
}

static cJSON *read_json(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "provcat: cannot open '%s'\n", path);
		exit(1);
	}
	char *buf = NULL;
	size_t len = 0, cap = 0;
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			buf = xrealloc(buf, cap);
		}
		memcpy(buf + len, chunk, n);
		len += n;
	}
	fclose(f);
	cJSON *j = buf ? cJSON_ParseWithLength(buf, len) : NULL;
	free(buf);
	if (!j) {
		fprintf(stderr, "provcat: '%s' is not JSON\n", path);
		exit(1);
	}
	return j;
}

static unsigned num(const char *s)
{
	uint64_t v;
	if (parse_u64(s, 0, 86400000, &v) < 0) {
		fprintf(stderr, "provcat: '%s' is not a number\n", s);
		exit(1);
	}
	return (unsigned)v;
}

int main(int argc, char **argv)
{
	log_init();
	struct prov_opts po = { .api_key = getenv("ANTHROPIC_API_KEY"), .stop = &stop_flag };
	struct prov_request rq = { .model = "claude-sonnet-4-5", .max_tokens = 1024 };
	cJSON *messages = NULL, *tools = NULL;
	unsigned stop_after = 0, flags = 0;
	struct out out = { 0 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(name) (strcmp(a, name) == 0 && v && ++i)
		if (OPT("--base-url"))
			po.base_url = v;
		else if (OPT("--key"))
			po.api_key = v;
		else if (OPT("--model"))
			rq.model = v;
		else if (OPT("--max-tokens"))
			rq.max_tokens = num(v);
		else if (OPT("--system"))
			rq.system = v;
		else if (OPT("--prompt")) {
			cJSON_Delete(messages);
			messages = cJSON_CreateArray();
			cJSON *m = cJSON_CreateObject();
			cJSON_AddStringToObject(m, "role", "user");
			cJSON_AddStringToObject(m, "content", v);
			cJSON_AddItemToArray(messages, m);
		} else if (OPT("--messages")) {
			cJSON_Delete(messages);
			messages = read_json(v);
		} else if (OPT("--tools")) {
			cJSON_Delete(tools);
			tools = read_json(v);
		} else if (OPT("--retries")) {
			po.max_retries = num(v);
			if (po.max_retries == 0)
				po.max_retries = PROV_NO_RETRIES;
		} else if (OPT("--idle-ms"))
			po.idle_ms = num(v);
		else if (OPT("--total-ms"))
			po.total_ms = num(v);
		else if (OPT("--backoff-ms"))
			po.backoff_ms = num(v);
		else if (OPT("--stop-after-ms"))
			stop_after = num(v);
		else if (strcmp(a, "--wrap-up") == 0)
			rq.tool_choice_none = 1;
		else if (strcmp(a, "--stream-out") == 0)
			out.stream_out = 1;
		else if (strcmp(a, "--drop-text") == 0)
			flags |= FOLD_DROP_TEXT;
		else {
			fprintf(stderr, "provcat: unknown or incomplete argument '%s'\n", a);
			return 1;
		}
#undef OPT
	}
	rq.messages = messages;
	rq.tools = tools;
	po.on_retry = on_retry;
	po.on_flush = on_flush;
	po.ctx = &out;

	char *err = NULL;
	struct prov *p = NULL;
	int rc;
	struct fold_msg m;
	struct fold_hooks hooks = { .text = on_text, .ctx = &out };
	fold_init(&m, flags, &hooks);
	rc = prov_new(&po, &p, &err);
	if (rc == 0) {
		if (stop_after) {
			signal(SIGALRM, on_alarm);
			struct itimerval it = { .it_value = { stop_after / 1000, (stop_after % 1000) * 1000 } };
			setitimer(ITIMER_REAL, &it, NULL);
		}
		rc = prov_round(p, &rq, &m, &err);
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "rc", rc);
	if (err)
		cJSON_AddStringToObject(o, "error", err);
	else
		cJSON_AddNullToObject(o, "error");
	cJSON_AddStringToObject(o, "streamed", out.text ? out.text : "");
	cJSON_AddNumberToObject(o, "retries", out.retries);
	if (out.stream_out) {
		/* A summary only: copying a long text into JSON would cost more
		 * than the stream itself and hide what a round costs. */
		size_t kept = 0;
		for (size_t i = 0; i < m.nblocks; i++)
			kept += m.blocks[i].text_len;
		cJSON_AddStringToObject(o, "stop_reason", m.stop_reason ? m.stop_reason : "");
		cJSON_AddNumberToObject(o, "blocks", (double)m.nblocks);
		cJSON_AddNumberToObject(o, "kept_bytes", (double)kept);
	} else {
		cJSON_AddItemToObject(o, "message", fold_msg_json(&m));
	}
	char *s = cJSON_PrintUnformatted(o);
	fflush(stdout);
	fputs(s, out.stream_out ? stderr : stdout);
	fputc('\n', out.stream_out ? stderr : stdout);
	free(s);
	cJSON_Delete(o);
	if (err)
		fprintf(stderr, "provcat: %s\n", err);
	free(err);
	free(out.text);
	fold_release(&m);
	prov_free(p);
	cJSON_Delete(messages);
	cJSON_Delete(tools);
	return rc == 0 ? 0 : rc == PROV_TIMEOUT ? 4 : rc == PROV_STOPPED ? 5 : 1;
}
