#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_ldpath.h"
#include "util/log.h"
#include "util/sha256.h"

int cli_hash(struct cli_opts *o)
{
	char hex[SHA256_HEX_LEN + 1], *err = NULL;
	struct stat st;
	/* Before libcrypto is opened: the pin is often taken in the project
	 * an agent wrote to, where LD_LIBRARY_PATH's empty entry finds a
	 * libcrypto.so.3 its call left. */
	int rc = cli_ldpath_guard_no_grants();
	if (rc || (rc = cli_ldpath_openssl_guard(NULL)) != 0)
		return rc;
	/* O_NONBLOCK: a FIFO with no writer would block the open for ever;
	 * it is refused below, and a regular file's reads ignore the flag. */
	int fd = open(o->hash_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		sbx_err("cannot open '%s': %s — check the path", o->hash_path, strerror(errno));
		return EXIT_ERROR;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		sbx_err("'%s' is not a regular file — hash the program itself", o->hash_path);
		close(fd);
		return EXIT_ERROR;
	}
	if (sha256_fd_hex(fd, hex, &err) < 0) {
		sbx_err("cannot hash '%s': %s", o->hash_path, err);
		free(err);
		close(fd);
		return EXIT_ERROR;
	}
	close(fd);
	printf("%s\n", hex);
	return EXIT_OK;
}
