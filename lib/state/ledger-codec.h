/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-codec - the stored form of an arrival record and of a signing
 * habit (ledger.h), apart from the store so that it can be fuzzed alone.
 *
 * A value is a version byte, then fields as tag (1 byte), length,
 * value; the last field is a checksum: the first 8 bytes of SHA-256 over
 * the value's key and every byte before it.  LMDB keeps no checksums, so
 * this tells a damaged value, or one moved under another key, from a real
 * one.  Unknown tags are read past (a later version may add fields), and
 * a field that an older record lacks decodes empty: so fields are added
 * under new tags without a new version (the signature's algo, selector
 * and key came so, tags 23-25), which is kept for a change that older
 * readers must refuse.  Decoding checks every length against the field's
 * cap in ledger.h and refuses a field given twice (in either of its
 * forms), a string with a NUL byte or a flag other than 0 or 1.
 *
 * Version 2, the one written, is version 1 made smaller, and both are
 * read: a length is 1 byte below 128, else 2 (the top bit set), where
 * version 1 always has 2; a number has no leading zero bytes, and a
 * number or flag that is 0 is left out as an empty string is; a hash
 * that is lower-case hex (i, m, p, m_core, patch_id) is stored as its
 * bytes under a tag of its own (tags 32-36; any other text under the
 * old tag, as text); and a field that the others give is left out when
 * it has that value and decodes to it when missing: message_id_sha256,
 * the hash of message_id (a Message-ID longer than message_id keeps,
 * or with a NUL byte, stores its own), and identity, the author's
 * address lowered (one that differs is stored, "" as an empty field).
 * A record's text fields (its F_STR ones) are one field, tag 254, of
 * those fields deflated (ledger-pack.c), when that is smaller.  The
 * in-memory struct arrival is the same for both versions.
 *
 * The encoders append to a caller's sbuf (cap LEDGER_VALUE_MAX or more)
 * and return 0 or its error; the decoders return 0, PA_ERROR when the
 * value is damaged, or PA_ENOMEM (out is then undefined).
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
 * ledger_habit_merge - the habit from (another store's, of the same
 * identity) merged into into (habit.c): into's own when it has no mail
 * yet; else the mails of both, each once (by Message-ID or patch-id: a
 * mail both hold is signed when either says so), in into's order and
 * from's, those from alone holds placed after into's own between two
 * mails both hold (into's are taken as the later: the milter learnt them
 * after from's store was left), and the window's HABIT_WINDOW latest
 * kept.  A mail of from whose ids are not known (a habit older than
 * them) cannot be told from into's, and is left out.  Merging the same
 * from again changes nothing.  Returns whether into changed.
 */
int	ledger_habit_merge(struct habit_state *into,
	    const struct habit_state *from);

/* ledger_habit_same - whether a and b are one habit, field by field */
int	ledger_habit_same(const struct habit_state *a,
	    const struct habit_state *b);

/*
 * ledger_seal - the checksum field of the value that begins at start in
 * sb, stored under key, appended in the form of the value's version (the
 * encoders end with it)
 */
int	ledger_seal(struct sbuf *, size_t start, const void *key,
	    size_t keylen);

/*
 * ledger_unhex - the n bytes that 2n lower-case hex digits at hex spell
 * into out: 0, or -1 when hex is not that (strlen(hex) != 2n included)
 */
int	ledger_unhex(unsigned char *out, const char *hex, size_t n);

/*
 * ledger_pack, ledger_unpack - len bytes at in deflated, or inflated,
 * into out, at most *outlen bytes (set to those written): 0, PA_ENOMEM,
 * or PA_ETOOBIG (pack: out is too small) / PA_ERROR (unpack: not a
 * whole stream, or longer than out)
 */
int	ledger_pack(unsigned char *out, size_t *outlen, const void *in,
	    size_t len);
int	ledger_unpack(unsigned char *out, size_t *outlen, const void *in,
	    size_t len);

#endif
