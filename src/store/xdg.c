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

static char *base(const char *var, const char *home, const char *fallback)
{
	const char *v = getenv(var);
	if (v && v[0] == '/')
		return xstrdup(v);
	if (!home)
		return NULL;
	return xasprintf("%s/%s", strcmp(home, "/") == 0 ? "" : home, fallback);
}

int xdg_paths_get(struct xdg_paths *p, char **err)
{
	memset(p, 0, sizeof(*p));
	p->home = home_dir();
	char *state = base("XDG_STATE_HOME", p->home, ".local/state");
	char *config = base("XDG_CONFIG_HOME", p->home, ".config");
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
