/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <stdio.h>

#include "patchattest.h"

static const struct {
	int		 code;
	const char	*text;
} pa_errors[] = {
	{ PA_OK, "success" },
	{ PA_ERROR, "internal error" },
	{ PA_ENOMEM, "out of memory" },
	{ PA_ETOOBIG, "input over the size limit" },
	{ PA_ENOPATCH, "no patch" },
	{ PA_EMAILINFO, "git mailinfo would reject this message" },
	{ PA_ECHARSET, "unknown charset" },
	{ PA_EDECODE, "text not valid in its charset" },
	{ PA_ENOHASH, "no attestation hash can be computed" },
	{ PA_ECONFIG, "configuration error" },
	{ PA_ENOTFOUND, "not found" },
	{ PA_EBADDOC, "not a valid attestation document" },
};

const char *
pa_strerror(int code)
{
	size_t i;

	for (i = 0; i < sizeof(pa_errors) / sizeof(pa_errors[0]); i++)
		if (pa_errors[i].code == code)
			return pa_errors[i].text;
	return "unknown error";
}

void
pa_err_vset(struct pa_err *err, const char *fmt, va_list ap)
{
	if (err != NULL)
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

void
pa_err_set(struct pa_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pa_err_vset(err, fmt, ap);
	va_end(ap);
}
