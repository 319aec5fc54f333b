/*
 * cjson.c — see cjson.h.
 */
#include <pthread.h>
#include <stdlib.h>

#include "util/cjson.h"
#include "util/dl.h"
#include "util/log.h"
#include "util/util.h"

static struct sbx_cjson fns;
const struct sbx_cjson *sbx_cjson_table;

static const struct dl_sym syms[] = {
#define SBX_CJSON_SYM(name) DL_SYM(struct sbx_cjson, name, "cJSON_" #name),
	SBX_CJSON_FUNCS(SBX_CJSON_SYM)
#undef SBX_CJSON_SYM
};

static struct dl_lib lib = DL_LIB("libcjson.so.1", "libcjson1", syms, &fns);

/* cJSON answers a failed allocation with NULL, and a NULL parse reads as
 * text that is not JSON: a session's last line parsed short of memory was
 * taken for a torn append and cut off the file, a tool's input refused as
 * invalid, a result printed as nothing.  With xmalloc as its allocator a
 * short allocation ends the process instead, saying which limit to raise
 * and changing nothing stored.  Set before the table is published, so no
 * cJSON call of sandbx's runs with the default. */
static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static void hooks_init(void)
{
	cJSON_Hooks hooks = { .malloc_fn = xmalloc, .free_fn = free };
	fns.InitHooks(&hooks);
}

int cjson_load(char **err)
{
	if (dl_load(&lib, err) < 0)
		return -1;
	pthread_once(&hooks_once, hooks_init);
	__atomic_store_n(&sbx_cjson_table, &fns, __ATOMIC_RELEASE);
	return 0;
}

const struct sbx_cjson *sbx_cjson_need(void)
{
	char *err = NULL;
	if (cjson_load(&err) < 0) {
		sbx_err("%s", err);
		free(err);
		exit(1);
	}
	return sbx_cjson_table;
}
