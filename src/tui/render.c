/*
 * render.c — draws struct tui_frame with ncursesw and reads keys (see
 * render.h).  Coordinates are the frame's: row 0 at the top.  Each row of
 * the previous frame is kept; a row whose text and attributes did not
 * change is not touched, and ncurses' own diff sends only changed cells,
 * so streamed text costs one row per frame, not a repaint.
 */
#include <curses.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "tui/render.h"
#include "util/dl.h"
#include "util/log.h"
#include "util/utf8.h"

/*
 * ncursesw is opened when the TUI starts (util/dl.h says why), not linked:
 * each name render.c uses is a pointer in this table, and the macros
 * below (also reached through curses.h's own, e.g. move -> wmove) send
 * every use to it.
 */
static struct {
	__typeof__(stdscr) *stdscr;
	__typeof__(curscr) *curscr;
	__typeof__(COLS) *COLS;
	__typeof__(LINES) *LINES;
	__typeof__(has_colors) *has_colors;
	__typeof__(start_color) *start_color;
	__typeof__(use_default_colors) *use_default_colors;
	__typeof__(init_pair) *init_pair;
	__typeof__(set_escdelay) *set_escdelay;
	__typeof__(newterm) *newterm;
	__typeof__(set_term) *set_term;
	__typeof__(raw) *raw;
	__typeof__(noecho) *noecho;
	__typeof__(nonl) *nonl;
	__typeof__(keypad) *keypad;
	__typeof__(nodelay) *nodelay;
	__typeof__(intrflush) *intrflush;
	__typeof__(scrollok) *scrollok;
	__typeof__(define_key) *define_key;
	__typeof__(mousemask) *mousemask;
	__typeof__(mouseinterval) *mouseinterval;
	__typeof__(resize_term) *resize_term;
	__typeof__(clearok) *clearok;
	__typeof__(wmove) *wmove;
	__typeof__(wattrset) *wattrset;
	__typeof__(waddnstr) *waddnstr;
	__typeof__(wclrtoeol) *wclrtoeol;
	__typeof__(wrefresh) *wrefresh;
	__typeof__(wget_wch) *wget_wch;
	__typeof__(ungetch) *ungetch;
	__typeof__(getmouse) *getmouse;
	__typeof__(flushinp) *flushinp;
	__typeof__(endwin) *endwin;
	__typeof__(delscreen) *delscreen;
	__typeof__(tigetstr) *tigetstr;
} nc;

#define NC_SYM(n) DL_SYM(__typeof__(nc), n, #n)
static const struct dl_sym nc_syms[] = {
	NC_SYM(stdscr),
	NC_SYM(curscr),
	NC_SYM(COLS),
	NC_SYM(LINES),
	NC_SYM(has_colors),
	NC_SYM(start_color),
	NC_SYM(use_default_colors),
	NC_SYM(init_pair),
	NC_SYM(set_escdelay),
	NC_SYM(newterm),
	NC_SYM(set_term),
	NC_SYM(raw),
	NC_SYM(noecho),
	NC_SYM(nonl),
	NC_SYM(keypad),
	NC_SYM(nodelay),
	NC_SYM(intrflush),
	NC_SYM(scrollok),
	NC_SYM(define_key),
	NC_SYM(mousemask),
	NC_SYM(mouseinterval),
	NC_SYM(resize_term),
	NC_SYM(clearok),
	NC_SYM(wmove),
	NC_SYM(wattrset),
	NC_SYM(waddnstr),
	NC_SYM(wclrtoeol),
	NC_SYM(wrefresh),
	NC_SYM(wget_wch),
	NC_SYM(ungetch),
	NC_SYM(getmouse),
	NC_SYM(flushinp),
	NC_SYM(endwin),
	NC_SYM(delscreen),
	NC_SYM(tigetstr),
};

