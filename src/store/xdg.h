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

struct xdg_paths {
	char *home;		/* $HOME or the passwd entry; may be NULL */
	char *state_dir;	/* .../sandbx under the state home */
	char *sessions_dir;	/* state_dir/sessions */
	char *config_dir;	/* .../sandbx under the config home */
	char *credentials;	/* config_dir/credentials.toml */
	char *state_home;	/* the XDG state base (state_dir's parent) */
	char *config_home;	/* the XDG config base (config_dir's parent) */
};

/* 0, or -1 with *err set (malloc'd) when no home can be found. */
int xdg_paths_get(struct xdg_paths *p, char **err);
void xdg_paths_release(struct xdg_paths *p);

#endif
