#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "util/dl.h"
#include "util/sha256.h"
#include "util/util.h"

/* The few EVP entry points used, resolved from libcrypto at run time. */
struct evp {
	void *(*md_ctx_new)(void);
	void (*md_ctx_free)(void *);
	const void *(*sha256)(void);
	int (*init)(void *, const void *, void *);
	int (*update)(void *, const void *, size_t);
	int (*final)(void *, unsigned char *, unsigned int *);
};

static struct evp evp;
static const struct dl_sym evp_syms[] = {
	DL_SYM(struct evp, md_ctx_new, "EVP_MD_CTX_new"),
	DL_SYM(struct evp, md_ctx_free, "EVP_MD_CTX_free"),
	DL_SYM(struct evp, sha256, "EVP_sha256"),
	DL_SYM(struct evp, init, "EVP_DigestInit_ex"),
	DL_SYM(struct evp, update, "EVP_DigestUpdate"),
	DL_SYM(struct evp, final, "EVP_DigestFinal_ex"),
};
static struct dl_lib evp_lib = DL_LIB("libcrypto.so.3", "libssl3", evp_syms, &evp);

static void *begin(char **err)
{
	if (dl_load(&evp_lib, err) < 0)
		return NULL;
	void *ctx = evp.md_ctx_new();
	if (!ctx || evp.init(ctx, evp.sha256(), NULL) != 1) {
		if (ctx)
			evp.md_ctx_free(ctx);
		*err = xstrdup("libcrypto could not start a SHA-256 digest");
		return NULL;
	}
	return ctx;
}

static int finish(void *ctx, char hex[SHA256_HEX_LEN + 1], char **err)
{
	unsigned char md[32];
	unsigned int n = 0;
	int ok = evp.final(ctx, md, &n) == 1 && n == 32;
	evp.md_ctx_free(ctx);
	if (!ok) {
		*err = xstrdup("libcrypto could not finish the SHA-256 digest");
		return -1;
	}
	for (int i = 0; i < 32; i++) {
		static const char d[] = "0123456789abcdef";
		hex[2 * i] = d[md[i] >> 4];
		hex[2 * i + 1] = d[md[i] & 15];
	}
	hex[64] = '\0';
	return 0;
}

int sha256_fd_hex(int fd, char hex[SHA256_HEX_LEN + 1], char **err)
{
	char buf[65536];
	void *ctx = begin(err);
	if (!ctx)
		return -1;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*err = xasprintf("read failed: %s", strerror(errno));
			evp.md_ctx_free(ctx);
			return -1;
		}
		if (n == 0)
			break;
		evp.update(ctx, buf, (size_t)n);
	}
	return finish(ctx, hex, err);
}

int sha256_buf_hex(const void *buf, size_t n, char hex[SHA256_HEX_LEN + 1], char **err)
{
	void *ctx = begin(err);
	if (!ctx)
		return -1;
	evp.update(ctx, buf, n);
	return finish(ctx, hex, err);
}