#undef stdscr
#define stdscr (*nc.stdscr)
#undef curscr
#define curscr (*nc.curscr)
#undef COLS
#define COLS (*nc.COLS)
#undef LINES
#define LINES (*nc.LINES)
#undef has_colors
#define has_colors nc.has_colors
#undef start_color
#define start_color nc.start_color
#undef use_default_colors
#define use_default_colors nc.use_default_colors
#undef init_pair
#define init_pair nc.init_pair
#undef set_escdelay
#define set_escdelay nc.set_escdelay
#undef newterm
#define newterm nc.newterm
#undef set_term
#define set_term nc.set_term
#undef raw
#define raw nc.raw
#undef noecho
#define noecho nc.noecho
#undef nonl
#define nonl nc.nonl
#undef keypad
#define keypad nc.keypad
#undef nodelay
#define nodelay nc.nodelay
#undef intrflush
#define intrflush nc.intrflush
#undef scrollok
#define scrollok nc.scrollok
#undef define_key
#define define_key nc.define_key
#undef mousemask
#define mousemask nc.mousemask
#undef mouseinterval
#define mouseinterval nc.mouseinterval
#undef resize_term
#define resize_term nc.resize_term
#undef clearok
#define clearok nc.clearok
#undef wmove
#define wmove nc.wmove
#undef wattrset
#define wattrset nc.wattrset
#undef waddnstr
#define waddnstr nc.waddnstr
#undef wclrtoeol
#define wclrtoeol nc.wclrtoeol
#undef wrefresh
#define wrefresh nc.wrefresh
#undef wget_wch
#define wget_wch nc.wget_wch
#undef ungetch
#define ungetch nc.ungetch
#undef getmouse
#define getmouse nc.getmouse
#undef flushinp
#define flushinp nc.flushinp
#undef endwin
#define endwin nc.endwin
#undef delscreen
#define delscreen nc.delscreen
#undef tigetstr
#define tigetstr nc.tigetstr

static struct dl_lib nc_lib = DL_LIB("libncursesw.so.6", "libncursesw6", nc_syms, &nc);

/* Keys ncurses does not know, taught with define_key(). */
#define K_PASTE_START (KEY_MAX + 1)
#define K_PASTE_END (KEY_MAX + 2)
#define K_ALT_ENTER (KEY_MAX + 3)

#define ESC_DELAY_MS 25		/* a lone escape: nothing behind it this long */

static SCREEN *scr;
static attr_t attrs[TA__COUNT];

/* A paste read in bulk (keys.h): the bytes read and not yet made keys,
 * and what tui_keys_read holds of a key.  Bulk reads start when ncurses
 * has just read the start marker: its queue is empty then (it reads a
 * byte at a time, no further than the key it matches). */
static unsigned char inb[TUI_PASTE_READ];
static size_t inoff, inlen;
static struct tui_keyrd rd;
static struct {
	char *buf;
	size_t len;
	size_t plen;
	uint8_t pattr, attr;
	int valid;
} *prev;
static int prev_h;

/*
 * A terminal that is not UTF-8 (render_init's legacy): ncursesw reads what
 * addnstr is given in LC_CTYPE's charset, so the rows' UTF-8 went out as a
 * character per byte (é as Ã©; Û, C3 9B, as Ã and C1 CSI, drawn ~[).  Each
 * row is written in that charset, what it lacks as '?' (the model already
 * drew such characters as U+FFFD: wcwidth in that locale knows them not).
 */
static int legacy;
static char *conv;
static size_t conv_cap;

static void add_text(const char *s, size_t n)
{
	if (!legacy) {
		addnstr(s, (int)n);
		return;
	}
	/* ASCII stays one byte, any other character is at least two in
	 * UTF-8 and at most MB_LEN_MAX in the charset */
	size_t need = n * MB_LEN_MAX + 1, o = 0;
	if (need > conv_cap) {
		conv = xrealloc(conv, need);
		conv_cap = need;
	}
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		int l = utf8_decode((const unsigned char *)s + i, n - i, &cp);
		if (l <= 0) {
			conv[o++] = '?';
			i++;
			continue;
		}
		if (cp < 0x80) {
			conv[o++] = (char)cp;
		} else {
			size_t k = utf8_to_charset(cp, conv + o);
			if (k)
				o += k;
			else
				conv[o++] = '?';
		}
		i += (size_t)l;
	}
	addnstr(conv, (int)o);
}

