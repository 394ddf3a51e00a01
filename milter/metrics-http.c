/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * metrics-http.c - the Prometheus endpoint (MetricsListen): GET or HEAD
 * /metrics is metrics.c's text; any other path is 404, any other method
 * 405.
 *
 * The socket is bound and listening before the milter leaves the terminal
 * and drops its privileges, as libmilter's is; libmicrohttpd's thread,
 * which serves it, starts once they are dropped.  The endpoint only reads
 * counters and stats files, so a client can hold up no mail: it is
 * served by that one thread, each connection with a small memory pool.
 *
 * Nor can a few clients hold up the scrapes.  libmicrohttpd drops a
 * connection idle for METRICS_IDLE seconds, but one that sends a byte
 * now and then is never idle: each connection also has a deadline,
 * METRICS_DEADLINE seconds after it opened, kept by a thread of ours
 * that shuts its socket down (libmicrohttpd then closes it), whatever
 * it is doing.  libmicrohttpd has no deadline of its own, nor a call
 * that closes a connection; its notices of each connection opened and
 * closed give the socket, and it closes that socket only after the
 * notice of its closing, which waits for our lock: a socket shut down
 * under the lock is still that connection's.  With room for
 * METRICS_CONNECTIONS connections, METRICS_PER_ADDRESS from one address,
 * a scrape waits for no slow client, and for clients that take every
 * slot, METRICS_DEADLINE seconds at most.
 *
 * Only a loopback address is accepted unless MetricsRemote says yes: the
 * counts tell who is on a list and what is refused, which is not for
 * anyone who can reach the host.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/types.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "milter.h"

#define METRICS_CONNECTIONS	64	/* connections served at once */
#define METRICS_PER_ADDRESS	16	/* ... from one address */
#define METRICS_IDLE		5	/* seconds a connection may idle */
#define METRICS_DEADLINE	10	/* seconds a connection may last */
#define METRICS_POOL		(16 * 1024)	/* bytes per connection */
#define METRICS_MAX		(1 << 20)	/* bytes of one scrape */
#define METRICS_BACKLOG		16

/* A connection open, and when its deadline comes (CLOCK_MONOTONIC). */
struct client {
	MHD_socket	 fd;		/* MHD_INVALID_SOCKET: a free slot */
	struct timespec	 deadline;
	int		 cut;		/* its socket is shut down */
};

static int			 listen_fd = -1;
static struct MHD_Daemon	*daemon_handle;

/* The connections, under clients_lock; clients_wake tells the cutter. */
static struct client		 clients[METRICS_CONNECTIONS];
static pthread_mutex_t		 clients_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t		 clients_wake;
static pthread_t		 cutter;
static int			 cutter_running;
static int			 stopping;

/* loopback - whether the address is this host's own, 127/8 or ::1 */
static int
loopback(const struct sockaddr *sa)
{
	const struct in6_addr *a6;

	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)(const void *)sa)->
		    sin_addr.s_addr) >> 24) == 127;
	a6 = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
	if (IN6_IS_ADDR_V4MAPPED(a6))
		return a6->s6_addr[12] == 127;
	return IN6_IS_ADDR_LOOPBACK(a6);
}

