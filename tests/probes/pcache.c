/*
 * pcache.c — the page cache of a file: how much of it is resident, and
 * the calls that evict it or tell whether it is, for the tests of the
 * filter's page-cache rules.  Static like every probe: the same program
 * runs inside the sandbox and, to measure the host's side, outside it.
 *
 *   pcache resident FILE          "ok RESIDENT PAGES": mincore of a shared
 *                                 mapping (the caller must own FILE or be
 *                                 able to write it, or the kernel reports
 *                                 every page resident)
 *   pcache readtime FILE          "ok MEDIAN-NS": pread of one byte of
 *                                 every page, the median time (read-ahead
 *                                 off: POSIX_FADV_RANDOM on its own
 *                                 descriptor, so each page is timed alone)
 *   pcache fadvise FILE ADVICE    fadvise64(whole file, ADVICE), the raw
 *                                 syscall (glibc's returns the error)
 *   pcache madvise FILE ADVICE    map FILE, read every page, then
 *                                 madvise(ADVICE) on the mapping
 *   pcache process-madvise FILE ADVICE
 *                                 the same through process_madvise on
 *                                 the caller itself (PIDFD_SELF, 6.15)
 *   pcache cachestat FILE         cachestat(2) (6.5): "ok CACHED-PAGES"
 *   pcache dirty FILE             cachestat(2): "ok DIRTY-PAGES", those
 *                                 not yet written back
 *   pcache write-fsync FILE       rewrite the first byte of every page as
 *                                 it was (FILE opened read-write), then
 *                                 fsync
 *   pcache preadv2-nowait FILE    preadv2 of one byte with RWF_NOWAIT;
 *                                 pwritev2-nowait the same write (FILE
 *                                 opened read-write, its first byte
 *                                 rewritten as it was)
 *   pcache pwritev2-nowait-pipe   pwritev2 with RWF_NOWAIT of one byte to
 *                                 a pipe of its own, which takes nowait
 *                                 writes on any filesystem (ext4 answers
 *                                 EOPNOTSUPP itself for a buffered one)
 */
#include <fcntl.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "probe.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451		/* 6.5 */
#endif
#ifndef __NR_process_madvise
#define __NR_process_madvise 440	/* 5.10 */
#endif
#define PCACHE_PIDFD_SELF (-10001)	/* PIDFD_SELF_THREAD_GROUP (6.15; -10001 since 6.17) */
#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x00000008
#endif
#define PCACHE_MAX_PAGES (1 << 20)

struct pc_file {
	int fd;
	size_t len, pages, page;
};

static int open_file(const char *path, int flags, struct pc_file *f)
{
	struct stat st;
	f->page = (size_t)sysconf(_SC_PAGESIZE);
	f->fd = open(path, flags | O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &st) < 0)
		return -1;
	f->len = (size_t)st.st_size;
	f->pages = (f->len + f->page - 1) / f->page;
	if (f->pages == 0 || f->pages > PCACHE_MAX_PAGES) {
		errno = EFBIG;
		return -1;
	}
	return 0;
}

