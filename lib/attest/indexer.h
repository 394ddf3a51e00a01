/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * indexer - from archive entries and mail to the index: find the
 * attestation documents in a message, verify each once with GnuPG, and
 * store its triples with what the signature check said.
 *
 * A document is stored even when its signature is bad or its key unknown:
 * the decision reports those as such.  Triples whose p is the hash of
 * nothing attest no content and are not stored.
 *
 * Messages without an attestation document are passed over after a cheap
 * look; a document that cannot be parsed is skipped with one warning
 * naming where it was.
 */
#ifndef PA_INDEXER_H
#define PA_INDEXER_H

#include <stddef.h>

#include "attindex.h"
#include "base.h"
#include "patchattest.h"
#include "sig.h"

struct indexer_stats {
	size_t	entries;	/* archive entries or mails read */
	size_t	documents;	/* attestation documents found */
	size_t	verified;	/* ... with a good signature */
	size_t	bad;		/* ... bad signature, unknown key, unparsable */
	size_t	known;		/* ... already in the index */
	size_t	skipped;	/* entries not read (too big, broken) */
	size_t	attestations;	/* triples stored */
	size_t	removed;	/* documents taken out */
};

struct indexer_hooks {
	/* one line about an entry that was skipped or a broken document */
	void	(*warn)(void *arg, const char *where, const char *what);
	/* called now and then while an archive is read */
	void	(*progress)(void *arg, const struct indexer_stats *);
	/* asked after each archive entry and before each document of a
	   mail is verified: non-zero ends the run, its work kept */
	int	(*stop)(void *arg);
	void	*arg;
};

/*
 * indexer_summary - one line of what a run did, for the command and the
 * milter's log alike: "12 entries read: 3 attestation documents (2
 * verified, 1 bad or unverifiable, 0 already indexed), 0 skipped; 9
 * attestations indexed, 0 documents removed"
 */
void	indexer_summary(struct sbuf *out, const struct indexer_stats *);

/*
 * indexer_worth_reading - a cheap look at a raw message: a clearsigned
 * block in its bytes, or an encoded part that might hide one.  0 means
 * indexer_message() would find no document in it.
 */
int	indexer_worth_reading(const char *raw, size_t len);

/*
 * indexer_message - index the documents in one message (raw bytes),
 * inside the caller's write transaction.  where names the message in the
 * index ("git/0.git:<commit>", "mail").
 */
int	indexer_message(struct attindex *, struct pgp *, const char *raw,
	    size_t len, const char *where, struct indexer_stats *,
	    const struct indexer_hooks *, struct pa_err *);

/*
 * indexer_mail - learn the documents of one mail (where: "mail"), each
 * stored in a write transaction of its own, so that GnuPG runs outside
 * any.  Before each GnuPG run: at most max documents are verified (then
 * PA_ETOOBIG, err saying so, the rest not read), and hooks->stop may end
 * the run (0, the rest not read).  Those stored stay stored.
 */
int	indexer_mail(struct attindex *, struct pgp *, const char *raw,
	    size_t len, size_t max, struct indexer_stats *,
	    const struct indexer_hooks *, struct pa_err *);

/*
 * indexer_unindex - take out the documents of a message that left the
 * archive.
 */
int	indexer_unindex(struct attindex *, const char *raw, size_t len,
	    struct indexer_stats *, struct pa_err *);

/*
 * indexer_archive - read the configured archive from where the index
 * stopped last time, committing every few hundred entries together with
 * the archive marks, so an interrupted run loses little.
 */
int	indexer_archive(const struct pa_config *, struct attindex *,
	    struct pgp *, struct indexer_stats *, const struct indexer_hooks *,
	    struct pa_err *);

#endif
