/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-journal-int - the local journal of StateDatabase (pg-int.h's
 * journal_*), shared by its files, each calling only those before it:
 * pg-jframe.c (the stored form), pg-jbase.c (messages, whole reads and
 * writes, the ring), pg-jwrite.c (the header, new files and rewrites),
 * pg-jscan.c (reading a file: the ring filled, damage found and set
 * aside), pg-jconvert.c (the LMDB journal of earlier versions) and
 * pg-journal.c (the interface).
 *
 * The file (STATEFILE-outbox) is read with pread() only, never mapped,
 * so that no byte of it can steer the reader outside what it read:
 *
 *   0        header slot A (JSLOT_LEN bytes)
 *   JSLOT_B  header slot B
 *   JHEAD    frames, in the order of their sequence numbers, appended
 *
 * A header slot is "PAJOURN1", its generation (the slots are written in
 * turn and the newer whole one is in force: a torn write leaves the
 * other), the journal's key (random, made with the file), sent (every
 * entry up to that sequence number is sent), synced (every entry up to
 * that one was on the disk: fewer at the next open is a journal cut
 * short), sent_off (where the entries after sent begin), and a CRC-32 of
 * the slot.  Numbers are big-endian.
 *
 * A frame is "PAj" 1, the length of its record (4 bytes), its sequence
 * number (8), the sequence number of the frame before it (8), its record
 * id (16), a CRC-32 of those 40 bytes, then the record in the ledger's
 * stored form (ledger-codec.h) sealed under the journal's key, the
 * sequence number and the record id.  The CRC tells a damaged length
 * before it is used; the seal tells a damaged record, or one that is
 * not this journal's: without the key, no mail can carry bytes that pass
 * for a frame when damage before them is scanned past.  A frame is
 * trusted only when both agree and its sequence number comes after the
 * one before; any other byte is damage, scanned past one byte at a time
 * to the next trusted frame, so that damage costs the entries it touches
 * and no more.  The entries between a frame and the one before it that
 * it does not name as its previous are lost: a rewrite that leaves out
 * entries (sent, or set aside) links the frames anew, so that what was
 * counted once is not counted again.
 *
 * Threads: puts from any thread (under lock); take, sync, remove and
 * the rewrites from one (the sender), which alone moves the ring's head
 * and switches the file; journal_each_msgid() from any, under lock.
 * The ring grows as puts come (it moves then): it is read under lock,
 * or from a copy of the entries made under lock.
 */
#ifndef PA_PG_JOURNAL_INT_H
#define PA_PG_JOURNAL_INT_H

#include <sys/types.h>

#include <pthread.h>
#include <stdint.h>

#include "ledger-codec.h"
#include "pg-int.h"

#define JSLOT_LEN	64
#define JSLOT_B		4096		/* slot B, in a page of its own */
#define JHEAD		8192		/* the frames begin here */
#define JKEY_LEN	16
#define JID_LEN		16		/* a record id, 32 hex digits */
#define JFRAME_HEAD	44
#define JFRAME_MAX	(JFRAME_HEAD + LEDGER_VALUE_MAX)
#define JFRAME_MAGIC	"PAj\001"
/* What the journal holds unsent at most (as the LMDB journal's map did:
   some 250,000 records); full, it refuses puts. */
#define JOURNAL_CAP	((uint64_t)256 << 20)
#define JOURNAL_RING	((size_t)1 << 18)	/* entries unsent, at most */
#define JRING_FIRST	1024		/* the ring's first size */
/* what the file of damaged bytes beside the journal may grow to */
#define JASIDE_CAP	((uint64_t)1 << 30)

/* A header slot, decoded. */
struct jslot {
	uint64_t	 gen;
	unsigned char	 key[JKEY_LEN];
	uint64_t	 sent, synced, sent_off;
};

/* An unsent entry of the journal, in the ring. */
struct jent {
	uint64_t	 seq;
	uint64_t	 off;		/* of its frame in the file */
	uint32_t	 len;		/* of its frame; 0: gone (sent, lost) */
	uint32_t	 hash;		/* its Message-ID's hash, 4 bytes */
};

/* What a reading of the file found wrong. */
struct jdamage {
	uint64_t	 bytes;		/* that are no trusted frame */
	uint64_t	 first;		/* the offset of the first of them */
	uint64_t	 lost;		/* records known lost in them */
	uint64_t	 cut;		/* records synced, gone from the end */
	uint64_t	 unkept;	/* bytes not kept (that file is full) */
	int		 headcut;	/* it ends inside its header */
	int		 converted;	/* the bytes are the LMDB journal's */
	int		 headless;	/* no whole header: nothing trusted */
	int		 empty;		/* the file is empty */
};

