/*
 * replay.c — a stored history into the screen model (see replay.h).
 */
#include <stdlib.h>
#include <string.h>

#include "agent/gate.h"
#include "tui/replay.h"

static const char *str(const cJSON *o, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
	return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

/* Texts joined by newlines (none before the first non-empty one), in one buffer that doubles as it grows: a
 * stored message of 300,000 small blocks costs linear time, not the
 * quadratic copy of rebuilding the string per block. */
struct join {
	char *s;
	size_t len, cap;
};

static void join_add(struct join *j, const char *t)
{
	size_t n = strlen(t), sep = j->len > 0, need = j->len + sep + n + 1;
	if (need > j->cap) {
		j->cap = need > 2 * j->cap ? need : 2 * j->cap;
		j->s = xrealloc(j->s, j->cap);
	}
	if (sep)
		j->s[j->len++] = '\n';
	memcpy(j->s + j->len, t, n + 1);
	j->len += n;
}

/* A tool_result's content: a string, or text blocks joined. */
static char *result_text(const cJSON *c)
{
	if (cJSON_IsString(c))
		return xstrdup(c->valuestring);
	struct join j = { 0 };
	const cJSON *b;
	cJSON_ArrayForEach(b, c) {
		const char *t = str(b, "text");
		if (t)
			join_add(&j, t);
	}
	return j.s ? j.s : xstrdup("");
}

int tui_replay(struct tui_model *m, const cJSON *msgs)
{
	const cJSON *msg;
	int prompts = 0, rounds = 0;

	/* a stored session keeps no call's time: its rows show none (they
	 * read "0.0 s", a time never measured) */
	m->replaying = 1;
	cJSON_ArrayForEach(msg, msgs) {
		const char *role = str(msg, "role");
		const cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content");
		const cJSON *b;
		if (!role)
			continue;
		if (strcmp(role, "user") == 0) {
			struct join prompt = { 0 };
			if (cJSON_IsString(content))
				join_add(&prompt, content->valuestring);
			const cJSON *blocks = cJSON_IsArray(content) ? content : NULL;
			cJSON_ArrayForEach(b, blocks) {
				const char *type = str(b, "type");
				if (!type)
					continue;
				if (strcmp(type, "text") == 0 && str(b, "text")) {
					join_add(&prompt, str(b, "text"));
				} else if (strcmp(type, "tool_result") == 0) {
					char *t = result_text(cJSON_GetObjectItemCaseSensitive(b, "content"));
					struct turn_event ev = { 0 };
					ev.kind = TEV_TOOL_RESULT;
					ev.id = str(b, "tool_use_id");
					ev.text = t;
					ev.len = strlen(t);
					ev.is_error = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "is_error"));
					tui_model_event(m, &ev, m->now_ms);
					free(t);
				}
			}
			if (prompt.s) {
				if (prompts)
					tui_model_turn_done(m);
				tui_model_user(m, prompt.s, m->now_ms);
				prompts++;
				rounds = 0;
				free(prompt.s);
			}
		} else if (strcmp(role, "assistant") == 0 && cJSON_IsArray(content)) {
			m->round = ++rounds;
			cJSON_ArrayForEach(b, content) {
				const char *type = str(b, "type");
				struct turn_event ev = { 0 };
				if (!type)
					continue;
				if (strcmp(type, "text") == 0 && str(b, "text")) {
					char *t = xasprintf("%s\n", str(b, "text"));
					ev.kind = TEV_TEXT;
					ev.text = t;
					ev.len = strlen(t);
					tui_model_event(m, &ev, m->now_ms);
					free(t);
				} else if (strcmp(type, "tool_use") == 0) {
					const cJSON *in = cJSON_GetObjectItemCaseSensitive(b, "input");
					ev.kind = TEV_TOOL_CALL;
					ev.id = str(b, "id");
					ev.tool = str(b, "name");
					/* by the live row's rule (gate_call_subject): the
					 * tool's own field, made visible; a stray
					 * "command" of a read is not its subject */
					char *subj = gate_call_subject(ev.tool, str(in, "command"), str(in, "path"));
					ev.subject = subj;
					tui_model_event(m, &ev, m->now_ms);
					free(subj);
				}
			}
		}
	}
	/* idle, the status bar shows the rounds the last turn kept, as the
	 * live screen does when a turn ends */
	m->round = rounds;
	tui_model_turn_done(m);
	m->replaying = 0;
	return prompts;
}
