/*
 * curl.h — libcurl, opened at run time.
 *
 * sandbx does not link libcurl: the loader cost would land on every exec
 * of the sandbox helper, which never talks HTTP.  The subcommands that do
 * call dlcurl_load() once; it dlopens "libcurl.so.4" (RTLD_LOCAL) and
 * resolves the functions below.  The types and constants come from
 * <curl/curl.h> at build time; only the functions are looked up.
 *
 * Life cycle: dlcurl_load() may be called any number of times, from any
 * thread; the first call does the work (and curl_global_init) and every
 * call returns the same table, or NULL with *err.  The library stays
 * loaded until exit.  Nothing to free.
 */
#ifndef SBX_DLCURL_H
#define SBX_DLCURL_H

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

struct dlcurl {
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_reset)(CURL *);
	void (*easy_cleanup)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
	CURLU *(*url)(void);
	CURLUcode (*url_set)(CURLU *, CURLUPart, const char *, unsigned int);
	CURLUcode (*url_get)(CURLU *, CURLUPart, char **, unsigned int);
	void (*url_cleanup)(CURLU *);
	void (*free)(void *);
	time_t (*getdate)(const char *, const time_t *);
	CURLcode (*global_init)(long);	/* run once by dlcurl_load */
};

/*
 * What to do when curl_global_init or curl_easy_init fails: both fail
 * when memory does (curl_easy_init returns NULL for nothing else), so the
 * message says so instead of only naming the call.
 */
#define DLCURL_OOM_ADVICE                                                                                      \
	"most likely the process is out of memory: close other programs, or raise its memory limit (ulimit -v, a " \
	"cgroup's memory.max), and try again"

/* The table, or NULL with *err (malloc'd) when libcurl cannot be used. */
const struct dlcurl *dlcurl_load(char **err);

#endif
