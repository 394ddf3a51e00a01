/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patchattest-milter - marks patch mail with its attestation verdict.
 *
 * usage: patchattest-milter [-c CONF] [-p SOCKET] [-P PIDFILE] [-f] [-n] [-V]
 *     [-h]
 *
 * Start-up order matters: the socket is opened while we may still bind
 * privileged places, then the process leaves the terminal, then it drops
 * privileges, and only then do threads start (fork() and threads do not
 * mix).
 *
 * Signals: libmilter's own signal thread waits for SIGHUP, SIGTERM and
 * SIGINT with sigwait() and stops the milter on any of them; admins expect
 * SIGHUP to reload.  Our handlers stay installed and unblocked in the main
 * thread, to which Linux offers a signal sent to the process first, so
 * libmilter sees SIGHUP only when two different signals race.  A handler
 * only writes the signal's number into a pipe that the main thread reads.
 */
#include "config.h"
#include "pa-paths.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "milter.h"
#include "sig.h"

#define DRAIN_SECONDS	10	/* SIGTERM: time left to open messages */
#define LISTENER_ENDED	0	/* from the listener thread to main */
#define FILES_SPARE	64	/* descriptors besides the connections' */

struct options {
	const char	*config;
	const char	*socket;
	const char	*pid_file;
	int		 foreground;
	int		 check_only;
};

static int		signal_pipe[2] = { -1, -1 };

static void
usage(FILE *to, int status)
{
	fprintf(to, "usage: patchattest-milter [-c CONF] [-p SOCKET] "
	    "[-P PIDFILE] [-f] [-n] [-V] [-h]\n");
	if (to == stdout)
		printf("\n"
		    "  -c CONF         the configuration (default %s)\n"
		    "  -p SOCKET       listen here instead of the "
		    "configuration's Socket\n"
		    "  -P PIDFILE      write the process ID here instead of "
		    "the configuration's\n"
		    "                  PidFile\n"
		    "  -f              stay in the foreground, logging to "
		    "standard error too\n"
		    "  -n              check the configuration and what "
		    "start-up needs, and exit:\n"
		    "                  0 when all is good, 1 with every "
		    "problem listed\n"
		    "  -V, --version   print the version and exit\n"
		    "  -h, --help      print this help and exit\n"
		    "\nSee patchattest-milter(8) and patchattest.conf(5).\n",
		    PA_CONFIG_FILE);
	exit(status);
}

static void
parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	o->config = PA_CONFIG_FILE;
	while ((ch = getopt_long(argc, argv, "c:p:P:fnVh", longopts, NULL)) != -1)
		switch (ch) {
		case 'c':
			o->config = optarg;
			break;
		case 'p':
			o->socket = optarg;
			break;
		case 'P':
			o->pid_file = optarg;
			break;
		case 'f':
			o->foreground = 1;
			break;
		case 'n':
			o->check_only = 1;
			break;
		case 'V':
			printf("patchattest-milter %s\n", PACKAGE_VERSION);
			exit(0);
		case 'h':
			usage(stdout, 0);
			break;
		default:
			usage(stderr, 2);
		}
	if (optind != argc)
		usage(stderr, 2);
}

/*
 * set_nodelay - TCP_NODELAY on our listening TCP socket, which accepted
 * connections inherit: without it each end-of-message reply waits for a
 * delayed ACK (Nagle).  libmilter does not hand out the descriptor, so it
 * is found among ours.
 */
static void
set_nodelay(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, on = 1, listening;

	for (fd = 0; fd < 1024; fd++) {
		len = sizeof(listening);
		if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening,
		    &len) != 0 || !listening)
			continue;
		memset(&ss, 0, sizeof(ss));
		len = sizeof(ss);
		if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0 &&
		    (ss.ss_family == AF_INET || ss.ss_family == AF_INET6))
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on,
			    sizeof(on));
	}
}

/*
 * as_user - become ra's user for the moment (back with as_root()): its
 * groups, then its effective IDs, which root's saved ID lets us undo
 */
static int
as_user(const struct runas *ra)
{
	return initgroups(ra->name, ra->gid) == 0 && setegid(ra->gid) == 0 &&
	    seteuid(ra->uid) == 0 ? 0 : -1;
}

static int
as_root(void)
{
	return seteuid(0) == 0 && setegid(0) == 0 ? 0 : -1;
}

/*
 * listen_local - libmilter's socket (it unlinks and binds the path).  In
 * a folder of UserID's that user could put a link at the name between
 * the bind and a chown and so be given a file of root's: there the socket
 * is made as that user, and root never acts on the name.  In a folder of
 * root's alone, root makes it and hands it over without following a link.
 */
