/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mtaconn - a milter spoken to as Postfix speaks to it (the milter
 * protocol, version 6), for milter-drive: a connection that opens as an
 * SMTP session does and carries messages (struct mtaconn), each a mail
 * file as Postfix would pass it on (struct mtamail).
 *
 * What Postfix 3 does (its milter8.c, and smtpd's mail_reset()), done:
 *  - it offers every action and every step of version 6, and keeps to
 *    what the milter answers: steps not sent (SMFIP_NO*), steps not
 *    answered (SMFIP_NR_*), the header value's leading space
 *    (SMFIP_HDR_LEADSPC), the milter's own macro lists
 *    (SMFIR_SETSYMLIST), steps skipped (SMFIR_SKIP);
 *  - a connection is SMFIC_OPTNEG, SMFIC_CONNECT (a client at
 *    192.0.2.10 over TCP), SMFIC_HELO; a message SMFIC_MAIL, SMFIC_RCPT,
 *    SMFIC_DATA, an SMFIC_HEADER per field, SMFIC_EOH, the body in
 *    SMFIC_BODY chunks of 65,535 bytes, SMFIC_BODYEOB, then SMFIC_ABORT,
 *    unanswered (the reset between two mail transactions); SMFIC_QUIT
 *    ends the connection, unless the milter decided for all of it at
 *    SMFIC_CONNECT or SMFIC_HELO (Postfix then just closes it);
 *  - before each step the macros of its stage, even for a step the
 *    milter does not want, but none for the fields, the end of the
 *    fields or the body when it wants none (Postfix then does not read
 *    them for it): Postfix's default lists, with {client_addr} and
 *    {client_name} added at connect, and the values Postfix would give
 *    them; the queue ID "i" differs per message;
 *  - packets are written when a reply is awaited, not one at a time (its
 *    buffered stream);
 *  - the replies before the last one to the end of the message (fields
 *    and body changed, recipients, progress, quarantine) are read and
 *    checked; none is applied.
 *
 * A connection: mtaconn_init() on the caller's storage, its settings
 * filled in; then per session mtaconn_open(), mtaconn_message() for each
 * message, mtaconn_close(); mtaconn_release() frees what it holds.  Each
 * wait (for a reply, for room to write, for the socket to accept while
 * the milter starts) lasts at most timeout_s.  A function that fails
 * returns MTA_ERROR (or -1) with one sentence in err; the session is then
 * over, and mtaconn_close(c, MTA_ERROR) closes it without a word.
 */
#ifndef PA_MTACONN_H
#define PA_MTACONN_H

#include <sys/socket.h>

#include <stddef.h>

#include "base.h"

#define MTA_STAGES	7	/* macro stages: SMFIM_CONNECT to SMFIM_EOH */

enum mta_outcome {
	MTA_CONTINUE, MTA_ACCEPT, MTA_REJECT, MTA_TEMPFAIL, MTA_DISCARD,
	MTA_SKIP,
	MTA_UNSEEN,		/* refused with its session at connect */
	MTA_ERROR,
	MTA_N
};

/*
 * A mail as Postfix passes it to a milter: each header field "name NUL
 * value NUL", the value as it follows the colon (its leading space too),
 * its continuation lines joined by LF; the body after the empty line,
 * with CRLF line ends.  Filled by the caller.
 */
struct mtamail {
	const char	*path;		/* in messages */
	struct sbuf	 fields;
	struct sbuf	 body;
};

struct mtaconn {
	/* set by the caller after mtaconn_init() */
	const struct sockaddr_storage *addr;
	socklen_t	 addrlen;
	const char	*sockname;	/* in messages */
	unsigned long	 timeout_s;
	const char	*idfield;	/* numbered per message, or "" */
	const char	*field;		/* the field whose value is kept */
	const char	*key;		/* ... the word after KEY= in it */

	int		 fd;
	unsigned long	 steps;		/* what the milter asked: SMFIP_* */
	int		 skip;		/* the event SMFIR_SKIP skips, or 0 */
	int		 closing;	/* the milter ended the session */
	char		*symlist[MTA_STAGES];	/* its macro lists, or NULL */
	struct sbuf	 out;		/* packets not written yet */
	struct sbuf	 in;		/* the data of the last reply */
	struct sbuf	 hdr;		/* a field being sent */
	const char	*awaited;	/* the step whose reply is read */
	char		 value[32];	/* the first word (or key's) the
					   milter gave field in this
					   message, or "" */
	char		 err[256];	/* why it failed */
};

/*
 * mta_sockaddr - a milter socket in libmilter's spelling (unix:PATH,
 * local:PATH, inet:PORT@HOST, inet6:PORT@HOST, or a PATH without a
 * colon) as an address: 0, or -1 with the reason in why
 */
int	mta_sockaddr(const char *spelling, struct sockaddr_storage *sa,
	    socklen_t *len, char *why, size_t whysize);

void	mtaconn_init(struct mtaconn *);
void	mtaconn_release(struct mtaconn *);
/*
 * mtaconn_open - connect, negotiate, SMFIC_CONNECT (from client port
 * port) and SMFIC_HELO: MTA_CONTINUE when messages may follow, what the
 * milter decided for the whole session, or MTA_ERROR
 */
enum mta_outcome mtaconn_open(struct mtaconn *, unsigned port);
/*
 * mtaconn_message - mail m given as message seq (its queue ID, its
 * idfield): what the milter decided (MTA_ACCEPT when it let it go on to
 * the end), or MTA_ERROR; the seconds from MAIL to that in *lat
 */
enum mta_outcome mtaconn_message(struct mtaconn *, const struct mtamail *m,
	    size_t seq, double *lat);
/* mtaconn_close - SMFIC_QUIT when the session is still open, closed */
void	mtaconn_close(struct mtaconn *, enum mta_outcome opened);

#endif
