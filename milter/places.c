/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * places.c - the places MaximumConnections gives (see milter.h): a
 * connection holds one while its mail is read and judged, and a client
 * that connects and stalls must not keep mail from being judged.
 *
 * A connection is busy while one of its callbacks runs, and otherwise
 * waits for its MTA, since the end of its last callback.  When a new
 * connection finds every place held, it takes the place of the one that
 * has waited longest, at least IdleConnectionGrace seconds, between
 * messages first: an MTA sends a message's steps one after the other,
 * and waits between messages (a slow SMTP client) or before the headers
 * (a long DATA) only.  The loser is not cut, so that a slow but real MTA
 * is never dropped: its memory goes at once (the yield hook, under the
 * lock, while none of its callbacks can run), it learns of the loss at
 * its next callback, and takes a place again for its next message.
 *
 * One lock guards the list of places held and every struct place's
 * fields; a new connection walks the list only when all are held.
 */
#include "config.h"

#include <pthread.h>
#include <time.h>

#include "milter.h"

static pthread_mutex_t	 lock = PTHREAD_MUTEX_INITIALIZER;
static struct place	*held;		/* the places held, a list */
static long		 n_held;

/* seconds - the monotonic clock, in seconds */
static double
seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* hold - p on the list of places held (lock held) */
static void
hold(struct place *p)
{
	p->prev = NULL;
	p->next = held;
	if (held != NULL)
		held->prev = p;
	held = p;
	p->held = 1;
	n_held++;
}

/* unhold - p off the list (lock held) */
static void
unhold(struct place *p)
{
	if (p->prev != NULL)
		p->prev->next = p->next;
	else
		held = p->next;
	if (p->next != NULL)
		p->next->prev = p->prev;
	p->prev = p->next = NULL;
	p->held = 0;
	n_held--;
}

/*
 * stalled - the place to take for a new connection (lock held): of those
 * not busy that waited grace seconds at least, the one waiting between
 * messages longest, else the one in a message longest; or NULL
 */
static struct place *
stalled(double now, long grace)
{
	struct place *p, *best = NULL;

	for (p = held; p != NULL; p = p->next) {
		if (p->busy || now - p->since < (double)grace)
			continue;
		if (best == NULL || p->in_message < best->in_message ||
		    (p->in_message == best->in_message &&
		    p->since < best->since))
			best = p;
	}
	return best;
}

enum place_got
places_take(struct place *p, long limit, long grace,
    void (*yield)(struct place *), struct place_loss *loss)
{
	enum place_got got = PLACE_FREE;
	struct place *q = NULL;
	double now = seconds();

	pthread_mutex_lock(&lock);
	if (!p->held && n_held >= limit) {
		got = (q = stalled(now, grace)) != NULL ? PLACE_TAKEN :
		    PLACE_NONE;
		if (q != NULL) {
			loss->waited = (long)(now - q->since);
			loss->in_message = q->in_message;
			unhold(q);
			q->lost = 1;
			yield(q);
		}
	}
	if (!p->held && got != PLACE_NONE)
		hold(p);
	pthread_mutex_unlock(&lock);
	return got;
}

int
places_enter(struct place *p)
{
	int lost;

	pthread_mutex_lock(&lock);
	p->busy = 1;
	lost = p->lost;
	p->lost = 0;
	pthread_mutex_unlock(&lock);
	return lost;
}

void
places_leave(struct place *p, int in_message)
{
	double now = seconds();

	pthread_mutex_lock(&lock);
	p->busy = 0;
	p->in_message = in_message;
	p->since = now;
	pthread_mutex_unlock(&lock);
}

void
places_release(struct place *p)
{
	pthread_mutex_lock(&lock);
	if (p->held)
		unhold(p);
	pthread_mutex_unlock(&lock);
}