/*
 * A fatal signal (a crash, abort(), SIGQUIT) ends sandbx without endwin(),
 * which is not safe in a signal handler: the handler writes what endwin
 * would send, prepared when the screen started, and sets the terminal's
 * modes back, so the shell is not left without echo, in the alternate
 * screen, with mouse reports typed into it.  Then the signal goes on to
 * the handler before ours (a sanitizer's) or its default action.  A failed
 * allocation, which ends sandbx by _exit (util.h), does the same first.
 */
#define RENDER_RESET_MAX 512		/* the escape sequences written */
static const int fatal_sigs[] = { SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGQUIT, SIGTRAP, SIGSYS };
static struct sigaction fatal_old[SBX_ARRAY_LEN(fatal_sigs)];
static char reset_seq[RENDER_RESET_MAX];
static size_t reset_len;
static struct termios reset_tio;
static int reset_tio_ok, fatal_set;

/* A terminfo string capability, or NULL when the terminal has none. */
static const char *cap(const char *name)
{
	const char *s = tigetstr(name);
	return s && s != (char *)-1 ? s : NULL;
}

static void reset_add(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (reset_len + n <= sizeof(reset_seq)) {
		memcpy(reset_seq + reset_len, s, n);
		reset_len += n;
	}
}

static void fatal_restore(void)
{
	xalloc_on_oom(NULL);
	for (size_t i = 0; i < SBX_ARRAY_LEN(fatal_sigs); i++)
		sigaction(fatal_sigs[i], &fatal_old[i], NULL);
	fatal_set = 0;
}

/* What endwin would do, without allocating or taking a lock. */
static void screen_give_back(void)
{
	ssize_t r = write(STDOUT_FILENO, reset_seq, reset_len);
	(void)r;
	if (reset_tio_ok)
		tcsetattr(STDOUT_FILENO, TCSANOW, &reset_tio);
	log_hold_crash();	/* what stderr held, and the report to come, reach the terminal */
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	screen_give_back();
	fatal_restore();
	/* a fault the kernel raised comes again when this returns; a signal
	 * that was sent is sent again */
	if (si->si_code <= 0)
		raise(sig);
}

static void fatal_install(void)
{
	struct sigaction sa;
	reset_len = 0;
	reset_add("\033[?2004l");
	if (cap("kmous"))	/* the xterm mouse modes ncurses turns on */
		reset_add("\033[?1000l\033[?1006l");
	reset_add(cap("rmkx"));
	reset_add(cap("sgr0"));
	reset_add(cap("cnorm"));
	reset_add(cap("rmcup"));
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < SBX_ARRAY_LEN(fatal_sigs); i++)
		sigaction(fatal_sigs[i], &sa, &fatal_old[i]);
	/* memory running out ends sandbx by _exit, past endwin too */
	xalloc_on_oom(screen_give_back);
	fatal_set = 1;
}

static void setup_attrs(void)
{
	int colour = has_colors() && !(getenv("NO_COLOR") && *getenv("NO_COLOR"));
	attrs[TA_NORMAL] = A_NORMAL;
	attrs[TA_USER] = A_BOLD;
	attrs[TA_HEADING] = A_BOLD | A_UNDERLINE;
	attrs[TA_CODE] = A_NORMAL;
	attrs[TA_DIM] = A_DIM;
	attrs[TA_TOOL] = A_BOLD;
	attrs[TA_OK] = A_NORMAL;
	attrs[TA_ERROR] = A_BOLD;
	attrs[TA_RETRY] = A_NORMAL;
	attrs[TA_QUESTION] = A_BOLD;
	attrs[TA_STATUS] = A_REVERSE;
	attrs[TA_ADD] = A_NORMAL;
	attrs[TA_DEL] = A_NORMAL;
	if (!colour)
		return;
	start_color();
	use_default_colors();
	init_pair(1, COLOR_CYAN, -1);
	init_pair(2, COLOR_YELLOW, -1);
	init_pair(3, COLOR_GREEN, -1);
	init_pair(4, COLOR_MAGENTA, -1);
	init_pair(5, COLOR_RED, -1);
	attrs[TA_USER] |= COLOR_PAIR(1);
	attrs[TA_HEADING] |= COLOR_PAIR(2);
	attrs[TA_CODE] |= COLOR_PAIR(3);
	attrs[TA_TOOL] |= COLOR_PAIR(4);
	attrs[TA_OK] |= COLOR_PAIR(3);
	attrs[TA_ERROR] |= COLOR_PAIR(5);
	attrs[TA_RETRY] |= COLOR_PAIR(2);
	attrs[TA_QUESTION] |= COLOR_PAIR(2);
	attrs[TA_ADD] |= COLOR_PAIR(3);
	attrs[TA_DEL] |= COLOR_PAIR(5);
}

