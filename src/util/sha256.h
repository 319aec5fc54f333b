/*
 * sha256.h — SHA-256 of an open file through libcrypto.
 *
 * libcrypto is opened at run time (dlopen "libcrypto.so.3") on first use:
 * linking it would add its loader cost to every exec of the sandbox helper,
 * which never hashes (HACKING.md, "Run-time libraries").
 */
#ifndef SBX_SHA256_H
#define SBX_SHA256_H

#include <stddef.h>

#define SHA256_HEX_LEN 64

/* Hash everything readable from fd (from its current offset) into
 * hex[65].  0, or -1 with *err. */
int sha256_fd_hex(int fd, char hex[SHA256_HEX_LEN + 1], char **err);

/* Hash a buffer; 0, or -1 with *err. */
int sha256_buf_hex(const void *buf, size_t n, char hex[SHA256_HEX_LEN + 1], char **err);

#endif
