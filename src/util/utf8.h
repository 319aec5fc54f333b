/*
 * utf8.h — decoding UTF-8 and keeping text that reaches a terminal from
 * driving it.
 *
 * Text sandbx prints comes from places it does not trust: the model's
 * answer, a command's output in a tool summary, a command line in an
 * audit record.  A terminal takes ESC (and, in UTF-8, the C1 controls
 * U+0080..U+009F) as the start of a command: set the window title, write
 * the clipboard (OSC 52), move the cursor over what was shown.  The bidi
 * controls reorder what the eye reads.  These helpers make them visible.
 */
#ifndef SBX_UTIL_UTF8_H
#define SBX_UTIL_UTF8_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The sequence at s (n bytes left): its length with *cp set; 0 when it is
 * cut short by the end of s; -1 when it is not valid UTF-8 (overlong,
 * surrogate, past U+10FFFF, a stray continuation byte). */
int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* U+061C, U+200E/F, U+202A..E, U+2066..9: the bidi controls. */
int utf8_is_bidi(uint32_t cp);

/* A character that draws nothing where it stands, yet is a byte of what
 * runs: every Default_Ignorable_Code_Point of Unicode (zero-width spaces
 * and joiners, the soft hyphen, word joiner, invisible operators and the
 * deprecated format controls U+206A..F, the byte order mark, fillers,
 * variation selectors, the tag characters, and the unassigned points
 * reserved as ignorable), the interlinear annotation marks, and the line
 * and paragraph separators U+2028/9. */
int utf8_is_invisible(uint32_t cp);

/* A character that draws as a blank and is none to the shell: the
 * no-break spaces U+00A0, U+202F, the spaces U+2000..U+200A, U+205F,
 * U+1680, U+3000 and the braille blank U+2800.  bash splits words at
 * space, tab and newline only, so 'make\u00a0# x; curl x | sh' is no
 * comment; in a path 'notes.txt\u00a0' names another file. */
int utf8_is_blank_lookalike(uint32_t cp);

/* A character drawn on the one before it (cp not ASCII): what wcwidth
 * gives no columns in a UTF-8 locale (C.UTF-8, a locale object of its
 * own, whatever LC_CTYPE is): the nonspacing and enclosing marks
 * (U+0300..U+036F, the overlays U+0335..U+0338, U+20D0..U+20FF...) and
 * Hangul's medial and final jamo; the characters that draw nothing
 * (utf8_is_invisible names them); and those wcwidth does not know (-1:
 * unassigned, or newer than glibc's Unicode), which a newer terminal may
 * draw as a mark.  When that locale cannot be made,
 * every character outside the blocks known to hold none of those (Latin,
 * Greek, Cyrillic, Armenian, Hebrew's letters, the symbols, CJK...): more
 * is shown then, never less. */
int utf8_is_combining(uint32_t cp);

/*
 * The rules for text that names what runs or is written (a command, a
 * path, the approval question's arguments and diff, an audit record's
 * value), where one character read as another changes what is meant.
 * utf8_name_shown says a character is to be shown escaped (the question
 * writes <U+XXXX>, a record \xNN):
 *
 *  - a blank bash does not split at (utf8_is_blank_lookalike);
 *  - a mark drawn on an ASCII character (the space, a letter, a slash):
 *    '/etc/pas\u0338swd' strikes an 's' through, 'a\u0335' draws a dash
 *    over an 'a'.  Letters of other scripts carry their marks for real
 *    and keep them drawn.  A mark after an escape would be drawn on its
 *    last character, so each mark of a run is shown;
 *  - in a word that has ASCII letters, the letters of the scripts whose
 *    letters pass for Latin ones (utf8_is_lookalike_script):
 *    '/etc/p\u0430sswd' (a Cyrillic a) is another file than /etc/passwd.
 *    A word wholly in one such script is drawn (a Russian file name), as
 *    browsers draw a domain label of one script and spell out one that
 *    mixes them.  A word is a run of ASCII letters and digits, '.', '_',
 *    '-' and characters that are not ASCII, judged whole (s[0..n), past
 *    where a caller cuts what it shows); with json (printed JSON) an
 *    escape (\n, \u001b) parts words, so '\n' is no 'n' of the next.
 *
 * The state runs over the text in order: utf8_name_shown is asked about
 * each character (s[i], cp; an ASCII one too, and 0xfffd for a byte that
 * is not UTF-8), and utf8_name_drawn told whether what was written for it
 * ends in ASCII (ASCII, or an escape) or not (a character drawn as it is).
 */
struct utf8_name_rules {
	int on_ascii;		/* what was written last ends in ASCII */
	size_t word_end;	/* where the word being walked ends (byte offset) */
	int mixed;		/* ... and whether it mixes ASCII letters with a look-alike script */
	int json;
};

/* Before walking s[0..n) from its start: all ASCII, none of it is shown
 * and no word need be judged (a record or a command is mostly that). */
