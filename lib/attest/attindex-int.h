/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attindex-int.h - what the parts of the index (attindex.c: opening,
 * transactions, growing; attindex-ops.c: the writes; attindex-read.c:
 * reading) share.
 */
#ifndef PA_ATTINDEX_INT_H
#define PA_ATTINDEX_INT_H

#include <sys/types.h>

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <lmdb.h>

#include "attindex.h"
#include "base.h"

#define IDX_MAP_INITIAL	((uint64_t)1 << 30)
#if SIZE_MAX > 0xffffffffu
#define IDX_MAP_MAX	((uint64_t)64 << 30)
#else
#define IDX_MAP_MAX	IDX_MAP_INITIAL		/* no room to grow */
#endif
#define IDX_MAXREADERS	512
#define IDX_MAXDBS	8
#define IDX_JOURNAL_MAX	((size_t)1 << 30)
#define IDX_MAX_TRIPLES	(1u << 22)
#define IDX_MAX_NAME	511		/* longest database name dropped */

#define ATTID_LEN	MSGHASH_ATTID_LEN
#define ATT_VLEN	128		/* i|m|p|docid */
#define BYI_VLEN	96		/* m|p|docid */

#define SCHEMA_KEY	"schema"
#define SCHEMA_1	"patchattest-index 1"	/* records without checksums */
#define MARK_PREFIX	"mark:"
#define MARK_PREFIX_LEN	5

/* Journal operations, replayed in order after the map has grown. */
enum jop {
	J_SETUP = 'S',		/* no payload */
	J_PUT = 'P',		/* docid, record */
	J_REMOVE = 'R',		/* docid */
	J_MARKS = 'M'		/* (u8 len, name, u8 len, value)... */
};

struct attindex {
	MDB_env			*env;
	MDB_dbi			 meta, docs, att, byi;
	MDB_txn			*wtxn;		/* LMDB's, NULL when lost */
	int			 writable;
	int			 intxn;		/* between begin and commit */
	int			 wfailed;	/* a write failed: only abort */
	int			 foreign;	/* setup found no index of ours */
	size_t			 upgraded;	/* records setup upgraded */
	dev_t			 dev;		/* data.mdb as opened */
	ino_t			 ino;
	pthread_rwlock_t	 maplock;	/* held exclusively to remap */
	struct mapguard_region	*guard;		/* the map, watched */
	atomic_int		 damaged;	/* the file lost pages */
	_Atomic off_t		 size_seen;	/* of data.mdb, largest */
	struct sbuf		 journal;	/* the writes since begin */
	struct sbuf		 rec;		/* encoding scratch */
	struct sbuf		 scratch;	/* triples of a doc removed */
	char			 oldstamp[80];
	char			 path[PATH_MAX];
};

/* attindex-txn.c, below the other three files */

/* idx_mdb_err - "WHAT index at PATH: REASON[ (HINT)]" */
void	idx_mdb_err(const struct attindex *, struct pa_err *, const char *,
	    int);
/*
 * idx_intact - 0 while the file is no shorter than it was (LMDB never
 * shrinks it: a shorter one was cut by someone else, and its map would
 * fault); else PA_ERROR with err saying so, for good
 */
int	idx_intact(struct attindex *, struct pa_err *);
/* idx_watch - the map, as it is now, watched for faults (maplock held) */
void	idx_watch(struct attindex *);
/* rbegin - a read transaction, with maplock held shared until rend() */
int	rbegin(struct attindex *, MDB_txn **, struct pa_err *);
void	rend(struct attindex *, MDB_txn *);
/* wcheck - 0 when a write transaction is open and usable */
int	wcheck(struct attindex *, struct pa_err *);

/* attindex-ops.c */

/* idx_apply - one journal operation in h->wtxn; an LMDB or errno code */
int	idx_apply(struct attindex *, int op, const unsigned char *p,
	    size_t len);

#endif
