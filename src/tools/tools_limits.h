/*
 * tools_limits.h — every bound of the agent's tools, one named constant
 * each.  The three search limits can be raised per run (--max-scan-files,
 * --max-scan-bytes, --max-results: struct tool_limits, 0 = the default
 * here); the others are fixed so that one tool result always fits in a
 * model turn.
 */
#ifndef SBX_TOOLS_LIMITS_H
#define SBX_TOOLS_LIMITS_H

/* Result entries shown (grep matches, find paths, ls entries). */
#define TOOLS_MAX_RESULTS		200
/* Bytes of content in one tool result (the cut line comes on top). */
#define TOOLS_MAX_OUTPUT		(256u * 1024)
/* Files opened per search (grep) or entries visited (find). */
#define TOOLS_MAX_SCAN_FILES		10000
/* Entries a grep walk may pass (directories, links, files the glob skips)
 * per file it may search: 1,000,000 with the default file cap, about 13 s
 * of walking at the 13 µs an empty directory took here. */
#define TOOLS_GREP_ENTRIES_PER_FILE	100
/* Bytes read per search, and by one read call. */
#define TOOLS_MAX_SCAN_BYTES		(64ull * 1024 * 1024)
/* A file larger than this is not searched (grep) or edited (edit). */
#define TOOLS_MAX_FILE_BYTES		(2u * 1024 * 1024)
/* Directory depth of a walk below its starting point. */
#define TOOLS_MAX_DEPTH			64
/* Characters of one line shown by read and grep before it is cut. */
#define TOOLS_MAX_LINE			2000
/* Lines shown by one read call when no limit is given. */
#define TOOLS_READ_DEFAULT_LINES	2000
/* Bytes looked at for a NUL to call a file binary (read). */
#define TOOLS_BINARY_PROBE		8192
/* Bytes of the JSON input a tool accepts (write content included). */
#define TOOLS_MAX_INPUT			(8u * 1024 * 1024)
/* bash: default and largest timeout, seconds. */
#define TOOLS_BASH_TIMEOUT		90
#define TOOLS_BASH_MAX_TIMEOUT		600
/* bash: after the kill, how long the pipes may take to close, ms. */
#define TOOLS_BASH_DRAIN_MS		2000
/* A file larger than this is not edited (it is read whole into memory). */
#define TOOLS_MAX_EDIT_BYTES		(16u * 1024 * 1024)
/* Wall-clock time one grep call may spend matching a regular expression:
 * PCRE2's match limit does not bound a pattern whose every start position
 * scans to the end of a line ((?=x*y) over a long line of x).  A find, or
 * a literal grep, walks for no longer: a glob matched against long paths
 * cost 125 ms an entry here. */
#define TOOLS_GREP_SECONDS		30
/* What the tool calls of one model message may return together, and the
 * wall-clock time they may take together (the time a question waits for
 * its answer not counted): a message may hold 1,024 calls, each within its
 * own bound.  Calls past either run no more and say so. */
#define TOOLS_MESSAGE_BYTES		(4u * 1024 * 1024)
#define TOOLS_MESSAGE_SECONDS		1200
/* Path length accepted from the model. */
#define TOOLS_MAX_PATH			4096
/* Bytes of a find or grep glob: each entry of a walk is matched against
 * it (at every directory level when it has a '/'), so its length
 * multiplies the walk's cost; a path it could match is no longer. */
#define TOOLS_MAX_GLOB			4096

#endif