int
metrics_address(const char *spec, int remote, struct sockaddr_storage *ss,
    socklen_t *len, struct pa_err *err)
{
	struct addrinfo hints, *ai;
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(spec, ':'), *h = spec;
	size_t hlen;

	if (colon == NULL || colon == spec || colon[1] == '\0') {
		pa_err_set(err, "not ADDRESS:PORT (127.0.0.1:9108, "
		    "[::1]:9108)");
		return PA_ERROR;
	}
	hlen = (size_t)(colon - spec);
	if (*h == '[' && hlen >= 2 && h[hlen - 1] == ']') {
		h++;
		hlen -= 2;
	}
	if (hlen >= sizeof(host)) {
		pa_err_set(err, "not a numeric IPv4 or IPv6 address");
		return PA_ERROR;
	}
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
	hints.ai_socktype = SOCK_STREAM;
	if (strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
	    strtol(colon + 1, NULL, 10) < 1 ||
	    strtol(colon + 1, NULL, 10) > 65535 ||
	    getaddrinfo(host, colon + 1, &hints, &ai) != 0) {
		pa_err_set(err, "not a numeric IPv4 or IPv6 address and a port "
		    "from 1 to 65535");
		return PA_ERROR;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	if (!remote && !loopback((struct sockaddr *)ss)) {
		pa_err_set(err, "not a loopback address: the counts are for "
		    "this host (MetricsRemote yes serves them to others)");
		return PA_ERROR;
	}
	return 0;
}

int
metrics_bind(const struct pa_config *cf, struct pa_err *err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int on = 1;

	if (cf->metrics_listen == NULL)
		return 0;
	if (metrics_address(cf->metrics_listen, cf->metrics_remote ==
	    CONFIG_YES, &ss, &len, err) != 0)
		return PA_ERROR;
	if ((listen_fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0)) == -1 ||
	    setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &on,
	    sizeof(on)) != 0 ||
	    bind(listen_fd, (struct sockaddr *)&ss, len) != 0 ||
	    listen(listen_fd, METRICS_BACKLOG) != 0) {
		pa_err_set(err, "MetricsListen %s: %s", cf->metrics_listen,
		    strerror(errno));
		if (listen_fd != -1)
			close(listen_fd);
		listen_fd = -1;
		return PA_ERROR;
	}
	return 0;
}

/* reply - a response of len bytes of text (copied) with status */
static enum MHD_Result
reply(struct MHD_Connection *conn, unsigned status, const char *text,
    size_t len, const char *type)
{
	struct MHD_Response *r;
	enum MHD_Result rc;

	r = MHD_create_response_from_buffer(len, (void *)(uintptr_t)text,
	    MHD_RESPMEM_MUST_COPY);
	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	rc = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result
answer(void *cls, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_len, void **state)
{
	static const char plain[] = "text/plain; charset=utf-8";
	struct sbuf text;
	enum MHD_Result rc;

	(void)cls;
	(void)version;
	(void)upload;
	(void)upload_len;
	(void)state;
	if (strcmp(url, "/metrics") != 0)
		return reply(conn, MHD_HTTP_NOT_FOUND, "not found\n", 10,
		    plain);
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
		    "only GET and HEAD\n", 18, plain);
	sbuf_init(&text, METRICS_MAX);
	if (metrics_render(&text) != 0)
		rc = reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
		    "the metrics do not fit\n", 23, plain);
	else
		rc = reply(conn, MHD_HTTP_OK, text.buf, text.len,
		    "text/plain; version=0.0.4; charset=utf-8");
	sbuf_release(&text);
	return rc;
}

/*
 * noticed - libmicrohttpd's notice of a connection opened (its deadline
 * set) or closed (its slot freed), from its thread.  Its limit is ours,
 * and it counts a connection until after the notice of its closing, so
 * each finds a slot; one that did not would be shut down at once rather
 * than kept without a deadline.
 */
static void
noticed(void *cls, struct MHD_Connection *conn, void **slot,
    enum MHD_ConnectionNotificationCode code)
{
	const union MHD_ConnectionInfo *info;
	struct client *c = *slot;
	size_t i;

