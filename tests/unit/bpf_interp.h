/*
 * bpf_interp.h — a small classic-BPF interpreter for seccomp programs,
 * test-only.  It evaluates a filter the way the kernel's seccomp does
 * (kernel/seccomp.c: seccomp_check_filter's instruction set, loads only
 * from struct seccomp_data, 32-bit aligned), so the unit suite can assert
 * what a filter answers without loading it.
 *
 * Life cycle:
 *   1. bpf_prog_from_fd(fd, &prog) reads a program exported by
 *      seccomp_export_bpf (raw struct sock_filter array); or fill
 *      struct bpf_prog yourself (insns is malloc'd, len instructions)
 *   2. bpf_run(&prog, &data) any number of times: the 32-bit return value
 *      (SECCOMP_RET_*), or BPF_INTERP_BAD for a program the kernel would
 *      have rejected or that runs off its end
 *   3. bpf_prog_free(&prog)
 */
#ifndef SBX_BPF_INTERP_H
#define SBX_BPF_INTERP_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

/* The kernel's BPF_MAXINSNS. */
#define BPF_INTERP_MAX_INSNS 4096
/* Not a valid seccomp return: the program itself is broken. */
#define BPF_INTERP_BAD 0xdeadbeefU

struct bpf_prog {
	struct sock_filter *insns;
	size_t len;
};

static inline void bpf_prog_free(struct bpf_prog *p)
{
	free(p->insns);
	p->insns = NULL;
	p->len = 0;
}

/* Read a whole exported program from fd (at its current offset); 0 or -errno. */
static inline int bpf_prog_from_fd(int fd, struct bpf_prog *p)
{
	size_t cap = BPF_INTERP_MAX_INSNS * sizeof(struct sock_filter) + 1, n = 0;
	char *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return -errno;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == cap) {
			free(buf);
			return -E2BIG;
		}
	}
	if (n == 0 || n % sizeof(struct sock_filter)) {
		free(buf);
		return -EINVAL;
	}
	p->insns = (struct sock_filter *)buf;
	p->len = n / sizeof(struct sock_filter);
	return 0;
}

static inline uint32_t bpf_run(const struct bpf_prog *p, const struct seccomp_data *d)
{
	uint32_t A = 0, X = 0, M[BPF_MEMWORDS] = { 0 };
	size_t pc = 0;

	if (p->len == 0 || p->len > BPF_INTERP_MAX_INSNS)
		return BPF_INTERP_BAD;
	while (pc < p->len) {
		const struct sock_filter *f = &p->insns[pc++];
		uint32_t k = f->k, src;
		switch (BPF_CLASS(f->code)) {
		case BPF_LD:
			if (f->code == (BPF_LD | BPF_W | BPF_ABS)) {
				if (k % 4 || k + 4 > sizeof(*d))
					return BPF_INTERP_BAD;
				memcpy(&A, (const char *)d + k, 4);
			} else if (f->code == (BPF_LD | BPF_W | BPF_LEN)) {
				A = sizeof(*d);
			} else if (f->code == (BPF_LD | BPF_IMM)) {
				A = k;
			} else if (f->code == (BPF_LD | BPF_MEM)) {
				if (k >= BPF_MEMWORDS)
					return BPF_INTERP_BAD;
				A = M[k];
			} else {
				return BPF_INTERP_BAD;
			}
			break;
		case BPF_LDX:
			if (f->code == (BPF_LDX | BPF_W | BPF_LEN)) {
				X = sizeof(*d);
			} else if (f->code == (BPF_LDX | BPF_IMM)) {
				X = k;
			} else if (f->code == (BPF_LDX | BPF_MEM)) {
				if (k >= BPF_MEMWORDS)
					return BPF_INTERP_BAD;
				X = M[k];
			} else {
				return BPF_INTERP_BAD;
			}
			break;
		case BPF_ST:
		case BPF_STX:
			if (k >= BPF_MEMWORDS)
				return BPF_INTERP_BAD;
			M[k] = BPF_CLASS(f->code) == BPF_ST ? A : X;
			break;
		case BPF_ALU:
			src = BPF_SRC(f->code) == BPF_X ? X : k;
			switch (BPF_OP(f->code)) {
			case BPF_ADD: A += src; break;
			case BPF_SUB: A -= src; break;
			case BPF_MUL: A *= src; break;
			case BPF_DIV:
				if (src == 0)
					return 0;	/* the kernel's classic BPF returns 0 */
				A /= src;
				break;
			case BPF_MOD:
				if (src == 0)
					return 0;
				A %= src;
				break;
			case BPF_AND: A &= src; break;
			case BPF_OR: A |= src; break;
			case BPF_XOR: A ^= src; break;
			case BPF_LSH: A = src < 32 ? A << src : 0; break;
			case BPF_RSH: A = src < 32 ? A >> src : 0; break;
			case BPF_NEG: A = -A; break;
			default: return BPF_INTERP_BAD;
			}
			break;
		case BPF_JMP:
			src = BPF_SRC(f->code) == BPF_X ? X : k;
			if (BPF_OP(f->code) == BPF_JA) {
				if (k >= p->len - pc)
					return BPF_INTERP_BAD;
				pc += k;
				break;
			}
			{
				int taken;
				switch (BPF_OP(f->code)) {
				case BPF_JEQ: taken = A == src; break;
				case BPF_JGT: taken = A > src; break;
				case BPF_JGE: taken = A >= src; break;
				case BPF_JSET: taken = (A & src) != 0; break;
				default: return BPF_INTERP_BAD;
				}
				pc += taken ? f->jt : f->jf;
			}
			break;
		case BPF_RET:
			if (BPF_RVAL(f->code) == BPF_K)
				return k;
			if (BPF_RVAL(f->code) == BPF_A)
				return A;
			return BPF_INTERP_BAD;
		case BPF_MISC:
			if (BPF_MISCOP(f->code) == BPF_TAX)
				X = A;
			else if (BPF_MISCOP(f->code) == BPF_TXA)
				A = X;
			else
				return BPF_INTERP_BAD;
			break;
		default:
			return BPF_INTERP_BAD;
		}
	}
	return BPF_INTERP_BAD;	/* ran off the end: the kernel rejects such a program */
}

#endif
