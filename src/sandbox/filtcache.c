#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "sandbox/filtcache.h"
#include "store/fsutil.h"
#include "util/compat.h"
#include "util/util.h"

#define KEY_MAX 2048
#define FILE_MAX (KEY_MAX + sizeof(uint32_t) + SECCOMP_BPF_MAX_INSNS * sizeof(struct sock_filter) + sizeof(uint64_t))
#define KEY_HEAD "sandbx seccomp filter 1\n"

/* ---- the key --------------------------------------------------------- */

struct note_walk {
	char hex[2 * 64 + 1];
};

/* The main program's GNU build id, from its notes in memory. */
static int build_id_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct note_walk *w = arg;
	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])
		return 1;	/* the first object is the program itself */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof(*nh);
			const unsigned char *desc = (const unsigned char *)name + ((nh->n_namesz + 3) & ~3u);
			const char *next = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
			if (next > end || next <= p)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
			    nh->n_descsz >= 8 && nh->n_descsz <= 64) {
				for (unsigned j = 0; j < nh->n_descsz; j++)
					snprintf(w->hex + 2 * j, 3, "%02x", desc[j]);
				return 1;
			}
			p = next;
		}
	}
	return 1;
}

static const char *build_id(void)
{
	static struct note_walk w;
	static int done;
	if (!done) {
		dl_iterate_phdr(build_id_of, &w);
		done = 1;
	}
	return w.hex[0] ? w.hex : NULL;
}

/* The key this process would write for p and libpath into out; its length,
 * or -1 when there is none (no build id, a file that cannot be seen, a name
 * the key's lines cannot hold). */
static int make_key(const struct policy *p, const char *libpath, char *out, size_t n)
{
	const char *id = build_id();
	struct utsname u;
	struct stat lib, ldc;
	if (!id || !libpath || libpath[0] != '/' || strpbrk(libpath, " \n") || uname(&u) < 0 ||
	    stat(libpath, &lib) < 0 || !S_ISREG(lib.st_mode) || strchr(u.version, '\n') || strchr(u.release, '\n'))
		return -1;
	/* what the loader searched, besides its cache, when it opened it */
	const char *llp = getenv("LD_LIBRARY_PATH");
	if (llp && (strchr(llp, '\n') || strlen(llp) > 1024))
		return -1;
	char ld[128] = "ldcache none\n";
	if (stat("/etc/ld.so.cache", &ldc) == 0)
		snprintf(ld, sizeof(ld), "ldcache %llu %llu %lld %lld.%09ld\n", (unsigned long long)ldc.st_dev,
			 (unsigned long long)ldc.st_ino, (long long)ldc.st_size, (long long)ldc.st_mtim.tv_sec,
			 ldc.st_mtim.tv_nsec);
	int k = snprintf(out, n,
			 KEY_HEAD "build %s\nkernel %s %s\nvariant net=%d unix=%d newest=%d\n%sldpath %s\n"
				  "lib %s %llu %llu %lld %lld.%09ld %lld.%09ld\n\n",
			 id, u.release, u.version, (int)p->net, p->allow_unix ? 1 : 0, SBX_SYSCALL_NEWEST, ld,
			 llp ? llp : "", libpath,
			 (unsigned long long)lib.st_dev, (unsigned long long)lib.st_ino, (long long)lib.st_size,
			 (long long)lib.st_mtim.tv_sec, lib.st_mtim.tv_nsec, (long long)lib.st_ctim.tv_sec,
			 lib.st_ctim.tv_nsec);
	return k > 0 && (size_t)k < n ? k : -1;
}

