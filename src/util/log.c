#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "util/log.h"

static enum log_level level = LOG_INFO;
static int holding;
static struct strv held;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

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

enum log_level log_level(void) { return level; }
void log_set_level(enum log_level l) { level = l; }

void sbx_err(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "sandbx: %s\n", buf);
	fflush(stderr);
}

static void append_value(char **out, size_t *len, size_t *cap, const char *v)
{
	int quote = (*v == '\0');
	for (const char *p = v; *p && !quote; p++)
		if (*p == ' ' || *p == '"' || *p == '=' || *p == '\\' || (unsigned char)*p < 0x20 || *p == 0x7f)
			quote = 1;
	size_t need = strlen(v) * 4 + 3;
	if (*len + need + 1 > *cap) {
		*cap = (*len + need + 1) * 2;
		*out = xrealloc(*out, *cap);
	}
	char *o = *out + *len;
	if (quote)
		*o++ = '"';
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if (!quote) {
			*o++ = (char)*p;
		} else if (*p == '"' || *p == '\\') {
			*o++ = '\\';
			*o++ = (char)*p;
		} else if (*p < 0x20 || *p == 0x7f) {
			o += sprintf(o, "\\x%02x", *p);
		} else {
			*o++ = (char)*p;
		}
	}
	if (quote)
		*o++ = '"';
	*o = '\0';
	*len = (size_t)(o - *out);
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

void audit(enum log_level lvl, const char *event, ...)
{
	const char *kv[64];
	size_t n = 0;
	va_list ap;
	if (lvl > level || level == LOG_OFF)
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
	if (holding) {
		strv_push_own(&held, line);
	} else {
		fprintf(stderr, "%s\n", line);
		fflush(stderr);
		free(line);
	}
	pthread_mutex_unlock(&lock);
}

void log_hold(int on)
{
	pthread_mutex_lock(&lock);
	holding = on;
	if (!on) {
		for (size_t i = 0; i < held.n; i++)
			fprintf(stderr, "%s\n", held.v[i]);
		fflush(stderr);
		strv_free(&held);
	}
	pthread_mutex_unlock(&lock);
}
