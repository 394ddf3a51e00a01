/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * milter-drive - mail handed to a milter as Postfix hands it, with no MTA
 * in between (bench/mtaconn.h says how): the instrument of bench-cpu.sh.
 *
 * usage: milter-drive [-c CONNECTIONS] [-m PER_CONNECTION] [-n COUNT]
 *		       [-w WARMUP] [-t SECONDS] [-p PID] [-o FILE]
 *		       [-h FIELD[:KEY]] [-I FIELD] SOCKET MAIL...
 *
 * SOCKET is in libmilter's spelling: unix:PATH (local:PATH),
 * inet:PORT@HOST, inet6:PORT@HOST.  WARMUP messages (default 0), not
 * counted, then COUNT (default 1,000), the MAIL files in turn, over
 * CONNECTIONS connections at a time (default 1), each carrying
 * PER_CONNECTION messages (default 10) as an SMTP session carries several
 * mails, then closed and another opened.  A MAIL file has LF or CRLF line
 * ends; a leading mbox "From " line is dropped.  Each message gets the
 * field FIELD (-I, default Message-ID; "" for none) with
 * "<SEQ.PID@milter-drive.invalid>" on top, so that no two are copies of
 * one Message-ID; a MAIL that has that field already is refused.
 *
 * Prints "name value unit" lines: the counted messages and what the
 * milter decided of them ("unseen": refused with their session at
 * connect), the time and rate, the latency p50, p99 and largest (from
 * MAIL to the last reply to the end of the message, or an earlier
 * decision); with -h FIELD, how many messages the milter gave each value
 * (its first word; with :KEY, the word after "KEY=" in it) of the header
 * field FIELD; with -p PID, the CPU time of that process over the counted
 * messages, per message (settled_cpu()).  -o FILE: each counted
 * message's latency in microseconds, one a line.
 *
 * A reply is awaited SECONDS (default 30), and so is the milter's socket
 * while it starts.  Exit 0, or 1 at the first failure (the milter closed
 * the connection, answered what the protocol does not allow there, or
 * not in time), said on standard error.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "patchattest.h"
#include "base.h"
#include "benchutil.h"
#include "mtaconn.h"

#define MAX_MAIL	((size_t)32 << 20)	/* bytes of a mail file */
#define MAX_FILES	64
#define MAX_CONNS	256
#define MAX_VALUES	16	/* values of -h FIELD told apart */

static const char *const outcome_names[MTA_N] = {
	"continued", "accepted", "rejected", "tempfailed", "discarded",
	"skipped", "unseen", "failed"
};

/* the options */
static const char	*sock;
static struct sockaddr_storage	 addr;	/* SOCKET's */
static socklen_t	 addrlen;
static unsigned long	 nconns = 1, per_conn = 10, timeout_s = 30;
static const char	*field, *key, *idfield = "Message-ID";
static struct mtamail	 mails[MAX_FILES];
static size_t		 nmails;

/* the phase running, shared by its threads under lock */
static struct {
	pthread_mutex_t	 lock;
	size_t		 next, end;	/* messages handed out, the last */
	size_t		 first;		/* the first one counted */
	double		*lat;		/* each counted one's latency */
	size_t		 nlat;
	unsigned long	 outcome[MTA_N];
	struct {
		char		 value[32];
		unsigned long	 n;
	}		 tally[MAX_VALUES];
	size_t		 ntally;
	char		 err[512];	/* the first failure */
} run = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void		 mail_load(struct mtamail *, const char *);
static size_t		 field_colon(const char *, size_t, size_t *);
static int		 session(struct mtaconn *, size_t, size_t, size_t *);
static void		 record(size_t, enum mta_outcome, double, const char *);
static void		*worker(void *);
static void		 phase(size_t, size_t);
static double		 settled_cpu(clockid_t, pid_t);

/*
 * mail_load - path read as Postfix would pass it on: the fields, each
 * with its continuation lines joined by LF, then the body after the empty
 * line (or from the first line that is no field) with CRLF line ends
 */