int render_init(int home_ti, int not_utf8, char **err)
{
	if (!isatty(0) || !isatty(1)) {
		*err = xstrdup("the terminal is missing: tui needs a terminal on stdin and stdout — run it in a terminal, or use 'sandbx agent-run'");
		return -1;
	}
	if (dl_load(&nc_lib, err) < 0)
		return -1;
	legacy = not_utf8;
	set_escdelay(ESC_DELAY_MS);
	reset_tio_ok = tcgetattr(STDOUT_FILENO, &reset_tio) == 0;
	/* ncurses reads $HOME/.terminfo (even after $TERMINFO) while newterm
	 * looks up the description, and at no other time. */
	char *home = !home_ti && getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
	if (home)
		unsetenv("HOME");
	scr = newterm(NULL, stdout, stdin);
	if (home) {
		setenv("HOME", home, 1);
		free(home);
	}
	if (!scr) {
		*err = xasprintf("cannot start the screen on terminal type '%s' — set TERM to your terminal (e.g. xterm-256color)",
				 getenv("TERM") ? getenv("TERM") : "");
		return -1;
	}
	set_term(scr);
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	intrflush(stdscr, FALSE);
	scrollok(stdscr, FALSE);
	define_key("\033[200~", K_PASTE_START);
	define_key("\033[201~", K_PASTE_END);
	define_key("\033\r", K_ALT_ENTER);
	define_key("\033\n", K_ALT_ENTER);
	mousemask(BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	setup_attrs();
	inoff = inlen = 0;
	tui_keys_read_reset(&rd);
	rd.kent = cap("kent");
	/* bracketed paste: pasted text arrives between markers, so an Enter
	 * inside it is a newline, not "send" */
	fputs("\033[?2004h", stdout);
	fflush(stdout);
	fatal_install();
	return 0;
}

void render_size(int *w, int *h)
{
	*w = COLS;
	*h = LINES;
}

void render_resize(int *w, int *h)
{
	struct winsize ws;
	if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		resize_term(ws.ws_row, ws.ws_col);
	render_size(w, h);
}

static void prev_resize(int h)
{
	if (h == prev_h)
		return;
	for (int i = 0; i < prev_h; i++)
		free(prev[i].buf);
	free(prev);
	prev = xcalloc((size_t)h, sizeof(*prev));
	prev_h = h;
}

int render_frame(const struct tui_frame *f, int force)
{
	int n = 0;
	prev_resize(f->h);
	if (force)
		clearok(curscr, TRUE);
	for (int y = 0; y < f->h && y < LINES; y++) {
		const struct tui_frow *r = &f->rows[y];
		if (!force && prev[y].valid && prev[y].len == r->len && prev[y].plen == r->plen &&
		    prev[y].pattr == r->pattr && prev[y].attr == r->attr && memcmp(prev[y].buf, r->buf, r->len) == 0)
			continue;
		move(y, 0);
		attrset(attrs[r->pattr]);
		if (r->plen)
			add_text(r->buf, r->plen);
		attrset(attrs[r->attr]);
		if (r->len > r->plen)
			add_text(r->buf + r->plen, r->len - r->plen);
		attrset(A_NORMAL);
		int cy, cx;
		getyx(stdscr, cy, cx);
		if (cy == y && cx < COLS)
			clrtoeol();
		free(prev[y].buf);
		prev[y].buf = xstrndup(r->buf, r->len);
		prev[y].len = r->len;
		prev[y].plen = r->plen;
		prev[y].pattr = r->pattr;
		prev[y].attr = r->attr;
		prev[y].valid = 1;
		n++;
	}
	move(f->cy, f->cx);
	refresh();
	return n;
}

/*
 * The rest of an escape sequence the terminal library did not know (a key
 * with unusual modifiers, a mouse report in another encoding, a keypad key
 * the terminfo entry lacks), read and dropped so that its bytes are not
 * typed keys: a cursor key's final "A" or a mouse report's "y" would
 * otherwise answer a question.  ESC [ M is an X10 mouse report, three
 * bytes follow; any other CSI, and an SS3 (ESC O), is parameter and
 * intermediate bytes (0x20-0x3f) up to a final byte (0x40-0x7e), at most
 * 32 read: SS3 usually has none, but terminals using the old modifier form
 * send shift-F1 as ESC O 2 P and ctrl-F2 as ESC O 1;5 Q.
 */
static void drop_sequence(wint_t intro)
{
	wint_t c;
	if (get_wch(&c) != OK)
		return;
	if (intro == '[' && c == 'M') {
		for (int i = 0; i < 3 && get_wch(&c) != ERR; i++)
			;
		return;
	}
	for (int i = 0; i < 32; i++) {
		if (c >= 0x40 && c <= 0x7e)
			return;
		if (c < 0x20 || c > 0x3f || get_wch(&c) != OK)
			return;
	}
}

int render_input_pending(void)
{
	return inoff < inlen || rd.nseq || rd.mouse || rd.skip;
}

int render_input_waiting(void)
{
	struct pollfd p = { STDIN_FILENO, POLLIN, 0 };
	return render_input_pending() || (poll(&p, 1, 0) > 0 && (p.revents & POLLIN));
}

/* The next key of a paste read in bulk: 1 with k, 0 when none is waiting,
 * -1 when ncurses is to read it (the paste is over). */
static int bulk_key(struct tui_key *k, int paste)
{
	for (;;) {
		/* (after a paste, what is left of the read: keys one at a
		 * time; tui.c then says paste 2) */
		int mode = paste == 1 ? 1 : 2;
		if (inoff < inlen && tui_keys_read(&rd, inb, inlen, &inoff, mode, 0, k) > 0)
			return 1;
		inoff = inlen = 0;
		int held = rd.nseq || rd.mouse || rd.skip;
		if (paste != 1 && !held)
			return -1;
		/* part of a key held: the rest within the escape delay, as
		 * ncurses waits for it */
		struct pollfd p = { STDIN_FILENO, POLLIN, 0 };
		int pr = poll(&p, 1, held ? ESC_DELAY_MS : 0);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr > 0 && (p.revents & POLLIN)) {
			ssize_t r = read(STDIN_FILENO, inb, TUI_PASTE_READ);
			if (r < 0 && errno == EINTR)
				continue;
			if (r > 0) {
				inlen = (size_t)r;
				continue;
			}
		}
		if (!held)
			return 0;	/* nothing waiting (a hang-up: poll in tui.c sees it) */
		size_t none = 0;
		return tui_keys_read(&rd, inb, 0, &none, mode, 1, k) > 0 ? 1 : 0;
	}
}

