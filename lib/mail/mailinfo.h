/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mailinfo - git mailinfo's reading of a patch mail, as the 2020 patch
 * attestation tools saw it through "git mailinfo --encoding=UTF-8".
 *
 * Input: one message as bytes with LF line ends (mailmsg's canonical form).
 * Output: the info fields (author, email, subject, date), the commit
 * message and the patch text, byte for byte what git writes to stdout,
 * MSGFILE and PATCHFILE.  Options select the behaviour of other git
 * versions (see struct mailinfo_opts).
 *
 * Lifecycle: mailinfo_init() on caller storage, mailinfo_run() any number
 * of times (each run starts afresh and keeps the allocations of the last),
 * mailinfo_release() frees the buffers.  Every buffer is capped at four
 * times the input, which no output can exceed.
 *
 * mailinfo_run() returns 0, PA_EMAILINFO when git would exit with status 1
 * (mi->error says why, as git would), or PA_ETOOBIG / PA_ENOMEM.
 */
#ifndef PA_MAILINFO_H
#define PA_MAILINFO_H

#include "charset.h"
#include "base.h"

struct mailinfo_opts {
	unsigned	convert:1;	/* mode R: charsets to UTF-8 (git < 2.32) */
	unsigned	short_names:1;	/* names under 3 bytes -> email (< 2.33) */
	unsigned	old_colon:1;	/* "Name:" needs one blank after (< 2.26) */
	unsigned	utf8_unknown:1;	/* labels iconv lacks read as UTF-8 */
	unsigned	scissors:1;	/* mailinfo.scissors = true */
};

/* What the input exercised; tells which other options could differ. */
#define MAILINFO_SAW_CONVERSION	0x01	/* a charset conversion happened */
#define MAILINFO_SAW_UNKNOWN	0x02	/* iconv could not open a label */
#define MAILINFO_SAW_TIGHT	0x04	/* "Name:" without a blank after it */
#define MAILINFO_SAW_SCISSORS	0x08	/* a message line is a scissors line */
#define MAILINFO_SAW_SHORTNAME	0x10	/* the name is 1 or 2 bytes long */

struct mailinfo {
	/* results of the last run */
	struct sbuf	author;
	struct sbuf	email;
	struct sbuf	subject;
	struct sbuf	date;
	unsigned	has_from:1;	/* Author:/Email: lines printed */
	unsigned	has_subject:1;
	unsigned	has_date:1;
	struct sbuf	msg;
	struct sbuf	patch;
	size_t		patch_lines;
	unsigned	saw;		/* MAILINFO_SAW_* */
	char		error[160];

	/* working state, private to mailinfo.c */
	struct mailinfo_opts opts;
	const char	*in;
	size_t		 inlen;
	size_t		 pos;
	struct sbuf	 hdr[3];	/* From, Subject, Date: mail headers */
	struct sbuf	 inbody[3];	/* the same from the message body */
	unsigned	 hdr_set;
	unsigned	 inbody_set;
	struct sbuf	 line;		/* header line, or current body line */
	struct sbuf	 work;		/* transfer-decoded line */
	struct sbuf	 prev;		/* partial line, flowed text pending */
	struct sbuf	 flow;		/* flowed line being emitted */
	struct sbuf	 conv;		/* message line converted to UTF-8 */
	struct sbuf	 accum;		/* in-body header being collected */
	struct sbuf	 val;		/* decoded header value */
	struct sbuf	 scratch;
	struct sbuf	 charset;
	struct sbuf	 boundary[4];
	int		 nboundary;
	int		 encoding;
	unsigned	 flowed:1;
	unsigned	 delsp:1;
	unsigned	 header_stage:1;
	unsigned	 in_patch:1;
	struct charset_conv cc;
};

void	mailinfo_init(struct mailinfo *);
void	mailinfo_release(struct mailinfo *);
int	mailinfo_run(struct mailinfo *, const char *in, size_t len,
	    const struct mailinfo_opts *);

/*
 * mailinfo_info - the stdout git would print (Author, Email, Subject, Date
 * lines and a blank line) into out, for tests and debugging.
 */
int	mailinfo_info(const struct mailinfo *, struct sbuf *out);

#endif
