/*
 * cjson.c — see cjson.h.
 */
#include <stdlib.h>

#include "util/cjson.h"
#include "util/dl.h"
#include "util/log.h"

static struct sbx_cjson fns;
const struct sbx_cjson *sbx_cjson_table;

static const struct dl_sym syms[] = {
#define SBX_CJSON_SYM(name) DL_SYM(struct sbx_cjson, name, "cJSON_" #name),
	SBX_CJSON_FUNCS(SBX_CJSON_SYM)
#undef SBX_CJSON_SYM
};

static struct dl_lib lib = DL_LIB("libcjson.so.1", "libcjson1", syms, &fns);

int cjson_load(char **err)
{
	if (dl_load(&lib, err) < 0)
		return -1;
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
