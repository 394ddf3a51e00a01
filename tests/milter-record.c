/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * milter-record - a transparent recorder between a milter client (the MTA
 * side: miltertest) and a milter, for tests/t-milter.sh.
 *
 *	milter-record LISTEN TARGET LOG
 *
 * miltertest can tell whether a header was deleted at some index, but not
 * in which order the deletions came, and it compares SMTP reply texts only
 * whole.  This program sits on the unix socket LISTEN; for each connection
 * it connects to the unix socket TARGET (retrying while the milter
 * starts), relays the bytes both ways unchanged, and appends one line to
 * LOG for every milter protocol packet:
 *
 *	>	CMD			client to milter: the command letter
 *	<	CMD	FIELD...	milter to client
 *
 * Fields: change and insert header ("m", "i"): index, name, value; add
 * header ("h"): name, value; reply code ("y") and quarantine ("q"): the
 * text.  Fields are separated by tabs; backslash, tab, newline, carriage
 * return and other control bytes in them are written as \\ \t \n \r \xHH.
 * A packet is logged before its last byte is passed on, so a client that
 * has the milter's answer finds it in LOG.  A line "-" ends a connection.
 *
 * Connections are served one at a time; the program runs until killed.
 * Exit status 1 on a start-up error, with a message on standard error.
 */

#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A milter packet is at most a 64 KiB body chunk plus a little. */
#define PACKET_MAX	(1024 * 1024)
#define CHUNK		65536

/* One direction of a connection: bytes of a packet not yet complete. */
struct stream {
	char		 dir;		/* '>' or '<' */
	unsigned char	*buf;		/* owned; freed by stream_release() */
	size_t		 len;
	size_t		 cap;
};

static FILE	*recf;

static void	 usage(void);
static int	 unix_listen(const char *);
static int	 unix_connect(const char *);
static void	 stream_init(struct stream *, char);
static void	 stream_release(struct stream *);
static int	 stream_feed(struct stream *, const unsigned char *, size_t);
static void	 log_packet(char, char, const unsigned char *, size_t);
static void	 log_field(const unsigned char *, size_t);
static int	 relay(int, int);
static int	 write_all(int, const unsigned char *, size_t);

static void
usage(void)
{
	fprintf(stderr, "usage: milter-record LISTEN TARGET LOG\n");
	exit(1);
}

static int
unix_listen(const char *path)
{
	struct sockaddr_un sun;
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "milter-record: %s: path too long\n", path);
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	(void)unlink(path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    listen(fd, 8) == -1) {
		fprintf(stderr, "milter-record: %s: %s\n", path,
		    strerror(errno));
		return -1;
	}
	return fd;
}

/* unix_connect - connect to path, retrying for 30 s while it appears */
static int
unix_connect(const char *path)
{
	struct sockaddr_un sun;
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	int fd, tries;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path))
		return -1;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	for (tries = 0; tries < 600; tries++) {
		if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
			return -1;
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
			return fd;
		close(fd);
		nanosleep(&pause, NULL);
	}
	fprintf(stderr, "milter-record: %s: %s\n", path, strerror(errno));
	return -1;
}

static void
stream_init(struct stream *s, char dir)
{
	memset(s, 0, sizeof(*s));
	s->dir = dir;
}

static void
stream_release(struct stream *s)
{
	free(s->buf);
	stream_init(s, s->dir);
}

