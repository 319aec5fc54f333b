/*
 * mockprov — a scripted stand-in for the Anthropic Messages API, for tests.
 *
 *   mockprov -s SCRIPT -d DIR [-p PORTFILE] [-t SECS] [-l]
 *
 * Binds 127.0.0.1 on an ephemeral port and prints the port on stdout (or
 * writes it to PORTFILE, atomically, when -p is given).  Then serves one
 * connection at a time, single-threaded: for each request it takes the
 * next step of SCRIPT, in order, and records the request body to
 * DIR/req-N.json and its request line and headers to DIR/req-N.head
 * (N = 1, 2, ...).  It exits 0 once every step was served, or after SECS
 * seconds in all (default 60) — always bounded.
 *
 * SCRIPT: one step per line; blank lines and lines starting with '#' are
 * skipped; fields are separated by spaces; FILE paths are as given
 * (relative to the working directory).
 *
 *   sse FILE [BYTES MS]     200 text/event-stream, FILE as the body in
 *                           chunked encoding; with BYTES and MS, BYTES at
 *                           a time with an MS-millisecond sleep after each
 *   status CODE FILE|- [NAME=VALUE ...]
 *                           an HTTP error: status CODE, body FILE
 *                           (application/json) or none, plus headers, e.g.
 *                           status 429 err429.json retry-after=1
 *   stall SECS              read the request, send nothing for SECS
 *                           (less if the client hangs up), close
 *   stall-headers SECS      send the 200 event-stream headers, then
 *                           nothing for SECS (less if the client hangs up)
 *   disconnect FILE BYTES   send the 200 headers and the first BYTES of
 *                           FILE, then close without ending the chunked
 *                           body (the client sees a cut transfer)
 *   raw FILE SPLIT MS HOLD  FILE as the whole response, bytes as they are
 *                           (status line, headers, chunk framing, trailers:
 *                           what the step under test needs): the first
 *                           SPLIT bytes (0: all), an MS-millisecond sleep,
 *                           the rest; then the connection held open for
 *                           HOLD seconds (less if the client hangs up)
 *   slowread BYTES MS FILE  take the request body BYTES at a time with an
 *                           MS-millisecond sleep after each (the socket's
 *                           receive buffer made small, so the client sees
 *                           its upload go slowly), then as sse FILE
 *   textgen BYTES [CHARS]   a generated answer: one text block of
 *                           text_delta events carrying CHARS characters
 *                           each (default 48), about BYTES of stream in
 *                           all, then end_turn (for benchmarks: no 20 MB
 *                           fixture to keep)
 *
 * -l serves the script again and again (until -t): for demos and
 * benchmarks that make many requests.
 *
 * Every response but a raw one carries "Connection: close".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <netinet/tcp.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

#define MAX_HEAD (64 << 10)
#define MAX_BODY (64 << 20)
#define MAX_STEPS 256
#define READ_TIMEOUT_MS 10000

static void die(const char *fmt, ...) SBX_ATTR_PRINTF(1, 2);
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("mockprov: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("cannot open '%s': %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0)
		die("cannot stat '%s': %s", path, strerror(errno));
	char *b = xmalloc((size_t)st.st_size + 1);
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, b + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("cannot read '%s'", path);
		got += (size_t)r;
	}
	close(fd);
	b[got] = '\0';
	*len = got;
	return b;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Wait up to secs for the client to hang up; returns early when it does. */
static void stall(int fd, long secs)
{
	long left = secs * 1000;
	while (left > 0) {
		struct pollfd p = { fd, POLLIN, 0 };
		long step = left < 200 ? left : 200;
		int r = poll(&p, 1, (int)step);
		left -= step;
		if (r > 0) {
			char b[512];
			ssize_t n = read(fd, b, sizeof(b));
			if (n <= 0)
				return;
		}
	}
}

/* Read the request head and body; 0, or -1 (timeout, too large, closed).
 * With slow_bytes, the body is read that many bytes at a time, slow_ms
 * apart. */
