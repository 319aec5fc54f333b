/*
 * curl.c — open libcurl once (util/dl.h), resolve what the provider uses
 * and run curl_global_init.
 */
#include <pthread.h>
#include <stddef.h>

#include "agent/curl.h"
#include "util/dl.h"
#include "util/util.h"

static struct dlcurl fns;
static CURLcode global_rc;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static const struct dl_sym syms[] = {
	DL_SYM(struct dlcurl, easy_init, "curl_easy_init"),
	DL_SYM(struct dlcurl, easy_setopt, "curl_easy_setopt"),
	DL_SYM(struct dlcurl, easy_perform, "curl_easy_perform"),
	DL_SYM(struct dlcurl, easy_getinfo, "curl_easy_getinfo"),
	DL_SYM(struct dlcurl, easy_reset, "curl_easy_reset"),
	DL_SYM(struct dlcurl, easy_cleanup, "curl_easy_cleanup"),
	DL_SYM(struct dlcurl, easy_strerror, "curl_easy_strerror"),
	DL_SYM(struct dlcurl, slist_append, "curl_slist_append"),
	DL_SYM(struct dlcurl, slist_free_all, "curl_slist_free_all"),
	DL_SYM(struct dlcurl, url, "curl_url"),
	DL_SYM(struct dlcurl, url_set, "curl_url_set"),
	DL_SYM(struct dlcurl, url_get, "curl_url_get"),
	DL_SYM(struct dlcurl, url_cleanup, "curl_url_cleanup"),
	DL_SYM(struct dlcurl, free, "curl_free"),
	DL_SYM(struct dlcurl, getdate, "curl_getdate"),
	DL_SYM(struct dlcurl, global_init, "curl_global_init"),
};
/*
 * Debian's libcurl4 pulls in GnuTLS (through librtmp and libldap), whose
 * constructor initialises it on load: 0.8 MiB and about a millisecond for
 * a library only rtmp(e) and ldaps would use, protocols the provider
 * never enables (CURLOPT_PROTOCOLS_STR).  GnuTLS skips that implicit
 * initialisation when GNUTLS_NO_IMPLICIT_INIT=1; its users call
 * gnutls_global_init themselves before use.
 */
static struct dl_lib lib = DL_LIB_ENV("libcurl.so.4", "libcurl4 (7.62 or later)", syms, &fns,
				      "GNUTLS_NO_IMPLICIT_INIT", "1");

/* curl_global_init, once, after the table is bound. */
static void global_init(void)
{
	global_rc = fns.global_init(CURL_GLOBAL_DEFAULT);
}

const struct dlcurl *dlcurl_load(char **err)
{
	if (dl_load(&lib, err) < 0)
		return NULL;
	pthread_once(&once, global_init);
	if (global_rc != CURLE_OK) {
		/* It fails when an allocation does (libcurl's own, or its TLS
		 * library's): say so, not only that it failed. */
		if (err)
			*err = xasprintf("libcurl could not initialise (curl_global_init: %s) — " DLCURL_OOM_ADVICE,
					 fns.easy_strerror(global_rc));
		return NULL;
	}
	return &fns;
}
