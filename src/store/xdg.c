#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/xdg.h"
#include "util/util.h"

static char *home_dir(void)
{
	const char *h = getenv("HOME");
	if (h && h[0] == '/')
		return xstrdup(h);
	struct passwd *pw = getpwuid(getuid());
	if (pw && pw->pw_dir && pw->pw_dir[0] == '/')
		return xstrdup(pw->pw_dir);
	return NULL;
}

static char *base(const char *var, const char *home, const char *fallback, int *set)
{
	const char *v = getenv(var);
	*set = v && v[0] == '/';
	if (*set)
		return xstrdup(v);
	if (!home)
		return NULL;
	return xasprintf("%s/%s", strcmp(home, "/") == 0 ? "" : home, fallback);
}

int xdg_paths_get(struct xdg_paths *p, char **err)
{
	memset(p, 0, sizeof(*p));
	p->home = home_dir();
	char *state = base("XDG_STATE_HOME", p->home, ".local/state", &p->state_set);
	char *config = base("XDG_CONFIG_HOME", p->home, ".config", &p->config_set);
	if (!state || !config) {
		free(state);
		free(config);
		xdg_paths_release(p);
		*err = xstrdup("no home directory: set HOME or XDG_STATE_HOME and XDG_CONFIG_HOME to absolute paths");
		return -1;
	}
	p->state_dir = xasprintf("%s/sandbx", state);
	p->sessions_dir = xasprintf("%s/sessions", p->state_dir);
	p->config_dir = xasprintf("%s/sandbx", config);
	p->credentials = xasprintf("%s/credentials.toml", p->config_dir);
	p->state_home = state;
	p->config_home = config;
	return 0;
}

const char *xdg_advice(const struct xdg_paths *p, int config)
{
	if (config)
		return p->config_set ? "XDG_CONFIG_HOME names it: point XDG_CONFIG_HOME at a directory you own and can write, "
				       "or unset it"
				     : "it is where the key goes while XDG_CONFIG_HOME is unset: set XDG_CONFIG_HOME to a "
				       "directory you own and can write";
	return p->state_set ? "XDG_STATE_HOME names it: point XDG_STATE_HOME at a directory you own and can write, "
			      "or unset it"
			    : "it is where sessions go while XDG_STATE_HOME is unset: set XDG_STATE_HOME to a directory "
			      "you own and can write";
}

const char *xdg_write_advice(const struct xdg_paths *p, int config, int e)
{
	if (e == EROFS)
		return config ? "remount its filesystem read-write, or point XDG_CONFIG_HOME at "
				"a directory you own and can write"
			      : "remount its filesystem read-write, or point XDG_STATE_HOME at "
				"a directory you own and can write";
	return xdg_advice(p, config);
}

void xdg_paths_release(struct xdg_paths *p)
{
	free(p->home);
	free(p->state_dir);
	free(p->sessions_dir);
	free(p->config_dir);
	free(p->credentials);
	free(p->state_home);
	free(p->config_home);
	memset(p, 0, sizeof(*p));
}

static void push_unique(struct strv *v, char *s)
{
	if (strv_has(v, s))
		free(s);
	else
		strv_push_own(v, s);
}

void xdg_protected_dirs(const struct xdg_paths *p, struct strv *state, struct strv *config)
{
	if (p->state_dir)
		push_unique(state, xstrdup(p->state_dir));
	if (p->config_dir)
		push_unique(config, xstrdup(p->config_dir));
	const char *homes[2] = { getenv("HOME"), NULL };
	struct passwd *pw = getpwuid(getuid());
	homes[1] = pw ? pw->pw_dir : NULL;
	for (int i = 0; i < 2; i++) {
		const char *h = homes[i];
		if (!h || h[0] != '/')
			continue;
		const char *sep = strcmp(h, "/") == 0 ? "" : h;
		push_unique(state, xasprintf("%s/.local/state/sandbx", sep));
		push_unique(config, xasprintf("%s/.config/sandbx", sep));
	}
}
