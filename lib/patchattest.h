/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patchattest.h - the public interface of libpatchattest.
 *
 * The library reads patch mail the way git mailinfo did for the 2020 patch
 * attestation tools and computes the attestation hashes i, m, p and the
 * attestation ID "i[:8]-m[:8]-p[:8]".
 *
 * Conventions
 *  - Functions return 0 on success, a negative PA_E* code otherwise.  Where
 *    a struct pa_err is passed, a failing call writes one sentence for a
 *    system administrator into it; nothing is logged by the library.
 *  - The library never exits and never aborts on bad input or on memory
 *    exhaustion: every failure is a return value.
 *  - A constructor is "int x_new(struct x **out, ...)" (or x_open): 0
 *    with the object in *out, or an error code with *out NULL.  Objects
 *    are freed with the matching *_free() (or x_close), which accepts
 *    NULL.  Objects are not shared between threads.
 */
#ifndef PATCHATTEST_H
#define PATCHATTEST_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#define PA_OK		  0
#define PA_ERROR	(-1)	/* unexpected failure; see the pa_err text */
#define PA_ENOMEM	(-2)	/* out of memory */
#define PA_ETOOBIG	(-3)	/* input over a configured size limit */
#define PA_ENOPATCH	(-4)	/* the message carries no patch */
#define PA_EMAILINFO	(-5)	/* git mailinfo would have rejected it */
#define PA_ECHARSET	(-6)	/* unknown charset label */
#define PA_EDECODE	(-7)	/* bytes not valid in their charset */
#define PA_ENOHASH	(-8)	/* that tool version produced no hash */
#define PA_ECONFIG	(-9)	/* the configuration has problems */
#define PA_ENOTFOUND	(-10)	/* no such entry */
#define PA_EBADDOC	(-11)	/* not a valid attestation document */

struct pa_err {
	char	msg[256];
};

