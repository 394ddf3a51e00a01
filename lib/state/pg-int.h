/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-int - the PostgreSQL stores behind pins.h and ledger.h, shared by
 * their files: pg-conn.c (connections, timeouts, the password kept out of
 * messages), pg-schema.c (the tables), pg-pins.c, pg-ledger.c (open,
 * close, ledger_record into the journal), pg-journal.c and the pg-j*.c
 * files (the local journal, pg-journal-int.h), pg-batch.c (records
 * written a batch at a time), pg-send.c (the thread that sends the
 * journal), pg-lookup.c (what a message reads, in one statement),
 * pg-read.c, and pg-import.c (a node's files brought in).
 *
 * struct pgdb is a pool of connections to one database: a thread takes
 * one for a statement or a transaction and gives it back.  Each wait is
 * bounded: connect_ms to connect, timeout_ms for a statement's answer.
 * A connection that fails is closed and the database counts as away:
 * every use fails at once with the same reason, but for one thread at a
 * time that tries to connect again, a moment later (under a second);
 * notice hears each change.  An idle connection the server spoke to (it
 * ended it) is closed instead of being used.
 */
#ifndef PA_PG_INT_H
#define PA_PG_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "copies.h"
#include "statedb.h"
#include "store-int.h"

#define PGDB_POOL_MAX		64	/* connections kept idle */
#define PGDB_SECRET_MAX		256	/* a password that can be scrubbed */
#define PGDB_PASSFILE_MAX	1024

struct pgdb {
	char			*conninfo;
	const char		*key;		/* the key it came from */
	char			 where[160];	/* "database D on H", no secret */
	char			 secret[PGDB_SECRET_MAX];	/* "" none */
	/* The password libpq looks for (pg-passfile.c): none when the
	   string or PGPASSWORD gives it; else in passfile, which is ours
	   to name (pass_ours) unless passfile= or PGPASSFILE names it. */
	int			 pass_given;
	int			 pass_ours;
	char			 passfile[PGDB_PASSFILE_MAX];	/* "" none */
	char			 as[64];	/* the user we connect as */
	unsigned		 connect_ms, timeout_ms;
	struct statedb_notice	 notice;
	pthread_mutex_t		 lock;
	PGconn			*idle[PGDB_POOL_MAX];
	size_t			 n_idle;
	int			 away;		/* the database is away */
	int			 probing;	/* a thread tries it again */
	struct timespec		 retry_at;	/* not tried before (monotonic) */
	unsigned		 retry_ms;	/* after the last attempt */
	char			 why[256];	/* why it is away */
};

/*
 * pgdb_new - a pool for StateDatabase, or for StateDatabaseReader when
 * it is set and the pool is not to write (writable 0)
 */
int	pgdb_new(struct pgdb **out, const struct pa_config *, int writable,
	    const struct statedb_notice *, struct pa_err *);
void	pgdb_free(struct pgdb *);
/* pgdb_get - a connection (idle or new): 0, or PA_ERROR (err says why) */
int	pgdb_get(struct pgdb *, PGconn **out, struct pa_err *);
/* pgdb_put - conn back; broken: closed, and the database counts as away */
void	pgdb_put(struct pgdb *, PGconn *, int broken);
/*
 * pgdb_exec - one statement with n text parameters (NULL: SQL NULL) on
 * conn, waiting timeout_ms at most: its result in *res (the caller
 * PQclear()s it) and 0, or PA_ERROR with err saying why and the
 * connection to be put back broken (*broken) when it failed
 */
int	pgdb_exec(struct pgdb *, PGconn *, const char *sql, int n,
	    const char *const *params, unsigned timeout_ms, PGresult **res,
	    int *broken, struct pa_err *);
/* pgdb_query - pgdb_exec on a connection of the pool */
int	pgdb_query(struct pgdb *, const char *sql, int n,
	    const char *const *params, PGresult **res, struct pa_err *);
/*
 * pgdb_fail - "WHAT the state database (WHERE): REASON" without secret,
 * REASON (libpq's) on one line and cut after a whole word when long: it
 * goes into the reasons of header fields
 */
int	pgdb_fail(const struct pgdb *, struct pa_err *, const char *what,
	    const char *reason);
/* pgdb_scrub - every copy of the password in s replaced by "***" */
void	pgdb_scrub(const struct pgdb *, char *s);

/*
 * pg-passfile.c: pgdb_passfile - db's pass_given, pass_ours, passfile
 * and as, from the string's options opts, the environment and the user
 * the process runs as.  pgdb_passfile_state - what libpq makes of db's
 * passfile, said into out (a phrase naming it): PGDB_PASS_*.
 */
enum pgdb_pass {
	PGDB_PASS_GIVEN,	/* no passfile is read: the password is given */
	PGDB_PASS_NONE,		/* no passfile can be named */
	PGDB_PASS_READ,		/* there, and libpq reads it */
	PGDB_PASS_MISSING,	/* not there */
	PGDB_PASS_IGNORED,	/* there, and libpq ignores it or cannot
				   read it */
};
void	pgdb_passfile(struct pgdb *, const PQconninfoOption *opts);
enum pgdb_pass pgdb_passfile_state(const struct pgdb *, char *out,
	    size_t size);

/* pg-schema.c: the schema's version on conn into *version (0: none) */
int	pg_schema_version(struct pgdb *, PGconn *, int *version,
	    struct pa_err *);

/*
 * The local journal (pg-journal.c, pg-journal-int.h): a file of arrival
 * records that wait to be sent, in the order put, each with a sequence
 * number and a record id of its own (random, 32 hex digits) that makes a
 * second sending of it a no-op.  Damage found in it is told to the
 * notice's damaged (when there is one), never a crash: what can be read
 * is kept, the rest set aside in PATH-damaged and counted.
 * journal_take(), journal_sync() and journal_remove() are the sender's,
 * from one thread; the others from any.
 */
struct journal;

struct journal_entry {
	uint64_t	 seq;			/* order in the journal */
	char		 record_id[33];
	struct arrival	 a;
};

/* journal_open - the journal at path, made when missing, converted from
   the LMDB journal of earlier versions, damage set aside and told */
int	journal_open(struct journal **out, const char *path,
	    const struct statedb_notice *, struct pa_err *);
void	journal_close(struct journal *);
/*
 * journal_left - the seq of the last entry put (*put), and *put less the
 * entries still there (*sent): entries leave once sent
 */
void	journal_left(struct journal *, uint64_t *put, uint64_t *sent);
/* journal_put - a appended (on the disk at the next sync): its seq */
int	journal_put(struct journal *, const struct arrival *a, uint64_t *seq,
	    struct pa_err *);
/* journal_sync - every entry put so far on the disk */
int	journal_sync(struct journal *, struct pa_err *);
/* journal_take - the first max entries (at most) into e, *n of them,
   synced first; one found damaged is set aside and passed */
int	journal_take(struct journal *, struct journal_entry *e, size_t max,
	    size_t *n, struct pa_err *);
/* journal_remove - the n entries of e (sent) removed, the file synced */
int	journal_remove(struct journal *, const struct journal_entry *e,
	    size_t n, struct pa_err *);
/*
 * journal_each_msgid - fn on each record in the journal (not yet sent)
 * whose Message-ID hashes to msgid (ledger_msgid_hash()), in the order
 * put, until fn returns non-zero (which it returns): 0, or PA_ENOMEM.
 * fn runs with the journal locked and must not use it.
 */
int	journal_each_msgid(struct journal *, const unsigned char msgid[32],
	    int (*fn)(void *, const struct journal_entry *), void *arg,
	    struct pa_err *);
/*
 * journal_check - whether the journal at path (or its PATH-damaged) has
 * damage to say, read without a change (-n): 0, or PA_ERROR saying it
 */
int	journal_check(const char *path, struct pa_err *);

struct ledger_pg {
	struct ledger		 base;		/* first: the handle */
	struct pgdb		*db;
	struct journal		*journal;	/* NULL: read-only */
	unsigned		 retention_days;
	/* the sender thread (pg-send.c) */
	pthread_mutex_t		 lock;
	pthread_cond_t		 wake;		/* to the sender */
	pthread_cond_t		 done;		/* from the sender */
	uint64_t		 put_seq;	/* the latest seq put */
	uint64_t		 sent_seq;	/* all up to it are sent */
	uint64_t		 failures;	/* batches that failed, ever */
	struct pa_err		 fault;		/* the last failure's reason */
	int			 stopping;
	unsigned		 hurry;		/* ledger_sync()s waiting */
	int			 sender_running;
	pthread_t		 sender;
	struct copy_news	 news;		/* of the last batch */
};

#define pg_ledger(base)	((struct ledger_pg *)(void *)(base))

int	pg_sender_start(struct ledger_pg *, struct pa_err *);
void	pg_sender_stop(struct ledger_pg *);

/*
 * A transaction on a connection of the pool (pg-batch.c): pg_txn_begin()
 * takes the connection and begins, pg_txn_exec() runs a statement in it
 * (as pgdb_exec(), under timeout_ms; res NULL: the result dropped),
 * pg_txn_end() commits when rc is 0, else rolls back, and puts the
 * connection back: rc, or the commit's failure.  Each says why in err.
 */
struct pg_txn {
	struct pgdb	*db;
	PGconn		*conn;
	int		 broken;
	unsigned	 timeout_ms;
	struct pa_err	*err;
};

int	pg_txn_begin(struct pg_txn *, struct pgdb *, unsigned timeout_ms,
	    struct pa_err *);
int	pg_txn_exec(struct pg_txn *, const char *sql, int n,
	    const char *const *params, PGresult **res);
int	pg_txn_end(struct pg_txn *, int rc);
/*
 * pg_habit_lock - identity's habit, locked in t until it ends, into hs
 * (*found 1), or an empty one of identity (*found 0); pg_habit_write()
 * writes hs as identity's habit
 */
int	pg_habit_lock(struct pg_txn *, const char *identity,
	    struct habit_state *hs, int *found);
int	pg_habit_write(struct pg_txn *, const struct habit_state *hs);

#define PG_BATCH_MAX	256	/* records in one transaction */

/*
 * What an import says of each record of a batch (pg_batch_send()'s imp,
 * one for each entry), and hears of it.
 */
enum pg_put_result {
	PG_PUT_NEW,		/* written */
	PG_PUT_THERE,		/* its record id was there: imported before */
	PG_PUT_UNKEPT		/* a copy past those the database keeps */
};

struct pg_import_put {
	/* copies of its Message-ID that the file had before it (its copy
	   less 1): it is numbered after as many at least */
	unsigned		 before;
	/* the file's count of the copies of its Message-ID when it is the
	   last the file keeps and more arrived; arrived 0: none */
	struct ledger_copies	 file;
	enum pg_put_result	 result;
};

/*
 * pg_batch_send - the n entries of e (n <= PG_BATCH_MAX) in one
 * transaction (pg-batch.c): 0, or an error (err says why; nothing is
 * written then).  imp NULL: the journal's records, as the sender sends
 * them; else a StateFile's (pg-import.c), which teach no habit.
 */
int	pg_batch_send(struct ledger_pg *, const struct journal_entry *e,
	    size_t n, struct pg_import_put *imp, struct pa_err *);
/*
 * pg_lookup - state_lookup() in one statement on db (pg-lookup.c): the
 * pins of names[0..out->n) (each canonical, or NULL: none can be) when
 * with_pins, and what ask asks of the ledger, whose journal j (NULL:
 * none) holds the records not yet sent
 */
void	pg_lookup(struct pgdb *db, struct journal *j,
	    const char *const *names, int with_pins,
	    const struct state_ask *ask, struct state_lookup *out);
/* the reads (pg-lookup.c, pg-read.c), as ledger.h's and store-int.h's */
void	pg_ledger_lookup(struct ledger *, const struct state_ask *,
	    struct state_lookup *);
int	pg_ledger_by_message_id(struct ledger *, const char *, size_t,
	    int (*)(void *, const struct arrival *), void *, struct pa_err *);
int	pg_ledger_by_patch_id(struct ledger *, const char *,
	    int (*)(void *, const struct arrival *), void *, struct pa_err *);
int	pg_ledger_each(struct ledger *, time_t, time_t,
	    int (*)(void *, const struct arrival *), void *, struct pa_err *);
int	pg_ledger_habit(struct ledger *, const char *, struct habit *,
	    struct pa_err *);
int	pg_ledger_copies(struct ledger *, const char *, size_t,
	    struct ledger_copies *, struct pa_err *);
/* an arrival record's columns, as pg_arrival_row() reads them */
#define PG_ARRIVAL_COLUMNS \
	"message_id, encode(message_id_sha256, 'hex'), copy, " \
	"extract(epoch FROM arrived)::bigint, envelope_from, author, " \
	"identity, subject, list_id, has_patch, i, m, p, m_core, patch_id, " \
	"trailers, result, v01, patatt, key, signed_trusted, dkim, algo, " \
	"selector, offered, host, queue_id, differs, parts"
#define PG_ARRIVAL_NCOLUMNS	29
/* pg_arrival_row - row i of res, PG_ARRIVAL_COLUMNS from col, into a */
void	pg_arrival_row(const PGresult *res, int i, int col,
	    struct arrival *a);
/* the copies of the Message-ID hashed in $1 (hex), for pg_copies_row() */
#define PG_COPIES_COLUMNS \
	"k.n, k.top, coalesce(s.arrived, 0), coalesce(s.differing, 0)"
#define PG_COPIES_FROM \
	"(SELECT count(*) AS n, coalesce(max(copy), 0) AS top FROM arrival " \
	"WHERE message_id_sha256 = decode($1, 'hex')) k LEFT JOIN " \
	"arrival_copies s ON s.message_id_sha256 = decode($1, 'hex')"
/*
 * pg_copies_row - row i of res from col: the kept copies, the highest
 * copy number, and arrival_copies' arrived and differing (0 when none),
 * into out
 */
void	pg_copies_row(const PGresult *res, int i, int col,
	    struct ledger_copies *out);
/* pg_unhex - 2 * n hex digits h into out (n bytes); left as it is when
   h is not that */
void	pg_unhex(void *out, size_t n, const char *h);
/* a habit's columns, as pg_habit_row() reads them from its col on */
#define PG_HABIT_COLUMNS \
	"key, recent, recent_signed, run, " \
	"coalesce(extract(epoch FROM first_signed)::bigint, 0), " \
	"coalesce(extract(epoch FROM last_signed)::bigint, 0)"
/* pg_habit_row - row i of res, PG_HABIT_COLUMNS from col, into out */
void	pg_habit_row(const PGresult *res, int i, int col,
	    const char *identity, struct habit *out);
/*
 * pg_text - s as PostgreSQL text into out (size bytes): bytes that are
 * not UTF-8 become '?', so that no record is refused for its encoding
 */
void	pg_text(char *out, size_t size, const char *s);

/* The stores (pg-pins.c, pg-ledger.c) */
int	pg_pins_open(struct pins **out, const struct pa_config *,
	    int writable, const struct statedb_notice *, struct pa_err *);
int	pg_ledger_open(struct ledger **out, const struct pa_config *,
	    int writable, const struct statedb_notice *, struct pa_err *);

#endif
