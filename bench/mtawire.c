/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mtawire - the bytes of the milter protocol under mtaconn: see
 * mtawire.h.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "benchutil.h"
#include "mtaconn.h"
#include "mtawire.h"

static int	wait_fd(struct mtaconn *, short);
static int	read_full(struct mtaconn *, void *, size_t);

int
mtawire_fail(struct mtaconn *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return -1;
}

int
mta_sockaddr(const char *s, struct sockaddr_storage *sa, socklen_t *len,
    char *why, size_t whysize)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)(void *)sa;
	struct addrinfo hints, *ai;
	char port[16], host[256];
	const char *colon = strchr(s, ':'), *at, *path = s;
	int rc;

	memset(sa, 0, sizeof(*sa));
	if (strncmp(s, "inet:", 5) == 0 || strncmp(s, "inet6:", 6) == 0) {
		at = strchr(colon, '@');
		if (at == NULL || at == colon + 1 || at[1] == '\0' ||
		    (size_t)(at - colon) > sizeof(port) ||
		    strlen(at + 1) >= sizeof(host)) {
			snprintf(why, whysize, "not inet:PORT@HOST");
			return -1;
		}
		memcpy(port, colon + 1, (size_t)(at - colon - 1));
		port[at - colon - 1] = '\0';
		/* getaddrinfo() would take a service name, or 99999 as
		   34463 */
		if (strspn(port, "0123456789") != strlen(port) ||
		    strtoul(port, NULL, 10) < 1 ||
		    strtoul(port, NULL, 10) > 65535) {
			snprintf(why, whysize, "the port %s is not a number "
			    "from 1 to 65535", port);
			return -1;
		}
		memcpy(host, at + 1, strlen(at + 1) + 1);
		memset(&hints, 0, sizeof(hints));
		hints.ai_family = colon - s == 5 ? AF_INET6 : AF_INET;
		hints.ai_socktype = SOCK_STREAM;
		hints.ai_flags = AI_NUMERICSERV;
		if ((rc = getaddrinfo(host, port, &hints, &ai)) != 0) {
			snprintf(why, whysize, "%s: %s", host,
			    gai_strerror(rc));
			return -1;
		}
		memcpy(sa, ai->ai_addr, ai->ai_addrlen);
		*len = ai->ai_addrlen;
		freeaddrinfo(ai);
		return 0;
	}
	if (strncmp(s, "unix:", 5) == 0 || strncmp(s, "local:", 6) == 0)
		path = colon + 1;
	else if (colon != NULL) {
		/* as libmilter: a bare path holds no colon */
		snprintf(why, whysize, "unknown kind of socket (unix:PATH, "
		    "local:PATH, inet:PORT@HOST, inet6:PORT@HOST or a path)");
		return -1;
	}
	if (path[0] == '\0' || strlen(path) >= sizeof(sun->sun_path)) {
		snprintf(why, whysize, "not unix:PATH with a path that fits");
		return -1;
	}
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, strlen(path) + 1);
	*len = sizeof(*sun);
	return 0;
}

int
mtawire_open(struct mtaconn *c)
{
	double deadline = bench_now() + (double)c->timeout_s;
	int e;

	for (;;) {
		if ((c->fd = socket(c->addr->ss_family, SOCK_STREAM, 0)) < 0)
			return mtawire_fail(c, "socket: %s", strerror(errno));
		if (connect(c->fd, (const struct sockaddr *)c->addr,
		    c->addrlen) == 0)
			break;
		e = errno;
		close(c->fd);
		c->fd = -1;
		if ((e != ENOENT && e != ECONNREFUSED) ||
		    bench_now() > deadline)
			return mtawire_fail(c, "cannot connect to %s: %s",
			    c->sockname, strerror(e));
		usleep(20000);
	}
	if (fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK) != 0)
		return mtawire_fail(c, "%s: %s", c->sockname, strerror(errno));
	return 0;
}

/* wait_fd - c's socket ready for events within c->timeout_s; 0 or -1 */
static int
wait_fd(struct mtaconn *c, short events)
{
	struct pollfd pfd = { .fd = c->fd, .events = events };
	int n;

	while ((n = poll(&pfd, 1, (int)c->timeout_s * 1000)) < 0 &&
	    errno == EINTR)
		;
	if (n < 0)
		return mtawire_fail(c, "poll: %s", strerror(errno));
	if (n == 0 && events == POLLIN)
		return mtawire_fail(c, "no reply to %s within %lu s",
		    c->awaited, c->timeout_s);
	if (n == 0)
		return mtawire_fail(c, "the milter read nothing for %lu s "
		    "(sending %s)", c->timeout_s, c->awaited);
	return 0;
}

int
mtawire_flush(struct mtaconn *c)
{
	size_t off = 0;
	ssize_t n;

	if (sbuf_failed(&c->out))
		return mtawire_fail(c, "out of memory for the packets");
	while (off < c->out.len) {
		if (wait_fd(c, POLLOUT) != 0)
			return -1;
		n = send(c->fd, c->out.buf + off, c->out.len - off,
		    MSG_NOSIGNAL);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			return mtawire_fail(c, "the milter closed the "
			    "connection before %s", c->awaited);
		if (n < 0)
			return mtawire_fail(c, "cannot write %s: %s",
			    c->awaited, strerror(errno));
		off += (size_t)n;
	}
	sbuf_reset(&c->out);
	return 0;
}

/* read_full - n bytes of the milter's into p */
static int
read_full(struct mtaconn *c, void *p, size_t n)
{
	ssize_t got;

	while (n > 0) {
		if (wait_fd(c, POLLIN) != 0)
			return -1;
		got = recv(c->fd, p, n, 0);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got == 0 || (got < 0 && errno == ECONNRESET))
			return mtawire_fail(c, "the milter closed the "
			    "connection instead of answering %s", c->awaited);
		if (got < 0)
			return mtawire_fail(c, "cannot read the reply to "
			    "%s: %s", c->awaited, strerror(errno));
		p = (char *)p + got;
		n -= (size_t)got;
	}
	return 0;
}

int
mtawire_reply(struct mtaconn *c, int *cmd)
{
	unsigned char head[5], chunk[8192];
	uint32_t len;
	size_t n;

	if (mtawire_flush(c) != 0 || read_full(c, head, sizeof(head)) != 0)
		return -1;
	memcpy(&len, head, 4);
	len = ntohl(len);
	if (len < 1 || len - 1 > MTAWIRE_MAX_REPLY)
		return mtawire_fail(c, "a reply to %s of %lu bytes: not a "
		    "milter's (from 1 to %zu)", c->awaited, (unsigned long)len,
		    MTAWIRE_MAX_REPLY + 1);
	*cmd = head[4];
	sbuf_reset(&c->in);
	for (len--; len > 0; len -= (uint32_t)n) {
		n = len < sizeof(chunk) ? len : sizeof(chunk);
		if (read_full(c, chunk, n) != 0)
			return -1;
		sbuf_add(&c->in, chunk, n);
	}
	return sbuf_failed(&c->in) ? mtawire_fail(c, "out of memory") : 0;
}

void
mtawire_packet(struct mtaconn *c, int cmd, const void *data, size_t len)
{
	uint32_t n = htonl((uint32_t)len + 1);

	sbuf_add(&c->out, &n, 4);
	sbuf_addch(&c->out, cmd);
	sbuf_add(&c->out, data, len);
}
