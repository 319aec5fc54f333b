/*
 * xdg.h — where sandbx keeps its own state.
 *
 *   sessions:    $XDG_STATE_HOME/sandbx/sessions   (else ~/.local/state/...)
 *   credentials: $XDG_CONFIG_HOME/sandbx/credentials.toml (else ~/.config/...)
 *
 * A relative XDG value is ignored (the spec says so).  The policy refuses
 * any grant that reaches these paths, in either direction.
 *
 * Life cycle: xdg_paths_get() fills the struct; xdg_paths_release() frees
 * its strings.
 */
#ifndef SBX_XDG_H
#define SBX_XDG_H

#include "util/util.h"

struct xdg_paths {
	char *home;		/* $HOME or the passwd entry; may be NULL */
	char *state_dir;	/* .../sandbx under the state home */
	char *sessions_dir;	/* state_dir/sessions */
	char *config_dir;	/* .../sandbx under the config home */
	char *credentials;	/* config_dir/credentials.toml */
	char *state_home;	/* the XDG state base (state_dir's parent) */
	char *config_home;	/* the XDG config base (config_dir's parent) */
	int state_set, config_set;	/* the base came from its XDG variable, not the home */
};

/*
 * What to do when the state (config 0) or config (1) base cannot be used
 * (a file, a directory that cannot be written): names the variable, and
 * whether it was set.  A static string, for the end of a message.
 */
const char *xdg_advice(const struct xdg_paths *p, int config);
/* The same for a write in that directory that failed with errno e: a
 * read-only filesystem says so and how to get past it. */
const char *xdg_write_advice(const struct xdg_paths *p, int config, int e);

/*
 * Every directory holding sandbx's own state that no grant may reach, for
 * the policy's owned-path refusal: the current state_dir (onto *state) and
 * config_dir (onto *config), and also the default ones under the home
 * ($HOME and the passwd entry's home: ~/.local/state/sandbx and
 * ~/.config/sandbx) when the XDG variables point elsewhere — a store
 * written under another setting still holds sessions and a key.  Paths are
 * absolute, not resolved, without duplicates; strv_free both.
 */
void xdg_protected_dirs(const struct xdg_paths *p, struct strv *state, struct strv *config);

/* 0, or -1 with *err set (malloc'd) when no home can be found. */
int xdg_paths_get(struct xdg_paths *p, char **err);
void xdg_paths_release(struct xdg_paths *p);

#endif
