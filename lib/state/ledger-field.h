/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-field - a value of the ledger as a table of its fields, what
 * ledger-fields.c (the tables of an arrival record and of a habit) hands
 * ledger-codec.c (the stored form, written and read the same for any
 * table).  Private to the two.
 */
#ifndef PA_LEDGER_FIELD_H
#define PA_LEDGER_FIELD_H

#include <stddef.h>

#include "ledger.h"

#define DERIVED_MAX	ARRIVAL_TEXT_MAX	/* a derived field, at most */

enum field_type {
	F_STR,		/* char[size], NUL-terminated; stored without it */
	F_HEX,		/* an F_STR; size - 1 lower-case hex digits are
			   stored as their bytes under the tag bin */
	F_BYTES,	/* unsigned char[size], stored whole */
	F_UINT,		/* unsigned (or uint32_t), 4 bytes */
	F_TIME,		/* time_t, 8 bytes, two's complement */
	F_FLAG		/* int, 0 or 1, 1 byte */
};

struct field {
	unsigned char	 tag;	/* stable: the file keeps it */
	unsigned char	 bin;	/* F_HEX: the tag of its bytes */
	enum field_type	 type;
	size_t		 off, size;
	/* version 2: the value the other fields give, which is then not
	   stored (size bytes into out; 0, or -1 when there is none) */
	int		(*derive)(const void *obj, unsigned char *out);
};

/*
 * ledger_value_encode - the fields of obj that t[0..n) names (with pack,
 * its text fields packed), then the checksum over key and them, appended
 * to sb: 0, or sb's error
 */
int	ledger_value_encode(struct sbuf *sb, const struct field *t, size_t n,
	    const void *obj, int pack, const void *key, size_t keylen);
/*
 * ledger_value_decode - a value made by ledger_value_encode() with table
 * t[0..n) under key into obj (objsize bytes, zeroed first): 0, PA_ERROR
 * when it is damaged, or PA_ENOMEM
 */
int	ledger_value_decode(const struct field *t, size_t n,
	    const unsigned char *p, size_t len, const void *key, size_t keylen,
	    void *obj, size_t objsize);

#endif
