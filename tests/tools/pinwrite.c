/*
 * pinwrite — rewrite a pinned program in place while sandbox-run starts it.
 *
 *   pinwrite FILE NEW N
 *
 * Watches FILE with inotify and, at the Nth time it is opened, writes the
 * bytes of NEW over it in place (same inode: a rename would be seen by the
 * pin's inode check).  sandbox-run opens a pinned program first to hash
 * it, then again in the command stage at its path in the view, then once
 * more to execute it: N = 2 writes between the hash and the exec.  The
 * open for writing does not wait (O_NONBLOCK), so a lease held on FILE
 * shows as EWOULDBLOCK.  Prints "wrote" or "err NAME" once, then exits.
 * It says "ready" on stderr once the watch is placed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: pinwrite FILE NEW N\n");
		return 64;
	}
	/* Unbuffered: under the sanitized build LeakSanitizer ends the
	 * program at exit before stdio's flush, and the one line printed
	 * was lost (the test read an empty answer). */
	setvbuf(stdout, NULL, _IONBF, 0);
	int n = atoi(argv[3]), seen = 0;
	int src = open(argv[2], O_RDONLY);
	struct stat st;
	if (src < 0 || fstat(src, &st) < 0) {
		perror("pinwrite: NEW");
		return 1;
	}
	char *buf = malloc(st.st_size);
	if (!buf || read(src, buf, st.st_size) != st.st_size) {
		perror("pinwrite: read NEW");
		return 1;
	}
	int in = inotify_init1(IN_CLOEXEC);
	if (in < 0 || inotify_add_watch(in, argv[1], IN_OPEN) < 0) {
		perror("pinwrite: inotify");
		return 1;
	}
	fprintf(stderr, "ready\n");
	char ev[4096] __attribute__((aligned(8)));
	for (;;) {
		ssize_t r = read(in, ev, sizeof(ev));
		if (r <= 0)
			return 1;
		for (char *p = ev; p < ev + r; p += sizeof(struct inotify_event) + ((struct inotify_event *)p)->len)
			seen++;
		if (seen < n)
			continue;
		int fd = open(argv[1], O_WRONLY | O_NONBLOCK);
		if (fd < 0) {
			printf("err %s\n", errno == EWOULDBLOCK ? "EWOULDBLOCK" : strerror(errno));
			free(buf);
			return 0;
		}
		if (pwrite(fd, buf, st.st_size, 0) != st.st_size) {
			printf("err write %s\n", strerror(errno));
			free(buf);
			return 0;
		}
		close(fd);
		printf("wrote\n");
		free(buf);
		return 0;
	}
}
