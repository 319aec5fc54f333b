/*
 * tool_grep.c — grep: PCRE2 (JIT) over whole files read into one reusable
 * buffer.  The walk never follows a link; each file is opened O_NOFOLLOW
 * relative to its directory and its size checked with fstat on that
 * handle, so a file swapped after the check is not the one read.
 *
 * Speed: a pattern without metacharacters is a literal, searched with
 * memchr on its rarest byte (by a fixed English/source-code frequency
 * guess) and confirmed with memcmp — glibc's memchr is vectorised, so a
 * rare literal costs little more than the reads.  Everything else goes to
 * the JIT compiled regex over the whole buffer (PCRE2_MULTILINE, so ^ and
 * $ are per line); a match that crosses a line break counts only if its
 * line alone matches, as grep's are per line.  Line numbers are counted
 * only up to matches shown.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <valgrind/valgrind.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pcre2.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tools/tools_int.h"
#include "util/dl.h"
#include "util/utf8.h"

/* The search child's exit status when an allocation failed (util.h). */
#define GREP_CHILD_OOM 86

/*
 * PCRE2 is opened the first time a pattern needs it (util/dl.h says why),
 * not linked: each pcre2_* name used below is a pointer in this table.
 * A literal pattern never loads it.
 */
static struct {
	__typeof__(pcre2_compile_8) *compile;
	__typeof__(pcre2_compile_context_create_8) *compile_context_create;
	__typeof__(pcre2_compile_context_free_8) *compile_context_free;
	__typeof__(pcre2_code_free_8) *code_free;
	__typeof__(pcre2_get_error_message_8) *get_error_message;
	__typeof__(pcre2_get_ovector_pointer_8) *get_ovector_pointer;
	__typeof__(pcre2_jit_compile_8) *jit_compile;
	__typeof__(pcre2_jit_match_8) *jit_match;
	__typeof__(pcre2_jit_stack_assign_8) *jit_stack_assign;
	__typeof__(pcre2_jit_stack_create_8) *jit_stack_create;
	__typeof__(pcre2_jit_stack_free_8) *jit_stack_free;
	__typeof__(pcre2_match_8) *match;
	__typeof__(pcre2_match_context_create_8) *match_context_create;
	__typeof__(pcre2_match_context_free_8) *match_context_free;
	__typeof__(pcre2_match_data_create_8) *match_data_create;
	__typeof__(pcre2_match_data_free_8) *match_data_free;
	__typeof__(pcre2_set_heap_limit_8) *set_heap_limit;
	__typeof__(pcre2_set_newline_8) *set_newline;
} pc;

#define PC_SYM(n) DL_SYM(__typeof__(pc), n, "pcre2_" #n "_8")
static const struct dl_sym pc_syms[] = {
	PC_SYM(compile),
	PC_SYM(compile_context_create),
	PC_SYM(compile_context_free),
	PC_SYM(code_free),
	PC_SYM(get_error_message),
	PC_SYM(get_ovector_pointer),
	PC_SYM(jit_compile),
	PC_SYM(jit_match),
	PC_SYM(jit_stack_assign),
	PC_SYM(jit_stack_create),
	PC_SYM(jit_stack_free),
	PC_SYM(match),
	PC_SYM(match_context_create),
	PC_SYM(match_context_free),
	PC_SYM(match_data_create),
	PC_SYM(match_data_free),
	PC_SYM(set_heap_limit),
	PC_SYM(set_newline),
};

#undef pcre2_compile
#define pcre2_compile pc.compile
#undef pcre2_compile_context_create
#define pcre2_compile_context_create pc.compile_context_create
#undef pcre2_compile_context_free
#define pcre2_compile_context_free pc.compile_context_free
#undef pcre2_code_free
#define pcre2_code_free pc.code_free
#undef pcre2_get_error_message
#define pcre2_get_error_message pc.get_error_message
#undef pcre2_get_ovector_pointer
#define pcre2_get_ovector_pointer pc.get_ovector_pointer
#undef pcre2_jit_compile
#define pcre2_jit_compile pc.jit_compile
#undef pcre2_jit_match
#define pcre2_jit_match pc.jit_match
#undef pcre2_jit_stack_assign
#define pcre2_jit_stack_assign pc.jit_stack_assign
#undef pcre2_jit_stack_create
#define pcre2_jit_stack_create pc.jit_stack_create
#undef pcre2_jit_stack_free
#define pcre2_jit_stack_free pc.jit_stack_free
#undef pcre2_match
#define pcre2_match pc.match
#undef pcre2_match_context_create
#define pcre2_match_context_create pc.match_context_create
#undef pcre2_match_context_free
#define pcre2_match_context_free pc.match_context_free
#undef pcre2_match_data_create
#define pcre2_match_data_create pc.match_data_create
#undef pcre2_match_data_free
#define pcre2_match_data_free pc.match_data_free
#undef pcre2_set_heap_limit
#define pcre2_set_heap_limit pc.set_heap_limit
#undef pcre2_set_newline
#define pcre2_set_newline pc.set_newline