static int read_request(int fd, char **head, char **body, size_t *body_len, size_t slow_bytes, long slow_ms)
{
	char *buf = xmalloc(MAX_HEAD + 1);
	size_t len = 0;
	char *end = NULL;
	while (!end) {
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, READ_TIMEOUT_MS) <= 0 || len >= MAX_HEAD)
			goto bad;
		ssize_t r = read(fd, buf + len, MAX_HEAD - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			goto bad;
		len += (size_t)r;
		buf[len] = '\0';
		end = strstr(buf, "\r\n\r\n");
	}
	size_t hlen = (size_t)(end - buf) + 4;
	size_t clen = 0;
	int expect = 0;
	for (char *l = strstr(buf, "\r\n"); l && l < end; l = strstr(l + 2, "\r\n")) {
		char *h = l + 2;
		if (strncasecmp(h, "content-length:", 15) == 0)
			clen = strtoul(h + 15, NULL, 10);
		else if (strncasecmp(h, "expect:", 7) == 0 && strcasestr(h, "100-continue") && strcasestr(h, "100-continue") < strstr(h, "\r\n"))
			expect = 1;
	}
	if (clen > MAX_BODY)
		goto bad;
	if (expect && write_all(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25) < 0)
		goto bad;
	char *b = xmalloc(clen + 1);
	size_t have = len - hlen < clen ? len - hlen : clen;
	memcpy(b, buf + hlen, have);
	while (have < clen) {
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, READ_TIMEOUT_MS) <= 0) {
			free(b);
			goto bad;
		}
		size_t want = clen - have;
		if (slow_bytes && want > slow_bytes)
			want = slow_bytes;
		ssize_t r = read(fd, b + have, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(b);
			goto bad;
		}
		have += (size_t)r;
		if (slow_bytes)
			sleep_ms(slow_ms);
	}
	b[clen] = '\0';
	*head = xstrndup(buf, hlen - 4);
	*body = b;
	*body_len = clen;
	free(buf);
	return 0;
bad:
	free(buf);
	return -1;
}

static void record(const char *dir, int n, const char *head, const char *body, size_t body_len)
{
	char *path = xasprintf("%s/req-%d.json", dir, n);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write_all(fd, body, body_len) < 0)
		die("cannot write '%s': %s", path, strerror(errno));
	close(fd);
	free(path);
	path = xasprintf("%s/req-%d.head", dir, n);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write_all(fd, head, strlen(head)) < 0 || write_all(fd, "\n", 1) < 0)
		die("cannot write '%s': %s", path, strerror(errno));
	close(fd);
	free(path);
}

static const char sse_head[] = "HTTP/1.1 200 OK\r\n"
			       "Content-Type: text/event-stream; charset=utf-8\r\n"
			       "Cache-Control: no-cache\r\n"
			       "Transfer-Encoding: chunked\r\n"
			       "request-id: req_mock\r\n"
			       "Connection: close\r\n\r\n";

/* One chunk of the chunked body in one writev: several small writes would
 * meet Nagle and delayed ACKs and stall the stream for 40 ms each. */
static int send_chunk(int fd, const char *s, size_t n)
{
	char h[32];
	int hl = snprintf(h, sizeof(h), "%zx\r\n", n);
	if (n == 0)
		return 0;
	struct iovec iov[3] = { { h, (size_t)hl }, { (void *)s, n }, { (void *)"\r\n", 2 } };
	size_t left = (size_t)hl + n + 2;
	int i = 0;
	while (left > 0) {
		ssize_t w = writev(fd, iov + i, 3 - i);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		left -= (size_t)w;
		while (i < 3 && (size_t)w >= iov[i].iov_len) {
			w -= (ssize_t)iov[i].iov_len;
			i++;
		}
		if (i < 3) {
			iov[i].iov_base = (char *)iov[i].iov_base + w;
			iov[i].iov_len -= (size_t)w;
		}
	}
	return 0;
}

static void step_sse(int fd, char **f, int nf)
{
	size_t len;
	char *data = slurp(f[1], &len);
	size_t bytes = nf >= 4 ? strtoul(f[2], NULL, 10) : 65536;
	long ms = nf >= 4 ? strtol(f[3], NULL, 10) : 0;
	if (bytes == 0)
		bytes = 65536;
	if (write_all(fd, sse_head, sizeof(sse_head) - 1) < 0)
		goto out;
	for (size_t i = 0; i < len; i += bytes) {
		size_t n = len - i < bytes ? len - i : bytes;
		if (send_chunk(fd, data + i, n) < 0)
			goto out;
		if (ms > 0)
			sleep_ms(ms);
	}
	write_all(fd, "0\r\n\r\n", 5);
out:
	free(data);
}

