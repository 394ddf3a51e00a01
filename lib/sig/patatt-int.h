/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patatt-int.h - what the parts of the patatt verifier share:
 * patatt-canon.c (the message as patatt reads it, the tag list, the
 * canonical headers and body, the digest D), patatt-keys.c (key paths and
 * key file formats), patatt-keyring.c (the keyring folders and the cache
 * of parsed key files), patatt-verify.c (one signature against one
 * reading of the body) and patatt.c (the object, keys, the verdicts).
 *
 * Ownership: every buffer here belongs to the struct that holds it and is
 * freed by that struct's release function; pointers into a message stay
 * valid while the message does; a key file belongs to the keyring and is
 * held between patatt_keyring_get() and patatt_keyring_put().
 */
#ifndef PA_PATATT_INT_H
#define PA_PATATT_INT_H

#include <sys/types.h>
#include <sys/stat.h>

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "patchattest.h"
#include "base.h"
#include "mail.h"
#include "openpgp.h"
#include "patatt.h"
#include "pgp.h"

#define PATATT_FIELDS_MAX	2000	/* header fields read of a message */
#define PATATT_VALUE_MAX	16384	/* one X-Developer-Signature value */
#define PATATT_HNAMES_MAX	64	/* header names in h= */
#define PATATT_KEYFILE_MAX	(1u << 20)	/* bytes of one key file */
#define PATATT_PATH_MAX		1024
#define PATATT_BH_MAX		48	/* Base64 of a SHA-256, and NUL */
#define PATATT_NREADINGS	2	/* readings of the body (patatt.c) */

/*
 * The message as patatt's own reader splits it (patatt.md 2.1): header
 * fields with their continuation lines and line ends, up to the first
 * line that is empty or blank.
 */
struct patatt_field {
	size_t	off, len;	/* in the text, the last LF included */
	size_t	colon;		/* offset of the first ':' in the field, or
				   len when it has none */
};

struct patatt_msg {
	const char		*text;
	size_t			 len;
	struct patatt_field	*f;
	size_t			 n, alloc;
	size_t			 nsig_over;	/* signature fields past
						   PATATT_FIELDS_MAX */
	const char		*invalid;	/* why patatt cannot read the
						   message, or NULL */
};

void	patatt_msg_init(struct patatt_msg *);
void	patatt_msg_release(struct patatt_msg *);
/* patatt_msg_split - split text; PA_ENOMEM, else 0 (invalid set or not) */
int	patatt_msg_split(struct patatt_msg *, const char *text, size_t len);
/* patatt_field_is - the field's name, blanks stripped, is lname in any case */
int	patatt_field_is(const struct patatt_msg *, size_t i, const char *lname);
/* patatt_field_value - the bytes after the colon, line ends included */
const char *patatt_field_value(const struct patatt_msg *, size_t i,
	    size_t *len);

/*
 * patatt_canon_value - patatt's relaxed header value (patatt.md 2.2,
 * "?q?" decoding included) and CRLF, appended to out.  PA_EDECODE or
 * PA_ECHARSET where Python raises, PA_ENOMEM, PA_ETOOBIG.
 */
int	patatt_canon_value(struct sbuf *out, const char *v, size_t len);

/* The tags of an X-Developer-Signature or -Key (patatt.md 1.1, 1.2). */
enum patatt_tag {
	TAG_V, TAG_A, TAG_T, TAG_L, TAG_I, TAG_S, TAG_H, TAG_BH, TAG_B,
	TAG_PK, TAG_FPR,	/* of X-Developer-Key */
	PATATT_NTAGS
};

struct patatt_tags {
	struct sbuf	 canon;		/* the canonical value, with CRLF */
	struct sbuf	 flat;		/* it without any whitespace */
	const char	*v[PATATT_NTAGS];	/* into flat; NULL: absent */
	size_t		 len[PATATT_NTAGS];
};

void	patatt_tags_init(struct patatt_tags *);
void	patatt_tags_release(struct patatt_tags *);
/* patatt_tags_parse - 0, PA_ETOOBIG over PATATT_VALUE_MAX, or as above */
int	patatt_tags_parse(struct patatt_tags *, const char *v, size_t len);
/* patatt_tag_is - tag t is present and equals word */
int	patatt_tag_is(const struct patatt_tags *, enum patatt_tag,
	    const char *word);

/*
 * One reading of the message by git mailinfo (patatt.md 2.3): the body
 * hash, and the From and Subject values that replace the mail's.
 */
struct patatt_reading {
	int		 done;
	int		 rc;		/* 0, or why it failed (why says more) */
	char		 why[160];
	unsigned	 saw;		/* MAILINFO_SAW_* */
	char		 bh[PATATT_BH_MAX];
	size_t		 body_len;
	struct sbuf	 from;		/* " Author <email>" */
	struct sbuf	 subject;	/* " Subject" */
};