int render_key(struct tui_key *k, int paste)
{
	wint_t c;
	memset(k, 0, sizeof(*k));
	if (render_input_pending() || paste == 1) {
		int b = bulk_key(k, paste);
		if (b >= 0)
			return b;
	}
	int r = get_wch(&c);
	memset(k, 0, sizeof(*k));
	if (r == ERR)
		return 0;
	if (r == OK) {
		if (c == 13 || c == 10) {
			k->code = c == 13 ? TK_ENTER : TK_NEWLINE;
			k->ch = (uint32_t)c;	/* its byte: CR LF is one line break in a paste */
		} else if (c == 27) {
			/* escape with a key right behind it (ncurses already
			 * waited ESCDELAY for it) is alt+key, not a lone escape:
			 * ignored, so alt-b in a turn does not stop it */
			wint_t c2;
			int r2 = get_wch(&c2);
			if (r2 == ERR)
				k->code = TK_ESC;
			else if (r2 == KEY_CODE_YES) {
				ungetch((int)c2);
				k->code = TK_ESC;
			} else if (c2 == 13 || c2 == 10) {
				k->code = TK_NEWLINE;
			} else {
				k->code = TK_NONE;
				if (c2 == '[' || c2 == 'O')
					drop_sequence(c2);
			}
		}
		else if (c == 127 || c == 8) {
			k->code = TK_BACKSPACE;
			k->ch = (uint32_t)c;	/* its byte: text inside a paste */
		}
		else if (c == 9) {
			k->code = TK_CHAR;
			k->ch = '\t';
		} else if (c < 32) {
			k->code = TK_CTRL;
			k->ch = (uint32_t)c + 96;
		} else {
			k->code = TK_CHAR;
			k->ch = (uint32_t)c;
		}
		return 1;
	}
	switch (c) {
	case KEY_ENTER: k->code = TK_ENTER; break;
	case K_ALT_ENTER: k->code = TK_NEWLINE; break;
	case K_PASTE_START: k->code = TK_PASTE_START; break;
	case K_PASTE_END: k->code = TK_PASTE_END; break;
	case KEY_BACKSPACE: k->code = TK_BACKSPACE; break;
	case KEY_DC: k->code = TK_DELETE; break;
	case KEY_LEFT: k->code = TK_LEFT; break;
	case KEY_RIGHT: k->code = TK_RIGHT; break;
	case KEY_UP: k->code = TK_UP; break;
	case KEY_DOWN: k->code = TK_DOWN; break;
	case KEY_HOME: k->code = TK_HOME; break;
	case KEY_END: k->code = TK_END; break;
	case KEY_PPAGE: k->code = TK_PGUP; break;
	case KEY_NPAGE: k->code = TK_PGDN; break;
	case KEY_RESIZE: k->code = TK_RESIZE; break;
	case KEY_MOUSE: {
		MEVENT ev;
		if (getmouse(&ev) == OK) {
			if (ev.bstate & BUTTON4_PRESSED)
				k->code = TK_WHEEL_UP;
			else if (ev.bstate & BUTTON5_PRESSED)
				k->code = TK_WHEEL_DOWN;
		}
		break;
	}
	default:
		k->code = TK_NONE;
		break;
	}
	return 1;
}

