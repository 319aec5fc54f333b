/*
 * replay.h — show a resumed session's history on the screen: the stored
 * Messages API array (store/session.h) turned into the same model edits a
 * live turn makes (prompts, text, tool rows with their results).  Pure.
 */
#ifndef SBX_TUI_REPLAY_H
#define SBX_TUI_REPLAY_H

#include "util/cjson.h"

#include "tui/model.h"

/* Replay msgs (a cJSON array of {"role","content"}) into m; returns the
 * number of prompts shown.  Unknown blocks are skipped. */
int tui_replay(struct tui_model *m, const cJSON *msgs);

#endif
