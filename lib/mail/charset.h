/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * charset - conversion of text to UTF-8 the way git mailinfo does it.
 *
 * struct charset_conv is caller storage: charset_conv_init(), then any
 * number of charset_conv_utf8() calls, then charset_conv_release().  It
 * keeps a few iconv descriptors open between calls, so one conversion per
 * message line costs no iconv_open().
 *
 * charset_conv_utf8() follows git (< 2.32 with --encoding=UTF-8): an empty
 * label or one git considers the same as UTF-8 means no conversion; else
 * the whole text is converted in one go and any invalid or incomplete
 * sequence fails.  Returns 0, PA_ECHARSET (no converter for the label, even
 * after git's fallback spellings), PA_EDECODE, PA_ENOMEM or PA_ETOOBIG.
 */
#ifndef PA_CHARSET_H
#define PA_CHARSET_H

#include <stddef.h>

#include "base.h"

#define CHARSET_SLOTS	4
#define CHARSET_LABEL_MAX 64

struct charset_slot {
	char	 label[CHARSET_LABEL_MAX];
	void	*cd;		/* iconv_t, or NULL: iconv cannot open label */
	int	 ascii_same;	/* ASCII text converts to itself */
};

struct charset_conv {
	struct charset_slot	slot[CHARSET_SLOTS];
	unsigned		next;	/* slot to reuse next */
	struct sbuf		tmp;
};

void	charset_conv_init(struct charset_conv *, size_t max);
void	charset_conv_release(struct charset_conv *);

/* charset_is_utf8 - git's same_encoding("UTF-8", label) */
int	charset_is_utf8(const char *label);

/*
 * charset_conv_utf8 - convert text (in place) from label to UTF-8.
 * *changed is set when the bytes changed.
 */
int	charset_conv_utf8(struct charset_conv *, struct sbuf *text,
	    const char *label, int *changed);

#endif