static struct dl_lib pc_lib = DL_LIB("libpcre2-8.so.0", "libpcre2-8-0", pc_syms, &pc);


/* Longest literal searched by its rarest byte: each place that byte occurs
 * is confirmed with memcmp, up to the literal's length, so a long literal
 * over text full of its own prefix was quadratic (a 512 KiB one took 16 s
 * on one 2 MiB file).  Longer ones go to glibc's memmem, linear (two-way). */
#define GREP_RARE_MAX 64
/* JIT stack: grown on demand up to this (patterns with deep backtracking). */
#define GREP_JIT_STACK_MAX (1024 * 1024)
/* Interpreter heap for backtracking, KiB. */
#define GREP_HEAP_KIB (64 * 1024)

struct grepst {
	const struct tool_ctx *c;
	pcre2_code *re;
	pcre2_match_data *md;
	pcre2_match_context *mctx;
	pcre2_jit_stack *jstack;
	int jit;
	const unsigned char *lit;
	size_t litlen, rare;		/* literal, and its rarest byte's index */
	const char *glob;
	unsigned char *buf;
	size_t alloc;
	uint64_t files, bytes, max_files, max_bytes;
	uint64_t visited, max_visited;	/* entries the walk passed, any type */
	uint64_t matches, shown, max_shown;
	uint64_t binary, big, limit_hit, short_hit;
	unsigned limit_kinds;		/* GREP_LIMIT_*: which limits limit_hit counts */
	struct tskip unopened;		/* files that could not be opened */
	struct tskip limited;		/* files where a limit gave up a line */
	struct tskip shorted;		/* files where memory ran short for a line */
	enum { CAP_NONE, CAP_FILES, CAP_BYTES, CAP_ENTRIES } cap;
	struct tout o;
	struct grep_progress *prog;	/* the search child's, shared; NULL in-process */
};

/*
 * What the search child has found so far, in memory it shares with the
 * harness: a search its time budget ends still answers with the lines it
 * had shown, the counts, and the file it was in.  The child is killed and
 * reaped before the harness reads it; each length is stored after what it
 * covers (release), so a kill between the two leaves the old length.
 */
#define GREP_PROGRESS_PATH 1024
struct grep_progress {
	uint64_t files, matches, shown;
	size_t plen;			/* path[0..plen): the file being searched, 0 between files */
	int cut;			/* path holds the end of a longer one */
	size_t len;			/* text[0..len): the lines shown so far */
	char path[GREP_PROGRESS_PATH];
	char text[TOOLS_MAX_OUTPUT + 1];
};

/* The child starts searching path (NULL: done with it).  The raw bytes,
 * made visible only by the harness if a note needs them: this runs for
 * every file searched. */
static void progress_file(struct grepst *g, const char *path)
{
	struct grep_progress *p = g->prog;
	if (!p)
		return;
	__atomic_store_n(&p->plen, 0, __ATOMIC_RELEASE);
	p->files = g->files;
	if (!path)
		return;
	size_t n = strlen(path);
	p->cut = n > sizeof(p->path);
	if (p->cut) {	/* the end names the file: keep it */
		path += n - sizeof(p->path);
		n = sizeof(p->path);
	}
	memcpy(p->path, path, n);
	__atomic_store_n(&p->plen, n, __ATOMIC_RELEASE);
}

/* The child counted a match, and showed o's text up to from + what it added. */
static void progress_line(struct grepst *g, size_t from)
{
	struct grep_progress *p = g->prog;
	if (!p)
		return;
	p->matches = g->matches;
	p->shown = g->shown;
	if (g->o.len > from && g->o.len <= sizeof(p->text) - 1) {
		memcpy(p->text + from, g->o.buf + from, g->o.len - from);
		__atomic_store_n(&p->len, g->o.len, __ATOMIC_RELEASE);
	}
}

/* Rough frequency of a byte in text and source (higher = more common). */
static int byte_rank(unsigned char b)
{
	static const char common[] = " etaoinsrhldcu\nmfpgwybv,.k_()=;\"x-/*";
	const char *p = b ? strchr(common, b) : NULL;
	if (p)
		return 255 - (int)(p - common);
	if (b >= 'A' && b <= 'Z')
		return 150;
	if (b >= '0' && b <= '9')
		return 160;
	if (b == '\t')
		return 200;
	if (b < 128)
		return 100;
	return 20;
}

static int is_literal(const char *p)
{
	return strpbrk(p, "\\^$.|?*+()[]{}") == NULL;
}


