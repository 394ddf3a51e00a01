/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mtawire - the bytes of the milter protocol under mtaconn: the
 * connection to the milter's socket, packets queued in c->out and written
 * together before a reply is read (as Postfix's buffered stream writes
 * them), each reply read whole into c->in.  Each wait lasts at most
 * c->timeout_s; c->awaited names the step in the messages.  A function
 * that fails returns -1 with one sentence in c->err.
 */
#ifndef PA_MTAWIRE_H
#define PA_MTAWIRE_H

#include <stddef.h>

#include "mtaconn.h"

#define MTAWIRE_MAX_REPLY ((size_t)1 << 20)	/* data of a reply packet */

/* mtawire_fail - why c failed, said once in c->err; -1 */
int	mtawire_fail(struct mtaconn *c, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/*
 * mtawire_open - a non-blocking connection to c->addr, tried again for
 * c->timeout_s while nothing listens there yet (a milter starting)
 */
int	mtawire_open(struct mtaconn *c);
/* mtawire_packet - cmd and its data queued, written with the next flush */
void	mtawire_packet(struct mtaconn *c, int cmd, const void *data,
	    size_t len);
/* mtawire_flush - the packets queued written */
int	mtawire_flush(struct mtaconn *c);
/*
 * mtawire_reply - the packets queued written, then one reply: its command
 * into *cmd, its data into c->in
 */
int	mtawire_reply(struct mtaconn *c, int *cmd);

#endif
