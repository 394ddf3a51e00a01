/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-codec - the stored form of an arrival record and of a signing
 * habit (ledger.h), apart from the store so that it can be fuzzed alone.
 *
 * A value is a version byte, then fields as tag (1 byte), length (2
 * bytes, big-endian), value; the last field is a checksum: the first 8
 * bytes of SHA-256 over the value's key and every byte before it.  LMDB
 * keeps no checksums, so this tells a damaged value, or one moved under
 * another key, from a real one.  Unknown tags are read past (a later
 * version may add fields), and a field that an older record lacks
 * decodes empty: so fields are added under new tags without a new
 * version (the signature's algo, selector and key came so, tags 23-25),
 * which is kept for a change that older readers must refuse.  Decoding
 * checks every length against the field's cap in ledger.h and refuses a
 * field given twice, a string with a NUL byte or a flag other than 0 or
 * 1.
 *
 * The encoders append to a caller's sbuf (cap LEDGER_VALUE_MAX or more)
 * and return 0 or its error; the decoders return 0, or PA_ERROR when the
 * value is damaged (out is then undefined).
 */
#ifndef PA_LEDGER_CODEC_H
#define PA_LEDGER_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "ledger.h"

#define LEDGER_PATCHID_LEN	20	/* a patch-id's bytes */

/* ledger_patch_id - hex into its 20 bytes: 0, or -1 when it is not one */
int	ledger_patch_id(unsigned char out[LEDGER_PATCHID_LEN],
	    const char *hex);

/* The largest value either encoder makes, with room. */
#define LEDGER_VALUE_MAX	8192

/*
 * A habit as it is kept: which of the recent patch mails were signed,
 * and what each was, so that a copy or a re-sent patch is known as one
 * (ledger.h): ids[k] belongs to bit k of window.
 */
struct habit_id {
	unsigned char	 msgid[8];	/* the Message-ID's hash, its start */
	unsigned char	 patch[8];	/* the patch-id's start; 0s: none */
};

struct habit_state {
	struct habit	 h;
	uint32_t	 window;	/* bit 0: the latest patch mail, set
					   when it was signed with a trusted
					   key; h.recent bits are in use */
	struct habit_id	 ids[HABIT_WINDOW];	/* all 0: not known (a
						   habit older than them) */
};

int	ledger_encode_arrival(struct sbuf *, const void *key, size_t keylen,
	    const struct arrival *);
int	ledger_decode_arrival(const void *value, size_t len, const void *key,
	    size_t keylen, struct arrival *out);
/* The key of a habit is its identity (filled in by the decoder). */
int	ledger_encode_habit(struct sbuf *, const struct habit_state *);
int	ledger_decode_habit(const void *value, size_t len,
	    const char *identity, size_t identitylen, struct habit_state *out);

/*
 * ledger_habit_add - a's patch mail added to the habit hs (a's
 * message_id_sha256 set): a new place in the window, or, when the window
 * holds its Message-ID or its patch already, that place marked signed if
 * a is; a later copy (a->copy > 1) of a Message-ID the window no longer
 * holds adds nothing.  Returns whether hs changed.
 */
int	ledger_habit_add(struct habit_state *hs, const struct arrival *a);

/*
 * ledger_seal - the checksum field of the value that begins at start in
 * sb, stored under key, appended (the encoders end with it)
 */
int	ledger_seal(struct sbuf *, size_t start, const void *key,
	    size_t keylen);

#endif