static int
listen_local(const char *path, const struct runas *ra)
{
	struct pa_err err;
	char *copy;
	int shared = 0, rc;

	if ((copy = strdup(path)) == NULL)
		return -1;
	rc = safedir_check(dirname(copy), ra->set ? ra->uid : getuid(),
	    &shared, &err);
	free(copy);
	if (rc != 0) {
		mlog(LOG_LEVEL_ERROR, "%s: its folder: %s", path, err.msg);
		return -1;
	}
	if (!ra->set)
		return smfi_opensocket(1) == MI_SUCCESS ? 0 : -1;
	if (shared) {
		if (as_user(ra) != 0) {
			mlog(LOG_LEVEL_ERROR, "cannot become %s to make the "
			    "socket: %s", ra->name, strerror(errno));
			as_root();
			return -1;
		}
		rc = smfi_opensocket(1) == MI_SUCCESS ? 0 : -1;
		if (as_root() != 0)
			return -1;
		return rc;
	}
	if (smfi_opensocket(1) != MI_SUCCESS)
		return -1;
	if (lchown(path, ra->uid, ra->gid) != 0)
		mlog(LOG_LEVEL_WARNING, "%s: cannot hand the socket to %s: %s",
		    path, ra->name, strerror(errno));
	return 0;
}

static int
open_socket(const struct pa_config *cf, const struct runas *ra)
{
	const char *path = setup_socket_path(cf->socket);
	int rc;

	umask((mode_t)cf->umask);
	if (smfi_setconn(cf->socket) != MI_SUCCESS ||
	    smfi_settimeout((int)cf->timeout) != MI_SUCCESS ||
	    smfi_register(milter_desc) != MI_SUCCESS)
		rc = -1;
	else if (path != NULL)
		rc = listen_local(path, ra);
	else
		rc = smfi_opensocket(1) == MI_SUCCESS ? 0 : -1;
	if (rc != 0) {
		mlog(LOG_LEVEL_ERROR, "cannot listen on %s (is another milter "
		    "there, or its folder missing?)", cf->socket);
		return -1;
	}
	set_nodelay();
	callbacks_local_socket(path != NULL);
	return 0;
}

/*
 * raise_files - the descriptor limit up to the hard one: each connection
 * holds one, and the index, keyrings and log more; said when what is
 * left cannot serve MaximumConnections
 */
static void
raise_files(const struct pa_config *cf)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)cf->max_connections + FILES_SPARE)
		mlog(LOG_LEVEL_WARNING, "only %llu file descriptors for "
		    "MaximumConnections %ld: raise LimitNOFILE or lower "
		    "MaximumConnections", (unsigned long long)rl.rlim_cur,
		    cf->max_connections);
}

static int
drop_privileges(const struct runas *ra)
{
	struct pa_err err;

	if (runas_become(ra, &err) != 0) {
		mlog(LOG_LEVEL_ERROR, "%s", err.msg);
		return -1;
	}
	return 0;
}

static int
daemonize(void)
{
	pid_t pid;
	int fd;

	if ((pid = fork()) == -1)
		return -1;
	if (pid > 0)
		_exit(0);
	if (setsid() == -1 || chdir("/") != 0)
		return -1;
	if ((fd = open("/dev/null", O_RDWR)) != -1) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	return 0;
}

/* notify - the signal (or LISTENER_ENDED) to the main thread */
static void
notify(int sig)
{
	unsigned char c = (unsigned char)sig;
	int saved = errno;
	ssize_t n;

	/* A full pipe already holds wake-ups: losing this one is harmless. */
	n = write(signal_pipe[1], &c, 1);
	(void)n;
	errno = saved;
}

