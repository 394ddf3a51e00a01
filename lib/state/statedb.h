/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * statedb - the pins and arrival records of several nodes in one
 * PostgreSQL database (StateDatabase), and the stores opened as the
 * configuration says: the files (PatattTOFUPins, StateFile) without it.
 *
 * The schema is made and migrated by statedb_init(); statedb_status()
 * says whether it is the one this program reads.  With the database, the
 * arrival records go first into a local journal beside StateFile
 * (STATEFILE-outbox) and reach the database from there, once each.
 * No message here names the connection string: a password in it, or in
 * what libpq says, is never repeated.
 *
 * notice, when not NULL, is told when the database goes away (up 0, why)
 * and when it is back (up 1): for the edge to log, once per change.  Its
 * damaged, when not NULL, is told of damage found in the journal: why
 * names the file and says what was lost, lost counts the records known
 * lost, set_aside the bytes kept in the file beside it (PATH-damaged).
 */
#ifndef PA_STATEDB_H
#define PA_STATEDB_H

#include <stdint.h>

#include "ledger.h"
#include "pins.h"

#define STATEDB_VERSION		2	/* the schema this program reads */

struct statedb_notice {
	void	(*fn)(void *arg, int up, const char *why);
	void	 *arg;
	void	(*damaged)(void *arg, const char *why, uint64_t lost,
		    uint64_t set_aside);
};

/*
 * statedb_pins_open, statedb_ledger_open - the pins (PatattTOFU's) and
 * the arrival records of cf, in StateDatabase when it is set, else in
 * their files (as pins_open() and ledger_open() with create and
 * writable).  Not writable, through StateDatabaseReader when it is set.
 * The ledger is NULL with 0 when StateFile is off, except for reading
 * the database (StateFile holds only its journal).
 */
int	statedb_pins_open(struct pins **out, const struct pa_config *cf,
	    int create, int writable, const struct statedb_notice *,
	    struct pa_err *);
int	statedb_ledger_open(struct ledger **out, const struct pa_config *cf,
	    int writable, const struct statedb_notice *, struct pa_err *);

/*
 * statedb_init - StateDatabase's schema made, or migrated to
 * STATEDB_VERSION, and its tables granted for reading (SELECT) to the
 * user StateDatabaseReader names, in one transaction: 0 (*was: the
 * version found, 0 none), PA_ERROR
 */
int	statedb_init(const struct pa_config *, int *was, struct pa_err *);
/*
 * statedb_reader - the user StateDatabaseReader names (user=) into out:
 * 1, or 0 ("" in out) when it is not set or names none
 */
int	statedb_reader(const struct pa_config *, char *out, size_t size);
/*
 * statedb_status - StateDatabase reached and its schema version in
 * *version: 0 when it is STATEDB_VERSION, PA_ENOTFOUND when it is
 * another (0: no schema), PA_ERROR when the database cannot be reached
 */
int	statedb_status(const struct pa_config *, int *version,
	    struct pa_err *);

/*
 * statedb_look - StateDatabase as this process sees it, for -n (which
 * looks as the milter's user): rc, version and err as statedb_status()
 * gives them; how it was reached, when it was ("as USER, with the
 * password from PATH"); and in passfile, when not empty, why libpq
 * ignores the passfile it is to read (its mode, its owner).  Nothing
 * here holds the password.
 */
struct statedb_seen {
	int		 rc;
	int		 version;
	struct pa_err	 err;
	struct pa_err	 passfile;
	char		 how[1280];
};
void	statedb_look(const struct pa_config *, struct statedb_seen *);

/*
 * A node's files brought into StateDatabase (statedb_import()): the
 * first-use pins of pins_file, then the signing habits and the arrival
 * records of state_file (those ArrivalRetentionDays keeps), read as
 * patchattest stats reads them, while the milter may be writing them.
 * What is there already stays: a pin of another key for an identity is
 * told to conflict (the database's first, the file's) and kept, a habit
 * is merged into the identity's (ledger_habit_merge()), and a record is
 * written under a record id made of what it holds, so that one brought
 * twice, by one node or by several at once, is there once.  Its copies
 * keep their numbers unless the database holds other copies of their
 * Message-ID.  The counts say what came of each part.
 */
struct statedb_import {
	const char	*state_file;	/* NULL: no records nor habits */
	const char	*pins_file;	/* NULL: no pins */
	int		 dry_run;	/* nothing written; the counts say
					   what would be (records not kept
					   are counted as new) */
	void		(*conflict)(void *arg, const struct pin *db,
			    const struct pin *file);
	void		*arg;
	/* records read, written, there already, copies past those the
	   database keeps (not written), older than the retention */
	uint64_t	 records, imported, there, unkept, too_old;
	/* habits read, new to the database, merged into one there,
	   there already as they are, damaged in the file (left out) */
	uint64_t	 habits, habits_new, habits_merged, habits_there,
			 habits_damaged;
	/* pins read, made, there with the same key, with another */
	uint64_t	 pins, pins_new, pins_there, pins_other;
	int		 no_pins_file;	/* pins_file is not there */
};

/*
 * statedb_import - im's files into cf's StateDatabase, whose schema must
 * be this program's: 0, PA_ENOTFOUND when state_file is not there
 * (nothing is written then), or another error (err names the file or
 * the database and says why; what was written before it stays, and an
 * import run again goes on from there)
 */
int	statedb_import(const struct pa_config *cf, struct statedb_import *im,
	    struct pa_err *);

/*
 * statedb_journal_check - with StateDatabase and StateFile: whether the
 * journal (STATEFILE-outbox) is damaged, or damage set aside from it
 * waits beside it (STATEFILE-outbox-damaged), read without a change:
 * 0, or PA_ERROR with err saying which and what to do
 */
int	statedb_journal_check(const struct pa_config *, struct pa_err *);

#endif