struct journal {
	char		*path;		/* for messages */
	char		*name;		/* its name in dirfd */
	int		 dirfd, fd;
	int		 aside;		/* the file of damaged bytes, or -1 */
	struct statedb_notice notice;	/* fn NULL: none */
	pthread_mutex_t	 lock;
	struct jslot	 h;		/* the header as last written */
	uint64_t	 next_seq;
	uint64_t	 last_seq;	/* of the last frame in the file */
	uint64_t	 end;		/* where the next frame goes */
	struct jent	*ring;		/* cap of them, growing */
	size_t		 cap;		/* 0, or a power of 2 */
	size_t		 head, count;	/* unsent: count from ring[head] */
	size_t		 live;		/* of them, not gone */
};

/* JRING - the unsent entry i, from the oldest (j->lock held); cap is a
   power of 2 */
#define JRING(j, i)	((j)->ring[((j)->head + (i)) & ((j)->cap - 1)])

/* pg-jframe.c: the stored form */
void	jslot_encode(unsigned char out[JSLOT_LEN], const struct jslot *);
/* jslot_decode - 0, or -1 when in is no whole slot */
int	jslot_decode(const unsigned char in[JSLOT_LEN], struct jslot *);
/* jframe_make - the frame of a as entry seq (after prev), id, sealed
   under key, appended to sb: 0, or sb's error */
int	jframe_make(struct sbuf *, const unsigned char key[JKEY_LEN],
	    uint64_t seq, uint64_t prev, const unsigned char id[JID_LEN],
	    const struct arrival *a);
/* jframe_relink - the frame at p now after entry prev */
void	jframe_relink(unsigned char *p, uint64_t prev);
enum jframe {
	JFRAME_OK,		/* a trusted frame of *len bytes */
	JFRAME_SHORT,		/* whole only with *len bytes, not there */
	JFRAME_BAD
};
/* jframe_read - the frame at p (avail bytes there): its seq, prev, id
   and record into the out parameters when JFRAME_OK */
enum jframe jframe_read(const unsigned char *p, size_t avail,
	    const unsigned char key[JKEY_LEN], size_t *len, uint64_t *seq,
	    uint64_t *prev, unsigned char id[JID_LEN], struct arrival *a);
/* jframe_hash - the first 4 bytes of a's Message-ID hash; -1 no memory */
int	jframe_hash(const struct arrival *a, uint32_t *hash);
/* jlmdb_probe - whether the n bytes at p begin an LMDB data file */
int	jlmdb_probe(const unsigned char *p, size_t n);

/*
 * pg-jbase.c: jfail - "WHAT the journal of arrival records at PATH: WHY"
 * into err, PA_ERROR (why NULL: errno's, PA_ENOMEM for ENOMEM).  jpread -
 * n bytes from off (fewer at the end): how many, or -1.  jpwrite - n
 * bytes at off: 0, or -1.  jring_add - e after the ring's last entry
 * (j->lock held): 0, or -1 (full at JOURNAL_RING; no memory: ENOMEM).
 */
int	jfail(const struct journal *j, struct pa_err *, const char *what,
	    const char *why);
ssize_t	jpread(int fd, void *buf, size_t n, uint64_t off);
int	jpwrite(int fd, const void *p, size_t n, uint64_t off);
int	jring_add(struct journal *j, const struct jent *e);

/*
 * pg-jwrite.c: jhead_write - j->h into its next slot, synced.  jfresh -
 * a new empty file, with a new key, in place of the journal's.
 * jrewrite - the journal's unsent entries copied into a new file that
 * replaces it.  Each new file is NAME.new, made empty by jnewfile() (its
 * descriptor, or -1), and put in place by jinstall(): synced, renamed
 * to NAME, made j's file, the folder synced; 0, or PA_ERROR (err), fd
 * still the caller's when the rename was not done (j->fd is not fd).
 */
int	jhead_write(struct journal *j, struct pa_err *);
int	jfresh(struct journal *j, struct pa_err *);
int	jrewrite(struct journal *j, struct pa_err *);
int	jnewfile(struct journal *j, struct pa_err *);
int	jinstall(struct journal *j, int fd, struct pa_err *);

/*
 * pg-jscan.c: jscan_file - the header and the frames of j->fd into j
 * (its ring, sent, synced, next_seq, end), damage into d and its bytes
 * set aside: 0, or PA_ERROR / PA_ENOMEM when the file cannot be read or
 * the damage not set aside (err).  jaside_put - n bytes at p appended
 * to PATH-damaged and synced (past JASIDE_CAP: counted in d->unkept, not
 * kept); jaside - the bytes [from, to) of fd so: 0, or PA_ERROR (err).
 * jreport - d told to the notice, when it says anything is wrong.
 */
int	jscan_file(struct journal *j, struct jdamage *d, struct pa_err *);
int	jaside_put(struct journal *j, const void *p, size_t n,
	    struct jdamage *d, struct pa_err *);
int	jaside(struct journal *j, int fd, uint64_t from, uint64_t to,
	    struct jdamage *d, struct pa_err *);
void	jreport(struct journal *j, const struct jdamage *d);

/* pg-jconvert.c: jconvert - the LMDB journal at j->path made a journal
   of this form (its records kept, their sequence numbers and ids) */
int	jconvert(struct journal *j, struct jdamage *d, struct pa_err *);

#endif