static int
catch_signals(void)
{
	static const int sigs[] = { SIGHUP, SIGUSR1, SIGTERM, SIGINT };
	struct sigaction sa;
	size_t i;

	if (pipe(signal_pipe) != 0 ||
	    fcntl(signal_pipe[1], F_SETFL, O_NONBLOCK) != 0) {
		mlog(LOG_LEVEL_ERROR, "cannot make the signal pipe: %s",
		    strerror(errno));
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = notify;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static atomic_int	listener_ended;

static void *
listener(void *arg)
{
	(void)arg;
	if (smfi_main() != MI_SUCCESS)
		mlog(LOG_LEVEL_ERROR, "libmilter stopped with an error");
	atomic_store(&listener_ended, 1);
	notify(LISTENER_ENDED);
	return NULL;
}

static void
nudged(int sig)
{
	(void)sig;
}

/*
 * nudger - interrupt the listener's wait for connections until it ends.
 * libmilter waits up to five seconds for one before it looks whether
 * smfi_stop() was called (and smfi_stop() waits for it to look); poll()
 * interrupted by a signal returns at once, and libmilter tries again.
 */
static void *
nudger(void *arg)
{
	const pthread_t *listening = arg;
	struct timespec tick = { 0, 20 * 1000 * 1000 };

	while (!atomic_load(&listener_ended)) {
		pthread_kill(*listening, SIGUSR2);
		nanosleep(&tick, NULL);
	}
	return NULL;
}

/* stop_listener - smfi_stop(), without libmilter's idle wait */
static void
stop_listener(pthread_t *listening)
{
	struct sigaction sa;
	pthread_t nudging;
	int nudge;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nudged;		/* no SA_RESTART: poll() returns */
	sigemptyset(&sa.sa_mask);
	nudge = sigaction(SIGUSR2, &sa, NULL) == 0 &&
	    pthread_create(&nudging, NULL, nudger, listening) == 0;
	smfi_stop();
	if (nudge)
		pthread_join(nudging, NULL);
}

/* drain - give messages being received a moment to finish */
static void
drain(void)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	int i;

	for (i = 0; i < DRAIN_SECONDS * 20 &&
	    atomic_load(&state_in_flight) > 0; i++)
		nanosleep(&tick, NULL);
}

/* serve - run until told to stop; 0 on a clean stop */
static int
serve(const struct options *o)
{
	pthread_t thread;
	unsigned char sig;
	int stopping = 0;
	ssize_t n;

	if (pthread_create(&thread, NULL, listener, NULL) != 0) {
		mlog(LOG_LEVEL_ERROR, "cannot start the listener thread");
		return -1;
	}
	mlog(LOG_LEVEL_INFO, "started; version %s, configuration %s",
	    PACKAGE_VERSION, o->config);
	for (;;) {
		if ((n = read(signal_pipe[0], &sig, 1)) != 1) {
			if (n == -1 && errno == EINTR)
				continue;
			mlog(LOG_LEVEL_ERROR, "the signal pipe failed");
			sig = SIGTERM;
		}
		if (sig == LISTENER_ENDED)
			break;
		if (sig == SIGHUP || sig == SIGUSR1)
			worker_request_reload();
		else if (!stopping) {
			stopping = 1;
			mlog(LOG_LEVEL_INFO, "stopping: finishing the messages "
			    "being received");
			drain();
			stop_listener(&thread);
		}
	}
	pthread_join(thread, NULL);
	return 0;
}

int
main(int argc, char **argv)
{
	struct options o = { 0 };
	struct runas ra = { 0 };
	struct pa_config cf;
	struct sbuf problems, notes;
	struct pa_err err;
	int rc = 1;

	parse_options(argc, argv, &o);
	sbuf_init(&problems, 1 << 16);
	sbuf_init(&notes, 1 << 12);
	if (setup_load(o.config, o.socket, o.pid_file, o.check_only, &cf, &ra,
	    &problems, &notes) != 0) {
		fputs(problems.len ? problems.buf : "out of memory\n", stderr);
		sbuf_release(&problems);
		sbuf_release(&notes);
		config_release(&cf);
		return 1;
	}
	sbuf_release(&problems);
	if (o.check_only) {
		printf("%s: the configuration is good\n%s", o.config,
		    notes.buf);
		sbuf_release(&notes);
		config_release(&cf);
		return 0;
	}
	sbuf_release(&notes);

	/* Until it leaves the terminal, the one who started it reads why not. */
	mlog_open(1);
	mlog_configure(&cf);
	if (catch_signals() != 0)
		goto out;
	if (pa_global_init(&err) != 0) {
		mlog(LOG_LEVEL_ERROR, "GnuPG: %s", err.msg);
		goto out;
	}
	/* a changed GnuPG home counts from the next second, not the next
	   message: no dozen stat()s per message */
	pgp_recheck_every(1000);
	raise_files(&cf);
	if (open_socket(&cf, &ra) != 0)
		goto out;
	if (metrics_bind(&cf, &err) != 0) {
		mlog(LOG_LEVEL_ERROR, "%s", err.msg);
		goto out;
	}
	if (!o.foreground && daemonize() != 0) {
		mlog(LOG_LEVEL_ERROR, "cannot run in the background: %s",
		    strerror(errno));
		goto out;
	}
	mlog_open(o.foreground);
	mlog_divert();
	if (cf.pid_file != NULL &&
	    pidfile_write(cf.pid_file, ra.set ? ra.uid : getuid(), &err) != 0) {
		mlog(LOG_LEVEL_ERROR, "%s", err.msg);
		goto out;
	}
	if (drop_privileges(&ra) != 0)
		goto out;
	if (state_init(&cf, &err) != 0) {
		mlog(LOG_LEVEL_ERROR, "%s", err.msg);
		goto out;
	}
	cf = (struct pa_config){ 0 };	/* the state owns it now */
	if (worker_start(o.config, &err) != 0) {
		mlog(LOG_LEVEL_ERROR, "%s", err.msg);
		state_shutdown();
		goto out;
	}
	if (metrics_start(&err) != 0) {
		mlog(LOG_LEVEL_ERROR, "%s", err.msg);
		worker_stop();
		state_shutdown();
		goto out;
	}
	rc = serve(&o) == 0 ? 0 : 1;
	metrics_stop();
	worker_stop();
	state_shutdown();
	mlog(LOG_LEVEL_INFO, "stopped");
out:
	metrics_stop();
	if (pidfile_remove(&err) != 0)
		mlog(LOG_LEVEL_WARNING, "%s", err.msg);
	config_release(&cf);
	return rc;
}
