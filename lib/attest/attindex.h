/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attindex - the persistent index of attestations (LMDB).
 *
 * One writer and any number of readers in any number of processes; every
 * read runs in its own short read transaction, so milter threads never
 * share one.  The environment is opened with MDB_NOTLS.
 *
 * Contents:
 *  - documents, each known by its docid (SHA-256 of the clearsigned
 *    block): the signature check's result, the signing key's fingerprint
 *    and the user IDs it had, signature time, where the document came
 *    from, its Message-ID, and its triples (i, m, p);
 *  - the documents of each attestation ID, several per ID, and through
 *    them the records of an i, to tell which part of a patch changed;
 *  - archive marks (progress per epoch) and a schema stamp.
 * Storing a document twice changes nothing.  Hits come in the order of
 * their attestation IDs, then in the order their documents were stored.
 *
 * Damage: LMDB keeps no checksums, so each document record carries one
 * (attrec.c), and a lookup checks the record and that the entry which
 * led to it is one of the record's triples; a mismatch is an error ("is
 * damaged"), never a record.  A data file that is there but empty,
 * shorter than the pages it uses, not an LMDB file, or without our
 * schema stamp is damaged too: only a missing one makes a new index.
 * An index of schema 1 (records without checksums), 2 (the larger
 * layout) or 3 (wider keys, larger records) is upgraded in place by a
 * writer (err says so) and refused by a reader until then, saying so;
 * any other stamp is refused by both.
 *
 * Lifecycle: attindex_open() ... attindex_close().  Writes happen between
 * attindex_begin() and attindex_commit() (or attindex_abort()); a crash
 * before commit leaves the index as it was.  After a failed write only
 * attindex_abort() is left.  attindex_has(), attindex_get_marks() and
 * attindex_stats() inside a write transaction see its writes; lookups
 * always see the last commit.
 *
 * Threads: one handle serves lookups from any number of threads at once;
 * a write transaction belongs to the thread that began it.  One process
 * opens a given index once (an LMDB rule).
 *
 * Errors: 0 or a negative PA_E* code, with a sentence in err.  A writable
 * attindex_open() may return 0 with a non-empty err.msg (the index was
 * upgraded): the caller shows it.
 */
#ifndef PA_ATTINDEX_H
#define PA_ATTINDEX_H

#include <stddef.h>
#include <time.h>

#include "archive.h"
#include "attdoc.h"
#include "patchattest.h"
#include "sig.h"

#define ATTINDEX_SCHEMA	"patchattest-index 4"

struct att_docinfo {
	unsigned char		 docid[32];
	enum pgp_sigstatus	 status;
	time_t			 when;			/* signature time */
	char			 fpr[PGP_FPR_MAX];	/* signing key */
	char			 uids[1024];	/* "Name <addr>" lines */
	char			 where[256];	/* archive entry or "mail" */
	char			 msgid[256];
};

struct att_hit {
	struct att_triple	 t;
	struct att_docinfo	 doc;
};

struct attindex;

/*
 * attindex_open - the index at path (a directory), made if writable; a
 * read-only open of an index that was never made is PA_ENOTFOUND
 */
int	attindex_open(struct attindex **, const char *path, int writable,
	    struct pa_err *);
void	attindex_close(struct attindex *);

/*
 * attindex_damaged - the index's file was found cut short by something
 * else (truncated under its memory map): every call fails from then on
 * with a message saying so; close the handle and open the index again
 */
int	attindex_damaged(struct attindex *);

/*
 * attindex_replaced - 1 when the index's data file is gone or is another
 * file than the one open (removed and made again, or moved over it):
 * close the handle and open the index again.  One stat(), no LMDB call.
 */
int	attindex_replaced(struct attindex *);

/*
 * attindex_file - the data file of the index at path into buf (0), or
 * PA_ETOOBIG when it does not fit
 */
int	attindex_file(char *buf, size_t size, const char *path);

int	attindex_begin(struct attindex *, struct pa_err *);
int	attindex_commit(struct attindex *, struct pa_err *);
void	attindex_abort(struct attindex *);

/* attindex_put - one document and its triples (in a write transaction) */
int	attindex_put(struct attindex *, const struct att_docinfo *,
	    const struct att_triple *, size_t n, struct pa_err *);

/* attindex_remove - a document and its triples; PA_ENOTFOUND if absent */
int	attindex_remove(struct attindex *, const unsigned char docid[32],
	    struct pa_err *);

/* attindex_has - 1 when the document is indexed, 0 if not, or PA_ERROR */
int	attindex_has(struct attindex *, const unsigned char docid[32]);

/*
 * attindex_get_marks - the archive marks, in name order (PA_ETOOBIG when
 * there are more than max); attindex_set_marks - replace them all with
 * these (in a write transaction, best the one of the entries they mark).
 */
int	attindex_get_marks(struct attindex *, struct archive_mark *, size_t max,
	    size_t *n, struct pa_err *);
int	attindex_set_marks(struct attindex *, const struct archive_mark *,
	    size_t n, struct pa_err *);

/*
 * attindex_lookup - the records of attestation ID attid (26 characters,
 * either case; anything else has no records).
 * Fills at most max hits; *n is how many.  Returns 0 (also with *n == 0)
 * or an error when the index cannot be read.
 */
int	attindex_lookup(struct attindex *, const char *attid,
	    struct att_hit *hits, size_t max, size_t *n, struct pa_err *);

/* attindex_lookup_i - likewise, every record with this i */
int	attindex_lookup_i(struct attindex *, const unsigned char i[32],
	    struct att_hit *hits, size_t max, size_t *n, struct pa_err *);

/*
 * attindex_stats - documents stored, and attestations: the attestation
 * IDs of each document (triples of one document that share an ID count
 * once)
 */
int	attindex_stats(struct attindex *, size_t *docs, size_t *atts,
	    struct pa_err *);

#endif