static int grep_setup(struct grepst *g, const char *pattern, int icase, char **err)
{
	if (strchr(pattern, '\n')) {	/* no line holds one: it could never match */
		*err = xstrdup("the pattern holds a line break, and grep matches within one line — search for "
			       "the text of one line (a regular expression's \\s and [^...] do not cross lines either)");
		return -1;
	}
	if (is_literal(pattern) && !icase && *pattern) {
		g->lit = (const unsigned char *)pattern;
		g->litlen = strlen(pattern);
		for (size_t i = 1; i < g->litlen; i++)
			if (byte_rank(g->lit[i]) < byte_rank(g->lit[g->rare]))
				g->rare = i;
		return 0;
	}
	int ec;
	PCRE2_SIZE eo;
	if (dl_load(&pc_lib, err) < 0)
		return -1;
	/* A CRLF line ends where its LF line would, as with ripgrep's --crlf:
	 * read and grep show such lines without the CR, so 'foo$' failing on
	 * "foo\r\n" had no cause the model could see.  (A lone CR ends a
	 * line for ^ and $ too, and '.' takes no CR.) */
	pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
	if (!cc || pcre2_set_newline(cc, PCRE2_NEWLINE_ANYCRLF) != 0) {
		pcre2_compile_context_free(cc);
		*err = xstrdup("out of memory compiling the pattern — try again");
		return -1;
	}
	g->re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
			      PCRE2_MULTILINE | PCRE2_NEVER_UTF | (icase ? PCRE2_CASELESS : 0), &ec, &eo, cc);
	pcre2_compile_context_free(cc);
	if (!g->re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(ec, msg, sizeof(msg));
		/* quoted up to 200 bytes: the error goes back to the model, and a
		 * pattern may be megabytes */
		size_t pl = strlen(pattern), q = utf8_cut(pattern, pl, 200);
		*err = xasprintf("pattern '%.*s%s' is not a valid regular expression: %s at offset %zu — fix it, "
				 "or escape metacharacters with a backslash to search for them literally",
				 (int)q, pattern, q < pl ? "…" : "", (const char *)msg, (size_t)eo);
		return -1;
	}
	g->md = pcre2_match_data_create(1, NULL);
	g->mctx = pcre2_match_context_create(NULL);
	/* The interpreter ((*NO_JIT), no JIT on this host) keeps its
	 * backtracking frames on the heap, 20 GB by default. */
	pcre2_set_heap_limit(g->mctx, GREP_HEAP_KIB);
	/* PCRE2's JIT code reads past the subject in whole words, which
	 * valgrind reports as uninitialised (PCRE2 documents this); under
	 * valgrind the interpreter gives the same matches. */
	g->jit = !RUNNING_ON_VALGRIND && pcre2_jit_compile(g->re, PCRE2_JIT_COMPLETE) == 0;
	if (g->jit) {
		g->jstack = pcre2_jit_stack_create(32 * 1024, GREP_JIT_STACK_MAX, NULL);
		if (g->jstack)
			pcre2_jit_stack_assign(g->mctx, NULL, g->jstack);
	}
	return 0;
}

int tools_preload(char **err)
{
	return dl_load(&pc_lib, err) < 0 ? -1 : 0;
}

static void grep_release(struct grepst *g)
{
	if (g->re) {	/* else PCRE2 may not be loaded: nothing of it was made */
		pcre2_match_data_free(g->md);
		pcre2_match_context_free(g->mctx);
		pcre2_jit_stack_free(g->jstack);
		pcre2_code_free(g->re);
	}
	free(g->buf);
	tskip_release(&g->unopened);
	tskip_release(&g->limited);
	tskip_release(&g->shorted);
	tout_release(&g->o);
}

enum { GREP_LIMIT_MATCH = 1, GREP_LIMIT_DEPTH = 2, GREP_LIMIT_HEAP = 4, GREP_LIMIT_STACK = 8,
       GREP_LIMIT_OTHER = 16 };

/* A line pcre2_match gave up on: counted by why, so the note's advice fits.
 * PCRE2_ERROR_NOMEMORY is the process's memory running short below
 * the heap limit (a ulimit -v, a cgroup): no simpler pattern is needed,
 * only more memory. */
static void gave_up(struct grepst *g, int r)
{
	if (r == PCRE2_ERROR_NOMEMORY) {
		g->short_hit++;
		return;
	}
	g->limit_hit++;
	g->limit_kinds |= r == PCRE2_ERROR_MATCHLIMIT	? GREP_LIMIT_MATCH
			: r == PCRE2_ERROR_DEPTHLIMIT	? GREP_LIMIT_DEPTH
			: r == PCRE2_ERROR_HEAPLIMIT	? GREP_LIMIT_HEAP
			: r == PCRE2_ERROR_JIT_STACKLIMIT ? GREP_LIMIT_STACK
							  : GREP_LIMIT_OTHER;
}

