/*
 * curl.c — dlopen libcurl once and resolve what the provider uses
 * (the pattern of src/util/sha256.c for libcrypto).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#include "agent/curl.h"
#include "util/util.h"

static struct dlcurl fns;
static int state;		/* 0 not tried, 1 ok, -1 failed */
static const char *why;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *h = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		why = "cannot load libcurl.so.4 — install libcurl4 (Debian: apt-get install libcurl4)";
		state = -1;
		return;
	}
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
		{ "curl_easy_init", offsetof(struct dlcurl, easy_init) },
		{ "curl_easy_setopt", offsetof(struct dlcurl, easy_setopt) },
		{ "curl_easy_perform", offsetof(struct dlcurl, easy_perform) },
		{ "curl_easy_getinfo", offsetof(struct dlcurl, easy_getinfo) },
		{ "curl_easy_reset", offsetof(struct dlcurl, easy_reset) },
		{ "curl_easy_cleanup", offsetof(struct dlcurl, easy_cleanup) },
		{ "curl_easy_strerror", offsetof(struct dlcurl, easy_strerror) },
		{ "curl_slist_append", offsetof(struct dlcurl, slist_append) },
		{ "curl_slist_free_all", offsetof(struct dlcurl, slist_free_all) },
		{ "curl_url", offsetof(struct dlcurl, url) },
		{ "curl_url_set", offsetof(struct dlcurl, url_set) },
		{ "curl_url_get", offsetof(struct dlcurl, url_get) },
		{ "curl_url_cleanup", offsetof(struct dlcurl, url_cleanup) },
		{ "curl_free", offsetof(struct dlcurl, free) },
		{ "curl_getdate", offsetof(struct dlcurl, getdate) },
	};
	for (size_t i = 0; i < SBX_ARRAY_LEN(syms); i++) {
		void *f = dlsym(h, syms[i].name);
		if (!f) {
			why = "libcurl.so.4 lacks a function sandbx needs (curl 7.62 or later is required) — upgrade libcurl4";
			state = -1;
			return;
		}
		*(void **)((char *)&fns + syms[i].off) = f;
	}
	CURLcode (*global_init)(long) = NULL;
	*(void **)&global_init = dlsym(h, "curl_global_init");
	if (!global_init || global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		why = "libcurl could not initialise (curl_global_init failed)";
		state = -1;
		return;
	}
	state = 1;
}

const struct dlcurl *dlcurl_load(char **err)
{
	pthread_once(&once, load);
	if (state < 0) {
		if (err)
			*err = xstrdup(why);
		return NULL;
	}
	return &fns;
}
