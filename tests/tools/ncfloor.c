/*
 * ncfloor — the floor for bench/tui.sh: a bare ncursesw program drawing a
 * screen like sandbx tui's (a transcript line, an input row, a reversed
 * status line reading "ready") and waiting for ctrl-d.  Nothing else:
 * no threads, no model, no agent.
 */
#include <curses.h>
#include <locale.h>

int main(void)
{
	setlocale(LC_ALL, "");
	initscr();
	raw();
	noecho();
	keypad(stdscr, TRUE);
	mvaddstr(0, 0, "\xc2\xb7 floor: a bare ncursesw screen");
	mvaddstr(LINES - 2, 0, "> type a prompt");
	attron(A_REVERSE);
	mvaddstr(LINES - 1, 0, " ready \xe2\x94\x82 floor");
	for (int x = getcurx(stdscr); x < COLS - 1; x++)
		addch(' ');
	attroff(A_REVERSE);
	move(LINES - 2, 2);
	refresh();
	while (getch() != 4)
		;
	endwin();
	return 0;
}