/* "match limit", "match and heap limits", ...: the limits a search hit. */
static char *limit_names(unsigned kinds)
{
	static const char *const names[] = { "match", "depth", "heap", "JIT stack" };
	char *out = xstrdup("");
	size_t n = 0, seen = 0;
	for (size_t i = 0; i < SBX_ARRAY_LEN(names); i++)
		n += (kinds >> i) & 1;
	for (size_t i = 0; i < SBX_ARRAY_LEN(names); i++) {
		if (!((kinds >> i) & 1))
			continue;
		seen++;
		char *t = xasprintf("%s%s%s", out, seen == 1 ? "" : seen == n ? " and " : ", ", names[i]);
		free(out);
		out = t;
	}
	/* a start moved outside the search by \K, or an error PCRE2 adds
	 * later: said as what it is */
	const char *other = (kinds & GREP_LIMIT_OTHER) ? "a PCRE2 error" : "";
	char *t = n ? xasprintf("PCRE2's %s limit%s%s%s", out, n == 1 ? "" : "s", *other ? " and " : "", other)
		    : xstrdup(other);
	free(out);
	return t;
}

/* Offset of the next match at or after pos, or -1 (-2: a limit was hit);
 * *end: where the match ends. */
static long next_match(struct grepst *g, const unsigned char *b, size_t n, size_t pos, size_t *end_out)
{
	if (g->lit) {
		size_t L = g->litlen, k = g->rare;
		unsigned char rb = g->lit[k];
		*end_out = 0;
		if (n - pos < L)
			return -1;
		if (L > GREP_RARE_MAX) {
			const unsigned char *s = memmem(b + pos, n - pos, g->lit, L);
			*end_out = s ? (size_t)(s - b) + L : 0;
			return s ? s - b : -1;
		}
		const unsigned char *p = b + pos + k, *end = b + n - (L - 1 - k);
		while (p < end) {
			const unsigned char *q = memchr(p, rb, (size_t)(end - p));
			if (!q)
				return -1;
			const unsigned char *s = q - k;
			if (memcmp(s, g->lit, L) == 0) {
				*end_out = (size_t)(s - b) + L;
				return s - b;
			}
			p = q + 1;
		}
		return -1;
	}
	/* pcre2_match, not pcre2_jit_match: it runs the JIT code when there
	 * is some ((*NO_JIT) leaves none) and keeps the checks the fast path
	 * drops. */
	int r = pcre2_match(g->re, b, n, pos, 0, g->md, g->mctx);
	if (r == PCRE2_ERROR_NOMATCH)
		return -1;
	if (r < 0) {
		gave_up(g, r);
		return -2;	/* this line is given up; the next ones are not */
	}
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(g->md), m = ov[0];
	if (m < pos || m > n) {	/* \K can move the start: never outside */
		gave_up(g, 0);
		return -2;
	}
	*end_out = ov[1] > m ? ov[1] : m;	/* a lookahead can end it before its start */
	return (long)m;
}

/*
 * Whether the line b[ls, le) holds a match on its own, the line being all
 * the pattern sees (a regex's match over the whole file crossed its end:
 * [^x], \s or \n took a line break).  1, 0, or -2 when a limit was hit.
 */
static int line_matches(struct grepst *g, const unsigned char *b, size_t ls, size_t le)
{
	if (g->lit)
		return 0;	/* a literal crossing a line break holds one: no line has it */
	int r = pcre2_match(g->re, b + ls, le - ls, 0, 0, g->md, g->mctx);
	if (r == PCRE2_ERROR_NOMATCH)
		return 0;
	if (r < 0) {
		gave_up(g, r);
		return -2;
	}
	return 1;
}

static uint64_t count_nl(const unsigned char *p, const unsigned char *e)
{
	uint64_t n = 0;
	while (p < e && (p = memchr(p, '\n', (size_t)(e - p)))) {
		n++;
		p++;
	}
	return n;
}

/* Count the match on the line b[lstart, lend) and show it while there is
 * room; *line is the number of the line starting at *counted. */
static void grep_report(struct grepst *g, const char *path, const unsigned char *b, size_t lstart, size_t lend,
			uint64_t *line, size_t *counted)
{
	g->matches++;
	if (g->shown >= g->max_shown || g->o.full) {
		progress_line(g, g->o.len);
		return;
	}
	size_t from = g->o.len;
	*line += count_nl(b + *counted, b + lstart);
	*counted = lstart;
	size_t len = lend - lstart;
	if (len > 0 && b[lstart + len - 1] == '\r')
		len--;
	int cut = len > TOOLS_MAX_LINE;
	if (cut)
		len = TOOLS_MAX_LINE;
	char *vis = tools_path_visible(path, 1);
	const char *text = (const char *)b + lstart;
	char *nul = memchr(text, 0, len) ? tools_nul_visible(text, len) : NULL;
	if (tout_printf(&g->o, "%s:%llu:%.*s%s\n", vis, (unsigned long long)*line,
			nul ? (int)strlen(nul) : (int)len, nul ? nul : text, cut ? " [... line cut]" : "") == 0)
		g->shown++;
	progress_line(g, from);
	free(nul);
	free(vis);
}