static void
mail_load(struct mtamail *m, const char *path)
{
	struct sbuf raw;
	const char *p, *end, *eol, *next;
	size_t n, colon, namelen, nfields = 0;
	int fd, rc, in_head = 1;

	m->path = path;
	sbuf_init(&raw, MAX_MAIL);
	sbuf_init(&m->fields, MAX_MAIL);
	sbuf_init(&m->body, 2 * MAX_MAIL);
	if ((fd = open(path, O_RDONLY)) < 0)
		bench_die(path, strerror(errno));
	if ((rc = sbuf_read_fd(&raw, fd)) != 0)
		bench_die(path, rc == PA_ETOOBIG ? "larger than 32 MiB" :
		    "cannot read it");
	close(fd);
	p = raw.buf;
	end = raw.buf + raw.len;
	if (raw.len >= 5 && memcmp(p, "From ", 5) == 0)
		p = (eol = memchr(p, '\n', raw.len)) ? eol + 1 : end;
	for (; p < end; p = next) {
		eol = memchr(p, '\n', (size_t)(end - p));
		next = eol ? eol + 1 : end;
		n = (size_t)((eol ? eol : end) - p);
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (in_head && n == 0) {
			in_head = 0;		/* the empty line: not sent */
			continue;
		}
		if (in_head && memchr(p, '\0', n) != NULL)
			bench_die(path, "a NUL byte in its header");
		if (in_head && nfields > 0 && (p[0] == ' ' || p[0] == '\t')) {
			sbuf_setlen(&m->fields, m->fields.len - 1);
			sbuf_addch(&m->fields, '\n');
			sbuf_add(&m->fields, p, n);
			sbuf_addch(&m->fields, '\0');
			continue;
		}
		if (in_head && (colon = field_colon(p, n, &namelen)) > 0) {
			if (idfield[0] != '\0' &&
			    strlen(idfield) == namelen &&
			    strncasecmp(p, idfield, namelen) == 0)
				bench_die(path, "it has the field -I names "
				    "already");
			sbuf_add(&m->fields, p, namelen);
			sbuf_addch(&m->fields, '\0');
			sbuf_add(&m->fields, p + colon + 1, n - colon - 1);
			sbuf_addch(&m->fields, '\0');
			nfields++;
			continue;
		}
		in_head = 0;
		sbuf_add(&m->body, p, n);
		sbuf_add(&m->body, "\r\n", 2);
	}
	if (sbuf_failed(&m->fields) || sbuf_failed(&m->body))
		bench_die(path, "out of memory");
	sbuf_release(&raw);
}

/*
 * field_colon - where the colon of the header field line p is (a name of
 * printable characters, blanks, a colon: Postfix's is_header()), 0 when
 * it is none; the name's length in *namelen
 */
static size_t
field_colon(const char *p, size_t n, size_t *namelen)
{
	size_t i = 0;

	while (i < n && p[i] > ' ' && p[i] < 127 && p[i] != ':')
		i++;
	*namelen = i;
	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	return *namelen > 0 && i < n && p[i] == ':' ? i : 0;
}

/*
 * session - a connection carrying the n messages from first on, as an
 * SMTP session would; 0, or -1 with c->err and the message it was at in
 * *at
 */
static int
session(struct mtaconn *c, size_t first, size_t n, size_t *at)
{
	enum mta_outcome opened, o = MTA_CONTINUE;
	size_t k = 0;
	double lat;

	*at = first;
	opened = mtaconn_open(c, (unsigned)(40000 + first % 20000));
	for (; opened == MTA_CONTINUE && k < n && !c->closing; k++) {
		*at = first + k;
		o = mtaconn_message(c, &mails[(first + k) % nmails], first + k,
		    &lat);
		if (o == MTA_ERROR)
			break;
		record(first + k, o, lat, c->value);
	}
	if (opened == MTA_ERROR || o == MTA_ERROR) {
		mtaconn_close(c, MTA_ERROR);
		return -1;
	}
	mtaconn_close(c, opened);
	for (; k < n; k++)
		record(first + k, MTA_UNSEEN, 0, NULL);
	return 0;
}