/* stream_feed - add bytes, log every packet they complete; -1 on garbage */
static int
stream_feed(struct stream *s, const unsigned char *p, size_t n)
{
	uint32_t be;
	size_t plen, used;
	unsigned char *nb;

	if (s->len + n > s->cap) {
		if (s->len + n > PACKET_MAX + CHUNK)
			return -1;
		if ((nb = realloc(s->buf, s->len + n)) == NULL)
			return -1;
		s->buf = nb;
		s->cap = s->len + n;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;

	used = 0;
	while (s->len - used >= 5) {
		memcpy(&be, s->buf + used, 4);
		plen = ntohl(be);
		if (plen == 0 || plen > PACKET_MAX)
			return -1;
		if (s->len - used < 4 + plen)
			break;
		log_packet(s->dir, (char)s->buf[used + 4], s->buf + used + 5,
		    plen - 1);
		used += 4 + plen;
	}
	memmove(s->buf, s->buf + used, s->len - used);
	s->len -= used;
	return 0;
}

/* log_packet - one line for one packet; fields depend on the command */
static void
log_packet(char dir, char cmd, const unsigned char *d, size_t n)
{
	const unsigned char *name, *value, *end = d + n;
	uint32_t be;

	fprintf(recf, "%c\t%c", dir, cmd);
	if (dir == '<') {
		switch (cmd) {
		case 'm':	/* SMFIR_CHGHEADER */
		case 'i':	/* SMFIR_INSHEADER */
			if (n < 4)
				break;
			memcpy(&be, d, 4);
			fprintf(recf, "\t%lu", (unsigned long)ntohl(be));
			d += 4;
			/* FALLTHROUGH */
		case 'h':	/* SMFIR_ADDHEADER */
			name = d;
			value = memchr(name, '\0', (size_t)(end - name));
			value = value == NULL ? end : value + 1;
			fputc('\t', recf);
			log_field(name, strnlen((const char *)name,
			    (size_t)(end - name)));
			fputc('\t', recf);
			if (value < end)
				log_field(value, strnlen((const char *)value,
				    (size_t)(end - value)));
			break;
		case 'y':	/* SMFIR_REPLYCODE */
		case 'q':	/* SMFIR_QUARANTINE */
			fputc('\t', recf);
			log_field(d, strnlen((const char *)d, n));
			break;
		default:
			break;
		}
	}
	fputc('\n', recf);
	fflush(recf);
}

static void
log_field(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		switch (p[i]) {
		case '\\':
			fputs("\\\\", recf);
			break;
		case '\t':
			fputs("\\t", recf);
			break;
		case '\n':
			fputs("\\n", recf);
			break;
		case '\r':
			fputs("\\r", recf);
			break;
		default:
			if (p[i] < 0x20 || p[i] == 0x7f)
				fprintf(recf, "\\x%02x", p[i]);
			else
				fputc(p[i], recf);
		}
	}
}

static int
write_all(int fd, const unsigned char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* relay - pass bytes between client and milter until either side ends */
static int
relay(int client, int milter)
{
	struct pollfd pfd[2];
	struct stream st[2];
	unsigned char buf[CHUNK];
	ssize_t r;
	int i, rc = 0;

	stream_init(&st[0], '>');
	stream_init(&st[1], '<');
	pfd[0].fd = client;
	pfd[1].fd = milter;
	pfd[0].events = pfd[1].events = POLLIN;
	for (;;) {
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			rc = -1;
			break;
		}
		for (i = 0; i < 2; i++) {
			if (pfd[i].revents == 0)
				continue;
			r = read(pfd[i].fd, buf, sizeof(buf));
			if (r <= 0)
				goto done;
			if (stream_feed(&st[i], buf, (size_t)r) == -1) {
				fprintf(recf, "%c\t!\tunparsable stream\n",
				    st[i].dir);
				fflush(recf);
			}
			if (write_all(pfd[1 - i].fd, buf, (size_t)r) == -1)
				goto done;
		}
	}
done:
	stream_release(&st[0]);
	stream_release(&st[1]);
	fputs("-\n", recf);
	fflush(recf);
	return rc;
}

int
main(int argc, char *argv[])
{
	int lfd, cfd, mfd;

	if (argc != 4)
		usage();
	signal(SIGPIPE, SIG_IGN);
	if ((recf = fopen(argv[3], "a")) == NULL) {
		fprintf(stderr, "milter-record: %s: %s\n", argv[3],
		    strerror(errno));
		return 1;
	}
	if ((lfd = unix_listen(argv[1])) == -1)
		return 1;
	for (;;) {
		if ((cfd = accept(lfd, NULL, NULL)) == -1) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "milter-record: accept: %s\n",
			    strerror(errno));
			return 1;
		}
		if ((mfd = unix_connect(argv[2])) == -1) {
			close(cfd);
			continue;
		}
		(void)relay(cfd, mfd);
		close(cfd);
		close(mfd);
	}
}