static int suspended;

void render_suspend(void)
{
	if (!scr || suspended)
		return;
	fputs("\033[?2004l", stdout);
	fflush(stdout);
	endwin();
	suspended = 1;
}

void render_resume(void)
{
	if (!scr)
		return;
	/* continued after a stop render_suspend did not see (SIGSTOP): the
	 * shell had the terminal meanwhile; endwin so that the refresh below
	 * sets every mode again */
	if (!suspended)
		endwin();
	suspended = 0;
	clearok(curscr, TRUE);
	refresh();
	keypad(stdscr, TRUE);
	fputs("\033[?2004h", stdout);
	fflush(stdout);
}

void render_flush_input(void)
{
	flushinp();
	inoff = inlen = 0;
	tui_keys_read_reset(&rd);
}

void render_end(void)
{
	if (!scr)
		return;
	if (fatal_set)
		fatal_restore();
	fputs("\033[?2004l", stdout);
	fflush(stdout);
	endwin();
	delscreen(scr);
	scr = NULL;
	rd.kent = NULL;
	suspended = 0;
	for (int i = 0; i < prev_h; i++)
		free(prev[i].buf);
	free(prev);
	prev = NULL;
	prev_h = 0;
	free(conv);
	conv = NULL;
	conv_cap = 0;
}