void	patatt_reading_init(struct patatt_reading *);
void	patatt_reading_release(struct patatt_reading *);
/*
 * patatt_read - fill r from the message text with mailinfo options o;
 * mi and work are scratch.  Returns PA_ENOMEM, else 0 with r->rc set.
 */
int	patatt_read(struct patatt_reading *r, struct mailinfo *mi,
	    struct sbuf *work, const char *text, size_t len,
	    const struct mailinfo_opts *o);

/*
 * patatt_digest - D of patatt.md 3.1: the h= headers of m (From and
 * Subject as r has them) and the signature value tags->canon up to its
 * last "b=".  used is scratch of m->n bytes, work a buffer.  Returns 0,
 * PA_ENOTFOUND when the value has no "b=", PA_ETOOBIG for more than
 * PATATT_HNAMES_MAX names in h=, or an error of patatt_canon_value.
 */
int	patatt_digest(unsigned char d[DIGEST_LEN], const struct patatt_msg *m,
	    const struct patatt_reading *r, const struct patatt_tags *tags,
	    char *used, struct sbuf *work);

/*
 * Keys (patatt-keys.c).  patatt_key_path - "ALGO/<domain>/<local>/<sel>"
 * into out: -1 when the identity has no "@", -2 when a part is empty,
 * "." or ".." (it would leave the keyring), else 0.
 */
int	patatt_key_path(char *out, size_t size, const char *algo,
	    const char *identity, const char *selector);
/* patatt_key_byhash - "by-hash/XX/<hex SHA-256 of path>" into out */
int	patatt_key_byhash(char *out, size_t size, const char *path);
/* patatt_key_ed25519 - the 32 bytes of a Base64 key file; -1 if not */
int	patatt_key_ed25519(const char *s, size_t len, unsigned char pub[32]);
/* patatt_key_openssh - the key blob of an "authorized_keys" line */
int	patatt_key_openssh(const char *s, size_t len, struct sbuf *blob);
/*
 * A key file found in a keyring folder (patatt-keyfile.c): its path,
 * inside folder number dir and whole, what stat() said of it, and once
 * opened its descriptor, which the caller closes.
 */
struct patatt_located {
	int		 fd;		/* -1 until patatt_keyfile_open() */
	struct stat	 st;
	size_t		 dir;
	const char	*rel;		/* into src */
	char		 src[2 * PATATT_PATH_MAX];
};

/*
 * patatt_keyfile_locate - the file for path (patatt_key_path()) or its
 * by-hash path in the first of dirs[0..n) that has either, into loc (not
 * opened): 0; PA_ENOTFOUND when no folder has a file of any kind there
 * and all were searched; PA_ERROR, a fault, with err naming what (a
 * folder missing, a path that cannot be searched, not a regular file,
 * over PATATT_KEYFILE_MAX); PA_ENOMEM.
 */
int	patatt_keyfile_locate(char *const *dirs, size_t n, const char *path,
	    struct patatt_located *loc, struct pa_err *err);
/*
 * patatt_keyfile_open - the file at loc opened, loc->st replaced by what
 * fstat() says of it: 0, PA_ENOTFOUND (gone since), PA_ERROR as above
 */
int	patatt_keyfile_open(struct patatt_located *loc, struct pa_err *err);
/*
 * patatt_keyfile_holds - whether the folders hold a key file of any
 * algorithm for identity (the selector's file, or a folder of the
 * identity for other selectors): 1, 0, or PA_ERROR / PA_ENOMEM
 */
int	patatt_keyfile_holds(char *const *dirs, size_t n, const char *identity,
	    const char *selector, struct pa_err *err);
/* patatt_keyfile_read - the file at loc appended to file: 0 or a fault */
int	patatt_keyfile_read(const struct patatt_located *loc,
	    struct sbuf *file, struct pa_err *err);

/*
 * A keyring file read and parsed (patatt-keyring.c): the key it holds for
 * algo, and the identity of the file it was read from.  Shared by
 * threads: read only once loading is 0, except pgp, which is used under
 * the lock use.
 */
struct patatt_keyfile {
	char			*path;		/* patatt_key_path(): the
						   cache's key */
	uint64_t		 hash;		/* of path */
	enum patatt_algo	 algo;
	char			*src;		/* the file's full path */
	const char		*rel;		/* its path in its folder */
	int			 fault;		/* 0: a key of algo; else why
						   says why it is refused */
	char			 why[PATATT_DETAIL_MAX];
	unsigned char		 ed[32];	/* ed25519 */
	struct sbuf		 blob;		/* OpenSSH key blob */
	struct openpgp_keys	*pgp;		/* OpenPGP keys */
	pthread_mutex_t		 use;		/* held while pgp is used */
	unsigned char		 sum[DIGEST_LEN];	/* SHA-256 of the bytes */
	dev_t			 dev;
	ino_t			 ino;
	off_t			 size;
	struct timespec		 mtime, ctime;
	int			 settled;	/* ctime old enough when read:
						   the stat says it all */
	int			 loading;	/* being parsed; wait on the
						   keyring's loaded */
	size_t			 cost;		/* estimated bytes held */
	unsigned		 refs;		/* under the keyring's lock */
};