static void step_status(int fd, char **f, int nf)
{
	long code = strtol(f[1], NULL, 10);
	size_t len = 0;
	char *body = strcmp(f[2], "-") == 0 ? xstrdup("") : slurp(f[2], &len);
	char *extra = xstrdup("");
	for (int i = 3; i < nf; i++) {
		char *eq = strchr(f[i], '=');
		if (!eq)
			die("header '%s' is not NAME=VALUE", f[i]);
		char *n = xasprintf("%s%.*s: %s\r\n", extra, (int)(eq - f[i]), f[i], eq + 1);
		free(extra);
		extra = n;
	}
	char *head = xasprintf("HTTP/1.1 %ld Mock\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
			       "request-id: req_mock_err\r\n%sConnection: close\r\n\r\n", code, len, extra);
	if (write_all(fd, head, strlen(head)) == 0)
		write_all(fd, body, len);
	free(head);
	free(extra);
	free(body);
}

static void step_disconnect(int fd, char **f, int nf)
{
	size_t len;
	char *data = slurp(f[1], &len);
	size_t n = strtoul(f[2], NULL, 10);
	if (n > len)
		n = len;
	if (write_all(fd, sse_head, sizeof(sse_head) - 1) == 0)
		send_chunk(fd, data, n);
	free(data);
}

static void step_raw(int fd, char **f, int nf)
{
	size_t len;
	char *data = slurp(f[1], &len);
	size_t split = strtoul(f[2], NULL, 10);
	if (split == 0 || split > len)
		split = len;
	if (write_all(fd, data, split) == 0) {
		sleep_ms(strtol(f[3], NULL, 10));
		if (write_all(fd, data + split, len - split) == 0)
			stall(fd, strtol(f[4], NULL, 10));
	}
	free(data);
}

/* Stream a generated text answer of about total bytes, in 64 KiB chunks. */
static void step_textgen(int fd, char **f, int nf)
{
	size_t total = strtoul(f[1], NULL, 10);
	size_t chars = nf >= 3 ? strtoul(f[2], NULL, 10) : 48;
	if (chars == 0 || chars > 4096)
		chars = 48;
	static const char words[] = "The quick brown fox jumps over the lazy dog while the sandbox holds. ";
	char *text = xmalloc(chars + 1);
	for (size_t i = 0; i < chars; i++)
		text[i] = words[i % (sizeof(words) - 1)];
	text[chars] = '\0';
	char *delta = xasprintf("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
				"\"delta\":{\"type\":\"text_delta\",\"text\":\"%s\"}}\n\n", text);
	size_t dl = strlen(delta);
	static const char head[] =
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_gen\",\"type\":\"message\","
		"\"role\":\"assistant\",\"content\":[],\"model\":\"mock\",\"stop_reason\":null,\"stop_sequence\":null,"
		"\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n"
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n";
	static const char tail[] =
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},"
		"\"usage\":{\"output_tokens\":1000}}\n\n"
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
	size_t cap = 64 << 10, len = 0, sent = 0;
	char *buf = xmalloc(cap + dl + sizeof(head) + sizeof(tail));
	if (write_all(fd, sse_head, sizeof(sse_head) - 1) < 0)
		goto out;
	memcpy(buf, head, sizeof(head) - 1);
	len = sizeof(head) - 1;
	while (sent + len < total) {
		memcpy(buf + len, delta, dl);
		len += dl;
		if (len >= cap) {
			if (send_chunk(fd, buf, len) < 0)
				goto out;
			sent += len;
			len = 0;
		}
	}
	memcpy(buf + len, tail, sizeof(tail) - 1);
	len += sizeof(tail) - 1;
	if (send_chunk(fd, buf, len) == 0)
		write_all(fd, "0\r\n\r\n", 5);
out:
	free(buf);
	free(delta);
	free(text);
}

