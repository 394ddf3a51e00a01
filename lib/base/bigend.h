/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bigend - numbers stored as big-endian bytes: the state files' keys sort
 * in the order of the numbers they begin with, whatever the host's
 * byte order.
 */
#ifndef PA_BIGEND_H
#define PA_BIGEND_H

#include <stdint.h>

static inline void
bigend_put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static inline uint32_t
bigend_get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static inline void
bigend_put64(unsigned char *p, uint64_t v)
{
	bigend_put32(p, (uint32_t)(v >> 32));
	bigend_put32(p + 4, (uint32_t)v);
}

static inline uint64_t
bigend_get64(const unsigned char *p)
{
	return (uint64_t)bigend_get32(p) << 32 | bigend_get32(p + 4);
}

#endif