/*
 * patatt_keyfile_parse - the key of kf->algo in (data, len) into kf, and
 * kf->cost: 0, PA_ENOMEM, or PA_EBADDOC with kf->why saying why the file
 * is no key (or one refused by the limits of openpgp.h)
 */
int	patatt_keyfile_parse(struct patatt_keyfile *kf, const char *data,
	    size_t len);

#define PATATT_KEYCACHE_MAX	1024	/* key files kept parsed */
#define PATATT_KEYCACHE_BYTES	(256u << 20)	/* their estimated memory */
#define PATATT_PGP_COST		32	/* librnp's bytes per byte of an
					   OpenPGP key file, about */

/*
 * patatt_keyring_get - the key file for path (patatt_key_path()) in the
 * first keyring folder that has it or its by-hash path, parsed as a key of
 * algo, from the cache while the file is unchanged; held until
 * patatt_keyring_put().  0; PA_ENOTFOUND (no file of any kind in any
 * folder, every folder searched); PA_ENOMEM; PA_ERROR, a fault of the
 * keyring (err names the file inside its folder): a folder that cannot
 * be searched, a file that cannot be read, is not a regular file, is
 * over PATATT_KEYFILE_MAX, or holds no key of algo.
 */
int	patatt_keyring_get(struct patatt_keyring *, const char *path,
	    enum patatt_algo algo, struct patatt_keyfile **out,
	    struct pa_err *err);
void	patatt_keyring_put(struct patatt_keyring *, struct patatt_keyfile *);
/* patatt_keyring_holds - patatt_keyfile_holds() in kr's folders */
int	patatt_keyring_holds(struct patatt_keyring *, const char *identity,
	    const char *selector, struct pa_err *err);

/*
 * The verifier (patatt.h): its keyring, GnuPG context and the buffers of
 * the message being judged, all freed by patatt_free().
 */
struct patatt {
	struct patatt_keyring	*keys;		/* shared; not owned */
	struct pgp		*pgp;		/* the GnuPG home's keys */
	time_t			 now;		/* of the message judged */
	struct mailinfo		 mi;
	struct patatt_msg	 msg;
	struct patatt_reading	 rd[PATATT_NREADINGS];
	struct patatt_tags	 tags;		/* the signature judged */
	struct patatt_tags	 ktags;		/* an X-Developer-Key */
	struct sbuf		 work;
	struct sbuf		 sig;		/* b=, decoded */
	struct sbuf		 plain;		/* OpenPGP signed content */
	char			*used;
	size_t			 aused;
	const char		*bad_msg;	/* the message fails for all */
	int			 gnupg_default;	/* no home configured: GnuPG's
						   default, if usable */
	char			 from_id[PATATT_IDENTITY_MAX];
};

/* Where the key of one signature comes from. */
enum patatt_keyfrom {
	PATATT_KEY_NONE,	/* OpenPGP: the GnuPG home's keys */
	PATATT_KEY_RING,	/* a keyring folder's file */
	PATATT_KEY_OFFERED	/* the message's X-Developer-Key */
};

/* One signature's key and what was learnt of it across readings. */
struct patatt_check {
	const char		*word;		/* "ed25519", ... */
	enum patatt_keyfrom	 from;
	unsigned char		 ed[32];	/* ed25519 key */
	struct patatt_keyfile	*key;		/* held: from a keyring
						   folder, or NULL */
	int			 sig_state;	/* 0 not decoded, 1 ok, -1 bad */
	int			 pgp_done;	/* OpenPGP: the verdict is in
						   osig */
	struct openpgp_sig	 osig;		/* librnp's */
};

/* patatt_set - result r, and the detail from a format */
void	patatt_set(struct patatt_sig *, enum patatt_result, const char *, ...)
	    __attribute__((format(printf, 3, 4)));
/* patatt_copy - (s, len) as a C string into out, cut at size - 1 or NUL */
void	patatt_copy(char *out, size_t size, const char *s, size_t len);

/*
 * patatt_verify - the verdict of signature c (tags in pt->tags) on reading
 * rd of the body, into s.  Returns 0, PA_ENOMEM, or PA_ERROR when the
 * GnuPG home's keys cannot be read (err says why).
 */
int	patatt_verify(struct patatt *, struct patatt_check *,
	    const struct patatt_reading *rd, struct patatt_sig *s,
	    struct pa_err *err);

#endif