static uint64_t fnv1a(const void *buf, size_t n)
{
	const unsigned char *b = buf;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

void filtcache_name(const struct policy *p, char *out, size_t n)
{
	snprintf(out, n, "seccomp-net%d-unix%d", (int)p->net, p->allow_unix ? 1 : 0);
}

/* ---- the directory ----------------------------------------------------- */

/* Whether the directory d lets no one but this uid and root change its
 * entry e: owned by one of them and writable by no other, or sticky with
 * e one of theirs. */
static int safe_entry(const struct stat *d, const struct stat *e)
{
	uid_t me = geteuid();
	if (d->st_uid != me && d->st_uid != 0)
		return 0;
	if (!(d->st_mode & 022))
		return 1;
	return (d->st_mode & S_ISVTX) && (e->st_uid == me || e->st_uid == 0);
}

/*
 * path (absolute) opened O_PATH as the kernel would resolve it, but only
 * when every directory it looks a name up in, those of the symbolic links
 * it follows included, is one no other user may change that name in
 * (safe_entry); -1 otherwise.  A tree a confined command wrote (its grant)
 * is then not reached by a link another user made (root run with that
 * user's HOME, sudo -E) or put in a directory others may write.
 */
static int open_base_safe(const char *path)
{
	char *rest = xstrdup(path);
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), hops = 0;
	size_t at = 0;
	while (fd >= 0) {
		while (rest[at] == '/')
			at++;
		if (!rest[at])
			break;
		size_t len = strcspn(rest + at, "/");
		char c[NAME_MAX + 1];
		if (len > NAME_MAX) {
			errno = ENAMETOOLONG;
			goto bad;
		}
		memcpy(c, rest + at, len);
		c[len] = '\0';
		at += len;
		if (strcmp(c, ".") == 0)
			continue;
		int next;
		if (strcmp(c, "..") == 0) {
			/* the names looked up in the parent are checked there */
			next = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		} else {
			struct stat d, e;
			if (fstat(fd, &d) < 0 || fstatat(fd, c, &e, AT_SYMLINK_NOFOLLOW) < 0)
				goto bad;	/* ENOENT: the name is not there */
			if (!safe_entry(&d, &e)) {
				errno = EPERM;	/* there, but not to be trusted */
				goto bad;
			}
			if (S_ISLNK(e.st_mode)) {
				char target[4096];
				ssize_t n = readlinkat(fd, c, target, sizeof(target) - 1);
				if (n <= 0 || ++hops > 40) {
					errno = n < 0 ? errno : ELOOP;
					goto bad;
				}
				target[n] = '\0';
				char *joined = xasprintf("%s/%s", target, rest + at);
				free(rest);
				rest = joined;
				at = 0;
				if (target[0] == '/') {
					close(fd);
					fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
				}
				continue;
			}
			if (!S_ISDIR(e.st_mode)) {
				errno = ENOTDIR;
				goto bad;
			}
			next = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		close(fd);
		fd = next;
	}
	free(rest);
	return fd;
bad:;
	int e = errno;
	close(fd);
	free(rest);
	errno = e;
	return -1;
}

/* state_home/sandbx/filters, opened (made 0700 where missing with
 * create); -1 when it cannot be used. */
static int open_dir(const char *state_home, int create, char **display)
{
	char *err = NULL;
	struct stat st, bst, sst;
	unsigned fl = create ? FSU_CREATE : 0;
	/* What is used is what the path reaches through directories no
	 * other user may change (open_base_safe). */
	int base = open_base_safe(state_home);
	if (base < 0 && errno == ENOENT && create) {
		/* The base and what is missing on the way to it (a new
		 * account has no ~/.local: XDG's default base is two levels
		 * down) are made 0700, but only below a directory of this
		 * uid's that no other user may write, reached safely: root
		 * run with a user's HOME makes nothing of root's there, and no
		 * other user can put a name (a link elsewhere) in the way of
		 * the directories made below it.  One that others may write
		 * would make the base unusable anyway (safe_entry).  The base
		 * is then opened again through open_base_safe. */
		char *parent = xstrdup(state_home);
		struct stat pst;
		for (;;) {
			char *slash = strrchr(parent, '/');
			if (!slash || slash == parent)
				break;
			*slash = '\0';
			int pfd = open_base_safe(parent);
			if (pfd < 0 && errno == ENOENT)
				continue;	/* missing too: one level up */
			int ours = pfd >= 0 && fstat(pfd, &pst) == 0 && pst.st_uid == geteuid() && !(pst.st_mode & 022);
			if (pfd >= 0)
				close(pfd);
			int made = ours ? fsu_open_base(state_home, FSU_CREATE, &err) : -1;
			if (made >= 0) {
				close(made);
				base = open_base_safe(state_home);
			}
			break;
		}
		free(parent);
		free(err);
		err = NULL;
	}
	if (base >= 0 && fstat(base, &bst) < 0) {
		close(base);
		base = -1;
	}
	if (base < 0)
		return -1;
	/* Nothing is made in a base of another uid's (the same case). */
	if (bst.st_uid != geteuid())
		fl = 0;
	char *d1 = xasprintf("%s/sandbx", state_home);
	int sd = fsu_open_subdir(base, "sandbx", d1, fl, &sst, NULL, &err);
	close(base);
	free(err);
	err = NULL;
	if (sd >= 0 && !safe_entry(&bst, &sst)) {
		close(sd);	/* another user could put another tree in its place */
		sd = -1;
	}
	if (sd < 0) {
		free(d1);
		return -1;
	}
	*display = xasprintf("%s/filters", d1);
	free(d1);
	int fd = fsu_open_subdir(sd, "filters", *display, fl, &st, NULL, &err);
	close(sd);
	free(err);
	if (fd >= 0 && (!safe_entry(&sst, &st) || (st.st_mode & 022))) {
		close(fd);	/* another user could put a file of theirs in */
		fd = -1;
	}
	if (fd < 0) {
		free(*display);
		*display = NULL;
	}
	return fd;
}

/* ---- load and store ------------------------------------------------------ */

int filtcache_load(const char *state_home, const struct policy *p, struct seccomp_bpf *out)
{
	char name[64], *display = NULL, *buf = NULL, *err = NULL;
	size_t n = 0;
	int r = -1;

	if (!state_home || !build_id())
		return -1;
	int dfd = open_dir(state_home, 0, &display);
	if (dfd < 0)
		return -1;
	filtcache_name(p, name, sizeof(name));
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(dfd);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) ||
	    st.st_nlink != 1 || st.st_size > (off_t)FILE_MAX || fsu_read_all(fd, FILE_MAX, display, &buf, &n, &err) < 0)
		goto out;

	/* KEY "\n\n" | u32 count | count instructions | u64 FNV-1a of all before */
	char *end = memmem(buf, n, "\n\n", 2);
	if (!end || n < sizeof(uint64_t))
		goto out;
	size_t klen = (size_t)(end - buf) + 2;
	uint32_t count;
	uint64_t sum;
	if (klen > KEY_MAX || n < klen + sizeof(count) + sizeof(sum))
		goto out;
	memcpy(&count, buf + klen, sizeof(count));
	if (count == 0 || count > SECCOMP_BPF_MAX_INSNS ||
	    n != klen + sizeof(count) + count * sizeof(struct sock_filter) + sizeof(sum))
		goto out;
	memcpy(&sum, buf + n - sizeof(sum), sizeof(sum));
	if (sum != fnv1a(buf, n - sizeof(sum)))
		goto out;

	/* The key names the library that compiled it; this process's key for
	 * that path (its file as it is now) must be the same, byte for byte. */
	buf[klen - 1] = '\0';
	char *lib = strstr(buf, "\nlib ");
	char libpath[4096];
	if (!lib)
		goto out;
	lib += 5;
	size_t pl = strcspn(lib, " \n");
	if (pl == 0 || pl >= sizeof(libpath))
		goto out;
	memcpy(libpath, lib, pl);
	libpath[pl] = '\0';
	buf[klen - 1] = '\n';
	char *key = xmalloc(KEY_MAX);
	int k = make_key(p, libpath, key, KEY_MAX);
	int same = k >= 0 && (size_t)k == klen && memcmp(key, buf, klen) == 0;
	free(key);
	if (!same)
		goto out;
	memcpy(out->insns, buf + klen + sizeof(count), count * sizeof(struct sock_filter));
	out->len = (unsigned short)count;
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(err);
	free(display);
	return r;
}