	(void)cls;
	pthread_mutex_lock(&clients_lock);
	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (c != NULL)
			c->fd = MHD_INVALID_SOCKET;
		*slot = NULL;
	} else if ((info = MHD_get_connection_info(conn,
	    MHD_CONNECTION_INFO_CONNECTION_FD)) != NULL) {
		for (i = 0; i < METRICS_CONNECTIONS &&
		    clients[i].fd != MHD_INVALID_SOCKET; i++)
			;
		if (i == METRICS_CONNECTIONS)
			shutdown(info->connect_fd, SHUT_RDWR);
		else {
			c = &clients[i];
			c->fd = info->connect_fd;
			c->cut = 0;
			clock_gettime(CLOCK_MONOTONIC, &c->deadline);
			c->deadline.tv_sec += METRICS_DEADLINE;
			*slot = c;
			pthread_cond_signal(&clients_wake);
		}
	}
	pthread_mutex_unlock(&clients_lock);
}

/* before - whether a comes before b */
static int
before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	    (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/*
 * cut_overdue - the cutter thread: each connection's socket shut down at
 * its deadline, until metrics_stop()
 */
static void *
cut_overdue(void *arg)
{
	struct timespec now, next;
	struct client *c;
	int waiting;

	(void)arg;
	pthread_mutex_lock(&clients_lock);
	while (!stopping) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		waiting = 0;
		for (c = clients; c < clients + METRICS_CONNECTIONS; c++) {
			if (c->fd == MHD_INVALID_SOCKET || c->cut)
				continue;
			if (!before(&now, &c->deadline)) {
				shutdown(c->fd, SHUT_RDWR);
				c->cut = 1;
			} else if (!waiting || before(&c->deadline, &next)) {
				next = c->deadline;
				waiting = 1;
			}
		}
		if (waiting)
			pthread_cond_timedwait(&clients_wake, &clients_lock,
			    &next);
		else
			pthread_cond_wait(&clients_wake, &clients_lock);
	}
	pthread_mutex_unlock(&clients_lock);
	return NULL;
}

/* cutter_start - the cutter thread, its clock the monotonic one */
static int
cutter_start(void)
{
	pthread_condattr_t attr;
	size_t i;
	int rc;

	for (i = 0; i < METRICS_CONNECTIONS; i++)
		clients[i].fd = MHD_INVALID_SOCKET;
	if ((rc = pthread_condattr_init(&attr)) != 0)
		return rc;
	if ((rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)) == 0 &&
	    (rc = pthread_cond_init(&clients_wake, &attr)) == 0 &&
	    (rc = pthread_create(&cutter, NULL, cut_overdue, NULL)) != 0)
		pthread_cond_destroy(&clients_wake);
	pthread_condattr_destroy(&attr);
	cutter_running = rc == 0;
	return rc;
}

int
metrics_start(struct pa_err *err)
{
	int rc;

	if (listen_fd == -1)
		return 0;
	if ((rc = cutter_start()) != 0) {
		pa_err_set(err, "cannot serve the metrics: %s", strerror(rc));
		return PA_ERROR;
	}
	daemon_handle = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0,
	    NULL, NULL, answer, NULL,
	    MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_CONNECTIONS,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)METRICS_PER_ADDRESS,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_IDLE,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)METRICS_POOL,
	    MHD_OPTION_NOTIFY_CONNECTION, noticed, NULL,
	    MHD_OPTION_END);
	if (daemon_handle == NULL) {
		pa_err_set(err, "cannot serve the metrics (libmicrohttpd "
		    "would not start)");
		return PA_ERROR;
	}
	listen_fd = -1;		/* libmicrohttpd closes it when it stops */
	return 0;
}

void
metrics_stop(void)
{
	/* libmicrohttpd first: no connection is noticed once the cutter is
	   gone */
	if (daemon_handle != NULL)
		MHD_stop_daemon(daemon_handle);
	daemon_handle = NULL;
	if (cutter_running) {
		pthread_mutex_lock(&clients_lock);
		stopping = 1;
		pthread_cond_signal(&clients_wake);
		pthread_mutex_unlock(&clients_lock);
		pthread_join(cutter, NULL);
		pthread_cond_destroy(&clients_wake);
		cutter_running = 0;
	}
	if (listen_fd != -1)
		close(listen_fd);
	listen_fd = -1;
}
