/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledgersize - where the bytes of a ledger file (StateFile) go, for the
 * benchmarks that fill one: the records, the file, and per record the
 * file, a record's stored value, and the pages of each database (the
 * records, the Message-ID and patch-id indexes, the habits) and of the
 * rest (LMDB's own pages and those it keeps for reuse).  One "name value
 * unit" line each, the names beginning with prefix.  The file must be
 * closed by its writer; a file that cannot be read is fatal.
 */
#ifndef PA_BENCH_LEDGERSIZE_H
#define PA_BENCH_LEDGERSIZE_H

void	bench_ledger_sizes(const char *path, const char *prefix);

#endif