static int is_filter_name(const char *name, size_t len)
{
	return len > 8 && memcmp(name, "seccomp-", 8) == 0;
}

int filtcache_store(const char *state_home, const struct policy *p, const char *libpath,
		    const struct seccomp_bpf *bpf)
{
	char name[64], *display = NULL, *err = NULL;
	if (!state_home || bpf->len == 0 || bpf->len > SECCOMP_BPF_MAX_INSNS)
		return -1;
	char *buf = xmalloc(FILE_MAX);
	int k = make_key(p, libpath, buf, KEY_MAX);
	if (k < 0) {
		free(buf);
		return -1;
	}
	uint32_t count = bpf->len;
	size_t n = (size_t)k;
	memcpy(buf + n, &count, sizeof(count));
	n += sizeof(count);
	memcpy(buf + n, bpf->insns, count * sizeof(struct sock_filter));
	n += count * sizeof(struct sock_filter);
	uint64_t sum = fnv1a(buf, n);
	memcpy(buf + n, &sum, sizeof(sum));
	n += sizeof(sum);

	int r = -1;
	int dfd = open_dir(state_home, 1, &display);
	if (dfd >= 0) {
		/* what a store killed before its rename left, ten minutes on */
		(void)fsu_sweep_temps(dfd, is_filter_name, FILTCACHE_TEMP_AGE);
		filtcache_name(p, name, sizeof(name));
		char *shown = xasprintf("%s/%s", display, name);
		r = fsu_write_atomic(dfd, name, shown, buf, n, &err) == 0 ? 0 : -1;
		free(shown);
		close(dfd);
	}
	free(err);
	free(display);
	free(buf);
	return r;
}
