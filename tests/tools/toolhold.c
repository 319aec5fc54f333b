/*
 * toolhold.c — run one in-process tool with a pause at a chosen moment,
 * so a test script can change the filesystem in between.
 *
 *   toolhold root    DIR TOOL JSON READY GO
 *       build the guard over DIR (read+write), create READY, wait for GO,
 *       then run TOOL JSON (paths relative to DIR)
 *   toolhold checked DIR TOOL JSON READY GO
 *       build the guard, run TOOL JSON; when a file's handle has passed
 *       its size check (hook "checked"), create READY and wait for GO
 *       before it is read
 *
 * Prints {"is_error":bool,"content":"..."} like `sandbx tool`; exit 0/1
 * likewise, 2 for a usage or setup error.  Waits at most 20 s for GO.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/tools.h"
#include "util/log.h"

#define HOLD_MAX_WAIT_MS 20000

struct hold {
	const char *ready, *go;
	int done;
};

static void touch(const char *p)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}

static void wait_go(struct hold *h)
{
	touch(h->ready);
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	for (int i = 0; i < HOLD_MAX_WAIT_MS / 10 && access(h->go, F_OK) != 0; i++)
		nanosleep(&ts, NULL);
}

static void on_hook(void *arg, const char *event, const char *path)
{
	struct hold *h = arg;
	if (!h->done && strcmp(event, "checked") == 0) {
		h->done = 1;
		wait_go(h);
	}
}

int main(int argc, char **argv)
{
	struct policy p;
	struct fsguard *g;
	struct tool_result res;
	char *err = NULL;

	if (argc != 7 || (strcmp(argv[1], "root") != 0 && strcmp(argv[1], "checked") != 0)) {
		fprintf(stderr, "usage: toolhold root|checked DIR TOOL JSON READY GO\n");
		return 2;
	}
	struct hold h = { .ready = argv[5], .go = argv[6] };
	log_init();
	policy_init(&p);
	if (policy_add_grant(&p, argv[2], POL_READ | POL_WRITE, &err) < 0 ||
	    fsguard_new(&p, argv[2], 0, &g, &err) < 0) {
		fprintf(stderr, "toolhold: %s\n", err);
		return 2;
	}
	cJSON *in = cJSON_Parse(argv[4]);
	if (!in) {
		fprintf(stderr, "toolhold: bad JSON\n");
		return 2;
	}
	struct tool_ctx ctx = { .guard = g, .policy = &p };
	if (strcmp(argv[1], "root") == 0)
		wait_go(&h);
	else {
		ctx.hook = on_hook;
		ctx.hook_arg = &h;
	}
	int r = tools_run(&ctx, argv[3], in, &res);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddBoolToObject(j, "is_error", res.is_error);
	cJSON_AddStringToObject(j, "content", res.content);
	char *s = cJSON_PrintUnformatted(j);
	printf("%s\n", s);
	free(s);
	cJSON_Delete(j);
	cJSON_Delete(in);
	tool_result_release(&res);
	fsguard_free(g);
	policy_release(&p);
	return r == 0 ? 0 : 1;
}