/* The file mapped shared and read-only, every page read once. */
static volatile char *map_touched(struct pc_file *f)
{
	volatile char *m = mmap(NULL, f->len, PROT_READ, MAP_SHARED, f->fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	for (size_t i = 0; i < f->pages; i++)
		(void)m[i * f->page];
	return m;
}

static int resident(struct pc_file *f)
{
	void *m = mmap(NULL, f->len, PROT_READ, MAP_SHARED, f->fd, 0);
	if (m == MAP_FAILED)
		return probe_report(-1);
	unsigned char *vec = malloc(f->pages);
	if (!vec || mincore(m, f->len, vec) < 0)
		return probe_report(-1);
	size_t n = 0;
	for (size_t i = 0; i < f->pages; i++)
		n += vec[i] & 1;
	printf("ok %zu %zu\n", n, f->pages);
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

static int readtime(struct pc_file *f)
{
	long *ns = malloc(f->pages * sizeof(*ns));
	if (!ns)
		return probe_report(-1);
	posix_fadvise(f->fd, 0, 0, POSIX_FADV_RANDOM);
	for (size_t i = 0; i < f->pages; i++) {
		struct timespec a, b;
		char c;
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (pread(f->fd, &c, 1, (off_t)(i * f->page)) != 1)
			return probe_report(-1);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns[i] = (b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec);
	}
	qsort(ns, f->pages, sizeof(*ns), cmp_long);
	printf("ok %ld\n", ns[f->pages / 2]);
	return 0;
}

static int madv(struct pc_file *f, int advice, int self_pidfd)
{
	volatile char *m = map_touched(f);
	if (!m)
		return probe_report(-1);
	if (!self_pidfd)
		return probe_report(madvise((void *)m, f->len, advice));
	struct iovec iov = { (void *)m, f->len };
	return probe_report(syscall(__NR_process_madvise, PCACHE_PIDFD_SELF, &iov, 1UL, advice, 0U));
}

static int cachestat(struct pc_file *f, int dirty)
{
	struct { uint64_t off, len; } range = { 0, 0 };
	struct { uint64_t cache, dirty, writeback, evicted, recently_evicted; } cs;
	if (syscall(__NR_cachestat, f->fd, &range, &cs, 0U) < 0)
		return probe_report(-1);
	printf("ok %llu\n", (unsigned long long)(dirty ? cs.dirty : cs.cache));
	return 0;
}

static int write_fsync(struct pc_file *f)
{
	for (size_t i = 0; i < f->pages; i++) {
		char c;
		off_t at = (off_t)(i * f->page);
		if (pread(f->fd, &c, 1, at) != 1 || pwrite(f->fd, &c, 1, at) != 1)
			return probe_report(-1);
	}
	return probe_report(fsync(f->fd));
}

static int rw_nowait(struct pc_file *f, int write)
{
	char c;
	struct iovec iov = { &c, 1 };
	if (write && pread(f->fd, &c, 1, 0) != 1)
		return probe_report(-1);
	return probe_report(write ? pwritev2(f->fd, &iov, 1, 0, RWF_NOWAIT)
				  : preadv2(f->fd, &iov, 1, 0, RWF_NOWAIT));
}

static int pipe_nowait(void)
{
	int p[2];
	char c = 'x';
	struct iovec iov = { &c, 1 };
	if (pipe2(p, O_CLOEXEC) < 0)
		return probe_report(-1);
	return probe_report(pwritev2(p[1], &iov, 1, -1, RWF_NOWAIT));
}

int main(int argc, char **argv)
{
	struct pc_file f;
	if (argc == 2 && !strcmp(argv[1], "pwritev2-nowait-pipe"))
		return pipe_nowait();
	if (argc < 3) {
		fprintf(stderr, "usage: pcache WHAT FILE [ADVICE]\n");
		return 2;
	}
	const char *w = argv[1];
	int advice = argc > 3 ? atoi(argv[3]) : -1;
	int rw = !strcmp(w, "pwritev2-nowait") || !strcmp(w, "write-fsync");
	if (open_file(argv[2], rw ? O_RDWR : O_RDONLY, &f) < 0)
		return probe_report(-1);
	if (!strcmp(w, "resident"))
		return resident(&f);
	if (!strcmp(w, "readtime"))
		return readtime(&f);
	if (!strcmp(w, "fadvise") && argc == 4)
		return probe_report(syscall(SYS_fadvise64, f.fd, 0L, 0L, advice));
	if (!strcmp(w, "madvise") && argc == 4)
		return madv(&f, advice, 0);
	if (!strcmp(w, "process-madvise") && argc == 4)
		return madv(&f, advice, 1);
	if (!strcmp(w, "cachestat"))
		return cachestat(&f, 0);
	if (!strcmp(w, "dirty"))
		return cachestat(&f, 1);
	if (!strcmp(w, "write-fsync"))
		return write_fsync(&f);
	if (!strcmp(w, "preadv2-nowait"))
		return rw_nowait(&f, 0);
	if (!strcmp(w, "pwritev2-nowait"))
		return rw_nowait(&f, 1);
	fprintf(stderr, "pcache: unknown '%s'\n", w);
	return 2;
}
