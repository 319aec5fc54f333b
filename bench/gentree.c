/*
 * gentree.c — deterministic benchmark tree for bench/grep.sh and
 * bench/find.sh: NFILES files (text, some binary) in nested directories,
 * plus symlinks, from a fixed seed so every run builds the same bytes.
 *
 *   gentree DIR NFILES MEAN_BYTES
 *
 * Text is lines of words from a small vocabulary of English and code
 * tokens.  About one file in 5,000 holds the rare literal
 * "zanzibar_quokka"; "return" is common; identifiers like Foo_123 give the
 * regex something to find.  Two files in a hundred are binary (NUL bytes),
 * and each leaf directory gets a symlink to a file and one to a directory.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t st = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	st ^= st << 13;
	st ^= st >> 7;
	st ^= st << 17;
	return st;
}

static const char *const words[] = {
	"the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "with", "was", "on", "be", "by",
	"this", "are", "from", "or", "have", "an", "they", "which", "one", "you", "were", "all", "we",
	"return", "int", "char", "static", "const", "void", "if", "else", "while", "for", "struct",
	"buffer", "length", "value", "error", "config", "request", "response", "handler", "parse",
	"sandbox", "policy", "read", "write", "file", "path", "open", "close", "size_t", "NULL", "{", "}",
	"(", ")", ";", "=", "==", "+", "->", "0", "1", "42", "// note:", "/* comment */", "TODO",
};
#define NW (sizeof(words) / sizeof(words[0]))

static void gen_text(FILE *f, size_t target)
{
	size_t n = 0, col = 0;
	while (n < target) {
		uint64_t r = rnd();
		char tmp[64];
		const char *w;
		if (r % 997 == 0) {
			snprintf(tmp, sizeof(tmp), "%c%s_%03u", 'A' + (int)(r >> 8) % 26, "oo", (unsigned)(r >> 16) % 1000);
			w = tmp;
		} else {
			w = words[(r >> 20) % NW];
		}
		size_t l = strlen(w);
		fputs(w, f);
		n += l;
		col += l;
		if (col > 40 + (r >> 40) % 60) {
			fputc('\n', f);
			col = 0;
		} else {
			fputc(' ', f);
		}
		n++;
	}
	fputc('\n', f);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: gentree DIR NFILES MEAN_BYTES\n");
		return 2;
	}
	const char *root = argv[1];
	long nfiles = atol(argv[2]);
	long mean = atol(argv[3]);
	char path[4096];
	if (mkdir(root, 0755) < 0 && errno != EEXIST) {
		perror(root);
		return 1;
	}
	long per_leaf = 50, leaf = 0;
	for (long i = 0; i < nfiles; i++) {
		if (i % per_leaf == 0) {
			leaf = i / per_leaf;
			snprintf(path, sizeof(path), "%s/d%02ld", root, leaf / 40);
			mkdir(path, 0755);
			snprintf(path, sizeof(path), "%s/d%02ld/e%02ld", root, leaf / 40, leaf % 40);
			mkdir(path, 0755);
			char l[4200];
			snprintf(l, sizeof(l), "%s/d%02ld/e%02ld/link_to_dir", root, leaf / 40, leaf % 40);
			symlink("..", l);
			snprintf(l, sizeof(l), "%s/d%02ld/e%02ld/link_to_file.txt", root, leaf / 40, leaf % 40);
			symlink("f0000.txt", l);
		}
		uint64_t r = rnd();
		int binary = r % 100 < 2;
		snprintf(path, sizeof(path), "%s/d%02ld/e%02ld/f%04ld.%s", root, leaf / 40, leaf % 40, i % 10000,
			 binary ? "bin" : (r >> 8) % 3 == 0 ? "c" : (r >> 8) % 3 == 1 ? "txt" : "md");
		FILE *f = fopen(path, "w");
		if (!f) {
			perror(path);
			return 1;
		}
		size_t size = (size_t)(mean / 4 + (long)((r >> 16) % (uint64_t)(mean * 3 / 2)));
		if (binary) {
			for (size_t k = 0; k < size; k++)
				fputc((int)(rnd() & 0xff), f);
		} else {
			gen_text(f, size);
			if ((r >> 32) % 5000 == 0)
				fputs("here is the zanzibar_quokka marker\n", f);
		}
		fclose(f);
	}
	return 0;
}
