/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-int - the LMDB store behind ledger.h, shared by its files:
 * ledger.c (open, close, check), ledger-write.c (the queue and its
 * writer thread), ledger-commit.c (one batch in one transaction),
 * ledger-read.c and the transactions its reads walk in, ledger-walk.c.
 *
 * One LMDB file (MDB_NOSUBDIR) holds named databases:
 *   meta      "format" -> LEDGER_FORMAT; "seq" -> the next sequence
 *             number; "accepted" -> how many records ledger_record()
 *             had accepted when the last batch was committed (so that
 *             a read tells the queued records it holds from the rest);
 *             numbers 8 bytes, big-endian
 *   records   arrival time (8 bytes, big-endian, sign bit flipped so
 *             that the order is time's) and sequence (8) -> the record
 *   msgid     SHA-256 of the Message-ID -> copy (4) and record key (16),
 *             one of each copy (sorted duplicates: in copy order)
 *   patchid   the patch-id's 20 bytes -> record key (16), duplicates
 *   habits    identity -> its habit (ledger-codec.h)
 *   copies    SHA-256 of a Message-ID that arrived more than once -> the
 *             copies that arrived (4) and differed from the first kept
 *             (4); the kept ones are its msgid entries.  A file made
 *             before it has none: a read finds nothing there, and the
 *             writer makes it.
 * An index entry whose record is gone (removed as too old) is passed.
 * The pages of these databases are the file's use, which max_size bounds
 * (ledger.h's struct ledger_size).
 *
 * Threads: the handle is shared (MDB_NOTLS: a read transaction is not
 * tied to its thread).  maplock is held for reading around every
 * transaction and for writing while the map is resized, which LMDB
 * allows only with no transaction open in the process.
 *
 * The file is made readable by the milter's group (0640), and its lock
 * file (PATH-lock) is not: whoever may write the lock file can stall the
 * milter's writer (its mutex is in there) or pin every page it would
 * reuse.  A reader that may not write the lock file (a maintainer in the
 * group) opens the file without it (MDB_NOLOCK, unlocked): the milter
 * then does not know of its snapshot, and may reuse the pages the
 * snapshot reads.  LMDB's writer takes a page for reuse only when it
 * was freed two transactions before its own or earlier, so a snapshot
 * stays whole until the writer's second commit after it; an unlocked
 * read therefore checks, once done and before anything it read is
 * used, that the file's last commit is at most one past its snapshot
 * (ledger_txn_settled()), and reads again when it is not, in chunks
 * that end at the first commit after their snapshot
 * (ledger_txn_moved()).  A page can then be rewritten under a read only
 * when two of the writer's commits, each a batch that gathered for
 * LEDGER_GATHER_MS, fall within the reading of one record; LMDB, which
 * asserts what it expects of the pages it walks, would otherwise stop
 * a reader that met one.  What an unsettled read found damaged
 * is not reported (a reused page looks damaged); values are bounded
 * (LEDGER_VALUE_MAX) before they are read, and each record's checksum
 * still stands behind all of this.
 */
#ifndef PA_LEDGER_INT_H
#define PA_LEDGER_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <lmdb.h>

#include "copies.h"
#include "store-int.h"

#define LEDGER_FORMAT		"patchattest ledger 1"
#define LEDGER_QUEUE_MAX	4096	/* records waiting to be written */
#define LEDGER_KEY_LEN		16	/* time and sequence */
#define LEDGER_MSGID_VAL_LEN	(4 + LEDGER_KEY_LEN)
#define LEDGER_COPIES_VAL_LEN	8
#define LEDGER_READ_TRIES	100	/* unlocked reads of one chunk */
/* An unlocked read that did not settle, among LMDB's codes, ours. */
#define LEDGER_UNSETTLED	(MDB_LAST_ERRCODE + 1)
/* Mapped past the file for an unlocked reader: a page rewritten as it
   is read cannot lead LMDB to read past the map. */
#define LEDGER_MAP_SLACK	((size_t)1 << 20)

struct ledger_lmdb {
	struct ledger		 base;		/* first: the handle */
	MDB_env			*env;
	MDB_dbi			 meta, records, msgid, patchid, habits,
				 copies;
	int			 has_copies;	/* copies is there */
	char			*path;
	unsigned		 retention_days;
	uint64_t		 max_size;	/* in use at most; 0: any */
	atomic_uint_least64_t	 used;		/* at the last commit */
	atomic_uint_least64_t	 file_bytes;	/* the file's size, at the
						   last commit */
	size_t			 mapsize;
	atomic_int		 damaged;	/* the file was cut */
	int			 unlocked;	/* read without the lock
						   file: reads check that
						   they settled */
	pthread_rwlock_t	 maplock;

	/* The queue, a ring of LEDGER_QUEUE_MAX, and its writer */
	pthread_mutex_t		 lock;
	pthread_cond_t		 wake;		/* to the writer */
	pthread_cond_t		 done;		/* from the writer */
	struct arrival		**queue;	/* each record its own
						   allocation; NULL:
						   read-only */
	size_t			 head, count;
	struct arrival		**spare;	/* written, kept for the
						   next records */
	size_t			 nspare;
	uint64_t		 committed;	/* records written, ever */
	uint64_t		 accepted;	/* records accepted before
						   the one at head, ever */
	uint64_t		 failures;	/* commits that failed, ever */
	struct pa_err		 fault;		/* the last failure's reason */
	int			 stopping;
	unsigned		 hurry;		/* ledger_sync()s waiting */
	int			 writer_running;
	pthread_t		 writer;

	struct copy_news	 news;		/* of the last batch */
};

/*
 * ledger_fail - "WHAT the arrival records at PATH: REASON" for LMDB's
 * code rc (or LEDGER_UNSETTLED); PA_ERROR
 */
int	ledger_fail(const struct ledger_lmdb *, struct pa_err *, const char *what,
	    int rc);
/* ledger_intact - 0, or PA_ERROR when the file was cut under us */
int	ledger_intact(const struct ledger_lmdb *, struct pa_err *);
/*
 * ledger_txn_begin - a transaction (flags: MDB_RDONLY or 0) with maplock
 * held for reading, the map adopted when another process grew it;
 * ledger_txn_end() aborts it (when txn is not NULL) and lets go of maplock
 */
int	ledger_txn_begin(struct ledger_lmdb *, unsigned int flags, MDB_txn **);
void	ledger_txn_end(struct ledger_lmdb *, MDB_txn *);
/*
 * ledger_txn_settled - whether what the read transaction txn read may be
 * used: always with the lock file; unlocked, when the writer committed
 * at most once since its snapshot (see above).  Before ledger_txn_end().
 */
int	ledger_txn_settled(struct ledger_lmdb *, MDB_txn *);
/*
 * ledger_txn_moved - unlocked, whether the writer committed since txn's
 * snapshot: a walk ends its chunk there, while the chunk still settles,
 * so that what it reads is never exposed to more than the reading of
 * one record (with the lock file, never)
 */
int	ledger_txn_moved(struct ledger_lmdb *, MDB_txn *);

/*
 * ledger_grow - the map made twice as large, up to LEDGER_MAPSIZE_MAX: 0,
 * or the LMDB code (MDB_MAP_FULL when it is as large as it may be)
 */
int	ledger_grow(struct ledger_lmdb *);

/*
 * ledger_used - the bytes of the file in use in txn (the pages of its
 * databases) into *bytes: 0, or LMDB's error
 */
int	ledger_used(const struct ledger_lmdb *, MDB_txn *, uint64_t *bytes);

/* ledger_time_key - the records key of (t, seq) into key */
void	ledger_time_key(unsigned char key[LEDGER_KEY_LEN], time_t t,
	    uint64_t seq);
time_t	ledger_key_time(const unsigned char key[LEDGER_KEY_LEN]);
/*
 * ledger_msgid_hash - a's message_id_sha256, or the hash of message_id:
 * 0, or PA_ENOMEM
 */
int	ledger_msgid_hash(const struct arrival *, unsigned char out[32]);

#define LEDGER_META_SEQ		"seq"
#define LEDGER_META_ACCEPTED	"accepted"

/*
 * ledger_meta_get - the number under name in meta into *v (0 when there
 * is none): 0, or LMDB's error; ledger_meta_put() writes it
 */
int	ledger_meta_get(struct ledger_lmdb *, MDB_txn *, const char *name,
	    uint64_t *v);
int	ledger_meta_put(struct ledger_lmdb *, MDB_txn *, const char *name,
	    uint64_t v);

/*
 * ledger_commit - n records of the ring (from head, which ledger_record()
 * accepted as record number accepted + 1) in one transaction,
 * with their index entries and habits, and a bounded number of records
 * older than the retention, or beyond max_size, removed; the file synced
 * and l->used set.  0, or LMDB's (or the system's) error code with err
 * saying why; nothing is written then.
 */
int	ledger_commit(struct ledger_lmdb *, size_t head, size_t n,
	    uint64_t accepted, time_t now, struct pa_err *);
/*
 * ledger_copies_get - the copies of the Message-ID hashed in hk, in txn,
 * into *cs, and the first kept one into *first when first is not NULL:
 * 1 when it is read, 0 when not (none, gone or damaged), or LMDB's
 * error, negated
 */
int	ledger_copies_get(struct ledger_lmdb *, MDB_txn *, const MDB_val *hk,
	    struct ledger_copies *cs, struct arrival *first);

/*
 * One walk over records (ledger-walk.c), in read transactions: with the
 * lock file one, else chunks of them that check they settled (see
 * above): the function to call, and what came of it.  A walk's reader
 * loops: ledger_walk_begin() a transaction, reads in it (each record
 * through ledger_walk_visit(), until ledger_walk_full() or
 * ledger_walk_moved() end the chunk), ledger_walk_end(), and again while
 * ledger_walk_again() or its own chunks say so; then frees held.
 */
struct walk {
	struct ledger_lmdb	 *l;
	MDB_txn		 *txn;
	int		(*fn)(void *, const struct arrival *);
	void		 *arg;
	struct pa_err	 *err;
	size_t		  found;
	/* unlocked: the chunk's records, for fn once it settled */
	struct arrival	 *held;		/* made at the first */
	size_t		  nheld;
	int		  again;	/* the chunk did not settle */
	int		  tries;	/* of this chunk */
};

void	ledger_walk_init(struct walk *, struct ledger_lmdb *,
	    int (*fn)(void *, const struct arrival *), void *arg,
	    struct pa_err *err);
/* ledger_walk_begin - a chunk's transaction (the whole walk's with the
   lock) */
int	ledger_walk_begin(struct walk *);
/*
 * ledger_walk_end - the transaction ended.  Unlocked, a chunk that did
 * not settle drops what it found, sets again and gives 0; one that did
 * passes its records to fn.  Then: stop (what fn returned, or an error
 * of ours) when not 0, else LMDB's rc as an error when it is one
 * (MDB_NOTFOUND is none), else 0.
 */
int	ledger_walk_end(struct walk *, int stop, int rc);
/*
 * ledger_walk_again - after ledger_walk_end(), whether the chunk is to be
 * read again; past LEDGER_READ_TRIES it is not, and *rc says why
 */
int	ledger_walk_again(struct walk *, int *rc);
/* ledger_walk_full - an unlocked chunk holds all it may: it ends there */
int	ledger_walk_full(const struct walk *);
/*
 * ledger_walk_moved - an unlocked chunk that holds a record, once the
 * writer committed after its snapshot: it ends there (one record at
 * least, so that a walk goes on however often the writer commits)
 */
int	ledger_walk_moved(struct walk *);
/*
 * ledger_walk_visit - the record v under k to fn (fn's value), or held
 * for it when unlocked (0); PA_ERROR, said, when it is damaged.  A value
 * longer than any record is damage, not read.
 */
int	ledger_walk_visit(struct walk *, const MDB_val *k, const MDB_val *v);

/* lmdb_ledger - the LMDB store of the handle base */
#define lmdb_ledger(base)	((struct ledger_lmdb *)(void *)(base))

/* The operations of the LMDB store (store-int.h), in ledger-read.c and
   ledger-write.c */
int	lmdb_ledger_record(struct ledger *, const struct arrival *,
	    struct pa_err *);
int	lmdb_ledger_sync(struct ledger *, struct pa_err *);
size_t	lmdb_ledger_pending(struct ledger *);
int	lmdb_ledger_by_message_id_bytes(struct ledger *, const char *, size_t,
	    int (*)(void *, const struct arrival *), void *, struct pa_err *);
int	lmdb_ledger_by_patch_id(struct ledger *, const char *,
	    int (*)(void *, const struct arrival *), void *, struct pa_err *);
int	lmdb_ledger_each(struct ledger *, time_t, time_t,
	    int (*)(void *, const struct arrival *), void *, struct pa_err *);
int	lmdb_ledger_habit(struct ledger *, const char *, struct habit *,
	    struct pa_err *);
void	lmdb_ledger_lookup(struct ledger *, const struct state_ask *,
	    struct state_lookup *);
int	lmdb_ledger_copies(struct ledger *, const char *, size_t,
	    struct ledger_copies *, struct pa_err *);
void	lmdb_ledger_watch(struct ledger *,
	    void (*)(void *, const struct ledger_copy_event *), void *);
int	lmdb_ledger_size(struct ledger *, struct ledger_size *);
int	lmdb_ledger_habits(struct ledger *, const char *,
	    int (*)(void *, const char *, const struct habit_state *), void *,
	    struct pa_err *);

/* ledger_writer_start, _stop - the writer thread (ledger-write.c) */
int	ledger_writer_start(struct ledger_lmdb *, struct pa_err *);
void	ledger_writer_stop(struct ledger_lmdb *);

#endif