void utf8_name_rules_init(struct utf8_name_rules *r, int json, const char *s, size_t n);
int utf8_name_shown_at(struct utf8_name_rules *r, const unsigned char *s, size_t n, size_t i, uint32_t cp);
/* Inside a word an ASCII character needs no call. */
static inline int utf8_name_shown(struct utf8_name_rules *r, const unsigned char *s, size_t n, size_t i, uint32_t cp)
{
	return cp < 0x80 && i < r->word_end ? 0 : utf8_name_shown_at(r, s, n, i, cp);
}
static inline void utf8_name_drawn(struct utf8_name_rules *r, int ascii)
{
	r->on_ascii = ascii;
}

/* Greek and Coptic, Cyrillic and its Supplement, Armenian (U+0370..U+058F)
 * and Greek Extended (U+1F00..U+1FFF): scripts with letters drawn as
 * Latin ones are. */
int utf8_is_lookalike_script(uint32_t cp);

/* What a terminal must not receive as it is: a C0 control, DEL, a C1
 * control or a bidi control.  (\n and \t are C0: callers that keep them
 * test for them first.) */
int utf8_is_unsafe(uint32_t cp);

/* Where to cut s (n bytes) at or before byte k without splitting a
 * character: k when k >= n or s[k] begins one, else back past at most 3
 * continuation bytes (a run of stray ones is cut anywhere). */
size_t utf8_cut(const char *s, size_t n, size_t k);

/* How many bytes of s (n bytes) are valid UTF-8 from its start: n when
 * all are, else the offset of the first byte of the first invalid or
 * cut-short sequence. */
size_t utf8_valid_len(const char *s, size_t n);

/*
 * Write s[0..n) to f for a terminal: ESC, the other C0 controls but \n and
 * \t, and DEL as ^X (^[ for ESC, ^? for DEL), C1 and bidi controls as
 * <U+XXXX>, a byte that is not UTF-8 as \xNN; all else as it is.  A
 * sequence cut short at the end is not written unless final: the return
 * is how many bytes were consumed, the caller keeps the rest (at most 3)
 * for the next call.
 */
size_t utf8_term_write(FILE *f, const char *s, size_t n, int final);

/*
 * Write printed JSON (json, whole) to f for a terminal: cJSON escapes the
 * C0 controls only, so DEL, C1 and bidi controls inside its strings are
 * written as \uXXXX escapes and a byte that is not UTF-8 as \ufffd (no
 * JSON string holds one); the text parses to the same.  Outside strings
 * printed JSON is ASCII, so only string contents change.
 */
void utf8_term_write_json(FILE *f, const char *json);

/*
 * A terminal whose charset is not UTF-8 (an 8-bit xterm, the Linux console
 * in 8-bit mode) takes each byte as a character, and the second byte of
 * U+00C0..U+00DF (of U+0100.. too) is 0x80..0x9F: a C1 control there (Û is
 * C3 9B, CSI; Ý and Ü are OSC and ST, an OSC 52 clipboard write).
 *
 * Whether it is comes from the environment (LC_ALL, LC_CTYPE, LANG),
 * decided once: by utf8_term_charset_init at start (agent-run when it
 * has a terminal, and the screen, while single-threaded), else at the
 * first character that is not ASCII written to a terminal (the other
 * commands, single-threaded: it sets LC_CTYPE for a moment and puts it
 * back); never when nothing is written to one.  A locale whose codeset is not UTF-8 is
 * a terminal that is not, except the C/POSIX locale (nothing configured,
 * as in most containers), which is taken as C.UTF-8 when that exists.
 * utf8_term_charset_init sets LC_CTYPE from the environment; keep: leave
 * it so set (the screen needs it for wcwidth); else LC_CTYPE goes back to
 * what it was and the conversion uses a locale object of its own.
 * Returns 1 when the terminal is not UTF-8.
 *
 * From then on, when it is not, what utf8_term_write, utf8_term_write_json
 * and utf8_term_printf write to a terminal (isatty) has each character
 * that is not ASCII in the locale's charset (utf8_to_charset), else as
 * <U+XXXX> (\uXXXX in JSON).  Into a pipe or a file, and on a UTF-8
 * terminal, they write what they did before.
 */
int utf8_term_charset_init(int keep);

/* Whether fd is a terminal that is not UTF-8. */
int utf8_term_legacy(int fd);

/* The same with the locale named (NULL: UTF-8, no conversion). */
int utf8_term_charset_set(const char *locale);

/* cp (not ASCII) in the current LC_CTYPE's charset into mb (MB_LEN_MAX
 * bytes): its length, or 0 when the charset has no such character or
 * spells it as one byte in 0x80..0x9F. */
size_t utf8_to_charset(uint32_t cp, char *mb);

/* fprintf for a terminal's lines that are already made visible (a note,
 * a question, an audit record): on a UTF-8 terminal, in a pipe or a file
 * it is fprintf; on a terminal that is not UTF-8 the text goes through
 * utf8_term_write, whole. */
void utf8_term_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
