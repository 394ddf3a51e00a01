/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nullmilter - a milter that does nothing and accepts everything: the
 * floor bench-milter.sh compares patchattest-milter with.
 *
 * usage: nullmilter -p SOCKET      (unix:/path, inet:PORT@HOST, ...)
 *
 * It stays in the foreground and stops on SIGTERM (libmilter's own
 * signal handling).  To be a fair floor it negotiates the protocol as
 * patchattest-milter does (milter/callbacks.c): on a local socket no
 * HELO, RCPT, DATA or unknown commands and no reply to a header, the end
 * of the headers or a body chunk; over TCP every step, each answered.  It sets TCP_NODELAY on an inet
 * listening socket (accepted sockets inherit it on Linux): without it
 * every message waits for delayed ACKs twice (Nagle's algorithm).
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libmilter/mfapi.h>

#define MAX_FD	1024		/* descriptors searched for the socket */

/* what patchattest-milter asks of the MTA, when it offers it */
#define STEPS_SKIPPED	(SMFIP_NOHELO | SMFIP_NORCPT | SMFIP_NODATA | \
			 SMFIP_NOUNKNOWN)
#define STEPS_UNANSWERED (SMFIP_NR_HDR | SMFIP_NR_EOH | SMFIP_NR_BODY)

static char	 unanswered;	/* a connection's private data: the MTA
				   agreed to STEPS_UNANSWERED */
static int	 local_socket;	/* steps skipped, unanswered */

static sfsistat	 nm_negotiate(SMFICTX *, unsigned long, unsigned long,
		     unsigned long, unsigned long, unsigned long *,
		     unsigned long *, unsigned long *, unsigned long *);
static sfsistat	 nm_connect(SMFICTX *, char *, _SOCK_ADDR *);
static sfsistat	 nm_continue(SMFICTX *, char **);
static sfsistat	 nm_header(SMFICTX *, char *, char *);
static sfsistat	 nm_eoh(SMFICTX *);
static sfsistat	 nm_body(SMFICTX *, unsigned char *, size_t);
static sfsistat	 nm_eom(SMFICTX *);
static int	 nodelay_listeners(void);

static sfsistat
nm_connect(SMFICTX *ctx, char *host, _SOCK_ADDR *addr)
{
	(void)ctx;
	(void)host;
	(void)addr;
	return SMFIS_CONTINUE;
}

static sfsistat
nm_negotiate(SMFICTX *ctx, unsigned long actions, unsigned long steps,
    unsigned long unused2, unsigned long unused3, unsigned long *our_actions,
    unsigned long *our_steps, unsigned long *our2, unsigned long *our3)
{
	(void)actions;
	(void)unused2;
	(void)unused3;
	*our_actions = *our2 = *our3 = 0;
	*our_steps = local_socket ? steps & (STEPS_SKIPPED |
	    STEPS_UNANSWERED) : 0;
	smfi_setpriv(ctx, (*our_steps & STEPS_UNANSWERED) == STEPS_UNANSWERED ?
	    &unanswered : NULL);
	return SMFIS_CONTINUE;
}

/* collected - the reply to a step that only collects */
static sfsistat
collected(SMFICTX *ctx)
{
	return smfi_getpriv(ctx) == &unanswered ? SMFIS_NOREPLY :
	    SMFIS_CONTINUE;
}

static sfsistat
nm_continue(SMFICTX *ctx, char **argv)
{
	(void)ctx;
	(void)argv;
	return SMFIS_CONTINUE;
}

static sfsistat
nm_header(SMFICTX *ctx, char *name, char *value)
{
	(void)name;
	(void)value;
	return collected(ctx);
}

static sfsistat
nm_eoh(SMFICTX *ctx)
{
	return collected(ctx);
}

static sfsistat
nm_body(SMFICTX *ctx, unsigned char *chunk, size_t len)
{
	(void)chunk;
	(void)len;
	return collected(ctx);
}

static sfsistat
nm_eom(SMFICTX *ctx)
{
	(void)ctx;
	return SMFIS_ACCEPT;
}

/*
 * nodelay_listeners - TCP_NODELAY on every listening TCP socket of this
 * process (libmilter does not hand out its descriptor); how many.
 */
static int
nodelay_listeners(void)
{
	struct sockaddr_storage ss;
	struct stat sb;
	socklen_t len;
	int fd, on, n = 0;

	for (fd = 3; fd < MAX_FD; fd++) {
		if (fstat(fd, &sb) != 0 || !S_ISSOCK(sb.st_mode))
			continue;
		len = sizeof(on);
		if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) != 0 ||
		    !on)
			continue;
		len = sizeof(ss);
		if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0 ||
		    (ss.ss_family != AF_INET && ss.ss_family != AF_INET6))
			continue;
		on = 1;
		if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on,
		    sizeof(on)) == 0)
			n++;
	}
	return n;
}

int
main(int argc, char *argv[])
{
	struct smfiDesc desc;
	char *sock = NULL;
	int ch;

	while ((ch = getopt(argc, argv, "p:")) != -1) {
		switch (ch) {
		case 'p':
			sock = optarg;
			break;
		default:
			sock = NULL;
			optind = argc + 1;
			break;
		}
	}
	if (sock == NULL || optind != argc) {
		fprintf(stderr, "usage: nullmilter -p SOCKET\n");
		return 2;
	}

	memset(&desc, 0, sizeof(desc));
	desc.xxfi_name = "nullmilter";
	desc.xxfi_version = SMFI_VERSION;
	desc.xxfi_flags = 0;
	desc.xxfi_connect = nm_connect;
	desc.xxfi_envfrom = nm_continue;
	desc.xxfi_header = nm_header;
	desc.xxfi_eoh = nm_eoh;
	desc.xxfi_body = nm_body;
	desc.xxfi_eom = nm_eom;
	desc.xxfi_negotiate = nm_negotiate;

	local_socket = strncmp(sock, "unix:", 5) == 0 ||
	    strncmp(sock, "local:", 6) == 0 || sock[0] == '/';
	if (local_socket)
		umask(0);	/* the MTA runs as another user */
	if (smfi_setconn(sock) == MI_FAILURE ||
	    smfi_register(desc) == MI_FAILURE ||
	    smfi_opensocket(1) == MI_FAILURE) {
		fprintf(stderr, "nullmilter: cannot listen on %s\n", sock);
		return 1;
	}
	if (strncmp(sock, "inet", 4) == 0 && nodelay_listeners() == 0)
		fprintf(stderr, "nullmilter: TCP_NODELAY not set\n");
	return smfi_main() == MI_SUCCESS ? 0 : 1;
}