int main(int argc, char **argv)
{
	const char *script = NULL, *dir = NULL, *portfile = NULL;
	long total = 60;
	int opt;
	int loop = 0;
	while ((opt = getopt(argc, argv, "s:d:p:t:l")) != -1) {
		switch (opt) {
		case 's':
			script = optarg;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'p':
			portfile = optarg;
			break;
		case 't':
			total = strtol(optarg, NULL, 10);
			break;
		case 'l':
			loop = 1;
			break;
		default:
			die("usage: mockprov -s SCRIPT -d DIR [-p PORTFILE] [-t SECS] [-l]");
		}
	}
	if (!script || !dir || total <= 0)
		die("usage: mockprov -s SCRIPT -d DIR [-p PORTFILE] [-t SECS] [-l]");
	signal(SIGPIPE, SIG_IGN);
	alarm((unsigned)total);	/* the default action ends the process: bounded */

	/* Parse the whole script first, so a typo fails before any client. */
	size_t slen;
	char *text = slurp(script, &slen);
	char *steps[MAX_STEPS][16];
	int nfields[MAX_STEPS];
	int nsteps = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || *line == '#')
			continue;
		if (nsteps == MAX_STEPS)
			die("more than %d steps in '%s'", MAX_STEPS, script);
		char **f = steps[nsteps];
		int nf = 0;
		for (char *save = NULL, *t = strtok_r(line, " \t\r", &save); t && nf < 16; t = strtok_r(NULL, " \t\r", &save))
			f[nf++] = t;
		int ok = (strcmp(f[0], "sse") == 0 && (nf == 2 || nf == 4)) ||
			 (strcmp(f[0], "status") == 0 && nf >= 3) ||
			 ((strcmp(f[0], "stall") == 0 || strcmp(f[0], "stall-headers") == 0) && nf == 2) ||
			 (strcmp(f[0], "disconnect") == 0 && nf == 3) ||
			 (strcmp(f[0], "raw") == 0 && nf == 5) ||
			 (strcmp(f[0], "slowread") == 0 && nf == 4) ||
			 (strcmp(f[0], "textgen") == 0 && (nf == 2 || nf == 3));
		if (!ok)
			die("step %d of '%s' is not understood: '%s'", nsteps + 1, script, f[0]);
		nfields[nsteps++] = nf;
	}

	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = 0, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(ls, 16) < 0 ||
	    getsockname(ls, (struct sockaddr *)&sa, &sl) < 0)
		die("cannot listen on 127.0.0.1: %s", strerror(errno));
	int port = ntohs(sa.sin_port);
	if (portfile) {
		char *tmp = xasprintf("%s.tmp", portfile);
		FILE *pf = fopen(tmp, "we");
		if (!pf || fprintf(pf, "%d\n", port) < 0 || fclose(pf) != 0 || rename(tmp, portfile) < 0)
			die("cannot write '%s': %s", portfile, strerror(errno));
		free(tmp);
	} else {
		printf("%d\n", port);
		fflush(stdout);
	}

	int served = 0;
	for (int i = 0; i < nsteps; i++) {
		int fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR)
				i--;
			continue;
		}
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		char **f = steps[i];
		int nf = nfields[i];
		size_t slow_bytes = 0;
		long slow_ms = 0;
		if (strcmp(f[0], "slowread") == 0) {
			int small = 128 << 10;
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
			slow_bytes = strtoul(f[1], NULL, 10);
			slow_ms = strtol(f[2], NULL, 10);
		}
		char *head = NULL, *body = NULL;
		size_t blen = 0;
		if (read_request(fd, &head, &body, &blen, slow_bytes, slow_ms) < 0) {
			/* Not a request (a probe, a client that gave up): the
			 * step waits for the next connection. */
			close(fd);
			i--;
			continue;
		}
		record(dir, ++served, head, body, blen);
		if (strcmp(f[0], "sse") == 0) {
			step_sse(fd, f, nf);
		} else if (strcmp(f[0], "slowread") == 0) {
			char *sf[2] = { f[0], f[3] };
			step_sse(fd, sf, 2);
		} else if (strcmp(f[0], "status") == 0) {
			step_status(fd, f, nf);
		} else if (strcmp(f[0], "stall") == 0) {
			stall(fd, strtol(f[1], NULL, 10));
		} else if (strcmp(f[0], "stall-headers") == 0) {
			if (write_all(fd, sse_head, sizeof(sse_head) - 1) == 0)
				stall(fd, strtol(f[1], NULL, 10));
		} else if (strcmp(f[0], "textgen") == 0) {
			step_textgen(fd, f, nf);
		} else if (strcmp(f[0], "raw") == 0) {
			step_raw(fd, f, nf);
		} else {
			step_disconnect(fd, f, nf);
		}
		shutdown(fd, SHUT_WR);
		/* Let the client read to the end before the socket goes. */
		stall(fd, 2);
		close(fd);
		free(head);
		free(body);
		if (loop && i == nsteps - 1)
			i = -1;		/* again, until the -t limit */
	}
	close(ls);
	free(text);
	return 0;
}
