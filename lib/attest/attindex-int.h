/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attindex-int.h - what the parts of the index share: attindex.c
 * (opening), attindex-write.c (transactions, the journal, growing),
 * attindex-ops.c (the writes), attindex-schema.c (the stamp, and the
 * upgrade of earlier schemas), attindex-store.c (a document filed and
 * unfiled), attindex-read.c (reading), attindex-txn.c (their bottom).
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
#define PREFIX_LEN	12		/* an ID's bytes: i, m, p's first 4 */
#define NUM_LEN		4		/* a document's number, big-endian */
#define KEY_LEN		(PREFIX_LEN + NUM_LEN)	/* an attids key */
#define DOCKEY_LEN	16		/* a docids key: a docid's start */
#define NUM_MAX		UINT32_MAX	/* numbers are never given twice */
#define IDX_SCAN_MAX	1024	/* attids entries one lookup reads */

#define SCHEMA_KEY	"schema"
#define NEXT_KEY	"next"		/* the number the next document gets */
#define SCHEMA_1	"patchattest-index 1"	/* records without checksums */
#define SCHEMA_2	"patchattest-index 2"	/* docs, att, byi */
#define SCHEMA_3	"patchattest-index 3"	/* records, docids, attids */
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
	MDB_dbi			 meta, recs, ids, att;
	MDB_txn			*wtxn;		/* LMDB's, NULL when lost */
	int			 writable;
	int			 intxn;		/* between begin and commit */
	int			 wfailed;	/* a write failed: only abort */
	int			 foreign;	/* setup found no index of ours */
	int			 oldrec;	/* setup met a damaged record */
	size_t			 upgraded;	/* records setup upgraded */
	dev_t			 dev;		/* data.mdb as opened */
	ino_t			 ino;
	pthread_rwlock_t	 maplock;	/* held exclusively to remap */
	struct mapguard_region	*guard;		/* the map, watched */
	atomic_int		 damaged;	/* the file lost pages */
	_Atomic off_t		 size_seen;	/* of data.mdb, largest */
	struct sbuf		 journal;	/* the writes since begin */
	struct sbuf		 rec;		/* encoding scratch */
	struct sbuf		 scratch;	/* triples of a doc removed,
						   a record upgraded */
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

/* attindex-store.c, above attindex-txn.c */

/* idx_prefix - the 12 bytes an attestation ID stands for, of triple t */
void	idx_prefix(unsigned char out[PREFIX_LEN], const unsigned char *t);
/* idx_rec_get - the record numbered num (MDB_NOTFOUND when there is none) */
int	idx_rec_get(struct attindex *, MDB_txn *, uint32_t num, MDB_val *);
/*
 * idx_doc_add - the document record rec (of attrec_encode(), checked by
 * the caller) under a new number, with its ID's and triples' entries
 */
int	idx_doc_add(struct attindex *, MDB_txn *, const unsigned char *rec,
	    size_t len);
/*
 * idx_doc_find - the number and record of document docid; MDB_NOTFOUND
 * when it is not indexed, MDB_CORRUPTED when its entry leads to another
 * document's record
 */
int	idx_doc_find(struct attindex *, MDB_txn *, const unsigned char *docid,
	    uint32_t *num, MDB_val *rec);
/* idx_doc_del - document docid and its entries; MDB_NOTFOUND when absent */
int	idx_doc_del(struct attindex *, MDB_txn *, const unsigned char *docid);

/* attindex-schema.c */

/*
 * idx_setup - the writer's first transaction: check the stamp, make the
 * databases of a new index, upgrade one of an earlier schema
 */
int	idx_setup(struct attindex *, MDB_txn *);
/* idx_open_dbs - the databases of this schema (flags: MDB_CREATE or 0) */
int	idx_open_dbs(struct attindex *, MDB_txn *, unsigned flags);

/* attindex-ops.c */

/* idx_apply - one journal operation in h->wtxn; an LMDB or errno code */
int	idx_apply(struct attindex *, int op, const unsigned char *p,
	    size_t len);

/* attindex-write.c */

/* idx_wapply - apply an operation, growing the map as needed; journal it */
int	idx_wapply(struct attindex *, int op, const void *p, size_t len,
	    struct pa_err *);

#endif