/* record - what became of message seq, added up when it is counted */
static void
record(size_t seq, enum mta_outcome o, double lat, const char *value)
{
	size_t i;

	pthread_mutex_lock(&run.lock);
	if (seq >= run.first) {
		run.outcome[o]++;
		if (o != MTA_UNSEEN)
			run.lat[run.nlat++] = lat;
		if (field != NULL && o != MTA_UNSEEN) {
			value = value[0] != '\0' ? value : "(absent)";
			for (i = 0; i < run.ntally &&
			    strcmp(run.tally[i].value, value) != 0; i++)
				;
			if (i == run.ntally && i < MAX_VALUES) {
				snprintf(run.tally[i].value,
				    sizeof(run.tally[i].value), "%s",
				    i < MAX_VALUES - 1 ? value : "(other)");
				run.ntally++;
			}
			run.tally[i < MAX_VALUES ? i : MAX_VALUES - 1].n++;
		}
	}
	pthread_mutex_unlock(&run.lock);
}

/*
 * worker - one connection at a time, each taking the next messages
 * handed out, until there are none or one has failed
 */
static void *
worker(void *arg)
{
	struct mtaconn c;
	size_t first, n, at;

	(void)arg;
	mtaconn_init(&c);
	c.addr = &addr;
	c.addrlen = addrlen;
	c.sockname = sock;
	c.timeout_s = timeout_s;
	c.idfield = idfield;
	c.field = field;
	c.key = key;
	for (;;) {
		pthread_mutex_lock(&run.lock);
		first = run.next;
		n = run.err[0] != '\0' ? 0 : run.end - first;
		n = n < per_conn ? n : per_conn;
		run.next += n;
		pthread_mutex_unlock(&run.lock);
		if (n == 0)
			break;
		if (session(&c, first, n, &at) != 0) {
			pthread_mutex_lock(&run.lock);
			if (run.err[0] == '\0')
				snprintf(run.err, sizeof(run.err),
				    "message %zu (%s): %s", at,
				    mails[at % nmails].path, c.err);
			pthread_mutex_unlock(&run.lock);
			break;
		}
	}
	mtaconn_release(&c);
	return NULL;
}

/* phase - messages first to end handed out over the connections */
static void
phase(size_t first, size_t end)
{
	pthread_t th[MAX_CONNS];
	size_t i, n = (end - first + per_conn - 1) / per_conn;

	run.next = first;
	run.end = end;
	n = n < nconns ? n : nconns;
	for (i = 0; i < n; i++)
		if ((errno = pthread_create(&th[i], NULL, worker, NULL)) != 0)
			bench_die("pthread_create", strerror(errno));
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	if (run.err[0] != '\0') {
		fprintf(bench_err, "%s: %s\n", bench_name, run.err);
		exit(1);
	}
}

/*
 * settled_cpu - the CPU time of process pid in seconds, once it stopped
 * rising (under 1 ms in 100 ms; 10 s at most): a milter may still work
 * on a message it answered (a StateFile's writer thread), and a
 * connection's thread ends after it.  The process CPU clock counts every
 * thread, those that ended too, in nanoseconds; /proc/PID/stat counts
 * them in clock ticks (10 ms), /proc/PID/task/x/schedstat only the
 * threads alive, and libmilter's end with their connection.
 */
static double
settled_cpu(clockid_t clk, pid_t pid)
{
	struct timespec ts, pause = { 0, 100000000L };
	double was = -1, now = 0;
	int i;

	for (i = 0; i <= 100; i++) {
		if (clock_gettime(clk, &ts) != 0) {
			fprintf(bench_err, "%s: process %ld ended\n",
			    bench_name, (long)pid);
			exit(1);
		}
		now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
		if (was >= 0 && now - was < 0.001)
			return now;
		was = now;
		nanosleep(&pause, NULL);
	}
	fprintf(bench_err, "%s: process %ld is still busy after 10 s: what it "
	    "spent meanwhile counts\n", bench_name, (long)pid);
	return now;
}