static void search_buf(struct grepst *g, const char *path, const unsigned char *b, size_t n)
{
	/* binary as read calls it: a NUL in the probe; a NUL further on is
	 * text, shown as \x00 */
	if (memchr(b, 0, n < TOOLS_BINARY_PROBE ? n : TOOLS_BINARY_PROBE)) {
		g->binary++;
		return;
	}
	size_t pos = 0, counted = 0;
	uint64_t line = 1;
	/* Set once a match over the rest of the file crossed a line break:
	 * the pattern takes line breaks, and each search from the next line
	 * could run on to a far end again ('a[^b]*c' was quadratic over a
	 * line of 'a' each and one 'c' at the end, and over lines of "ac"
	 * alike, each of whose matches ran to the last 'c').  The rest of the
	 * file is searched a line at a time. */
	int per_line = 0;
	while (pos <= n) {
		if (per_line) {
			const unsigned char *nl = memchr(b + pos, '\n', n - pos);
			size_t lend = nl ? (size_t)(nl - b) : n;
			if (line_matches(g, b, pos, lend) == 1)
				grep_report(g, path, b, pos, lend, &line, &counted);
			if (!nl || lend + 1 == n)
				break;
			pos = lend + 1;
			continue;
		}
		size_t mend;
		long m = next_match(g, b, n, pos, &mend);
		if (m == -2) {
			/* A match limit hit from pos: go on from the next line, so a
			 * hostile line does not hide the rest of the file. */
			const unsigned char *nl = memchr(b + pos, '\n', n - pos);
			if (!nl)
				break;
			pos = (size_t)(nl - b) + 1;
			continue;
		}
		/* the end of a file ending in a newline (or emptied since its
		 * size was taken) starts no line: \z matched there was shown as a
		 * line past the last */
		if (m < 0 || ((size_t)m == n && (n == 0 || b[n - 1] == '\n')))
			break;
		const unsigned char *nl = memchr(b + m, '\n', n - (size_t)m);
		size_t lend = nl ? (size_t)(nl - b) : n;
		/* pos is a line's start: the line holding m starts after the
		 * last newline before it */
		const unsigned char *ls = (size_t)m > pos ? memrchr(b + pos, '\n', (size_t)m - pos) : NULL;
		size_t lstart = ls ? (size_t)(ls - b) + 1 : pos;
		if (mend > lend) {
			per_line = 1;
			/* a match is within one line, as grep's are: this one
			 * crossed a line break, and counts if the line alone
			 * holds one */
			if (line_matches(g, b, lstart, lend) != 1) {
				if (!nl || lend + 1 == n)
					break;
				pos = lend + 1;
				continue;
			}
		}
		grep_report(g, path, b, lstart, lend, &line, &counted);
		if (!nl)
			break;
		pos = lend + 1;
		if (pos == n)
			break;
	}
}