/* pa_err_set, pa_err_vset - write the message into err (err may be NULL) */
void		 pa_err_set(struct pa_err *err, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
void		 pa_err_vset(struct pa_err *err, const char *fmt, va_list ap)
		    __attribute__((format(printf, 2, 0)));

/* pa_strerror - a short text for a PA_E* code */
const char	*pa_strerror(int code);

/*
 * pa_global_init - once per process, before any thread starts: GPGME's
 * and libsodium's set-up, and a SIGBUS handler that turns a read of the
 * index's file cut short by another process into an error of the index
 * (mapguard.h).  0, or PA_ERROR with err saying why.
 */
int		 pa_global_init(struct pa_err *err);

/*
 * pa_divert_stderr - what the libraries write to the stderr stream
 * (librnp's diagnostics, which Debian's build prints whatever it is
 * told) goes to sink, one line at a time without its line end (NULL:
 * nowhere).  Returns a stream on the real standard error for the
 * program's own messages, or NULL (nothing changed).  Once, at start-up,
 * before threads; the stream stays open.
 */
FILE		*pa_divert_stderr(void (*sink)(const char *line, size_t len));

/*
 * struct mailmsg - one mail message, pushed in pieces or parsed whole.
 *
 * Push interface (the milter's callbacks): mailmsg_header() per header
 * field, mailmsg_eoh(), mailmsg_body() per chunk (any split, CRLF or LF),
 * mailmsg_eom().  mailmsg_parse() does all of it for a raw message.
 * Everything is copied; the message holds at most max_bytes of header and
 * body text, and refuses more with PA_ETOOBIG.  mailmsg_reset() readies the
 * object for the next message and keeps its allocation.  mailmsg_new()
 * makes one into *out: 0, or PA_ENOMEM.
 */
struct mailmsg;

int		 mailmsg_new(struct mailmsg **out, size_t max_bytes);
void		 mailmsg_free(struct mailmsg *);
void		 mailmsg_reset(struct mailmsg *);
int		 mailmsg_header(struct mailmsg *, const char *name,
		     const char *value);
int		 mailmsg_eoh(struct mailmsg *);
int		 mailmsg_body(struct mailmsg *, const void *, size_t);
int		 mailmsg_eom(struct mailmsg *);
int		 mailmsg_parse(struct mailmsg *, const void *, size_t);

/*
 * struct msghash - the attestation hashes of one message.
 *
 * Caller storage: msghash_init() once, msghash_compute() for any number of
 * messages (the working buffers are kept between calls), msghash_release()
 * at the end.
 *
 * entry[0] is the primary variant: what the 2020 tools computed with git's
 * charset conversion on and b4 v0.5.4's patch cleaning.  With
 * MSGHASH_VARIANTS, the entries after it are every other distinct
 * (i, m, p) that some tool version or git version in use in 2020 computed
 * for this message; origin says which (MSGHASH_O_* bits: the first that
 * produced it).  When the primary reading fails but another succeeds,
 * entry[0] has a non-zero origin.
 */
#define MSGHASH_MAX	48
#define MSGHASH_ATTID_LEN 26

/* Where a variant differs from the primary computation. */
#define MSGHASH_O_MODE_N	0x01	/* git >= 2.32: no charset conversion */
#define MSGHASH_O_SHORTNAME	0x02	/* git < 2.33: 1-2 byte names dropped */
#define MSGHASH_O_OLDCOLON	0x04	/* git < 2.26: "Name:" needs a blank */
#define MSGHASH_O_UTF8LABEL	0x08	/* b4 >= 0.4.3: unknown charset = UTF-8 */
#define MSGHASH_O_SCISSORS	0x10	/* mailinfo.scissors on */
#define MSGHASH_O_P_V1		0x20	/* b4 0.3.0-0.3.3 patch cleaning */
#define MSGHASH_O_P_V2		0x40	/* b4 0.3.4-0.3.7 patch cleaning */
#define MSGHASH_O_P_TEXT	0x80	/* b4 0.4.0-0.5.0: strict UTF-8 patch */

struct msghash_entry {
	unsigned char	i[32];
	unsigned char	m[32];
	unsigned char	p[32];
	char		attid[MSGHASH_ATTID_LEN + 1];
	unsigned	origin;
};

struct msghash_work;

struct msghash {
	size_t			 n;
	struct msghash_entry	 entry[MSGHASH_MAX];
	struct msghash_work	*work;		/* private */
};

#define MSGHASH_VARIANTS	0x01

void	msghash_init(struct msghash *h);
void	msghash_release(struct msghash *h);

/*
 * msghash_compute - hash a complete message (after mailmsg_eom or
 * mailmsg_parse).  Returns 0 with h->n >= 1, PA_ENOPATCH when the message
 * has no patch, PA_EMAILINFO when git mailinfo would have failed on it
 * (err says why), or another PA_E* code.
 */
int	msghash_compute(struct msghash *h, const struct mailmsg *,
	    unsigned flags, struct pa_err *err);

/*
 * msghash_text - SHA-256 of a commit message computed the way m is: read
 * as Python read the file (strict UTF-8, universal newlines).  0,
 * PA_ENOHASH (not UTF-8: the tools made no m), or PA_ENOMEM.
 */
int	msghash_text(unsigned char out[32], const char *msg, size_t len);

/*
 * msghash_attid - the attestation ID of the hashes i, m, p: their first
 * four bytes each in lower-case hex, "i[:8]-m[:8]-p[:8]", terminated
 */
void	msghash_attid(char out[MSGHASH_ATTID_LEN + 1], const unsigned char *i,
	    const unsigned char *m, const unsigned char *p);

/* msghash_origin_name - "primary", or the origin bits as words, into buf */
#define MSGHASH_ORIGIN_NAME_MAX	128
const char	*msghash_origin_name(unsigned origin, char *buf, size_t len);

#endif