int
main(int argc, char *argv[])
{
	unsigned long count = 1000, warmup = 0;
	const char *out = NULL;
	double start, elapsed, cpu = 0;
	clockid_t clk = CLOCK_MONOTONIC;
	char why[128], *colon;
	pid_t pid = 0;
	FILE *f;
	size_t i;
	int ch;

	bench_name = "milter-drive";
	bench_err = stderr;
	while ((ch = getopt(argc, argv, "c:m:n:w:t:p:o:h:I:")) != -1) {
		switch (ch) {
		case 'c':
			nconns = bench_getnum(optarg, 1, MAX_CONNS);
			break;
		case 'm':
			per_conn = bench_getnum(optarg, 1, 1000000);
			break;
		case 'n':
			count = bench_getnum(optarg, 1, 100000000);
			break;
		case 'w':
			warmup = bench_getnum(optarg, 0, 100000000);
			break;
		case 't':
			timeout_s = bench_getnum(optarg, 1, 3600);
			break;
		case 'p':
			pid = (pid_t)bench_getnum(optarg, 1, 0x7fffffff);
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			field = optarg;
			if ((colon = strchr(optarg, ':')) != NULL) {
				*colon = '\0';
				key = colon + 1;
			}
			break;
		case 'I':
			idfield = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind < 2 || argc - optind - 1 > MAX_FILES)
		goto usage;
	sock = argv[optind];
	if (mta_sockaddr(sock, &addr, &addrlen, why, sizeof(why)) != 0)
		bench_die(sock, why);
	for (i = (size_t)optind + 1; i < (size_t)argc; i++)
		mail_load(&mails[nmails++], argv[i]);
	if (pid != 0 && (errno = clock_getcpuclockid(pid, &clk)) != 0)
		bench_die("-p", strerror(errno));
	if ((run.lat = calloc(count, sizeof(*run.lat))) == NULL)
		bench_die("latencies", strerror(ENOMEM));

	run.first = warmup;
	if (warmup > 0)
		phase(0, warmup);
	if (pid != 0)
		cpu = settled_cpu(clk, pid);
	start = bench_now();
	phase(warmup, warmup + count);
	elapsed = bench_now() - start;
	if (pid != 0)
		cpu = settled_cpu(clk, pid) - cpu;

	printf("messages %lu messages\n", count);
	for (i = 0; i < MTA_N; i++)
		if (run.outcome[i] > 0 || i == MTA_ACCEPT)
			printf("%s %lu messages\n", outcome_names[i],
			    run.outcome[i]);
	printf("elapsed %.3f s\n", elapsed);
	printf("rate %.0f messages/s\n", (double)count / elapsed);
	if (out != NULL) {
		if ((f = fopen(out, "w")) == NULL)
			bench_die(out, strerror(errno));
		for (i = 0; i < run.nlat; i++)
			fprintf(f, "%.1f\n", run.lat[i] * 1e6);
		if (fclose(f) != 0)
			bench_die(out, strerror(errno));
	}
	if (run.nlat > 0)
		bench_latencies("latency", run.lat, run.nlat);
	if (pid != 0)
		printf("cpu_per_message %.1f us\n", cpu / (double)count * 1e6);
	for (i = 0; i < run.ntally; i++)
		printf("%s%s%s=%s %lu messages\n", field, key ? ":" : "",
		    key ? key : "", run.tally[i].value, run.tally[i].n);
	for (i = 0; i < nmails; i++) {
		sbuf_release(&mails[i].fields);
		sbuf_release(&mails[i].body);
	}
	free(run.lat);
	return 0;
usage:
	fprintf(stderr, "usage: milter-drive [-c CONNECTIONS] "
	    "[-m PER_CONNECTION] [-n COUNT] [-w WARMUP]\n\t[-t SECONDS] "
	    "[-p PID] [-o FILE] [-h FIELD[:KEY]] [-I FIELD] SOCKET MAIL...\n");
	return 2;
}