/* Search the open file fd (consumed).  0 to go on, 1 when a cap stops the search. */
static int search_fd(struct grepst *g, int fd, const char *path)
{
	struct stat st;
	if (g->files >= g->max_files) {
		close(fd);
		g->cap = CAP_FILES;
		return 1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	if ((uint64_t)st.st_size > TOOLS_MAX_FILE_BYTES) {
		close(fd);
		g->big++;
		return 0;
	}
	size_t size = (size_t)st.st_size;
	if (g->bytes + size > g->max_bytes) {
		close(fd);
		g->cap = CAP_BYTES;
		return 1;
	}
	g->files++;
	if (size == 0) {
		close(fd);
		return 0;
	}
	tool_hook(g->c, "checked", path);
	/* before the buffer: a search that runs short of memory for this
	 * file's still names it */
	progress_file(g, path);
	if (size + 1 > g->alloc) {
		size_t a = g->alloc ? g->alloc : 64 * 1024;
		while (a < size + 1)
			a *= 2;
		free(g->buf);
		g->buf = xmalloc(a);
		g->alloc = a;
	}
	size_t got = 0;
	while (got < size) {
		ssize_t r = read(fd, g->buf + got, size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	g->bytes += got;
	uint64_t hits = g->limit_hit, shorts = g->short_hit;
	search_buf(g, path, g->buf, got);
	progress_file(g, NULL);
	if (g->limit_hit > hits)
		tskip_add(&g->limited, 0, path);
	if (g->short_hit > shorts)
		tskip_add(&g->shorted, 0, path);
	return 0;
}

static int grep_visit(struct walk *w, int dfd, const char *name, unsigned char type)
{
	struct grepst *g = w->arg;
	/* The file cap counts files searched; directories and the files
	 * the glob passes over are bounded here, or a literal search (run
	 * in-process, untimed) of a tree of empty directories walks it all. */
	if (g->visited == g->max_visited) {
		g->cap = CAP_ENTRIES;
		w->stop = WALK_CAP;
		return 1;
	}
	g->visited++;
	if (type != DT_REG)
		return 0;
	if (g->glob && !tglob_match(g->glob, name, w->path + w->base_len))
		return 0;
	int fd = fsguard_open_reg_at(dfd, name, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		/* gone, or swapped for a link, a FIFO or a device since
		 * readdir (none of which is opened): nothing left out */
		if (fd != -ENOENT && fd != -ELOOP && fd != -ENXIO)
			tskip_add(&g->unopened, -fd, w->path);
		return 0;
	}
	if (search_fd(g, fd, w->path)) {
		w->stop = WALK_CAP;
		return 1;
	}
	return 0;
}

/* The search itself, on fd (consumed), into out. */
static int grep_search(struct grepst *g, const struct tool_ctx *c, const char *path, int fd, long budget,
		       struct tool_result *out)
{
	struct stat st;
	int cancelled = 0;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		struct walk w = { .ctx = c, .visit = grep_visit, .arg = g, .budget_ms = budget };
		if (budget)
			w.deadline = mono_ms() + budget;
		char *base = tdisplay_base(path);
		walk_tree(&w, fd, base);
		free(base);
		cancelled = w.stop == WALK_CANCELLED;
		walk_notes(&w, &g->o);
	} else {
		search_fd(g, fd, path);
	}
	struct tout *o = &g->o;
	if (g->matches == 0)
		tout_note(o, "(no matches in %llu files searched)\n", (unsigned long long)g->files);
	else if (g->shown < g->matches)
		tout_note(o, "(showing %llu of %llu matching lines%s)\n", (unsigned long long)g->shown,
		     (unsigned long long)g->matches, o->full ? ": output cap of 256 KiB reached, narrow the pattern or path"
							    : "; raise --max-results for more, or narrow the search");
	if (g->cap == CAP_ENTRIES) {
		tout_note(o, "(stopped after visiting %llu entries (%llu file%s searched): scan cap of %llu entries "
			     "per search, %d per file of --max-scan-files, reached; raise --max-scan-files or search "
			     "a narrower path)\n", (unsigned long long)g->visited, (unsigned long long)g->files,
			  g->files == 1 ? "" : "s", (unsigned long long)g->max_visited, TOOLS_GREP_ENTRIES_PER_FILE);
	} else if (g->cap != CAP_NONE) {
		char *lim = tsize_words(g->max_bytes);
		tout_note(o, "(stopped after %llu files: scan cap of %s reached, raise %s or search a narrower path)\n",
		     (unsigned long long)g->files, g->cap == CAP_FILES ? "files" : lim,
		     g->cap == CAP_FILES ? "--max-scan-files" : "--max-scan-bytes");
		free(lim);
	}
	tskip_note(&g->unopened, o, "file", "files");
	if (g->binary)
		tout_note(o, "(skipped %llu binary file%s)\n", (unsigned long long)g->binary, g->binary == 1 ? "" : "s");
	if (g->big)
		tout_note(o, "(skipped %llu file%s over 2 MiB)\n", (unsigned long long)g->big, g->big == 1 ? "" : "s");
	/* "no matches" above is only as true as the lines searched: name
	 * where lines were given up */
	if (g->limit_hit) {
		char *which = limit_names(g->limit_kinds);
		tout_note(o, "(the pattern hit %s %llu time%s in %llu file%s, %s'%s': "
			     "the rest of each such line was not searched, so matches there may be "
			     "missing — simplify the pattern)\n", which,
			  (unsigned long long)g->limit_hit, g->limit_hit == 1 ? "" : "s",
			  (unsigned long long)g->limited.n, g->limited.n == 1 ? "" : "s",
			  g->limited.n == 1 ? "" : "the first ", g->limited.first ? g->limited.first : "");
		free(which);
	}
	if (g->short_hit) {
		char advice[192];
		memory_limit_advice(advice, sizeof(advice));
		tout_note(o, "(sandbx ran out of memory matching the pattern %llu time%s in %llu file%s, %s'%s': "
			     "the rest of each such line was not searched, so matches there may be "
			     "missing — %s)\n",
			  (unsigned long long)g->short_hit, g->short_hit == 1 ? "" : "s",
			  (unsigned long long)g->shorted.n, g->shorted.n == 1 ? "" : "s",
			  g->shorted.n == 1 ? "" : "the first ", g->shorted.first ? g->shorted.first : "", advice);
	}
	/* a stopped walk keeps what it found, as a stopped bash call keeps
	 * its output (before: "cancelled" alone), and is still an error */
	if (cancelled) {
		tool_stop_note(c, o, "search");
		return tool_fail_own(out, tout_detach(o));
	}
	return tool_ok_own(out, tout_detach(o));
}

/*
 * The answer of a search that ended before its child finished: the lines
 * the child had shown, then a note from its progress (tree: the path is a
 * directory) saying what ended it (head; why, when known), what was and
 * was not searched, and what to do (advice; narrower: it ends in "search a
 * narrower path", which a tree's note completes with the file to leave out).
 */
static char *partial_text(const struct grep_progress *p, int tree, const char *head, const char *why,
			  const char *advice, int narrower)
{
	struct tout o;
	tout_init(&o, TOOLS_MAX_OUTPUT);
	size_t len = __atomic_load_n(&p->len, __ATOMIC_ACQUIRE);
	size_t plen = __atomic_load_n(&p->plen, __ATOMIC_ACQUIRE);
	if (len > TOOLS_MAX_OUTPUT)
		len = 0;
	if (plen > sizeof(p->path))
		plen = 0;
	(void)tout_add(&o, p->text, len);
	/* with a file named, it is the one being searched: not done */
	uint64_t done = plen && p->files ? p->files - 1 : p->files;
	char raw[GREP_PROGRESS_PATH + 1];
	memcpy(raw, p->path, plen);
	raw[plen] = '\0';
	char *vis = tools_name_visible(raw);
	char *where = plen ? xasprintf(" in '%s%s'", p->cut ? "..." : "", vis) : xstrdup("");
	free(vis);
	char *found;
	const char *in = plen ? " before it" : "";
	if (p->matches == 0)
		found = tree && done ? xasprintf("No match was found in the %llu file%s searched%s",
						 (unsigned long long)done, done == 1 ? "" : "s", in)
				     : xstrdup(plen ? "No match was found before it stopped" : "No match was found");
	else if (p->shown < p->matches)
		found = xasprintf("%llu matching line%s %s found first (%llu shown above)", (unsigned long long)p->matches,
				  p->matches == 1 ? "" : "s", p->matches == 1 ? "was" : "were", (unsigned long long)p->shown);
	else
		found = xasprintf("The %llu matching line%s above %s found first", (unsigned long long)p->matches,
				  p->matches == 1 ? "" : "s", p->matches == 1 ? "was" : "were");
	/* not in a file: between two in a tree, or (a race) a single file's
	 * search done but its answer not yet sent */
	const char *rest = plen ? (tree ? "the rest of that file and the files after it were" : "the rest of the file was")
				: tree ? "the files after them were" : NULL;
	char *missing = rest ? xasprintf("; %s not searched, so matches there may be missing", rest) : xstrdup("");
	tout_note(&o, "(%s%s: %s%s%s%s — %s%s)\n", head, where, why ? why : "", why ? ". " : "", found, missing, advice,
		  narrower && plen && tree ? " without that file" : "");
	free(missing);
	free(found);
	free(where);
	return tout_detach(&o);
}

/*
 * A regular expression runs in a child process, which the call kills after
 * its time budget or on a stop request: PCRE2's JIT code cannot be
 * interrupted, its match limit does not count every runaway pattern
 * ((?=x*y) rescans a long line from each position), and a callout in the
 * pattern would cost the optimisations that make most patterns fast.  The
 * child sends back one byte (is_error) and the result's text; what it has
 * shown so far is also in the shared progress, which answers a search the
 * budget ends.
 */
static int grep_in_child(struct grepst *g, const struct tool_ctx *c, const char *path, int fd, long budget,
			 struct tool_result *out)
{
	int pfd[2];
	struct stat fst;
	int tree = fstat(fd, &fst) == 0 && S_ISDIR(fst.st_mode);
	struct grep_progress *prog = mmap(NULL, sizeof(*prog), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (prog == MAP_FAILED) {
		int e = errno;
		close(fd);
		return tool_fail(out, "cannot start the search: %s", strerror(e));
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		int e = errno;
		munmap(prog, sizeof(*prog));
		close(fd);
		return tool_fail(out, "cannot start the search: %s", strerror(e));
	}
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(pfd[0]);
		close(pfd[1]);
		close(fd);
		munmap(prog, sizeof(*prog));
		return tool_fail(out, "cannot start the search: %s", strerror(e));
	}
	if (pid == 0) {
		struct tool_result r = { 0 };
		close(pfd[0]);
		g->prog = prog;
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		/* a failed allocation here exits so: the parent tells the model */
		xalloc_exit_code(GREP_CHILD_OOM);
		grep_search(g, c, path, fd, 0, &r);	/* timed by the parent */
		char flag = r.is_error ? 1 : 0;
		if (write_all(pfd[1], &flag, 1) == 0 && r.content)
			(void)write_all(pfd[1], r.content, strlen(r.content));
		free(r.content);
		grep_release(g);
#ifdef SBX_GCOV_DUMP
		/* _exit skips the counters' write at exit: without this a
		 * coverage build shows every regex line as never run */
		extern void __gcov_dump(void);
		__gcov_dump();
#endif
		_exit(0);
	}
	close(pfd[1]);
	close(fd);
	size_t len = 0, cap = 64 * 1024;
	char *buf = xmalloc(cap + 1);
	long deadline = mono_ms() + budget;
	int ended = 0, timed_out = 0, stopped = 0;
	while (!ended) {
		if (tool_stopped(c)) {
			stopped = 1;
			break;
		}
		long left = deadline - mono_ms();
		if (left <= 0) {
			timed_out = 1;
			break;
		}
		struct pollfd pf = { .fd = pfd[0], .events = POLLIN };
		int n = poll(&pf, 1, left < 50 ? (int)left : 50);
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		if (len == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
		ssize_t r = read(pfd[0], buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			ended = 1;
		else
			len += (size_t)r;
	}
	close(pfd[0]);
	if (!ended)
		kill(pid, SIGKILL);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	buf[len] = '\0';
	char *partial = NULL;
	if (timed_out) {
		char head[64];
		snprintf(head, sizeof(head), "stopped after %.1f s", (double)budget / 1000);
		partial = partial_text(prog, tree, head, "the pattern is too slow on this text",
				       "simplify the pattern (a lookahead or a nested repeat rescans each line from every "
				       "position) or search a narrower path", 1);
	} else if (!stopped && len == 0) {
		/* "run it again" would not help when the search ran short of
		 * memory or crashed: the model is told which, with what the
		 * child had found when it started a file */
		int started = __atomic_load_n(&prog->plen, __ATOMIC_ACQUIRE) || prog->files || prog->matches;
		if (WIFEXITED(st) && WEXITSTATUS(st) == GREP_CHILD_OOM) {
			char advice[192];
			memory_limit_advice(advice, sizeof(advice));
			partial = started ? partial_text(prog, tree, "sandbx ran out of memory in the search", NULL, advice, 0)
					  : xasprintf("sandbx ran out of memory in the search — %s", advice);
		} else if (WIFSIGNALED(st)) {
			char head[96];
			snprintf(head, sizeof(head), "the search ended by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
			partial = started ? partial_text(prog, tree, head, NULL, "search a narrower path or with a simpler "
										 "pattern", 0)
					  : xasprintf("%s without a result — search a narrower path or with a simpler "
						      "pattern", head);
		} else
			partial = xstrdup("the search ended without a result — run it again");
	}
	if (stopped) {
		/* the lines the child had shown, then why it ended, as a
		 * search in this process answers (before: "cancelled" alone) */
		struct tout o;
		tout_init(&o, TOOLS_MAX_OUTPUT);
		size_t plen = __atomic_load_n(&prog->len, __ATOMIC_ACQUIRE);
		if (plen <= TOOLS_MAX_OUTPUT)
			(void)tout_add(&o, prog->text, plen);
		if (!prog->matches)
			tout_force(&o, "(no matches found before the stop)\n");
		tool_stop_note(c, &o, "search");
		munmap(prog, sizeof(*prog));
		free(buf);
		free(partial);
		return tool_fail_own(out, tout_detach(&o));
	}
	munmap(prog, sizeof(*prog));
	if (timed_out) {
		free(buf);
		return tool_ok_own(out, partial);
	}
	if (len == 0) {
		free(buf);
		return tool_fail_own(out, partial);
	}
	int is_error = buf[0] == 1;
	char *content = xstrdup(buf + 1);
	free(buf);
	return is_error ? tool_fail_own(out, content) : tool_ok_own(out, content);
}

int tool_grep_run(const struct tool_ctx *c, const cJSON *in, struct tool_result *out)
{
	const char *path = tin_str(in, "path"), *pattern = tin_str(in, "pattern");
	struct grepst g = { .c = c, .glob = tin_str(in, "glob"), .max_files = tlim_files(c),
			    .max_bytes = tlim_bytes(c), .max_shown = tlim_results(c) };
	g.max_visited = g.max_files > UINT64_MAX / TOOLS_GREP_ENTRIES_PER_FILE ? UINT64_MAX
									      : g.max_files * TOOLS_GREP_ENTRIES_PER_FILE;
	long budget = tlim_ms(c);
	char *err = NULL;

	tout_init(&g.o, TOOLS_MAX_OUTPUT);
	if (g.glob && !*g.glob)
		g.glob = NULL;
	if (grep_setup(&g, pattern, tin_bool(in, "ignore_case", 0), &err) < 0) {
		grep_release(&g);
		return tool_fail_own(out, err);
	}
	int fd = fsguard_open(c->guard, path, O_RDONLY | O_NONBLOCK | O_NOCTTY, POL_READ, NULL, &err);
	if (fd < 0) {
		grep_release(&g);
		return tool_fail_own(out, err);
	}
	/* A literal is a memchr scan, linear: searched here.  So is
	 * everything when a test hook watches the search from this process.
	 * Its walk stops at the budget (a glob can be slow on long paths). */
	int r = g.lit || c->hook ? grep_search(&g, c, path, fd, budget, out) : grep_in_child(&g, c, path, fd, budget, out);
	grep_release(&g);
	return r;
}
