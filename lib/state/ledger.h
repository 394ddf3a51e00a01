/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger - what arrived and who habitually signs: for each patch mail,
 * cover letter and signed mail the milter judged, one arrival record
 * (its hashes, when it arrived by our clock, from whom, the verdicts);
 * for each identity, its signing habit, learnt from those records.
 *
 * Writes never hold up mail: ledger_record() queues the record and
 * returns; a writer thread commits what has queued in one transaction
 * (a burst of mail is one sync, not one per message).  A commit that
 * fails keeps its records queued and is tried again; while the queue is
 * full, ledger_record() refuses with PA_ERROR saying why (the disk is
 * full, ...), and the caller treats the message as one it cannot judge.
 * The reads see what has been committed.
 *
 * A record ledger_record() accepted survives a crash or a power loss
 * once the batch it is in is synced: at most LEDGER_GATHER_MS after it
 * was accepted, while the store can be written, or when a ledger_sync()
 * returns 0.  A crash therefore loses at most the records accepted in
 * the last LEDGER_GATHER_MS.  A store that sends its records elsewhere
 * (StateDatabase) keeps them in a local file synced on the same
 * schedule, whether or not the far end answers.
 *
 * The second copy of a Message-ID never replaces the first: copies are
 * numbered in arrival order (struct arrival's copy), and each is set
 * beside the first kept as it is written (differs: what the record
 * keeps of the patch, trailers included, or a cover letter's subject, is
 * not the first's).
 * The first LEDGER_COPIES_KEPT copies are kept, and beyond them up to
 * LEDGER_DIFFERING_KEPT more that differ; the rest are only counted
 * (ledger_copies()), so that replaying one mail costs the same at the
 * 5,000th copy as at the second and takes no room.  Whoever watches
 * (ledger_watch()) hears of each copy after the first once it is
 * written.
 *
 * A habit counts patches, not mails: a copy of a Message-ID, or a patch
 * (its patch-id) that the identity's window holds already, takes no
 * place of its own in the window; a signed copy of a patch the window
 * holds unsigned marks it signed.  Replaying one signed mail therefore
 * makes no habit, and a copy sent ahead of the genuine one breaks none.
 *
 * Lifecycle: ledger_open() once per process (the handle is shared by
 * every thread), ledger_close() after the last use: it commits what is
 * queued.  Functions return 0, a named outcome (PA_ENOTFOUND), or
 * PA_ERROR / PA_ENOMEM with err saying why.  The interface names no
 * storage type: the store may be another one than LMDB.
 */
#ifndef PA_LEDGER_H
#define PA_LEDGER_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "patchattest.h"
#include "base.h"

#define ARRIVAL_MSGID_MAX	512	/* Message-ID without <>, NUL included;
					   a longer one is kept by its first
					   bytes and found by its hash */
#define ARRIVAL_TEXT_MAX	256	/* author, subject, sender, list, key */
#define ARRIVAL_TRAILERS_MAX	2048	/* the commit message's trailers */
#define ARRIVAL_HEX_MAX		65	/* a SHA-256 in hex, NUL included */
#define LEDGER_GATHER_MS	100	/* a batch gathers, then is synced */

/* Each scheme's verdict as the header spells it ("pass", "none", ...). */
#define ARRIVAL_VERDICT_MAX	24
#define ARRIVAL_SELECTOR_MAX	64	/* patatt's s= */
#define ARRIVAL_QUEUE_ID_MAX	32	/* the MTA's queue ID */

#define LEDGER_COPIES_KEPT	16	/* copies of a Message-ID kept */
#define LEDGER_DIFFERING_KEPT	4	/* ... and beyond, differing ones */

struct arrival {
	char	 message_id[ARRIVAL_MSGID_MAX];
	/* SHA-256 of the whole Message-ID as given, however long or with
	   NUL bytes: what finds it (arrival_set_message_id()).  All zero:
	   the store hashes message_id. */
	unsigned char message_id_sha256[32];
	unsigned copy;			/* 1: the first copy of message_id */
	time_t	 arrived;		/* the milter's clock */
	char	 envelope_from[ARRIVAL_TEXT_MAX];
	char	 author[ARRIVAL_TEXT_MAX];	/* "Name <addr>": From, or
						   X-Original-From */
	char	 identity[ARRIVAL_TEXT_MAX];	/* canonical, as signer memory
						   keys it; "" none */
	char	 subject[ARRIVAL_TEXT_MAX];
	char	 list_id[ARRIVAL_TEXT_MAX];	/* "" none */
	/* The patch, when the mail carries one (has_patch). */
	int	 has_patch;
	char	 i[ARRIVAL_HEX_MAX], m[ARRIVAL_HEX_MAX], p[ARRIVAL_HEX_MAX];
	char	 m_core[ARRIVAL_HEX_MAX];	/* m without the trailers */
	char	 patch_id[41];		/* git patch-id --stable, hex */
	char	 trailers[ARRIVAL_TRAILERS_MAX];	/* one per line */
	/* The verdicts: the header's result, each scheme's own. */
	char	 result[ARRIVAL_VERDICT_MAX];
	char	 v01[ARRIVAL_VERDICT_MAX];
	char	 patatt[ARRIVAL_VERDICT_MAX];	/* "" no signature */
	char	 key[ARRIVAL_TEXT_MAX];		/* the signing key, or "" */
	int	 signed_trusted;		/* key is trusted and the
						   signature good: counts for
						   the signer's habit */
	char	 dkim[ARRIVAL_TEXT_MAX];	/* the author's domain that a
						   trusted verifier's DKIM pass
						   vouches for, or "" */
	/* The patatt signature that gave patatt's verdict, so that a key
	   missing (nokey) can be found and put where it belongs: a= (as
	   "ed25519-sha256"), s=, and the key it names or the mail offers
	   (X-Developer-Key); "" when there is none.  Records written before
	   these fields have them "". */
	char	 algo[ARRIVAL_VERDICT_MAX];
	char	 selector[ARRIVAL_SELECTOR_MAX];
	char	 offered[ARRIVAL_TEXT_MAX];
	/* Where it came from, as the MTA saw it: the connecting client
	   ("name [address]") and its queue ID; "" when not known. */
	char	 host[ARRIVAL_TEXT_MAX];
	char	 queue_id[ARRIVAL_QUEUE_ID_MAX];
	/* Set by the store: the copy differs from the first kept copy of
	   its Message-ID (ARRIVAL_PART_* of arrival.h in parts). */
	int	 differs;
	unsigned parts;
};

/*
 * Where a mail came from, as the MTA told us: the envelope sender (with
 * or without <>), the connecting client ("name [address]") and the queue
 * ID; NULL or "" when not known.
 */
struct arrival_origin {
	const char	*envelope_from;
	const char	*host;
	const char	*queue_id;
};

/*
 * The copies of one Message-ID: how many arrived, how many of those the
 * store keeps (the others are only counted), and how many differ from
 * the first kept one, kept or not.
 */
struct ledger_copies {
	unsigned arrived;
	unsigned kept;
	unsigned differing;
};

/*
 * What a watcher hears of a copy after the first of a Message-ID once it
 * is written: the copy (its copy, differs and parts set), the first kept
 * copy it was set beside (NULL: none could be read), the copies so far,
 * and whether this one is kept.  A store tells a bounded number of
 * copies at a time; the last one it tells then counts the copies written
 * with it that it had no room to tell, and how many of those differ.
 */
struct ledger_copy_event {
	const struct arrival	*copy;
	const struct arrival	*first;
	struct ledger_copies	 copies;
	int			 kept;
	unsigned		 untold, untold_differing;
};

/*
 * An identity's signing habit over its most recent patch mails (at most
 * HABIT_WINDOW of them): how many were signed with a trusted key, and the
 * key of the latest such signature.
 */
#define HABIT_WINDOW		32

struct habit {
	char	 identity[ARRIVAL_TEXT_MAX];
	char	 key[ARRIVAL_TEXT_MAX];	/* the latest trusted key */
	unsigned recent;		/* patch mails in the window */
	unsigned recent_signed;		/* ... signed with a trusted key */
	unsigned run;			/* the latest ones, in a row, signed
					   with key */
	time_t	 first_signed, last_signed;
};

struct ledger;

/*
 * arrival_set_message_id - a's Message-ID (without <>): the first
 * ARRIVAL_MSGID_MAX - 1 bytes of id[0..len) as message_id (up to a NUL
 * byte), the hash of all of them as message_id_sha256
 */
void	arrival_set_message_id(struct arrival *a, const char *id, size_t len);

/*
 * ledger_open - the store at path into *out.  create: made when it is not
 * there (else PA_ENOTFOUND); writable: for ledger_record() (starts the
 * writer thread).  retention_days: records older than that are removed
 * as new ones are written (0: kept).  max_size: the bytes of the file
 * that may be in use (records, indexes, habits); beyond, the oldest
 * records are removed as new ones are written, and when none is left,
 * the habits of identities that never signed (0: no bound).  A file
 * that is there but empty or not a ledger is damage (PA_ERROR), never a
 * fresh start.
 */
int	ledger_open(struct ledger **out, const char *path, int create,
	    int writable, unsigned retention_days, uint64_t max_size,
	    struct pa_err *);
/*
 * ledger_close - commit what is queued (when writes fail, after one more
 * try, what is still queued is lost), stop the writer, close
 */
void	ledger_close(struct ledger *);
/*
 * ledger_check - whether the file at path is a ledger that opens, without
 * making a lock file (a check run as another user): 0, PA_ENOTFOUND, or
 * PA_ERROR
 */
int	ledger_check(const char *path, struct pa_err *);

/*
 * ledger_record - queue a's record (copy is set by the store) and the
 * update of its identity's habit: 0, or PA_ERROR when the queue is full
 * because writes fail (err says why)
 */
int	ledger_record(struct ledger *, const struct arrival *a,
	    struct pa_err *);
/* ledger_sync - wait until what was queued before the call is committed */
int	ledger_sync(struct ledger *, struct pa_err *);
/* ledger_pending - the records queued (or in the journal of a database)
   and not yet committed */
size_t	ledger_pending(struct ledger *);

/*
 * ledger_by_message_id - fn on each kept copy of message_id, in arrival
 * order, until fn returns non-zero (which it returns): 0, PA_ENOTFOUND.
 * Records accepted and not yet written are read too, after the written
 * ones (their copy is then the number they will most likely get: two
 * nodes of one database may race for it).  fn runs inside the read and
 * must not wait for ledger_sync().
 */
int	ledger_by_message_id(struct ledger *, const char *message_id,
	    int (*fn)(void *, const struct arrival *), void *arg,
	    struct pa_err *);
/* ledger_by_message_id_bytes - the same for a Message-ID of len bytes */
int	ledger_by_message_id_bytes(struct ledger *, const char *message_id,
	    size_t len, int (*fn)(void *, const struct arrival *), void *arg,
	    struct pa_err *);
/* ledger_by_patch_id - the same for every record of a patch-id (hex) */
int	ledger_by_patch_id(struct ledger *, const char *patch_id,
	    int (*fn)(void *, const struct arrival *), void *arg,
	    struct pa_err *);
/*
 * ledger_each - fn on every record arrived in [since, until), in arrival
 * order, until fn returns non-zero (which it returns)
 */
int	ledger_each(struct ledger *, time_t since, time_t until,
	    int (*fn)(void *, const struct arrival *), void *arg,
	    struct pa_err *);

/*
 * ledger_copies - how many copies of message_id (len bytes) arrived,
 * were kept and differ (*out): 0, PA_ENOTFOUND (none arrived)
 */
int	ledger_copies(struct ledger *, const char *message_id, size_t len,
	    struct ledger_copies *out, struct pa_err *);

/*
 * ledger_watch - fn called with each copy after the first of a
 * Message-ID once the store has written it, from the store's own thread
 * (it must not wait on the ledger); NULL: none.  Set before the first
 * ledger_record().
 */
void	ledger_watch(struct ledger *,
	    void (*fn)(void *, const struct ledger_copy_event *), void *arg);

/* ledger_habit - identity's habit into *out: 0, PA_ENOTFOUND */
int	ledger_habit(struct ledger *, const char *identity, struct habit *out,
	    struct pa_err *);

/*
 * The size of a store's file: its bytes, those of them in use (the
 * records, their indexes, the habits; LMDB reuses the rest, pages that
 * commits freed), and the bound on those in use, ledger_open()'s
 * max_size (0: none).  A commit may take the file past used by the
 * pages it rewrites: LMDB keeps the old copy of each until later
 * commits.
 */
struct ledger_size {
	uint64_t	 file, used, max;
};

/*
 * ledger_size - *out as of the last commit: 0, or PA_ENOTFOUND when the
 * store keeps no file of its own (a database)
 */
int	ledger_size(struct ledger *, struct ledger_size *out);

/*
 * ledger_reads_local - 1 when a read costs no round trip to another host
 * (the LMDB file), 0 when it does (a database server)
 */
int	ledger_reads_local(const struct ledger *);

/*
 * ledger_reads_unlocked - 1 when reads go without the lock file (a
 * reader who may not write it): each read checks that it settled, but
 * LMDB itself may trip (an assertion, a bad pointer) over a page that
 * the writer reused while it was being read; cli/shelter.c runs such a
 * reader where that costs only a retry
 */
int	ledger_reads_unlocked(const struct ledger *);

#endif
